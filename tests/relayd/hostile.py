#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Sends hostile bytes to trawl-relayd's control and data ports: garbage, bad
# headers, oversized sizes, bad names, path escapes, unknown commands, half
# messages, many idle connections. Each bad peer must be dropped (relayd
# closes the connection); relayd must still answer a PING at the end.
# Two sessions with the same name, host and time (their own tokens) must
# get a folder each. ARCHIVE and REMOVE (rotate, clear) move and remove only
# below the session's folder: a link planted there is removed, not followed. Usage: hostile.py HOST CTRL_PORT DATA_PORT [RELAY_OUTPUT]
import os, random, socket, struct, sys, time

host, ctrl, data = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
MAGIC, VERSION = 0x594C5254, 5
HELLO, OPEN, APPEND, REPLACE, CLOSE, END, PING = range(1, 8)
ARCHIVE, REMOVE, CHUNK, BEACON = 10, 11, 12, 13
fails = 0


def hdr(cmd, size, handle=0, magic=MAGIC, version=VERSION):
    return struct.pack("<IHHII", magic, version, cmd, handle, size)


def hello(session=b"s1", hostname=b"h1", flags=0, token=42, ctime=None, base=b"", version=VERSION):
    p = struct.pack("<QQII", int(time.time()) if ctime is None else ctime, token, flags, 0)
    p += session.ljust(256, b"\0")[:256] + hostname.ljust(256, b"\0")[:256]
    p += base.ljust(1024, b"\0")[:1024]
    return hdr(HELLO, len(p), version=version) + p


def open_msg(path, handle=1, kind=0):
    p = struct.pack("<I", kind) + path + b"\0"
    return hdr(OPEN, len(p), handle) + p


def dropped(port, payload, name, expect_reply=0):
    """Sends payload; relayd must close the connection (after expect_reply bytes)."""
    global fails
    s = socket.create_connection((host, port), timeout=10)
    try:
        s.sendall(payload)
        got = b""
        while True:
            try:
                b = s.recv(4096)
            except ConnectionResetError:
                break
            if not b:
                break
            got += b
        if len(got) != expect_reply:
            print(f"FAIL {name}: got {len(got)} reply bytes, wanted {expect_reply}")
            fails += 1
    except socket.timeout:
        print(f"FAIL {name}: relayd kept the connection open")
        fails += 1
    finally:
        s.close()


