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
# reads the fields of). Times are wall-clock, best of RUNS (3), warm cache.
#
# CALLGRIND=1: instead of timing, counts the instructions of both commands
# under valgrind's callgrind (exact, unlike wall time on a shared machine)
# and prints their ratio; use a smaller trace (EVENTS ~450000). The profiles
# stay in $work (callgrind_annotate them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${TRAWL_BUILD_DIR:-$here/../../build}}
events=${2:-10000000}
runs=${RUNS:-3}
for b in trawltop trawl-view trawl-ktrace topload; do
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

best() { # best wall time and CPU time (user+sys), in s, of RUNS runs of CMD
	local b="" c="" t u i
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -o "$work/time.out" -f "%e %U %S" "$@" > /dev/null 2>/dev/null
		read -r t u s < <(tail -n 1 "$work/time.out")
		if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
		u=$(awk "BEGIN{print $u + $s}")
		if [ -z "$c" ] || awk "BEGIN{exit !($u < $c)}"; then c=$u; fi
	done
	echo "$b $c"
}
read -r dec decc < <(best "$build/bin/trawl-view" --decode-only --no-progress "$trace")
read -r top topc < <(best "$build/bin/trawltop" --batch -d 1 "$trace")
read -r all allc < <(best "$build/bin/trawltop" --batch -d 0 --json "$trace")
echo "trace: ${n:-?} events, $(du -sm "$trace" | cut -f1) MB; wall s (CPU s), best of $runs"
printf "trawl-view --decode-only     %6.2f (%5.2f)\n" "$dec" "$decc"
printf "trawltop --batch -d 1        %6.2f (%5.2f)   ratio %.2f (CPU %.2f; issue: <= 1.5)\n" \
	"$top" "$topc" "$(awk "BEGIN{print $top / $dec}")" "$(awk "BEGIN{print $topc / $decc}")"
printf "trawltop --batch -d 0 --json %6.2f (%5.2f)   ratio %.2f (CPU %.2f)\n" \
	"$all" "$allc" "$(awk "BEGIN{print $all / $dec}")" "$(awk "BEGIN{print $allc / $decc}")"
