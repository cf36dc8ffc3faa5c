#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of libtrawl-ust through the real trawl commands and
daemons; every trace is read back with babeltrace2's Python bindings (bt2),
the independent oracle.

    e2e.py fields                      every field macro's values, tracef, tracelog
    e2e.py threads T uid|pid           T threads x N events, no loss, per-thread order
    e2e.py accounting uid|pid          tiny buffer: events read + discarded == N exactly
    e2e.py overwrite                   flight recorder keeps the newest packets
    e2e.py sigkill                     app killed with SIGKILL: every committed event is there
    e2e.py preload|dlopen              provider in a shared object, app not linked with trawl
    e2e.py late                        app started before the daemon is traced once it appears
    e2e.py fork                        a fork()ed child is traced as its own app (per-PID)
    e2e.py early|early-fork            events at the top of main() of a short-lived program
    e2e.py early-nodaemon              ... whose start-up never waits without a daemon
    e2e.py multi uid|pid               3 linked providers + 1 dlopen()ed, dlclose()d: one registration
                                       per process, one trace folder (per-PID), every
                                       provider's first events, bt2 reads it cleanly
    e2e.py contexts uid|pid            prio, nice, perf:thread counters (app-ctx.c): values
                                       match what each thread did, per thread, in a thread
                                       made later and a fork child; no perf fd left open;
                                       trawl view == babeltrace2
    e2e.py contexts-errors             add-context -u: bad counter names, hardware counters
                                       without a PMU, perf:cpu: one line, non-zero exit
    e2e.py ns                          add-context -u -t cgroup_ns ... uts_ns: each
                                       event carries its process's namespaces'
                                       inodes (/proc/PID/ns/NAME), an app started
                                       in new uts, ipc and net namespaces (root)
                                       its new ones; unsigned integers in the trace
