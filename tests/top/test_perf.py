# SPDX-License-Identifier: MIT
"""trawltop's perf counter columns against truth: a program touches a known
number of new pages while the kernel records perf:cpu:page-fault (a software
counter every kernel has) as a context; its process row's page_fault column
(perf_cpu_page_fault in --json, page_fault in the text view) holds at least that many faults, and exactly what babeltrace2's events add
up to under trawltop's rule (model.c: a CPU-wide counter's increase since
the CPU's previous event of a thread belongs to the thread of the event),
for the whole trace and summed over intervals."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import toptest  # noqa: E402

PAGES = 3000
d = toptest.setup()
trace = os.path.join(d, "trace")
out = toptest.record(trace, ["sched_switch"], ["getpgid", "munmap", "exit_group"],
                     [toptest.LOAD, "faults", str(PAGES)],
                     contexts="pid,tid,procname,perf:cpu:page-fault")
pid = int(out["pid"])
assert int(out["faults"]) == PAGES, out

whole = toptest.top_json(trace, "-d", "0")
assert len(whole) == 1, len(whole)
mine = toptest.rows(whole[0], "processes", pid=pid)
assert len(mine) == 1, [r["pid"] for r in whole[0]["processes"]][:10]
row = mine[0]
assert "perf_cpu_page_fault" in row, sorted(row)
print("pid %d: %d pages touched, trawltop's page_fault %d" % (pid, PAGES, row["perf_cpu_page_fault"]))
assert row["perf_cpu_page_fault"] >= PAGES, row

# The oracle: the same events read by babeltrace2, the same rule applied.
import bt2  # noqa: E402
last, oracle = {}, 0
for m in bt2.TraceCollectionMessageIterator(trace):
    if type(m) is not bt2._EventMessageConst:
        continue
    ctx = m.event.common_context_field
    if ctx is None or "perf_cpu_page_fault" not in ctx:
        continue
    tid = int(ctx["tid"])
    if tid <= 0:
        continue  # the idle task: no thread to charge (the increase waits)
    cpu = int(m.event.packet.context_field["cpu_id"])
    v = int(ctx["perf_cpu_page_fault"])
    if cpu in last and v >= last[cpu] and int(ctx["pid"]) == pid:
        oracle += v - last[cpu]
    last[cpu] = v
assert row["perf_cpu_page_fault"] == oracle, (row["perf_cpu_page_fault"], oracle)

parts = toptest.top_json(trace, "-d", "0.01")
total = sum(r.get("perf_cpu_page_fault", 0) for iv in parts for r in toptest.rows(iv, "processes", pid=pid))
assert total == oracle, (total, oracle)
# The text view shows the counter as a column of the process's row.
text = toptest.top_text(trace, "-d", "0", "--view", "processes", "-f", str(pid))
head = [l.split() for l in text.splitlines() if "page_fault" in l.split()]
line = [l.split() for l in text.splitlines() if l.split()[:2] == [str(pid), "topload"]]
assert head and len(line) == 1, text
assert line[0][head[0].index("page_fault")] == str(oracle), (head[0], line[0], oracle)
print("ok")
