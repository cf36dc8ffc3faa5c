#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# cutproxy.py RELAY_CTRL RELAY_DATA: a TCP proxy in front of a trawl-relayd
# on 127.0.0.1, for a network cut under the test's control. It listens on
# two free ports (printed: "ports CTRL DATA") and forwards each connection
# to relayd's matching port. SIGUSR1 cuts the network: every connection is
# reset and new ones are reset at once; SIGUSR2 restores it. Prints "cut"
# and "restored" once done. Ends at SIGTERM.
import os
import select
import signal
import socket
import struct
import sys

targets = [int(sys.argv[1]), int(sys.argv[2])]
listeners = []
for _ in targets:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    listeners.append(s)
print("ports", *(s.getsockname()[1] for s in listeners), flush=True)

pairs = {}  # socket -> its peer
cut = False
wake_r, wake_w = os.pipe()
os.set_blocking(wake_w, False)
pending = []


def on_signal(sig, _frame):
    pending.append(sig)
    try:
        os.write(wake_w, b"x")
    except BlockingIOError:
        pass


signal.signal(signal.SIGUSR1, on_signal)
signal.signal(signal.SIGUSR2, on_signal)
signal.signal(signal.SIGTERM, on_signal)


def reset(s):
    # SO_LINGER 0: close sends a reset, as a cut network's peer sees it
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    s.close()


def drop(s):
    p = pairs.pop(s, None)
    if p is not None:
        pairs.pop(p, None)
        reset(p)
    reset(s)


while True:
    r, _, _ = select.select(listeners + list(pairs) + [wake_r], [], [])
    if wake_r in r:
        os.read(wake_r, 64)
        for sig in pending:
            if sig == signal.SIGTERM:
                sys.exit(0)
            cut = sig == signal.SIGUSR1
            if cut:
                for s in list(pairs):
                    if s in pairs:
                        drop(s)
            print("cut" if cut else "restored", flush=True)
        pending.clear()
        continue
    for s in r:
        if s in listeners:
            c, _ = s.accept()
            if cut:
                reset(c)
                continue
            up = socket.create_connection(("127.0.0.1", targets[listeners.index(s)]))
            pairs[c] = up
            pairs[up] = c
        elif s in pairs:
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                drop(s)
                continue
            try:
                pairs[s].sendall(data)
            except OSError:
                drop(s)