"""
import glob
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, TRAWL, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402

require_bt2()
import bt2  # noqa: E402

# TRAWL_TEST_APP: the same test app built another way (headers.sh: as C++).
APP = os.environ.get("TRAWL_TEST_APP") or os.path.join(BIN, "ust-app-all")


class Env(trawltest.Env):
    def __init__(self):
        super().__init__("trawl-ust-e2e.")

    def app(self, *args, binary=None, extra_env=None, **kw):
        env = dict(self.env)
        env.update(extra_env or {})
        return subprocess.Popen([binary or APP] + [str(a) for a in args], env=env, **kw)


def session(e, buffers="uid", overwrite=False, subbuf=None, num=None):
    e.trawl("create", "s", "--output", e.out)
    args = ["enable-channel", "-u", "ch", "--buffers-" + buffers]
    if overwrite:
        args.append("--overwrite")
    if subbuf:
        args += ["--subbuf-size", str(subbuf)]
    if num:
        args += ["--num-subbuf", str(num)]
    e.trawl(*args)
    e.trawl("enable-event", "-u", "-a", "-c", "ch")
    e.trawl("start")


def by_thread(evs):
    """The n of each tall:seq event, in trace order, by its thread field."""
    by = {}
    for name, d in evs:
        if name == "tall:seq":
            by.setdefault(int(d["thread"]), []).append(int(d["n"]))
    return by


def read_trace(path):
    """Returns (events as (name, payload dict), discarded count)."""
    events, discarded = [], 0
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._EventMessageConst:
            p = m.event.payload_field
            d = {}
            if p is not None:
                for k in p.keys():
                    d[k] = p[k]
            events.append((m.event.name, d))
        elif type(m) is bt2._DiscardedEventsMessageConst:
            discarded += m.count or 0
    return events, discarded


def val(f):
    """A bt2 field as a plain Python value."""
    if isinstance(f, bt2._StringFieldConst):
        return str(f)
    if isinstance(f, bt2._EnumerationFieldConst):
        return (int(f), list(f.labels))
    if isinstance(f, (bt2._ArrayFieldConst,)):
        return [val(x) for x in f]
    if isinstance(f, bt2._RealFieldConst):
        return float(f)
    return int(f)


def case_fields():
    e = Env()
    try:
        session(e)
        e.app(1, 10, 5000).wait(30)
        e.trawl("stop")
        evs, disc = read_trace(e.out)
    finally:
        e.close()
    got = {}
    for name, d in evs:
        got.setdefault(name, []).append({k: val(v) for k, v in d.items()})
    i, u = -1234567890123, 4000000000

    def s(x, bits):
        x &= (1 << bits) - 1
        return x - (1 << bits) if x >> (bits - 1) else x

    def net(x, nbytes):
        """ctf_integer_network: the argument's bytes as given (the host's,
        little-endian here) read big-endian, as LTTng-UST records them."""
        return int.from_bytes((x & ((1 << 8 * nbytes) - 1)).to_bytes(nbytes, "little"), "big")
    want = {
        "tall:ints": [
            dict(s8=s(i, 8), u8=u & 0xff, s16=s(i, 16), u16=u & 0xffff, s32=s(i, 32), u32=u, s64=i,
                 u64=u * 3, hex=u, net=net(u, 4), nethex=net(u, 2)),
            dict(s8=5, u8=7, s16=5, u16=7, s32=5, u32=7, s64=5, u64=21, hex=7, net=net(7, 4),
                 nethex=net(7, 2))],
        "tall:floats": [dict(f=3.5, d=3.5)],
        "tall:strings": [dict(str="hello-anchor", arrtext="hell", _seqtext_length=5, seqtext="hello"),
                         dict(str="", arrtext="", _seqtext_length=0, seqtext="")],
        "tall:arrays": [dict(arr=[-1, 0, 2147483647], _seq_length=3, seq=[-1, 0, 2147483647],
                             _seqhex_length=3, seqhex=[-1, 0, 2147483647]),
                        dict(arr=[-1, 0, 2147483647], _seq_length=0, seq=[], _seqhex_length=0,
                             seqhex=[])],
        "tall:enums": [dict(color=(1, ["GREEN"]), raw=1), dict(color=(12, ["BLUES"]), raw=12),
                       dict(color=(20, ["AFTER_BLUES"]), raw=20), dict(color=(99, []), raw=99)],
        "tall:first": [dict(a=1, b=2)],
        "tall:second": [dict(a=3, b=4)],
        "tall:noargs": [dict()],
        "lttng_ust_tracef:event": [
            dict(_msg_length=14, msg="42 tracef-text"),
            dict(_msg_length=55, msg="4000000000|beef|-5|-9000000000|Z|%|(null)|-2147483648|7"),
            dict(_msg_length=10, msg="   42|3.14")],
    }
    for name, rows in want.items():
        if got.get(name) != rows:
            fail("%s: got %r, want %r" % (name, got.get(name), rows))
    tl = got.get("lttng_ust_tracelog:LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING")
    if not tl or tl[0]["msg"] != "careful 7" or not tl[0]["file"].endswith("app-all.c") \
            or tl[0]["func"] != "main" or tl[0]["_msg_length"] != 9:
        fail("tracelog: got %r" % (tl,))
    if len(got.get("tall:seq", [])) != 10 or disc:
        fail("tall:seq: %d events, %d discarded" % (len(got.get("tall:seq", [])), disc))


def check_seq(evs, threads, n, allow_loss):
    last = {}
    count = 0
    for name, d in evs:
        if name != "tall:seq":
            continue
        t, k = int(d["thread"]), int(d["n"])
        count += 1
        if t in last and k <= last[t]:
            fail("thread %d: %d after %d" % (t, k, last[t]))
        if not allow_loss and k != last.get(t, -1) + 1:
            fail("thread %d: %d follows %d" % (t, k, last.get(t, -1)))
        last[t] = k
    return count


def case_threads(threads, buffers):
    n = 200000 // threads
    e = Env()
    try:
        session(e, buffers)
        rc = e.app(threads, n, 5000).wait(60)
        e.trawl("stop")
        evs, disc = read_trace(e.out)
    finally:
        e.close()
    if rc != 0:
        fail("app exited %d" % rc)
    count = check_seq(evs, threads, n, allow_loss=disc > 0)
    if count + disc != threads * n:
        fail("%d threads (%s): %d read + %d discarded != %d" % (threads, buffers, count, disc,
                                                                threads * n))
    if disc:
        print("note: %d discarded with the default channel" % disc)
    print("%d threads, per-%s: %d events, %d discarded" % (threads, buffers, count, disc))


def case_accounting(buffers):
    n = 1000000
    e = Env()
    try:
        session(e, buffers, subbuf=4096, num=2)
        rc = e.app(1, n, 5000).wait(60)
        e.trawl("stop")
        evs, disc = read_trace(e.out)
    finally:
        e.close()
    if rc != 0:
        fail("app exited %d" % rc)
    count = check_seq(evs, 1, n, allow_loss=True)
    print("accounting (%s): %d read + %d discarded = %d of %d" % (buffers, count, disc,
                                                                  count + disc, n))
    if count + disc != n:
        fail("accounting: %d read + %d discarded != %d" % (count, disc, n))
    if disc == 0:
        fail("accounting: a 8 KiB buffer should have dropped events")


def case_overwrite():
    n = 500000
    e = Env()
    try:
        session(e, "pid", overwrite=True, subbuf=4096, num=4)
        rc = e.app(1, n, 5000).wait(60)
        e.trawl("stop")
        evs, disc = read_trace(e.out)
    finally:
        e.close()
    seqs = [int(d["n"]) for name, d in evs if name == "tall:seq"]
    print("overwrite: %d events kept, last %s" % (len(seqs), seqs[-1] if seqs else None))
    if rc != 0 or not seqs or seqs[-1] != n - 1:
        fail("overwrite: the newest event (%d) is not the last in the trace" % (n - 1))
    # The consumer drains while the app runs, so older packets may be on disk
    # too; what counts: increasing, no duplicates, the newest at the end.
    if any(b <= a for a, b in zip(seqs, seqs[1:])):
        fail("overwrite: events out of order or duplicated")


def case_sigkill():
    n = 50000
    e = Env()
    try:
        session(e, "pid")
        p = e.app(1, n, 5000, "hang", stdout=subprocess.PIPE, text=True)
        line = p.stdout.readline()
        if line.strip() != "ready":
            fail("app did not get ready")
        p.kill()
        p.wait()
        e.trawl("stop")
        evs, disc = read_trace(e.out)
    finally:
        e.close()
    count = check_seq(evs, 1, n, allow_loss=False)
    print("sigkill: %d of %d events, %d discarded" % (count, n, disc))
    if count != n:
        fail("sigkill: %d of %d committed events in the trace" % (count, n))


def case_late():
    e = Env()
    try:
        p = e.app(1, 100, 8000)
        time.sleep(0.3)  # the app runs with no daemon at all
        session(e)
        rc = p.wait(30)
        e.trawl("stop")
        evs, disc = read_trace(e.out)
    finally:
        e.close()
    count = check_seq(evs, 1, 100, allow_loss=False)
    if rc != 0 or count != 100:
        fail("late daemon: %d of 100 events" % count)


def case_fork():
    n = 1000
    e = Env()
    try:
        session(e, "pid")
        rc = e.app(1, n, 5000, "fork").wait(60)
        e.trawl("stop")
        evs, disc = read_trace(e.out)
    finally:
        e.close()
    by = by_thread(evs)
    print("fork: parent %d, child %d events" % (len(by.get(0, [])), len(by.get(100, []))))
    if rc != 0 or by.get(0) != list(range(n)) or by.get(100) != list(range(n)):
        fail("fork: parent or child events missing (rc %d)" % rc)


EARLY = os.path.join(BIN, "ust-app-early")
# Long enough that a wait ended by the timeout is unmistakable (the cases
# below check that it is never reached), short enough for ctest.
EARLY_TIMEOUT_MS = 8000


def run_early(e, *args):
    """Runs app-early to completion; returns (exit code, wall seconds)."""
    t0 = time.monotonic()
    rc = e.app(*args, binary=EARLY,
               extra_env={"TRAWL_UST_REGISTER_TIMEOUT": str(EARLY_TIMEOUT_MS)}).wait(60)
    return rc, time.monotonic() - t0


def case_early(fork):
    """N events at the top of main(), then exit: all N in the trace, per-UID
    and per-PID buffers; and a daemon with no session sets the app up with
    nothing and releases it at once."""
    n = 50
    for buffers in ("uid", "pid"):
        e = Env()
        try:
            e.trawl("create", "idle", "--output", e.dir + "/idle")  # the daemon, no active session
            rc0, t0 = run_early(e, 5)
            session(e, buffers)
            rc, t = run_early(e, n, *(["fork"] if fork else []))
            e.trawl("stop")
            evs, disc = read_trace(e.out)
        finally:
            e.close()
        by = by_thread(evs)
        print("early %s%s: %d events (child %d), %.3f s; no session: %.3f s" %
              (buffers, " fork" if fork else "", len(by.get(0, [])), len(by.get(100, [])), t, t0))
        if rc != 0 or by.get(0) != list(range(n)):
            fail("early %s: %d of %d events at the top of main() (rc %d)" %
                 (buffers, len(by.get(0, [])), n, rc))
        if fork and by.get(100) != list(range(n)):
            fail("early %s: fork child: %d of %d events" % (buffers, len(by.get(100, [])), n))
        if rc0 != 0 or t0 > EARLY_TIMEOUT_MS / 2000.0:
            fail("early %s: with no session the app waited %.3f s (rc %d)" % (buffers, t0, rc0))


FORK_LIB = os.path.join(os.path.dirname(BIN), "lib", "libtrawl-ust-fork.so")


def case_fork_helper():
    """libtrawl-ust-fork (liblttng-ust-fork's part): a child of fork(), of
    daemon() or of clone() (no CLONE_VM) that records N events at once and exits has all N
    in the trace, in its own per-PID buffers. libtrawl-ust's own fork
    handler does this for fork(); clone() is the helper's: without it (checked
    by hand when this test was written) the clone child's 200 events went into
    the parent's buffers, under the parent's pid (1 per-PID folder, not 2)."""
    n = 200
    for mode in ("fork-now", "clone-now", "daemon-now"):
        e = Env()
        try:
            session(e, "pid")
            t0 = time.monotonic()
            p = e.app(n, mode, binary=EARLY, stdout=subprocess.PIPE,
                      extra_env={"LD_PRELOAD": FORK_LIB,
                                 # an ASan build checks that its runtime comes first
                                 "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") +
                                 ":verify_asan_link_order=0",
                                 "TRAWL_UST_REGISTER_TIMEOUT": str(EARLY_TIMEOUT_MS)})
            p.communicate(timeout=60)  # its end: EOF once the daemon (daemon-now) is done too
            rc = p.returncode
            t = time.monotonic() - t0
            e.trawl("stop")
            evs, disc = read_trace(e.out)
            folders = sorted(os.path.basename(os.path.dirname(p))
                             for p in glob.glob(os.path.join(e.out, "ust", "pid", "*", "metadata")))
        finally:
            e.close()
        by = by_thread(evs)
        print("fork helper %s: parent %d, child %d of %d events, %d discarded, %d per-PID folders, %.3f s" %
              (mode, len(by.get(0, [])), len(by.get(100, [])), n, disc, len(folders), t))
        if rc != 0 or by.get(0) != list(range(n)):
            fail("fork helper %s: parent %d of %d events (rc %d)" % (mode, len(by.get(0, [])), n, rc))
        if by.get(100) != list(range(n)):
            fail("fork helper %s: child %d of %d events" % (mode, len(by.get(100, [])), n))
        if len(folders) != 2:
            fail("fork helper %s: %d per-PID folders, not 2 (parent and child): %s" % (mode, len(folders), folders))
        if t > EARLY_TIMEOUT_MS / 2000.0:
            fail("fork helper %s: the run took %.3f s: a wait ended by the timeout" % (mode, t))


def case_early_nodaemon():
    """No daemon (no socket: ENOENT; a dead daemon's socket: ECONNREFUSED):
    start-up does not wait for the registration timeout."""
    import socket
    e = Env()
    try:
        rc1, t1 = run_early(e, 50)
        os.makedirs(e.env["TRAWL_RUNTIME_DIR"], exist_ok=True)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(e.env["TRAWL_RUNTIME_DIR"] + "/apps.sock")  # bound, never listening
        rc2, t2 = run_early(e, 50)
        s.close()
    finally:
        e.close()
    print("no daemon: %.3f s (ENOENT), %.3f s (ECONNREFUSED)" % (t1, t2))
    # Loose bound: far under the 8 s timeout, far over any start-up noise.
    for what, rc, t in (("ENOENT", rc1, t1), ("ECONNREFUSED", rc2, t2)):
        if rc != 0 or t > 2.0:
            fail("no daemon (%s): the app took %.3f s (rc %d)" % (what, t, rc))


MULTI = os.path.join(BIN, "ust-app-multi")


def case_multi(buffers):
    """app-multi.c: three providers in linked shared objects emit at the top
    of main(), a fourth is dlopen()ed and emits at once, then dlclose()d and
    the first emits again. The daemon hears of the process once (its log),
    per-PID buffers make one trace folder, and every provider's events are
    all there, read by bt2 without a warning."""
    n = 50
    lib = os.path.join(os.environ["TRAWL_BUILD_DIR"], "lib")
    e = Env()
    try:
        session(e, buffers)
        # A second session: a filtered rule on the dlopen()ed provider only.
        e.trawl("create", "f", "--output", e.dir + "/ftrace")
        e.trawl("enable-channel", "-u", "ch", "-s", "f", "--buffers-" + buffers)
        e.trawl("enable-event", "-u", "-s", "f", "-c", "ch", "tmd:*", "--filter", "n >= 40")
        e.trawl("start", "f")
        p = e.app(n, os.path.join(lib, "libtp-md.so"), binary=MULTI,
                  extra_env={"LD_LIBRARY_PATH": lib,
                             "TRAWL_UST_REGISTER_TIMEOUT": str(EARLY_TIMEOUT_MS)})
        rc = p.wait(60)
        e.trawl("stop", "s")
        e.trawl("stop", "f")
        evs, disc = read_trace(e.out)
        fevs, fdisc = read_trace(e.dir + "/ftrace")
        bt = subprocess.run(["babeltrace2", e.out, e.dir + "/ftrace"], capture_output=True,
                            text=True, timeout=60)
        folders = sorted(os.path.basename(d) for d in glob.glob(e.out + "/ust/pid/*"))
        log = ""
        for f in glob.glob(e.dir + "/*/sessiond.log"):
            log += open(f).read()
    finally:
        e.close()
    regs = [l for l in log.splitlines() if ("app %d (" % p.pid) in l and " registered " in l]
    added = [l for l in log.splitlines() if ("app %d:" % p.pid) in l and "events added" in l]
    by = {}
    for name, d in evs:
        if name.startswith(("lttng_ust_statedump:", "lttng_ust_lib:")):
            continue  # the state dump and dlopen()s, as LTTng-UST records them (-a)
        by.setdefault(name, []).append(int(d["n"]))
    print("multi %s: rc %d, %d registration(s), %d addition(s), folders %s, events %s" %
          (buffers, rc, len(regs), len(added), folders,
           {k: len(v) for k, v in sorted(by.items())}))
    if rc != 0:
        fail("multi %s: app exit %d" % (buffers, rc))
    for prov in ("tma", "tmb", "tmc", "tmd"):
        want = list(range(n)) + (list(range(1000, 1000 + n)) if prov == "tma" else [])
        if by.get(prov + ":seq") != want:
            fail("multi %s: %s:seq has %d of %d events" %
                 (buffers, prov, len(by.get(prov + ":seq", [])), n))
    if len(regs) != 1:
        fail("multi %s: the daemon saw %d registrations of the process: %s" %
             (buffers, len(regs), regs))
    fseq = [(name, int(d["n"])) for name, d in fevs]
    if fseq != [("tmd:seq", k) for k in range(40, n)]:
        fail("multi %s: filtered session on the added provider recorded %s" % (buffers, fseq))
    if not added:
        fail("multi %s: the dlopen()ed provider was not added on the app's connection" % buffers)
    if buffers == "pid" and len(folders) != 1:
        fail("multi pid: %d trace folders for one process: %s" % (len(folders), folders))
    if bt.returncode != 0 or bt.stderr.strip():
        fail("multi %s: babeltrace2 exit %d: %s" % (buffers, bt.returncode, bt.stderr.strip()))


def case_dl(how):
    """The provider is a shared object: LD_PRELOADed, or dlopen()ed by the
    app after it started (then the app registers again with the new events)."""
    lib = os.path.join(os.environ["TRAWL_BUILD_DIR"], "lib")
    so = os.path.join(lib, "libtp-all.so")
    app = os.path.join(BIN, "ust-app-dl")
    e = Env()
    try:
        session(e)
        if how == "preload":
            # (an ASan build checks that its runtime comes first: it does not here)
            p = e.app(500, 5000, binary=app, extra_env={"LD_PRELOAD": so,
                                                        "ASAN_OPTIONS": "verify_asan_link_order=0"})
        else:
            p = e.app(500, 5000, so, binary=app, extra_env={"LD_LIBRARY_PATH": lib})
        rc = p.wait(60)
        e.trawl("stop")
        evs, disc = read_trace(e.out)
    finally:
        e.close()
    seqs = [int(d["n"]) for name, d in evs if name == "tall:seq" and int(d["thread"]) == 7]
    print("%s: %d events" % (how, len(seqs)))
    if rc != 0 or seqs != list(range(500)):
        fail("%s: %d of 500 events (rc %d)" % (how, len(seqs), rc))


def case_dl_order():
    """libtrawl-ust-dl preloaded, the app dlopen()s a provider: the provider's
    objects are recorded as loaded (lttng_ust_lib:load) before the helper's
    lttng_ust_dl:dlopen of it, LTTng-UST 2.13's order (its ust-dl regression
    program records lib:load, build_id, then dl:dlopen, build_id), and each
    once; the provider's events are recorded."""
    lib = os.path.join(os.environ["TRAWL_BUILD_DIR"], "lib")
    so = os.path.join(lib, "libtp-all.so")
    app = os.path.join(BIN, "ust-app-dl")
    e = Env()
    try:
        session(e)
        p = e.app(50, 5000, so, binary=app,
                  extra_env={"LD_LIBRARY_PATH": lib, "LD_PRELOAD": os.path.join(lib, "libtrawl-ust-dl.so")})
        rc = p.wait(60)
        e.trawl("stop")
        evs, disc = read_trace(e.out)
    finally:
        e.close()
    real = os.path.realpath(so)
    seq = [name for name, d in evs
           if name in ("lttng_ust_lib:load", "lttng_ust_dl:dlopen") and str(d["path"]) == real]
    seqs = [int(d["n"]) for name, d in evs if name == "tall:seq" and int(d["thread"]) == 7]
    print("dl-order: %s; %d tall:seq events" % (seq, len(seqs)))
    if seq != ["lttng_ust_lib:load", "lttng_ust_dl:dlopen"]:
        fail("dl-order: events about %s: %s, want lib:load then dl:dlopen" % (real, seq))
    if rc != 0 or seqs != list(range(50)):
        fail("dl-order: %d of 50 events (rc %d)" % (len(seqs), rc))


