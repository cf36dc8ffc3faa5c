# SPDX-License-Identifier: MIT
"""Syscall and sched events with known values, read back with bt2 and the
babeltrace2 CLI (no warnings), through trawl-ktrace (no daemon)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
d = ktest.tmpdir()
trace = os.path.join(d, "trace")
prog = os.path.join(ktest.BIN, "ksyscalls")
# Only ksyscalls' events (COMM, ftrace's filter on the current task's name): every
# lseek of a machine running a parallel build (the linker seeks a lot) made this test
# read a trace growing with the build, and it timed out at 120 s.
p = ktest.ktrace(["-o", trace, "-s", "lseek", "-s", "getppid", "-e", "sched_process_exit",
                  "-e", "sched:sched_process_exec", "--filter", 'COMM == "ksyscalls"',
                  "-x", "pid,tid,procname,ppid,prio,nice,vpid,vtid", "--", prog, "known"])
pid = int(p.stdout.split("pid=")[1].split()[0])
evs, lost = ktest.events(trace)
mine = [e for e in evs if e["ctx"].get("tid") == pid]
names = [e["name"] for e in mine]
print("events of pid %d: %s" % (pid, names))
assert lost == 0, lost


def one(name):
    found = [e for e in mine if e["name"] == name]
    assert len(found) == 1, (name, names)
    return found[0]


ent = one("syscall_entry_lseek")
assert ent["fields"]["fd"] == 1000 and ent["fields"]["offset"] == 4242 and ent["fields"]["whence"] == 1, ent
ex = one("syscall_exit_lseek")
assert ex["fields"]["ret"] == -9, ex  # -EBADF
assert ent["ts"] < ex["ts"]
g = one("syscall_exit_getppid")
assert g["fields"]["ret"] == os.getpid() or g["fields"]["ret"] > 0
assert ex["ts"] < g["ts"]
exe = one("sched_process_exec")
assert exe["fields"]["filename"] == prog, exe["fields"]["filename"]
assert exe["fields"]["tid"] == pid
xt = one("sched_process_exit")
assert xt["fields"]["tid"] == pid and str(xt["fields"]["comm"]) == "ksyscalls", xt
# contexts: pid == tid for a single-threaded program; procname after exec
assert ent["ctx"]["pid"] == pid and ent["ctx"]["vpid"] == pid and ent["ctx"]["vtid"] == pid
assert str(ent["ctx"]["procname"]) == "ksyscalls", ent["ctx"]["procname"]
assert ent["ctx"]["prio"] == 20 + ent["ctx"]["nice"], ent["ctx"]
# events of each stream are in time order
for cpu in set(e["cpu"] for e in evs):
    ts = [e["ts"] for e in evs if e["cpu"] == cpu]
    assert ts == sorted(ts)

lines, err = ktest.babeltrace_clean(trace)
assert err == "", err
assert any("syscall_entry_lseek" in l and "fd = 1000" in l and "offset = 4242" in l for l in lines)
# trawl's own viewer prints kernel traces exactly as babeltrace2 does
view = os.path.join(ktest.BIN, "trawl")
if os.path.exists(view):
    import subprocess
    tv = subprocess.run([view, "view", trace], capture_output=True, text=True, timeout=60)
    assert tv.returncode == 0 and tv.stdout.splitlines() == lines, (tv.stdout[:500], tv.stderr)

# prio and nice come from /proc/<tid>, read when the consumer first converts
# a thread's record (a full sub-buffer at a time while tracing runs, the rest
# at stop): right for a thread alive then; one that exited before gets 20 and
# 0, as documented in src/kernel/task.c. This program starts at nice 7,
# makes the marked lseek and outlives the trace (trawl-ktrace stops when its
# command, the shell, ends), so its record is converted while it lives.
trace2 = os.path.join(d, "trace2")
pidfile = os.path.join(d, "nice7.pid")
# It names itself knice7 so that a filter keeps its lseek and no other on the machine.
prog2 = ("import os, time\n"
         "open('/proc/self/comm', 'w').write('knice7')\n"
         "open(%r, 'w').write('%%d' %% os.getpid())\n"
         "try:\n    os.lseek(1000, 4242, 1)\nexcept OSError:\n    pass\n"
         "time.sleep(30)\n" % pidfile)
script = ("nice -n 7 %s -c \"$1\" </dev/null >/dev/null 2>&1 &\n"
          "while [ ! -s %s ]; do sleep 0.05; done; sleep 0.2\n" % (sys.executable, pidfile))
p2 = ktest.ktrace(["-o", trace2, "-s", "lseek", "--filter", 'COMM == "knice7"',
                   "-x", "tid,prio,nice", "--",
                   "sh", "-c", script, "sh", prog2])
with open(pidfile) as f:
    pid2 = int(f.read())
try:
    evs2, _ = ktest.events(trace2)
    mark = [e for e in evs2 if e["name"] == "syscall_entry_lseek" and e["ctx"]["tid"] == pid2
            and e["fields"]["fd"] == 1000]
    assert len(mark) == 1, len(mark)
    # nice -n 7 adds to this test's own nice value (ctest may run under nice)
    want = min(19, os.getpriority(os.PRIO_PROCESS, 0) + 7)
    assert mark[0]["ctx"]["nice"] == want and mark[0]["ctx"]["prio"] == 20 + want, \
        (want, mark[0]["ctx"])
finally:
    os.kill(pid2, 9)
print("ok: %d events" % len(evs))
