#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A live viewer for tests/relayd/stream.sh: babeltrace2's lttng-live source
# (through python3-bt2) attached to URL; prints "EV <name> <n>" per event as
# it arrives, "DISCARDED" for lost events or packets, and "END" when relayd
# says the session is over.  Usage: viewer.py net://HOST:PORT/host/H/SESSION
import sys
import time

import bt2

spec = bt2.ComponentSpec.from_named_plugin_and_component_class(
    "ctf", "lttng-live", {"inputs": [sys.argv[1]], "session-not-found-action": "end"},
    logging_level=bt2.LoggingLevel.WARNING)
it = bt2.TraceCollectionMessageIterator(spec)
while True:
    try:
        msg = next(it)
    except StopIteration:
        break
    except bt2.TryAgain:
        time.sleep(0.02)
        continue
    if type(msg) is bt2._EventMessageConst:
        f = msg.event.payload_field
        n = f["n"] if f is not None and "n" in f else -1
        print("EV %s %d" % (msg.event.name, n), flush=True)
    elif type(msg) in (bt2._DiscardedEventsMessageConst, bt2._DiscardedPacketsMessageConst):
        print("DISCARDED", flush=True)
print("END", flush=True)
