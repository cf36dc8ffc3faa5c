# SPDX-License-Identifier: MIT
"""LTTng's process trackers on kernel events (`trawl track|untrack -k`).

Two real users (useradd, deleted on every exit) each run a small program
that makes N getpgid() calls with arguments in a window of its own (no
such process exists: ESRCH) and exits. Every step waits for the programs'
own answers on pipes, never for time, so the results are exact whatever
the load:

 1. four sessions record the same two runs at once: `track --uid` of the
    first user, `track --gid` of the second's group, `track --vpid` of the
    first run's process, and `untrack --pid --all` (an empty set). The uid
    and vpid sessions hold the N entries of the first user's window and
    none of the second's, every event (syscalls, sched_switch,
    sched_process_exit) made by the first run's process; the gid session
    the reverse; the empty set no event at all.
 2. `track --pid` of one process, changed while the session runs: process
    A tracked, B not; each makes N calls; then B is tracked and A
    untracked (each command returns once in effect); each makes N more.
    The trace holds A's first and B's second window, whole, and nothing of
    the two others.
 3. `trawl list` shows the kernel trackers as LTTng 2.13 prints them, and
    `trawl --mi xml list` is well-formed (valid against LTTng's MI schema
    when a copy is found, as tests/cli/mi.py).
babeltrace2 (python3-bt2) is the oracle."""
import glob
import os
import pwd
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
for tool in ("useradd", "userdel", "runuser"):
    if subprocess.run(["sh", "-c", "command -v " + tool], capture_output=True).returncode:
        ktest.skip(tool + " missing")
d = ktest.tmpdir()
os.chmod(d, 0o755)
env = ktest.cli_setup(d)
trawl = ktest.trawl
N = 300
BASE = 1900000000 + (os.getpid() % 1000) * 8 * N  # [1.9e9, 1.9024e9): no other test's window

# The program each run executes: prints its pid, then for each line "B" makes
# N getpgid(B + i) calls and prints "done"; a line "-1" ends it.
PROG = r"""
import os, sys
n = int(sys.argv[1])
print(os.getpid(), flush=True)
while True:
    b = int(sys.stdin.readline())
    if b < 0:
        break
    for i in range(n):
        try:
            os.getpgid(b + i)
        except OSError:
            pass
    print("done", flush=True)
"""

users = []


def add_user(name):
    subprocess.run(["userdel", name], capture_output=True)  # a leftover of a killed run
    subprocess.run(["useradd", "--no-create-home", "--user-group", "--shell", "/bin/false",
                    name], check=True, capture_output=True)
    users.append(name)
    pw = pwd.getpwnam(name)
    return pw.pw_uid, pw.pw_gid


class Run:
    """The program, as @user (None: this test's user); blocked until told."""

    def __init__(self, user=None):
        cmd = [sys.executable, "-c", PROG, str(N)]
        if user:
            cmd = ["runuser", "-u", user, "--"] + cmd
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  cwd="/")
        self.pid = int(self.p.stdout.readline())

    def calls(self, base):
        """N calls with arguments [base, base + N); returns once they are made."""
        self.p.stdin.write("%d\n" % base)
        self.p.stdin.flush()
        assert self.p.stdout.readline().strip() == "done"

    def end(self):
        self.p.stdin.write("-1\n")
        self.p.stdin.flush()
        assert self.p.wait(timeout=120) == 0


