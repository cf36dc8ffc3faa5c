#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs the tests/ctf/sample-trace README's commands and checks the trace: the
babeltrace2 CLI reads it without a word on stderr, and through bt2 every
request that begins also ends (same id, same thread, later), timestamps never
go backwards within a stream, and the request count is the one asked for.

usage: check_sample.py SAMPLE_TRACE_BINARY DIR
"""
import shutil
import subprocess
import sys

import bt2


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main():
    exe, trace = sys.argv[1], sys.argv[2]
    shutil.rmtree(trace, ignore_errors=True)
    subprocess.run([exe, trace, "300"], check=True)
    r = subprocess.run(["babeltrace2", trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode or r.stderr:
        fail(f"babeltrace2 exited {r.returncode}: {r.stderr.decode()[:500]}")
    if not r.stdout.startswith(b"["):
        fail("babeltrace2 printed no event")
    begun, ended, last = {}, set(), {}
    n = 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is not bt2._EventMessageConst:
            if type(msg) is bt2._DiscardedEventsMessageConst:
                fail("unexpected discarded events")
            continue
        n += 1
        e, ts = msg.event, msg.default_clock_snapshot.value
        sid = e.stream.id
        if ts < last.get(sid, 0):
            fail(f"stream {sid}: timestamp {ts} goes backwards")
        last[sid] = ts
        ctx = e.common_context_field
        if str(ctx["procname"]) != "sample-httpd":
            fail(f"procname {str(ctx['procname'])!r}")
        if e.name == "sample_http:request_begin":
            begun[int(e.payload_field["request_id"])] = (int(ctx["vtid"]), ts)
        elif e.name == "sample_http:request_end":
            rid = int(e.payload_field["request_id"])
            if rid not in begun or begun[rid][0] != int(ctx["vtid"]) or begun[rid][1] >= ts:
                fail(f"request {rid} ends without its begin")
            status = int(e.payload_field["status"])
            if not e.payload_field["status"].labels or not 200 <= status < 600:
                fail(f"request {rid}: status {status}")
            ended.add(rid)
    if sorted(begun) != list(range(1, 301)) or ended != set(begun):
        fail(f"{len(begun)} requests begun, {len(ended)} ended, 300 asked")
    if r.stdout.count(b"\n") != n:
        fail("babeltrace2 and bt2 disagree on the event count")
    print(f"ok: {n} events, 300 requests")


main()
