# SPDX-License-Identifier: MIT
"""trawltop's system calls against truth: a program makes a known number of
getpgid() calls, each failing; trawltop counts exactly that many, all errors,
with latencies that babeltrace2's entry/exit pairs agree with."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import toptest  # noqa: E402

N = 4321
d = toptest.setup()
trace = os.path.join(d, "trace")
out = toptest.record(trace, ["sched_switch"], ["getpgid", "getppid"],
                     [toptest.LOAD, "calls", str(N)])
pid = int(out["pid"])
iv = toptest.top_json(trace, "-d", "0")[0]
sc = toptest.rows(iv, "syscalls", pid=pid, syscall="getpgid")
assert len(sc) == 1, toptest.rows(iv, "syscalls", pid=pid)
sc = sc[0]
print(sc)
assert sc["count"] == N and sc["errors"] == N, sc
assert sc["command"] == "topload", sc
proc = toptest.rows(iv, "processes", pid=pid)[0]
assert proc["syscalls"] >= N and proc["syscall_errors"] >= N, proc
total = toptest.rows(iv, "calls", syscall="getpgid")[0]
assert total["count"] >= N, total

# The oracle: entry -> exit pairs of this thread, from babeltrace2.
lat, entry = [], None
for name, ns, _, _, cx in toptest.bt2_events(trace, {"syscall_entry_getpgid",
                                                     "syscall_exit_getpgid"}):
    if int(cx["tid"]) != pid:
        continue
    if name.startswith("syscall_entry"):
        entry = ns
    else:
        lat.append(ns - entry)
        entry = None
lat.sort()
assert len(lat) == N, len(lat)
assert sc["total_ns"] == sum(lat) and sc["min_ns"] == lat[0] and sc["max_ns"] == lat[-1], \
    (sc, sum(lat), lat[0], lat[-1])
rank = -(-99 * N // 100)  # nearest rank
assert sc["p99_ns"] == lat[rank - 1], (sc["p99_ns"], lat[rank - 1])

# Per interval: the counts of 5 ms intervals add up to N.
parts = toptest.top_json(trace, "-d", "0.005", "--view", "syscalls", "-f", str(pid))
assert sum(r["count"] for iv2 in parts for r in iv2["syscalls"]
           if r["syscall"] == "getpgid") == N
# --begin (ns exact) at the trace's beginning reads the same events
again = toptest.top_json(trace, "-d", "0", "--begin", "%d.%09d" % divmod(iv["begin_ns"], 10**9))[0]
assert again["begin_ns"] == iv["begin_ns"] and again["events"] == iv["events"], \
    (again["begin_ns"], iv["begin_ns"], again["events"], iv["events"])
# -n limits the intervals
assert len(toptest.top_json(trace, "-d", "0.005", "-n", "2")) == min(2, len(parts))
print("ok")
