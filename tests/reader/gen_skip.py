#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_skip.py DIR: CTF 1.8 traces (one folder each under DIR) shaped for
the decode-only batch loop (src/reader/decode_skip.c), each with the
number of events it holds in DIR/NAME.count (the ones before the first
error, for those that end in one):

  large-1ghz      LTTng's large header (16-bit id, 32-bit timestamp that
                  wraps every few events), a 1 GHz clock; classes whose body
                  the loop steps over in one go (strings of 1 to 40 bytes,
                  lengths repeated and changed; none empty: babeltrace2
                  2.0.4 prints those wrong, see gen_plain.py), one it checks
                  step by step (two strings), and extended-header events
  large-1mhz      the same on a 1 MHz clock (times converted, not added),
                  in two streams as compact-2s
  compact-2s      LTTng's compact header (5-bit id and 27-bit timestamp in
                  one 32-bit load, wrapping), two streams whose events
                  interleave in runs of 1 to 50, half of them at the time
                  the other one's ended (the loop stops where the other
                  stream's next event comes first)
  overflow        a clock offset 1,700 s below INT64_MAX ns: the events
                  past it are out of range (an error, at the same event for
                  the loop and for one event at a time)
  cut, cut15      the last packet's content ends inside a string of 11 or
                  15 bytes, zeros after it (error)
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_types import Bits  # noqa: E402

HEADERS = {
    "large": """struct event_header {
	enum : uint16_t { compact = 0 ... 65534, extended = 65535 } id;
	variant <id> {
		struct { uint32_clock_t timestamp; } compact;
		struct { uint32_t id; uint64_clock_t timestamp; } extended;
	} v;
} align(8);""",
    "compact": """struct event_header {
	enum : uint5_t { compact = 0 ... 30, extended = 31 } id;
	variant <id> {
		struct { uint27_clock_t timestamp; } compact;
		struct { uint32_t id; uint64_clock_t timestamp; } extended;
	} v;
} align(8);""",
}


def metadata(header, freq, offset_s, nstreams):
    streams = "".join(f"""
stream {{
	id = {i};
	event.header := struct event_header;
	packet.context := struct packet_context;
}};
""" for i in range(nstreams))
    events = "".join(f"""
event {{
	name = "skip:{name}";
	id = {eid};
	stream_id = {sid};
	fields := struct {{ {fields} }};
}};
""" for sid in range(nstreams) for eid, name, fields in (
        (0, "anchor", "int64_t a; uint32_t b; string s;"),
        (1, "pre", "uint8_t x; string s; uint16_t y;"),
        (2, "two", "string s; string t;"),
        (3, "fixed", "uint64_t v;"),
    ))
    return f"""/* CTF 1.8 */
typealias integer {{ size = 5; align = 1; signed = false; }} := uint5_t;
typealias integer {{ size = 8; align = 8; signed = false; }} := uint8_t;
typealias integer {{ size = 16; align = 8; signed = false; }} := uint16_t;
typealias integer {{ size = 32; align = 8; signed = false; }} := uint32_t;
typealias integer {{ size = 64; align = 8; signed = false; }} := uint64_t;
typealias integer {{ size = 64; align = 8; signed = true; }} := int64_t;

trace {{
	major = 1;
	minor = 8;
	byte_order = le;
	packet.header := struct {{
		uint32_t magic;
		uint32_t stream_id;
	}};
}};

clock {{
	name = "c";
	freq = {freq};
	offset_s = {offset_s};
}};

typealias integer {{ size = 27; align = 1; signed = false; map = clock.c.value; }} := uint27_clock_t;
typealias integer {{ size = 32; align = 8; signed = false; map = clock.c.value; }} := uint32_clock_t;
typealias integer {{ size = 64; align = 8; signed = false; map = clock.c.value; }} := uint64_clock_t;

struct packet_context {{
	uint64_clock_t timestamp_begin;
	uint64_clock_t timestamp_end;
	uint64_t content_size;
	uint64_t packet_size;
}};

{HEADERS[header]}
{streams}{events}"""


