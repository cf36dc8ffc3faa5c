# SPDX-License-Identifier: MIT
"""perf counter contexts on kernel events (`add-context -k -t perf:cpu:X`).

1. Through the root daemon and the CLI: a session with sched and syscall
   events and -t pid -t tid -t perf:cpu:page-fault -t perf:cpu:context-switches;
   kperfpages, pinned to one CPU, touches N fresh pages and sleeps between two
   lseek markers. bt2 checks that each CPU's counter values never decrease,
   that the page-fault delta between the markers is >= N and the
   context-switch delta >= 1, and the events' own fields; babeltrace2 reads
   the trace without a warning and `trawl view` prints the same lines.
   Hardware counters (no PMU here) and unknown names fail at add-context
   with one line and a non-zero exit; a second start/stop continues the
   counters; a filter applies; snapshot sessions and overwrite channels
   refuse perf counters.
2. Through trawl-ktrace with every syscall (--syscall '*': 720 tracepoints,
   so several perf groups per CPU): the same deltas and monotonic values.
3. Lost samples: a flood into an 8 KiB ring; recorded + counted lost >= made.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
d = ktest.tmpdir()
env = ktest.cli_setup(d, ("kperfpages", "trawl-ktrace"))
trawl = ktest.trawl
try:
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        int(f.read())
except OSError:
    ktest.skip("no perf_event_open on this kernel")

NPAGES = 64
CPU = os.cpu_count() - 1
PF, CS = "perf_cpu_page_fault", "perf_cpu_context_switches"


def run_pages():
    p = subprocess.run([os.path.join(ktest.BIN, "kperfpages"), str(CPU), str(NPAGES)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return int(p.stdout.split("pid=")[1].split()[0])


def check_counters(evs, pid, label):
    """Monotonic counters per CPU; the deltas between kperfpages' markers."""
    for cpu in sorted(set(e["cpu"] for e in evs)):
        mine = [e for e in evs if e["cpu"] == cpu]  # bt2 gives each stream in time order
        for key in (PF, CS):
            vals = [int(e["ctx"][key]) for e in mine]
            bad = [(a, b) for a, b in zip(vals, vals[1:]) if b < a]
            assert not bad, (label, cpu, key, bad[:5])
    ent = [e for e in evs if e["name"] == "syscall_entry_lseek" and e["ctx"]["tid"] == pid]
    ext = [e for e in evs if e["name"] == "syscall_exit_lseek" and e["ctx"]["tid"] == pid]
    assert [e["fields"]["fd"] for e in ent] == [3001, 3002], (label, ent)
    assert all(e["fields"]["offset"] == NPAGES and e["fields"]["whence"] == 0 for e in ent), ent
    assert [e["fields"]["ret"] for e in ext] == [-9, -9], (label, ext)
    assert all(e["cpu"] == CPU for e in ent + ext), (label, [e["cpu"] for e in ent + ext])
    a, b = ent
    assert a["ts"] < ext[0]["ts"] < b["ts"] < ext[1]["ts"], label
    dpf = int(b["ctx"][PF]) - int(a["ctx"][PF])
    dcs = int(b["ctx"][CS]) - int(a["ctx"][CS])
    assert dpf >= NPAGES, (label, "page faults between the markers", dpf)
    assert dcs >= 1, (label, "context switches between the markers", dcs)
    # kperfpages slept between the markers: it switched out, on its CPU
    sw = [e for e in evs if e["name"] == "sched_switch" and e["fields"]["prev_tid"] == pid
          and a["ts"] < e["ts"] < b["ts"]]
    assert sw and all(e["cpu"] == CPU and str(e["fields"]["prev_comm"]) == "kperfpages"
                      and e["ctx"]["tid"] == pid for e in sw), (label, sw)
    print("%s: page faults +%d, context switches +%d between the markers" % (label, dpf, dcs))


