#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the trace gen_edge wrote: every name, label and string reads back
byte for byte through bt2, and the babeltrace2 CLI prints every event without
a warning.

usage: check_edge.py TRACE_DIR
"""
import subprocess
import sys

import bt2


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def expect(what, got, want):
    if got != want:
        fail(f"{what}: {got!r} != {want!r}")


def main():
    trace = sys.argv[1]
    events = []
    for m in bt2.TraceCollectionMessageIterator(trace):
        if type(m) is bt2._StreamBeginningMessageConst:
            env = m.stream.trace.environment
            expect("env weird", str(env["weird"]), 'a"b\\c\nd\x01e\x7ff\u00e9')
            expect("env empty", str(env["empty"]), "")
        elif type(m) is bt2._EventMessageConst:
            events.append(m.event)
    expect("event names", [e.name for e in events],
           ['we"ird\\na\nme\x01', "nofields", "nullfields"])
    e = events[0]
    expect("emf uri", e.cls.emf_uri, 'http://x/"y"')
    p = e.payload_field
    expect("e0 (enum without labels)", int(p["e0"]), 3)
    expect("e1", int(p["e1"]), 1)
    expect("e1 labels", list(p["e1"].labels), ['q"\\\n\x01a\u00e9'])
    expect("e1 mapping labels", sorted(p["e1"].cls), ["", 'q"\\\n\x01a\u00e9'])
    expect("e2", int(p["e2"]), 255)
    expect("es", len(p["es"]), 0)
    expect("a0", len(p["a0"]), 0)
    expect("astr", [str(x) for x in p["astr"]], ["s1", ""])
    expect("sq", [(int(x["x"]), float(x["d"])) for x in p["sq"]], [(7, 0.5), (8, 1.5)])
    expect("keyword fields", (int(p["align"]), str(p["struct"]), int(p["enum"]),
                              [int(x) for x in p["int"]]), (4096, "kw", 3, [1, 2, 3]))
    for e in events[1:]:
        if e.payload_field is not None and len(e.payload_field):
            fail(f"{e.name}: fields {dict(e.payload_field)}")
    r = subprocess.run(["babeltrace2", trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode or r.stderr:
        fail(f"babeltrace2 exited {r.returncode}: {r.stderr.decode()[:500]}")
    if r.stdout.count(b"\n[") != 2:
        fail("babeltrace2 did not print 3 events")
    print("ok: 3 events, every name and string read back")


main()
