#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/relayd/live.sh's viewer: babeltrace2's lttng-live source (Python
bindings) attached to URL; for each anchor:ev event prints the latency from
the event's timestamp to the moment the viewer has it, in microseconds, as
`a latency_us`; also for live-kapp.c's syscall_entry_getpgid events (kernel
mode), a being the call's number. The clock snapshot's raw value is not
comparable across tracers (LTTng-UST: CLOCK_MONOTONIC in ns; trawl: the TSC
in cycles where it is invariant), but both traces' clocks declare an offset
from the Epoch (CLOCK_REALTIME - CLOCK_MONOTONIC when the daemon started), so
the event's ns from the origin is on CLOCK_REALTIME's scale: the latency is
our CLOCK_REALTIME minus it.
When the source has nothing yet (TryAgain) the viewer sleeps RETRY_MS."""
import sys
import time

import bt2

# live-kapp.c's getpgid() pids (kernel mode): BASE + the call's number
KBASE = 1000000000
url = sys.argv[1]
retry = float(sys.argv[2]) / 1000 if len(sys.argv) > 2 else 0.01
spec = bt2.ComponentSpec.from_named_plugin_and_component_class(
    "ctf", "lttng-live", {"inputs": [url], "session-not-found-action": "end"},
    logging_level=bt2.LoggingLevel.WARNING)
it = bt2.TraceCollectionMessageIterator(spec)
while True:
    try:
        msg = next(it)
    except StopIteration:
        break
    except bt2.TryAgain:
        time.sleep(retry)
        continue
    if type(msg) is not bt2._EventMessageConst:
        continue
    if msg.event.name == "anchor:ev" and str(msg.event.payload_field["s"]) == "relayd-live":
        a = int(msg.event.payload_field["a"])
    elif (msg.event.name == "syscall_entry_getpgid" and
          KBASE <= int(msg.event.payload_field["pid"]) < KBASE + 1000000):
        a = int(msg.event.payload_field["pid"]) - KBASE
    else:
        continue
    now = time.clock_gettime_ns(time.CLOCK_REALTIME)
    ts = msg.default_clock_snapshot.ns_from_origin
    print("%d %.1f" % (a, (now - ts) / 1000), flush=True)
