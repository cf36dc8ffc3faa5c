#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Live latency: trawl-relayd vs lttng-relayd 2.13, in one run.
#
#   bench/relayd/live.sh [--kernel] [BUILD_DIR] [EVENTS] [PERIOD_US] [LIVE_TIMER_US]
#                                    (default build, 500, 10000, 100000)
#
# --kernel (root, tracefs): trawl only, kernel events: live-kapp.c's
# getpgid() calls (`enable-event -k --syscall getpgid`), once with the kernel
# consumer's beacons off (TRAWL_KERNEL_BEACONS=off: the live server derives
# quiet times, 500 ms behind) and once with them.
#
# For each tracer: its relay daemon on free local ports, a live session
# streaming to it (`create --live=LIVE_TIMER_US --set-url net://127.0.0.1:C:D`,
# anchor:ev, default channel), babeltrace2's lttng-live source attached to the
# relay daemon's live port (live-viewer.py, Python bindings, 10 ms retry),
# then the same program (live-app.c, built for each tracer) emitting EVENTS
# events PERIOD_US apart, 2 s after it registered (the viewer attaches then).
# Measured per event: the viewer's CLOCK_REALTIME when it has the event minus
# the event's time from the Epoch (its timestamp through the trace clock's
# frequency and offset: LTTng-UST's is CLOCK_MONOTONIC in ns, trawl's the TSC
# in cycles; both declare CLOCK_REALTIME - CLOCK_MONOTONIC as the offset).
# Printed: events seen, median, 90th percentile and max, in ms.
set -uo pipefail
KERNEL=
[ "${1:-}" = --kernel ] && { KERNEL=1; shift; }
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
N=${2:-500}
PERIOD=${3:-10000}
TIMER=${4:-100000}
B=$build/bin
T=$(mktemp -d /tmp/trawl-bench-live.XXXXXX)
chmod 755 "$T"
export HOME=$T/home TRAWL_RUNTIME_DIR=$T/run TRAWL_ROOT_RUNTIME_DIR=$T/rootrun
mkdir -p "$HOME"
relay_pid=
viewer_pid=
started_lttng=
cleanup() {
	[ -n "$viewer_pid" ] && kill "$viewer_pid" 2>/dev/null
	[ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null
	"$B/trawl" destroy --all >/dev/null 2>&1
	for f in "$T"/run/sessiond.lock "$T"/rootrun/sessiond.lock; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	[ -n "$started_lttng" ] && kill "$started_lttng" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

need="$B/bench-relayd-live-app-trawl $B/bench-relayd-live-app-lttng"
[ -n "$KERNEL" ] && need=$B/bench-relayd-live-kapp
for p in $need "$B/trawl" "$B/trawl-relayd"; do
	[ -x "$p" ] || { echo "bench/relayd/live: $p missing (build first)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import bt2' 2>/dev/null || { echo "bench/relayd/live: python3-bt2 missing" >&2; exit 1; }
[ -n "$KERNEL" ] || command -v lttng-relayd >/dev/null || { echo "bench/relayd/live: lttng-relayd missing" >&2; exit 1; }
if [ -z "$KERNEL" ] && ! lttng list >/dev/null 2>&1; then
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

# one TRACER -> "seen median p90 max" (ms)
one() {
	local tr=$1 out=$T/relay-$1 c d l s=live$$ ctl app
	read -r c d l <<<"$(free_ports)"
	mkdir -p "$out"
	if [ "$tr" = trawl ]; then
		"$B/trawl-relayd" -o "$out" -C tcp://127.0.0.1:$c -D tcp://127.0.0.1:$d \
			-L tcp://127.0.0.1:$l 2>"$T/relayd.log" &
		ctl=$B/trawl
	else
		lttng-relayd -o "$out" -C tcp://127.0.0.1:$c -D tcp://127.0.0.1:$d \
			-L tcp://127.0.0.1:$l >/dev/null 2>&1 &
		ctl=lttng
	fi
	relay_pid=$!
	sleep 0.3
	"$ctl" create "$s" --live="$TIMER" --set-url "net://127.0.0.1:$c:$d" >/dev/null || return 1
	# Only this program's events: lttng-sessiond is the machine's, and other
	# programs may emit anchor:ev (trawl's daemon here is private to $T).
	if [ -n "$KERNEL" ]; then
		"$B/trawl" enable-event -k --syscall getpgid -s "$s" >/dev/null || return 1
	elif [ "$tr" = lttng ]; then
		lttng enable-event -u anchor:ev -s "$s" --filter 's == "relayd-live"' >/dev/null || return 1
	else
		"$B/trawl" enable-event -u anchor:ev -s "$s" >/dev/null || return 1
	fi
	"$ctl" start "$s" >/dev/null || return 1
	# The program registers, then waits 2 s: a trawl-relayd session shows
	# up when its first stream does; the viewer attaches in that time.
	if [ -n "$KERNEL" ]; then
		"$B/bench-relayd-live-kapp" "$N" "$PERIOD" 2000 &
	else
		"$B/bench-relayd-live-app-$tr" "$N" "$PERIOD" 2000 &
	fi
	app=$!
	for _ in $(seq 100); do
		babeltrace2 --input-format=lttng-live "net://127.0.0.1:$l" 2>/dev/null | grep -q "/$s " && break
		sleep 0.05
	done
	/usr/bin/python3 "$top/bench/relayd/live-viewer.py" "net://127.0.0.1:$l/host/$(hostname)/$s" \
		>"$T/lat-$tr" 2>"$T/viewer-$tr.err" &
	viewer_pid=$!
	wait "$app"
	sleep 1 # the last events reach the viewer
	"$ctl" stop "$s" >/dev/null
	"$ctl" destroy "$s" >/dev/null
	for _ in $(seq 100); do kill -0 "$viewer_pid" 2>/dev/null || break; sleep 0.1; done
	kill "$viewer_pid" 2>/dev/null
	wait "$viewer_pid" 2>/dev/null
	viewer_pid=
	kill "$relay_pid" 2>/dev/null
	wait "$relay_pid" 2>/dev/null
	relay_pid=
	[ -s "$T/viewer-$tr.err" ] && { echo "bench/relayd/live: $tr viewer said:" >&2; head -5 "$T/viewer-$tr.err" >&2; }
	sort -t' ' -k2 -g "$T/lat-$tr" | awk '{ v[NR] = $2 } END {
		if (!NR) { print 0, "-", "-", "-"; exit }
		p = int(NR * 0.9 + 0.5); if (p < 1) p = 1
		printf "%d %.1f %.1f %.1f\n", NR, v[int((NR + 1) / 2)] / 1000, v[p] / 1000, v[NR] / 1000 }'
	rm -rf "$out"
}

declare -A R
kernel_main() {
	local r off on
	off=$(TRAWL_KERNEL_BEACONS=off one trawl) || { echo "bench/relayd/live: the run without beacons failed" >&2; exit 1; }
	# The session daemon (and the consumers it spawns) took that setting: a new one
	for f in "$T"/run/sessiond.lock "$T"/rootrun/sessiond.lock; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	for _ in $(seq 50); do
		[ -e "$T/rootrun/sessiond.lock" ] && kill -0 "$(cat "$T/rootrun/sessiond.lock" 2>/dev/null)" 2>/dev/null || break
		sleep 0.1
	done
	on=$(one trawl) || { echo "bench/relayd/live: the run with beacons failed" >&2; exit 1; }
	read -r R[off.n] R[off.med] R[off.p90] R[off.max] <<<"$off"
	read -r R[on.n] R[on.med] R[on.p90] R[on.max] <<<"$on"
	printf "%-44s %14s %14s\n" "live kernel, $N getpgid ${PERIOD}us apart, timer ${TIMER}us" "no beacons" "beacons"
	printf "%-44s %14s %14s\n" "events seen by the live viewer" "${R[off.n]}" "${R[on.n]}"
	printf "%-44s %14s %14s\n" "latency ms, event to viewer: median" "${R[off.med]}" "${R[on.med]}"
	printf "%-44s %14s %14s\n" "latency ms: 90th percentile" "${R[off.p90]}" "${R[on.p90]}"
	printf "%-44s %14s %14s\n" "latency ms: max" "${R[off.max]}" "${R[on.max]}"
}
[ -n "$KERNEL" ] && { kernel_main; exit; }

for tr in lttng trawl; do
	r=$(one "$tr") || { echo "bench/relayd/live: the $tr run failed" >&2; exit 1; }
	read -r R[$tr.n] R[$tr.med] R[$tr.p90] R[$tr.max] <<<"$r"
done
printf "%-44s %14s %14s\n" "live, $N events ${PERIOD}us apart, timer ${TIMER}us" "lttng-relayd" "trawl-relayd"
printf "%-44s %14s %14s\n" "events seen by the live viewer" "${R[lttng.n]}" "${R[trawl.n]}"
printf "%-44s %14s %14s\n" "latency ms, event to viewer: median" "${R[lttng.med]}" "${R[trawl.med]}"
printf "%-44s %14s %14s\n" "latency ms: 90th percentile" "${R[lttng.p90]}" "${R[trawl.p90]}"
printf "%-44s %14s %14s\n" "latency ms: max" "${R[lttng.max]}" "${R[trawl.max]}"
