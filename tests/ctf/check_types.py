#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads a trace written by gen_types with babeltrace2's Python bindings and
checks every event, field and value against the JSON gen_types wrote; then
checks that the babeltrace2 CLI reads it without a warning.

usage: check_types.py TRACE_DIR
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


def same_float(got, bits, size):
    want = struct.unpack("<f" if size == 32 else "<d",
                         struct.pack("<I" if size == 32 else "<Q", bits))[0]
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


def text(s):
    return s.split("\0", 1)[0]


def check_field(path, got, want):
    if isinstance(want, dict):
        for k, v in want.items():
            if k not in got:
                fail(f"{path}: no field {k}")
            check_field(f"{path}.{k}", got[k], v)
    elif isinstance(want, list):
        if len(got) != len(want):
            fail(f"{path}: length {len(got)} != {len(want)}")
        for i, (g, w) in enumerate(zip(got, want)):
            check_field(f"{path}[{i}]", g, w)
    elif isinstance(want, str):
        if str(got) != text(want):
            fail(f"{path}: {str(got)!r} != {text(want)!r}")
    elif int(got) != want:
        fail(f"{path}: {int(got)} != {want}")


def main():
    trace = sys.argv[1]
    want = json.load(open(trace + ".json"))
    want_by_stream = {0: [], 1: []}
    for ev in want:
        want_by_stream[ev["stream"]].append(ev)
    got_by_stream = {0: [], 1: []}
    it = bt2.TraceCollectionMessageIterator(trace)
    discarded = 0
    for msg in it:
        if type(msg) is bt2._DiscardedEventsMessageConst:
            discarded += 1
        if type(msg) is not bt2._EventMessageConst:
            continue
        got_by_stream[msg.event.stream.cls.id].append(msg)
    if discarded:
        fail("unexpected discarded events")
    for sid in (0, 1):
        g, w = got_by_stream[sid], want_by_stream[sid]
        if len(g) != len(w):
            fail(f"stream {sid}: {len(g)} events read, {len(w)} written")
        for i, (msg, ev) in enumerate(zip(g, w)):
            e = msg.event
            where = f"stream {sid} event {i} ({ev['name']})"
            if e.name != ev["name"]:
                fail(f"{where}: name {e.name}")
            if msg.default_clock_snapshot.value != ev["ts"]:
                fail(f"{where}: timestamp {msg.default_clock_snapshot.value} != {ev['ts']}")
            p = e.payload_field
            f = dict(ev["f"])
            if ev["name"] == "test:misc":
                if not same_float(float(p["f32"]), f.pop("f32"), 32):
                    fail(f"{where}: f32 {float(p['f32'])}")
                if not same_float(float(p["f64"]), f.pop("f64"), 64):
                    fail(f"{where}: f64 {float(p['f64'])}")
                # Enum labels: what bt2 maps must agree with the ranges written.
                es = int(p["es"])
                labels = set(p["es"].labels)
                exp = {"ZERO"} if es == 0 else {'small "range"'} if 1 <= es <= 5 else \
                    {"NEG"} if -128 <= es <= -100 else set()
                if labels != exp:
                    fail(f"{where}: enum es={es} labels {labels} != {exp}")
            check_field(where, p, f)
            if "ctx" in ev:
                check_field(where + " context", e.common_context_field, ev["ctx"])
            if e.cls.log_level is None and ev["name"] in ("test:ints",):
                fail(f"{where}: log level missing")
    n = sum(len(v) for v in got_by_stream.values())
    r = subprocess.run(["babeltrace2", trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        fail(f"babeltrace2 exited {r.returncode}: {r.stderr.decode()[:500]}")
    if r.stderr:
        fail(f"babeltrace2 printed: {r.stderr.decode()[:500]}")
    lines = r.stdout.count(b"\n")
    if lines != n:
        fail(f"babeltrace2 printed {lines} lines for {n} events")
    print(f"ok: {n} events, every value read back")


main()
