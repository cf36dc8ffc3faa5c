# SPDX-License-Identifier: MIT
"""What the Python end-to-end tests share: the build's programs, failure
collection and the exit status (report()), polling (until()), and Env, a private HOME and runtime folders in which the trawl
command starts its own daemons (killed and removed by close())."""
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
