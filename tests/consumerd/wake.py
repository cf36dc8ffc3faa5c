#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The user-space consumer sleeps until an app closes a packet
(src/ringbuffer/ringbuffer.h, "Wake-ups"), through the real daemons, the
traces read back with babeltrace2 (bt2).

    wake.py idle   a session whose channel an app has written to, then
                   nothing: the consumer's sleeps (voluntary context
                   switches, every thread's) over the quiet time are at most
                   5 + 25 a second of it (its idle timer: 1 a second, and
                   the daemon's commands; it polled every 1 ms before: ~900
                   a second). Load only makes a sleeping process wake less
                   often, never more.
    wake.py drain  TRAWL_UST_WAKE_IDLE_MS=0: no timer reads the channel, the
                   apps' wake-ups alone. A 2 x 4 KiB channel with
                   --blocking-timeout=inf and an app allowed to block writes
                   50,000 events (~370 packets): it finishes only if every
                   packet it closed woke the consumer, and the trace holds
                   exactly its events, in order, none discarded.
    wake.py drain-pid   the same with per-process buffers (--buffers-pid).
    wake.py slice  the consumer asks the scheduler for 0.1 ms time slices
                   (src/consumerd/sched.c: so that, woken, it runs at once
                   on a busy machine): every thread of it has se.slice
                   100000 ns in /proc, and keeps the nice value it was
                   started with (this test runs the daemons at its own
                   nice + 3). Skipped where the kernel takes no slice
                   requests (before Linux 6.12).
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402

APP = os.path.join(BIN, "ust-app-all")


class Env(trawltest.Env):
    def __init__(self, extra_env=None):
        super().__init__("trawl-cons-wake.")
        self.env.update(extra_env or {})

    def app(self, *args, extra_env=None):
        env = dict(self.env)
        env.update(extra_env or {})
        return subprocess.Popen([APP] + [str(a) for a in args], env=env)


def sleeps(pid):
    """The voluntary context switches of every thread of @pid so far."""
    n = 0
    for task in os.listdir("/proc/%d/task" % pid):
        for line in open("/proc/%d/task/%s/status" % (pid, task)):
            if line.startswith("voluntary_ctxt_switches:"):
                n += int(line.split()[1])
    return n


def case_idle():
    e = Env()
    try:
        e.trawl("create", "s", "--output", e.out)
        e.trawl("enable-event", "-u", "tall:seq")
        e.trawl("start")
        if e.app(1, 1000, 5000).wait(120) != 0:
            fail("the app failed")
        pid = e.consumer_pid()
        if not pid:
            fail("no user-space consumer found")
            return
        time.sleep(0.5)  # what the app's exit left to do
        t0, s0 = time.monotonic(), sleeps(pid)
        time.sleep(3)
        t1, s1 = time.monotonic(), sleeps(pid)
        e.trawl("stop")
    finally:
        e.close()
    n, secs = s1 - s0, t1 - t0
    bound = 5 + 25 * secs
    print("idle: %d sleeps in %.2f s (bound %.0f)" % (n, secs, bound))
    if n > bound:
        fail("the idle consumer woke %d times in %.2f s (at most %.0f): it polls" %
             (n, secs, bound))


def case_drain(buffers):
    require_bt2()
    n = 50000
    e = Env({"TRAWL_UST_WAKE_IDLE_MS": "0"})
    try:
        e.trawl("create", "s", "--output", e.out)
        e.trawl("enable-channel", "-u", "ch", "--subbuf-size", "4096", "--num-subbuf", "2",
                "--blocking-timeout=inf", *buffers)
        e.trawl("enable-event", "-u", "tall:seq", "-c", "ch")
        e.trawl("start")
        p = e.app(1, n, 5000, extra_env={"LTTNG_UST_ALLOW_BLOCKING": "1"})
        try:
            rc = p.wait(240)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            rc = "still blocked after 240 s (a packet closed without waking the consumer)"
        e.trawl("stop")
        ns, disc = trawltest.read_seq(e.out)
    finally:
        e.close()
    print("drain%s: app %s, %d read, %d discarded of %d" % (" " + buffers[0] if buffers else "",
                                                          rc, len(ns), disc, n))
    if rc != 0:
        fail("the app: %s" % rc)
    if len(ns) != n or disc:
        fail("%d events read, %d discarded: not the %d written" % (len(ns), disc, n))
    if any(b <= a for a, b in zip(ns, ns[1:])):
        fail("events out of order or repeated")


def kernel_takes_slices():
    """Whether this kernel honours a fair task's sched_attr.sched_runtime:
    tried in a child process, which asks for 0.1 ms and reads its se.slice."""
    import ctypes
    pid = os.fork()
    if pid == 0:
        ok = 1
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            # struct sched_attr: size, policy, flags, nice, priority, runtime, ...
            attr = (ctypes.c_uint8 * 56)()
            ctypes.memmove(attr, (56).to_bytes(4, "little"), 4)
            ctypes.memmove(ctypes.addressof(attr) + 16, os.nice(0).to_bytes(4, "little", signed=True), 4)
            ctypes.memmove(ctypes.addressof(attr) + 24, (100000).to_bytes(8, "little"), 8)
            if libc.syscall(314, 0, attr, 0) == 0 and slices(os.getpid()) == {100000}:
                ok = 0
        finally:
            os._exit(ok)
    return os.waitpid(pid, 0)[1] == 0


def slices(pid):
    """The se.slice (ns) of each thread of @pid, as a set."""
    out = set()
    for task in os.listdir("/proc/%d/task" % pid):
        for line in open("/proc/%d/task/%s/sched" % (pid, task)):
            if line.startswith("se.slice"):
                out.add(int(line.split(":")[1]))
    return out


def case_slice():
    if os.uname().machine != "x86_64" or not kernel_takes_slices():
        print("SKIP: this kernel takes no time-slice requests")
        sys.exit(77)
    nice = os.nice(3)
    e = Env()
    try:
        e.trawl("create", "s", "--output", e.out)
        e.trawl("enable-event", "-u", "tall:seq")
        e.trawl("start")
        if e.app(1, 1000, 5000).wait(120) != 0:
            fail("the app failed")
        pid = e.consumer_pid()
        if not pid:
            fail("no user-space consumer found")
            return
        got = slices(pid)
        cnice = int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[16])
        e.trawl("stop")
    finally:
        e.close()
    print("slice: the consumer's threads' se.slice %s ns, nice %d (started at %d)" %
          (sorted(got), cnice, nice))
    if got != {100000}:
        fail("the consumer's time slices are %s ns, not the 100000 it asks for" % sorted(got))
    if cnice != nice:
        fail("the consumer's nice is %d, not the %d it was started with" % (cnice, nice))


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    if case == "idle":
        case_idle()
    elif case == "drain":
        case_drain([])
    elif case == "drain-pid":
        case_drain(["--buffers-pid"])
    elif case == "slice":
        case_slice()
    else:
        sys.exit("usage: wake.py idle|drain|drain-pid|slice")
    if FAILS:
        sys.exit(1)


if __name__ == "__main__":
    main()
