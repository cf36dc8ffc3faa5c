# SPDX-License-Identifier: MIT
"""Lost-event accounting while the consumer runs: a flood of syscalls from a
known program into a 64 KiB buffer, which the consumer (a round every 20 ms)
cannot keep up with, whatever else the machine does. Loss happens (how much
depends on the load), never silently: for that program, the events
babeltrace2 reads plus the events_discarded it reports equal the calls made,
exactly, and trawl-ktrace's summary and the consumer's stats give the same
count. Each way an event can vanish is on this path: the kernel's per-CPU
drops (discard mode) and overwrites (overwrite mode), the consumer's reading
of whole and partial pages, its conversion, and its hiding of trawl's own
processes (the flooder is trawl-ktrace's child, forked from its executable).

Exact per program: only the flood reaches the buffers. getpgid(BASE + i),
BASE this run's own, is filtered on its argument (as test_lost.py does);
getppid() has no argument, so that flood comes from a program started before
the trace, waiting on a FIFO, and the filter is on its pid."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
import bt2  # noqa: E402

N = 100000
# getpgid's argument is an int in the trace; test_lost.py uses 1.0e9..1.5e9
BASE = 1550000000 + (os.getpid() % 2500) * N
prog = os.path.join(ktest.BIN, "ksyscalls")


def read_trace(trace, want):
    """(payload values of @want's events or their count, tids seen, discarded) via bt2."""
    vals, tids, lost = [], set(), 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            if ev.name in want:
                vals.append(int(ev.payload_field["pid"]) if "getpgid" in ev.name else 1)
                tids.add(int(ev.common_context_field["tid"]))
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            lost += msg.count or 0
    return vals, tids, lost


def check_counts(label, p, trace, seen, lost, expected):
    print("%s: seen %d, discarded %d, total %d of %d" % (label, seen, lost, seen + lost, expected))
    assert seen + lost == expected, (label, seen, lost, expected, p.stderr)
    # the summary (kernel stats + the consumer's own losses) and the trace agree
    m = re.search(r"trawl-ktrace: lost (\d+) events", p.stderr)
    assert m and int(m.group(1)) == lost, (label, p.stderr)
    m = re.search(r"stats events=(\d+) .*lost=(\d+)", p.stderr)
    assert m and int(m.group(1)) == seen and int(m.group(2)) == lost, (label, p.stderr)
    if lost:
        # the CLI warns once per gap: "WARNING: Tracer discarded N events between ..."
        _, err = ktest.babeltrace_clean(trace)
        said = sum(int(n.replace(",", "")) for n in re.findall(r"Tracer discarded ([\d,]+) event", err))
        assert said == lost, (said, lost, err[:2000])


def ktrace_stats(args):
    env = dict(os.environ, TRAWL_KERNEL_STATS="1")
    p = subprocess.run([os.path.join(ktest.BIN, "trawl-ktrace")] + args, capture_output=True,
                       text=True, timeout=300, env=env)
    if p.returncode != 0:
        raise SystemExit("trawl-ktrace %s failed (%d): %s" % (args, p.returncode, p.stderr))
    return p


def flood_child(mode):
    """getpgid(BASE + i) from trawl-ktrace's own child (notrace.c's about-to-exec case)."""
    d = ktest.tmpdir()
    trace = os.path.join(d, "trace")
    filt = "pid >= %d && pid < %d" % (BASE, BASE + N)
    p = ktrace_stats(["-o", trace, "-e", "syscalls:sys_enter_getpgid", "--filter", filt,
                      "--buffer-kb", "64", "-x", "tid"] + mode +
                     ["--", prog, "flood", str(N), str(BASE)])
    pid = int(p.stdout.split("pid=")[1].split()[0])
    mine, tids, lost = read_trace(trace, {"syscall_entry_getpgid"})
    assert tids <= {pid}, tids
    assert len(set(mine)) == len(mine) and all(BASE <= v < BASE + N for v in mine), \
        "duplicate or foreign events"
    check_counts("getpgid " + (mode[0][2:] if mode else "discard"), p, trace, len(mine), lost, N)


def flood_gated():
    """getppid() from a program started before the trace, filtered on its pid."""
    d = ktest.tmpdir()
    trace = os.path.join(d, "trace")
    go, done = os.path.join(d, "go"), os.path.join(d, "done")
    os.mkfifo(go)
    os.mkfifo(done)
    f = subprocess.Popen([prog, "gated", str(N), go, done], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(f.stdout.readline().split("=")[1])
        p = ktrace_stats(["-o", trace, "-s", "getppid", "--filter", "common_pid == %d" % pid,
                          "--buffer-kb", "64", "-x", "tid", "--",
                          "sh", "-c", 'echo g > "$0" && cat "$1" > /dev/null', go, done])
        assert f.wait(timeout=60) == 0
    finally:
        if f.poll() is None:
            f.kill()
            f.wait()
    got, tids, lost = read_trace(trace, {"syscall_entry_getppid", "syscall_exit_getppid"})
    assert tids <= {pid}, tids
    check_counts("getppid gated", p, trace, len(got), lost, 2 * N)


# No CPU hogs of its own: the suite's other tests (kernel-daemon's and
# trawltop's --all and sched traces, top-cpu's timings) must not pay for it;
# the accounting holds at any load (measured with two hogs: same figures).
flood_child([])
flood_child(["--overwrite"])
flood_gated()
print("ok")
