# SPDX-License-Identifier: MIT
"""The root daemon dies (SIGKILL) while a kernel session runs: its consumer
still writes everything recorded so far (a readable trace), and the next
daemon removes the dead daemon's tracefs instance."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
d = ktest.tmpdir()
env = ktest.cli_setup(d, ())
trawl = ktest.trawl
daemon_pid = ktest.daemon_pid


def instances(pid):
    return [n for n in os.listdir("/sys/kernel/tracing/instances") if n.startswith("trawl-%d-" % pid)]


out = os.path.join(d, "t")
trawl("create", "c", "--output", out)
trawl("enable-event", "--kernel", "--syscall", "lseek")
trawl("add-context", "--kernel", "-t", "tid")
trawl("start")
pid = daemon_pid()
assert pid > 0, "no root daemon"
p = subprocess.run([os.path.join(ktest.BIN, "ksyscalls"), "known"], capture_output=True, text=True)
kpid = int(p.stdout.split("pid=")[1].split()[0])
os.kill(pid, signal.SIGKILL)
assert instances(pid), "the instance outlives its daemon until the next one starts"
# the consumer sees its control socket close, writes everything and exits
deadline = time.time() + 20
while time.time() < deadline:
    r = subprocess.run(["pgrep", "-f", "trawl-consumerd --kernel --ctl-fd=3 --output %s" % out],
                       capture_output=True)
    if r.returncode != 0:
        break
    time.sleep(0.1)
else:
    raise SystemExit("the kernel consumer did not exit after its daemon died")
evs, _ = ktest.events(out)
mine = [e["name"] for e in evs if e["ctx"]["tid"] == kpid]
assert mine == ["syscall_entry_lseek", "syscall_exit_lseek"], mine
assert ktest.babeltrace_clean(out)[1] == ""
# a new daemon cleans up the dead one's instance, once that one is dead: a
# killed process closes its files (which ends the consumer) before it is a
# zombie, and a daemon that starts in between rightly sees it alive (1 run in
# 3 under load)
deadline = time.time() + 20
while time.time() < deadline:
    try:
        with open("/proc/%d/stat" % pid) as f:
            if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                break
    except OSError:
        break
    time.sleep(0.05)
trawl("list")
try:
    assert not instances(pid), instances(pid)
    print("ok")
finally:
    if daemon_pid() > 0:
        try:
            os.kill(daemon_pid(), signal.SIGTERM)
        except OSError:
            pass
