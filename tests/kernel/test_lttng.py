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
data = os.path.join(d, "known-data.bin")
with open(data, "wb") as f:
    f.write(bytes(range(256)) * 40 + b"tail")  # 10,244 bytes: 11 reads of 1000 and a short one
held = open(data, "rb")  # open before tracing: the state dump names it
ME = os.getpid()
NAMES = set()  # every event name in the trace


def keep(ev):
    """The events checked below: the program's, this process's part of the
    state dumps, and the dumps' system-wide tables; not the ~15,000 others
    (every process's maps, files and namespaces) bt2 would take ~0.1 ms each
    to turn into dicts."""
    n = ev.name
    NAMES.add(n)
    f = ev.payload_field
    if n in ("lttng_statedump_process_state", "lttng_statedump_process_pid_ns") or n.endswith("_ns"):
        return int(f["tid"]) == ME
    if n == "lttng_statedump_file_descriptor":
        return int(f["file_table_address"]) == ME
    if n == "lttng_statedump_vm_map":
        return int(f["pid"]) == ME
    if n.startswith("lttng_statedump_"):
        return True
    if n == "sched_switch":
        return pid in (int(f["prev_tid"]), int(f["next_tid"]))
    if n == "sched_process_fork":
        return int(f["child_tid"]) == pid
    return int(ev.common_context_field["tid"]) == pid


# Machine-wide sched_switch, read, openat...: on a busy machine (a loaded
# ctest, a benchmark beside it) they can outrun the buffers (314,296 lost in
# a CI rehearsal beside bench/ust). 32 MiB a CPU, and up to 3 attempts when
# the tracer counted a loss; a loss on the last one still fails.
ATTEMPTS = 3
for attempt in range(ATTEMPTS):
    session = os.path.join(d, "session%d" % attempt)
    trace = os.path.join(session, "kernel")
    p = ktest.ktrace(["-o", trace, "-x", "pid,tid,procname", "--buffer-kb", "32768",
                      "-e", "lttng_statedump_*", "--regenerate-statedump",
                      "-e", "sched_switch", "-e", "sched_process_fork", "-e", "sched_process_exec",
                      "-e", "softirq_entry",
                      "-s", "openat", "-s", "read", "-s", "close", "-s", "pipe2", "-s", "getppid",
                      "-s", "getrusage", "--", os.path.join(ktest.BIN, "kworkload"), data])
    truth = dict(l.split("=", 1) for l in p.stdout.split())
    pid = int(truth["pid"])
    NAMES.clear()
    evs, lost = ktest.events(trace, keep)
    if not lost or attempt == ATTEMPTS - 1:
        break
    print("note: %d events lost (counted) on a busy machine: again" % lost)
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
# the program's getrusage() is its CPU time to that call: the trace's on-CPU time is summed to its entry
# (what runs after it, printf, exit and an ASan build's leak check, is in the trace, not in cpu_ns)
gr = named("syscall_entry_getrusage")
end = gr[-1]["ts"] if gr else 0
on, start = 0, None
for e in sw:
    if e["ts"] > end:
        break
    if int(e["fields"]["next_tid"]) == pid:
        start = e["ts"]
    elif int(e["fields"]["prev_tid"]) == pid and start is not None:
        on += e["ts"] - start
        start = None
if start is not None:
    on += end - start
cpu = int(truth["cpu_ns"])
check(len(gr) == 1, "%d getrusage entries, the program made one" % len(gr))
check(0.9 * cpu <= on <= 1.1 * cpu + 5e6, "on-CPU %.1f ms in the trace, getrusage says %.1f ms" % (on / 1e6, cpu / 1e6))
# sched_process_fork: tids and tgids (the program's is a process: child_pid == child_tid)
fk = [e for e in evs if e["name"] == "sched_process_fork" and int(e["fields"]["child_tid"]) == pid]
check(len(fk) == 1 and int(fk[0]["fields"]["child_pid"]) == pid and
      [int(v) for v in fk[0]["fields"]["vtids"]] == [pid] and int(fk[0]["fields"]["child_ns_inum"]) ==
      os.stat("/proc/self/ns/pid").st_ino, "fork %s" % fk)
check("softirq_entry" not in NAMES and "irq_softirq_entry" in NAMES,
      "softirq_entry is LTTng's irq_softirq_entry: %s" % sorted(n for n in NAMES if "softirq" in n))
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
dumps = [e["ts"] for e in evs if e["name"] == "lttng_statedump_start"]


def per_dump(name):
    """@name's events of each of the two dumps"""
    es = [e for e in evs if e["name"] == name]
    return [[e for e in es if e["ts"] < dumps[1]], [e for e in es if e["ts"] >= dumps[1]]] if len(dumps) == 2 \
        else [es, []]


for ns in ("cgroup", "ipc", "mnt", "net", "uts", "time"):
    if not os.path.exists("/proc/self/ns/" + ns):
        continue
    got = [[int(e["fields"]["ns_inum"]) for e in d] for d in per_dump("lttng_statedump_process_%s_ns" % ns)]
    want = [os.stat("/proc/self/ns/" + ns).st_ino]
    check(got == [want, want], "%s_ns of this process %s, /proc says %s" % (ns, got, want))
# vm_map: this process's mappings of the python binary, as /proc/self/maps has them
exe = os.stat("/proc/self/exe").st_ino
PERM = {"r": 1, "w": 2, "x": 4, "s": 8}
maps = set()
for line in open("/proc/self/maps"):
    w = line.split()
    if len(w) >= 5 and int(w[4]) == exe:
        lo, hi = (int(x, 16) for x in w[0].split("-"))
        maps.add((lo, hi, sum(PERM.get(c, 0) for c in w[1]), int(w[2], 16) >> 12))
got = [{(int(e["fields"]["start"]), int(e["fields"]["end"]), int(e["fields"]["flags"]), int(e["fields"]["pgoff"]))
        for e in d if int(e["fields"]["inode"]) == exe} for d in per_dump("lttng_statedump_vm_map")]
check(maps and got == [maps, maps], "vm_map of %s: %s, /proc/self/maps: %s" % (sys.executable, got, maps))
# the system-wide tables: CPUs, disks, interfaces, interrupts, as /proc and /sys have them
cpus = {int(l.split(":")[1]) for l in open("/proc/cpuinfo") if l.startswith("processor")}
got = [sorted(int(e["fields"]["cpu_id"]) for e in d) for d in per_dump("lttng_statedump_cpu_topology")]
check(got == [sorted(cpus)] * 2, "cpu_topology cpus %s, /proc/cpuinfo %s" % (got, cpus))
parts = {(int(w[0]) << 20 | int(w[1]), w[3]) for w in (l.split() for l in open("/proc/partitions"))
         if len(w) == 4 and w[0].isdigit()}
got = [{(int(e["fields"]["dev"]), str(e["fields"]["diskname"])) for e in d}
       for d in per_dump("lttng_statedump_block_device")]
check(got == [parts, parts], "block_device %s, /proc/partitions %s" % (got, parts))
got = [{(str(e["fields"]["name"]), int(e["fields"]["address_ipv4"])) for e in d}
       for d in per_dump("lttng_statedump_network_interface")]
check(all(("lo", 0x7F000001) in g for g in got), "network_interface lo 127.0.0.1 in %s" % got)
irqs = {int(l.split(":")[0]) for l in open("/proc/interrupts") if l.split(":")[0].strip().isdigit()}
got = [{int(e["fields"]["irq"]) for e in d} for d in per_dump("lttng_statedump_interrupt")]
check(got == [irqs, irqs], "interrupt irqs %s, /proc/interrupts %s" % (got, irqs))
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
