#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trawl-relayd against a peer that means harm, from another address
(127.0.0.2) while an honest peer uses 127.0.0.1:

  deaf     PINGs sent by the hundred thousand and no reply read: relayd's
           one streaming thread must not block writing replies (it did:
           every peer froze); the deaf peer is dropped, the honest peer's
           PING answered throughout
  idle     400 idle connections: at most 256 (one host's share) kept, the
           rest closed at once; the honest peer still answered
  viewers  30 idle live viewers: at most 16 from one host, the honest
           viewer still connects and is answered

Pass/fail: answers within a generous bound (5 s), counts of closed
connections. Usage: relayd-dos.py (TRAWL_BIN_DIR set by ctest).
"""
import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

BIN = os.environ.get("TRAWL_BIN_DIR") or sys.exit("run through ctest")
MAGIC, PING = 0x594C5254, 7
BOUND = 5.0
FAILS = []


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    FAILS.append(msg)


def ping_hdr():
    return struct.pack("<IHHII", MAGIC, 5, PING, 0, 0)  # relay protocol 5


def connect(port, src="127.0.0.1", timeout=BOUND, rcvbuf=0):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((src, 0))
    s.settimeout(timeout)
    s.connect(("127.0.0.1", port))
    return s


def honest_ping(port, what):
    """A PING from 127.0.0.1 must be answered within BOUND seconds."""
    t0 = time.monotonic()
    try:
        s = connect(port)
        s.sendall(ping_hdr())
        r = b""
        while len(r) < 16:
            b = s.recv(16 - len(r))
            if not b:
                break
            r += b
        s.close()
        ok = len(r) == 16 and struct.unpack("<IiQ", r)[:2] == (MAGIC, 0)
    except OSError as e:
        ok, r = False, str(e).encode()
    if not ok:
        fail("%s: no answer to an honest PING within %.0f s (%r)" % (what, BOUND, r))
    else:
        print("%s: honest PING answered in %.1f ms" % (what, (time.monotonic() - t0) * 1e3))


def closed(s):
    """Whether relayd closed @s (drains what it sent)."""
    s.setblocking(False)
    try:
        while True:
            if not s.recv(65536):
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def deaf(port):
    s = connect(port, "127.0.0.2", rcvbuf=4096)
    stop = threading.Event()
    sent = [0]

    def flood():
        msg = ping_hdr() * 4096
        s.setblocking(False)
        while not stop.is_set():
            try:
                sent[0] += s.send(msg) // 16
            except BlockingIOError:
                select.select([], [s], [], 0.1)
            except OSError:
                return

    t = threading.Thread(target=flood)
    t.start()
    # Long enough to fill any socket buffer with unread replies (4 MiB).
    time.sleep(4)
    for i in range(3):
        honest_ping(port, "deaf peer flooding (%d)" % i)
        time.sleep(0.5)
    stop.set()
    t.join()
    print("deaf peer: %d PINGs sent" % sent[0])
    if sent[0] < 20000:
        fail("the deaf peer sent only %d PINGs (relayd read them slowly?)" % sent[0])
    deadline = time.monotonic() + 30
    while not closed(s) and time.monotonic() < deadline:
        time.sleep(0.2)
    if not closed(s):
        fail("relayd kept the deaf peer")
    s.close()


def idle(port):
    socks = [connect(port, "127.0.0.2") for _ in range(400)]
    honest_ping(port, "400 idle connections from another host")
    time.sleep(1)
    shut = sum(1 for s in socks if closed(s))
    print("idle flood: %d of 400 closed at once" % shut)
    if shut < 400 - 256:
        fail("relayd kept %d idle connections from one host (share: 256)" % (400 - shut))
    for s in socks:
        s.close()


def viewer_connect(s):
    """LTTng live CONNECT (big-endian); True if answered."""
    s.sendall(struct.pack(">QII", 20, 1, 0) + struct.pack(">QIII", 0, 2, 4, 1))
    r = b""
    while len(r) < 20:
        b = s.recv(20 - len(r))
        if not b:
            return False
        r += b
    return True


def viewers(port):
    socks = []
    for _ in range(30):
        try:
            socks.append(connect(port, "127.0.0.2"))
        except OSError:
            pass
    time.sleep(1)
    shut = sum(1 for s in socks if closed(s))
    print("idle viewers: %d of %d closed at once" % (shut, len(socks)))
    if len(socks) - shut > 16:
        fail("relayd kept %d idle viewers from one host (share: 16)" % (len(socks) - shut))
    try:
        v = connect(port)
        if not viewer_connect(v):
            fail("the honest viewer's CONNECT was not answered")
        else:
            print("honest viewer: connected")
        v.close()
    except OSError as e:
        fail("the honest viewer could not connect: %s" % e)
    for s in socks:
        s.close()


def main():
    try:
        probe = socket.socket()
        probe.bind(("127.0.0.2", 0))
        probe.close()
    except OSError:
        print("SKIP: cannot bind 127.0.0.2 (a second loopback address)")
        sys.exit(77)
    out = tempfile.mkdtemp(prefix="trawl-relayd-dos.")
    log = open(out + "/relayd.log", "w+")
    r = subprocess.Popen([BIN + "/trawl-relayd", "-o", out + "/traces", "-C", "tcp://127.0.0.1:0",
                          "-D", "tcp://127.0.0.1:0", "-L", "tcp://127.0.0.1:0"], stderr=log)
    try:
        ports = None
        for _ in range(100):
            log.seek(0)
            line = log.read()
            if "control port" in line:
                w = line.split("control port ")[1].split(",")
                ports = (int(w[0]), int(w[1].split()[-1]), int(w[2].split()[2]))
                break
            time.sleep(0.05)
        if not ports:
            sys.exit("relayd did not start: " + line)
        deaf(ports[0])
        idle(ports[1])
        viewers(ports[2])
        honest_ping(ports[0], "after the attacks")
        if r.poll() is not None:
            fail("relayd died")
        log.seek(0)
        text = log.read()
        if "does not take its replies" not in text:
            fail("the deaf peer's drop is not logged")
        if "its host holds the most connections one host may" not in text:
            fail("the idle flood's refusals are not logged")
    finally:
        r.terminate()
        r.wait()
        subprocess.run(["rm", "-rf", out])
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
