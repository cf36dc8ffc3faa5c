#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gen_plain.py DIR [le|be] [cut-int|cut-string|empty]: a CTF 1.8 trace of
the bodies the reader prints without its plan interpreter (src/reader/
plan_text.c): byte-aligned integers of 8 to 64 bits, signed and unsigned,
at their extremes, and strings short and long, clean and needing escapes
at every place. With cut-int or cut-string, the last packet's content
ends inside the last event's integers or inside its string (no NUL:
babeltrace2 2.0.4 reads a big-endian one into the padding, so little-endian);
with empty, some strings are empty (babeltrace2 2.0.4 prints a recycled
string's previous content for those: compared with the tree walker only).
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_types import Bits  # noqa: E402


def metadata(bo):
    return f"""/* CTF 1.8 */
typealias integer {{ size = 8; align = 8; signed = false; }} := uint8_t;
typealias integer {{ size = 16; align = 8; signed = false; }} := uint16_t;
typealias integer {{ size = 32; align = 8; signed = false; }} := uint32_t;
typealias integer {{ size = 64; align = 8; signed = false; }} := uint64_t;
typealias integer {{ size = 8; align = 8; signed = true; }} := int8_t;
typealias integer {{ size = 16; align = 8; signed = true; }} := int16_t;
typealias integer {{ size = 32; align = 8; signed = true; }} := int32_t;
typealias integer {{ size = 64; align = 8; signed = true; }} := int64_t;

trace {{
	major = 1;
	minor = 8;
	byte_order = {bo};
	packet.header := struct {{
		uint32_t magic;
		uint32_t stream_id;
	}};
}};

env {{
	hostname = "plainhost";
	domain = "ust";
	procname = "plain";
	vpid = 7;
}};

clock {{
	name = "mono";
	freq = 1000000000;
	offset_s = 1700000000;
}};

typealias integer {{ size = 64; align = 8; signed = false; map = clock.mono.value; }} := ts_t;

stream {{
	id = 0;
	packet.context := struct {{
		ts_t timestamp_begin;
		ts_t timestamp_end;
		uint64_t content_size;
		uint64_t packet_size;
		uint32_t cpu_id;
	}};
	event.header := struct {{
		uint32_t id;
		ts_t timestamp;
	}};
}};

event {{
	name = "plain:ints";
	id = 0;
	stream_id = 0;
	fields := struct {{
		uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
		int8_t s8; int16_t s16; int32_t s32; int64_t s64;
		string s;
	}};
}};

event {{
	name = "plain:strings";
	id = 1;
	stream_id = 0;
	fields := struct {{
		string first;
		uint8_t between;
		string second;
	}};
}};
"""


def extremes(bits):
    hi = 1 << bits
    return [0, 1, 9, 10, 99, 100, hi // 2 - 1, hi // 2, hi - 2, hi - 1]


def main():
    out = sys.argv[1]
    be = len(sys.argv) > 2 and sys.argv[2] == "be"
    mode = sys.argv[3] if len(sys.argv) > 3 else ""
    rnd = random.Random(17)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "metadata"), "w") as f:
        f.write(metadata("be" if be else "le"))
    strings = [b"x", b"plain", b"fifteen-bytes!!", b"sixteen-bytes!!!", b"seventeen-bytes!!",
               b"a" * 63, b"b" * 64, b"c" * 65, b"long " * 40, bytes(range(0x80, 0x100)),
               b"utf-8: \xc3\xa9t\xc3\xa9"]
    # every byte that needs an escape, at the start, the middle and the end
    # of strings of 1, 8, 16 and 17 bytes
    for c in list(range(1, 0x20)) + [0x7f, ord("\\"), ord("'"), ord('"'), ord("?")]:
        for n in (1, 8, 16, 17):
            for at in (0, n // 2, n - 1):
                s = bytearray(b"k" * n)
                s[at] = c
                strings.append(bytes(s))
    if mode == "empty":
        strings += [b""] * 8
    ts = 1000
    data = bytearray()
    nev = 0
    for pkt in range(6):
        w = Bits()
        w.int(0xC1FC1FC1, 32, be, 8)
        w.int(0, 32, be, 8)
        ctx_at = w.pos
        for _ in range(4):
            w.int(0, 64, be, 8)
        w.int(pkt % 2, 32, be, 8)
        begin = ts
        last = 0
        for k in range(60):
            ts += rnd.choice([1, 150, 999999999, 1000000000, 1000000001, 3])
            last = w.pos
            eid = k % 2
            w.int(eid, 32, be, 8)
            w.int(ts, 64, be, 8)
            if eid == 0:
                # every extreme of every size in turn, and random values between
                for i, bits in enumerate((8, 16, 32, 64, 8, 16, 32, 64)):
                    ex = extremes(bits) + [rnd.randrange(1 << bits)]
                    w.int(ex[(nev // 2 + i) % len(ex)], bits, be, 8)
                w.string(strings[nev % len(strings)])
            else:
                w.string(strings[(nev * 7) % len(strings)])
                w.int(nev & 0xFF, 8, be, 8)
                w.string(strings[(nev * 3 + 1) % len(strings)])
            nev += 1
        content = w.pos
        if pkt == 5 and mode == "cut-int":
            content = last + (4 + 8 + 1 + 2 + 3) * 8  # inside the u64 of a plain:ints
        elif pkt == 5 and mode == "cut-string":
            w.int(0, 32, be, 8)  # one more plain:ints whose string has no NUL
            w.int(ts, 64, be, 8)
            for bits in (8, 16, 32, 64, 8, 16, 32, 64):
                w.int(5, bits, be, 8)
            w.raw(b"no-nul-here")
            content = w.pos
        size = (content // 8 + 7) // 8 * 8
        pw = Bits()
        pw.int(begin, 64, be, 8)
        pw.int(ts, 64, be, 8)
        pw.int(content, 64, be, 8)
        pw.int(size * 8, 64, be, 8)
        w.buf[ctx_at // 8:ctx_at // 8 + 32] = pw.buf
        w.buf = w.buf[:size]
        w.buf.extend(b"\0" * (size - len(w.buf)))
        data += w.buf
    with open(os.path.join(out, "chan_0"), "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
