# SPDX-License-Identifier: MIT
"""Helpers of trawltop's tests: recording a kernel trace of a known program
with trawl-ktrace (tests/kernel's private runtime dirs and own tracefs
instances), running trawltop --batch --json on it, and reading the trace
with babeltrace2's bt2 (the independent oracle)."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "kernel"))
import ktest  # noqa: E402,F401

BIN = ktest.BIN
TOP = os.path.join(BIN, "trawltop")
LOAD = os.path.join(BIN, "topload")


def setup():
    """Root and bt2 or SKIP; a temp dir with this test's runtime dirs."""
    ktest.require_root_tracefs()
    for p in (TOP, LOAD, os.path.join(BIN, "trawl-ktrace")):
        if not os.path.exists(p):
            ktest.skip(os.path.basename(p) + " not built")
    return ktest.tmpdir()


def record(trace, events, syscalls, cmd, contexts="pid,tid,procname"):
    """Records the kernel while @cmd runs; returns its stdout as key=value dict."""
    args = ["-o", trace, "-x", contexts]
    for e in events:
        args += ["-e", e]
    for s in syscalls:
        args += ["-s", s]
    # Through a shell that forks @cmd, so that the program's pid is not
    # trawl-ktrace's own child: the consumer hides trawl's processes
    # (src/kernel/notrace.c) and spares a fork of one only while it has not
    # exec'd yet with its parent's command line; a child of sh is never
    # trawl's, whatever the timing.
    p = ktest.ktrace(args + ["--", "sh", "-c", '"$@"; exit $?', "sh"] + cmd)
    out = {}
    for line in p.stdout.splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
    return out


def top_json(trace, *args):
    """The intervals trawltop --batch --json prints, as dicts."""
    p = subprocess.run([TOP, "--batch", "--json"] + list(args) + [trace],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit("trawltop failed (%d): %s" % (p.returncode, p.stderr))
    return [json.loads(line) for line in p.stdout.splitlines()]


def top_text(trace, *args):
    p = subprocess.run([TOP, "--batch"] + list(args) + [trace],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit("trawltop failed (%d): %s" % (p.returncode, p.stderr))
    return p.stdout


def rows(interval, view, **match):
    return [r for r in interval[view] if all(r[k] == v for k, v in match.items())]


def bt2_events(trace, names):
    """(name, ns, cpu, payload dict, context dict) of the events named in @names."""
    import bt2
    out = []
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is not bt2._EventMessageConst or msg.event.name not in names:
            continue
        ev = msg.event
        pl = {k: v for k, v in ev.payload_field.items()} if ev.payload_field is not None else {}
        cx = {k: v for k, v in ev.common_context_field.items()} \
            if ev.common_context_field is not None else {}
        out.append((ev.name, msg.default_clock_snapshot.ns_from_origin,
                    int(ev.packet.context_field["cpu_id"]), pl, cx))
    return out


def bt2_switches(trace):
    """(ns, cpu, prev_tid, next_tid) of each sched_switch, as bt2 reads them.
    Only these four values are read: bt2's field accessors cost about 0.1 ms
    each unloaded, and a machine-wide trace of a loaded machine holds a
    switch every 0.5 ms or so (23,000 in top-cpu's at load 35: 98 s through
    bt2_events(), 16 s here), which once ran top-cpu close to its timeout."""
    import bt2
    out = []
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is not bt2._EventMessageConst or msg.event.name != "sched_switch":
            continue
        ev = msg.event
        pl = ev.payload_field
        prev, nxt = ("prev_tid", "next_tid") if "prev_tid" in pl else ("prev_pid", "next_pid")
        out.append((msg.default_clock_snapshot.ns_from_origin,
                    int(ev.packet.context_field["cpu_id"]), int(pl[prev]), int(pl[nxt])))
    return out
