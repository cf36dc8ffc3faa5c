# SPDX-License-Identifier: MIT
"""Lost-event accounting: a flood of syscalls while the consumer is stopped
overflows a small buffer. Every generated event is either in the trace or
counted as discarded (discard mode: per-CPU `dropped events`; overwrite mode:
the pages' missed-events counts), and babeltrace2 reports the loss.

Kernel tracing is system-wide and the loss counts are per CPU, not per
program: another flood on the machine (kernel-perf, or this test in another
build tree) would be counted too. So the flood calls getpgid(BASE + i), BASE
this run's own, and a filter keeps only those entries: a filtered-out event
never reaches the ring buffer, so it is neither recorded nor counted lost."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
N = 50000
# getpgid's argument is 64 bits in the record; BASE + i is no pid (above pid_max).
BASE = 1000000000 + (os.getpid() % 10000) * N
prog = os.path.join(ktest.BIN, "ksyscalls")
# The consumer is trawl-ktrace's other child: stop it while the program floods.
script = ('c=$(pgrep -P $PPID -x trawl-ktrace); [ -n "$c" ] || exit 3; kill -STOP $c; '
          '"$0" flood %d %d; r=$?; kill -CONT $c; exit $r' % (N, BASE))
filt = "pid >= %d && pid < %d" % (BASE, BASE + N)

for mode in ([], ["--overwrite"]):
    d = ktest.tmpdir()
    trace = os.path.join(d, "trace")
    p = ktest.ktrace(["-o", trace, "-e", "syscalls:sys_enter_getpgid", "--filter", filt,
                      "--buffer-kb", "16", "-x", "tid"] + mode +
                     ["--", "taskset", "-c", "0", "sh", "-c", script, prog])
    pid = int(p.stdout.split("pid=")[1].split()[0])
    evs, lost = ktest.events(trace)
    mine = [e["fields"]["pid"] - BASE for e in evs if e["name"] == "syscall_entry_getpgid"]
    assert all(e["ctx"]["tid"] == pid for e in evs if e["name"] == "syscall_entry_getpgid")
    seen = len(mine)
    print("%s: seen %d, discarded %d, total %d of %d" % (mode or "discard", seen, lost, seen + lost, N))
    assert lost > 0, "a 16 KiB buffer cannot hold %d events" % N
    assert len(set(mine)) == seen and all(0 <= i < N for i in mine), "duplicate or foreign events"
    # Nothing but the flood's entries is recorded: the count is exact.
    assert seen + lost == N, (seen, lost)
    if mode:
        # overwrite keeps the newest events: the last call is there
        assert N - 1 in mine, mine[-5:]
    else:
        # discard keeps the oldest: the first call is there
        assert 0 in mine, mine[:5]
    lines, err = ktest.babeltrace_clean(trace)
    assert "discarded" in err, err
print("ok")
