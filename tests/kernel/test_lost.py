# SPDX-License-Identifier: MIT
"""Lost-event accounting: a flood of syscalls while the consumer is stopped
overflows a small buffer. Every generated event is either in the trace or
counted as discarded (discard mode: per-CPU `dropped events`; overwrite mode:
the pages' missed-events counts), and babeltrace2 reports the loss."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
N = 50000
prog = os.path.join(ktest.BIN, "ksyscalls")
# The consumer is trawl-ktrace's other child: stop it while the program floods.
script = ('c=$(pgrep -P $PPID -x trawl-ktrace); [ -n "$c" ] || exit 3; kill -STOP $c; '
          '"$0" flood %d; r=$?; kill -CONT $c; exit $r' % N)

for mode in ([], ["--overwrite"]):
    d = ktest.tmpdir()
    trace = os.path.join(d, "trace")
    p = ktest.ktrace(["-o", trace, "-s", "getpgid", "--buffer-kb", "16", "-x", "tid"] + mode +
                     ["--", "taskset", "-c", "0", "sh", "-c", script, prog])
    pid = int(p.stdout.split("pid=")[1].split()[0])
    evs, lost = ktest.events(trace)
    seen = len([e for e in evs if e["ctx"]["tid"] == pid])
    print("%s: seen %d, discarded %d, total %d of %d" % (mode or "discard", seen, lost, seen + lost, 2 * N))
    assert lost > 0, "a 16 KiB buffer cannot hold %d events" % (2 * N)
    assert 2 * N <= seen + lost <= 2 * N + 200, (seen, lost)
    if mode:
        # overwrite keeps the newest events: the last exit must be there
        last = [e for e in evs if e["ctx"]["tid"] == pid][-1]
        assert last["name"] == "syscall_exit_getpgid", last
    lines, err = ktest.babeltrace_clean(trace)
    assert "discarded" in err, err
print("ok")
