#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A TCP relay between the consumer and trawl-relayd's data port that
loses a connection at a chosen point of the relay protocol, whatever the
timing: the test's stand-in for a relayd that went away while the packets
just sent were in flight (the kernel took them; only the peer's reset said
they were lost, and on a loaded machine it came at the consumer's PING).

    pingcut.py DATA_PORT ARM_FILE

Prints "port N" (where it listens, on 127.0.0.1) and forwards each
connection to 127.0.0.1:DATA_PORT, both ways. Once ARM_FILE exists, the
next PING a consumer sends is not forwarded: that connection is closed
(both ends; what came before it was forwarded), ARM_FILE removed, and
"cut" printed. Later connections are forwarded whole. Ends at SIGTERM
(tests/relayd/cutproxy.py cuts every connection at a signal instead)."""
import os
import socket
import struct
import sys
import threading

HDR = struct.Struct("<IHHII")  # src/relayd/proto.h, struct trawl_relay_hdr
PING = 7


def pump_replies(src, dst):
    """relayd's replies to the consumer, as they come."""
    try:
        while True:
            b = src.recv(65536)
            if not b:
                break
            dst.sendall(b)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        b = s.recv(n - len(buf))
        if not b:
            return None
        buf += b
    return buf


def pump_messages(src, dst, arm):
    """The consumer's messages, one at a time, until an armed PING."""
    try:
        while True:
            h = recv_exact(src, HDR.size)
            if h is None:
                break
            _, _, cmd, _, size = HDR.unpack(h)
            if cmd == PING and os.path.exists(arm):
                os.unlink(arm)
                print("cut", flush=True)
                break
            body = recv_exact(src, size) if size else b""
            if body is None:
                break
            dst.sendall(h + body)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(ls, port, arm):
    while True:
        c, _ = ls.accept()
        r = socket.create_connection(("127.0.0.1", port))
        threading.Thread(target=pump_messages, args=(c, r, arm), daemon=True).start()
        threading.Thread(target=pump_replies, args=(r, c), daemon=True).start()


def main():
    port, arm = int(sys.argv[1]), sys.argv[2]
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)
    print("port %d" % ls.getsockname()[1], flush=True)
    serve(ls, port, arm)


main()
