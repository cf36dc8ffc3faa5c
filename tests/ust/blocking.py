#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Blocking channels (LTTng 2.13's enable-channel --blocking-timeout) end to
end, through the real daemons, every trace read back with babeltrace2 (bt2).
A small channel (2 x 4 KiB per CPU) and an app writing flat out: the
consumer (polling every 1 ms) cannot keep up.

    blocking.py default    no timeout: events dropped, read + discarded == N
    blocking.py inf        --blocking-timeout=inf, LTTNG_UST_ALLOW_BLOCKING set:
                           nothing dropped, exactly N events, in order
    blocking.py not-allowed  the same channel, the app without the variable
                           (LTTng-UST's rule): it drops as with no timeout
    blocking.py stalled    --blocking-timeout=2ms, the consumer stopped (SIGSTOP):
                           the app finishes anyway, each event it could not
                           write waited its 2 ms first (a lower bound on the
                           app's run time, which load only makes longer), the
                           loss is counted: read + discarded == N
    blocking.py stop       --blocking-timeout=inf, the consumer stopped, the
                           app blocked: `trawl stop` frees it (the channel
                           stops recording), read + discarded == what it wrote
    blocking.py cli        side by side with LTTng 2.13 (when it is installed
                           and we are root): enable-channel's answers and
                           errors, list's "Blocking timeout:" lines, --mi xml
                           and save/load in both directions
"""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, TRAWL, fail  # noqa: E402
import trawltest  # noqa: E402

APP = os.path.join(BIN, "ust-app-all")
ALLOW = {"LTTNG_UST_ALLOW_BLOCKING": "1"}


class Env(trawltest.Env):
    def __init__(self):
        super().__init__("trawl-ust-blocking.")

    def app(self, *args, extra_env=None, **kw):
        env = dict(self.env)
        env.update(extra_env or {})
        return subprocess.Popen([APP] + [str(a) for a in args], env=env, **kw)


def session(e, timeout=None):
    e.trawl("create", "s", "--output", e.out)
    args = ["enable-channel", "-u", "ch", "--subbuf-size", "4096", "--num-subbuf", "2"]
    if timeout is not None:
        args.append("--blocking-timeout=" + timeout)
    e.trawl(*args)
    e.trawl("enable-event", "-u", "tall:seq", "-c", "ch")
    e.trawl("start")


def run(timeout, n, extra_env):
    e = Env()
    try:
        session(e, timeout)
        rc = e.app(1, n, 5000, extra_env=extra_env).wait(300)
        e.trawl("stop")
        ns, disc = trawltest.read_seq(e.out)
    finally:
        e.close()
    if rc != 0:
        fail("app exited %d" % rc)
    if any(b <= a for a, b in zip(ns, ns[1:])):
        fail("events out of order or repeated")
    return ns, disc


def case_default():
    n = 200000
    ns, disc = run(None, n, ALLOW)
    print("default: %d read + %d discarded of %d" % (len(ns), disc, n))
    if len(ns) + disc != n:
        fail("%d read + %d discarded != %d" % (len(ns), disc, n))
    if disc == 0:
        fail("an 8 KiB channel without a timeout dropped nothing")


def case_inf(allow):
    n = 200000
    ns, disc = run("inf", n, ALLOW if allow else {})
    print("inf (%s): %d read + %d discarded of %d" % ("allowed" if allow else "not allowed",
                                                       len(ns), disc, n))
    if len(ns) + disc != n:
        fail("%d read + %d discarded != %d" % (len(ns), disc, n))
    if allow and (disc != 0 or ns != list(range(n))):
        fail("a blocking channel lost events: %d read, %d discarded" % (len(ns), disc))
    if not allow and disc == 0:
        fail("an app without LTTNG_UST_ALLOW_BLOCKING waited (LTTng-UST's never does)")


def case_stalled():
    n, ms = 3000, 2
    e = Env()
    try:
        session(e, "%dms" % ms)
        # The consumer exists once the session has started.
        cons = e.consumer_pid()
        if not cons:
            fail("no user-space consumer found")
            return
        os.kill(cons, signal.SIGSTOP)
        try:
            t0 = time.monotonic()
            rc = e.app(1, n, 5000, extra_env=ALLOW).wait(300)
            took = time.monotonic() - t0
        finally:
            os.kill(cons, signal.SIGCONT)
        e.trawl("stop")
        ns, disc = trawltest.read_seq(e.out)
    finally:
        e.close()
    print("stalled consumer, %d ms timeout: %d read + %d discarded of %d, app ran %.2f s" %
          (ms, len(ns), disc, n, took))
    if rc != 0:
        fail("app exited %d" % rc)
    if len(ns) + disc != n:
        fail("%d read + %d discarded != %d" % (len(ns), disc, n))
    if disc == 0:
        fail("a stopped consumer and nothing dropped")
    # Each dropped event waited its timeout first: a lower bound only (a
    # loaded machine makes the app slower, never faster).
    if took < disc * ms / 1000.0:
        fail("the app ran %.3f s: %d events cannot each have waited %d ms" % (took, disc, ms))


def case_stop():
    n = 3000
    e = Env()
    try:
        session(e, "inf")
        cons = e.consumer_pid()
        if not cons:
            fail("no user-space consumer found")
            return
        os.kill(cons, signal.SIGSTOP)
        try:
            app = e.app(1, n, 5000, extra_env=ALLOW)
            # Blocked: it cannot write 3000 events into 8 KiB with no consumer.
            # (No timing asserted: the check is that stop frees it.)
            try:
                app.wait(1)
                fail("the app finished with its consumer stopped and an infinite timeout")
            except subprocess.TimeoutExpired:
                pass
            stop = subprocess.Popen([TRAWL, "stop"], env=e.env, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
            # stop waits for the consumer's final flush: let it run once the
            # app has been told to stop.
            rc = app.wait(120)
        finally:
            os.kill(cons, signal.SIGCONT)
        out, err = stop.communicate(timeout=120)
        if stop.returncode not in (0, trawltest.LOST):
            fail("stop: exit %d: %s" % (stop.returncode, err.strip()))
        ns, disc = trawltest.read_seq(e.out)
    finally:
        e.close()
    print("stop frees a blocked app: exit %d, %d read + %d discarded of %d" % (rc, len(ns), disc, n))
    if rc != 0:
        fail("app exited %d" % rc)
    # Events after the stop are not recorded (not counted either: the
    # channel was off), so read + discarded is at most n, and some were read.
    if not ns or len(ns) + disc > n:
        fail("%d read + %d discarded of %d" % (len(ns), disc, n))


# ---- side by side with LTTng 2.13 ----

ENABLE_CASES = [
    ["--blocking-timeout=inf"],
    ["--blocking-timeout=0"],
    ["--blocking-timeout=1000"],
    ["--blocking-timeout", "1500"],
    ["--blocking-timeout=1ms"],
    ["--blocking-timeout=5s"],
    ["--blocking-timeout=2147483647999"],
    ["--blocking-timeout=2147483648000"],
    ["--blocking-timeout=-1"],
    ["--blocking-timeout=abc"],
    ["--blocking-timeout=7", "--overwrite"],
    ["--blocking-timeout=0", "--overwrite"],
]


def err_text(s):
    """An error line without its tool's prefix ('Error: ', 'trawl: ')."""
    lines = [l for l in s.strip().splitlines() if l.strip()]
    return re.sub(r"^(Error: |trawl: )", "", lines[-1]) if lines else ""


def blocking_lines(listing):
    """{channel: its 'Blocking timeout:' value, or None} from `list SESSION`."""
    out, cur = {}, None
    for l in listing.splitlines():
        m = re.match(r"^- (\S+): \[", l)
        if m:
            cur = m.group(1)
            out[cur] = None
        m = re.match(r"^\s+Blocking timeout: (.*)$", l)
        if m and cur:
            out[cur] = m.group(1).strip()
    return out


def mi_blocking(xml):
    return re.findall(r"<name>([^<]+)</name>\s*<enabled>[^<]*</enabled>\s*<attributes>.*?"
                      r"<blocking_timeout>(-?\d+)</blocking_timeout>", xml, re.S)


def case_cli():
    from lttngref import LttngRef
    ref = LttngRef.make("trblk")
    if not ref:
        print("skipped: no LTTng 2.13 side by side here")
        return
    e = Env()
    try:
        ldir = ref.dir + "/home"
        ref.lttng("create", "s", "--output=" + ldir + "/t")
        e.trawl("create", "s", "--output", e.out)
        for i, args in enumerate(ENABLE_CASES):
            name = "c%d" % i
            lr = ref.lttng_raw("lttng", "enable-channel", "-u", name, *args)
            tr = e.trawl("enable-channel", "-u", name, *args, check=False)
            if (lr.returncode == 0) != (tr.returncode == 0):
                fail("enable-channel %s: LTTng exit %d, trawl exit %d (%s)" %
                     (" ".join(args), lr.returncode, tr.returncode, tr.stderr.strip()))
            elif lr.returncode != 0 and err_text(lr.stderr) != err_text(tr.stderr):
                fail("enable-channel %s: LTTng says %r, trawl %r" %
                     (" ".join(args), err_text(lr.stderr), err_text(tr.stderr)))
        # The kernel domain refuses it (before asking for any daemon).
        lr = ref.lttng_raw("lttng", "enable-channel", "-k", "k", "--blocking-timeout=5")
        tr = e.trawl("enable-channel", "-k", "k", "--blocking-timeout=5", check=False)
        if lr.returncode == 0 or tr.returncode == 0 or err_text(lr.stderr) != err_text(tr.stderr):
            fail("enable-channel -k --blocking-timeout: LTTng %d %r, trawl %d %r" %
                 (lr.returncode, err_text(lr.stderr), tr.returncode, err_text(tr.stderr)))
        # A snapshot session's channels default to overwrite: a timeout is
        # accepted there (LTTng's ust/blocking "don't block in snapshot mode").
        ref.lttng("create", "snap", "--snapshot", "--output=" + ldir + "/snap")
        e.trawl("create", "snap", "--snapshot", "--output", e.dir + "/snap")
        lr = ref.lttng_raw("lttng", "enable-channel", "-u", "-s", "snap", "sc",
                           "--blocking-timeout=1000")
        tr = e.trawl("enable-channel", "-u", "-s", "snap", "sc", "--blocking-timeout=1000",
                     check=False)
        if lr.returncode != 0 or tr.returncode != 0:
            fail("snapshot session, --blocking-timeout=1000: LTTng exit %d, trawl exit %d (%s)" %
                 (lr.returncode, tr.returncode, tr.stderr.strip()))
        lsb = blocking_lines(ref.lttng("list", "snap").stdout)
        tsb = blocking_lines(e.trawl("list", "snap").stdout)
        if lsb != tsb:
            fail("snapshot session's Blocking timeout lines: LTTng %s, trawl %s" %
                 (sorted(lsb.items()), sorted(tsb.items())))
        ref.lttng("destroy", "snap")
        e.trawl("destroy", "snap")
        lb = blocking_lines(ref.lttng("list", "s").stdout)
        tb = blocking_lines(e.trawl("list", "s").stdout)
        print("list: LTTng %s" % sorted(lb.items()))
        if lb != tb:
            fail("list's Blocking timeout lines: LTTng %s, trawl %s" % (sorted(lb.items()),
                                                                      sorted(tb.items())))
        lm = sorted(mi_blocking(ref.lttng("--mi", "xml", "list", "s").stdout))
        tm = sorted(mi_blocking(e.trawl("--mi", "xml", "list", "s").stdout))
        if lm != tm or not lm:
            fail("--mi xml list: LTTng %s, trawl %s" % (lm, tm))
        # Save/load both ways: each loads the other's file with the same timeouts.
        ref.lttng("save", "-o", ldir + "/save", "s")
        e.trawl("save", "-o", e.dir + "/save", "s")
        os.chmod(e.dir, 0o755)
        subprocess.run(["chmod", "-R", "a+rX", e.dir + "/save"], check=True)
        ref.lttng("destroy", "s")
        e.trawl("destroy", "s")
        e.trawl("load", "-i", ldir + "/save", "s")
        # (LTTng 2.13 finds no session "s" in a folder holding s.lttng: the file, then.)
        ref.lttng("load", "-i", e.dir + "/save/s.lttng", "s")
        tb2 = blocking_lines(e.trawl("list", "s").stdout)
        lb2 = blocking_lines(ref.lttng("list", "s").stdout)
        if tb2 != lb or lb2 != tb:
            fail("after save/load: trawl loading LTTng's %s, LTTng loading trawl's %s, want %s" %
                 (sorted(tb2.items()), sorted(lb2.items()), sorted(lb.items())))
        ref.lttng("destroy", "s")
    finally:
        e.close()
        ref.close()


def main():
    case = sys.argv[1] if len(sys.argv) > 1 else "inf"
    if case == "default":
        case_default()
    elif case == "inf":
        case_inf(True)
    elif case == "not-allowed":
        case_inf(False)
    elif case == "stalled":
        case_stalled()
    elif case == "stop":
        case_stop()
    elif case == "cli":
        case_cli()
    else:
        sys.exit("unknown case " + case)
    if FAILS:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
