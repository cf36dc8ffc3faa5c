# SPDX-License-Identifier: MIT
"""enable-channel -k --tracefile-size/--tracefile-count (LTTng 2.13's trace
file limits) on a kernel channel of the root daemon: N getpgid(BASE + i)
calls of a child pinned to one CPU (sys_enter_getpgid filtered on this
test's window of arguments, as test_exact_count.py), into a ring holding
them all, with files of at most SIZE bytes, COUNT kept.

- the files are LTTng's kernel/<channel>_<cpu>_<n> (n < COUNT) with
  index/<channel>_<cpu>_<n>.idx, each at most SIZE bytes, COUNT for the CPU
  that made the calls (the ring of files went round);
- babeltrace2 reads them without error, and the calls read are exactly the
  last ones: BASE + K .. BASE + N - 1 in order, K > 0;
- files overwritten are not counted discarded (as LTTng 2.13): none
  reported by babeltrace2, the stop says nothing was lost.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
d = ktest.tmpdir()
N = 20000
SIZE = 16384
COUNT = 3
# [10^8, 10^9) windows are taken by test_exact_count and others: 1.5 * 10^9 up
BASE = 1500000000 + (os.getpid() % 20000) * N
FILTER = "pid >= %d && pid < %d" % (BASE, BASE + N)
prog = os.path.join(ktest.BIN, "ksyscalls")
if not os.path.exists(prog):
    ktest.skip("ksyscalls not built")
NAME = re.compile(r"^c_(\d+)_(\d+)$")


def read_calls(trace):
    """(the getpgid arguments read, less BASE, in order; discarded events; other events)."""
    import bt2
    ns, lost, other = [], 0, 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst:
            if msg.event.name == "syscall_entry_getpgid":
                ns.append(int(msg.event.payload_field["pid"]) - BASE)
            else:
                other += 1
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            lost += msg.count or 0
    return ns, lost, other


env = ktest.cli_setup(d)
trawl = ktest.trawl
cpu = sorted(os.sched_getaffinity(0))[0]
try:
    out = os.path.join(d, "k")
    trawl("create", "k", "--output", out)
    trawl("enable-channel", "--kernel", "c", "--subbuf-size", "4096", "--num-subbuf", "256",
          "--tracefile-size", str(SIZE), "--tracefile-count", str(COUNT))
    lst = trawl("list", "k").stdout
    assert "Trace file count: %d per stream" % COUNT in lst, lst
    assert "Trace file size:  %d bytes" % SIZE in lst, lst
    trawl("enable-event", "--kernel", "-c", "c", "sys_enter_getpgid", "--filter", FILTER)
    trawl("start")
    subprocess.run([prog, "flood", str(N), str(BASE)], check=True, env=env, timeout=120,
                   stdout=subprocess.DEVNULL, preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
    p = trawl("stop", check=False)
    assert p.returncode == 0 and "discarded" not in p.stderr, (p.returncode, p.stderr)
    trawl("destroy", "k")
    kdir = os.path.join(out, "kernel")
    per = {}
    files = sorted(os.listdir(kdir))
    for f in files:
        if f in ("metadata", "index"):
            continue
        m = NAME.match(f)
        assert m, "stream file %s is not <channel>_<cpu>_<n>: %s" % (f, files)
        c, n = int(m.group(1)), int(m.group(2))
        assert n < COUNT, (f, COUNT)
        size = os.path.getsize(os.path.join(kdir, f))
        assert size <= SIZE, (f, size, SIZE)
        assert os.path.exists(os.path.join(kdir, "index", f + ".idx")), f
        per.setdefault(c, []).append(n)
    idx = sorted(os.listdir(os.path.join(kdir, "index")))
    assert idx == sorted(f + ".idx" for f in files if NAME.match(f)), (idx, files)
    assert sorted(per.get(cpu, [])) == list(range(COUNT)), (cpu, per)
    ns, lost, other = read_calls(out)
    print("kernel tracefile: files %s; %d calls read, from %s to %s of 0..%d; %d discarded"
          % (files, len(ns), ns[:1], ns[-1:], N - 1, lost))
    assert other == 0, other
    assert lost == 0, lost
    assert ns and ns[0] > 0 and ns == list(range(ns[0], N)), (len(ns), ns[:3], ns[-3:])
finally:
    ktest.stop_daemon()
print("ok")
