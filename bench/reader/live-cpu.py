#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""CPU per event of trawl's lttng-live client vs babeltrace2's, same session.

    bench/reader/live-cpu.py [BUILD_DIR] [EVENTS] [BATCHES]   (build, 200000, 4)

trawl-relayd on free local ports, a live session (`create --live=100000
--set-url`), tests/relayd's live-app recording EVENTS tall:seq events in
BATCHES batches; `trawl view --live URL` and `babeltrace2
--input-format=lttng-live URL` both attached before the first batch, each
writing its text to /dev/null. Once the session is destroyed both end; the
CPU time (user + system, from wait4) of each, per event each printed, is
compared: the ratio is babeltrace2's over trawl's. Both also poll while
idle (trawl every 50 ms, babeltrace2 every 100 ms on "try again"), which
is part of what a live viewer costs and is counted.
"""
import os
import re
import subprocess
import sys
import time

top = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
build = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(top, "build")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
BATCHES = int(sys.argv[3]) if len(sys.argv) > 3 else 4
os.environ.setdefault("TRAWL_BIN_DIR", os.path.join(build, "bin"))
sys.path.insert(0, os.path.join(top, "tests", "relayd"))
sys.path.insert(0, os.path.join(top, "tests", "lib"))
import live as L  # noqa: E402
from trawltest import TRAWL  # noqa: E402


def main():
    e = L.Env()
    try:
        ctrl, data, live = L.relayd_start(e)
        e.trawl("create", "s", "--live=100000", "--set-url", "net://127.0.0.1:%d:%d" % (ctrl, data))
        e.trawl("enable-channel", "-u", "--subbuf-size", "1M", "--num-subbuf", "8", "ch")
        e.trawl("enable-event", "-u", "-c", "ch", "tall:seq")
        e.trawl("start")
        app = e.spawn([L.APP], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        L.wait_line(app, "ready 1")
        url = "net://127.0.0.1:%d/host/%s/s" % (live, L.HOST)
        null = open(os.devnull, "w")
        outs = {}
        procs = {
            "trawl": subprocess.Popen([TRAWL, "view", "--live", url], stdout=subprocess.PIPE,
                                      stderr=null, env=e.env),
            "babeltrace2": subprocess.Popen(["babeltrace2", "--input-format=lttng-live", url,
                                             "--params=session-not-found-action=\"end\""],
                                            stdout=subprocess.PIPE, stderr=null),
        }
        end = time.monotonic() + 60
        while L.session_clients(live) < 2 and time.monotonic() < end:
            time.sleep(0.05)
        for b in range(BATCHES):
            app.stdin.write("%d\n" % (N // BATCHES))
            app.stdin.flush()
            L.wait_line(app, "batch %d done" % b, timeout=120)
        app.stdin.close()
        app.wait(60)
        e.trawl("destroy", "s")
        cpu = {}
        for name, p in procs.items():
            lines = 0
            for chunk in iter(lambda: p.stdout.read(1 << 20), b""):
                lines += chunk.count(b"tall:seq: ")
            _, status, ru = os.wait4(p.pid, 0)
            p.returncode = 0
            cpu[name] = (ru.ru_utime + ru.ru_stime, lines)
        for name, (s, n) in cpu.items():
            print("%-12s %8d events  cpu %.3f s  %.0f ns/event" % (name, n, s, s / max(n, 1) * 1e9))
        t, b = cpu["trawl"], cpu["babeltrace2"]
        if t[1] and b[1] and t[0] > 0:
            print("ratio (babeltrace2 / trawl, CPU per event): %.1f" %
                  ((b[0] / b[1]) / (t[0] / t[1])))
    finally:
        e.close()


if __name__ == "__main__":
    main()
