# SPDX-License-Identifier: MIT
"""Instances and probes left by a dead daemon are removed at the next start;
instances of live owners and of other tools are never touched."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
T = "/sys/kernel/tracing"
prog = os.path.join(ktest.BIN, "ksyscalls")

# a pid that is surely dead: a child we started and reaped
p = subprocess.run(["true"])
dead = subprocess.Popen(["true"])
dead.wait()
dead_pid = dead.pid
mine_dead = "trawl-%d-crashed-channel0" % dead_pid
mine_live = "trawl-%d-alive-channel0" % os.getpid()
other = "othertool-%d" % os.getpid()
group = "trawl_%d_1" % dead_pid
for n in (mine_dead, mine_live, other):
    os.mkdir(os.path.join(T, "instances", n))
try:
    # the file offset of trawl_test_add, as uprobe_events wants it
    sym = int([l.split()[0] for l in subprocess.run(["nm", prog], capture_output=True, text=True).stdout.splitlines()
               if l.endswith(" trawl_test_add")][0], 16)
    off = None
    for l in subprocess.run(["readelf", "-lW", prog], capture_output=True, text=True).stdout.splitlines():
        f = l.split()
        if f and f[0] == "LOAD" and "E" in f[6:-1]:
            o, va, sz = int(f[1], 16), int(f[2], 16), int(f[5], 16)
            if va <= sym < va + sz:
                off = sym - va + o
    uprobe = "p:%s/left %s:0x%x\n" % (group, prog, off)
    fd = os.open(os.path.join(T, "uprobe_events"), os.O_WRONLY | os.O_APPEND)  # no seek: tracefs refuses it
    os.write(fd, uprobe.encode())
    os.close(fd)
    d = ktest.tmpdir()
    ktest.ktrace(["-o", os.path.join(d, "t"), "-s", "getppid", "--", "true"])
    left = os.listdir(os.path.join(T, "instances"))
    assert mine_dead not in left, left
    assert mine_live in left and other in left, left
    with open(os.path.join(T, "uprobe_events")) as f:
        assert group not in f.read()
    print("ok")
finally:
    for n in (mine_dead, mine_live, other):
        try:
            os.rmdir(os.path.join(T, "instances", n))
        except OSError:
            pass
