#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packets read() into a stream's window (src/reader/stream_read.c) print
# what babeltrace2 prints, byte for byte, wherever the window's edges fall:
# with the default window, through the mapping alone
# (TRAWL_READER_WINDOW=0), and with windows cut small
# (TRAWL_READER_WINDOW=MIN:MAX): a window of one small packet, headers cut
# by the window's end (read again through the mapping), packets larger than
# a window takes (the mapping), a window grown for a packet, more streams
# than a trace gives windows to, and seeks (--begin). Also: a stream file
# that shrinks while it is read is an error of one line, not a crash.
set -u
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 not installed"; exit 77; }
bin=${TRAWL_BIN_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C
unset TRAWL_READER_WINDOW
# EVENTS STREAMS PACKET_KIB DISCARD_EVERY: 4 KiB packets, many per window;
# 300 KiB packets, larger than the default smallest window (it grows); 70
# streams, more than the 64 a trace gives windows to at once
"$bin/trawl-bench-gen" "$tmp/small" 30000 3 4 2 || exit 1
"$bin/trawl-bench-gen" "$tmp/large" 40000 2 300 0 || exit 1
"$bin/trawl-bench-gen" "$tmp/many" 7000 70 4 0 || exit 1

fail=0
for t in small large many; do
	babeltrace2 "$tmp/$t" > "$tmp/bt.out" 2> "$tmp/bt.err" || { echo "FAIL: babeltrace2 $t"; fail=1; continue; }
	first=$(sed -n '1s/^\[\([0-9:.]*\)\].*/\1/p' "$tmp/bt.out")
	# a time a third into the trace (events are 100 ns apart)
	n=$(wc -l < "$tmp/bt.out")
	mid=$(awk -v f="$first" -v n="$n" 'BEGIN { split(f, a, ":"); s = a[3] + n * 100e-9 / 3; printf "%s:%s:%012.9f", a[1], a[2], s }')
	babeltrace2 --begin "$mid" "$tmp/$t" > "$tmp/bt-mid.out" 2> /dev/null
	[ -s "$tmp/bt.out" ] && [ -s "$tmp/bt-mid.out" ] && [ "$(wc -l < "$tmp/bt-mid.out")" -lt "$n" ] ||
		{ echo "FAIL: babeltrace2 $t: no output or --begin $mid kept everything"; fail=1; continue; }
	# default; mapping only; one 4 KiB packet a window; packet headers
	# cut (a 1-byte smallest window) and packets over 64 KiB mapped;
	# windows of 5000 bytes, larger packets mapped
	for w in default 0 4096:4096 1:65536 5000:8192; do
		if [ "$w" = default ]; then
			env -u TRAWL_READER_WINDOW "$bin/trawl-view" "$tmp/$t" > "$tmp/tv.out" 2> "$tmp/tv.err"
		else
			TRAWL_READER_WINDOW=$w "$bin/trawl-view" "$tmp/$t" > "$tmp/tv.out" 2> "$tmp/tv.err"
		fi || { echo "FAIL: $t window $w: trawl-view: $(head -1 "$tmp/tv.err")"; fail=1; continue; }
		cmp -s "$tmp/bt.out" "$tmp/tv.out" || { echo "FAIL: $t window $w: stdout differs from babeltrace2's"; fail=1; }
		cmp -s "$tmp/bt.err" "$tmp/tv.err" || { echo "FAIL: $t window $w: stderr differs from babeltrace2's"; fail=1; }
		TRAWL_READER_WINDOW=$w "$bin/trawl-view" --begin "$mid" "$tmp/$t" > "$tmp/tv-mid.out" 2> /dev/null
		cmp -s "$tmp/bt-mid.out" "$tmp/tv-mid.out" || { echo "FAIL: $t window $w: --begin $mid differs"; fail=1; }
		TRAWL_READER_WINDOW=$w "$bin/trawl-view" --decode-only "$tmp/$t" > /dev/null 2>&1 ||
			{ echo "FAIL: $t window $w: --decode-only failed"; fail=1; }
	done
done

# A stream file cut short behind the reader's back. trawl view writes its
# output in ~1 MiB pieces into a pipe nobody reads until the file is cut:
# it cannot be past ~2 MiB of output (~14,000 events) by then, well inside
# the first of its 1 MiB packets (~33,000 events); the cut is in the
# second. (Through the mapping, the read of a page past the new end of
# the file is SIGBUS; the window's read() sees the file shrink.)
"$bin/trawl-bench-gen" "$tmp/cut" 100000 1 1024 0 || exit 1
f="$tmp/cut/ust/uid/0/64-bit/chan_0"
{ "$bin/trawl-view" "$tmp/cut" 2> "$tmp/cut.err"; echo $? > "$tmp/cut.rc"; } | {
	head -c 1 > /dev/null	# trawl view is reading the first packet
	truncate -s $((3 << 19)) "$f"
	cat > /dev/null
}
rc=$(cat "$tmp/cut.rc")
if [ "$rc" = 0 ] || [ "$rc" -gt 128 ]; then
	echo "FAIL: a stream file cut while read: exit $rc (want an error, not a signal)"; fail=1
elif ! grep -q 'chan_0: offset [0-9]*: cannot read: the file shrank' "$tmp/cut.err" ||
     [ "$(wc -l < "$tmp/cut.err")" != 1 ]; then
	echo "FAIL: a stream file cut while read: stderr: $(cat "$tmp/cut.err")"; fail=1
fi
[ "$fail" = 0 ] && echo "PASS"
exit "$fail"
