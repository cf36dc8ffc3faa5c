#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""dump_bt2.py [--begin NS] [--end NS] TRACE...: every event of the traces
as babeltrace2's Python bindings (bt2) give it, in reader-dump's format
(tests/reader/dump.c says it), so that the fields trawl's reader lists can
be compared with babeltrace2's, event by event and value by value."""
import sys

import bt2


def put_string(b):
    out = ['"']
    for c in b:
        if c in (0x22, 0x5C) or c < 0x20 or c > 0x7E:
            out.append("\\x%02x" % c)
        else:
            out.append(chr(c))
    out.append('"')
    return "".join(out)


def enum_labels(f):
    """The labels of enumeration field @f's value. bt2 2.0's labels asserts
    when the value has none and no value of its class had any before: the C
    side then gives a NULL array for its empty one (the class's label
    buffer was never filled). That is an empty list too, when no mapping of
    the class holds the value."""
    try:
        return f.labels
    except AssertionError:
        v = int(f)
        if any(m.ranges.contains_value(v) for m in f.cls.values()):
            raise
        return []


def field(f):
    if isinstance(f, bt2._EnumerationFieldConst):
        return "e:%d[%s]" % (int(f), "|".join(enum_labels(f)))
    if isinstance(f, bt2._SignedIntegerFieldConst):
        return "i:%d" % int(f)
    if isinstance(f, bt2._UnsignedIntegerFieldConst):
        return "u:%d" % int(f)
    if isinstance(f, bt2._RealFieldConst):
        return "f:%s" % ("%.17g" % float(f))
    if isinstance(f, bt2._StringFieldConst):
        return "s:" + put_string(str(f).encode("utf-8", "surrogateescape"))
    if isinstance(f, bt2._StructureFieldConst):
        return "{" + ", ".join("%s=%s" % (k, field(v)) for k, v in f.items()) + "}"
    if isinstance(f, bt2._StaticArrayFieldConst):
        return "[" + ", ".join(field(v) for v in f) + "]"
    if isinstance(f, bt2._DynamicArrayFieldConst):
        return "<" + ", ".join(field(v) for v in f) + ">"
    if isinstance(f, bt2._VariantFieldConst):
        name = f.cls.option_at_index(f.selected_option_index).name
        return "(%s=%s)" % (name, field(f.selected_option))
    raise TypeError(type(f))


def main():
    args = sys.argv[1:]
    begin = end = None
    isect = False
    while args and args[0].startswith("--"):
        if args[0] == "--isect":
            isect = True
            args = args[1:]
            continue
        if args[0] == "--begin":
            begin = int(args[1])
        elif args[0] == "--end":
            end = int(args[1])
        args = args[2:]
    # found as the babeltrace2 command finds them (traces in subfolders too)
    spec = [bt2.AutoSourceComponentSpec(path) for path in args]
    # a time range is applied here, not with bt2's trimmer: its Python
    # wrapper passes times the trimmer misreads (2.0.4)
    it = bt2.TraceCollectionMessageIterator(spec, stream_intersection_mode=isect)
    out = sys.stdout
    for msg in it:
        if isinstance(msg, bt2._StreamBeginningMessageConst):
            tr = msg.stream.trace
            for k, v in tr.environment.items():
                out.write("env %s %s=%s\n" % (tr.name, k, v))
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        ev = msg.event
        line = "event %s class=%d sc=%d stream=%d trace=%s" % (
            ev.name if ev.name is not None else "<unknown>", ev.cls.id,
            ev.stream.cls.id, ev.stream.id, ev.stream.trace.name)
        if ev.stream.cls.default_clock_class is not None:
            cs = msg.default_clock_snapshot
            if (begin is not None and cs.ns_from_origin < begin) or \
               (end is not None and cs.ns_from_origin > end):
                continue
            line += " time=%d cycles=%d" % (cs.ns_from_origin, cs.value)
        pc = ev.packet.context_field if ev.packet is not None else None
        if pc is not None and "cpu_id" in pc:
            line += " cpu=%d" % int(pc["cpu_id"])
        else:
            line += " cpu=-"
        out.write(line + "\n")
        for name, f in (("pc", pc), ("cc", ev.common_context_field),
                        ("ec", ev.specific_context_field), ("p", ev.payload_field)):
            if f is not None:
                out.write("  %s=%s\n" % (name, field(f)))


if __name__ == "__main__":
    main()
