#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Checks a trace recorded with add-context -u -t vpid -t vtid -t pid -t tid
# -t procname -t pthread_id -t ppid -t ip, read with bt2 (babeltrace2's
# Python bindings, an independent reader):
#   context.py TRACE_DIR APP_PID PARENT_PID PROCNAME THREADS EVENTS_PER_THREAD
# Every event carries every field; vpid == pid == the app's pid; the main
# thread's events have vtid == pid, each worker (payload field thread) one vtid of
# its own, the same pthread_id throughout, and a non-zero call site.
import sys

import bt2

trace, app_pid, parent, procname = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
threads, per_thread = int(sys.argv[5]), int(sys.argv[6])
errors = []
n = 0
by_worker = {}  # t -> set of (vtid, pthread_id)
main_ids = set()
want = ["vpid", "vtid", "pid", "tid", "procname", "pthread_id", "ppid", "ip"]

for msg in bt2.TraceCollectionMessageIterator(trace):
    if type(msg) is not bt2._EventMessageConst:
        continue
    ev = msg.event
    if ev.name.startswith("lttng_ust_statedump:"):
        continue  # recorded by the tracer's own thread at start, as LTTng-UST's
    n += 1
    ctx = ev.common_context_field
    if ctx is None:
        errors.append("%s has no context" % ev.name)
        continue
    names = sorted(ctx.keys())
    if names != sorted(want):
        errors.append("%s: context fields %s" % (ev.name, names))
        continue
    if int(ctx["vpid"]) != app_pid or int(ctx["pid"]) != app_pid:
        errors.append("%s: vpid %d pid %d, app %d" % (ev.name, ctx["vpid"], ctx["pid"], app_pid))
    if int(ctx["vtid"]) != int(ctx["tid"]):
        errors.append("%s: vtid %d tid %d" % (ev.name, ctx["vtid"], ctx["tid"]))
    if int(ctx["ppid"]) != parent:
        errors.append("%s: ppid %d, parent %d" % (ev.name, ctx["ppid"], parent))
    if str(ctx["procname"]) != procname:
        errors.append("%s: procname %r" % (ev.name, str(ctx["procname"])))
    if int(ctx["ip"]) == 0:
        errors.append("%s: ip 0" % ev.name)
    ident = (int(ctx["vtid"]), int(ctx["pthread_id"]))
    if ev.name == "tall:seq":
        by_worker.setdefault(int(ev.payload_field["thread"]), set()).add(ident)
    else:
        main_ids.add(ident)
    if len(errors) > 10:
        break

if main_ids and {v for v, _ in main_ids} != {app_pid}:
    errors.append("main thread's vtids %s, want %d" % (main_ids, app_pid))
if len(main_ids) != 1:
    errors.append("main thread: %d (vtid, pthread_id) pairs" % len(main_ids))
if sorted(by_worker) != list(range(threads)):
    errors.append("workers seen: %s" % sorted(by_worker))
seen = set(main_ids)
for t, ids in by_worker.items():
    if len(ids) != 1:
        errors.append("worker %d: %d (vtid, pthread_id) pairs" % (t, len(ids)))
    if ids & seen or any(v == app_pid for v, _ in ids):
        errors.append("worker %d shares its vtid or pthread_id" % t)
    seen |= ids
if n < threads * per_thread:
    errors.append("%d events, want at least %d" % (n, threads * per_thread))
for e in errors:
    print("FAIL:", e, file=sys.stderr)
print("%d events checked" % n)
sys.exit(1 if errors else 0)
