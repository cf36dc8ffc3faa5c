# SPDX-License-Identifier: MIT
"""The pid, vpid and ppid contexts of a thread that is gone when its records
are converted: the consumer reads them from /proc at conversion, so it used
to give such a thread its own tid as its pid (a guess, and wrong). Now they
come from the fork record BPF made when the thread was created. A program's
second thread makes N getpgid calls (a window of arguments of this run's
own) and ends; the program exits before `trawl stop` converts anything:
every event has the program's pid as pid and vpid, the thread's tid as tid
and vtid, and the test's pid (the program's parent) as ppid. babeltrace2
(python3-bt2) is the oracle."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
d = ktest.tmpdir()
N = 2000
BASE = 1950000000 + (os.getpid() % 1000) * N  # [1.95e9, 1.952e9): no other test's window
prog = os.path.join(ktest.BIN, "ksyscalls")
if not os.path.exists(prog):
    ktest.skip("ksyscalls not built")
env = ktest.cli_setup(d)
trawl = ktest.trawl
try:
    out = os.path.join(d, "k")
    trawl("create", "k", "--output", out)
    trawl("enable-event", "--kernel", "sys_enter_getpgid", "--filter",
          "pid >= %d && pid < %d" % (BASE, BASE + N))
    trawl("add-context", "--kernel", "-t", "pid", "-t", "vpid", "-t", "tid", "-t", "vtid", "-t", "ppid")
    trawl("start")
    p = subprocess.run([prog, "thread-flood", str(N), str(BASE)], check=True, env=env, timeout=120,
                       capture_output=True, text=True)
    pid = int(re.search(r"pid=(\d+)", p.stdout).group(1))
    tid = int(re.search(r"tid=(\d+)", p.stdout).group(1))
    # the thread and the program are gone before anything is converted
    assert not os.path.exists("/proc/%d" % pid), pid
    p = trawl("stop", check=False)
    assert p.returncode in (0, ktest.LOST), (p.returncode, p.stderr)
    import bt2
    seen, bad = 0, []
    for msg in bt2.TraceCollectionMessageIterator(out):
        if type(msg) is not bt2._EventMessageConst or msg.event.name != "syscall_entry_getpgid":
            continue
        c = msg.event.common_context_field
        got = (int(c["pid"]), int(c["vpid"]), int(c["tid"]), int(c["vtid"]), int(c["ppid"]))
        seen += 1
        if got != (pid, pid, tid, tid, os.getpid()) and len(bad) < 3:
            bad.append(got)
    print("gone ids: %d events of a gone thread (pid %d, tid %d, parent %d); wrong: %s"
          % (seen, pid, tid, os.getpid(), bad))
    assert seen > 0
    assert not bad, bad
finally:
    ktest.stop_daemon()
print("ok")