def case_demo():
    """examples/demo, the program scripts/demo traces: every kind of event."""
    e = Env()
    try:
        session(e)
        p = e.app(1, binary=os.path.join(BIN, "trawl-demo"), stdout=subprocess.DEVNULL)
        rc = p.wait(60)
        e.trawl("stop")
        evs, disc = read_trace(e.out)
    finally:
        e.close()
    names = {}
    for name, d in evs:
        names[name] = names.get(name, 0) + 1
    want = {"demo:phase": 5, "demo:file_open": 2, "demo:word": 10, "demo:histogram": 1, "demo:nap": 3,
            "lttng_ust_tracef:event": 1}
    for k, v in want.items():
        if names.get(k) != v:
            fail("demo: %s: %s events, want %d" % (k, names.get(k), v))
    phases = [val(d["phase"])[1] for name, d in evs if name == "demo:phase"]
    if rc != 0 or phases != [["INIT"], ["WRITE"], ["READ"], ["ANALYZE"], ["DONE"]]:
        fail("demo: phases %r (rc %d)" % (phases, rc))


CTX_APP = os.path.join(BIN, "ust-app-ctx")
PAGES = 64  # app-ctx.c
UNAVAILABLE = (1 << 64) - 1
COUNTERS = ["page-fault", "faults", "context-switches", "minor-faults"]
DISTINCT = 3  # page-fault and faults are one perf counter: one fd per thread


