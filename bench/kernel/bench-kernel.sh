#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Kernel tracing benchmark: one program makes N getppid() calls on CPU 0,
#   1. untraced,
#   2. traced by trawl (trawl-ktrace: an instance with syscalls sys_enter/exit_getppid,
#      the consumer converting to CTF while the program runs), then the same with
#      a perf:cpu:page-fault context (recorded through perf groups, src/kernel/perf.c),
#      and without hiding trawl from its trace (TRAWL_KERNEL_NOTRACE=off, notrace.c),
#   3. traced by `trace-cmd record` (same events, its own instance, clock mono;
#      LD_PRELOAD'ed with ../shared/tools/trace-cmd-shim.c, built here),
#   4. traced by `perf record -a` (same events),
#   5. traced by trawl's candidate BPF path (bench-bpf: raw_tracepoint programs
#      on sys_enter/sys_exit keeping getppid, 16-byte records in a BPF ring
#      buffer drained every 20 ms), if it was built,
# ROUNDS times interleaved; prints medians of ns/call, the added cost per event
# (2 events per call), events lost, bytes/event on disk and the tracer's CPU
# time per event (its processes' CPU minus the program's), and ratios.
#
#   bench/kernel/bench-kernel.sh BUILD_DIR      (N=2000000 ROUNDS=3 by default)
set -uo pipefail
B=${1:?usage: bench-kernel.sh BUILD_DIR}
B=$(cd "$B" && pwd)
N=${N:-2000000}
ROUNDS=${ROUNDS:-3}
[ "$(id -u)" -eq 0 ] || { echo "bench-kernel: needs root" >&2; exit 1; }
LOOP=$B/bin/bench-getppid
KT=$B/bin/trawl-ktrace
SHIM_SRC=$(cd "$(dirname "$0")/../../.." && pwd)/shared/tools/trace-cmd-shim.c
W=$(mktemp -d /tmp/trawl-bench-kernel.XXXXXX)
trap 'rm -rf "$W"' EXIT
export TRAWL_RUNTIME_DIR=$W/run TRAWL_ROOT_RUNTIME_DIR=$W/rootrun
EVENTS=2*N
have_tc=0; have_perf=0
if command -v trace-cmd >/dev/null && [ -f "$SHIM_SRC" ] &&
   gcc -O2 -shared -fPIC -o "$B/trace-cmd-shim.so" "$SHIM_SRC" -ldl 2>/dev/null; then have_tc=1; fi
command -v perf >/dev/null && have_perf=1
have_bpf=0
[ -x "$B/bin/bench-bpf" ] && [ -f "$B/bin/bpf_getppid.bpf.o" ] && have_bpf=1

field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" | head -1; }
# CPU seconds (user+sys) of a command and its children, from /usr/bin/time
cpu_of() { awk '/^TIME /{print ($2+$3)*1e9}' "$1"; }

declare -A R
# the traced program's own CPU time per call (user + system: the kernel's tracing
# work is system time), robust to other load on the machine, unlike wall time
cpc() { awk -v c="$(field cpu_ns < "$W/out")" -v n="$N" 'BEGIN{printf "%.1f", c/n}'; }
run_untraced() { "$LOOP" "$N" > "$W/out" ; R[untraced,$1]=$(field ns_per_call < "$W/out"); R[untraced_cpu,$1]=$(cpc); }

