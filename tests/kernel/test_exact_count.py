# SPDX-License-Identifier: MIT
"""Every event the kernel recorded is in the trace or counted lost, exactly:
sys_enter_getpgid filtered on this test's own window of arguments (so the
channel holds only this test's calls, whatever runs beside it: a window
of its own per test run, from its pid; relayd-reconnect-kernel once
counted 5,052 of this test's calls as its own in a ctest -j2 run) in small
sub-buffers while three ksyscalls floods of N getpgid(BASE + (B - 1) * N + i)
run one after the other, the last right before the stop. babeltrace2's events + discarded events == 3N, whatever the load,
and the stop says the same discarded count: with trawl-ktrace (8 x 4 KiB
per CPU), then with a session of the root daemon (64 x 4 KiB; the relay
case is relayd-reconnect-kernel). (Bases stay below 2^31: getpgid takes a pid_t, and
3 * 10^9 came out negative, which a count by base once took for a batch
that vanished.)"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
d = ktest.tmpdir()
N = 20000
# [10^8, 10^9): test_lost, test_perf and test_lost_load take windows above
BASE = 100000000 + (os.getpid() % 15000) * 3 * N
FILTER = "pid >= %d && pid < %d" % (BASE, BASE + 3 * N)
prog = os.path.join(ktest.BIN, "ksyscalls")
if not os.path.exists(prog):
    ktest.skip("ksyscalls not built")


def read_counts(trace):
    """(events per batch, other events, discarded events) babeltrace2 reads in @trace."""
    import bt2
    batches, other, lost = {1: 0, 2: 0, 3: 0}, 0, 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst:
            b = (int(msg.event.payload_field["pid"]) - BASE) // N + 1
            if msg.event.name == "syscall_entry_getpgid" and b in batches:
                batches[b] += 1
            else:
                other += 1
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            lost += msg.count or 0
    return batches, other, lost


trace = os.path.join(d, "t")
cmd = "; ".join("%s flood %d %d >/dev/null" % (prog, N, BASE + (b - 1) * N) for b in (1, 2, 3))
p = ktest.ktrace(["-o", trace, "--buffer-kb", "32", "--subbuf-kb", "4", "-e", "syscalls:sys_enter_getpgid",
                  "--filter", FILTER, "--", "sh", "-c", cmd])
m = re.search(r"lost (\d+) events", p.stderr)
assert m, p.stderr
batches, other, lost = read_counts(trace)
n = sum(batches.values())
print("exact-count (kernel, local): %d recorded %s + %d discarded of %d (trawl-ktrace: lost %s)"
      % (n, batches, lost, 3 * N, m.group(1)))
assert other == 0, other
assert n + lost == 3 * N, (n, lost)
assert int(m.group(1)) == lost, (m.group(1), lost)

# the same through the root daemon (trawl create/start/stop)
env = ktest.cli_setup(d)
trawl = ktest.trawl
try:
    out = os.path.join(d, "k")
    trawl("create", "k", "--output", out)
    trawl("enable-channel", "--kernel", "c", "--subbuf-size", "4096", "--num-subbuf", "64")
    trawl("enable-event", "--kernel", "-c", "c", "sys_enter_getpgid", "--filter", FILTER)
    trawl("start")
    subprocess.run(["sh", "-c", cmd], check=True, env=env, timeout=120)
    p = trawl("stop", check=False)
    said = 0
    if p.returncode == ktest.LOST:
        m = re.search(r": (\d+) events? discarded in the kernel domain", p.stderr)
        assert m, p.stderr
        said = int(m.group(1))
    else:
        assert p.returncode == 0, (p.returncode, p.stderr)
    batches, other, lost = read_counts(out)
    n = sum(batches.values())
    print("exact-count (kernel, daemon, local): %d recorded %s + %d discarded of %d (stop: %d)"
          % (n, batches, lost, 3 * N, said))
    assert other == 0, other
    assert n + lost == 3 * N, (n, lost)
    assert said == lost, (said, lost)
finally:
    ktest.stop_daemon()
print("ok")