def case_contexts(buffers):
    e = Env()
    try:
        e.trawl("create", "s", "--output", e.out)
        e.trawl("enable-channel", "-u", "channel0", "--buffers-" + buffers)
        e.trawl("enable-event", "-u", "tctx:mark")
        r = e.trawl("add-context", "-u", "-t", "vpid", "-t", "vtid", "-t", "prio", "-t", "nice",
                    *[a for c in COUNTERS for a in ("-t", "perf:thread:" + c)], check=False)
        if r.returncode != 0 and "cannot be opened" in r.stderr:
            print("SKIP: this host forbids perf_event_open: " + r.stderr.strip())
            e.close()
            sys.exit(77)
        if r.returncode != 0:
            raise RuntimeError("add-context: " + r.stderr.strip())
        e.trawl("start")
        rc = e.app(5000, binary=CTX_APP).wait(60)
        e.trawl("stop")
        view = e.trawl("view").stdout
        bt = subprocess.run(["babeltrace2", e.out], capture_output=True, text=True)
        marks = {}
        for m in bt2.TraceCollectionMessageIterator(e.out):
            if type(m) is not bt2._EventMessageConst:
                continue
            c, p = m.event.common_context_field, m.event.payload_field
            d = {k: int(c[k]) for k in c.keys()}
            for k in ("perf_fds", "kprio", "knice"):
                d[k] = int(p[k])
            marks[(int(p["role"]), int(p["step"]))] = d
    finally:
        e.close()
    if rc != 0:
        fail("contexts: app-ctx exited %d" % rc)
    if bt.returncode != 0 or bt.stderr:
        fail("contexts: babeltrace2: %s" % bt.stderr.strip())
    if view != bt.stdout:
        fail("contexts: trawl view differs from babeltrace2")
    want = [(0, 0), (1, 0), (1, 1), (1, 2), (1, 3), (2, 0), (2, 1), (3, 0), (3, 1), (5, 0), (5, 1),
            (6, 0), (0, 10), (4, 0), (4, 1), (4, 2), (0, 99)]
    missing = [k for k in want if k not in marks]
    if missing:
        fail("contexts: marks missing: %s" % missing)
        return
    fields = ["perf_thread_" + c.replace("-", "_") for c in COUNTERS]
    for k, d in sorted(marks.items()):
        print("mark %s: %s" % (k, " ".join("%s=%d" % (f, d[f]) for f in
                                             ["vtid", "prio", "nice", "kprio", "knice", "perf_fds"]
                                             + fields)))
        for f in fields:
            # D (role 5) could open no fd: its counters say so, nobody else's.
            if (d[f] == UNAVAILABLE) != (k[0] == 5):
                fail("contexts: %s = %d at mark %s" % (f, d[f], k))

    def check(what, ok):
        if not ok:
            fail("contexts: " + what)

    def delta(a, b, f):
        return marks[b][f] - marks[a][f]

    pf, cs = "perf_thread_page_fault", "perf_thread_context_switches"
    # The kernel's own view (/proc/thread-self/stat, read by the thread
    # just before each event; D cannot open it) is the oracle for prio/nice.
    for k, d in sorted(marks.items()):
        if d["kprio"] != -1000 and (d["prio"], d["nice"]) != (d["kprio"], d["knice"]):
            fail("contexts: mark %s: prio %d nice %d, the kernel says %d %d"
                 % (k, d["prio"], d["nice"], d["kprio"], d["knice"]))
        if d["kprio"] == -1000 and k[0] != 5:
            fail("contexts: mark %s: /proc unreadable" % (k,))
    if marks[(6, 0)]["perf_fds"] == -2:
        print("note: SCHED_FIFO not allowed here: real-time prio not checked")
    else:
        check("E (SCHED_FIFO 10, nice 3): prio -11 nice 3",
              (marks[(6, 0)]["prio"], marks[(6, 0)]["nice"]) == (-11, 3))
    # prio and nice: what each thread set, and a change made from outside.
    # The app starts at this test's nice value (ctest may run under nice).
    base = os.getpriority(os.PRIO_PROCESS, 0)
    check("main nice %d prio %d" % (base, 20 + base),
          marks[(0, 0)]["nice"] == base and marks[(0, 0)]["prio"] == 20 + base)
    check("A nice 5", marks[(1, 0)]["nice"] == 5 and marks[(1, 0)]["prio"] == 25)
    check("B nice 10", marks[(2, 0)]["nice"] == 10 and marks[(2, 0)]["prio"] == 30)
    check("A reniced to 12 by main", marks[(1, 3)]["nice"] == 12 and marks[(1, 3)]["prio"] == 32)
    check("B still 10", marks[(2, 1)]["nice"] == 10)
    check("D (no fd to spare) still records prio/nice",
          marks[(5, 1)]["nice"] == base and marks[(5, 1)]["prio"] == 20 + base)
    # Counters: per thread, and they count what the thread did.
    check("A's page faults +%d >= %d" % (delta((1, 0), (1, 1), pf), PAGES),
          delta((1, 0), (1, 1), pf) >= PAGES)
    check("faults == page-fault", all(d["perf_thread_faults"] == d[pf] for d in marks.values()))
    check("A's minor faults", delta((1, 0), (1, 1), "perf_thread_minor_faults") >= PAGES)
    # Context switches are counted in kernel mode: only when the app may count
    # it (root, CAP_PERFMON or perf_event_paranoid <= 1); else user mode only,
    # where this counter stays 0 (as always with LTTng-UST).
    paranoid = int(open("/proc/sys/kernel/perf_event_paranoid").read())
    if os.geteuid() == 0 or paranoid <= 1:
        check("A's context switches across a sleep", delta((1, 1), (1, 2), cs) >= 1)
    else:
        print("note: context switches not checked (uid %d, perf_event_paranoid %d)"
              % (os.geteuid(), paranoid))
    check("B's page faults independent of A's (+%d)" % delta((2, 0), (2, 1), pf),
          delta((2, 0), (2, 1), pf) < PAGES)
    check("C (created later) counts its faults", delta((3, 0), (3, 1), pf) >= PAGES)
    check("fork child counts its faults", delta((4, 0), (4, 1), pf) >= PAGES)
    check("fork child is its own process", marks[(4, 0)]["vpid"] != marks[(0, 0)]["vpid"])
    # No fd left: threads that exited closed theirs; the child closed the parent's.
    check("main's perf fds before its first event: %d" % marks[(0, 0)]["perf_fds"],
          marks[(0, 0)]["perf_fds"] == 0)
    check("perf fds after A, B, C, D exited: %d, want %d" % (marks[(0, 10)]["perf_fds"], DISTINCT),
          marks[(0, 10)]["perf_fds"] == DISTINCT)
    check("child's perf fds inherited: %d, want 0" % marks[(4, 0)]["perf_fds"],
          marks[(4, 0)]["perf_fds"] == 0)
    check("child's own perf fds: %d, want %d" % (marks[(4, 2)]["perf_fds"], DISTINCT),
          marks[(4, 2)]["perf_fds"] == DISTINCT)
    check("perf fds at the end: %d" % marks[(0, 99)]["perf_fds"], marks[(0, 99)]["perf_fds"] == DISTINCT)


