#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# losscount.py DIR EVENT [FIELD MIN [MAX]]: reads the trace(s) under DIR with
# babeltrace2's Python bindings (the independent oracle) and prints
# "EVENTS DISCARDED_EVENTS LOST_PACKETS": how many EVENT events it holds
# (only those whose payload FIELD is >= MIN, and < MAX, when given), and the discarded
# events and lost packets its packets declare.
import sys

import bt2

events = discarded = packets = 0
for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(msg) is bt2._EventMessageConst:
        v = None if len(sys.argv) < 5 else int(msg.event.payload_field[sys.argv[3]])
        if msg.event.name == sys.argv[2] and (
            v is None or (v >= int(sys.argv[4]) and (len(sys.argv) < 6 or v < int(sys.argv[5])))
        ):
            events += 1
    elif type(msg) is bt2._DiscardedEventsMessageConst:
        discarded += msg.count or 0
    elif type(msg) is bt2._DiscardedPacketsMessageConst:
        packets += msg.count or 0
print(events, discarded, packets)