# run_trawl KEY ROUND [trawl-ktrace options...]
run_trawl() {
  local k=$1 r=$2
  shift 2
  rm -rf "$W/trawl"
  TRAWL_KERNEL_STATS=1 /usr/bin/time -f "TIME %U %S" "$KT" -o "$W/trawl" --buffer-kb 4096 \
    -s getppid "$@" -- "$LOOP" "$N" > "$W/out" 2> "$W/err"
  local prog_cpu tot events bytes lost
  R[$k,$r]=$(field ns_per_call < "$W/out")
  R[${k}_cpu,$r]=$(cpc)
  prog_cpu=$(field cpu_ns < "$W/out")
  tot=$(cpu_of "$W/err")
  events=$(sed -n 's/.*stats events=\([0-9]*\).*/\1/p' "$W/err")
  bytes=$(du -cb "$W"/trawl/channel0_* | tail -1 | cut -f1)
  # ftrace channels: the instance's stats; perf channels: the consumer's count of PERF_RECORD_LOST
  lost=$(sed -n 's/.*lost \([0-9]*\) events.*/\1/p' "$W/err")
  [ "${lost:-0}" -eq 0 ] && lost=$(sed -n 's/.*stats events=.* lost=\([0-9]*\).*/\1/p' "$W/err")
  R[${k}_lost,$r]=${lost:-0}
  R[${k}_bpe,$r]=$(awk -v b="$bytes" -v e="$events" 'BEGIN{printf "%.1f", e ? b/e : 0}')
  R[${k}_cpe,$r]=$(awk -v t="$tot" -v p="$prog_cpu" -v e="$events" 'BEGIN{printf "%.1f", e ? (t-p)/e : 0}')
  R[${k}_events,$r]=$events
}

run_tracecmd() {
  rm -f "$W/trace.dat"
  (cd "$W" && LD_PRELOAD=$B/trace-cmd-shim.so /usr/bin/time -f "TIME %U %S" \
    trace-cmd record -B "trawlbench$$" -C mono -e syscalls:sys_enter_getppid \
    -e syscalls:sys_exit_getppid -o "$W/trace.dat" "$LOOP" "$N" > "$W/out" 2> "$W/err")
  local prog_cpu tot bytes lost
  R[tc,$1]=$(field ns_per_call < "$W/out")
  R[tc_cpu,$1]=$(cpc)
  prog_cpu=$(field cpu_ns < "$W/out")
  tot=$(cpu_of "$W/err")
  bytes=$(grep -o '(\([0-9]*\) uncompressed)' "$W/out" "$W/err" | grep -o '[0-9]*' | awk '{s+=$1} END{print s+0}')
  lost=$(trace-cmd report --stat -i "$W/trace.dat" 2>/dev/null | awk '/^overrun:|^dropped events:/{s+=$NF} END{print s+0}')
  R[tc_lost,$1]=$lost
  R[tc_bpe,$1]=$(awk -v b="$bytes" -v e="$N" 'BEGIN{printf "%.1f", b/(2*e)}')
  R[tc_cpe,$1]=$(awk -v t="$tot" -v p="$prog_cpu" -v e="$N" 'BEGIN{printf "%.1f", (t-p)/(2*e)}')
}

run_perf() {
  rm -f "$W/perf.data"
  /usr/bin/time -f "TIME %U %S" perf record -a -e syscalls:sys_enter_getppid,syscalls:sys_exit_getppid \
    -o "$W/perf.data" "$LOOP" "$N" > "$W/out" 2> "$W/err"
  local prog_cpu tot bytes samples
  R[perf,$1]=$(field ns_per_call < "$W/out")
  R[perf_cpu,$1]=$(cpc)
  prog_cpu=$(field cpu_ns < "$W/out")
  tot=$(cpu_of "$W/err")
  samples=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$W/err")
  bytes=$(stat -c %s "$W/perf.data")
  R[perf_lost,$1]=$(awk -v s="${samples:-0}" -v n="$N" 'BEGIN{l=2*n-s; print (l>0?l:0)}')
  R[perf_bpe,$1]=$(awk -v b="$bytes" -v s="${samples:-0}" 'BEGIN{printf "%.1f", s ? b/s : 0}')
  R[perf_cpe,$1]=$(awk -v t="$tot" -v p="$prog_cpu" -v e="$N" 'BEGIN{printf "%.1f", (t-p)/(2*e)}')
}

