#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/export/run.sh [BUILD_DIR] [EVENTS]
#
# trawl's exports against trawl view's own text and babeltrace2's text
# (the anchor), side by side in one run, on the trace bench/reader uses
# (EVENTS, default 10 M, anchor:ev { int64 a; uint32 b; string s }, made by
# trawl-bench-gen). Each output goes to /dev/null; wall time, best of RUNS
# (3) for trawl and BT_RUNS (1) for babeltrace2, warm page cache, and peak
# RSS (streaming: it must not grow with the trace). Prints events/s and
# the ratios issue 14 asks for: chrome-json >= 1/3 of trawl view's text
# speed, view --format=json >= 1/2.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${TRAWL_BUILD_DIR:-$here/../../build}}
events=${2:-10000000}
runs=${RUNS:-3}
bt_runs=${BT_RUNS:-1}
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

measure() { # RUNS CMD... -> "seconds rss_kib"
	local n=$1 best="" rss="" i out
	shift
	for ((i = 0; i < n; i++)); do
		/usr/bin/time -o "$work/time.out" -f "%e %M" "$@" > /dev/null 2>/dev/null
		out=$(tail -n 1 "$work/time.out")
		local t=${out% *} m=${out#* }
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; rss=$m; fi
	done
	echo "$best $rss"
}
rate() { awk "BEGIN{printf \"%.0f\", $events / ($1 > 0 ? $1 : 0.001)}"; }

echo "trace: $events events ($trace)"
read -r t_bt r_bt <<< "$(measure "$bt_runs" babeltrace2 "$trace")"
read -r t_text r_text <<< "$(measure "$runs" "$trawl" view "$trace")"
read -r t_json r_json <<< "$(measure "$runs" "$trawl" view --format=json "$trace")"
read -r t_jsonl r_jsonl <<< "$(measure "$runs" "$trawl" export --format=jsonl -o /dev/null "$trace")"
read -r t_chrome r_chrome <<< "$(measure "$runs" "$trawl" export --format=chrome-json -o /dev/null "$trace")"
read -r t_pf r_pf <<< "$(measure "$runs" "$trawl" export --format=perfetto -o /dev/null "$trace")"
printf "%-34s %8s s %12s ev/s %8s KiB\n" "babeltrace2 text (anchor)" "$t_bt" "$(rate "$t_bt")" "$r_bt"
for row in "trawl view (text):$t_text:$r_text" "trawl view --format=json:$t_json:$r_json" \
	   "trawl export -F jsonl:$t_jsonl:$r_jsonl" "trawl export -F chrome-json:$t_chrome:$r_chrome" \
	   "trawl export -F perfetto:$t_pf:$r_pf"; do
	IFS=: read -r name t r <<< "$row"
	printf "%-34s %8s s %12s ev/s %8s KiB  %6.2fx babeltrace2, %5.2f of trawl view's speed\n" \
		"$name" "$t" "$(rate "$t")" "$r" "$(awk "BEGIN{print $t_bt / $t}")" \
		"$(awk "BEGIN{print $t_text / $t}")"
done
echo "issue 14 targets: chrome-json >= 0.33 of trawl view's speed, view --format=json >= 0.50"
