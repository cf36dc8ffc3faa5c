#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/triggers: how long a trigger takes from the user-space event that
fires it to its action (issue 16's "triggers firing on real events within a
stated latency"). Not a pass/fail test: it prints the figures.

    bench/triggers/bench-triggers.py [--build DIR] [--runs N] [--events K] [--gap-ms MS]

With notify, the time is from the event to its notification's receipt by a
program waiting on a notification channel (tests/ust/trig-notify.c,
<trawl/ctl.h>), which measures it.

Each run starts a private daemon (its own HOME and runtime folders), makes
a snapshot session "fr" recording trig:*, and one trigger on trig:error,
alternately taking a snapshot of "fr" (snapshot-session) and stopping a
session that does not exist (stop-session: the bare cost of an action).
The test app (tests/ust/app-trig.c, `pace K MS`) then emits K trig:error,
MS ms apart. The daemon logs, for each action it runs, the time from the
event's timestamp (CLOCK_MONOTONIC, taken in the app by the probe) to the
end of the action's command (for a snapshot: the record begun, the
consumer's copy to disk still to come); this script collects those lines
from sessiond.log. The log allows a peer a burst of 20 lines then one a
second, hence the short runs.
"""
import argparse, os, re, shutil, signal, statistics, subprocess, sys, tempfile, time, glob

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument("--build", default=os.path.join(top, "build"))
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--events", type=int, default=8)
ap.add_argument("--gap-ms", type=int, default=100)
args = ap.parse_args()
bindir = os.path.join(args.build, "bin")
trawl = os.path.join(bindir, "trawl")
app = os.path.join(bindir, "ust-app-trig")
for p in (trawl, app):
    if not os.access(p, os.X_OK):
        sys.exit(f"bench-triggers: no {p}: build first (cmake --build {args.build})")

LINE = re.compile(r"trigger '(\S+)' of uid \d+: (\S+) '\S*' (ran|failed) (\d+) us after the event")
lat = {"snapshot-session": [], "stop-session": [], "notify": []}
notify = os.path.join(bindir, "ust-trig-notify")
kinds = ["stop-session", "snapshot-session"] + (["notify"] if os.access(notify, os.X_OK) else [])
for run in range(len(kinds) * args.runs):
    kind = kinds[run % len(kinds)]
    tmp = tempfile.mkdtemp(prefix="bench-triggers.")
    os.chmod(tmp, 0o755)
    env = dict(os.environ, HOME=f"{tmp}/home", TRAWL_RUNTIME_DIR=f"{tmp}/run",
               TRAWL_ROOT_RUNTIME_DIR=f"{tmp}/rootrun")
    os.makedirs(env["HOME"])

    def t(*a):
        subprocess.run([trawl] + list(a), env=env, check=True, capture_output=True, timeout=60)
    try:
        t("create", "fr", "--snapshot", "-o", f"{tmp}/snap")
        t("enable-event", "-u", "trig:*", "-s", "fr")
        t("start", "fr")
        erm = ["--condition", "event-rule-matches", "--type=user", "--name=trig:error"]
        if kind == "snapshot-session":
            t("add-trigger", "--name", "snap", *erm, "--action", "snapshot-session", "fr")
        elif kind == "stop-session":
            t("add-trigger", "--name", "bare", *erm, "--action", "stop-session", "nosuch")
        else:
            t("add-trigger", "--name", "note", *erm, "--capture", "code", "--action", "notify")
            w = subprocess.Popen([notify, str(args.events), "60000", "note"], env=env,
                                 stdout=subprocess.PIPE, text=True)
            w.stdout.readline()  # ready
        subprocess.run([app, "pace", str(args.events), str(args.gap_ms)], env=env, check=True,
                       timeout=120)
        if kind == "notify":
            out, _ = w.communicate(timeout=120)
            for line in out.splitlines():
                m = re.search(r"latency_us=(\d+)", line)
                if m:
                    lat["notify"].append(int(m.group(1)))
        time.sleep(0.5)
        for log in glob.glob(f"{tmp}/*/sessiond.log"):  # root's daemon, or the user's
            for line in open(log, errors="replace"):
                m = LINE.search(line)
                if m:
                    lat[m.group(2)].append(int(m.group(4)))
    finally:
        subprocess.run([trawl, "destroy", "--all"], env=env, capture_output=True, timeout=60)
        for lock in glob.glob(tmp + "/*/sessiond.lock"):
            try:
                os.kill(int(open(lock).read().strip()), signal.SIGTERM)
            except (ValueError, OSError):
                pass
        time.sleep(0.2)
        shutil.rmtree(tmp, ignore_errors=True)

print(f"event -> action, {args.runs} runs per action x {args.events} trig:error, {args.gap_ms} ms apart "
      f"(us: median / p90 / max, samples)")
for k, v in lat.items():
    if not v:
        print(f"  {k:17s} no samples")
        continue
    v.sort()
    p90 = v[min(len(v) - 1, int(len(v) * 0.9))]
    print(f"  {k:17s} {statistics.median(v):8.0f} / {p90:6d} / {v[-1]:6d}   n={len(v)}")