class Stream:
    def __init__(self, sid, header):
        self.sid = sid
        self.header = header
        self.data = bytearray()
        self.w = None
        self.begin = 0
        self.ts = 0

    def open_packet(self, ts):
        self.w = Bits()
        self.w.int(0xC1FC1FC1, 32, False, 8)
        self.w.int(self.sid, 32, False, 8)
        self.ctx_at = self.w.pos
        for _ in range(4):
            self.w.int(0, 64, False, 8)
        self.begin = ts

    def event(self, eid, ts, body, extended):
        w = self.w
        if self.header == "large":
            if extended:
                w.int(65535, 16, False, 8)
                w.int(eid, 32, False, 8)
                w.int(ts, 64, False, 8)
            else:
                w.int(eid, 16, False, 8)
                w.int(ts, 32, False, 8)
        else:
            if extended:
                w.int(31, 5, False, 8)
                w.int(eid, 32, False, 8)
                w.int(ts, 64, False, 8)
            else:
                w.int(eid, 5, False, 8)
                w.int(ts, 27, False, 1)
        body(w)
        self.ts = ts

    def close_packet(self, content=None):
        w = self.w
        content = w.pos if content is None else content
        size = (w.pos // 8 + 8) // 8 * 8  # at least a byte of padding (zero)
        pw = Bits()
        pw.int(self.begin, 64, False, 8)
        pw.int(self.ts, 64, False, 8)
        pw.int(content, 64, False, 8)
        pw.int(size * 8, 64, False, 8)
        w.buf[self.ctx_at // 8:self.ctx_at // 8 + 32] = pw.buf
        w.buf.extend(b"\0" * (size - len(w.buf)))
        self.data += w.buf[:size]


def body_of(rnd, eid, slen):
    s = bytes(rnd.choice(b"abcdefgh") for _ in range(slen))

    def anchor(w):
        w.int(rnd.randrange(1 << 64), 64, False, 8)
        w.int(rnd.randrange(1 << 32), 32, False, 8)
        w.string(s)

    def pre(w):
        w.int(slen, 8, False, 8)
        w.string(s)
        w.int(7, 16, False, 8)

    def two(w):
        w.string(s)
        w.string(s[:3])

    def fixed(w):
        w.int(slen, 64, False, 8)

    return (anchor, pre, two, fixed)[eid]


def write(out, name, header, freq, offset_s, nstreams, per_stream, seed, cut=None):
    rnd = random.Random(seed)
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "metadata"), "w") as f:
        f.write(metadata(header, freq, offset_s, nstreams))
    ts_bits = 32 if header == "large" else 27
    streams = [Stream(i, header) for i in range(nstreams)]
    # one clock for all streams, runs of 1 to 50 events per stream in turn
    ts = 1000
    remaining = [per_stream] * nstreams
    eid, slen, cur = 0, 5, 0
    for s in streams:
        s.open_packet(ts)
    in_pkt = [0] * nstreams
    while any(remaining):
        if not remaining[cur]:
            cur = (cur + 1) % nstreams
            continue
        for k in range(min(remaining[cur], rnd.randint(1, 50))):
            s = streams[cur]
            r = rnd.random()
            # mostly small steps; sometimes past the timestamp's width
            # (the header's value wraps, and may wrap to a larger value);
            # half the runs start at the time the other stream ended at
            if k == 0 and nstreams > 1 and r < 0.5:
                pass
            elif r < 0.05:
                ts += rnd.randrange(1 << ts_bits, 3 << ts_bits)
            elif r < 0.3:
                ts += rnd.randrange(1 << (ts_bits - 2), 1 << ts_bits)
            else:
                ts += rnd.randrange(0, 300)
            if rnd.random() < 0.1:
                eid = rnd.randrange(4)
            if rnd.random() < 0.15:
                slen = rnd.choice([1, 2, 5, 14, 15, 16, 17, 31, 40])
            extended = rnd.random() < 0.02 or ts - s.ts >= (1 << ts_bits)
            s.event(eid, ts, body_of(rnd, eid, slen), extended)
            remaining[cur] -= 1
            in_pkt[cur] += 1
            if in_pkt[cur] >= 200 and remaining[cur]:
                s.close_packet()
                s.open_packet(ts)
                in_pkt[cur] = 0
        cur = (cur + 1) % nstreams
    count = per_stream * nstreams
    for i, s in enumerate(streams):
        content = None
        if cut and i == 0:
            # one more event, its string without a NUL up to the content's
            # end (the padding after it is zeros)
            s.event(0, ts + 1, lambda w: (w.int(1, 64, False, 8), w.int(2, 32, False, 8),
                                          w.raw(cut)), False)
            content = s.w.pos
        s.close_packet(content)
        with open(os.path.join(d, "chan_%d" % i), "wb") as f:
            f.write(s.data)
    return count


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    counts = {
        "large-1ghz": write(out, "large-1ghz", "large", 1000000000, 1700000000, 1, 3000, 1),
        "large-1mhz": write(out, "large-1mhz", "large", 1000000, 1700000000, 2, 3000, 2),
        "compact-2s": write(out, "compact-2s", "compact", 1000000000, 1700000000, 2, 3000, 3),
        "cut": write(out, "cut", "large", 1000000000, 1700000000, 1, 1000, 5, cut=b"no-nul-here"),
        # 15 bytes: the 16-byte compare would see the padding's zero
        "cut15": write(out, "cut15", "large", 1000000000, 1700000000, 1, 1000, 6,
                       cut=b"fifteen-bytes!!"),
    }
    # INT64_MAX ns is 9223372036.854775807 s: about 1,500 events (1.1 s
    # apart on average) reach it
    write(out, "overflow", "large", 1000000000, 9223372036 - 1700, 1, 3000, 4)
    counts["overflow"] = -1  # up to the first error: counted by the test
    for name, n in counts.items():
        with open(os.path.join(out, name + ".count"), "w") as f:
            f.write("%d\n" % n)


if __name__ == "__main__":
    main()
