# SPDX-License-Identifier: MIT
"""`trawl list` says "Consumer: DEAD" for a kernel session exactly when its
consumer was started and died: never for a session not started yet (it has
no consumer; it said DEAD), nor after a start and a stop; after a SIGKILL of
the consumer of a running session it does, and the stop says data was lost."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
d = ktest.tmpdir()
ktest.cli_setup(d, ())
trawl = ktest.trawl
out = os.path.join(d, "t")


def dead():
    return "Consumer: DEAD" in trawl("list", "k").stdout


try:
    trawl("create", "k", "--output", out)
    trawl("enable-event", "--kernel", "--syscall", "getppid")
    assert not dead(), "a kernel session never started lists a dead consumer"
    trawl("start")
    trawl("stop")
    assert not dead(), "a started and stopped kernel session lists a dead consumer"
    trawl("start")
    # the private root daemon's one kernel consumer (its child)
    r = subprocess.run(["pgrep", "-P", str(ktest.daemon_pid()), "-f", "trawl-consumerd --kernel"],
                       capture_output=True, text=True)
    pids = [int(p) for p in r.stdout.split()]
    assert len(pids) == 1, "the session's kernel consumer: %r" % r.stdout
    os.kill(pids[0], signal.SIGKILL)
    deadline = time.time() + 60
    while not dead():
        assert time.time() < deadline, "list never says the killed consumer is dead"
        time.sleep(0.2)
    p = trawl("stop", check=False)
    assert p.returncode == ktest.LOST, "stop after the consumer died: %d %s" % (p.returncode,
                                                                               p.stderr)
    print("ok")
finally:
    trawl("destroy", "-a", check=False)
    if ktest.daemon_pid() > 0:
        try:
            os.kill(ktest.daemon_pid(), signal.SIGTERM)
        except OSError:
            pass
