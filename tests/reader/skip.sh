#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/reader/skip.sh READER_API: the decode-only batch loop
# (src/reader/decode_skip.c) on traces shaped for its edges (gen_skip.py:
# wrapping 32-bit and 27-bit timestamps, a 1 MHz clock, extended headers,
# strings of 0 to 40 bytes, two streams interleaving in short runs, a clock
# that runs out of range, a packet cut inside a string). Each trace is
# first checked against babeltrace2 (same text, so the traces are what
# gen_skip.py says); then trawl_reader_next_n() must take the events
# trawl_reader_next() takes, one by one, in steps of 1 to 100000, and end
# the same way (reader-api --next-n).
set -u
api=${1:?usage: skip.sh READER_API}
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 not installed"; exit 77; }
view=${TRAWL_BIN_DIR:?}/trawl-view
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C
fail=0
python3 "$here/gen_skip.py" "$tmp" || { echo "FAIL: generator"; exit 1; }
for t in large-1ghz large-1mhz compact-2s; do
	n=$(cat "$tmp/$t.count")
	babeltrace2 "$tmp/$t" > "$tmp/$t.bt" 2>&1 || { echo "FAIL: babeltrace2 refuses $t"; fail=1; }
	got=$(wc -l < "$tmp/$t.bt")
	[ "$got" = "$n" ] || { echo "FAIL: $t: babeltrace2 prints $got events, not $n"; fail=1; }
	"$view" "$tmp/$t" > "$tmp/$t.tv" 2>&1 || { echo "FAIL: trawl-view $t: exit $?"; fail=1; }
	cmp -s "$tmp/$t.bt" "$tmp/$t.tv" || { echo "FAIL: $t: trawl-view's text is not babeltrace2's"; fail=1; }
	"$view" --decode-only "$tmp/$t" || { echo "FAIL: trawl-view --decode-only $t: exit $?"; fail=1; }
	"$api" --next-n "$tmp/$t" "$n" || { echo "FAIL: next_n on $t"; fail=1; }
done
# the bad ones: an error, at the same event for next_n and next
for t in cut cut15; do
	"$view" --decode-only "$tmp/$t" 2>/dev/null && { echo "FAIL: --decode-only $t succeeded"; fail=1; }
	"$api" --next-n "$tmp/$t" "$(cat "$tmp/$t.count")" "not terminated" ||
		{ echo "FAIL: next_n on $t"; fail=1; }
done
"$view" --decode-only "$tmp/overflow" 2>/dev/null && { echo "FAIL: --decode-only overflow succeeded"; fail=1; }
out=$("$api" --next-n "$tmp/overflow" -1 "out of range") || { echo "FAIL: next_n on overflow"; fail=1; }
echo "$out"
# most of the trace comes before the clock runs out (gen_skip.py: ~1,500 of 3,000)
n=$(echo "$out" | sed -n 's/.*: \([0-9]*\) events.*/\1/p')
[ "${n:-0}" -gt 500 ] && [ "${n:-0}" -lt 3000 ] ||
	{ echo "FAIL: overflow: the error came after ${n:-?} events, not after 500 to 3,000"; fail=1; }
[ $fail = 0 ] && echo "skip: 6 traces, next_n as next: ok"
exit $fail
