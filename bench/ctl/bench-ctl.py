#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench/ctl: times each control command of trawl and of LTTng 2.13 side by side,
in one run, on the same machine, and prints medians and the ratio trawl/LTTng.

    bench/ctl/bench-ctl.py [--build DIR] [--rounds N]

Two scenarios, each command timed as the wall time of the whole process
(fork+exec included, as a user sees it):
  no app:   create, enable-event -u, start, list, stop, destroy
  one app:  the same with one traced program emitting ~1 M events/s between
            start and stop (bench-ctl-app for trawl; the same source built
            against LTTng-UST for lttng), so that stop flushes real data.
Targets (issue 4): create, enable-event, start <= 5 ms; stop <= 20 ms;
destroy <= 20 ms. Each tool runs with private state folders; the lttng
session daemon is started here (--no-kernel) and stopped at the end.
"""
import argparse, os, shutil, signal, statistics, subprocess, sys, tempfile, time

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument("--build", default=os.path.join(top, "build"))
ap.add_argument("--rounds", type=int, default=5)
args = ap.parse_args()
bindir = os.path.join(args.build, "bin")
trawl = os.path.join(bindir, "trawl")
if not os.access(trawl, os.X_OK):
    sys.exit(f"bench-ctl: no {trawl}: build first (cmake --build {args.build})")
lttng = shutil.which("lttng")
tmp = tempfile.mkdtemp(prefix="bench-ctl.")
os.chmod(tmp, 0o755)

tenv = dict(os.environ, HOME=f"{tmp}/trawl-home", TRAWL_RUNTIME_DIR=f"{tmp}/trawl-run",
            TRAWL_ROOT_RUNTIME_DIR=f"{tmp}/trawl-rootrun")
lenv = dict(os.environ, HOME=f"{tmp}/lttng-home", LTTNG_HOME=f"{tmp}/lttng-home")
for d in (tenv["HOME"], lenv["HOME"]):
    os.makedirs(d, exist_ok=True)

def run(cmd, env):
    t0 = time.perf_counter_ns()
    p = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = (time.perf_counter_ns() - t0) / 1e6
    if p.returncode:
        print(f"bench-ctl: {' '.join(cmd)} failed: {p.stderr.decode().strip()}", file=sys.stderr)
    return dt

# Apps.
tapp = os.path.join(bindir, "bench-ctl-app")
lapp = os.path.join(tmp, "lttng-app")
if lttng:
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(["gcc", "-O2", "-DBENCH_NO_TRACEF", "-I", here, os.path.join(here, "app.c"), "-o", lapp,
                        "-llttng-ust", "-ldl"], capture_output=True)
    if r.returncode:
        print("bench-ctl: cannot build the LTTng-UST app:", r.stderr.decode()[:300], file=sys.stderr)
        lapp = None

procs = []
ours_lttng = None
if lttng:
    ours_lttng = subprocess.Popen(["lttng-sessiond", "--no-kernel"], env=lenv,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)

def scenario(tool, with_app, rounds):
    exe, env, app = (trawl, tenv, tapp) if tool == "trawl" else (lttng, lenv, lapp)
    if with_app and not (app and os.access(app, os.X_OK)):
        return None
    times = {k: [] for k in ("create", "enable-event", "start", "list", "stop", "destroy")}
    for i in range(rounds):
        name = f"b{i}{'a' if with_app else 'n'}"
        out = f"{tmp}/{tool}-traces/{name}"
        times["create"].append(run([exe, "create", name, "-o", out], env))
        times["enable-event"].append(run([exe, "enable-event", "-u", "benchctl:ev"], env))
        p = None
        if with_app:
            p = subprocess.Popen([app], env=env)
            time.sleep(0.3)  # let it register
        times["start"].append(run([exe, "start"], env))
        time.sleep(0.3)
        times["list"].append(run([exe, "list"], env))
        times["stop"].append(run([exe, "stop"], env))
        times["destroy"].append(run([exe, "destroy"], env))
        if p:
            p.kill()
            p.wait()
    return {k: statistics.median(v) for k, v in times.items()}

try:
    # The first command starts trawl's daemon (reported apart); lttng's was
    # started above (its auto-start waits for the daemon for about a second).
    cold = run([trawl, "list"], tenv)
    if lttng:
        run([lttng, "list"], lenv)
    results = []
    for with_app in (False, True):
        t = scenario("trawl", with_app, args.rounds)
        l = scenario("lttng", with_app, args.rounds) if lttng else None
        results.append((with_app, t, l))
    targets = {"create": 5, "enable-event": 5, "start": 5, "list": 5, "stop": 20, "destroy": 20}
    print(f"bench-ctl: median wall time of each command over {args.rounds} rounds (ms)")
    print(f"first trawl command, starting trawl-sessiond: {cold:.2f} ms")
    for with_app, t, l in results:
        print(f"\n{'one traced app' if with_app else 'no app'}:")
        print(f"  {'command':<14}{'trawl':>9}{'lttng':>9}{'ratio':>8}  target")
        for k in ("create", "enable-event", "start", "list", "stop", "destroy"):
            tv = t[k] if t else float("nan")
            lv = l[k] if l else float("nan")
            ratio = tv / lv if l and lv else float("nan")
            ok = "ok" if t and tv <= targets[k] else ("-" if not t else "MISSED")
            print(f"  {k:<14}{tv:9.2f}{lv:9.2f}{ratio:8.3f}  <= {targets[k]} ms {ok}")
finally:
    for f in ("trawl-rootrun", "trawl-run"):
        try:
            with open(f"{tmp}/{f}/sessiond.lock") as fh:
                os.kill(int(fh.read().strip()), signal.SIGTERM)
        except (OSError, ValueError):
            pass
    if ours_lttng:
        ours_lttng.terminate()
        try:
            ours_lttng.wait(5)
        except subprocess.TimeoutExpired:
            ours_lttng.kill()
    time.sleep(0.3)
    shutil.rmtree(tmp, ignore_errors=True)
