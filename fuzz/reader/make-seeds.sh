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
n=0
while IFS= read -r md; do
	dir=$(dirname "$md")
	n=$((n + 1))
	text="$out/.md$n"
	# unpack packetized metadata: 37-byte headers, sizes in bits at 24/28 (LE)
	"$PY" - "$md" "$text" <<'PY' || continue
import struct, sys
d = open(sys.argv[1], 'rb').read()
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
open(sys.argv[2], 'wb').write(d)
PY
	if [ "$kind" = metadata ]; then
		mv "$text" "$out/md-$n"
		continue
	fi
	for f in "$dir"/*; do
		[ -f "$f" ] && [ "$(basename "$f")" != metadata ] || continue
		if [ "$kind" = live ]; then
			"$PY" "$(dirname "$0")/live-conv.py" "$text" "$f" "$out/live-$n" || true
		else
			{ cat "$text"; printf '\0'; head -c 65536 "$f"; } > "$out/pkt-$n-$(basename "$f")"
		fi
		break
	done
	rm -f "$text"
done < <(find "$corpus/succeed" "$corpus/fail" "$corpus/succeed-newer" -name metadata -type f | sort)