try:
    # 1. daemon + CLI
    out = os.path.join(d, "s1")
    trawl("create", "perf1", "--output", out)
    # Only kperfpages' switches: every switch of a loaded machine (30,065 events at
    # load 73 under ASan) took bt2 in Python 28 s to read.
    trawl("enable-event", "--kernel", "sched_switch", "--filter", 'prev_comm == "kperfpages"')
    trawl("enable-event", "--kernel", "sched_process_exec")
    trawl("enable-event", "--kernel", "--syscall", "lseek")
    bad_names = [("perf:cpu:no-such-counter", "no-such-counter")]
    # Hardware counters fail only where there is no PMU (as here); LTTng's
    # cache-counter names reach the kernel backend, which says so too.
    if not os.path.exists("/sys/bus/event_source/devices/cpu"):
        bad_names += [("perf:cpu:cpu-cycles", "perf counter 'cpu-cycles' is not available on "
                       "this machine: no hardware PMU"),
                      ("perf:cpu:instructions", "no hardware PMU"),
                      ("perf:cpu:L1-dcache-loads", "no hardware PMU")]
    for bad, why in bad_names:
        r = trawl("add-context", "--kernel", "-t", bad, check=False)
        assert r.returncode != 0, (bad, r.stdout)
        assert r.stderr.strip().count("\n") == 0 and why in r.stderr, (bad, r.stderr)
        assert "unknown" in r.stderr or "not available" in r.stderr, (bad, r.stderr)
    trawl("add-context", "--kernel", "-t", "pid", "-t", "tid", "-t", "perf:cpu:page-fault",
          "-t", "perf:cpu:context-switches")
    trawl("start")
    pid = run_pages()
    trawl("stop")
    # a perf channel's events are fixed once its consumer opened them
    r = trawl("enable-event", "--kernel", "sched_process_exit", check=False)
    assert r.returncode != 0 and "fixed when the session first started" in r.stderr, r.stderr
    # a second start/stop: the counters go on from where they stopped
    trawl("start")
    pid_again = run_pages()
    trawl("stop")
    evs, lost = ktest.events(out)
    assert lost == 0, lost
    assert evs and all(set(e["ctx"]) == {"pid", "tid", PF, CS} for e in evs), evs[:1]
    assert all(e["ctx"]["pid"] == pid for e in evs if e["ctx"]["tid"] == pid)
    exe = [e for e in evs if e["name"] == "sched_process_exec" and e["fields"]["tid"] == pid]
    assert len(exe) == 1 and str(exe[0]["fields"]["filename"]).endswith("/kperfpages"), exe
    check_counters(evs, pid, "daemon")
    check_counters(evs, pid_again, "daemon, after a stop and a start")
    lines, err = ktest.babeltrace_clean(out)
    assert err == "", err
    assert any("perf_cpu_page_fault = " in l and "fd = 3001" in l for l in lines), lines[:5]
    view = trawl("view")
    assert view.stdout.splitlines() == lines, (view.stdout[:500], lines[:3])
    trawl("destroy")
    # the instance's filters apply to the perf events too
    trawl("create", "perffilt", "--output", os.path.join(d, "filt"))
    trawl("enable-event", "--kernel", "sched_switch", "--filter", 'prev_comm == "kperfpages"')
    trawl("add-context", "--kernel", "-t", "perf:cpu:cs")
    trawl("start")
    run_pages()
    trawl("stop")
    fe, _ = ktest.events(os.path.join(d, "filt"))
    assert fe and all(e["name"] == "sched_switch" and str(e["fields"]["prev_comm"]) == "kperfpages"
                      for e in fe), [(e["name"], e["fields"].get("prev_comm")) for e in fe][:10]
    trawl("destroy")
    # perf counters need a discard-mode channel: overwrite channels and snapshots refuse them
    trawl("create", "perfsnap", "--snapshot", "--output", os.path.join(d, "snap"))
    r = trawl("add-context", "--kernel", "-t", "perf:cpu:page-fault", check=False)
    assert r.returncode != 0 and "discard-mode channel" in r.stderr, r.stderr
    trawl("destroy")
    trawl("create", "perfow", "--output", os.path.join(d, "ow"))
    trawl("enable-channel", "--kernel", "--overwrite", "ring")
    r = trawl("add-context", "--kernel", "-c", "ring", "-t", "perf:cpu:cs", check=False)
    assert r.returncode != 0 and "discard-mode channel" in r.stderr, r.stderr
    trawl("destroy")

    # 2. trawl-ktrace, every syscall: several perf groups per CPU
    out2 = os.path.join(d, "s2")
    # Only kperfpages' events (COMM, ftrace's filter on the current task's
    # name): every syscall of a loaded machine (66,022 events at load 23) took
    # bt2 in Python 60 s to read, and the test timed out.
    p = ktest.ktrace(["-o", out2, "-s", "*", "-e", "sched_switch", "--filter", 'COMM == "kperfpages"',
                      "-x", "tid,perf:cpu:page-fault,perf:cpu:context-switches", "--",
                      os.path.join(ktest.BIN, "kperfpages"), str(CPU), str(NPAGES)])
    pid2 = int(p.stdout.split("pid=")[1].split()[0])
    evs2, lost2 = ktest.events(out2)
    check_counters(evs2, pid2, "ktrace --syscall '*'")
    assert ktest.babeltrace_clean(out2)[1] == "" or lost2, "babeltrace2 warned"

    # 3. lost samples: a 8 KiB ring per CPU cannot hold a getpgid() flood; every
    # sample is either in the trace or counted (PERF_RECORD_LOST -> events_discarded).
    # The flood calls getpgid(BASE + i) and the filter keeps those only: another
    # getpgid flood on the machine (kernel-lost, another build tree) stays out.
    NFLOOD = 30000  # lost for sure in an 8 KiB ring, few for bt2 in Python to read
    BASE = 1000000000 + (os.getpid() % 10000) * NFLOOD
    out3 = os.path.join(d, "s3")
    p = ktest.ktrace(["-o", out3, "--buffer-kb", "8", "-e", "syscalls:sys_enter_getpgid",
                      "--filter", "pid >= %d && pid < %d" % (BASE, BASE + NFLOOD),
                      "-x", "tid,perf:cpu:cs", "--",
                      os.path.join(ktest.BIN, "ksyscalls"), "flood", str(NFLOOD), str(BASE)])
    pid3 = int(p.stdout.split("pid=")[1].split()[0])
    got, lost3 = ktest.count_tid(out3, pid3)
    print("flood: %d of %d events recorded, %d counted lost" % (got, NFLOOD, lost3))
    assert lost3 > 0 and got < NFLOOD, (got, lost3)
    assert got + lost3 >= NFLOOD, (got, lost3)
    lines, err = ktest.babeltrace_clean(out3)
    assert len(lines) == got, (len(lines), got)  # nothing but the flood's entries
    assert all("perf_cpu_cs = " in l and "syscall_entry_getpgid" in l for l in lines[:10]), lines[:2]
    for l in err.splitlines():
        assert l.startswith("WARNING: Tracer discarded "), l
    print("ok: %d + %d + %d events" % (len(evs), len(evs2), got))
finally:
    ktest.stop_daemon()
