#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Process-attribute trackers (`trawl track` / `trawl untrack`) through the
real trawl command and daemons, traces read with babeltrace2's bt2.

    trackers.py vpid    `list -u` names each app as LTTng does ("PID: N -
                        Name: BINARY"); three running apps (ust-app-tick) and
                        one started later: --vpid, --all, untrack --all (none) on an
                        active session; each app's events are recorded exactly
                        in the phases its trackers included it, with its vpid
    trackers.py users   a root session, one app as root and one as a test
                        user: --vuid and --vgid keep exactly one user's events
    trackers.py lttng   the same track/untrack commands given to trawl and to
                        LTTng 2.13 (a private lttng-sessiond run by a test
                        user): the same messages, and `list SESSION` shows the
                        same "Tracked process attributes" block
    trackers.py errors  refusals: one line on stderr, non-zero exit, nothing
                        changed
    trackers.py empty   a local session whose trackers keep every app out
                        (per-user and per-process buffers): its first start
                        makes OUTPUT/ust/, which stays empty, as LTTng's
                        (its tracker tests list that folder); a session
                        never started and a snapshot session make none
"""
import os
import pwd
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402

APP = os.path.join(BIN, "ust-app-tick")


class App:
    """One ust-app-tick TAG, fed through its stdin."""

    def __init__(self, env, tag, user=None):
        cmd = [APP, str(tag)]
        if user:
            cmd = ["/usr/sbin/runuser", "-u", user, "--", "env", "HOME=/nonexistent",
                   "TRAWL_RUNTIME_DIR=/nonexistent",
                   "TRAWL_ROOT_RUNTIME_DIR=" + env["TRAWL_ROOT_RUNTIME_DIR"]] + cmd
        self.p = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True)
        self.tag = tag
        first = self.p.stdout.readline().split()
        if len(first) != 2 or first[0] != "pid":
            raise RuntimeError("app %d said %r" % (tag, first))
        self.pid = int(first[1])

    def emit(self, n):
        self.p.stdin.write("%d\n" % n)
        self.p.stdin.flush()
        if self.p.stdout.readline().strip() != "ok":
            raise RuntimeError("app %d did not answer" % self.tag)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def wait_registered(env, pids):
    """Until `trawl list -u` names every pid (each has registered)."""
    want = {"PID: %d" % p for p in pids}
    for _ in range(300):
        out = env.trawl("list", "-u").stdout
        if all(w in out.splitlines() or (w + " ") in out for w in want):
            return
        time.sleep(0.1)
    raise RuntimeError("apps %s never registered: %s" % (pids, out))


def read(path):
    """{tag: sorted n values}, checking each event's vpid against @pids[tag]."""
    import bt2
    got = {}
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._DiscardedEventsMessageConst:
            fail("%d events discarded" % m.count)
        if type(m) is not bt2._EventMessageConst or m.event.name != "tall:seq":
            continue
        p = m.event.payload_field
        tag = int(p["thread"])
        got.setdefault(tag, []).append((int(p["n"]), int(m.event.common_context_field["vpid"])))
    return got


def check(got, tag, want_ns, pid):
    ns = sorted(n for n, _ in got.get(tag, []))
    if ns != sorted(want_ns):
        fail("app %d: recorded n %s, want %s" % (tag, compress(ns), compress(want_ns)))
    bad = {v for _, v in got.get(tag, []) if v != pid}
    if bad:
        fail("app %d (pid %d): events with vpid %s" % (tag, pid, bad))


def compress(ns):
    """[0..9, 20..29] as text."""
    out, i = [], 0
    while i < len(ns):
        j = i
        while j + 1 < len(ns) and ns[j + 1] == ns[j] + 1:
            j += 1
        out.append("%d..%d" % (ns[i], ns[j]))
        i = j + 1
    return "[" + ", ".join(out) + "]"


def session(env):
    env.trawl("create", "s", "-o", env.out)
    env.trawl("enable-event", "-u", "tall:seq")
    env.trawl("add-context", "-u", "-t", "vpid")


def test_vpid(env):
    a, b, c = App(env.env, 1), App(env.env, 2), App(env.env, 3)
    apps = [a, b, c]
    wait_registered(env, [x.pid for x in apps])
    # LTTng's line for each app (its nprocesses test waits for it)
    lines = env.trawl("list", "-u").stdout.splitlines()
    for x in apps:
        if "PID: %d - Name: %s" % (x.pid, APP) not in lines:
            fail("list -u lacks 'PID: %d - Name: %s': %s" % (x.pid, APP, lines[:4]))
    session(env)
    env.trawl("track", "-u", "--vpid", str(a.pid))
    env.trawl("start")
    for x in apps:
        x.emit(10)                       # n 0..9: a only
    r = env.trawl("untrack", "-u", "--vpid=%d" % a.pid)
    if r.stdout != "Removed %d from the virtual process ID tracker inclusion set\n" % a.pid:
        fail("untrack said %r" % r.stdout)
    env.trawl("track", "-u", "--pid", str(b.pid))  # -u --pid is --vpid
    for x in apps:
        x.emit(10)                       # n 10..19: b only
    env.trawl("track", "-u", "--vpid", "--all")
    for x in apps:
        x.emit(10)                       # n 20..29: all
    env.trawl("untrack", "-u", "--vuid", "--all")
    d = App(env.env, 4)                  # registers while nothing is traced
    apps.append(d)
    wait_registered(env, [d.pid])
    for x in apps:
        x.emit(10)                       # n 30..39 (d: 0..9): none
    env.trawl("track", "-u", "--vuid", "--all")
    for x in apps:
        x.emit(10)                       # n 40..49 (d: 10..19): all
    env.trawl("stop")
    for x in apps:
        x.close()
    got = read(env.out)
    check(got, 1, list(range(0, 10)) + list(range(20, 30)) + list(range(40, 50)), a.pid)
    check(got, 2, list(range(10, 30)) + list(range(40, 50)), b.pid)
    check(got, 3, list(range(20, 30)) + list(range(40, 50)), c.pid)
    check(got, 4, list(range(10, 20)), d.pid)


def mkuser(env):
    name = "trawltk%d" % os.getpid()
    subprocess.run(["useradd", "-M", "-N", "-d", env.dir + "/" + name, name], check=True)
    return name


def test_users(env):
    if os.getuid() != 0 or not os.path.exists("/usr/sbin/useradd"):
        print("SKIP: needs root and useradd")
        sys.exit(77)
    user = mkuser(env)
    try:
        pw = pwd.getpwnam(user)
        mine, theirs = App(env.env, 1), App(env.env, 2, user=user)
        wait_registered(env, [mine.pid, theirs.pid])
        session(env)
        r = env.trawl("track", "-u", "--vuid", user)
        if r.stdout != "Added %s to the virtual user ID tracker inclusion set\n" % user:
            fail("track --vuid NAME said %r" % r.stdout)
        env.trawl("start")
        mine.emit(10)
        theirs.emit(10)                  # n 0..9: theirs only
        env.trawl("track", "-u", "--vuid", "--all")
        env.trawl("track", "-u", "--vgid", "0")
        mine.emit(10)
        theirs.emit(10)                  # n 10..19: root's group only
        env.trawl("untrack", "-u", "--vgid", "0")
        env.trawl("track", "-u", "--vgid", str(pw.pw_gid))
        mine.emit(10)
        theirs.emit(10)                  # n 20..29: their group only
        env.trawl("stop")
        mine.close()
        theirs.close()
        got = read(env.out)
        check(got, 1, list(range(10, 20)), mine.pid)
        check(got, 2, list(range(0, 10)) + list(range(20, 30)), theirs.pid)
    finally:
        env.stop_daemons()
        subprocess.run(["userdel", user], check=False)


# The commands both tools run, in order (as in LTTng's own tracker tests).
SCRIPT = [
    ["track", "-u", "--vpid", "123,456"],
    ["track", "-u", "--vuid", "0"],
    ["track", "-u", "--pid", "77"],
    ["untrack", "-u", "--vpid", "123"],
    ["untrack", "-u", "--vgid", "--all"],
    ["track", "-u", "--vpid", "456"],
    ["untrack", "-u", "--vpid", "999"],
    ["track", "-u", "--vuid=5"],
    ["untrack", "-u", "--vuid", "--all"],
    ["track", "-u", "--vuid", "--all"],
]


def tracked_block(out):
    """The "Tracked process attributes" lines, values sorted (LTTng prints a
    hash table's order)."""
    lines, on = [], False
    for line in out.splitlines():
        if line.startswith("Tracked process attributes"):
            on = True
        elif on and not line.strip():
            break
        if on:
            label, _, vals = line.partition(":  ")
            vals = vals.strip()
            if vals and vals not in ("all", "none"):
                vals = ", ".join(sorted(vals.split(", "), key=int))
            lines.append((label + ": " + vals) if vals else line.rstrip())
    return lines


def run_script(cmd, env):
    outs = []
    for args in SCRIPT:
        r = subprocess.run(cmd + args, env=env, capture_output=True, text=True, timeout=60)
        # LTTng 2.13's warning says "the virtual process ID the inclusion
        # set" (a typo trawl does not copy); LTTng's "Error: " is trawl's "trawl: ".
        err = [line.replace("Warning: ", "").replace(" ID the inclusion", " ID inclusion")
               for line in r.stderr.splitlines()]
        outs.append((r.returncode == 0, r.stdout, err))
    return outs


def test_lttng(env):
    if os.getuid() != 0 or not os.path.exists("/usr/bin/lttng-sessiond"):
        print("SKIP: needs root (a test user runs LTTng) and lttng-sessiond (lttng-tools)")
        sys.exit(77)
    user = mkuser(env)
    home = env.dir + "/" + user
    os.makedirs(home)
    os.chown(home, pwd.getpwnam(user).pw_uid, -1)
    lenv = {"PATH": "/usr/bin:/bin", "HOME": home, "LTTNG_HOME": home}
    as_user = ["/usr/sbin/runuser", "-u", user, "--"]
    pidfile = home + "/.lttng/lttng-sessiond.pid"
    try:
        subprocess.run(as_user + ["env", "HOME=" + home, "LTTNG_HOME=" + home,
                                  "lttng-sessiond", "--daemonize", "--no-kernel"],
                       check=True, timeout=60, env=lenv)
        lt = as_user + ["env", "HOME=" + home, "LTTNG_HOME=" + home, "lttng"]
        subprocess.run(lt + ["create", "s", "-o", home + "/tr"], check=True,
                       capture_output=True, env=lenv, timeout=60)
        subprocess.run(lt + ["enable-event", "-u", "tall:seq"], check=True,
                       capture_output=True, env=lenv, timeout=60)
        theirs = run_script(lt, lenv)
        their_list = subprocess.run(lt + ["list", "s"], capture_output=True, text=True,
                                    env=lenv, timeout=60).stdout
    finally:
        try:
            os.kill(int(open(pidfile).read().strip()), 15)
        except (OSError, ValueError):
            pass
        time.sleep(0.5)
        subprocess.run(["userdel", user], check=False)
    session(env)
    mine = run_script([trawltest.TRAWL], env.env)
    my_list = env.trawl("list", "s").stdout
    for args, t, m in zip(SCRIPT, theirs, mine):
        if t != m:
            fail("%s: LTTng %s, trawl %s" % (" ".join(args), t, m))
    if tracked_block(their_list) != tracked_block(my_list):
        fail("list: LTTng %s, trawl %s" % (tracked_block(their_list), tracked_block(my_list)))
    if not tracked_block(my_list):
        fail("trawl list shows no trackers:\n" + my_list)


def expect_refused(env, args, word):
    r = env.trawl(*args, check=False)
    lines = r.stderr.splitlines()
    if r.returncode == 0 or len(lines) != 1 or word not in lines[0]:
        fail("trawl %s: exit %d, stderr %r (want one line with %r)" %
             (" ".join(args), r.returncode, r.stderr, word))


def test_errors(env):
    session(env)
    before = env.trawl("list", "s").stdout
    expect_refused(env, ["track", "-u", "--uid", "5"], "user ID process attribute")
    expect_refused(env, ["track", "-u", "--gid", "5"], "group ID process attribute")
    expect_refused(env, ["track", "-u", "--vpid", "abc"], "abc is not a valid")
    expect_refused(env, ["track", "-u", "--vpid=-1"], "-1 is not a valid")
    expect_refused(env, ["track", "-u", "--vpid", "4294967295"], "not a valid")
    expect_refused(env, ["track", "-u", "--vuid", "nosuchuser%d" % os.getpid()], "no user")
    expect_refused(env, ["track", "-u", "--vpid", "1", "--all"], "--all")
    expect_refused(env, ["track", "-u", "--all"], "process attribute")
    expect_refused(env, ["track", "-u"], "process attribute")
    expect_refused(env, ["track", "--vpid", "1"], "domain")
    expect_refused(env, ["track", "-u", "-k", "--vpid", "1"], "one domain")
    expect_refused(env, ["track", "-s", "nosuch", "-u", "--vpid", "1"], "nosuch")
    expect_refused(env, ["untrack", "-u", "--vpid"], "--all")
    if env.trawl("list", "s").stdout != before:
        fail("a refused command changed the session")
    # a set holds at most 4096 values
    vals = ",".join(str(i) for i in range(4096))
    env.trawl("track", "-u", "--vpid", vals)
    expect_refused(env, ["track", "-u", "--vpid", "5000"], "4096")


def test_empty(env):
    other = str(os.getuid() + 1)
    for i, buffers in enumerate(["--buffers-uid", "--buffers-pid"]):
        out = os.path.join(env.dir, "empty%d" % i)
        env.trawl("create", "e%d" % i, "-o", out)
        env.trawl("enable-channel", "-u", buffers, "ch")
        env.trawl("enable-event", "-u", "tall:seq", "-c", "ch")
        env.trawl("track", "-u", "--vuid", other)
        if os.path.exists(os.path.join(out, "ust")):
            fail("%s: %s/ust made before the first start" % (buffers, out))
        env.trawl("start")
        app = App(env.env, 1)
        app.emit(10)
        app.close()
        env.trawl("stop")
        env.trawl("destroy")
        ust = os.path.join(out, "ust")
        if not os.path.isdir(ust):
            fail("%s: no %s: %s" % (buffers, ust, os.listdir(out) if os.path.isdir(out) else "-"))
        elif os.listdir(ust) or os.listdir(out) != ["ust"]:
            fail("%s: %s not only an empty ust/: %s, %s" % (buffers, out, os.listdir(out),
                                                            os.listdir(ust)))
    snap = os.path.join(env.dir, "snap")
    env.trawl("create", "sn", "--snapshot", "-o", snap)
    env.trawl("enable-event", "-u", "tall:seq")
    env.trawl("start")
    env.trawl("stop")
    env.trawl("destroy")
    if os.path.exists(os.path.join(snap, "ust")):
        fail("a snapshot session made %s/ust" % snap)


def main():
    require_bt2()
    what = sys.argv[1]
    env = trawltest.Env("trawl-trackers-%s." % what)
    try:
        {"vpid": test_vpid, "users": test_users, "lttng": test_lttng,
         "errors": test_errors, "empty": test_empty}[what](env)
    finally:
        env.close()
    if FAILS:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
