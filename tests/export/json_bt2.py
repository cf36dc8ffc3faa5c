#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""json_bt2.py JSONL TRACE...: checks, event by event and field by field,
that the JSON lines trawl wrote for TRACE (trawl view --format=json or
trawl export --format=jsonl) hold what babeltrace2's Python bindings (bt2)
read from the same trace: names, times in ns, and every field of the four
scopes with its type (integers as numbers, as strings beyond 2^53; enums
as label and value; arrays; structures; variants). Exits 0, or 1 with the
first difference."""
import json
import math
import sys

import bt2

SAFE = 1 << 53


def utf8_or_fffd(b):
    """The string trawl writes for bytes @b: UTF-8 as it is, every byte of
    a sequence that is not UTF-8 as U+FFFD (jsonw.c's rule, byte by byte)."""
    out, i = [], 0
    while i < len(b):
        c = b[i]
        if c < 0x80:
            out.append(chr(c))
            i += 1
            continue
        n = 2 if 0xC2 <= c < 0xE0 else 3 if 0xE0 <= c < 0xF0 else 4 if 0xF0 <= c <= 0xF4 else 0
        if n and i + n <= len(b):
            try:
                out.append(b[i:i + n].decode("utf-8"))
                i += n
                continue
            except UnicodeDecodeError:
                pass
        out.append("\ufffd")
        i += 1
    return "".join(out)


def integer(v):
    return str(v) if abs(v) > SAFE else v


def expected(f):
    """bt2 field -> the JSON value trawl must have written."""
    if isinstance(f, bt2._EnumerationFieldConst):
        labels = list(f.labels)
        d = {"label": labels[0] if labels else None}
        if len(labels) > 1:
            d["labels"] = labels
        d["value"] = integer(int(f))
        return d
    if isinstance(f, (bt2._SignedIntegerFieldConst, bt2._UnsignedIntegerFieldConst)):
        return integer(int(f))
    if isinstance(f, bt2._RealFieldConst):
        v = float(f)
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return v
    if isinstance(f, bt2._StringFieldConst):
        return utf8_or_fffd(str(f).encode("utf-8", "surrogateescape"))
    if isinstance(f, bt2._StructureFieldConst):
        return {k: expected(v) for k, v in f.items()}
    if isinstance(f, (bt2._StaticArrayFieldConst, bt2._DynamicArrayFieldConst)):
        return [expected(v) for v in f]
    if isinstance(f, bt2._VariantFieldConst):
        name = f.cls.option_at_index(f.selected_option_index).name
        return {name: expected(f.selected_option)}
    raise TypeError(type(f))


def same(a, b):
    """Equal, with labels compared as sets (bt2 does not keep their order)
    and keys in order."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a.keys()) != list(b.keys()):
            return False
        for k in a:
            if k == "labels":
                if sorted(a[k]) != sorted(b[k]):
                    return False
            elif k == "label" and "labels" in a:
                if a[k] not in b.get("labels", []):
                    return False
            elif not same(a[k], b[k]):
                return False
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    return a == b


def check(lines, traces):
    """None when the JSON @lines (one event each) hold what bt2 reads from
    @traces, else the first difference."""
    it = bt2.TraceCollectionMessageIterator([bt2.AutoSourceComponentSpec(p) for p in traces])
    n = 0
    for msg in it:
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        ev = msg.event
        if n >= len(lines):
            return "bt2 has more than the %d events written" % len(lines)
        got = json.loads(lines[n])
        want = {"name": ev.name if ev.name is not None else "<unknown>"}
        if ev.stream.cls.default_clock_class is not None:
            want["time_ns"] = integer(msg.default_clock_snapshot.ns_from_origin)
        # bt2 names a trace after its hostname only; trawl adds the folder
        want["trace"] = got.get("trace", "")
        if (ev.stream.trace.name or "") != got.get("trace", "").split("/")[0]:
            return "event %d: trace %r, bt2 %r" % (n, got.get("trace"), ev.stream.trace.name)
        pc = ev.packet.context_field if ev.packet is not None else None
        for key, f in (("packet_context", pc), ("common_context", ev.common_context_field),
                       ("specific_context", ev.specific_context_field),
                       ("payload", ev.payload_field)):
            if f is not None and len(f):
                want[key] = expected(f)
        # an empty scope may be written as {} or left out
        got_cmp = {k: v for k, v in got.items() if v != {}}
        if not same(got_cmp, want):
            return "event %d:\n  trawl: %s\n  bt2:   %s" % (n, json.dumps(got)[:3000],
                                                         json.dumps(want)[:3000])
        n += 1
    if n != len(lines):
        return "%d events written, bt2 has %d" % (len(lines), n)
    return None


def read_lines(path):
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def main():
    lines = read_lines(sys.argv[1])
    err = check(lines, sys.argv[2:])
    if err:
        print("FAIL %s: %s" % (sys.argv[1], err))
        return 1
    print("%d events identical to bt2's" % len(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
