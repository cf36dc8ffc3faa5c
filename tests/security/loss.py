#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""No silent loss: faults injected while traced programs record a known
number of events; every trace is read back with babeltrace2's Python
bindings (bt2), and read + discarded must equal what was committed.

    loss.py consumer-kill uid|pid   kill -9 the user-space consumer again and again
                                    while an app records: the daemon starts another,
                                    which drains the surviving buffers (0 lost)
    loss.py sessions                64 sessions trace one app: each has every event
"""
import glob
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402

require_bt2()
import bt2  # noqa: E402

APP = os.path.join(BIN, "loss-app")


def children(pid, name):
    """Pids of @pid's children whose command name is @name."""
    out = []
    for st in glob.glob("/proc/[0-9]*/stat"):
        try:
            s = open(st).read()
        except OSError:
            continue
        comm = s[s.index("(") + 1:s.rindex(")")]
        ppid = int(s[s.rindex(")") + 2:].split()[1])
        if ppid == pid and comm == name[:15]:
            out.append(int(st.split("/")[2]))
    return out


class Env(trawltest.Env):
    def __init__(self):
        super().__init__("trawl-loss.")

    def daemon_pid(self):
        """The session daemon this Env's trawl commands started (root's, as root)."""
        for lock in glob.glob(self.dir + "/*/sessiond.lock"):
            with open(lock) as f:
                return int(f.read().strip())
        raise RuntimeError("no session daemon runs")

    def app(self, *args, extra_env=None, **kw):
        env = dict(self.env)
        env.update(extra_env or {})
        return subprocess.Popen([APP] + [str(a) for a in args], env=env, **kw)


def count_seq(path, ids=None):
    """(tall:seq events per id, discarded events) of the trace(s) under
    @path. With @ids ({id: N}), also checks that each of the N events of
    each id is there at most once (fail() otherwise)."""
    by, discarded, seen = {}, 0, {}
    if not glob.glob(path + "/**/metadata", recursive=True):
        return by, discarded  # nothing recorded at all
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._EventMessageConst:
            if m.event.name == "tall:seq":
                t = int(m.event.payload_field["thread"])
                by[t] = by.get(t, 0) + 1
                if ids is not None and t in ids:
                    n = int(m.event.payload_field["n"])
                    bits = seen.setdefault(t, bytearray(ids[t]))
                    if n >= ids[t] or bits[n]:
                        fail("event %d of app %d is in the trace twice (or out of range)" % (n, t))
                    else:
                        bits[n] = 1
        elif type(m) is bt2._DiscardedEventsMessageConst:
            discarded += m.count or 0
    return by, discarded


def kill_consumers(sd):
    """SIGKILL to every consumer the daemon @sd runs; returns how many."""
    pids = children(sd, "trawl-consumerd")
    for c in pids:
        os.kill(c, signal.SIGKILL)
    return len(pids)


def case_consumer_kill(buffers):
    """An app records 600,000 events over ~3 s into roomy buffers while the
    consumer is killed with SIGKILL every 20-150 ms, and once more while
    `trawl stop` waits for its final flush: each time the daemon starts a
    new one, which takes over the buffers where the dead one stopped.
    Nothing overflows, so every event must be there, once, and nothing
    discarded."""
    n, rate, kills = 600000, 200000, 0
    rnd = random.Random(os.getpid())
    e = Env()
    try:
        e.trawl("create", "s", "--output", e.out)
        e.trawl("enable-channel", "-u", "ch", "--buffers-" + buffers, "--subbuf-size", "262144",
                "--num-subbuf", "16")
        e.trawl("enable-event", "-u", "tall:seq", "-c", "ch")
        e.trawl("start")
        sd = e.daemon_pid()
        p = e.app(n, rate, 1, 5000, stdout=subprocess.PIPE, text=True)
        while p.poll() is None:
            time.sleep(rnd.uniform(0.02, 0.15))
            kills += kill_consumers(sd)
        p.stdout.read()
        stop = subprocess.Popen([trawltest.TRAWL, "stop"], env=e.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        time.sleep(0.005)
        kills += kill_consumers(sd)
        out, err = stop.communicate(timeout=60)
        status = e.trawl("status", check=False)
        by, disc = count_seq(e.out, {1: n})
    finally:
        e.close()
    got = by.get(1, 0)
    print("consumer-kill (%s): %d kills; %d read + %d discarded of %d; stop rc %d" %
          (buffers, kills, got, disc, n, stop.returncode))
    if kills < 5:
        fail("consumer-kill: only %d kills happened while the app ran" % kills)
    if got + disc != n:
        fail("consumer-kill: %d read + %d discarded != %d committed" % (got, disc, n))
    if disc:
        fail("consumer-kill: %d events discarded although no buffer overflowed" % disc)
    if stop.returncode != 0:
        fail("consumer-kill: stop failed: %s" % err.strip())
    if "DEAD" in status.stdout:
        fail("consumer-kill: status still says a consumer is dead:\n" + status.stdout)


def case_sessions():
    """64 sessions trace one app (per-user buffers, one channel each): each
    trace holds every event (an event's table of channels is not fixed)."""
    nsess, n = 64, 2000
    e = Env()
    try:
        for i in range(nsess):
            e.trawl("create", "s%d" % i, "--output", "%s/s%d" % (e.out, i))
            e.trawl("enable-event", "-u", "tall:seq", "-s", "s%d" % i)
            start = e.trawl("start", "s%d" % i, check=False)
            if start.returncode != 0:
                fail("sessions: start of session %d failed: %s" % (i, start.stderr.strip()))
        # Its start-up waits until every session has set it up (not the
        # default 200 ms: 64 set-ups take longer on a loaded machine).
        rc = e.app(n, 0, 7, 5000, extra_env={"TRAWL_UST_REGISTER_TIMEOUT": "60000"}).wait(120)
        counts = []
        for i in range(nsess):
            e.trawl("stop", "s%d" % i)
            by, disc = count_seq("%s/s%d" % (e.out, i))
            counts.append((by.get(7, 0), disc))
    finally:
        e.close()
    short = [i for i, (got, disc) in enumerate(counts) if got + disc != n]
    empty = [i for i, (got, disc) in enumerate(counts) if got == 0]
    print("sessions: %d sessions on one app: %d with all %d events, %d empty" %
          (nsess, nsess - len(short), n, len(empty)))
    if rc != 0:
        fail("sessions: the app exited %d" % rc)
    if short:
        fail("sessions: %d sessions lack events (first: session %d: %d read + %d discarded)" %
             (len(short), short[0], counts[short[0]][0], counts[short[0]][1]))


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    if case == "consumer-kill":
        case_consumer_kill(sys.argv[2])
    elif case == "sessions":
        case_sessions()
    else:
        sys.exit("usage: loss.py consumer-kill uid|pid | sessions")
    if FAILS:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
