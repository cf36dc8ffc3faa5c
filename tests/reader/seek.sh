#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --begin/--end seek by time with LTTng index files and, without them, by
# binary search over equal-size packets, and must print what babeltrace2
# prints for the same range. (The header walk, for packets of several
# sizes, is exercised by reader_api.)
set -u
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 not installed"; exit 77; }
bin=${TRAWL_BIN_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC
"$bin/trawl-bench-gen" "$tmp/idx" 200000 3 16 || exit 1
cp -r "$tmp/idx" "$tmp/noidx" && rm -rf "$tmp"/noidx/ust/uid/0/64-bit/index
# Index files that are FIFOs (whoever owns a trace can make them so, or swap
# one in while root reads it): the reader must not wait on them, but seek
# as without an index.
cp -r "$tmp/idx" "$tmp/fifo"
for f in "$tmp"/fifo/ust/uid/0/64-bit/index/*.idx; do rm -f "$f" && mkfifo "$f" || exit 1; done
fail=0
for range in "--begin 18:26:41.130000000" "--begin 18:26:41.125000000 --end 18:26:41.125010000" \
	     "--end 18:26:41.123500000" "--begin 18:26:41.140000000 --end 18:26:41.140000500"; do
	for t in idx noidx fifo; do
		babeltrace2 $range "$tmp/noidx" > "$tmp/bt.out" 2>/dev/null
		timeout 120 "$bin/trawl-view" $range "$tmp/$t" > "$tmp/tv.out" 2> "$tmp/tv.err" ||
			{ echo "FAIL: trawl-view $range $t: $(cat "$tmp/tv.err")"; fail=1; continue; }
		[ -s "$tmp/bt.out" ] || { echo "FAIL: empty range $range"; fail=1; }
		cmp -s "$tmp/bt.out" "$tmp/tv.out" ||
			{ echo "FAIL: $range on $t differs from babeltrace2"; diff "$tmp/bt.out" "$tmp/tv.out" | head -4; fail=1; }
	done
done
[ $fail = 0 ] && echo "seek: with index files, without, and with FIFOs in their place: same output as babeltrace2"
exit $fail
