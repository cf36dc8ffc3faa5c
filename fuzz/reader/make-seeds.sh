#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make-seeds.sh KIND DIR: writes fuzz seeds from the CTF corpus into DIR.
#   metadata: each trace's metadata as text (packetized metadata unpacked)
#   packet:   metadata text, a NUL byte, then the first 64 KiB of a stream
#   live:     what a relay daemon sends a live viewer of that trace (one
#             stream of at most 64 KiB, one packet index for all of it),
#             in the order fuzz_live.c's client asks (live-conv.py)
# Exits 77 when the corpus is absent.
set -u
kind=$1 out=$2
corpus=""
for c in "${TRAWL_SHARED_DIR:-}/ctf-corpus" /work/shared/ctf-corpus; do
	[ -d "$c/succeed" ] && { corpus=$c; break; }
done
[ -n "$corpus" ] || { echo "SKIP: ctf-corpus not found"; exit 77; }
mkdir -p "$out"
# Debian's python3 directly: a version manager's shim costs ~1 s a call,
# which, twice per trace of the corpus, ate the fuzz test's time budget.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
mapfile -t mds < <(find "$corpus/succeed" "$corpus/fail" "$corpus/succeed-newer" -name metadata -type f | sort)
# Each trace's metadata as text in $out/.mdN (md-N for the metadata kind;
# N counts from 1 in that order), packetized metadata unpacked (37-byte
# headers, sizes in bits at 24/28, LE), by one python3 for all: one per
# trace (61) cost about 1 s each at load 30, and reader_fuzz_replay_metadata
# timed out at 120 s.
"$PY" - "$out" "$kind" "${mds[@]}" <<'PY' || exit 1
import struct, sys
for n, md in enumerate(sys.argv[3:], 1):
    try:
        d = open(md, 'rb').read()
    except OSError:
        continue
    if d[:4] in (b'\x57\x1d\xd1\x75', b'\x75\xd1\x1d\x57'):
        e = '<' if d[:4] == b'\x57\x1d\xd1\x75' else '>'
        out, o = b'', 0
        while o + 37 <= len(d):
            cs, ps = struct.unpack(e + 'II', d[o + 24:o + 32])
            if ps == 0 or cs < 37 * 8:
                break
            out += d[o + 37:o + cs // 8]
            o += ps // 8
        d = out
    name = 'md-%d' if sys.argv[2] == 'metadata' else '.md%d'
    open(('%s/' + name) % (sys.argv[1], n), 'wb').write(d)
PY
[ "$kind" = metadata ] && exit 0
n=0
pkts=()
for md in "${mds[@]}"; do
	dir=${md%/*}
	n=$((n + 1))
	text="$out/.md$n"
	[ -f "$text" ] || continue
	for f in "$dir"/*; do
		[ -f "$f" ] && [ "${f##*/}" != metadata ] || continue
		if [ "$kind" = live ]; then
			"$PY" "$(dirname "$0")/live-conv.py" "$text" "$f" "$out/live-$n" || true
			rm -f "$text"
		else
			pkts+=("$text" "$f" "$out/pkt-$n-${f##*/}")
		fi
		break
	done
done
# packet: the metadata text, a NUL byte, then the first 64 KiB of the stream
# (builtins and one python3 here too: a process costs ~0.2 s at load 30)
[ "$kind" = live ] && { rm -f "$out"/.md*; exit 0; }
"$PY" - "${pkts[@]}" <<'PY' || exit 1
import sys
a = sys.argv[1:]
for text, stream, dest in zip(a[0::3], a[1::3], a[2::3]):
    with open(stream, 'rb') as f:
        head = f.read(65536)
    open(dest, 'wb').write(open(text, 'rb').read() + b'\0' + head)
PY
rm -f "$out"/.md*
