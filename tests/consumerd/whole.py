#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""whole.py TRACE_FOLDER...: checks that every stream file of the CTF traces
under the folders holds whole packets only, each named by its index entry in
order (offset, size, sequence number 0, 1, 2...), the last one ending at the
file's end; prints the total bytes of the stream files (what "Bytes written"
counts). Exit 1 with one line per problem."""
import os
import struct
import sys

MAGIC = 0xC1FC1FC1
INDEX_MAGIC = 0xC1F1DCC1
HEAD = struct.Struct("<I16sIQ")          # packet header (ctf/layout.h), host = little
CTX = struct.Struct("<QQQQQQI")          # packet context
ENTRY = struct.Struct(">QQQQQQQQQ")      # index entry, big-endian


def check_stream(path, idx, problems):
    data = open(path, "rb").read()
    raw = open(idx, "rb").read() if os.path.exists(idx) else b""
    if len(raw) < 16:
        if data:
            problems.append(f"{path}: {len(data)} bytes and no index header")
        return len(data)
    magic, _, _, elen = struct.unpack(">IIII", raw[:16])
    if magic != INDEX_MAGIC or elen != ENTRY.size:
        problems.append(f"{idx}: bad index header")
        return len(data)
    if (len(raw) - 16) % elen:
        problems.append(f"{idx}: ends in half an entry ({len(raw)} bytes)")
    off, seq = 0, -1
    for i in range((len(raw) - 16) // elen):
        e = ENTRY.unpack_from(raw, 16 + i * elen)
        start, size = e[0], e[1] // 8
        if start != off:
            problems.append(f"{idx}: entry {i} at offset {start}, wanted {off}")
            return len(data)
        if start + size > len(data):
            problems.append(f"{path}: packet {i} ({start}+{size}) past the file's end {len(data)}")
            return len(data)
        m = HEAD.unpack_from(data, start)[0]
        ctx = CTX.unpack_from(data, start + HEAD.size)
        if m != MAGIC or ctx[2] != e[2] or ctx[4] != e[8] or e[8] <= seq:
            problems.append(f"{path}: packet {i} at {start} does not match its index entry")
        off, seq = start + size, e[8]
    if off != len(data):
        problems.append(f"{path}: {len(data) - off} bytes after the last indexed packet")
    return len(data)


def main():
    problems, total, streams = [], 0, 0
    for top in sys.argv[1:]:
        for d, _, files in os.walk(top):
            if "metadata" not in files:
                continue
            for f in sorted(files):
                if f == "metadata" or f.startswith("."):
                    continue
                total += check_stream(os.path.join(d, f), os.path.join(d, "index", f + ".idx"),
                                      problems)
                streams += 1
    if not streams:
        problems.append("no stream file under " + " ".join(sys.argv[1:]))
    for p in problems:
        print("whole.py: " + p, file=sys.stderr)
    print(total)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
