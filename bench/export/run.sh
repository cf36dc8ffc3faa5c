#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/export/run.sh [BUILD_DIR] [EVENTS]
#
# trawl's exports against trawl view's own text and babeltrace2's text
# (the anchor), side by side in one run, on the trace bench/reader uses
# (EVENTS, default 10 M, anchor:ev { int64 a; uint32 b; string s }, made by
# trawl-bench-gen). Each output goes to /dev/null; wall and CPU time, best
# of RUNS (3) rounds in which every trawl command runs in turn, one run of
# babeltrace2, warm page cache, and peak RSS (streaming: it must not grow with the trace). Prints events/s and
# the ratios issue 14 asks for: chrome-json >= 1/3 of trawl view's text
# speed, view --format=json >= 1/2, and trawl timeline's page written in
# under 3x trawl view's time (its size is printed too). With PAGE=1 the
# page of a 1 M-event trace is also opened in headless Chromium
# (timeline_page.py: load time and frame times while zooming and panning).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${TRAWL_BUILD_DIR:-$here/../../build}}
events=${2:-10000000}
runs=${RUNS:-3}
trawl=$build/bin/trawl
gen=$build/bin/trawl-bench-gen
for b in "$trawl" "$gen"; do
	[ -x "$b" ] || { echo "run.sh: $b not built (cmake --build $build)" >&2; exit 1; }
done
command -v babeltrace2 >/dev/null || { echo "run.sh: babeltrace2 not installed" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time not installed (package time)" >&2; exit 1; }
work=${TRAWL_BENCH_DIR:-${TMPDIR:-/tmp}/trawl-bench-reader}
trace=$work/trace-$events
mkdir -p "$work"
if [ ! -f "$trace/.done" ]; then
	rm -rf "$trace"
	echo "generating $events events in $trace ..." >&2
	"$gen" "$trace" "$events" 1 1024
	touch "$trace/.done"
fi
export TZ=UTC LC_ALL=C HOME=$work/home TRAWL_RUNTIME_DIR=$work/run
mkdir -p "$HOME"
cat "$trace"/ust/uid/0/64-bit/* > /dev/null 2>&1 || true

# One run of CMD... -> "wall_s cpu_s rss_kib" (cpu: user + sys).
once() {
	/usr/bin/time -o "$work/time.out" -f "%e %U %S %M" "$@" > /dev/null 2>/dev/null
	tail -n 1 "$work/time.out" | awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}'
}
rate() { awk "BEGIN{printf \"%.0f\", $events / ($1 > 0 ? $1 : 0.001)}"; }

names=("trawl view (text)" "trawl view --format=json" "trawl export -F jsonl"
       "trawl export -F chrome-json" "trawl export -F perfetto" "trawl timeline")
cmds=("view" "view --format=json" "export --format=jsonl -o /dev/null"
      "export --format=chrome-json -o /dev/null" "export --format=perfetto -o /dev/null"
      "timeline -o $work/timeline.html")
# Rounds of every command in turn (the load of a shared machine changes
# within seconds: side by side means interleaved), best of RUNS each.
declare -a wall cpu rss
for ((round = 0; round < runs; round++)); do
	for k in "${!cmds[@]}"; do
		# shellcheck disable=SC2086
		read -r w c m <<< "$(once "$trawl" ${cmds[$k]} "$trace")"
		if [ -z "${wall[$k]:-}" ] || awk "BEGIN{exit !($w < ${wall[$k]})}"; then
			wall[$k]=$w
			rss[$k]=$m
		fi
		if [ -z "${cpu[$k]:-}" ] || awk "BEGIN{exit !($c < ${cpu[$k]})}"; then cpu[$k]=$c; fi
	done
done

echo "trace: $events events ($trace); best of $runs interleaved rounds"
read -r t_bt c_bt r_bt <<< "$(once babeltrace2 "$trace")"
printf "%-30s %7s s wall %7s s cpu %11s ev/s %8s KiB\n" "babeltrace2 text (anchor)" \
	"$t_bt" "$c_bt" "$(rate "$t_bt")" "$r_bt"
for k in "${!cmds[@]}"; do
	printf "%-30s %7s s wall %7s s cpu %11s ev/s %8s KiB  %5.2fx babeltrace2; of trawl view's speed: %4.2f wall, %4.2f cpu\n" \
		"${names[$k]}" "${wall[$k]}" "${cpu[$k]}" "$(rate "${wall[$k]}")" "${rss[$k]}" \
		"$(awk "BEGIN{print $t_bt / ${wall[$k]}}")" "$(awk "BEGIN{print ${wall[0]} / ${wall[$k]}}")" \
		"$(awk "BEGIN{print ${cpu[0]} / (${cpu[$k]} > 0 ? ${cpu[$k]} : 0.01)}")"
done
echo "trawl timeline: $(awk "BEGIN{printf \"%.2f\", ${wall[5]} / ${wall[0]}}")x trawl view's time (target < 3), page of $(stat -c %s "$work/timeline.html") bytes"
echo "issue 14 targets: chrome-json >= 0.33 of trawl view's speed, view --format=json >= 0.50"
if [ "${PAGE:-0}" = 1 ]; then
	page_trace=$work/trace-1000000
	if [ ! -f "$page_trace/.done" ]; then
		rm -rf "$page_trace"
		"$gen" "$page_trace" 1000000 1 1024
		touch "$page_trace/.done"
	fi
	"$trawl" timeline -o "$work/timeline-1m.html" "$page_trace"
	python3 "$here/timeline_page.py" "$work/timeline-1m.html"
fi