rnd = random.Random(1234)
for port in (ctrl, data):
    for i in range(20):
        dropped(port, bytes(rnd.getrandbits(8) for _ in range(rnd.randint(16, 4096))),
                f"random {i}")
    dropped(port, hdr(PING, 0, magic=0xdeadbeef), "bad magic")
    dropped(port, hdr(PING, 0, version=99), "bad version")
    dropped(port, hdr(99, 0), "unknown command")
    dropped(port, hdr(0, 0), "command 0")
    dropped(port, hdr(APPEND, 0xFFFFFFFF, 1), "huge size")
    dropped(port, hdr(APPEND, 1 << 27, 1), "size over the limit")
    dropped(port, hdr(APPEND, 4, 1) + b"abcd", "append before hello")
    dropped(port, hdr(OPEN, 0, 1 << 20), "handle out of range")
    dropped(port, hdr(PING, 3) + b"abc", "ping with a payload")
    dropped(port, hello(b"../x"), "session name ..")
    dropped(port, hello(b"a/b"), "session name with /")
    dropped(port, hello(b"s1", b".."), "hostname ..")
    dropped(port, hello(b"s1", b""), "empty hostname")
    dropped(port, hello(b"s" * 300), "session name without NUL")
    dropped(port, hello(flags=0x80), "unknown flag")
    for base in (b"../x", b"/abs", b"a/../b", b"a//b", b"a b", b"x" * 1024):
        dropped(port, hello(base=base), f"base path {base[:40]!r}")
    dropped(port, hdr(HELLO, 10) + b"0123456789", "short hello")
    for path in (b"../escaped", b"/tmp/escaped-abs", b"a/../../escaped", b"a//b",
                 b"./escaped", b"", b"ust/../../../escaped", b"bad\nname", b"x" * 2000):
        dropped(port, hello() + open_msg(path), f"path {path[:40]!r}", 16)
    dropped(port, hello() + open_msg(b"ok", kind=7), "bad file kind", 16)
    dropped(port, hello() + hdr(OPEN, 4, 1) + b"\0\0\0\0", "open without a path", 16)
    dropped(port, hello() + hdr(APPEND, 3, 5) + b"abc", "append to a closed handle", 16)
    dropped(port, hello() + open_msg(b"m", 1, 0) + hdr(REPLACE, 2, 1) + b"xx",
            "replace of a data file", 16)
    dropped(port, hello() + open_msg(b"f") + open_msg(b"g"), "handle opened twice", 16)
    dropped(port, hello() + hello(), "hello twice", 16)
    dropped(port, hello() + hdr(CLOSE, 0, 9), "close of a closed handle", 16)
    for pl in (b"../x\0archives/y\0", b"a\0/tmp/escaped-abs\0", b"a\0b\0",
               b"archives/a\0archives/b\0", b".token\0archives/t\0", b"a\0archives/../../x\0",
               b"a\0archives/b", b"a\0", b"a\0archives/b\0c\0", b"\0archives/b\0",
               b"a\0archives\0"):
        dropped(port, hello() + hdr(ARCHIVE, len(pl)) + pl, f"archive {pl!r}", 16)
    dropped(port, hello() + hdr(ARCHIVE, 12, 3) + b"a\0archives/b\0", "archive with a handle", 16)
    for pl in (b"..\0", b"/tmp\0", b".token\0", b"archives\0", b"archives/x\0", b"a", b"\0",
               b"a/../..\0"):
        dropped(port, hello() + hdr(REMOVE, len(pl)) + pl, f"remove {pl!r}", 16)
    # CHUNK (op, FROM, TO, NEXT): FROM and NEXT one name or "", TO in archives/
    for pl in (struct.pack("<I", 0) + b"a/b\0archives/x\0\0",
               struct.pack("<I", 0) + b"..\0archives/x\0\0",
               struct.pack("<I", 0) + b"a\0x\0\0",
               struct.pack("<I", 0) + b"a\0archives/../../x\0\0",
               struct.pack("<I", 0) + b"archives\0archives/x\0\0",
               struct.pack("<I", 0) + b".token\0archives/x\0\0",
               struct.pack("<I", 0) + b"a\0archives/x\0b/c\0",
               struct.pack("<I", 0) + b"a\0archives/x\0a\0",
               struct.pack("<I", 0) + b"a\0archives/x\0",
               struct.pack("<I", 0) + b"a\0archives/x\0\0\0",
               struct.pack("<I", 1) + b"a\0archives/x\0\0",
               struct.pack("<I", 2) + b"a\0\0\0",
               struct.pack("<I", 0) + b"a\0archives/x\0\0"[:-1],
               b"\0\0"):
        dropped(port, hello() + hdr(CHUNK, len(pl)) + pl, f"chunk {pl!r}", 16)
    # BEACON: 8 bytes, on an open index file
    dropped(port, hello() + open_msg(b"i", 1, 1) + hdr(BEACON, 4, 1) + b"\0" * 4,
            "short beacon", 16)
    dropped(port, hello() + open_msg(b"d", 1, 0) + hdr(BEACON, 8, 1) + b"\0" * 8,
            "beacon on a data file", 16)
    dropped(port, hello() + hdr(BEACON, 8, 7) + b"\0" * 8, "beacon on a closed handle", 16)
    # an older peer's HELLO: answered "protocol not supported", then dropped
    s = socket.create_connection((host, port), timeout=10)
    try:
        s.sendall(hello(version=4))
        r = s.recv(16)
        st = struct.unpack("<Ii", r[:8])[1] if len(r) == 16 else None
        if st != -93 or s.recv(1) != b"":  # -EPROTONOSUPPORT
            print(f"FAIL older peer's HELLO: reply status {st}, wanted -93, then closed")
            fails += 1
    finally:
        s.close()
    # half a message, then the peer goes
    s = socket.create_connection((host, port))
    s.sendall(hello() + hdr(APPEND, 1000, 1) + b"abc")
    s.close()

