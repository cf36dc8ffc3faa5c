#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Events from signal handlers that interrupt events (app-signal.c), end to
end through the real daemons, the trace read back with babeltrace2 (bt2).
Two threads on this machine's CPUs, each with a timer signal every 20 us
whose handler records an event, in a channel big enough for all of them
(per-user buffers, discard mode):

  - every event is there, none discarded: each thread's n = 0..N-1, and as
    many handler events as the app says its handlers recorded, each
    handler's n = 0, 1, ... in order;
  - each thread's events, and each handler's, come in the order they were
    recorded: bt2 orders the events of the trace by time, so an event whose
    timestamp went below that of the one before it in its stream (the
    unordered clock read of libtrawl-ust's fast path, fastpath.c, taken
    where it must not be) comes out of order, or bt2 refuses the trace;
  - within a stream, the times bt2 gives never go down.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from trawltest import BIN, FAILS, fail, require_bt2  # noqa: E402
import trawltest  # noqa: E402

APP = os.path.join(BIN, "ust-app-signal")
THREADS, N = 2, 200000


def main():
    require_bt2()
    import bt2
    e = trawltest.Env("trawl-ust-signal.")
    try:
        e.trawl("create", "s", "--output", e.out)
        e.trawl("enable-channel", "-u", "ch", "--subbuf-size", "1M", "--num-subbuf", "16")
        e.trawl("enable-event", "-u", "tall:seq", "-c", "ch")
        e.trawl("start")
        r = subprocess.run([APP, str(THREADS), str(N)], env=e.env, capture_output=True, text=True,
                           timeout=300)
        e.trawl("stop")
        if r.returncode != 0:
            fail("app-signal exited %d: %s" % (r.returncode, r.stderr.strip()))
            return
        handled = int(r.stdout.split()[1])
        seqs, last_ts, discarded, back = {}, {}, 0, 0
        for m in bt2.TraceCollectionMessageIterator(e.out):
            if type(m) is bt2._EventMessageConst:
                ev = m.event
                if ev.name != "tall:seq":
                    continue
                seqs.setdefault(int(ev.payload_field["thread"]), []).append(int(ev.payload_field["n"]))
                sid = (ev.stream.cls.id, ev.stream.id)
                ts = m.default_clock_snapshot.value
                if ts < last_ts.get(sid, 0):
                    back += 1
                last_ts[sid] = ts
            elif type(m) is bt2._DiscardedEventsMessageConst:
                discarded += m.count or 0
    finally:
        e.close()
    got_handled = sum(len(v) for k, v in seqs.items() if k >= 100)
    print("%d threads x %d events, %d from handlers (%d read), %d discarded" %
          (THREADS, N, handled, got_handled, discarded))
    if discarded:
        fail("%d events discarded in a channel that holds them all" % discarded)
    for t in range(THREADS):
        if seqs.get(t) != list(range(N)):
            got = seqs.get(t, [])
            fail("thread %d: %d events, not 0..%d in order" % (t, len(got), N - 1))
    for k, v in seqs.items():
        if k >= 100 and v != list(range(len(v))):
            fail("handler of thread %d: its events out of order or missing" % (k - 100))
    if got_handled != handled:
        fail("the handlers recorded %d events, the trace has %d" % (handled, got_handled))
    if handled == 0:
        fail("no signal handler recorded anything: the test tested nothing")
    if back:
        fail("%d times went down within a stream" % back)


main()
sys.exit(1 if FAILS else 0)
