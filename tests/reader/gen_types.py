#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_types.py DIR [be|le]: writes a CTF 1.8 trace that uses every field
type the reader supports, in both byte orders, so that trawl view can be
compared with babeltrace2 (tests/reader/types.sh).

Covered: integers of odd sizes at odd bit offsets (both byte orders),
signed/unsigned, bases 2/8/10/16, enums (unsigned, signed, ranges, several
labels for one value, unknown values), floats (32/64), strings with every
byte value, text and non-text static arrays and sequences, nested structs,
arrays of structs, variants (with underscore-prefixed options), a struct
aligned with align(N), stream event contexts, event contexts, several
stream classes and streams, a clock at 1.5 GHz with offsets, compact
timestamps that wrap, discarded events and a lost packet.
"""
import os
import random
import struct
import sys


class Bits:
    """Appends fields bit by bit as CTF lays them out."""

    def __init__(self):
        self.buf = bytearray()
        self.pos = 0  # bits

    def _ensure(self, nbits):
        need = (self.pos + nbits + 7) // 8
        if len(self.buf) < need:
            self.buf.extend(b"\0" * (need - len(self.buf)))

    def align(self, a):
        self.pos = (self.pos + a - 1) // a * a
        self._ensure(0)

    def int(self, v, size, be, align=1):
        self.align(align)
        v &= (1 << size) - 1
        self._ensure(size)
        for i in range(size):
            p = self.pos + i
            if be:
                bit = (v >> (size - 1 - i)) & 1
                self.buf[p // 8] |= bit << (7 - p % 8)
            else:
                bit = (v >> i) & 1
                self.buf[p // 8] |= bit << (p % 8)
        self.pos += size

    def raw(self, data):
        self.align(8)
        self._ensure(len(data) * 8)
        self.buf[self.pos // 8:self.pos // 8 + len(data)] = data
        self.pos += len(data) * 8

    def string(self, s):
        self.raw(s + b"\0")


def metadata(bo):
    other = "le" if bo == "be" else "be"
    return f"""/* CTF 1.8 */
typealias integer {{ size = 8; align = 8; signed = false; }} := uint8_t;
typealias integer {{ size = 16; align = 8; signed = false; }} := uint16_t;
typealias integer {{ size = 32; align = 8; signed = false; }} := uint32_t;
typealias integer {{ size = 64; align = 8; signed = false; }} := uint64_t;
typealias integer {{ size = 32; align = 8; signed = true; }} := int;

trace {{
	major = 1;
	minor = 8;
	uuid = "8ed6e0a4-3a6b-4c2e-9d3c-6a1f0e2b7c11";
	byte_order = {bo};
	packet.header := struct {{
		uint32_t magic;
		uint8_t uuid[16];
		uint16_t stream_id;
		uint16_t stream_instance_id;
	}};
}};

env {{
	hostname = "typehost";
	domain = "ust";
	procname = "types";
	vpid = 4242;
	tracer_name = "gen_types";
}};

clock {{
	name = "fast";
	freq = 1500000000;
	offset_s = 1700000000;
	offset = 750000000;
	precision = 10;
	description = "a 1.5 GHz clock";
}};

typealias integer {{ size = 64; align = 8; signed = false; map = clock.fast.value; }} := ts64_t;
typealias integer {{ size = 20; align = 1; signed = false; map = clock.fast.value; }} := ts20_t;

enum colour : uint8_t {{ RED, GREEN = 5, BLUE, "light grey" = 10 ... 19, DARK = 15 }};
typedef enum : integer {{ size = 16; signed = true; align = 8; }} {{ NEG = -100 ... -1, ZERO = 0, POS = 1 ... 1000 }} sign_t;

struct point {{
	int x;
	integer {{ size = 12; signed = true; byte_order = {other}; align = 8; }} y;
}} align(32);

stream {{
	id = 0;
	packet.context := struct {{
		ts64_t timestamp_begin;
		ts64_t timestamp_end;
		uint32_t content_size;
		uint32_t packet_size;
		uint32_t events_discarded;
		uint32_t packet_seq_num;
		uint8_t cpu_id;
	}};
	event.header := struct {{
		integer {{ size = 4; align = 8; signed = false; }} id;
		ts20_t timestamp;
	}};
	event.context := struct {{
		integer {{ size = 3; align = 1; signed = false; }} prio;
		integer {{ size = 5; align = 1; signed = true; base = 2; }} nice;
	}};
}};

stream {{
	id = 1;
	packet.context := struct {{
		ts64_t timestamp_begin;
		ts64_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
	}};
	event.header := struct {{
		enum : uint8_t {{ compact = 0 ... 254, extended = 255 }} id;
		variant <id> {{
			struct {{ ts20_t timestamp; }} compact;
			struct {{ uint32_t id; ts64_t timestamp; }} extended;
		}} v;
	}};
}};

