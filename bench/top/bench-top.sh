#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/top/bench-top.sh [BUILD_DIR] [EVENTS]
#
# trawltop --batch over a large kernel trace against trawl's own decode-only
# time for the same trace (trawl-view --decode-only), side by side in one
# run; the issue asks for at most 1.5x. The trace (root: recorded by
# trawl-ktrace) holds about EVENTS (default 10 M) events: sched_switch,
# sched_wakeup, and the entries and exits of getpgid/read/openat/close of a
# program making EVENTS/2 system calls (so every event is one trawltop
# reads the fields of). Warm cache. Each of RUNS (5) rounds runs the three
# commands back to back, timed by trawl-bench-clock (bench/reader/clock.c:
# wall time on CLOCK_MONOTONIC and CPU time, user + system from wait4, both
# in µs); each round prints its own ratios to the decode-only time, and the
# summary takes each command's median over the rounds. On a machine shared
# with other work, CPU time is the ratio to read: wall time includes waiting
# for a core (the summary says how loaded the machine was).
#
# CALLGRIND=1: instead of timing, counts the instructions of both commands
# under valgrind's callgrind (exact, unlike wall time on a shared machine)
# and prints their ratio; use a smaller trace (EVENTS ~450000). The profiles
# stay in $work (callgrind_annotate them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${TRAWL_BUILD_DIR:-$here/../../build}}
events=${2:-10000000}
runs=${RUNS:-5}
case $runs in ''|*[!0-9]*|0) echo "bench-top: RUNS must be a positive number, not '$runs'" >&2; exit 1 ;; esac
for b in trawltop trawl-view trawl-ktrace topload trawl-bench-clock; do
	[ -x "$build/bin/$b" ] || { echo "bench-top: $build/bin/$b not built" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "bench-top: recording a kernel trace needs root" >&2; exit 1; }
work=${TRAWL_BENCH_DIR:-${TMPDIR:-/tmp}/trawl-bench-top}
trace=$work/trace-$events
mkdir -p "$work"
export TRAWL_RUNTIME_DIR=$work/run TRAWL_ROOT_RUNTIME_DIR=$work/rootrun
if [ ! -f "$trace/.done" ]; then
	rm -rf "$trace"
	echo "recording about $events events in $trace ..." >&2
	"$build/bin/trawl-ktrace" -o "$trace" --buffer-kb 65536 -x pid,tid,procname \
		-e sched_switch -e sched_wakeup -s getpgid -s read -s openat -s close \
		-- "$build/bin/topload" calls $((events / 2)) >/dev/null
	touch "$trace/.done"
fi
cat "$trace"/kernel/* > /dev/null 2>&1 || true	# warm the page cache
n=$("$build/bin/trawl-view" --count "$trace" 2>/dev/null | awk '$2 == "total" {print $1}')

if [ "${CALLGRIND:-0}" = 1 ]; then
	command -v valgrind >/dev/null || { echo "bench-top: valgrind missing" >&2; exit 1; }
	instr() { # instructions of CMD... under callgrind (its own, not its children's)
		local out=$work/callgrind.$1
		shift
		valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>"$out.log" ||
			{ echo "bench-top: callgrind of $* failed: $(tail -1 "$out.log")" >&2; exit 1; }
		awk '/^(summary|totals):/ {print $2; exit}' "$out"
	}
	dec=$(instr decode "$build/bin/trawl-view" --decode-only --no-progress "$trace")
	top=$(instr top "$build/bin/trawltop" --batch -d 1 "$trace")
	echo "trace: ${n:-?} events; callgrind instructions (profiles: $work/callgrind.*)"
	printf "trawl-view --decode-only     %8.1f M\n" "$(awk "BEGIN{print $dec / 1e6}")"
	printf "trawltop --batch -d 1        %8.1f M   ratio %.2f (issue: <= 1.5)\n" \
		"$(awk "BEGIN{print $top / 1e6}")" "$(awk "BEGIN{print $top / $dec}")"
	exit 0
fi

clk=$build/bin/trawl-bench-clock
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
ms() { awk -v t="$1" 'BEGIN { printf "%.1f", t * 1000 }'; }

load_before=$(cut -d' ' -f1 /proc/loadavg)
: > "$work/times"
echo "trace: ${n:-?} events, $(du -sm "$trace" | cut -f1) MB"
echo "per round (ms: wall / CPU; ratio: the command / trawl-view --decode-only, wall and CPU):"
for ((i = 1; i <= runs; i++)); do
	# "WALL CPU RSS_KIB FAULTS" of one run each, in s
	read -r dw dc _ < <("$clk" 1 "$build/bin/trawl-view" --decode-only --no-progress "$trace")
	read -r tw tc _ < <("$clk" 1 "$build/bin/trawltop" --batch -d 1 "$trace")
	read -r aw ac _ < <("$clk" 1 "$build/bin/trawltop" --batch -d 0 --json "$trace")
	echo "$dw $dc $tw $tc $aw $ac" >> "$work/times"
	printf '  %d: decode %7s / %7s; top -d 1 %7s / %7s: %s, %s; -d 0 --json %7s / %7s: %s, %s\n' \
		"$i" "$(ms "$dw")" "$(ms "$dc")" "$(ms "$tw")" "$(ms "$tc")" "$(ratio "$tw" "$dw")" \
		"$(ratio "$tc" "$dc")" "$(ms "$aw")" "$(ms "$ac")" "$(ratio "$aw" "$dw")" "$(ratio "$ac" "$dc")"
done
load_after=$(cut -d' ' -f1 /proc/loadavg)
col() { awk -v c="$1" '{ print $c }' "$work/times" | median; }
dec=$(col 1) decc=$(col 2) top=$(col 3) topc=$(col 4) all=$(col 5) allc=$(col 6)
echo
echo "median of $runs rounds, ms wall (CPU) (load average $load_before before, $load_after after, $(nproc) CPUs):"
printf "trawl-view --decode-only     %8s (%8s)\n" "$(ms "$dec")" "$(ms "$decc")"
printf "trawltop --batch -d 1        %8s (%8s)   ratio %s (CPU %s; issue: <= 1.5)\n" \
	"$(ms "$top")" "$(ms "$topc")" "$(ratio "$top" "$dec")" "$(ratio "$topc" "$decc")"
printf "trawltop --batch -d 0 --json %8s (%8s)   ratio %s (CPU %s)\n" \
	"$(ms "$all")" "$(ms "$allc")" "$(ratio "$all" "$dec")" "$(ratio "$allc" "$decc")"
