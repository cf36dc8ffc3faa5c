# SPDX-License-Identifier: MIT
"""A buffer-usage trigger on a kernel channel (issue 16), through the root
session daemon: a snapshot session's small overwrite channel (nothing drains
it) fills with a flood of getpgid calls, and the trigger's notification
reaches a program waiting on a notification channel (<trawl/ctl.h>), once:
the buffer stays full through many samples. The daemon samples the
channel's tracefs stats ("bytes:") every monitor period (50 ms here).

No timing is asserted beyond the generous waits."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
d = ktest.tmpdir()
env = ktest.cli_setup(d, ("ust-trig-cond", "ust-trig-notify", "ust-trig-stats", "ksyscalls"))
trawl = ktest.trawl
BIN = ktest.BIN
N = 20000
BASE = 1000000000 + (os.getpid() % 10000) * N


def stats():
    r = subprocess.run([os.path.join(BIN, "ust-trig-stats")], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return {l.rsplit(" occurrences=", 1)[0]: int(l.rsplit("=", 1)[1])
            for l in r.stdout.splitlines() if not l.startswith(" ")}


try:
    trawl("create", "ks", "--snapshot", "-o", os.path.join(d, "ks"))
    trawl("enable-channel", "-k", "-s", "ks", "small", "--subbuf-size=4096", "--num-subbuf=4",
          "--monitor-timer=50ms")
    trawl("enable-event", "-k", "--syscall", "getpgid", "-s", "ks", "-c", "small",
          "--filter", "pid >= %d && pid < %d" % (BASE, BASE + N))
    trawl("start", "ks")
    # waits for 1 notification (then checks 100 ms more bring none), 120 s at most
    w = subprocess.Popen([os.path.join(BIN, "ust-trig-notify"), "1", "120000", "kfull"],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert w.stdout.readline().strip() == "ready", w.stderr.read()
    r = subprocess.run([os.path.join(BIN, "ust-trig-cond"), "kfull", "khigh", "ks", "small",
                        "0.75", "notify"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # 20,000 entries of ~40 bytes on CPU 0: its 16 KiB buffer is full
    f = subprocess.run(["taskset", "-c", "0", os.path.join(BIN, "ksyscalls"), "flood", str(N),
                        str(BASE)], env=env, capture_output=True, text=True, timeout=120)
    assert f.returncode == 0, f.stderr
    out, err = w.communicate(timeout=180)
    assert w.returncode == 0, (out, err)
    got = [l for l in out.splitlines() if l.startswith("kfull ")]
    assert len(got) == 1, out
    # full through many 50 ms samples since: still one occurrence
    time.sleep(0.5)
    assert stats()["kfull"] == 1, stats()
    print("kernel buffer-usage-high: %s" % got[0])
finally:
    trawl("destroy", "-a", check=False)
    ktest.stop_daemon()
print("ok")
