# SPDX-License-Identifier: MIT
"""Kernel namespace contexts (issue 16): `add-context -k -t cgroup_ns -t
ipc_ns -t mnt_ns -t net_ns -t pid_ns -t time_ns -t user_ns -t uts_ns` on a
kernel channel through the root daemon. Two copies of ksyscalls make
getpgid(BASE) calls, one in new UTS, IPC and network namespaces (unshare(1)),
one in the test's own; each stays until the session is stopped. babeltrace2
(the bt2 module, and its CLI for warnings) reads the trace: every getpgid
entry of each program carries, as its eight namespace contexts, the inode
numbers of that program's /proc/PID/ns/* read while it ran; the two differ
in uts_ns, ipc_ns and net_ns and agree in the others. A context the kernel
does not know is refused in one line."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
if not shutil.which("unshare"):
    ktest.skip("unshare(1) missing")
d = ktest.tmpdir()
env = ktest.cli_setup(d, ("ksyscalls",))
trawl = ktest.trawl
KSYS = os.path.join(d, "ksyscalls-ns")
shutil.copy(os.path.join(ktest.BIN, "ksyscalls"), KSYS)
OUT = os.path.join(d, "trace")
BASE = 1600000000 + (os.getpid() % 100000) * 10
NS = ("cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts")
CALLS = 5

r = subprocess.run(["unshare", "--uts", "--ipc", "--net", "true"], capture_output=True)
if r.returncode:
    ktest.skip("unshare --uts --ipc --net refused: " + r.stderr.decode().strip())


def start(prefix, base):
    """A held ksyscalls after its CALLS getpgid(base): (process, {ns: inode})."""
    p = subprocess.Popen(prefix + [KSYS, "hold", str(CALLS), str(base)], env=env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    pid = int(p.stdout.readline().split("pid=")[1])
    assert p.stdout.readline().strip() == "done"
    return p, {n: os.stat("/proc/%d/ns/%s" % (pid, n)).st_ino for n in NS}


procs = []
try:
    trawl("create", "ns", "-o", OUT)
    trawl("enable-event", "-k", "--syscall", "getpgid", "-s", "ns")
    args = []
    for n in NS:
        args += ["-t", n + "_ns"]
    trawl("add-context", "-k", "-s", "ns", "-t", "vtid", *args)
    p = subprocess.run(["trawl", "add-context", "-k", "-s", "ns", "-t", "ip"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and len(p.stderr.strip().split("\n")) == 1 and \
        "user space only" in p.stderr, p.stderr
    trawl("start", "ns")
    inner, inner_ns = start(["unshare", "--uts", "--ipc", "--net"], BASE)
    procs.append(inner)
    outer, outer_ns = start([], BASE + 1)
    procs.append(outer)
    trawl("stop", "ns")
    for q in procs:
        q.stdin.close()
        q.wait(timeout=60)
    for n in ("uts", "ipc", "net"):
        assert inner_ns[n] != outer_ns[n], (n, inner_ns, outer_ns)
    for n in ("cgroup", "mnt", "pid", "time", "user"):
        assert inner_ns[n] == outer_ns[n], (n, inner_ns, outer_ns)

    evs, lost = ktest.events(OUT, keep=lambda e: e.name == "syscall_entry_getpgid")
    lines, err = ktest.babeltrace_clean(OUT)
    ktest.only_discard_warnings(err)
    for base, want in ((BASE, inner_ns), (BASE + 1, outer_ns)):
        mine = [e for e in evs if int(e["fields"]["pid"]) == base]
        assert len(mine) == CALLS or (lost and 0 < len(mine) < CALLS), (base, len(mine), lost)
        for e in mine:
            got = {n: int(e["ctx"][n + "_ns"]) for n in NS}
            assert got == want, (base, got, want)
    print("namespaces of the unshared program: %s; of the other: %s" % (inner_ns, outer_ns))
    print("ok")
finally:
    for q in procs:
        if q.poll() is None:
            q.kill()
    trawl("destroy", "-a", check=False)
    ktest.stop_daemon()
