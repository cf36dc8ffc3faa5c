#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`trawltop --live net://...` follows a live session of trawl-relayd through
libtrawl-reader's lttng-live client: a user-space app records a known
number of events (tall:seq) while trawltop is attached; once the session is
destroyed, trawltop --batch --json -d 0 ends on its own (exit 0) with one
interval whose user-space view counts exactly those events for that app.
Then the curses UI (in tmux: send-keys, capture-pane) on a second live
session: it shows the app's events in the user-space view while the session
records, and `q` quits with the terminal restored. Bad targets: one line,
non-zero. No timing decides the verdict."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "relayd"))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import live as L  # noqa: E402  (tests/relayd/live.py)
from trawltest import BIN, FAILS, fail  # noqa: E402
import trawltest  # noqa: E402

TOP = os.path.join(BIN, "trawltop")


def ui_case(e, live):
    """The UI on a live session: the user-space view fills while the app
    records; q quits, exit 0, the shell back on a restored screen."""
    import shutil
    import time
    if not shutil.which("tmux"):
        print("SKIP part: tmux missing")
        return
    e.trawl("create", "u", "--live=%d" % L.TIMER_US, "--set-url",
            "net://127.0.0.1:%d:%d" % e.relay_ports)
    e.trawl("enable-event", "-u", "tall:seq", "-s", "u")
    e.trawl("start", "u")
    app = e.spawn([L.APP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    L.wait_line(app, "ready 1")
    sock = "trawltop-net-%d" % os.getpid()
    done = os.path.join(e.dir, "exited")

    def tmux(*args):
        return subprocess.run(["tmux", "-L", sock] + list(args), capture_output=True, text=True,
                              timeout=30)

    def screen():
        return tmux("capture-pane", "-p", "-t", "ui").stdout

    try:
        cmd = "TERM=xterm-256color %s -d 0.2 --live net://127.0.0.1:%d/host/%s/u; echo EXITED=$? > %s; " \
              "echo SHELL-BACK; sleep 60" % (TOP, live, L.HOST, done)
        r = tmux("new-session", "-d", "-s", "ui", "-x", "150", "-y", "40", cmd)
        if r.returncode != 0:
            fail("tmux: %s" % r.stderr)
            return
        if not trawltest.until(lambda: L.session_clients(live) >= 1 or os.path.exists(done), 60):
            fail("trawltop's UI did not attach: %s" % screen())
            return
        tmux("send-keys", "-t", "ui", "6")
        # The view shows the last 0.2 s interval only: a single burst can be
        # on screen for less time than a loaded machine takes between two
        # captures, so the app records a batch every 0.3 s until it is seen.
        batch, end, seen = 0, time.time() + 90, False
        while not seen and time.time() < end:
            app.stdin.write("500\n")
            app.stdin.flush()
            L.wait_line(app, "batch %d done" % batch)
            batch += 1
            seen = trawltest.until(lambda: "tall:seq" in screen(), 0.3)
        if not seen:
            fail("the UI's user-space view never showed tall:seq (%d batches):\n%s" %
                 (batch, screen()))
        tmux("send-keys", "-t", "ui", "q")
        if not trawltest.until(lambda: "SHELL-BACK" in screen(), 60):
            fail("q did not quit the live UI:\n%s" % screen())
        elif open(done).read().strip() != "EXITED=0":
            fail("the live UI exited with %s" % open(done).read().strip())
        elif "tall:seq" in screen():
            fail("the terminal was not restored:\n%s" % screen())
        else:
            print("the live UI showed tall:seq and quit on q")
    finally:
        tmux("kill-server")
        app.stdin.close()
        app.wait(30)
        e.trawl("destroy", "u")


def main():
    if not os.access(os.path.join(BIN, "trawl-relayd"), os.X_OK) or not os.access(TOP, os.X_OK):
        print("SKIP: trawl-relayd or trawltop not built")
        sys.exit(77)
    e = L.Env()
    try:
        ctrl, data, live = L.relayd_start(e)
        e.relay_ports = (ctrl, data)
        e.trawl("create", "s", "--live=%d" % L.TIMER_US, "--set-url", "net://127.0.0.1:%d:%d" % (ctrl, data))
        e.trawl("enable-event", "-u", "tall:seq")
        e.trawl("start")
        app = e.spawn([L.APP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        L.wait_line(app, "ready 1")
        out = open(e.dir + "/top.out", "w+")
        err = open(e.dir + "/top.err", "w+")
        top = e.spawn([TOP, "--batch", "--json", "-d", "0", "--view", "ust", "--live",
                       "net://127.0.0.1:%d/host/%s/s" % (live, L.HOST)], stdout=out, stderr=err)
        if not trawltest.until(lambda: L.session_clients(live) >= 1, 60):
            fail("trawltop did not attach")
        app.stdin.write("1234\n")
        app.stdin.flush()
        L.wait_line(app, "batch 0 done")
        app.stdin.close()
        app.wait(30)
        e.trawl("destroy", "s")
        rc = top.wait(120)
        out.seek(0)
        err.seek(0)
        text, etext = out.read(), err.read()
        if rc != 0 or etext.strip():
            fail("trawltop --live: exit %d, stderr %r" % (rc, etext[-2000:]))
            return
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        if len(rows) != 1:
            fail("trawltop --live -d 0 printed %d intervals, wanted 1: %r" % (len(rows), text[:2000]))
            return
        ust = rows[0].get("ust", [])
        seq = [r for r in ust if "tall:seq" in json.dumps(r)]
        counts = [v for r in seq for k, v in r.items() if k in ("count", "events", "n")]
        if not seq or 1234 not in counts:
            fail("trawltop --live: the ust view does not count 1234 tall:seq events: %r" % ust)
        # Bad targets: one line each, non-zero.
        for target, must in (("net://127.0.0.1:%d/host/%s/nosuch" % (live, L.HOST), "no session nosuch"),
                             ("net://127.0.0.1:%d/host/h/s" % L.free_port(), "nothing listens"),
                             ("http://x/", "URL")):
            r = subprocess.run([TOP, "--batch", "--live", target], capture_output=True, text=True,
                               env=e.env, timeout=60)
            lines = r.stderr.strip().splitlines()
            if r.returncode == 0 or len(lines) != 1 or must not in lines[0]:
                fail("trawltop --live %s: exit %d, stderr %r" % (target, r.returncode, r.stderr))
        print("trawltop --live counted %s tall:seq events" % counts)
        ui_case(e, live)
    finally:
        e.close()
    if FAILS:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
