# SPDX-License-Identifier: MIT
"""The `trawl` Python module (src/python) against real daemons.

run.sh gives this process a private HOME and runtime folders, so the module
starts its own daemons (root's when run as root, which can trace the
kernel). Every trace is read back with babeltrace2's bindings (bt2).
"""
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

import pytest

import bt2
import trawl

BIN = os.environ["TRAWL_BIN_DIR"]
APP = os.path.join(BIN, "ust-app-all")


@pytest.fixture(scope="module")
def client():
    c = trawl.Client()
    yield c
    c.destroy_all()
    c.close()


@pytest.fixture
def out(tmp_path):
    return str(tmp_path / "trace")


def read_events(path):
    """[(name, payload dict, common context dict)], discarded events."""
    evs, discarded = [], 0
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._EventMessageConst:
            ev = m.event
            p = ev.payload_field
            c = ev.common_context_field
            evs.append((ev.name, {k: p[k] for k in p.keys()} if p is not None else {},
                        {k: c[k] for k in c.keys()} if c is not None else {}))
        elif type(m) is bt2._DiscardedEventsMessageConst:
            discarded += m.count or 0
    return evs, discarded


def run_app(nevents, wait_ms=20000):
    """ust-app-all: 1 thread of @nevents tall:seq, once its events are
    enabled (or after @wait_ms); returns its pid once it exited."""
    p = subprocess.Popen([APP, "1", str(nevents), str(wait_ms)], stdout=subprocess.DEVNULL)
    assert p.wait(timeout=120) == 0
    return p.pid


