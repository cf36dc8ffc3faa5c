#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the traces writer_api wrote, with babeltrace2 as the oracle:
DIR/discarded reports 5 then 8 discarded events (python bt2 and the CLI's
warning), DIR/appended holds the 12 events of its hand-built packets and
reads without a warning.
usage: check_discarded.py DIR"""
import re
import subprocess
import sys

import bt2


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


d = sys.argv[1]
counts, events = [], []
for msg in bt2.TraceCollectionMessageIterator(d + "/discarded"):
    if type(msg) is bt2._DiscardedEventsMessageConst:
        counts.append(msg.count)
    elif type(msg) is bt2._EventMessageConst:
        events.append((int(msg.event.payload_field["v"]), str(msg.event.payload_field["s"])))
if counts != [5, 8]:
    fail(f"discarded-events messages {counts}, expected [5, 8]")
# Events that failed (backwards, bad field, oversized) left no trace in between.
if events != [(i, w) for w in ("first", "second", "third") for i in range(10)]:
    fail(f"events read back as {events}")
r = subprocess.run(["babeltrace2", d + "/discarded"], capture_output=True, text=True)
warn = re.findall(r"WARNING: Tracer discarded (\d+) events between", r.stderr)
if r.returncode != 0 or warn != ["5", "8"]:
    fail(f"babeltrace2 warnings {warn} (exit {r.returncode}): {r.stderr[:300]}")

vals = []
for msg in bt2.TraceCollectionMessageIterator(d + "/appended"):
    if type(msg) is bt2._EventMessageConst:
        vals.append((msg.default_clock_snapshot.value, int(msg.event.payload_field["v"]),
                     str(msg.event.payload_field["s"]), int(msg.event.packet.context_field["cpu_id"])))
want = [(1000 + s * 100 + e, s * 10 + e, "ok", 3) for s in range(3) for e in range(4)]
if vals != want:
    fail(f"appended packets read back as {vals}")
r = subprocess.run(["babeltrace2", d + "/appended"], capture_output=True, text=True)
if r.returncode != 0 or r.stderr:
    fail(f"babeltrace2 on appended: exit {r.returncode}: {r.stderr[:300]}")
print("ok: discarded counts 5 and 8, 12 appended events")
