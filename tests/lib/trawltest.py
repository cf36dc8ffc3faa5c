# SPDX-License-Identifier: MIT
"""What the Python end-to-end tests share: the build's programs, failure
collection and the exit status (report()), polling (until()), reading
tall:seq back with babeltrace2 (read_seq()), the processes
a session daemon started (daemon_children(), consumer_pids()), and Env, a
private HOME and runtime folders in which the trawl command starts its own
daemons (found by sessiond_pid() and consumer_pid(), killed and removed by
close())."""
import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.environ.get("TRAWL_BIN_DIR")
if not BIN:
    sys.exit("run through ctest (TRAWL_BIN_DIR unset)")
TRAWL = os.path.join(BIN, "trawl")
FAILS = []


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    FAILS.append(msg)


def report():
    """The end of a test's main(): "N failure(s)" and 1 after failures, else
    "ok" and 0 (its exit status)."""
    if FAILS:
        print("%d failure(s)" % len(FAILS))
        return 1
    print("ok")
    return 0


def until(pred, timeout, interval=0.05):
    """Calls pred() every @interval s until it returns a true value, for at
    most @timeout s (time.monotonic()): that value, else pred()'s last one,
    from a call made once the time is up."""
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v or time.monotonic() >= end:
            return v
        time.sleep(interval)


def require_bt2():
    """Skips the test (exit 77) without python3-bt2."""
    try:
        import bt2  # noqa: F401
    except ImportError:
        print("SKIP: python3-bt2 missing")
        sys.exit(77)


def daemon_children(pid):
    """Pids of the running children of process @pid (of any of its
    threads: a child is listed under the thread that forked it), [] once
    @pid is gone."""
    kids = []
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return kids
    for task in tasks:
        try:
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                kids += [int(k) for k in f.read().split()]
        except OSError:
            pass  # the thread ended meanwhile
    return kids


def consumer_pids(sd, domain=None):
    """Pids of the consumers session daemon @sd runs (its trawl-consumerd
    children), of @domain's only ("ust" or "kernel": the option the daemon
    gave it) unless None."""
    out = []
    for k in daemon_children(sd):
        try:
            with open("/proc/%d/cmdline" % k, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue  # exited since
        if os.path.basename(argv[0]) != b"trawl-consumerd":
            continue
        if domain is None or ("--" + domain).encode() in argv:
            out.append(k)
    return out


def read_seq(path):
    """(the n of each tall:seq event in the order babeltrace2 reads them,
    the events its discarded-events messages count) of the trace(s) under
    @path. Skips the test (77) without python3-bt2."""
    require_bt2()
    import bt2
    ns, discarded = [], 0
    for m in bt2.TraceCollectionMessageIterator(path):
        if type(m) is bt2._EventMessageConst:
            if m.event.name == "tall:seq":
                ns.append(int(m.event.payload_field["n"]))
        elif type(m) is bt2._DiscardedEventsMessageConst:
            discarded += m.count or 0
    return ns, discarded


# trawl(1)'s exit status for "done, but data was lost" (stop, destroy, status)
LOST = 11


class Env:
    def __init__(self, prefix):
        self.dir = tempfile.mkdtemp(prefix=prefix)
        os.chmod(self.dir, 0o755)
        self.env = dict(os.environ)
        self.env.update(HOME=self.dir + "/home", TRAWL_RUNTIME_DIR=self.dir + "/run",
                        TRAWL_ROOT_RUNTIME_DIR=self.dir + "/rootrun")
        os.makedirs(self.env["HOME"])
        self.out = self.dir + "/trace"

    def trawl(self, *args, check=True, lossy=True):
        """Runs trawl ARGS; raises on failure (unless check=False). With
        @lossy, a stop, destroy or status that says data was lost (exit
        LOST) is no failure (ktest.trawl() says why); tests of loss assert it."""
        r = subprocess.run([TRAWL] + list(args), env=self.env, capture_output=True, text=True,
                           timeout=60)
        ok = (0, LOST) if lossy and args and args[0] in ("stop", "destroy", "status") else (0,)
        if check and r.returncode not in ok:
            raise RuntimeError("trawl %s: exit %d: %s" % (" ".join(args), r.returncode,
                                                          r.stderr.strip()))
        return r

    def sessiond_pid(self, root=None):
        """The pid of the session daemon this Env's trawl commands started:
        the user's (root=False), root's (True) or, with None, the user's if
        one runs, else root's; None if there is none."""
        dirs = {None: ("run", "rootrun"), False: ("run",), True: ("rootrun",)}[root]
        for d in dirs:
            try:
                with open("%s/%s/sessiond.lock" % (self.dir, d)) as f:
                    return int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
        return None

    def consumer_pid(self, domain="ust", root=None):
        """The pid of @domain's consumer of sessiond_pid(@root), or None."""
        sd = self.sessiond_pid(root)
        pids = consumer_pids(sd, domain) if sd else []
        return pids[0] if pids else None

    def stop_daemons(self):
        """Destroys every session and ends the daemons this Env started."""
        self.trawl("destroy", "--all", check=False)
        for lock in glob.glob(self.dir + "/*/sessiond.lock") + glob.glob(self.dir + "/*/*/sessiond.lock"):
            try:
                os.kill(int(open(lock).read().strip()), signal.SIGTERM)
            except (ValueError, OSError):
                pass
        time.sleep(0.2)

    def close(self, keep=False):
        self.stop_daemons()
        if keep:
            print("kept " + self.dir)
        else:
            shutil.rmtree(self.dir, ignore_errors=True)
