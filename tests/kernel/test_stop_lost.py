# SPDX-License-Identifier: MIT
"""`trawl stop` of a kernel session that lost events (a getpgid flood into
two 4 KiB sub-buffers): exit 11 (stopped, data lost) with one line whose
count is the one babeltrace2 reports as discarded in the trace; read +
discarded covers every call of the flood (others' getpgid only add);
`status` says the same (11; run as `lttng`, 0 and the same line), `destroy`
of the stopped session exits 0."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import ktest  # noqa: E402

ktest.require_root_tracefs()
d = ktest.tmpdir()
env = ktest.cli_setup(d, ("ksyscalls",))
trawl = ktest.trawl
N = 200000


def said(p, what):
    """The count in @p's one line (exit LOST), else the test fails."""
    lines = p.stderr.strip().splitlines()
    assert p.returncode == ktest.LOST and len(lines) == 1, (what, p.returncode, p.stderr)
    m = re.search(r"(?:data lost|lost data): (\d+) events? discarded in the kernel domain, counted in the "
                  r"trace in (\S+) where", lines[0])
    assert m, (what, lines[0])
    assert m.group(2) == out, (what, m.group(2), out)
    return int(m.group(1))


def read_counts(trace):
    """(events, discarded events) babeltrace2 reads in @trace."""
    import bt2
    n, lost = 0, 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst:
            n += 1
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            lost += msg.count or 0
    return n, lost


try:
    out = os.path.join(d, "k")
    trawl("create", "k", "--output", out)
    trawl("enable-channel", "--kernel", "ch", "--subbuf-size", "4096", "--num-subbuf", "2")
    trawl("enable-event", "--kernel", "--syscall", "getpgid", "-c", "ch")
    trawl("start")
    subprocess.run([os.path.join(ktest.BIN, "ksyscalls"), "flood", str(N)], check=True,
                   stdout=subprocess.DEVNULL, env=env, timeout=120)
    line_stop = said(trawl("stop", check=False), "stop")
    line_status = said(trawl("status", check=False), "status")
    n, lost = read_counts(out)
    print("stop-lost (kernel): %d read + %d discarded (babeltrace2), the line says %d, of %d "
          "or more" % (n, lost, line_stop, 2 * N))
    assert line_stop == lost and lost > 0, (line_stop, lost)
    assert line_status == line_stop, (line_status, line_stop)
    # Run as `lttng` (installed in LTTng's place): LTTng's exit status, 0,
    # and still the line (cli/loss.c).
    p = subprocess.run(["lttng", "status"], executable=os.path.join(ktest.BIN, "trawl"),
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, ("as lttng", p.returncode, p.stderr)
    p.returncode = ktest.LOST
    assert said(p, "status as lttng") == line_stop
    assert n + lost >= 2 * N, (n, lost)
    p = trawl("destroy", check=False)
    assert p.returncode == 0 and not p.stderr.strip(), (p.returncode, p.stderr)
    print("ok")
finally:
    ktest.stop_daemon()
