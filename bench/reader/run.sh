#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/reader/run.sh [BUILD_DIR] [EVENTS]
#
# trawl view against babeltrace2 2.0.4, side by side in one run, on a trace
# of EVENTS (default 10 M) events shaped like LTTng-UST 2.13's trace of the
# ANCHORS.md program (anchor:ev { int64 a; uint32 b; string s }, 31 bytes
# per event; written by trawl-bench-gen). Measures:
#   text:   babeltrace2 DIR > /dev/null    vs  trawl-view DIR > /dev/null
#           (and checks both outputs are byte-identical with cmp)
#   decode: babeltrace2 DIR -o dummy       vs  trawl-view --decode-only DIR
#   memory: peak RSS of each (/usr/bin/time)
#   seek:   trawl-view --begin <middle> DIR | head -1 (time to first event)
# and prints events/s and ratios. Times are wall-clock, best of RUNS (3)
# for trawl and of BT_RUNS (1) for babeltrace2, warm page cache.
# With CACHEGRIND=1 it also counts the instructions each reader executes
# per event on a 1 M-event trace (valgrind): a ratio that does not move
# with the machine's load, unlike times on a shared 2-core VM.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${TRAWL_BUILD_DIR:-$here/../../build}}
events=${2:-10000000}
runs=${RUNS:-3}
bt_runs=${BT_RUNS:-1}
view=$build/bin/trawl-view
gen=$build/bin/trawl-bench-gen
for b in "$view" "$gen"; do
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
export TZ=UTC LC_ALL=C
cat "$trace"/ust/uid/0/64-bit/* > /dev/null 2>&1 || true	# warm the page cache
bytes=$(du -sb "$trace" | cut -f1)

# measure NAME RUNS CMD...: best wall time (s) and its peak RSS (KiB)
measure() {
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

echo "trace: $events events, $((bytes / 1000000)) MB ($trace)"
echo "checking that the text outputs are byte-identical ..."
if cmp <(babeltrace2 "$trace") <("$view" "$trace"); then
	identical=yes
else
	identical=NO
fi

read -r bt_text bt_text_rss < <(measure "$bt_runs" babeltrace2 "$trace")
read -r tv_text tv_text_rss < <(measure "$runs" "$view" "$trace")
read -r bt_dec bt_dec_rss < <(measure "$bt_runs" babeltrace2 "$trace" -o dummy)
read -r tv_dec tv_dec_rss < <(measure "$runs" "$view" --decode-only "$trace")

# seek: the middle of the trace, by time (events are 100-160 ns apart)
first=$("$view" --clock-seconds "$trace" | head -n 1 | sed 's/^\[\([0-9.]*\)\].*/\1/')
mid=$(awk -v f="$first" -v n="$events" 'BEGIN { printf "%.9f", f + n * 130e-9 / 2 }')
seek_start=$(date +%s%N)
"$view" --begin "$mid" "$trace" | head -n 1 > /dev/null
seek_ms=$(( ($(date +%s%N) - seek_start) / 1000000 ))

rate() { awk -v n="$events" -v t="$1" 'BEGIN { if (t > 0) printf "%.2f M ev/s", n / t / 1e6; else print "n/a" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "n/a" }'; }

printf '\n%-34s %10s %14s %10s\n' "" "time (s)" "rate" "peak RSS"
printf '%-34s %10s %14s %8s MB\n' "babeltrace2 DIR > /dev/null" "$bt_text" "$(rate "$bt_text")" $((bt_text_rss / 1024))
printf '%-34s %10s %14s %8s MB\n' "trawl-view DIR > /dev/null" "$tv_text" "$(rate "$tv_text")" $((tv_text_rss / 1024))
printf '%-34s %10s %14s %8s MB\n' "babeltrace2 DIR -o dummy" "$bt_dec" "$(rate "$bt_dec")" $((bt_dec_rss / 1024))
printf '%-34s %10s %14s %8s MB\n' "trawl-view --decode-only DIR" "$tv_dec" "$(rate "$tv_dec")" $((tv_dec_rss / 1024))
echo
echo "text:   trawl view is $(ratio "$bt_text" "$tv_text") babeltrace2 (target >= 20x), output byte-identical: $identical"
echo "decode: trawl view is $(ratio "$bt_dec" "$tv_dec") babeltrace2 -o dummy (target >= 40x)"
echo "seek to the middle (--begin, process start to first event): ${seek_ms} ms"
if [ "${CACHEGRIND:-0}" = 1 ] && command -v valgrind >/dev/null; then
	small=$work/trace-1000000
	if [ ! -f "$small/.done" ]; then
		rm -rf "$small" && "$gen" "$small" 1000000 1 1024 && touch "$small/.done"
	fi
	ir() { valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/.*I *refs: *//p' | tr -d ,; }
	bt_t=$(ir babeltrace2 "$small"); tv_t=$(ir "$view" "$small")
	bt_d=$(ir babeltrace2 "$small" -o dummy); tv_d=$(ir "$view" --decode-only "$small")
	echo
	echo "instructions per event (valgrind, 1 M events):"
	printf '  text:   babeltrace2 %6d, trawl view %5d: %s\n' $((bt_t / 1000000)) $((tv_t / 1000000)) "$(ratio "$bt_t" "$tv_t")"
	printf '  decode: babeltrace2 %6d, trawl view %5d: %s\n' $((bt_d / 1000000)) $((tv_d / 1000000)) "$(ratio "$bt_d" "$tv_d")"
fi
[ "$identical" = yes ]