def windows(trace, lo, n, want=None):
    """(entries per window of @n from @lo, pids of every event) of @trace.
    With @want, the counts expected: each must be exact, unless the trace
    says it lost events (a machine-wide sched_switch channel may overflow
    while other tests flood the machine: a counted loss is no error,
    ktest.only_discard_warnings), then at most what is expected."""
    import bt2
    counts, pids, lost = {}, set(), 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            lost += msg.count or 0
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        pids.add(int(ev.common_context_field["pid"]))
        if ev.name == "syscall_entry_getpgid":
            v = int(ev.payload_field["pid"])
            if lo <= v < lo + 8 * n:
                counts[(v - lo) // n] = counts.get((v - lo) // n, 0) + 1
    if want is not None:
        if lost:
            print("note: %s lost %d events" % (trace, lost))
            assert set(counts) <= set(want), (trace, counts, want)
            assert all(counts[k] <= want[k] for k in counts), (trace, counts, want)
        else:
            assert counts == want, (trace, counts, want)
    return counts, pids


def session(name, *tracker_cmds):
    out = os.path.join(d, name)
    trawl("create", name, "--output", out)
    trawl("enable-event", "-k", "-s", name, "--syscall", "getpgid")
    trawl("enable-event", "-k", "-s", name, "sched_switch,sched_process_exit")
    trawl("add-context", "-k", "-s", name, "-t", "pid", "-t", "tid")
    for c in tracker_cmds:
        trawl(*c)
    return out


def find_xsd():
    env_xsd = os.environ.get("TRAWL_LTTNG_MI_XSD")
    if env_xsd:
        return env_xsd if os.path.isfile(env_xsd) else None
    found = sorted(glob.glob("/tmp/*/src/common/mi-lttng-4.1.xsd"))
    return found[0] if found else None


try:
    tag = "%d" % (os.getpid() % 100000)
    u1, g1 = add_user("trawlka" + tag)
    u2, g2 = add_user("trawlkb" + tag)

    # 1. uid, gid, vpid and the empty set, on the same two runs
    r1 = Run(users[0])
    r2 = Run(users[1])
    outs = {
        "u": session("u", ("track", "-k", "-s", "u", "--uid", "%d" % u1)),
        "g": session("g", ("track", "-k", "-s", "g", "--gid", "%d" % g2)),
        "v": session("v", ("track", "-k", "-s", "v", "--vpid", "%d" % r1.pid)),
        "none": session("none", ("untrack", "-k", "-s", "none", "--pid", "--all")),
    }
    for s in outs:
        trawl("start", s)
    r1.calls(BASE)
    r2.calls(BASE + N)
    r1.end()
    r2.end()
    for s in outs:
        trawl("stop", s)
    for s, want, pid in (("u", {0: N}, r1.pid), ("v", {0: N}, r1.pid), ("g", {1: N}, r2.pid)):
        counts, pids = windows(outs[s], BASE, N, want)
        print("%s: windows %s, pids %s" % (s, counts, sorted(pids)))
        assert pids <= {pid}, (s, pids, pid)
    counts, pids = windows(outs["none"], BASE, N)
    print("none: windows %s, pids %s" % (counts, sorted(pids)))
    assert not counts and not pids, (counts, pids)

    # 3. (on the first sessions) the list as LTTng prints it
    p = trawl("list", "u")
    assert ("Tracked process attributes\n"
            "  Process IDs:          all\n"
            "  Virtual process IDs:  all\n"
            "  User IDs:             %d\n"
            "  Virtual user IDs:     all\n"
            "  Group IDs:            all\n"
            "  Virtual group IDs:    all\n" % u1) in p.stdout, p.stdout
    p = trawl("list", "none")
    assert "  Process IDs:          none\n" in p.stdout, p.stdout
    xsd = find_xsd()
    for s in ("u", "none"):
        doc = trawl("--mi", "xml", "list", s).stdout
        r = subprocess.run(["xmllint", "--noout"] + (["--schema", xsd] if xsd else []) + ["-"],
                           input=doc, capture_output=True, text=True)
        assert r.returncode == 0, (doc, r.stderr)
        assert "<pid_process_attr_tracker>" in doc or s == "u", doc
    print("list and --mi xml list: ok (%s)" % ("valid against " + xsd if xsd else "well-formed"))

    # 2. track --pid, changed while the session runs
    a, b = Run(), Run()
    out = session("p", ("track", "-k", "-s", "p", "--pid", "%d" % a.pid))
    trawl("start", "p")
    a.calls(BASE + 2 * N)   # kept
    b.calls(BASE + 3 * N)   # left out
    trawl("track", "-k", "-s", "p", "--pid", "%d" % b.pid)
    trawl("untrack", "-k", "-s", "p", "--pid", "%d" % a.pid)
    a.calls(BASE + 4 * N)   # left out
    b.calls(BASE + 5 * N)   # kept
    a.end()
    b.end()
    trawl("stop", "p")
    counts, pids = windows(out, BASE, N, {2: N, 5: N})
    print("p: windows %s, pids %s (a %d, b %d)" % (counts, sorted(pids), a.pid, b.pid))
    assert pids <= {a.pid, b.pid}, pids
    p = trawl("list", "p")
    assert "  Process IDs:          %d\n" % b.pid in p.stdout, p.stdout
finally:
    for u in users:
        subprocess.run(["userdel", u], capture_output=True)
    ktest.stop_daemon()
print("ok")