NS = ["cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"]


def case_ns():
    own = {n: os.stat("/proc/self/ns/" + n).st_ino for n in NS if os.path.exists("/proc/self/ns/" + n)}
    e = Env()
    runs = {}
    try:
        e.trawl("create", "s", "--output", e.out)
        e.trawl("enable-channel", "-u", "ch")
        e.trawl("enable-event", "-u", "-a", "-c", "ch")
        e.trawl("add-context", "-u", "-c", "ch", "-t", "vpid",
                *[a for n in NS for a in ("-t", n + "_ns")])
        e.trawl("start")
        p = e.app(1, 10, 5000)
        runs[p.pid] = own
        if p.wait(60):
            fail("ns: the app exited %d" % p.returncode)
        if os.geteuid() == 0:
            # The app in new uts, ipc and net namespaces: the shell unshare
            # runs prints them (stat's /proc/self is the shell's child, in
            # the same namespaces), then becomes the app (same pid).
            sh = ('for n in uts ipc net; do stat -L -c "$n %i" /proc/self/ns/$n; done; '
                  'echo pid $$; exec "$@"')
            r = subprocess.run(["unshare", "--uts", "--ipc", "--net", "--", "sh", "-c", sh, "x",
                                APP, "1", "10", "5000"], env=e.env, capture_output=True,
                               text=True, timeout=120)
            if r.returncode:
                fail("ns: unshare ... app exited %d: %s" % (r.returncode, r.stderr))
            got = dict(l.split() for l in r.stdout.splitlines() if len(l.split()) == 2)
            mine = dict(own)
            for n in ("uts", "ipc", "net"):
                mine[n] = int(got.get(n, 0))
                if mine[n] == own[n]:
                    fail("ns: unshare made no new %s namespace" % n)
            runs[int(got.get("pid", 0))] = mine
        else:
            print("note: not root: no app in new namespaces")
        e.trawl("stop")
        seen = {}
        for m in bt2.TraceCollectionMessageIterator(e.out):
            if type(m) is not bt2._EventMessageConst:
                continue
            c = m.event.common_context_field
            pid = int(c["vpid"])
            seen[pid] = seen.get(pid, 0) + 1
            for n in NS:
                f = c[n + "_ns"]
                if not isinstance(f, bt2._UnsignedIntegerFieldConst):
                    fail("ns: %s_ns is a %s, not an unsigned integer" % (n, type(f).__name__))
                    return
                want = runs.get(pid, {}).get(n, 0)
                if int(f) != want:
                    fail("ns: pid %d: %s_ns = %d, want %d" % (pid, n, int(f), want))
                    return
    finally:
        e.close()
    if sorted(seen) != sorted(runs) or min(seen.values()) < 10:
        fail("ns: events by pid %r, want at least 10 of each of %r" % (seen, sorted(runs)))
    print("ns: %r events by pid, namespaces %r" % (seen, runs))


