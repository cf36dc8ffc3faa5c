#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads the trace gen_random wrote with bt2 and compares every event (name,
timestamp, context, payload, recursively) with DIR.json; then checks that the
babeltrace2 CLI prints every event without a warning.

usage: check_random.py TRACE_DIR
"""
import json
import math
import struct
import subprocess
import sys

import bt2


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check(path, got, want):
    if isinstance(want, dict) and len(want) == 1 and next(iter(want)).startswith("float"):
        size = 32 if "float32" in want else 64
        bits = want["float32" if size == 32 else "float64"]
        w = struct.unpack("<f" if size == 32 else "<d",
                          struct.pack("<I" if size == 32 else "<Q", bits))[0]
        g = float(got)
        if not (g == w and math.copysign(1, g) == math.copysign(1, w)):
            fail(f"{path}: {g!r} != {w!r}")
    elif isinstance(want, dict):
        if len(got) != len(want):
            fail(f"{path}: {len(got)} fields, {len(want)} written")
        for k, v in want.items():
            check(f"{path}.{k}", got[k], v)
    elif isinstance(want, list):
        if len(got) != len(want):
            fail(f"{path}: length {len(got)} != {len(want)}")
        for i, (g, w) in enumerate(zip(got, want)):
            check(f"{path}[{i}]", g, w)
    elif isinstance(want, str):
        if str(got) != want:
            fail(f"{path}: {str(got)!r} != {want!r}")
    elif int(got) != want:
        fail(f"{path}: {int(got)} != {want}")


def main():
    trace = sys.argv[1]
    want = json.load(open(trace + ".json"))
    by_stream = {0: [], 1: []}
    for ev in want:
        by_stream[ev["stream"]].append(ev)
    got = {0: [], 1: []}
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            fail("unexpected discarded events")
        if type(msg) is bt2._EventMessageConst:
            got[msg.event.stream.cls.id].append(msg)
    for sid in (0, 1):
        if len(got[sid]) != len(by_stream[sid]):
            fail(f"stream {sid}: {len(got[sid])} events read, {len(by_stream[sid])} written")
        for i, (msg, ev) in enumerate(zip(got[sid], by_stream[sid])):
            where = f"stream {sid} event {i} ({ev['name']})"
            if msg.event.name != ev["name"]:
                fail(f"{where}: name {msg.event.name}")
            if msg.default_clock_snapshot.value != ev["ts"]:
                fail(f"{where}: timestamp {msg.default_clock_snapshot.value} != {ev['ts']}")
            if "ctx" in ev:
                check(where + " context", msg.event.common_context_field, ev["ctx"])
            check(where, msg.event.payload_field, ev["f"])
    r = subprocess.run(["babeltrace2", trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode or r.stderr:
        fail(f"babeltrace2 exited {r.returncode}: {r.stderr.decode()[:500]}")
    if r.stdout.count(b"\n") != len(want):
        fail("babeltrace2 printed another number of events")
    print(f"ok: {len(want)} events of random types read back")


main()
