# SPDX-License-Identifier: MIT
"""Helpers shared by the kernel tests: skip rules, temp dirs, running
trawl-ktrace or the trawl command (through the root daemon), and reading
traces with babeltrace2 (the independent oracle)."""
import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile

SKIP = 77
BIN = os.environ.get("TRAWL_BIN_DIR", "")


def skip(why):
    print("SKIP: " + why)
    sys.exit(SKIP)


ENV = None  # the trawl command's environment, once cli_setup() ran


def cli_setup(home, programs=()):
    """For tests driving the trawl command: HOME=@home, the build's programs
    first in PATH; skips when one of "trawl", its daemons or @programs is
    not built. Returns the environment (also in ENV)."""
    global ENV
    for prog in ("trawl", "trawl-sessiond", "trawl-consumerd") + tuple(programs):
        if not os.path.exists(os.path.join(BIN, prog)):
            skip(prog + " not built")
    os.environ["HOME"] = home
    ENV = dict(os.environ, PATH=BIN + ":" + os.environ["PATH"])
    return ENV


# trawl(1)'s exit status for "stopped (or listed), but data was lost"
LOST = 11


def trawl(*args, check=True, timeout=120, lossy=True):
    """Runs `trawl ARGS`; a failure ends the test (unless check=False).
    With @lossy, a stop, destroy or status saying data was lost (LOST) is no
    failure: a session recording machine-wide events may overflow its buffers
    on a machine busy with other tests (it stopped all the same, and the
    trace counts the loss); the tests of loss assert LOST and its count."""
    p = subprocess.run(["trawl"] + list(args), capture_output=True, text=True, env=ENV,
                       timeout=timeout)
    ok = (0, LOST) if lossy and args and args[0] in ("stop", "destroy", "status") else (0,)
    if check and p.returncode not in ok:
        raise SystemExit("trawl %s failed (%d): %s%s" % (" ".join(args), p.returncode, p.stdout,
                                                          p.stderr))
    return p


def daemon_pid():
    """The root session daemon's pid (this test's runtime folder), or 0."""
    try:
        with open(os.path.join(os.environ["TRAWL_ROOT_RUNTIME_DIR"], "sessiond.lock")) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def stop_daemon():
    """Ends this test's root session daemon (SIGTERM), if one runs: the
    tests' last step, in their finally clause."""
    pid = daemon_pid()
    if pid > 0:
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass


def require_root_tracefs():
    if os.geteuid() != 0:
        skip("kernel tracing needs root")
    try:
        import bt2  # noqa: F401
    except ImportError:
        skip("python3-bt2 missing")


def tmpdir():
    d = tempfile.mkdtemp(prefix="trawl-ktest-")
    if not os.environ.get("TRAWL_KEEP_TMP"):  # keep traces for debugging with TRAWL_KEEP_TMP=1
        atexit.register(shutil.rmtree, d, True)
    os.environ["TRAWL_RUNTIME_DIR"] = os.path.join(d, "run")
    os.environ["TRAWL_ROOT_RUNTIME_DIR"] = os.path.join(d, "rootrun")
    return d


def ktrace(args, check=True):
    p = subprocess.run([os.path.join(BIN, "trawl-ktrace")] + args,
                       capture_output=True, text=True, timeout=120)
    if check and p.returncode != 0:
        raise SystemExit("trawl-ktrace %s failed (%d): %s" % (args, p.returncode, p.stderr))
    return p


def events(trace, keep=None):
    """(events, discarded) of a trace: events as dicts name/ts/cpu/fields/ctx.
    @keep(bt2 event) -> bool, when given, picks the events made into dicts:
    bt2's field accessors cost ~0.1 ms per event, so a test reading a large
    trace (a state dump: ~15,000 events) keeps what it checks."""
    import bt2
    out, lost = [], 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            if keep is not None and not keep(ev):
                continue
            d = {"name": ev.name, "ts": msg.default_clock_snapshot.ns_from_origin,
                 "cpu": int(ev.packet.context_field["cpu_id"]), "fields": {}, "ctx": {}}
            for k, v in (ev.payload_field.items() if ev.payload_field is not None else []):
                d["fields"][k] = v
            if ev.common_context_field is not None:
                for k, v in ev.common_context_field.items():
                    d["ctx"][k] = v
            out.append(d)
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            lost += msg.count or 0
    return out, lost


def count_tid(trace, tid):
    """(events of thread @tid, discarded) of a trace whose events carry a tid
    context: events() without building a dict per event, for large traces."""
    import bt2
    n, lost = 0, 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst:
            if int(msg.event.common_context_field["tid"]) == tid:
                n += 1
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            lost += msg.count or 0
    return n, lost


def babeltrace_clean(trace):
    """Runs the babeltrace2 CLI; returns (lines, stderr)."""
    p = subprocess.run(["babeltrace2", trace], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise SystemExit("babeltrace2 failed: " + p.stderr)
    return p.stdout.splitlines(), p.stderr


def only_discard_warnings(err):
    """Asserts that babeltrace2's stderr @err holds nothing but its (exact)
    discarded-events reports: a channel taking events of the whole machine
    (--syscall --all, every sched event) may overflow while other tests flood
    it (kernel-lost, kernel-lost-load), and a counted loss is not an error."""
    for line in err.splitlines():
        assert line.startswith("WARNING: Tracer discarded "), err