def case_contexts_errors():
    e = Env()
    try:
        e.trawl("create", "s", "--output", e.out)
        e.trawl("enable-event", "-u", "tctx:mark")
        cases = [("perf:thread:nosuch", 7, "unknown perf counter 'nosuch'"),
                 ("perf:cpu:page-fault", 7, "perf:cpu:page-fault with -k"),
                 ("prio2", 7, "unknown context 'prio2'")]
        # A CPU PMU shows as "cpu" (x86), "armv8_pmuv3*"...: with none, the
        # hardware counters are refused.
        pmus = [p for p in os.listdir("/sys/bus/event_source/devices")
                if p not in ("breakpoint", "msr", "software", "tracepoint", "uprobe", "kprobe",
                             "power")]
        if not pmus:
            cases += [("perf:thread:cpu-cycles", 9,
                       "perf counter 'cpu-cycles' is not available on this machine: no hardware PMU"),
                      ("perf:thread:L1-dcache-load-misses", 9, "no hardware PMU")]
        else:
            print("note: hardware counters not checked (PMUs: %s)" % pmus)
        if not pmus:
            # Run as lttng: LTTng's "Error: TYPE: ..." for each refused
            # type, the others added, exit 4 (CMD_WARNING).
            lttng = os.path.join(e.dir, "lttng")
            os.symlink(TRAWL, lttng)
            r = subprocess.run([lttng, "add-context", "-u", "-t", "perf:thread:raw:r0110:test",
                                "-t", "vtid"], env=e.env, capture_output=True, text=True,
                               timeout=60)
            print("as lttng: exit %d: %s" % (r.returncode, r.stderr.strip()))
            if (r.returncode != 4 or not r.stderr.startswith("Error: perf:thread:raw:r0110:test: ")
                    or "no hardware PMU" not in r.stderr or "vtid added" not in r.stdout):
                fail("as lttng, raw counter: exit %d, %r %r" % (r.returncode, r.stdout, r.stderr))
        for ctx, rc, text in cases:
            r = e.trawl("add-context", "-u", "-t", ctx, check=False)
            lines = r.stderr.strip().split("\n")
            print("%s: exit %d: %s" % (ctx, r.returncode, r.stderr.strip()))
            if r.returncode != rc or len(lines) != 1 or text not in lines[0] or r.stdout:
                fail("add-context -u -t %s: exit %d, %r" % (ctx, r.returncode, r.stderr))
        # What was refused left the channel as it was; good ones still go in.
        e.trawl("add-context", "-u", "-t", "perf:thread:page-fault", "-t", "nice")
        r = e.trawl("add-context", "-u", "-t", "perf:thread:page-fault", check=False)
        if r.returncode == 0 or "already" not in r.stderr:
            fail("duplicate counter accepted: %r" % r.stderr)
        lst = e.trawl("list", "s").stdout
        if ("perf:thread:page-fault" not in lst or "cpu-cycles" in lst
                or ("vtid" not in lst) != bool(pmus)):
            fail("list shows %r" % lst)
    finally:
        e.close()


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else "fields"
    if case == "fields":
        case_fields()
    elif case == "threads":
        case_threads(int(sys.argv[2]), sys.argv[3])
    elif case == "accounting":
        case_accounting(sys.argv[2])
    elif case == "overwrite":
        case_overwrite()
    elif case == "sigkill":
        case_sigkill()
    elif case == "fork":
        case_fork()
    elif case in ("preload", "dlopen"):
        case_dl(case)
    elif case == "dl-order":
        case_dl_order()
    elif case == "demo":
        case_demo()
    elif case == "late":
        case_late()
    elif case == "early":
        case_early(False)
    elif case == "early-fork":
        case_early(True)
    elif case == "fork-helper":
        case_fork_helper()
    elif case == "early-nodaemon":
        case_early_nodaemon()
    elif case == "contexts":
        case_contexts(sys.argv[2] if len(sys.argv) > 2 else "uid")
    elif case == "multi":
        case_multi(sys.argv[2] if len(sys.argv) > 2 else "uid")
    elif case == "ns":
        case_ns()
    elif case == "contexts-errors":
        case_contexts_errors()
    else:
        sys.exit("unknown case " + case)
    if FAILS:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
