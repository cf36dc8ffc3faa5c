#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks every index file of CTF traces against their stream files: the
index header (magic 0xC1F1DCC1, v1.1, 72-byte entries, big-endian) and, for
each packet found by walking the stream file with its packet header and
context (layout.h), one entry with the same offset, sizes (bits), timestamps,
discarded count, stream id, instance id and sequence number. Packets must
tile the file exactly.

usage: check_index.py TRACE_DIR...
"""
import os
import struct
import sys

MAGIC = 0xC1FC1FC1
INDEX_MAGIC = 0xC1F1DCC1
START = 32 + 52  # packet header + packet context, bytes


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def packets(data, where):
    """Yields (offset, packet_bits, content_bits, ts_begin, ts_end, discarded,
    stream_id, instance_id, seq) for each packet of a stream file."""
    off = 0
    while off < len(data):
        if len(data) - off < START:
            fail(f"{where}: {len(data) - off} trailing bytes at {off}")
        bo = "<" if struct.unpack_from("<I", data, off)[0] == MAGIC else ">"
        if struct.unpack_from(bo + "I", data, off)[0] != MAGIC:
            fail(f"{where}: no packet magic at {off}")
        sid, inst = struct.unpack_from(bo + "IQ", data, off + 20)
        tb, te, content, size, seq, disc = struct.unpack_from(bo + "6Q", data, off + 32)
        if content > size or size % 8 or size // 8 > len(data) - off or content < START * 8:
            fail(f"{where}: packet at {off}: content {content} / size {size} bits")
        if tb > te:
            fail(f"{where}: packet at {off}: begins at {tb} after its end {te}")
        yield off, size, content, tb, te, disc, sid, inst, seq
        off += size // 8


def check_stream(trace, name):
    where = os.path.join(trace, name)
    data = open(where, "rb").read()
    idx = open(os.path.join(trace, "index", name + ".idx"), "rb").read()
    if len(idx) < 16:
        fail(f"{where}.idx: no header")
    magic, major, minor, entry_len = struct.unpack_from(">4I", idx, 0)
    if (magic, major, minor, entry_len) != (INDEX_MAGIC, 1, 1, 72):
        fail(f"{where}.idx: header {magic:#x} v{major}.{minor} entry {entry_len}")
    if (len(idx) - 16) % 72:
        fail(f"{where}.idx: {len(idx) - 16} bytes of entries")
    entries = [struct.unpack_from(">9Q", idx, o) for o in range(16, len(idx), 72)]
    pkts = list(packets(data, where))
    if len(entries) != len(pkts):
        fail(f"{where}: {len(pkts)} packets, {len(entries)} index entries")
    last_seq = -1
    for e, p in zip(entries, pkts):
        if e != p:
            fail(f"{where}: index entry {e} != packet {p}")
        if p[8] <= last_seq:
            fail(f"{where}: packet sequence numbers do not grow")
        last_seq = p[8]
    return len(pkts)


def main():
    n = 0
    for trace in sys.argv[1:]:
        names = [f for f in os.listdir(trace)
                 if os.path.isfile(os.path.join(trace, f)) and f != "metadata"
                 and not f.startswith(".")]
        if not names:
            fail(f"{trace}: no stream file")
        for name in sorted(names):
            n += check_stream(trace, name)
    print(f"ok: {n} packets match their index entries")


if __name__ == "__main__":
    main()
