#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`trawl view --live` (libtrawl-reader's own lttng-live client) against
babeltrace2's lttng-live source, side by side on the same live session of a
real relay daemon, with a real traced program: babeltrace2 is the oracle,
and the two outputs must be the same, line by line.

    live.py ust       trawl-relayd, a user-space app recording batches while
                      both viewers are attached (the app pinned to one CPU,
                      30 quiet live periods before the second batch: the
                      other CPU's stream is told quiet by BEACONs only); the
                      session destroyed, both end on their own (exit 0,
                      nothing on stderr) with the same lines, holding every
                      event of the app
    live.py late      late streams and traces (root, tracefs): both attach
                      while only kernel events flow, then an app's trace
                      appears and records; same lines at the end
    live.py discard   a channel too small for the app's burst: events are discarded;
                      both print the same lines and the same discard warnings
    live.py list      net://HOST:PORT lists the sessions as babeltrace2 does
    live.py errors    no such session: one line, non-zero; nothing listening:
                      one line naming the address; the relay daemon killed
                      mid-session: what was printed stays, one line, non-zero
    live.py lttng     LTTng 2.13's own lttng-relayd, lttng-sessiond and an
                      LTTng-UST program (Debian's lttng-tools): same lines as
                      babeltrace2's
No timing decides a verdict: waits are for outcomes, bounded by ctest.
"""
import os
import re
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "relayd"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import live as L  # noqa: E402  (tests/relayd/live.py: its Env, relayd_start, the app)
from trawltest import BIN, FAILS, TRAWL, fail  # noqa: E402
import trawltest  # noqa: E402

HOST = L.HOST
TIMER_US = L.TIMER_US


class Side:
    """One viewer process writing to files."""

    def __init__(self, e, name, argv, env=None):
        self.out = open("%s/%s.out" % (e.dir, name), "w+")
        self.err = open("%s/%s.err" % (e.dir, name), "w+")
        self.p = subprocess.Popen(argv, stdout=self.out, stderr=self.err, env=env or e.env)
        e.procs.append(self.p)

    def text(self):
        self.out.seek(0)
        return self.out.read()

    def stderr(self):
        self.err.seek(0)
        return self.err.read()

    def wait(self, timeout=120):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            return None


def viewers(e, url):
    trawl = Side(e, "trawl", [TRAWL, "view", "--live", url])
    bt = Side(e, "bt2", ["babeltrace2", "--input-format=lttng-live", url,
                         "--params=session-not-found-action=\"end\""])
    return trawl, bt


def warnings(side):
    return [line for line in side.stderr().splitlines() if line.startswith("WARNING: ")]


def compare(trawl, bt, want_events, pattern=r"tall:seq: ", discards=False):
    """Both ended with exit 0, no stderr (but the same discard warnings with
    @discards), the same lines, every event (at least some with @discards)."""
    rt, rb = trawl.wait(), bt.wait()
    tt, tb = trawl.text(), bt.text()
    others = [w for w in bt.stderr().splitlines() if w.strip() and not (discards and w.startswith("WARNING: "))]
    if rb != 0 or others:
        fail("babeltrace2 (the oracle) exited %s: %s" % (rb, bt.stderr()[-2000:]))
        return
    others = [w for w in trawl.stderr().splitlines() if w.strip() and not (discards and w.startswith("WARNING: "))]
    if rt != 0 or others:
        fail("trawl view --live exited %s: %s" % (rt, trawl.stderr()[-2000:]))
    if discards and (warnings(trawl) != warnings(bt) or not warnings(bt)):
        fail("discard warnings differ (or none): trawl %r, babeltrace2 %r" %
             (warnings(trawl)[:3], warnings(bt)[:3]))
    lt, lb = tt.splitlines(), tb.splitlines()
    # Each viewer attaches at the stream's last packet, as babeltrace2 does
    # (LTTng's SEEK_LAST): one that attached a packet later (a busy machine)
    # starts later. Only lines before the app's first event may differ so.
    first = next((i for i, x in enumerate(lb) if re.search(pattern, x)), len(lb))
    for longer, shorter, who in ((lb, lt, "babeltrace2"), (lt, lb, "trawl")):
        extra = len(longer) - len(shorter)
        if 0 < extra <= first and longer[extra:] == shorter:
            print("note: %s attached earlier: %d more kernel lines before the app's" % (who, extra))
            lt = lb = shorter
            break
    if lt != lb:
        i = next((i for i, (a, b) in enumerate(zip(lt, lb)) if a != b), min(len(lt), len(lb)))
        fail("trawl view --live printed %d lines, babeltrace2 %d; first difference at line %d:\n"
             "trawl: %r\nbt2:   %r" % (len(lt), len(lb), i + 1, lt[i] if i < len(lt) else None,
                                       lb[i] if i < len(lb) else None))
    n = len(re.findall(pattern, tt))
    if discards and 0 < n < want_events:
        return len(lt)
    if n != want_events:
        fail("trawl view --live showed %d app events, wanted %d" % (n, want_events))
    return len(lt)


def run_app(e, n):
    app = e.spawn([L.APP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    app.stdin.write("%d\n" % n)
    app.stdin.flush()
    got = [app.stdout.readline().strip() for _ in range(2)]
    if got != ["ready 1", "batch 0 done"]:
        raise RuntimeError("app said %r" % got)
    app.stdin.close()
    if app.wait(30) != 0:
        fail("app exited %d" % app.returncode)


def need_relayd():
    if not os.access(os.path.join(BIN, "trawl-relayd"), os.X_OK):
        print("SKIP: trawl-relayd not built")
        sys.exit(77)
    if not shutil.which("babeltrace2"):
        print("SKIP: babeltrace2 missing")
        sys.exit(77)


def case_ust():
    need_relayd()
    e = L.Env()
    try:
        ctrl, data, live = L.relayd_start(e)
        e.trawl("create", "s", "--live=%d" % TIMER_US, "--set-url", "net://127.0.0.1:%d:%d" % (ctrl, data))
        e.trawl("enable-event", "-u", "tall:seq")
        e.trawl("start")
        cpu = min(os.sched_getaffinity(0))
        app = e.spawn([L.APP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
                      preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        L.wait_line(app, "ready 1")
        url = "net://127.0.0.1:%d/host/%s/s" % (live, HOST)
        trawl, bt = viewers(e, url)
        if not trawltest.until(lambda: L.session_clients(live) >= 2, 60):
            fail("both viewers did not attach")
        total = 0
        for b, n in enumerate([700, 300]):
            if b:
                L.quiet_periods(30)
            app.stdin.write("%d\n" % n)
            app.stdin.flush()
            L.wait_line(app, "batch %d done" % b)
            total += n
            # Live: trawl shows the batch while the session still records.
            if not trawltest.until(lambda: trawl.text().count("tall:seq: ") >= total, 90):
                fail("trawl view --live had %d of %d events while the app ran: %s" %
                     (trawl.text().count("tall:seq: "), total, trawl.stderr()[-2000:]))
                return
        app.stdin.close()
        app.wait(30)
        e.trawl("destroy", "s")
        n = compare(trawl, bt, total)
        print("trawl view --live and babeltrace2 printed the same %s lines" % n)
    finally:
        e.close()


def case_discard():
    need_relayd()
    e = L.Env()
    try:
        ctrl, data, live = L.relayd_start(e)
        e.trawl("create", "s", "--live=%d" % TIMER_US, "--set-url", "net://127.0.0.1:%d:%d" % (ctrl, data))
        e.trawl("enable-channel", "-u", "--subbuf-size", "4096", "--num-subbuf", "2", "ch")
        e.trawl("enable-event", "-u", "-c", "ch", "tall:seq")
        e.trawl("start")
        app = e.spawn([L.APP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        L.wait_line(app, "ready 1")
        trawl, bt = viewers(e, "net://127.0.0.1:%d/host/%s/s" % (live, HOST))
        if not trawltest.until(lambda: L.session_clients(live) >= 2, 60):
            fail("both viewers did not attach")
        app.stdin.write("50000\n")
        app.stdin.flush()
        L.wait_line(app, "batch 0 done", timeout=120)
        app.stdin.close()
        app.wait(30)
        e.trawl("destroy", "s")
        n = compare(trawl, bt, 50000, discards=True)
        print("discarding channel: the same %s lines and %d discard warnings" % (n, len(warnings(bt))))
    finally:
        e.close()


def case_late():
    need_relayd()
    if os.getuid() != 0 or not os.path.isdir("/sys/kernel/tracing/events"):
        print("SKIP: kernel tracing needs root and tracefs")
        sys.exit(77)
    e = L.Env()
    try:
        ctrl, data, live = L.relayd_start(e)
        e.trawl("create", "k", "--live=%d" % TIMER_US, "--set-url", "net://127.0.0.1:%d:%d" % (ctrl, data))
        e.trawl("enable-event", "-k", "sched_switch,sched_wakeup")
        e.trawl("enable-event", "-u", "tall:seq")
        e.trawl("start")
        if not trawltest.until(lambda: L.sessions_listed(live) >= 1, 60):
            fail("the session was never listed")
            return
        trawl, bt = viewers(e, "net://127.0.0.1:%d/host/%s/k" % (live, HOST))
        if not trawltest.until(lambda: L.session_clients(live) >= 2, 60):
            fail("both viewers did not attach")
        if not trawltest.until(lambda: trawl.text().count("sched_switch") >= 20, 90):
            fail("trawl view --live showed no kernel events: %s" % trawl.stderr()[-2000:])
            return
        run_app(e, 200)  # a new trace (and its streams) while both are attached
        if not trawltest.until(lambda: trawl.text().count("tall:seq: ") >= 200, 90):
            fail("trawl view --live did not show the late trace's events: %s" % trawl.stderr()[-2000:])
        e.trawl("destroy", "k")
        n = compare(trawl, bt, 200)
        print("kernel + late user-space trace: the same %s lines" % n)
    finally:
        e.close()


def case_list():
    need_relayd()
    e = L.Env()
    try:
        ctrl, data, live = L.relayd_start(e)
        e.trawl("create", "s", "--live=%d" % TIMER_US, "--set-url", "net://127.0.0.1:%d:%d" % (ctrl, data))
        e.trawl("enable-event", "-u", "tall:seq")
        e.trawl("start")
        run_app(e, 10)
        if not trawltest.until(lambda: L.sessions_listed(live) >= 1, 60):
            fail("the session was never listed")
            return
        url = "net://127.0.0.1:%d" % live
        r1 = subprocess.run([TRAWL, "view", "--live", url], capture_output=True, text=True, env=e.env, timeout=60)
        r2 = subprocess.run(["babeltrace2", "--input-format=lttng-live", url], capture_output=True, text=True,
                            timeout=60)
        if r1.returncode != 0 or r1.stdout != r2.stdout or "/host/%s/s (timer = " % HOST not in r1.stdout:
            fail("listing: trawl exit %d %r %r, babeltrace2 %r" % (r1.returncode, r1.stdout, r1.stderr, r2.stdout))
        e.trawl("destroy", "s")
        print("listed: %s" % r1.stdout.strip())
    finally:
        e.close()


def one_line_error(r, what, must):
    lines = r.stderr.strip().splitlines()
    if r.returncode == 0 or len(lines) != 1 or must not in lines[0]:
        fail("%s: exit %d, stderr %r (wanted one line with %r)" % (what, r.returncode, r.stderr, must))


def case_errors():
    need_relayd()
    e = L.Env()
    try:
        ctrl, data, live = L.relayd_start(e)
        e.trawl("create", "s", "--live=%d" % TIMER_US, "--set-url", "net://127.0.0.1:%d:%d" % (ctrl, data))
        e.trawl("enable-event", "-u", "tall:seq")
        e.trawl("start")
        app = e.spawn([L.APP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        L.wait_line(app, "ready 1")
        r = subprocess.run([TRAWL, "view", "--live", "net://127.0.0.1:%d/host/%s/nosuch" % (live, HOST)],
                           capture_output=True, text=True, env=e.env, timeout=60)
        one_line_error(r, "no such session", "no session nosuch")
        dead = L.free_port()
        r = subprocess.run([TRAWL, "view", "--live", "net://127.0.0.1:%d/host/h/s" % dead],
                           capture_output=True, text=True, env=e.env, timeout=60)
        one_line_error(r, "nothing listening", "127.0.0.1:%d" % dead)
        r = subprocess.run([TRAWL, "view", "--live", "http://x/"], capture_output=True, text=True,
                           env=e.env, timeout=30)
        one_line_error(r, "bad URL", "URL")
        # Without babeltrace2 anywhere: trawl follows the session on its own.
        env = dict(e.env, PATH="/nonexistent")
        trawl = Side(e, "trawl", [TRAWL, "view", "--live", "net://127.0.0.1:%d/host/%s/s" % (live, HOST)],
                     env=env)
        if not trawltest.until(lambda: L.session_clients(live) >= 1, 60):
            fail("the viewer did not attach")
        app.stdin.write("300\n")
        app.stdin.flush()
        L.wait_line(app, "batch 0 done")
        if not trawltest.until(lambda: trawl.text().count("tall:seq: ") >= 300, 90):
            fail("trawl view --live (no babeltrace2 in PATH) showed %d of 300 events: %s" %
                 (trawl.text().count("tall:seq: "), trawl.stderr()[-2000:]))
        # The relay daemon dies: the lines shown stay, one line says why.
        e.relay_proc.kill()
        e.relay_proc.wait(30)
        rc = trawl.wait(60)
        lines = trawl.stderr().strip().splitlines()
        if rc in (0, None) or len(lines) != 1 or "relay daemon" not in lines[0]:
            fail("relay daemon killed: exit %s, stderr %r" % (rc, trawl.stderr()))
        if trawl.text().count("tall:seq: ") != 300:
            fail("relay daemon killed: %d of the 300 lines shown stayed" % trawl.text().count("tall:seq: "))
        app.stdin.close()
        app.wait(30)
        print("one-line errors; no babeltrace2 needed; relay daemon death said: %s" % lines[:1])
    finally:
        e.close()


def main():
    cases = {"ust": case_ust, "late": case_late, "discard": case_discard, "list": case_list, "errors": case_errors}
    case = sys.argv[1] if len(sys.argv) > 1 else ""
    if case not in cases:
        sys.exit("usage: live.py " + "|".join(cases))
    cases[case]()
    if FAILS:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