event {{
	name = "ints";
	id = 0;
	stream_id = 0;
	loglevel = 4;
	model.emf.uri = "http://example.com/ints";
	context := struct {{
		string tag;
	}};
	fields := struct {{
		integer {{ size = 1; align = 1; signed = false; }} b1;
		integer {{ size = 7; align = 1; signed = true; }} s7;
		integer {{ size = 13; align = 1; signed = false; base = 16; }} h13;
		integer {{ size = 11; align = 1; signed = true; base = 8; }} o11;
		integer {{ size = 9; align = 1; signed = false; base = 2; }} bin9;
		integer {{ size = 33; align = 1; signed = true; byte_order = {bo}; }} s33;
		integer {{ size = 64; align = 8; signed = true; }} s64;
		integer {{ size = 64; align = 8; signed = false; base = x; }} x64;
		integer {{ size = 16; align = 16; signed = true; byte_order = {other}; base = hex; }} hs16;
		integer {{ size = 24; align = 8; signed = false; byte_order = {other}; }} u24;
		enum colour c;
		sign_t sg;
	}};
}};

event {{
	name = "floats_strings";
	id = 1;
	stream_id = 0;
	context := struct {{
		string tag;
	}};
	fields := struct {{
		floating_point {{ exp_dig = 8; mant_dig = 24; align = 32; }} f;
		floating_point {{ exp_dig = 11; mant_dig = 53; align = 64; byte_order = {other}; }} d;
		string s;
		integer {{ size = 8; align = 8; signed = false; encoding = UTF8; }} text[6];
		uint8_t _n;
		integer {{ size = 8; align = 8; signed = true; encoding = ASCII; }} seqtext[_n];
		uint8_t raw[3];
		uint16_t _m;
		struct point pts[_m];
		struct {{ uint8_t a; struct {{ uint16_t b[2]; }} inner; }} nest;
		uint8_t empty[0];
	}};
}};

event {{
	name = "variants";
	id = 2;
	stream_id = 0;
	context := struct {{
		string tag;
	}};
	fields := struct {{
		enum : uint8_t {{ _int, _str, nothing, "multi" = 3 ... 4 }} sel;
		variant <sel> {{
			int _int;
			string _str;
			struct {{ }} nothing;
			uint16_t multi[2];
		}} v;
		uint8_t after;
	}};
}};

event {{
	name = "meta:long";
	id = 0;
	stream_id = 1;
	fields := struct {{
		uint32_t n;
		sign_t s;
	}};
}};

