#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# openat() with its path recorded: one program makes N openat()+close() pairs
# on CPU 0 (bench-openat), ROUNDS times interleaved,
#   1. untraced,
#   2. traced by trawl (trawl-ktrace -s openat: syscall_entry_openat with the
#      filename string from its BPF program, syscall_exit_openat),
#   3. traced by bpftrace with the one-line script that prints the path:
#      tracepoint:syscalls:sys_enter_openat { printf("%s\n", str(args->filename)); }
#      (output to a file, as a user would keep it),
# and prints medians of the program's CPU per call, the added cost per call,
# events lost, and the ratio trawl/bpftrace (target <= 0.5).
#
#   bench/kernel/bench-openat.sh BUILD_DIR      (N=200000 ROUNDS=3 by default)
set -uo pipefail
B=${1:?usage: bench-openat.sh BUILD_DIR}
B=$(cd "$B" && pwd)
N=${N:-200000}
ROUNDS=${ROUNDS:-3}
[ "$(id -u)" -eq 0 ] || { echo "bench-openat: needs root" >&2; exit 1; }
LOOP=$B/bin/bench-openat
KT=$B/bin/trawl-ktrace
W=$(mktemp -d /tmp/trawl-bench-openat.XXXXXX)
BT_PID=
trap '[ -n "$BT_PID" ] && kill "$BT_PID" 2>/dev/null; rm -rf "$W"' EXIT
export TRAWL_RUNTIME_DIR=$W/run TRAWL_ROOT_RUNTIME_DIR=$W/rootrun
PATHNAME=$W/some/known/path.txt
mkdir -p "$(dirname "$PATHNAME")" && echo hello > "$PATHNAME"
have_bt=0
command -v bpftrace >/dev/null && have_bt=1

field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" | head -1; }
cpc() { awk -v c="$(field cpu_ns < "$W/out")" -v n="$N" 'BEGIN{printf "%.1f", c/n}'; }
declare -A R

run_untraced() { "$LOOP" "$N" "$PATHNAME" > "$W/out"; R[u,$1]=$(cpc); }

run_trawl() {
  rm -rf "$W/trawl"
  TRAWL_KERNEL_STATS=1 "$KT" -o "$W/trawl" --buffer-kb 8192 -s openat -- "$LOOP" "$N" "$PATHNAME" \
    > "$W/out" 2> "$W/err"
  R[t,$1]=$(cpc)
  R[t_lost,$1]=$(sed -n 's/.*stats events=.* lost=\([0-9]*\).*/\1/p' "$W/err")
  # the paths really are in the trace: count the program's entries carrying it
  R[t_paths,$1]=$(babeltrace2 "$W/trawl" 2>/dev/null | grep -c "filename = \"$PATHNAME\"")
}

run_bpftrace() {
  : > "$W/bt.out"
  bpftrace -e 'tracepoint:syscalls:sys_enter_openat { printf("%s\n", str(args->filename)); }' \
    > "$W/bt.out" 2> "$W/bt.err" &
  BT_PID=$!
  for _ in $(seq 1 300); do grep -q "Attaching" "$W/bt.out" && break; sleep 0.1; done
  "$LOOP" "$N" "$PATHNAME" > "$W/out"
  sleep 0.5
  kill -INT "$BT_PID"; wait "$BT_PID" 2>/dev/null; BT_PID=
  R[b,$1]=$(cpc)
  R[b_lost,$1]=$(grep -o 'Lost [0-9]* events' "$W/bt.out" "$W/bt.err" | awk '{s+=$2} END{print s+0}')
  R[b_paths,$1]=$(grep -c "^$PATHNAME\$" "$W/bt.out")
}

for r in $(seq 1 "$ROUNDS"); do
  echo "round $r/$ROUNDS ..." >&2
  run_untraced "$r"
  run_trawl "$r"
  [ $have_bt -eq 1 ] && run_bpftrace "$r"
done

median() {
  local k=$1 v=()
  for r in $(seq 1 "$ROUNDS"); do v+=("${R[$k,$r]:-0}"); done
  printf '%s\n' "${v[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}
U=$(median u)
added() { awk -v a="$(median "$1")" -v u="$U" 'BEGIN{printf "%.1f", a-u}'; }
echo
echo "openat()+close() x $N on CPU 0, median of $ROUNDS (program CPU ns per call; added = traced - untraced)"
printf '%-10s %10s %12s %8s %14s\n' setup cpu/call added/call lost "paths recorded"
printf '%-10s %10s %12s %8s %14s\n' untraced "$U" - - -
printf '%-10s %10s %12s %8s %14s\n' trawl "$(median t)" "$(added t)" "$(median t_lost)" "$(median t_paths)"
if [ $have_bt -eq 1 ]; then
  printf '%-10s %10s %12s %8s %14s\n' bpftrace "$(median b)" "$(added b)" "$(median b_lost)" "$(median b_paths)"
  echo "ratio trawl/bpftrace (added cost): $(awk -v a="$(added t)" -v b="$(added b)" 'BEGIN{printf "%.2f", b ? a/b : 0}') (target <= 0.5)"
fi
