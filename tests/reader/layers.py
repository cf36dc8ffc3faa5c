#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""layers.py SRC_DIR: src/reader is built in layers (src/reader/internal.h
says which): a file includes the reader's headers of its own layer or of
those below, never above, and its headers include one another without a
cycle. Every file of src/reader must be in the table (a new one is placed
on purpose, not by accident)."""
import os
import re
import sys

LAYERS = {
    1: "internal.h tsdl_lex.h tsdl_int.h fc.c metadata.c resolve.c tsdl.c tsdl_blocks.c "
       "tsdl_lex.c tsdl_scalar.c",
    2: "text.h text.c",
    3: "stream.h decode_int.h decode_fast.h plan_int.h plan_exec.h values.h flat.h field.c plan.c "
       "plan_text.c decode.c decode_skip.c stream_open.c stream_read.c cache.c values.c flat.c",
    4: "trace.h trace.c",
    5: "reader_int.h discover.c reader.c seek.c range.c line.c warn.c api.c packet-count.c",
    6: "live_wire.h live_wire.c live_net.h live_net.c live_int.h live_sess.c live.c",
}
LAYER = {f: n for n, files in LAYERS.items() for f in files.split()}
NAMES = {1: "model", 2: "text", 3: "decoder", 4: "traces", 5: "reader", 6: "live"}


def main():
    d = os.path.join(sys.argv[1], "src", "reader")
    fails = []
    graph = {}
    for f in sorted(os.listdir(d)):
        if not f.endswith((".c", ".h")):
            continue
        if f not in LAYER:
            fails.append("%s: not in tests/reader/layers.py's table" % f)
            continue
        incs = re.findall(r'^#include "reader/([^"]+)"', open(os.path.join(d, f)).read(), re.M)
        graph[f] = [i for i in incs if i != f]
        for i in incs:
            if i not in LAYER:
                fails.append("%s includes reader/%s, which is not in the table" % (f, i))
            elif LAYER[i] > LAYER[f]:
                fails.append("%s (%s) includes reader/%s (%s, above it)"
                             % (f, NAMES[LAYER[f]], i, NAMES[LAYER[i]]))
    # no cycle among the headers
    state = {}

    def visit(f, path):
        if state.get(f) == 1:
            fails.append("include cycle: " + " -> ".join(path + [f]))
            return
        if state.get(f) == 2:
            return
        state[f] = 1
        for i in graph.get(f, []):
            visit(i, path + [f])
        state[f] = 2

    for f in graph:
        visit(f, [])
    for m in fails:
        print("FAIL: " + m)
    if not fails:
        print("layers: %d files of src/reader in 6 layers, no include upwards, no cycle" % len(graph))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