def test_version_and_no_daemon(tmp_path, monkeypatch):
    assert trawl.__version__ == trawl._ctl.version()
    # Nothing runs in these folders: spawn=False must fail, not start one.
    monkeypatch.setenv("TRAWL_RUNTIME_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("TRAWL_ROOT_RUNTIME_DIR", str(tmp_path / "noneroot"))
    with pytest.raises(trawl.Error) as e:
        trawl.Client(spawn=False)
    assert e.value.errno == 107  # ENOTCONN
    assert isinstance(e.value, OSError)


def test_session_lifecycle(client, out):
    s = client.create_session("life", output=out)
    assert s.name == "life"
    info = s.info()
    assert info.session.output == out and not info.session.active
    assert not info.session.snapshot and info.session.live_timer_us == 0
    assert "life" in [x.name for x in client.sessions()]

    with pytest.raises(trawl.Error) as e:
        client.create_session("life", output=out)
    assert e.value.errno == 17 and "life" in e.value.strerror  # EEXIST, the daemon's line

    s.enable_channel("ch", subbuf_size=1 << 16, num_subbuf=4, overwrite=False,
                     switch_timer_us=0, buffers="per-pid", tracefile_size=1 << 18,
                     tracefile_count=3)
    s.enable_channel("small", buffers="per-pid", tracefile_size=4096)  # raised to the sub-buffer size, as LTTng
    small = s.channel("small").info()
    assert (small.tracefile_size, small.tracefile_count) == (small.subbuf_size, 0)
    s.enable_event("tall:*", channel="ch", filter="n >= 0", loglevel="TRACE_INFO",
                   loglevel_type="single")
    s.channel("ch").add_context("vtid")
    ch = s.channel("ch").info()
    assert (ch.subbuf_size, ch.num_subbuf, ch.buffers, ch.overwrite) == (65536, 4, "per-pid",
                                                                         False)
    assert (ch.tracefile_size, ch.tracefile_count) == (1 << 18, 3)
    assert ch.contexts == ["vtid"]
    assert ch.blocking_timeout_us == 0

    # --blocking-timeout: µs, or -1 / "inf" for without end; user space, discard mode only.
    s.enable_channel("blk", blocking_timeout_us=1500, buffers="per-pid")
    s.enable_channel("blkinf", blocking_timeout_us="inf", buffers="per-pid")
    assert s.channel("blk").info().blocking_timeout_us == 1500
    assert s.channel("blkinf").info().blocking_timeout_us == -1
    with pytest.raises(ValueError):
        s.enable_channel("bad", blocking_timeout_us=-2)
    # an overwrite channel with a timeout: accepted, as LTTng 2.13's daemon
    # does (its writers never wait; `trawl enable-channel` refuses it, as lttng)
    s.enable_channel("owblk", blocking_timeout_us=10, overwrite=True, buffers="per-pid")
    assert s.channel("owblk").info().overwrite
    [ev] = ch.events
    assert (ev.name, ev.kind, ev.filter, ev.loglevel_type, ev.loglevel) == \
        ("tall:*", "tracepoint", "n >= 0", "single", 6)
    assert trawl.loglevel_name(ev.loglevel) == "TRACE_INFO"

    s.disable_event("tall:*", channel="ch")
    assert not s.channel("ch").info().events[0].enabled
    s.channel("ch").disable()
    assert not s.channel("ch").info().enabled

    s.destroy()
    assert "life" not in [x.name for x in client.sessions()]
    with pytest.raises(trawl.Error) as e:
        s.start()
    assert e.value.errno == 2  # ENOENT


def test_agent_domains(client, tmp_path):
    s = client.create_session("agents", output=str(tmp_path / "t"))
    s.enable_event("app.db", domain="python", loglevel="WARNING")
    s.enable_event("*", domain="jul")
    s.disable_event("app.db", domain="python")
    info = s.info()
    assert "lttng_python_channel" in info.domains["ust"].channels
    assert info.domains["ust"].channels["lttng_python_channel"].events == []
    py = info.domains["python"].events
    assert [(e.name, e.enabled, e.loglevel, e.filter) for e in py] == [
        ("app.db", False, 30, '(logger_name == "app.db") && (int_loglevel >= 30)')]
    assert [e.name for e in info.domains["jul"].events] == ["*"]
    s.destroy()


def test_bad_arguments(client):
    with pytest.raises(ValueError):
        client.session("x").enable_event("a", domain="cobol")
    with pytest.raises(ValueError):
        client.session("x").enable_event("a", domain="jul", loglevel="TRACE_INFO")
    with pytest.raises(ValueError):
        client.session("x").enable_event("a", loglevel="LOUD")
    with pytest.raises(ValueError):
        client.session("x").track("pgid", 1)
    with pytest.raises(trawl.Error) as e:
        client.create_session("n" * 300)
    assert e.value.errno == 36  # ENAMETOOLONG
    with pytest.raises(trawl.Error) as e:
        client.create_session("bad/name")
    assert e.value.errno == 22  # EINVAL


def test_ust_trace(client, out):
    """Events of a real app, read back with babeltrace2."""
    s = client.create_session("ust", output=out)
    s.enable_event("tall:seq")
    s.add_context("vpid")
    s.start()
    pid = run_app(250)
    s.stop()
    info = s.info()
    assert info.domains["ust"].consumer_alive and info.domains["ust"].events_discarded == 0
    s.destroy()
    evs, discarded = read_events(out)
    seq = [e for e in evs if e[0] == "tall:seq"]
    assert discarded == 0
    assert [int(e[1]["n"]) for e in seq] == list(range(250))
    assert {int(e[2]["vpid"]) for e in seq} == {pid}


def test_exclusions(client, out):
    """A '*' rule that leaves one event out (enable-event --exclude)."""
    s = client.create_session("excl", output=out)
    s.enable_event("tall:*", exclude=["tall:seq", "tall:nothing*"])
    [ev] = s.channel("channel0").info().events
    assert ev.exclusions == ["tall:seq", "tall:nothing*"]
    with pytest.raises(trawl.Error) as e:
        s.enable_event("tall:seq", exclude=["x"])
    assert e.value.errno == 22 and "globbing pattern" in e.value.strerror
    with pytest.raises(TypeError):
        s.enable_event("tall:*", exclude="tall:seq")
    s.start()
    run_app(50)
    s.stop()
    s.destroy()
    names = {e[0] for e in read_events(out)[0]}
    assert "tall:seq" not in names and "tall:first" in names


def test_trackers(client, out):
    """A VPID tracker: only the tracked app is recorded."""
    s = client.create_session("trk", output=out)
    s.enable_event("tall:seq")
    s.add_context("vpid")
    s.untrack("vpid", all=True)
    tr = s.info().domains["ust"].trackers["vpid"]
    assert not tr.include_all and tr.values == []
    s.start()
    # Traced by nobody: it waits 1 s for its events, then emits into nothing.
    run_app(10, wait_ms=1000)
    # Start one that waits, then track it: it is set up, and records.
    p = subprocess.Popen([APP, "1", "30", "60000"], stdout=subprocess.DEVNULL)
    s.track("vpid", p.pid)
    assert p.wait(timeout=120) == 0
    tr = s.info().domains["ust"].trackers["vpid"]
    assert tr.values == [p.pid]
    s.stop()
    s.destroy()
    evs, _ = read_events(out)
    seq = [e for e in evs if e[0] == "tall:seq"]
    assert len(seq) == 30 and {int(e[2]["vpid"]) for e in seq} == {p.pid}


def test_snapshot(client, tmp_path):
    s = client.create_session("snap", output=str(tmp_path / "own"), snapshot=True)
    s.enable_channel("ch", overwrite=True)
    s.enable_event("tall:seq", channel="ch")
    [o] = s.snapshot_outputs()
    assert o.name == "snapshot-1" and o.ctrl_url.endswith("/own")
    s.start()
    run_app(40)
    snap = s.snapshot_record()
    assert snap.session == "snap" and snap.seq == 1 and os.path.isdir(snap.path)
    evs, _ = read_events(snap.path)
    assert [int(e[1]["n"]) for e in evs if e[0] == "tall:seq"] == list(range(40))

    # Elsewhere, named, for this record only.
    other = s.snapshot_record(url=str(tmp_path / "other"), name="mine")
    assert other.path.startswith(str(tmp_path / "other") + "/mine-")
    assert len([e for e in read_events(other.path)[0] if e[0] == "tall:seq"]) == 40

    s.snapshot_del_output("snapshot-1")
    assert s.snapshot_outputs() == []
    added = s.snapshot_add_output(str(tmp_path / "added"), name="kept", max_size=1 << 20)
    assert (added.name, added.max_size) == ("kept", 1 << 20)
    assert [x.id for x in s.snapshot_outputs()] == [added.id]
    s.snapshot_del_output(added.id)
    with pytest.raises(trawl.Error):
        s.snapshot_del_output(added.id)
    s.stop()
    s.destroy()


def test_rotation(client, out):
    s = client.create_session("rot", output=out)
    s.enable_event("tall:seq")
    s.enable_rotation(timer_us=3600 * 1000000, size=1 << 30)
    assert [(r.kind, r.value) for r in s.info().rotation_schedules] == \
        [("timer", 3600 * 1000000), ("size", 1 << 30)]
    s.disable_rotation(timer=True, size=True)
    assert s.info().rotation_schedules == []
    s.start()
    run_app(20)
    s.stop()
    r = s.rotate()
    assert r.chunk_id == 0 and r.path.startswith(out + "/archives/")
    evs, _ = read_events(r.path)
    assert [int(e[1]["n"]) for e in evs if e[0] == "tall:seq"] == list(range(20))
    s.destroy()


def test_kernel(client, out):
    if not client.is_root_daemon:
        pytest.skip("the kernel domain needs the root daemon")
    s = client.create_session("k", output=out)
    # the daemon refuses a filter on a probe (LTTng's kernel tracer has none)
    with pytest.raises(trawl.Error) as e:
        s.enable_event("up1", domain="kernel", kind="userspace-probe",
                       target="elf:%s:trawl_test_add" % os.path.join(BIN, "ksyscalls"),
                       filter="a0 == 1")
    assert e.value.errno == 22 and "filter expressions are not supported" in e.value.strerror
    s.enable_event("getppid", domain="kernel", kind="syscall")
    s.add_context("tid", domain="kernel")
    s.start()
    for _ in range(300):
        os.getppid()
    s.stop()
    s.destroy()
    evs, _ = read_events(os.path.join(out, "kernel"))
    mine = [e for e in evs if e[0] == "syscall_entry_getppid"
            and int(e[2].get("tid", -1)) == os.getpid()]
    assert len(mine) == 300


def test_threads(client, out):
    """Calls from several threads share one connection safely (its lock)."""
    import threading
    s = client.create_session("thr", output=out)
    errors = []

    def work(i):
        try:
            for j in range(20):
                s.enable_event("t%d_%d" % (i, j))
                client.sessions()
        except Exception as exc:  # noqa: BLE001 - collected, asserted below
            errors.append(exc)

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []
    assert len(s.channel("channel0").info().events) == 80
    s.destroy()


def test_other_user():
    """A user without rights gets their own daemon and never sees root's sessions."""
    runuser = shutil.which("runuser")
    if os.geteuid() != 0 or not shutil.which("useradd") or not runuser:
        pytest.skip("needs root and useradd to make a user")
    user = "trawlpy%d" % os.getpid()
    subprocess.run(["useradd", "-M", "-s", "/bin/sh", user], check=True)
    home = tempfile.mkdtemp(prefix="trawl-py-user-")
    try:
        pw = pwd.getpwnam(user)
        os.chown(home, pw.pw_uid, pw.pw_gid)
        os.chmod(home, 0o700)
        code = ("import trawl\n"
                "c = trawl.Client()\n"
                "assert not c.is_root_daemon\n"
                "assert [x.name for x in c.sessions()] == []\n"
                "s = c.create_session('mine', output=%r)\n"
                "assert [x.uid for x in c.sessions()] == [%d]\n"
                "s.destroy(); c.quit_daemon(); print('ok')\n" % (home + "/t", pw.pw_uid))
        env = {"PATH": "/usr/bin:/bin", "HOME": home,
               "TRAWL_RUNTIME_DIR": home + "/run",
               "TRAWL_ROOT_RUNTIME_DIR": os.environ["TRAWL_ROOT_RUNTIME_DIR"],
               "PYTHONPATH": os.environ["PYTHONPATH"]}
        r = subprocess.run([runuser, "-u", user, "--", sys.executable, "-c", code],
                           env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
    finally:
        subprocess.run(["pkill", "-u", user], check=False)
        subprocess.run(["userdel", user], check=False)
        shutil.rmtree(home, ignore_errors=True)


def test_shm_path(client, tmp_path):
    """create_session(shm_path=...): the path as given, in the session's
    record; fixed once the session started (LTTng's rule)."""
    shm = str(tmp_path / "shm")
    s = client.create_session("shm1", output=str(tmp_path / "trace"), shm_path=shm)
    try:
        info = [i for i in client.sessions() if i.name == "shm1"][0]
        assert info.shm_path == shm
        s.enable_event("tall:seq")
        s.start()
        with pytest.raises(Exception):
            client._c.set_shm_path("shm1", str(tmp_path / "other"))
        assert [i for i in client.sessions() if i.name == "shm1"][0].shm_path == shm
    finally:
        s.destroy()


def test_triggers_and_notifications(client, out):
    # a snapshot session's small discard-mode channel: never drained, the
    # app's events fill it, and stay until a clear
    s = client.create_session("trg", output=out, snapshot=True)
    ch = s.enable_channel("small", subbuf_size=4096, num_subbuf=4, overwrite=False,
                          monitor_timer_us=50000)
    assert ch.info().monitor_timer_us == 50000
    s.enable_channel("dflt")
    assert s.channel("dflt").info().monitor_timer_us == 1000000
    ch.enable_event("tall:*")
    s.start()
    C, A = trawl.Condition, trawl.Action
    with pytest.raises(ValueError):
        client.add_trigger(C.buffer_usage_high("trg", "small"), A.notify())
    with pytest.raises(ValueError):
        client.add_trigger(C.event_rule_matches(), A("frob"))
    ev = client.add_trigger(C.event_rule_matches("tall:*", exclude=["tall:x", "tall:y"],
                                                 captures=["n", "$ctx.vpid"]),
                            A.notify(), name="ev")
    assert (ev.pattern, ev.exclusions, ev.captures) == ("tall:*", ["tall:x", "tall:y"],
                                                         ["n", "$ctx.vpid"])
    client.remove_trigger("ev")
    with trawl.notifications("full", "seen", timeout=120) as ns:
        full = client.add_trigger(C.buffer_usage_high("trg", "small", ratio=0.5),
                                  A.notify(), name="full")
        assert full.condition == "buffer-usage-high" and full.ratio == 0.5
        assert (full.session, full.channel) == ("trg", "small")
        client.add_trigger(C.event_rule_matches("tall:seq",
                                                captures=["n", "nosuch", "$ctx.vpid"]),
                           A.notify(once_after=5), name="seen")
        client.add_trigger(C.session_consumed_size("trg", 1 << 30),
                           [A.notify(), A.stop_session("trg", every=2)], name="huge")
        got = {t.name: t for t in client.triggers()}
        assert got["huge"].condition == "session-consumed-size"
        assert got["huge"].threshold == 1 << 30
        assert [(a.kind, a.session, a.rate_policy, a.rate_value)
                for a in got["huge"].actions] == [("notify", None, "every", 1),
                                                  ("stop-session", "trg", "every", 2)]
        assert got["seen"].actions[0].rate_policy == "once-after"
        pid = run_app(20000)
        seen = []
        for n in ns:  # blocks until each comes (at most 120 s without one)
            assert isinstance(n, trawl.Notification)
            seen.append((n.trigger, n.condition))
            if n.trigger == "seen":
                # typed: the 5th tall:seq's n (a uint64), a field it lacks, its vpid
                assert n.captures[1:] == ["<unavailable>", str(pid)], n
                assert n.values[1:] == [None, pid] and type(n.values[0]) is int, n
                assert str(n.values[0]) == n.captures[0], n
            if len(seen) == 2:
                break
        assert sorted(seen) == [("full", "buffer-usage-high"), ("seen", "event-rule-matches")]
        # full: once, however many samples saw the buffer full since
        assert ns.receive(timeout=0.5) is None
        assert {t.name: t.occurrences for t in client.triggers()}["full"] == 1
    # closed by the with: iterating ends, receiving is refused
    assert list(ns) == []
    with pytest.raises(ValueError):
        ns.receive(0)
    client.remove_trigger("full")
    assert "full" not in [t.name for t in client.triggers()]
    with pytest.raises(trawl.Error) as e:
        client.remove_trigger("full")
    assert e.value.errno == 2  # ENOENT
    for name in ("seen", "huge"):
        client.remove_trigger(name)
    s.destroy()


def test_notifications_close_from_another_thread():
    import threading

    ns = trawl.notifications("never-registered")
    got = []
    t = threading.Thread(target=lambda: got.extend(ns))
    t.start()
    t.join(0.3)
    assert t.is_alive()  # blocked in the iteration: nothing comes
    ns.close()
    t.join(60)  # ends within a 0.2 s slice; generous on a loaded machine
    assert not t.is_alive() and got == []


def test_probe_rule_checks(client):
    """Kernel probe rules take what `trawl add-trigger --type=kernel:kprobe|
    kernel:uprobe` takes: refused before anything reaches the daemon."""
    C, A = trawl.Condition, trawl.Action
    bad = [
        (C.kprobe(""), "requires a location"),
        (C.event_rule_matches(domain="kernel", kind="userspace-probe"), "requires a location"),
        (C.event_rule_matches("x*", domain="kernel", kind="probe", location="do_sys_openat2"),
         "name pattern"),
        (C.event_rule_matches(domain="kernel", kind="userspace-probe", location="/bin/true:main",
                              filter="a0 == 1"), "filter expressions are not supported"),
        (C.event_rule_matches(domain="kernel", kind="userspace-probe", location="/bin/true:main",
                              loglevel="TRACE_INFO"), "log levels are not supported"),
        (C.event_rule_matches(domain="kernel", kind="probe", location="do_sys_openat2",
                              exclude=["x"]), "exclusions"),
        (C.event_rule_matches(kind="userspace-probe", location="/bin/true:main"),
         "the kernel domain's"),
        (C.event_rule_matches("tall:*", location="/bin/true:main"),
         "can't use a location with tracepoint event rules"),
        (C.event_rule_matches("getppid", domain="kernel", kind="syscall", event_name="x"),
         "can't use an event name with kernel syscall event rules"),
    ]
    for cond, text in bad:
        with pytest.raises(ValueError) as e:
            client.add_trigger(cond, A.notify(), name="badprobe")
        assert text in str(e.value), (cond.kw, str(e.value))
    with pytest.raises(ValueError) as e:
        client.add_trigger(C.kprobe("x" * 5000), A.notify(), name="badprobe")
    assert "too long" in str(e.value)
    assert "badprobe" not in [t.name for t in client.triggers()]


def _uprobe_lines():
    """The lines of tracefs's uprobe_events that the root daemon (this
    test's: run.sh's TRAWL_ROOT_RUNTIME_DIR) defined: group trawl_<pid>_N."""
    with open(os.path.join(os.environ["TRAWL_ROOT_RUNTIME_DIR"], "sessiond.lock")) as f:
        pid = int(f.read().split()[0])
    with open("/proc/mounts") as f:
        mnt = [l.split()[1] for l in f if l.split()[2] == "tracefs"]
    with open(os.path.join(mnt[0], "uprobe_events")) as f:
        return [l for l in f.read().splitlines() if ":trawl_%d_" % pid in l]


def test_uprobe_trigger(client, tmp_path):
    """A kernel:uprobe trigger on a function of a test program: each call is
    a notification, through the iterator, with the function's arguments and
    the caller's pid; the probe goes with the trigger."""
    if not client.is_root_daemon:
        pytest.skip("kernel probe triggers need the root daemon")
    C, A = trawl.Condition, trawl.Action
    # a copy: other tests' runs of ksyscalls do not hit this probe
    ksys = str(tmp_path / "ksyscalls-py")
    shutil.copy(os.path.join(BIN, "ksyscalls"), ksys)
    # the location is checked by the root daemon, as enable-event's
    for loc, errno, text in (("elf:relative/ksys:trawl_test_add", 22, "PATH is absolute"),
                             ("elf:%s:no_such_function" % ksys, 2,
                              'no function "no_such_function"')):
        with pytest.raises(trawl.Error) as e:
            client.add_trigger(C.uprobe(loc), A.notify(), name="badprobe")
        assert e.value.errno == errno and text in e.value.strerror, e.value
        assert "\n" not in e.value.strerror
    assert "badprobe" not in [t.name for t in client.triggers()]
    assert _uprobe_lines() == []

    with trawl.notifications("pyuadd", timeout=120) as ns:
        t = client.add_trigger(C.uprobe("elf:%s:trawl_test_add" % ksys, "uadd",
                                        captures=["a0", "a1", "$ctx.pid"]),
                               A.notify(), name="pyuadd")
        assert (t.condition, t.domain, t.pattern, t.location) == \
            ("event-rule-matches", "kernel", "uadd", "elf:%s:trawl_test_add" % ksys), t
        assert t.captures == ["a0", "a1", "$ctx.pid"], t
        assert len(_uprobe_lines()) == 1, _uprobe_lines()
        # unnamed event: LTTng names the rule after its location
        t2 = client.add_trigger(C.uprobe("%s:trawl_test_add" % ksys), A.notify(),
                                name="pyuadd2")
        assert t2.pattern == "%s:trawl_test_add" % ksys, t2
        calls = []
        for a, b in ((40, 2), (-7, 1000)):
            r = subprocess.run([ksys, "add", str(a), str(b)], capture_output=True, text=True,
                               timeout=60)
            assert r.returncode == 0 and r.stdout.split()[1] == str(a + b), r
            calls.append([a, b, int(r.stdout.split("pid=")[1].split()[0])])
        got = []
        for n in ns:  # blocks until each comes (at most 120 s without one)
            got.append((n.trigger, n.condition, n.values))
            if len(got) == 2:
                break
        assert got == [("pyuadd", "event-rule-matches", c) for c in calls], (got, calls)
    occ = {t.name: t.occurrences for t in client.triggers()}
    assert occ["pyuadd"] == 2 and occ["pyuadd2"] == 2, occ
    client.remove_trigger("pyuadd")
    client.remove_trigger("pyuadd2")
    assert _uprobe_lines() == []


def test_kprobe_trigger(client):
    """A kernel:kprobe trigger fires when the kernel function runs; where the
    kernel has no kprobe_events, registering fails with the daemon's line."""
    if not client.is_root_daemon:
        pytest.skip("kernel probe triggers need the root daemon")
    C, A = trawl.Condition, trawl.Action
    with open("/proc/mounts") as f:
        mnt = [l.split()[1] for l in f if l.split()[2] == "tracefs"][0]
    cond = C.kprobe("do_sys_openat2", "kopen", captures=["$ctx.pid"])
    if not os.path.exists(os.path.join(mnt, "kprobe_events")):
        with pytest.raises(trawl.Error) as e:
            client.add_trigger(cond, A.notify(), name="pykopen")
        assert "kprobes unavailable" in e.value.strerror, e.value
        assert "pykopen" not in [t.name for t in client.triggers()]
        pytest.skip("this kernel has no kprobe_events (CONFIG_KPROBES off): kprobe "
                    "triggers refused as they should be, not fired")
    with trawl.notifications("pykopen", timeout=120) as ns:
        t = client.add_trigger(cond, A.notify(), name="pykopen")
        assert (t.pattern, t.location) == ("kopen", "do_sys_openat2"), t
        open(__file__).close()
        n = next(ns)
        assert n.trigger == "pykopen" and type(n.values[0]) is int, n
    client.remove_trigger("pykopen")