run_bpf() {
  "$B/bin/bench-bpf" "$B/bin/bpf_getppid.bpf.o" -- "$LOOP" "$N" > "$W/out" 2> "$W/err"
  local events
  R[bpf,$1]=$(field ns_per_call < "$W/out")
  R[bpf_cpu,$1]=$(cpc)
  events=$(field events < "$W/err")
  R[bpf_lost,$1]=$(field lost < "$W/err")
  R[bpf_bpe,$1]=$(awk -v b="$(field bytes < "$W/err")" -v e="$events" 'BEGIN{printf "%.1f (ring)", e ? b/e : 0}')
  R[bpf_cpe,$1]=$(awk -v c="$(field consumer_cpu_ns < "$W/err")" -v e="$events" 'BEGIN{printf "%.1f", e ? c/e : 0}')
}

for r in $(seq 1 "$ROUNDS"); do
  echo "round $r/$ROUNDS ..." >&2
  run_untraced "$r"
  run_trawl trawl "$r"
  # what hiding trawl's own processes (the consumer drops their records, notrace.c) costs
  TRAWL_KERNEL_NOTRACE=off run_trawl trawlvis "$r"
  # the same events with a perf counter context: recorded through perf (src/kernel/perf.c)
  run_trawl trawlperf "$r" -x perf:cpu:page-fault
  [ $have_tc -eq 1 ] && run_tracecmd "$r"
  [ $have_perf -eq 1 ] && run_perf "$r"
  [ $have_bpf -eq 1 ] && run_bpf "$r"
done

median() { # KEY
  local k=$1 v=()
  for r in $(seq 1 "$ROUNDS"); do v+=("${R[$k,$r]:-0}"); done
  printf '%s\n' "${v[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}

U=$(median untraced)
UC=$(median untraced_cpu)
echo
echo "kernel tracing: $N getppid() on CPU 0, events syscalls:sys_enter/sys_exit_getppid, median of $ROUNDS"
echo "(wall: ns per call timed in the program; cpu: the program's user+sys CPU per call, which"
echo " other load on the machine does not inflate; added/event = (traced - untraced) / 2, from cpu)"
printf '%-15s %9s %9s %12s %9s %12s %14s\n' setup wall/call cpu/call added/event lost bytes/event tracer-cpu/ev
printf '%-15s %9s %9s %12s %9s %12s %14s\n' untraced "$U" "$UC" - - - -
added() { awk -v a="$(median "$1"_cpu)" -v u="$UC" 'BEGIN{printf "%.1f", (a-u)/2}'; }
line() { # NAME KEYPREFIX
  printf '%-15s %9s %9s %12s %9s %12s %14s\n' "$1" "$(median "$2")" "$(median "$2"_cpu)" \
    "$(added "$2")" "$(median "$2"_lost)" "$(median "$2"_bpe)" "$(median "$2"_cpe)"
}
line trawl trawl
line "trawl, visible" trawlvis
line "trawl+perf:cpu" trawlperf
[ $have_tc -eq 1 ] && line trace-cmd tc
[ $have_perf -eq 1 ] && line perf perf
[ $have_bpf -eq 1 ] && line "bpf raw_tp" bpf
ratio() { awk -v a="$(added trawl)" -v b="$(added "$1")" 'BEGIN{printf "%.2f", b ? a/b : 0}'; }
echo
echo "added cost per event: trawl $(added trawl) ns (target <= 272 ns, raw ftrace in KERNEL.md)"
echo "  of which hiding trawl from its trace (dropped by the consumer): $(awk -v a="$(added trawl)" -v b="$(added trawlvis)" 'BEGIN{printf "%.1f", a-b}') ns"
echo "with a perf:cpu:page-fault context (perf groups, sample + group read per event): $(added trawlperf) ns;"
echo "  the 'perf' row is perf record -a on the same events, without a counter read"
[ $have_tc -eq 1 ] && echo "ratio trawl/trace-cmd (added cost): $(ratio tc)"
[ $have_perf -eq 1 ] && echo "ratio trawl/perf (added cost):      $(ratio perf) (target <= 0.5)"
[ $have_bpf -eq 1 ] && echo "ratio trawl/bpf raw_tp (added cost): $(ratio bpf) (BPF records carry no payload conversion)"
echo "trawl events in trace: $(median trawl_events) of $((2 * N)) (other processes' getppid() calls count too)"
