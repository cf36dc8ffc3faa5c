#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The clock of user-space traces (src/sessiond/ust-clock.c): the TSC where
it is invariant, else CLOCK_MONOTONIC; TRAWL_UST_CLOCK=monotonic forces the
latter. For each daemon (default, forced monotonic), app-clock.c records
events, each bracketed by clock reads it prints (CLOCK_REALTIME,
CLOCK_MONOTONIC and the TSC before, the same after, in reverse), 5 ms apart
over ~1 s. Nothing here depends on how fast anything runs: load widens the
brackets, it never moves an event out of its own.

- The declared clock is the TSC's (freq not 1 GHz) by default exactly where
  the TSC is invariant, else CLOCK_MONOTONIC's (1 GHz).
- Its counter is that clock: every event's timestamp in cycles (babeltrace2
  --clock-cycles) lies within the program's TSC reads around it (a TSC
  trace) or its CLOCK_MONOTONIC reads (a monotonic one), exactly: a
  timestamp from another clock, scaled or offset, falls outside.
- Its frequency is the TSC's rate against CLOCK_MONOTONIC over the run,
  bounded by the first and last events' brackets (a tight bound on an idle
  machine, a looser but still true one under load), within RATE_PPM: the
  daemon's measurement is within 0.5 ppm, and NTP may slew CLOCK_MONOTONIC
  by up to 500 ppm.
- babeltrace2's wall-clock time of every event (--clock-seconds) is the
  declared clock's conversion of its cycles (offset_s, offset, freq), to the
  nanosecond, and trawl view prints the same lines as babeltrace2 (both
  options).
- The declared origin puts every event between the program's CLOCK_REALTIME
  reads around it, within ORIGIN_NS: the origin comes from the daemon's own
  CLOCK_REALTIME - CLOCK_MONOTONIC estimate (and, for the TSC, its (TSC,
  CLOCK_MONOTONIC) pair), which this test cannot bracket; a wrong origin
  (a clock other than the Epoch's, a missed term) is off by far more.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail  # noqa: E402
import trawltest  # noqa: E402

APP = os.path.join(BIN, "ust-app-clock")
RATE_PPM = 1000
ORIGIN_NS = 1000000000
N = 200
SEC = re.compile(r"^\[(\d+)\.(\d{9})\] .* tclock:ev: .*\{ i = (\d+), mono = (\d+) \}$")
CYC = re.compile(r"^\[(\d+)\] .* tclock:ev: .*\{ i = (\d+), mono = (\d+) \}$")
CLOCK = re.compile(r"\bclock\s*\{(.*?)\};", re.S)


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
            "tsc" in srcs)


def clock_decls(metas):
    """{(freq, offset_s, offset)} of the clocks the metadata texts declare."""
    out = set()
    for m in metas:
        for body in CLOCK.findall(m):
            f = dict(re.findall(r"\b(freq|offset_s|offset)\s*=\s*(-?\d+)\s*;", body))
            out.add(tuple(int(f.get(k, 0)) for k in ("freq", "offset_s", "offset")))
    return out


def check_events(kind, decl, brackets, cycles, seconds):
    """The per-event checks of the top (counter, conversion, origin) and the
    frequency's; returns the events checked."""
    freq, off_s, off = decl
    mono = freq == 1000000000
    seen = 0
    for i in sorted(cycles):
        ma, mb, ta, tb, r1, r2 = brackets[i]
        c, fmono = cycles[i]
        if fmono != ma:
            fail("%s: event %d carries mono %d, the program printed %d" % (kind, i, fmono, ma))
            continue
        lo, hi, what = (ma, mb, "CLOCK_MONOTONIC") if mono else (ta, tb, "TSC")
        if not lo <= c <= hi:
            fail("%s: event %d at %d cycles, outside the program's %s reads around it [%d, %d]" %
                 (kind, i, c, what, lo, hi))
        # babeltrace2 converts cycles to ns rounding down, in parts: 1 ns of slack
        want = off_s * 1000000000 + (off + c) * 1000000000 // freq
        if i not in seconds or abs(seconds[i] - want) > 1:
            fail("%s: event %d: babeltrace2 says %s ns from the Epoch, the declared clock %d" %
                 (kind, i, seconds.get(i), want))
        elif not r1 - ORIGIN_NS <= seconds[i] <= r2 + ORIGIN_NS:
            fail("%s: event %d at %d ns from the Epoch, more than %d ns out of the program's "
                 "CLOCK_REALTIME reads around it [%d, %d]" % (kind, i, seconds[i], ORIGIN_NS, r1, r2))
        seen += 1
    if not mono and len(cycles) > 1:
        first, last = brackets[min(cycles)], brackets[max(cycles)]
        ticks = last[2] - first[3]  # from the first event's last TSC read to the last's first
        rate_lo = ticks * 1000000000 / (last[1] - first[0])
        rate_hi = ticks * 1000000000 / (last[0] - first[1])
        if not rate_lo * (1 - RATE_PPM / 1e6) <= freq <= rate_hi * (1 + RATE_PPM / 1e6):
            fail("%s: declared freq %d Hz, the TSC ran at %.0f..%.0f Hz against CLOCK_MONOTONIC" %
                 (kind, freq, rate_lo, rate_hi))
        print("%s: the TSC ran at %.0f..%.0f Hz, declared %d" % (kind, rate_lo, rate_hi, freq))
    return seen


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
            i, *reads = (int(x) for x in ln.split())
            brackets[i] = tuple(reads)
        metas = []
        for root, _, files in os.walk(e.out):
            if "metadata" in files:
                with open(os.path.join(root, "metadata"), errors="replace") as f:
                    metas.append(f.read())
        decls = clock_decls(metas)
        freqs = {d[0] for d in decls}
        tsc = kind == "default" and tsc_invariant()
        if len(decls) != 1 or (next(iter(freqs)) != 1000000000) == (not tsc):
            fail("%s: clocks %s (freq, offset_s, offset), expected one, %s" %
                 (kind, sorted(decls), "the TSC's" if tsc else "at 1 GHz"))
            return
        out = {}
        for opt in ("--clock-seconds", "--clock-cycles"):
            r = subprocess.run(["babeltrace2", opt, e.out], capture_output=True, text=True)
            v = subprocess.run([trawltest.TRAWL, "view", opt, e.out], capture_output=True, text=True, env=e.env)
            if r.returncode != 0 or r.stderr.strip():
                fail("%s: babeltrace2 %s: exit %d: %s" % (kind, opt, r.returncode, r.stderr.strip()[-300:]))
            if v.returncode != 0 or v.stdout != r.stdout:
                fail("%s: trawl view %s differs from babeltrace2's (exit %d)" % (kind, opt, v.returncode))
            out[opt] = r.stdout.splitlines()
        seconds, cycles = {}, {}
        for ln in out["--clock-seconds"]:
            m = SEC.match(ln)
            if m:
                seconds[int(m.group(3))] = int(m.group(1)) * 1000000000 + int(m.group(2))
        for ln in out["--clock-cycles"]:
            m = CYC.match(ln)
            if m:
                cycles[int(m.group(2))] = (int(m.group(1)), int(m.group(3)))
        if set(cycles) - set(brackets):
            fail("%s: events the program did not print: %s" % (kind, sorted(set(cycles) - set(brackets))))
            return
        seen = check_events(kind, next(iter(decls)), brackets, cycles, seconds)
        if seen != N:
            fail("%s: %d of %d events read" % (kind, seen, N))
        print("%s: clock (freq, offset_s, offset) %s, %d events within their brackets" %
              (kind, next(iter(decls)), seen))
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
