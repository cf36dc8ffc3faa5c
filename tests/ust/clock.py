#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The clock of user-space traces (src/sessiond/ust-clock.c): the TSC where
it is invariant, else CLOCK_MONOTONIC; TRAWL_UST_CLOCK=monotonic forces the
latter. For each daemon (default, forced monotonic), app-clock.c records
events each bracketed by two CLOCK_MONOTONIC reads it prints, 5 ms apart
over ~1 s: every event's wall-clock time as babeltrace2 prints it
(--clock-seconds) is within BOUND_NS of [a, b] + (CLOCK_REALTIME -
CLOCK_MONOTONIC) as this test measures it; the declared clock is the TSC's
(freq not 1 GHz) by default exactly where the TSC is invariant; trawl view
prints the same lines as babeltrace2 (--clock-seconds, --clock-cycles).

BOUND_NS: the daemon's (TSC, CLOCK_MONOTONIC) pair and the two offset
estimates (each the best of 16 reads, ~0.1-1 us), the TSC frequency's
error (< 0.5 ppm, < 0.5 us over the run) and NTP's slew over the run
(<= 500 ppm in theory, a few ppm disciplined): 50 us. Load only widens
the brackets [a, b]."""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail  # noqa: E402
import trawltest  # noqa: E402

APP = os.path.join(BIN, "ust-app-clock")
BOUND_NS = 50000
N = 200
SEC = re.compile(r"^\[(\d+)\.(\d{9})\] .* tclock:ev: .*\{ i = (\d+), mono = (\d+) \}$")


def tsc_invariant():
    """ust-clock.c's rule, from the same files."""
    try:
        flags = set()
        with open("/proc/cpuinfo") as f:
            for ln in f:
                if ln.startswith("flags"):
                    flags |= set(ln.split(":", 1)[1].split())
        try:
            with open("/sys/devices/system/clocksource/clocksource0/available_clocksource") as f:
                srcs = f.read().split()
        except OSError:
            srcs = []
    except OSError:
        return False
    return (os.uname().machine == "x86_64" and "constant_tsc" in flags and "nonstop_tsc" in flags and
            ("tsc_reliable" in flags or "tsc" in srcs))


def epoch_offset():
    """CLOCK_REALTIME - CLOCK_MONOTONIC, ns: of 64 tries, the closest pair."""
    best = None
    for _ in range(64):
        m1 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        r = time.clock_gettime_ns(time.CLOCK_REALTIME)
        m2 = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
        if best is None or m2 - m1 < best[0]:
            best = (m2 - m1, r - (m1 + (m2 - m1) // 2))
    return best[1]


def run(kind):
    e = trawltest.Env("trawl-clock-")
    if kind == "monotonic":
        e.env["TRAWL_UST_CLOCK"] = "monotonic"
    else:
        e.env.pop("TRAWL_UST_CLOCK", None)
    try:
        e.trawl("create", "c", "--output", e.out)
        e.trawl("enable-event", "-u", "tclock:*")
        e.trawl("start")
        p = subprocess.run([APP, str(N)], env=e.env, capture_output=True, text=True, timeout=120)
        e.trawl("stop")
        if p.returncode != 0:
            fail("%s: %s app: exit %d: %s" % (kind, APP, p.returncode, p.stderr.strip()[-300:]))
            return
        brackets = {}
        for ln in p.stdout.splitlines():
            i, a, b = (int(x) for x in ln.split())
            brackets[i] = (a, b)
        metas = []
        for root, _, files in os.walk(e.out):
            if "metadata" in files:
                with open(os.path.join(root, "metadata"), errors="replace") as f:
                    metas.append(f.read())
        freqs = {int(x) for m in metas for x in re.findall(r"\bfreq = (\d+);", m)}
        tsc = kind == "default" and tsc_invariant()
        if len(freqs) != 1 or (next(iter(freqs)) != 1000000000) == (not tsc):
            fail("%s: clock freq %s, expected %s" % (kind, sorted(freqs), "the TSC's" if tsc else "1 GHz"))
        out = {}
        for opt in ("--clock-seconds", "--clock-cycles"):
            r = subprocess.run(["babeltrace2", opt, e.out], capture_output=True, text=True)
            v = subprocess.run([trawltest.TRAWL, "view", opt, e.out], capture_output=True, text=True, env=e.env)
            if r.returncode != 0 or r.stderr.strip():
                fail("%s: babeltrace2 %s: exit %d: %s" % (kind, opt, r.returncode, r.stderr.strip()[-300:]))
            if v.returncode != 0 or v.stdout != r.stdout:
                fail("%s: trawl view %s differs from babeltrace2's (exit %d)" % (kind, opt, v.returncode))
            out[opt] = r.stdout.splitlines()
        off = epoch_offset()
        seen, worst = 0, 0
        for ln in out["--clock-seconds"]:
            m = SEC.match(ln)
            if not m:
                continue
            ts = int(m.group(1)) * 1000000000 + int(m.group(2))
            i, mono = int(m.group(3)), int(m.group(4))
            a, b = brackets.get(i, (None, None))
            if a != mono:
                fail("%s: event %d carries mono %d, the program printed %s" % (kind, i, mono, a))
                continue
            seen += 1
            t = ts - off
            dev = a - t if t < a else t - b if t > b else 0
            worst = max(worst, dev)
            if dev > BOUND_NS:
                fail("%s: event %d at %d ns of CLOCK_MONOTONIC, %d ns out of the program's [%d, %d]" %
                     (kind, i, t, dev, a, b))
        if seen != N:
            fail("%s: %d of %d events read" % (kind, seen, N))
        print("%s: freq %s, %d events, worst %d ns outside their CLOCK_MONOTONIC brackets (bound %d)" %
              (kind, sorted(freqs), seen, worst, BOUND_NS))
        e.trawl("destroy")
    finally:
        e.close()


def main():
    run("default")
    run("monotonic")
    if FAILS:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
