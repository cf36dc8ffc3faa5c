# SPDX-License-Identifier: MIT
"""A kernel + user-space session in the root daemon: a traced app's
user-space events interleave with its syscalls in the right order
(kmix:before < syscall_entry_lseek < syscall_exit_lseek < kmix:after), in bt2
(one clock for both domains) and in `trawl view`. The user-space trace is on
the TSC where it is invariant (its clock's freq not 1 GHz, the kernel's
CLOCK_MONOTONIC at 1 GHz: they merge by their declared offsets)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
app = os.path.join(ktest.BIN, "kust")
d = ktest.tmpdir()
env = ktest.cli_setup(d, ("kust",))
trawl = ktest.trawl
daemon_pid = ktest.daemon_pid


try:
    out = os.path.join(d, "mix")
    trawl("create", "mix", "--output", out)
    trawl("enable-event", "--userspace", "kmix:*")
    trawl("enable-event", "--kernel", "--syscall", "lseek")
    trawl("add-context", "--kernel", "-t", "tid")
    trawl("start")
    p = subprocess.run([app], capture_output=True, text=True, env=env, timeout=30)
    pid = int(p.stdout.split("pid=")[1].split()[0])
    trawl("stop")
    # each trace read on its own, then merged by time (the clock is shared)
    ust_dirs = [r for r, _, files in os.walk(os.path.join(out, "ust")) if "metadata" in files]
    evs = ktest.events(os.path.join(out, "kernel"))[0]
    for u in ust_dirs:
        evs += ktest.events(u)[0]
    evs.sort(key=lambda e: e["ts"])
    mine = [e for e in evs if e["name"].startswith("kmix:") or
            (e["name"].endswith("_lseek") and e["ctx"].get("tid") == pid)]
    names = [e["name"] for e in mine]
    # The app's first events are traced: its constructor waits for the
    # daemon's registration-done (src/ust/agent.c).
    want = ["kmix:before", "syscall_entry_lseek", "syscall_exit_lseek", "kmix:after"] * 5
    assert names == want, names
    for i in range(5):
        b, en, ex, a = mine[4 * i:4 * i + 4]
        assert b["fields"]["n"] == i and a["fields"]["n"] == i
        assert en["fields"]["offset"] == i and en["fields"]["fd"] == 1001
        assert b["ts"] < en["ts"] < ex["ts"] < a["ts"]
    def clock_uuid(meta):
        with open(meta, errors="replace") as f:
            t = f.read()
        c = t[t.find("clock {"):]
        return c[c.find("uuid"):].split('"')[1] if "uuid" in c[:c.find("};")] else None
    uuids = {clock_uuid(os.path.join(out, "kernel", "metadata"))} | \
        {clock_uuid(os.path.join(u, "metadata")) for u in ust_dirs}
    # babeltrace2 merges traces only when their (non-absolute) clocks share a
    # uuid: every domain's clock carries the boot id.
    assert len(uuids) == 1, "clock uuids differ between domains: %s" % uuids
    def clock_freq(meta):
        with open(meta, errors="replace") as f:
            t = f.read()
        c = t[t.find("clock {"):]
        return int(c[c.find("freq"):].split("=")[1].split(";")[0])

    def tsc_invariant():  # src/sessiond/ust-clock.c's rule
        with open("/proc/cpuinfo") as f:
            flags = set(w for ln in f if ln.startswith("flags") for w in ln.split(":", 1)[1].split())
        try:
            with open("/sys/devices/system/clocksource/clocksource0/available_clocksource") as f:
                srcs = f.read().split()
        except OSError:
            srcs = []
        return (os.uname().machine == "x86_64" and {"constant_tsc", "nonstop_tsc"} <= flags and
                "tsc" in srcs)
    assert clock_freq(os.path.join(out, "kernel", "metadata")) == 1000000000
    ufreqs = {clock_freq(os.path.join(u, "metadata")) for u in ust_dirs}
    if os.environ.get("TRAWL_UST_CLOCK") != "monotonic" and tsc_invariant():
        assert 1000000000 not in ufreqs, "user-space clock not the TSC: %s" % ufreqs
    print("user-space clock freq %s, kernel 1000000000" % sorted(ufreqs))
    lines, err = ktest.babeltrace_clean(out)
    assert err == "", err
    view = trawl("view").stdout.splitlines()
    # Only this app's lseeks (other tests may run at the same time).
    order = [l for l in view if "kmix:" in l or ("_lseek" in l and "tid = %d }" % pid in l)]
    kinds = [("before" if "kmix:before" in l else "after" if "kmix:after" in l else
              "entry" if "entry" in l else "exit") for l in order]
    assert kinds == ["before", "entry", "exit", "after"] * 5, kinds
    trawl("destroy")
    print("ok")
finally:
    ktest.stop_daemon()
