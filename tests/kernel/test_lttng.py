# SPDX-License-Identifier: MIT
"""LTTng-modules 2.13's layout, checked against a program whose truth is known
(kworkload: a known path opened, a known number of bytes read in a known
number of calls, a pipe, 1000 getppid() calls, ~200 ms of CPU) and against
/proc: field by field, with bt2; then babeltrace2 and babeltrace 1.5 read
the trace without a warning; then, when $TRAWL_LTTNG_ANALYSES names a
lttng-analyses checkout (outside the repository: it is GPL and not
vendored), lttng-syscallstats and lttng-iousagetop run on it and report the
program's calls and its file."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
d = ktest.tmpdir()
session = os.path.join(d, "session")
trace = os.path.join(session, "kernel")
data = os.path.join(d, "known-data.bin")
with open(data, "wb") as f:
    f.write(bytes(range(256)) * 40 + b"tail")  # 10,244 bytes: 11 reads of 1000 and a short one
held = open(data, "rb")  # open before tracing: the state dump names it
p = ktest.ktrace(["-o", trace, "-x", "pid,tid,procname", "-e", "lttng_statedump_*", "--regenerate-statedump",
                  "-e", "sched_switch", "-e", "sched_process_fork", "-e", "sched_process_exec",
                  "-e", "softirq_entry",
                  "-s", "openat", "-s", "read", "-s", "close", "-s", "pipe2", "-s", "getppid",
                  "--", os.path.join(ktest.BIN, "kworkload"), data])
truth = dict(l.split("=", 1) for l in p.stdout.split())
pid = int(truth["pid"])
evs, lost = ktest.events(trace)
assert lost == 0, lost
mine = [e for e in evs if e["ctx"].get("tid") == pid]
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)


def named(name):
    return [e for e in mine if e["name"] == name]


# openat: the path as a string, LTTng's argument names and types
op = [e for e in named("syscall_entry_openat") if str(e["fields"]["filename"]) == data]
check(len(op) == 1, "one syscall_entry_openat of %s, got %d: %s" % (
    data, len(op), [str(e["fields"]["filename"]) for e in named("syscall_entry_openat")]))
if op:
    f = op[0]["fields"]
    check(list(f.keys()) == ["dfd", "filename", "flags", "mode"], "openat fields %s" % list(f.keys()))
    check(int(f["dfd"]) == -100 and int(f["flags"]) == os.O_RDONLY | os.O_CLOEXEC, "openat args %s" % f)
    after = [e for e in named("syscall_exit_openat") if e["ts"] > op[0]["ts"]]
    check(after and int(after[0]["fields"]["ret"]) == int(truth["fd"]), "openat ret %s" % after[:1])
# read: count, sizes and the buffer pointer on the exit event (LTTng's sc_out)
# the reads of the file: between its openat and the close of its fd (the loader read another fd 3 before)
cl = [e for e in named("syscall_entry_close") if op and e["ts"] > op[0]["ts"] and
      int(e["fields"]["fd"]) == int(truth["fd"])]
rd = [e for e in named("syscall_entry_read") if op and cl and op[0]["ts"] < e["ts"] < cl[0]["ts"] and
      int(e["fields"]["fd"]) == int(truth["fd"])]
check(len(rd) == int(truth["reads"]), "%d read entries, the program made %s" % (len(rd), truth["reads"]))
check(all(list(e["fields"].keys()) == ["fd", "count"] and int(e["fields"]["count"]) == 1000 for e in rd),
      "read entry fields %s" % (rd[:1],))
rx = [e for e in named("syscall_exit_read") if rd and e["ts"] > rd[0]["ts"]][:len(rd)]
check(sum(int(e["fields"]["ret"]) for e in rx) == int(truth["bytes"]),
      "read returned %d bytes in all, the program read %s" % (sum(int(e["fields"]["ret"]) for e in rx),
                                                             truth["bytes"]))
check(rx and all(list(e["fields"].keys()) == ["ret", "buf"] and int(e["fields"]["buf"]) != 0 for e in rx),
      "read exit fields %s" % (rx[:1],))
# pipe2: the two fds LTTng decodes at exit
px = named("syscall_exit_pipe2")
check(len(px) == 1 and [int(v) for v in px[0]["fields"]["fildes"]] == [int(truth["pipe0"]), int(truth["pipe1"])],
      "pipe2 fildes %s, the program got %s %s" % (px, truth["pipe0"], truth["pipe1"]))
check(len(named("syscall_entry_getppid")) == 1000 and len(named("syscall_exit_getppid")) == 1000,
      "getppid %d/%d of 1000" % (len(named("syscall_entry_getppid")), len(named("syscall_exit_getppid"))))
# sched_switch: LTTng's names; prio as /proc shows it (prio - 100); on-CPU time = the program's CPU time
sw = [e for e in evs if e["name"] == "sched_switch"]
check(sw and list(sw[0]["fields"].keys()) == ["prev_comm", "prev_tid", "prev_prio", "prev_state",
                                               "next_comm", "next_tid", "next_prio"],
      "sched_switch fields %s" % (list(sw[0]["fields"].keys()) if sw else None))
outs = [e for e in sw if int(e["fields"]["prev_tid"]) == pid and str(e["fields"]["prev_comm"]) == "kworkload"]
check(outs and all(int(e["fields"]["prev_prio"]) == int(truth["prio"]) for e in outs),
      "prev_prio %s, /proc says %s" % ({int(e["fields"]["prev_prio"]) for e in outs}, truth["prio"]))
on, start = 0, None
for e in sw:
    if int(e["fields"]["next_tid"]) == pid:
        start = e["ts"]
    elif int(e["fields"]["prev_tid"]) == pid and start is not None:
        on += e["ts"] - start
        start = None
cpu = int(truth["cpu_ns"])
check(0.9 * cpu <= on <= 1.1 * cpu + 5e6, "on-CPU %.1f ms in the trace, getrusage says %.1f ms" % (on / 1e6, cpu / 1e6))
# sched_process_fork: tids and tgids (the program's is a process: child_pid == child_tid)
fk = [e for e in evs if e["name"] == "sched_process_fork" and int(e["fields"]["child_tid"]) == pid]
check(len(fk) == 1 and int(fk[0]["fields"]["child_pid"]) == pid and
      [int(v) for v in fk[0]["fields"]["vtids"]] == [pid] and int(fk[0]["fields"]["child_ns_inum"]) ==
      os.stat("/proc/self/ns/pid").st_ino, "fork %s" % fk)
check(all(e["name"] != "softirq_entry" for e in evs), "ftrace's softirq_entry name in the trace")
# the state dump, at start and once more (the daemon's `regenerate statedump` path): this process and its file
check(len([e for e in evs if e["name"] == "lttng_statedump_start"]) == 2 and
      len([e for e in evs if e["name"] == "lttng_statedump_end"]) == 2, "two state dumps")
me = [e for e in evs if e["name"] == "lttng_statedump_process_state" and int(e["fields"]["tid"]) == os.getpid()]
status = dict(l.split(":\t", 1) for l in open("/proc/self/status").read().splitlines() if ":\t" in l)
check(len(me) == 2 and all(int(e["fields"]["pid"]) == os.getpid() and int(e["fields"]["ppid"]) == os.getppid() and
                           str(e["fields"]["name"]) == status["Name"] and int(e["fields"]["type"]) == 0
                           for e in me), "process_state of this process %s" % me[:1])
fds = [e for e in evs if e["name"] == "lttng_statedump_file_descriptor" and str(e["fields"]["filename"]) == data]
check(len(fds) == 2 and all(int(e["fields"]["fd"]) == held.fileno() and me and
                            int(e["fields"]["file_table_address"]) == int(me[0]["fields"]["file_table_address"])
                            for e in fds), "file_descriptor of %s: %s" % (data, fds[:1]))
pidns = [e for e in evs if e["name"] == "lttng_statedump_process_pid_ns" and int(e["fields"]["tid"]) == os.getpid()]
check(pidns and int(pidns[0]["fields"]["ns_inum"]) == os.stat("/proc/self/ns/pid").st_ino, "pid_ns %s" % pidns[:1])
# readers: no warning from either babeltrace
lines, err = ktest.babeltrace_clean(session)
check(err == "", "babeltrace2: " + err)
if shutil.which("babeltrace"):
    b1 = subprocess.run(["babeltrace", trace], capture_output=True, text=True, timeout=300)
    check(b1.returncode == 0 and b1.stderr == "" and len(b1.stdout.splitlines()) == len(lines),
          "babeltrace 1.5: rc %d, %d lines of %d, %s" % (b1.returncode, len(b1.stdout.splitlines()),
                                                         len(lines), b1.stderr[:300]))
else:
    print("babeltrace 1.5 not installed: its check is skipped")
la = os.environ.get("TRAWL_LTTNG_ANALYSES")
if la and os.path.exists(os.path.join(la, "lttng-syscallstats")):
    r = subprocess.run(["/usr/bin/python3", os.path.join(la, "lttng-syscallstats"), "--no-progress",
                        "--tid", str(pid), session], capture_output=True, text=True, timeout=600)
    rows = {l.split()[1]: int(l.split()[2]) for l in r.stdout.splitlines() if l.startswith(" - ")}
    check(r.returncode == 0 and rows.get("getppid") == 1000 and rows.get("read", 0) >= int(truth["reads"]),
          "lttng-syscallstats: rc %d %s %s" % (r.returncode, rows, r.stderr[-300:]))
    r = subprocess.run(["/usr/bin/python3", os.path.join(la, "lttng-iousagetop"), "--no-progress",
                        "--limit", "1000", session],
                       capture_output=True, text=True, timeout=600)
    check(r.returncode == 0 and os.path.basename(data) in r.stdout,
          "lttng-iousagetop does not show %s: rc %d %s" % (data, r.returncode, r.stderr[-300:]))
else:
    print("TRAWL_LTTNG_ANALYSES not set to a lttng-analyses checkout: its check is skipped")
if FAILS:
    print("\n".join("FAIL: " + f for f in FAILS))
    sys.exit(1)
print("LTTng layout: all checks passed")