# two sessions with one name, host and creation time but their own tokens:
# two folders, neither truncating the other's file
if len(sys.argv) > 4:
    out, now = sys.argv[4], int(time.time())
    conns = []
    for tok, text in ((1, b"first"), (2, b"second")):
        c = socket.create_connection((host, data), timeout=10)
        c.sendall(hello(b"same", b"hs", token=tok, ctime=now))
        if len(c.recv(16)) != 16:
            print("FAIL: no HELLO reply")
            fails += 1
        c.sendall(open_msg(b"f", 1) + hdr(APPEND, len(text), 1) + text + hdr(END, 0))
        conns.append(c)
    for c in conns:
        c.recv(1)  # relayd closes after END
        c.close()
    got = sorted(open(os.path.join(out, "hs", d, "f"), "rb").read()
                 for d in os.listdir(os.path.join(out, "hs")))
    if got != [b"first", b"second"]:
        print(f"FAIL: same-named sessions share a folder: {got}")
        fails += 1

def ping(c):
    c.sendall(hdr(PING, 0))
    r = c.recv(16)
    return struct.unpack("<IiQ", r)[1] if len(r) == 16 else None


# a chunk archived and another cleared, by the book; a link planted in the
# folder to clear is removed, what it points to stays
if len(sys.argv) > 4:
    out = sys.argv[4]
    c = socket.create_connection((host, data), timeout=10)
    c.sendall(hello(b"rot", b"hr", token=7))
    c.recv(16)
    c.sendall(open_msg(b"c1/ust/f", 1) + hdr(APPEND, 3, 1) + b"one" + hdr(CLOSE, 0, 1))
    pl = b"c1/ust\0archives/a-b-0/ust\0"
    c.sendall(hdr(ARCHIVE, len(pl)) + pl)
    if ping(c) != 0:
        print("FAIL: ARCHIVE by the book not confirmed")
        fails += 1
    sess = os.path.join(out, "hr", os.listdir(os.path.join(out, "hr"))[0])
    if (not os.path.isfile(os.path.join(sess, "archives/a-b-0/ust/f")) or
            os.path.exists(os.path.join(sess, "c1"))):
        print(f"FAIL: ARCHIVE did not move c1/ust (or left c1): {sorted(os.listdir(sess))}")
        fails += 1
    outside = os.path.join(out, "..", "hostile-outside")
    os.makedirs(outside, exist_ok=True)
    open(os.path.join(outside, "keep"), "w").write("keep")
    c.sendall(open_msg(b"c2/ust/g", 1) + hdr(APPEND, 3, 1) + b"two" + hdr(CLOSE, 0, 1))
    ping(c)
    os.symlink(os.path.abspath(outside), os.path.join(sess, "c2/ust/link"))
    pl = b"c2/ust\0"
    c.sendall(hdr(REMOVE, len(pl)) + pl)
    if ping(c) != 0:
        print("FAIL: REMOVE by the book not confirmed")
        fails += 1
    if os.listdir(os.path.join(sess, "c2/ust")) or not os.path.isfile(os.path.join(outside, "keep")):
        print("FAIL: REMOVE left files, or followed a link out of the session folder")
        fails += 1
    # moving onto what exists replaces nothing: relayd says so at the next PING
    c.sendall(open_msg(b"c3/ust/h", 1) + hdr(CLOSE, 0, 1))
    pl = b"c3/ust\0archives/a-b-0/ust\0"
    c.sendall(hdr(ARCHIVE, len(pl)) + pl)
    if ping(c) in (0, None) or open(os.path.join(sess, "archives/a-b-0/ust/f")).read() != "one":
        print("FAIL: ARCHIVE onto an existing archive was not refused")
        fails += 1
    c.close()

# many idle connections at once, then a session that works alongside them
idle = [socket.create_connection((host, data)) for _ in range(100)]
s = socket.create_connection((host, ctrl), timeout=10)
s.sendall(hdr(PING, 0))
r = s.recv(16)
if len(r) != 16 or struct.unpack("<IiQ", r)[:2] != (MAGIC, 0):
    print("FAIL: no answer to PING after the hostile peers")
    fails += 1
s.close()
for c in idle:
    c.close()
sys.exit(1 if fails else 0)
