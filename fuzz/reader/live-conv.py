#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""live-conv.py METADATA STREAM OUT: writes to OUT the bytes a relay daemon
sends a live viewer of session "s" of host "h" holding that one trace and
stream, in the order libtrawl-reader's client asks (fuzz_live.c's seed):
CONNECT, CREATE_SESSION, LIST_SESSIONS, ATTACH_SESSION (a metadata stream
and a data stream), GET_METADATA twice (the text, then no more),
GET_NEXT_INDEX (one packet: the whole stream), GET_PACKET, GET_NEXT_INDEX
(hung up), GET_NEW_STREAMS (hung up). Big-endian, relayd/live-proto.h."""
import struct
import sys

md = open(sys.argv[1], "rb").read()
data = open(sys.argv[2], "rb").read()
if not md or not data or len(data) > 65536:
    sys.exit(1)


def fixed(s, n):
    return s.encode()[:n - 1].ljust(n, b"\0")


out = struct.pack(">QIII", 1, 2, 4, 1)                      # CONNECT
out += struct.pack(">I", 1)                                  # CREATE_SESSION ok
out += struct.pack(">I", 1) + struct.pack(">QIII", 7, 100000, 0, 2) + fixed("h", 64) + fixed("s", 255)
out += struct.pack(">II", 1, 2)                              # ATTACH ok, 2 streams
out += struct.pack(">QQI", 1, 1, 1) + fixed("h/ust", 4096) + fixed("metadata", 255)
out += struct.pack(">QQI", 2, 1, 0) + fixed("h/ust", 4096) + fixed("chan_0", 255)
out += struct.pack(">QI", len(md), 1) + md                   # GET_METADATA
out += struct.pack(">QI", 0, 2)                              # no new metadata
bits = len(data) * 8
out += struct.pack(">QQQQQQQII", 0, bits, bits, 0, 0, 0, 0, 1, 0)   # index OK
out += struct.pack(">III", 1, len(data), 0) + data           # GET_PACKET
out += struct.pack(">QQQQQQQII", 0, 0, 0, 0, 0, 0, 0, 3, 0)  # index HUP
out += struct.pack(">II", 4, 0)                              # GET_NEW_STREAMS HUP
open(sys.argv[3], "wb").write(out)
