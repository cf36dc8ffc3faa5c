#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Sends hostile bytes to trawl-relayd's control and data ports: garbage, bad
# headers, oversized sizes, bad names, path escapes, unknown commands, half
# messages, many idle connections. Each bad peer must be dropped (relayd
# closes the connection); relayd must still answer a PING at the end.
# Two sessions with the same name, host and time (their own tokens) must
# get a folder each. Usage: hostile.py HOST CTRL_PORT DATA_PORT [RELAY_OUTPUT]
import os, random, socket, struct, sys, time

host, ctrl, data = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
MAGIC, VERSION = 0x594C5254, 1
HELLO, OPEN, APPEND, REPLACE, CLOSE, END, PING = range(1, 8)
fails = 0


def hdr(cmd, size, handle=0, magic=MAGIC, version=VERSION):
    return struct.pack("<IHHII", magic, version, cmd, handle, size)


def hello(session=b"s1", hostname=b"h1", flags=0, token=42, ctime=None):
    p = struct.pack("<QQII", int(time.time()) if ctime is None else ctime, token, flags, 0)
    p += session.ljust(256, b"\0")[:256] + hostname.ljust(256, b"\0")[:256]
    return hdr(HELLO, len(p)) + p


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