event {{
	name = "meta:empty";
	id = 300;
	stream_id = 1;
}};
"""


def main():
    out = sys.argv[1]
    bo = sys.argv[2] if len(sys.argv) > 2 else "le"
    be = bo == "be"
    ob = not be
    rnd = random.Random(7)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(metadata(bo))
    uuid = bytes.fromhex("8ed6e0a43a6b4c2e9d3c6a1f0e2b7c11")
    E = ">" if be else "<"

    def header(w, sid, inst):
        w.int(0xC1FC1FC1, 32, be, 8)
        w.raw(uuid)
        w.int(sid, 16, be, 8)
        w.int(inst, 16, be, 8)

    # ---- stream class 0: two streams, several packets, compact timestamps
    # No empty strings, nor text arrays starting with NUL: babeltrace2 2.0.4
    # prints a recycled field's previous content for those (its string field
    # is cleared without writing a NUL); trawl prints "" as the data says.
    strings = [bytes(range(1, 128)), bytes(range(128, 256)), b"plain", b"x",
               b"quote\"back\\slash'?", b"tab\tnl\ncr\resc\x1bdel\x7f"]
    for inst in (0, 1):
        ts = 10_000_000 + inst * 333
        seq = 0
        disc = 0
        data = bytearray()
        for pkt in range(4):
            if inst == 1 and pkt == 2:
                seq += 1  # a lost packet
            w = Bits()
            header(w, 0, inst)
            ctx_at = w.pos
            # placeholders, patched below
            w.int(0, 64, be, 8)
            w.int(0, 64, be, 8)
            w.int(0, 32, be, 8)
            w.int(0, 32, be, 8)
            w.int(disc, 32, be, 8)
            w.int(seq, 32, be, 8)
            w.int(inst + 2, 8, be, 8)
            begin = ts
            for k in range(12):
                ts += rnd.choice([1, 7, 1000, 400000, 900000])  # wraps 20 bits
                eid = k % 3
                w.int(eid, 4, be, 8)
                w.int(ts & 0xFFFFF, 20, be, 1)
                w.int(rnd.randrange(8), 3, be, 1)
                w.int(rnd.randrange(-16, 16), 5, be, 1)
                w.string(b"ev%d" % k)
                if eid == 0:
                    w.align(16)  # the payload struct aligns like its most aligned field
                    w.int(rnd.randrange(2), 1, be)
                    w.int(rnd.randrange(-64, 64), 7, be)
                    w.int(rnd.randrange(1 << 13), 13, be)
                    w.int(rnd.randrange(-1024, 1024), 11, be)
                    w.int(rnd.randrange(512), 9, be)
                    w.int(rnd.choice([-(1 << 32), (1 << 32) - 1, -1, 0, 12345]), 33, be)
                    w.int(rnd.choice([-(1 << 63), (1 << 63) - 1, -1, 42]), 64, be, 8)
                    w.int(rnd.choice([0, 0xDEADBEEF, (1 << 64) - 1]), 64, be, 8)
                    w.int(rnd.choice([-1, -32768, 32767, 0x1234]), 16, ob, 16)
                    w.int(rnd.randrange(1 << 24), 24, ob, 8)
                    w.int(rnd.choice([0, 5, 6, 7, 10, 15, 19, 20, 255]), 8, be, 8)
                    w.int(rnd.choice([-100, -5, 0, 1, 999, 1000, 1001, -101]), 16, be, 8)
                elif eid == 1:
                    w.align(64)
                    w.raw(struct.pack(E + "f", rnd.choice([0.0, -1.5, 3.14159, 1e-30, 6.02e23])))
                    w.align(64)
                    w.raw(struct.pack(("<" if be else ">") + "d",
                                      rnd.choice([0.0, -2.5e-300, 1e300, 123456.789, 1 / 3])))
                    w.string(rnd.choice(strings))
                    w.raw(rnd.choice([b"abc\0de", b"abcdef", b"Z\0\0\0\0\0", b"a\x01\"\\?z"]))
                    n = rnd.randrange(1, 5)
                    w.int(n, 8, be, 8)
                    w.raw(bytes(rnd.randrange(32, 127) for _ in range(n)))
                    w.raw(bytes([1, 2, 3]))
                    m = rnd.randrange(3)
                    w.int(m, 16, be, 8)
                    w.align(32)  # a sequence aligns like its elements, even when empty
                    for _ in range(m):
                        w.align(32)
                        w.int(rnd.randrange(-5000, 5000), 32, be, 8)
                        w.int(rnd.randrange(-2048, 2048), 12, ob, 8)
                    w.int(9, 8, be, 8)
                    w.int(0x102, 16, be, 8)
                    w.int(0xFFFF, 16, be, 8)
                else:
                    sel = rnd.choice([0, 1, 2, 3, 4])
                    w.int(sel, 8, be, 8)
                    if sel == 0:
                        w.int(rnd.randrange(-1000, 1000), 32, be, 8)
                    elif sel == 1:
                        w.string(b"variant string")
                    elif sel >= 3:
                        w.int(7, 16, be, 8)
                        w.int(8, 16, be, 8)
                    w.int(0xAB, 8, be, 8)
            w.align(8)
            content = w.pos
            size = (content // 8 + 16 + 7) // 8 * 8  # some padding
            end_ts = ts
            pw = Bits()
            pw.int(begin, 64, be, 8)
            pw.int(end_ts, 64, be, 8)
            pw.int(content, 32, be, 8)
            pw.int(size * 8, 32, be, 8)
            w.buf[ctx_at // 8:ctx_at // 8 + 24] = pw.buf
            w.buf.extend(b"\0" * (size - len(w.buf)))
            data += w.buf
            seq += 1
            disc += 3 if pkt == 1 else 0
        with open(os.path.join(out, "chan0_%d" % inst), "wb") as f:
            f.write(data)

    # ---- stream class 1: large ids through the variant header, one packet
    w = Bits()
    header(w, 1, 7)
    ctx_at = w.pos
    for _ in range(4):
        w.int(0, 64, be, 8)
    ts = 10_000_500
    begin = ts
    for k in range(6):
        ts += 1000
        if k % 2:
            w.int(255, 8, be, 8)
            w.int(300, 32, be, 8)
            w.int(ts, 64, be, 8)
        else:
            w.int(0, 8, be, 8)
            w.int(ts & 0xFFFFF, 20, be, 1)
            w.align(8)
            w.int(k * 1000, 32, be, 8)
            w.int(-k, 16, be, 8)
    content = w.pos
    pw = Bits()
    pw.int(begin, 64, be, 8)
    pw.int(ts, 64, be, 8)
    pw.int(content, 64, be, 8)
    pw.int(content, 64, be, 8)
    w.buf[ctx_at // 8:ctx_at // 8 + 32] = pw.buf
    with open(os.path.join(out, "chan1_0"), "wb") as f:
        f.write(w.buf)


if __name__ == "__main__":
    main()
