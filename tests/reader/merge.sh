#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Trace folders sharing a trace UUID are one trace, and files of one stream
# (same stream class and stream_instance_id) one data stream, as babeltrace2
# 2.0.4 reads them: a trawl-written trace whose packets claim discarded
# events is split (by packets) into two folders (session rotation's trace
# chunks, given in both time orders), and into two files per stream in one
# folder (tracefile rotation). trawl view must print babeltrace2's stdout
# and its discarded-events warnings (trace name, stream name, counts and
# ranges carried from file to file) byte for byte, whole and with --begin
# and --stream-intersection.
set -u
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 not installed"; exit 77; }
bin=${TRAWL_BIN_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C
# 2 streams, 4 KiB packets (8 per stream), 3 more discarded events per packet
"$bin/trawl-bench-gen" "$tmp/whole" 2000 2 4 3 || exit 1
/usr/bin/python3 - "$tmp" <<'EOF' || exit 1
import os, shutil, struct, sys
tmp = sys.argv[1]
src = f'{tmp}/whole/ust/uid/0/64-bit'
def packets(path):
    b = open(path, 'rb').read()
    off, out = 0, []
    while off < len(b):
        # packet_size (bits) follows the 32-byte header, timestamp_begin/end, content_size
        size = struct.unpack_from('<Q', b, off + 32 + 24)[0] // 8
        out.append(b[off:off + size])
        off += size
    return out
def folder(name):
    d = f'{tmp}/{name}/ust/uid/0/64-bit'
    os.makedirs(d)
    shutil.copy(f'{src}/metadata', d)
    return d
a, b = folder('chunks/a'), folder('chunks/b')
ra, rb = folder('reversed/a'), folder('reversed/b')
rot = folder('rotation/x')
for f in ('chan_0', 'chan_1'):
    p = packets(f'{src}/{f}')
    h = len(p) // 2
    for d, part in ((a, p[:h]), (b, p[h:]), (rb, p[:h]), (ra, p[h:])):
        open(f'{d}/{f}', 'wb').write(b''.join(part))
    # LTTng names rotated tracefiles <channel>_<cpu>_<n>; name the later
    # one first so that only begin times can order them
    open(f'{rot}/{f}_0', 'wb').write(b''.join(p[h:]))
    open(f'{rot}/{f}_1', 'wb').write(b''.join(p[:h]))
EOF
fail=0
for t in whole chunks reversed rotation; do
	for opt in "" "--begin 18:26:41.123600000" "--stream-intersection"; do
		babeltrace2 $opt "$tmp/$t" > "$tmp/bt.out" 2> "$tmp/bt.err"
		"$bin/trawl-view" $opt "$tmp/$t" > "$tmp/tv.out" 2> "$tmp/tv.err" ||
			{ echo "FAIL: trawl-view $opt $t: $(cat "$tmp/tv.err")"; fail=1; continue; }
		grep -v '^WARNING: Tracer' "$tmp/bt.err" > "$tmp/bt.other"
		grep '^WARNING: Tracer' "$tmp/bt.err" > "$tmp/bt.warn"
		[ -s "$tmp/bt.out" ] && [ -s "$tmp/bt.warn" ] && [ ! -s "$tmp/bt.other" ] ||
			{ echo "FAIL: babeltrace2 $opt $t: no output or unexpected errors"; fail=1; }
		cmp -s "$tmp/bt.out" "$tmp/tv.out" ||
			{ echo "FAIL: $t $opt: stdout differs from babeltrace2"; diff "$tmp/bt.out" "$tmp/tv.out" | head -4; fail=1; }
		cmp -s "$tmp/bt.warn" "$tmp/tv.err" ||
			{ echo "FAIL: $t $opt: warnings differ from babeltrace2"; diff "$tmp/bt.warn" "$tmp/tv.err" | head -4; fail=1; }
	done
done
# the merged trace is named after the hostname alone, its streams after their earliest file
"$bin/trawl-view" "$tmp/reversed" 2>&1 >/dev/null |
	grep -q 'discarded 3 events .* in trace "vm" .*within stream "[^"]*/reversed/b/ust/uid/0/64-bit/chan_1"' ||
	{ echo "FAIL: reversed: no warning naming trace \"vm\" and its earliest file"; fail=1; }
[ $fail = 0 ] && echo "merge: chunks, reversed chunks and rotated files print as babeltrace2 (stdout and warnings)"
exit $fail
