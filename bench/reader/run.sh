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
#           (and trawl-view reading packets through its mapping instead of
#           into a buffer, TRAWL_READER_WINDOW=0, for what that costs here)
#   memory: peak RSS of each
#   seek:   trawl-view --begin <middle> DIR | head -1 (time to first event)
# and prints events/s and ratios. Each of RUNS (5) rounds runs babeltrace2
# once and trawl view once, back to back (text, then decode), timed by
# trawl-bench-clock: wall time (CLOCK_MONOTONIC, µs) and CPU time (user +
# system from wait4, µs); each round prints its own ratios, and the summary
# takes each tool's median over the rounds (both tools the same way). On a
# machine shared with other work, CPU time is the ratio to read: wall time
# includes waiting for a core (the summary says how loaded the machine was).
# Warm page cache.
# With CACHEGRIND=1 it also counts the instructions each reader executes
# per event on a 1 M-event trace (valgrind): a ratio that does not move
# with the machine's load, unlike times on a shared 2-core VM.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${TRAWL_BUILD_DIR:-$here/../../build}}
events=${2:-10000000}
runs=${RUNS:-5}
view=$build/bin/trawl-view
gen=$build/bin/trawl-bench-gen
clk=$build/bin/trawl-bench-clock
for b in "$view" "$gen" "$clk"; do
	[ -x "$b" ] || { echo "run.sh: $b not built (cmake --build $build)" >&2; exit 1; }
done
command -v babeltrace2 >/dev/null || { echo "run.sh: babeltrace2 not installed" >&2; exit 1; }
case $runs in ''|*[!0-9]*|0) echo "run.sh: RUNS must be a positive number, not '$runs'" >&2; exit 1 ;; esac

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

# once CMD...: "WALL CPU RSS_KIB FAULTS" of one run (trawl-bench-clock)
once() { "$clk" 1 "$@"; }
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "n/a" }'; }
ms() { awk -v t="$1" 'BEGIN { printf "%.1f", t * 1000 }'; }

echo "trace: $events events, $((bytes / 1000000)) MB ($trace)"
echo "checking that the text outputs are byte-identical ..."
if cmp <(babeltrace2 "$trace") <("$view" "$trace"); then
	identical=yes
else
	identical=NO
fi

load_before=$(cut -d' ' -f1 /proc/loadavg)
: > "$work/times"
echo
echo "per round (ms: wall / CPU; ratio: babeltrace2 / trawl view):"
for ((i = 1; i <= runs; i++)); do
	read -r btw btc btr _ < <(once babeltrace2 "$trace")
	read -r tvw tvc tvr _ < <(once "$view" "$trace")
	read -r bdw bdc bdr _ < <(once babeltrace2 "$trace" -o dummy)
	read -r tdw tdc tdr tdf < <(once "$view" --decode-only "$trace")
	read -r tmw tmc _ tmf < <(TRAWL_READER_WINDOW=0 once "$view" --decode-only "$trace")
	echo "$btw $btc $btr $tvw $tvc $tvr $bdw $bdc $bdr $tdw $tdc $tdr $tdf $tmw $tmc $tmf" >> "$work/times"
	printf '  %d: text   babeltrace2 %7s / %7s, trawl %6s / %6s: wall %6s, CPU %6s\n' "$i" \
		"$(ms "$btw")" "$(ms "$btc")" "$(ms "$tvw")" "$(ms "$tvc")" "$(ratio "$btw" "$tvw")" "$(ratio "$btc" "$tvc")"
	printf '     decode babeltrace2 %7s / %7s, trawl %6s / %6s: wall %6s, CPU %6s\n' \
		"$(ms "$bdw")" "$(ms "$bdc")" "$(ms "$tdw")" "$(ms "$tdc")" "$(ratio "$bdw" "$tdw")" "$(ratio "$bdc" "$tdc")"
	printf '     decode through the mapping (TRAWL_READER_WINDOW=0): trawl %6s / %6s\n' "$(ms "$tmw")" "$(ms "$tmc")"
done
load_after=$(cut -d' ' -f1 /proc/loadavg)
col() { awk -v c="$1" '{ print $c }' "$work/times" | median; }
bt_text=$(col 1) bt_text_cpu=$(col 2) bt_text_rss=$(col 3)
tv_text=$(col 4) tv_text_cpu=$(col 5) tv_text_rss=$(col 6)
bt_dec=$(col 7) bt_dec_cpu=$(col 8) bt_dec_rss=$(col 9)
tv_dec=$(col 10) tv_dec_cpu=$(col 11) tv_dec_rss=$(col 12) tv_dec_faults=$(col 13)
tv_map=$(col 14) tv_map_cpu=$(col 15) tv_map_faults=$(col 16)

# seek: the middle of the trace, by time (events are 100-160 ns apart)
first=$("$view" --clock-seconds "$trace" | head -n 1 | sed 's/^\[\([0-9.]*\)\].*/\1/')
mid=$(awk -v f="$first" -v n="$events" 'BEGIN { printf "%.9f", f + n * 130e-9 / 2 }')
seek_start=$(date +%s%N)
"$view" --begin "$mid" "$trace" | head -n 1 > /dev/null
seek_ms=$(( ($(date +%s%N) - seek_start) / 1000000 ))

rate() { awk -v n="$events" -v t="$1" 'BEGIN { if (t > 0) printf "%.2f M ev/s", n / t / 1e6; else print "n/a" }'; }

echo
echo "median of $runs rounds (load average $load_before before, $load_after after, $(nproc) CPUs):"
printf '%-30s %9s %9s %15s %9s\n' "" "wall (ms)" "CPU (ms)" "rate (CPU)" "peak RSS"
row() { printf '%-30s %9s %9s %15s %6s MB\n' "$1" "$(ms "$2")" "$(ms "$3")" "$(rate "$3")" $(($4 / 1024)); }
row "babeltrace2 DIR > /dev/null" "$bt_text" "$bt_text_cpu" "${bt_text_rss%.*}"
row "trawl-view DIR > /dev/null" "$tv_text" "$tv_text_cpu" "${tv_text_rss%.*}"
row "babeltrace2 DIR -o dummy" "$bt_dec" "$bt_dec_cpu" "${bt_dec_rss%.*}"
row "trawl-view --decode-only DIR" "$tv_dec" "$tv_dec_cpu" "${tv_dec_rss%.*}"
echo
echo "text:   trawl view is $(ratio "$bt_text_cpu" "$tv_text_cpu") babeltrace2 in CPU time, $(ratio "$bt_text" "$tv_text") in wall time (target >= 20x), output byte-identical: $identical"
echo "decode: trawl view is $(ratio "$bt_dec_cpu" "$tv_dec_cpu") babeltrace2 -o dummy in CPU time, $(ratio "$bt_dec" "$tv_dec") in wall time (target >= 40x)"
# trawl reads packets into a reused buffer (src/reader/stream_read.c);
# through its mapping instead, each page of the trace costs a fault, and
# on a VM whose page tables the hypervisor shadows (PVM) a trap to the host
# per 4 KiB page on top, counted as the reader's user time: the mapping's
# figure, same rounds, says what that costs on this machine.
echo "        (trawl's page faults: ${tv_dec_faults%.*}; $(((bytes + 4095) / 4096)) pages of trace)"
echo "        through the mapping instead (TRAWL_READER_WINDOW=0): $(ms "$tv_map_cpu") ms CPU, $(ms "$tv_map") ms wall, ${tv_map_faults%.*} page faults: $(ratio "$tv_map_cpu" "$tv_dec_cpu") the reads' CPU time"
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
