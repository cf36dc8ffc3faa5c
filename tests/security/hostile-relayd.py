# SPDX-License-Identifier: MIT
"""A hostile trawl-relayd, for relay-hostile.sh: speaks enough of the
streaming protocol (src/relayd/proto.h) to be taken for relayd, then
misbehaves as a relayd chosen by a session's owner, or a man in the middle,
could.

usage: hostile-relayd.py MODE PORTFILE
  bad-status  the data port answers HELLO with a positive status (no errno)
  ctrl-status the control port does (the session daemon's connection)
  trickle     the data port reads its first 64 KiB at once, then 4 KiB every
              0.5 s, and answers PINGs (in order, as relayd) confirming every
              byte: each send makes progress, none ever finishes in time
  ctrl-mute   the control port takes the session daemon's HELLO and answers
              it only once PORTFILE.release exists (the test says when): an
              answer that never comes, for as long as the test needs
Writes "CTRL DATA" (the ports it listens on, 127.0.0.1) to PORTFILE once
listening, and the token of each HELLO to PORTFILE.token; runs until killed.
"""
import socket
import struct
import sys
import threading
import os
import time

MAGIC = 0x594C5254
HDR = struct.Struct('<IHHII')
REPLY = struct.Struct('<IiQ')
HELLO, APPEND, PING, END = 1, 3, 7, 6


def recv_exact(c, n, slow):
    buf = b''
    while len(buf) < n:
        want = n - len(buf)
        if slow[0] <= 0:
            want = min(want, 4096)
        b = c.recv(want)
        if not b:
            raise EOFError
        buf += b
        slow[0] -= len(b)
        if slow[0] <= 0:
            time.sleep(0.5)
    return buf


def serve(c, mode, data):
    slow = [64 << 10 if (data and mode == 'trickle') else 1 << 62]
    written = 0
    try:
        while True:
            magic, _, cmd, _, size = HDR.unpack(recv_exact(c, HDR.size, slow))
            if magic != MAGIC:
                return
            payload = recv_exact(c, size, slow) if size else b''
            if cmd == HELLO:
                # the token, for the test to look for elsewhere (it is ours to know)
                with open(TOKEN_FILE, 'a') as f:
                    f.write('%d\n' % struct.unpack_from('<Q', payload, 8)[0])
                if not data and mode == 'ctrl-mute':
                    while not os.path.exists(portfile_release()):
                        time.sleep(0.05)
                bad = (data and mode == 'bad-status') or (not data and mode == 'ctrl-status')
                status = 7 if bad else 0
                c.sendall(REPLY.pack(MAGIC, status, 1))
            elif cmd == PING:
                c.sendall(REPLY.pack(MAGIC, 0, written))
            elif cmd == APPEND:
                written += len(payload)  # data and index alike: a hostile count
            elif cmd == END:
                return
    except (EOFError, OSError):
        pass
    finally:
        c.close()


def listener():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # accepted ones inherit it
    s.bind(('127.0.0.1', 0))
    s.listen(64)
    return s


def accept_loop(s, mode, data):
    while True:
        c, _ = s.accept()
        threading.Thread(target=serve, args=(c, mode, data), daemon=True).start()


TOKEN_FILE = None


def portfile_release():
    return TOKEN_FILE[:-len('.token')] + '.release'


def main():
    global TOKEN_FILE
    mode, portfile = sys.argv[1], sys.argv[2]
    TOKEN_FILE = portfile + '.token'
    ctrl, data = listener(), listener()
    threading.Thread(target=accept_loop, args=(ctrl, mode, False), daemon=True).start()
    with open(portfile + '.tmp', 'w') as f:
        f.write('%d %d\n' % (ctrl.getsockname()[1], data.getsockname()[1]))
    os.rename(portfile + '.tmp', portfile)
    accept_loop(data, mode, True)


main()
