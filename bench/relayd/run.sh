#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Streaming through trawl-relayd vs through lttng-relayd 2.13, in one run.
#
#   bench/relayd/run.sh [BUILD_DIR] [EVENTS]      (default build, 5000000)
#
# For each tracer: a relay daemon on free local ports writing to tmpfs, a
# session streaming to it (`create --set-url net://127.0.0.1:C:D`, channel
# 4 MiB x 8 per CPU, per-user, discard), the ANCHORS.md program (bench/ust)
# emitting EVENTS events from one thread, then stop and destroy. Measured:
# the wall time from start of the program until `destroy` returned and the
# relay daemon's files stopped growing; the bytes of stream files the relay
# daemon wrote; events discarded (index files); hence events/s and MB/s
# recorded end to end, and the ratios trawl/LTTng. Three runs each, median.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
N=${2:-5000000}
B=$build/bin
T=$(mktemp -d "${BENCH_OUT:-/dev/shm}/trawl-bench-relayd.XXXXXX")
chmod 755 "$T"
export HOME=$T/home TRAWL_RUNTIME_DIR=$T/run TRAWL_ROOT_RUNTIME_DIR=$T/rootrun
mkdir -p "$HOME"
relay_pid=
started_lttng=
cleanup() {
	[ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null
	"$B/trawl" destroy --all >/dev/null 2>&1
	for f in "$T"/run/sessiond.lock "$T"/rootrun/sessiond.lock; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	[ -n "$started_lttng" ] && kill "$started_lttng" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

for p in "$B/bench-ust-anchor-trawl" "$B/bench-ust-anchor-lttng" "$B/trawl" "$B/trawl-relayd"; do
	[ -x "$p" ] || { echo "bench/relayd: $p missing (build first)" >&2; exit 1; }
done
command -v lttng-relayd >/dev/null || { echo "bench/relayd: lttng-relayd missing" >&2; exit 1; }
if ! lttng list >/dev/null 2>&1; then
	lttng-sessiond --daemonize >/dev/null 2>&1
	sleep 0.5
	started_lttng=$(pgrep -n -x lttng-sessiond)
fi

free_ports() { # three free TCP ports on 127.0.0.1
	/usr/bin/python3 -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))'
}

# stats DIR -> "stream_bytes discarded"
stats() {
	/usr/bin/python3 - "$1" <<'PY'
import glob, os, struct, sys
size = disc = 0
for idx in glob.glob(sys.argv[1] + "/**/index/*.idx", recursive=True):
    stream = os.path.join(os.path.dirname(os.path.dirname(idx)), os.path.basename(idx)[:-4])
    size += os.path.getsize(stream)
    data = open(idx, "rb").read()
    elen = struct.unpack(">I", data[12:16])[0]
    if len(data) >= 16 + elen:
        last = data[16 + ((len(data) - 16) // elen - 1) * elen:]
        disc += struct.unpack(">Q", last[40:48])[0]
print(size, disc)
PY
}

# settle DIR: waits until the bytes under DIR stop changing (the relay
# daemon is done writing what it received)
settle() {
	local prev=-1 cur
	while :; do
		cur=$(du -sb "$1" 2>/dev/null | cut -f1)
		[ "$cur" = "$prev" ] && return
		prev=$cur
		sleep 0.05
	done
}

now() { date +%s.%N; }

# one TRACER RUN -> "seconds stream_bytes discarded"
one() {
	local tr=$1 run=$2 out=$T/relay-$1-$2 ports c d l s=rbench$$$2 t0 t1
	read -r c d l <<<"$(free_ports)"
	mkdir -p "$out"
	if [ "$tr" = trawl ]; then
		"$B/trawl-relayd" -o "$out" -C tcp://127.0.0.1:$c -D tcp://127.0.0.1:$d \
			-L tcp://127.0.0.1:$l 2>"$T/relayd.log" &
	else
		lttng-relayd -o "$out" -C tcp://127.0.0.1:$c -D tcp://127.0.0.1:$d \
			-L tcp://127.0.0.1:$l >/dev/null 2>&1 &
	fi
	relay_pid=$!
	sleep 0.3
	if [ "$tr" = trawl ]; then
		"$B/trawl" create "$s" --set-url "net://127.0.0.1:$c:$d" >/dev/null || return 1
		"$B/trawl" enable-channel -u ch --subbuf-size 4M --num-subbuf 8 >/dev/null || return 1
		"$B/trawl" enable-event -u anchor:ev -c ch >/dev/null || return 1
		"$B/trawl" start >/dev/null || return 1
		t0=$(now)
		"$B/bench-ust-anchor-trawl" tp 1 "$N" >/dev/null
		"$B/trawl" stop >/dev/null
		"$B/trawl" destroy >/dev/null
	else
		lttng create "$s" --set-url "net://127.0.0.1:$c:$d" >/dev/null || return 1
		lttng enable-channel -u ch -s "$s" --subbuf-size 4M --num-subbuf 8 >/dev/null || return 1
		lttng enable-event -u anchor:ev -c ch -s "$s" >/dev/null || return 1
		lttng start "$s" >/dev/null || return 1
		t0=$(now)
		"$B/bench-ust-anchor-lttng" tp 1 "$N" >/dev/null
		lttng stop "$s" >/dev/null
		lttng destroy "$s" >/dev/null
	fi
	settle "$out"
	t1=$(now)
	kill "$relay_pid" 2>/dev/null
	wait "$relay_pid" 2>/dev/null
	relay_pid=
	echo "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') $(stats "$out")"
	rm -rf "$out"
}

declare -A R
for tr in lttng trawl; do
	rows=()
	for run in 1 2 3; do
		rows+=("$(one "$tr" "$run")") || exit 1
	done
	# median by time
	med=$(printf '%s\n' "${rows[@]}" | sort -n | sed -n 2p)
	read -r R[$tr.s] R[$tr.bytes] R[$tr.disc] <<<"$med"
	R[$tr.eps]=$(awk -v n="$N" -v d="${R[$tr.disc]}" -v s="${R[$tr.s]}" 'BEGIN { printf "%.0f", (n - d) / s }')
	R[$tr.mbs]=$(awk -v b="${R[$tr.bytes]}" -v s="${R[$tr.s]}" 'BEGIN { printf "%.1f", b / s / 1e6 }')
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
printf "%-40s %14s %14s %8s\n" "streamed, $N events, 1 thread" "lttng-relayd" "trawl-relayd" "ratio"
printf "%-40s %14s %14s %8s\n" "seconds, start to all written (median)" "${R[lttng.s]}" "${R[trawl.s]}" "$(ratio "${R[trawl.s]}" "${R[lttng.s]}")"
printf "%-40s %14s %14s %8s\n" "events/s recorded end to end" "${R[lttng.eps]}" "${R[trawl.eps]}" "$(ratio "${R[trawl.eps]}" "${R[lttng.eps]}")"
printf "%-40s %14s %14s %8s\n" "MB/s of stream files written by relayd" "${R[lttng.mbs]}" "${R[trawl.mbs]}" "$(ratio "${R[trawl.mbs]}" "${R[lttng.mbs]}")"
printf "%-40s %14s %14s %8s\n" "stream bytes" "${R[lttng.bytes]}" "${R[trawl.bytes]}" "$(ratio "${R[trawl.bytes]}" "${R[lttng.bytes]}")"
printf "%-40s %14s %14s\n" "events discarded" "${R[lttng.disc]}" "${R[trawl.disc]}"
