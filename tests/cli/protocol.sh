#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hostile and malformed messages on the ctl socket are rejected (and
# logged) and the daemon keeps serving everyone else.
. "$(dirname "$0")/lib.sh"

expect 0 "$TRAWL" create p -o "$T/p"
dir=$TRAWL_ROOT_RUNTIME_DIR
[ "$(id -u)" = 0 ] || dir=$TRAWL_RUNTIME_DIR
python3 - "$dir/sessiond.sock" <<'PY' || fail "hostile client script"
import socket, struct, sys, os
path = sys.argv[1]
MAGIC, VER = 0x4c435254, 1
REQ = 4 * 6 + 8 + 4 * 6 + 256 * 3 + 1024 * 3
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    return s
def hdr(cmd, size, status=0, magic=MAGIC, ver=VER):
    return struct.pack("<IHHIi", magic, ver, cmd, size, status)
def reply_status(s):
    h = b""
    while len(h) < 16:
        d = s.recv(16 - len(h))
        if not d:
            return None
        h += d
    return struct.unpack("<IHHIi", h)[4]
# 1. garbage header: rejected with -EPROTO (-71) and closed
s = conn(); s.sendall(os.urandom(16)); st = reply_status(s)
assert st in (None, -71), st
# 2. good header, wrong size
s = conn(); s.sendall(hdr(1, 12)); assert reply_status(s) in (None, -71)
# 3. right size, unterminated strings
s = conn(); body = bytearray(b"A" * REQ); body[0:4] = struct.pack("<I", REQ)
s.sendall(hdr(2, REQ) + bytes(body)); assert reply_status(s) == -71
# 4. a bad enum value: -EINVAL (-22), connection stays usable
s = conn(); body = bytearray(REQ); body[0:4] = struct.pack("<I", REQ); body[4:8] = struct.pack("<I", 99)
s.sendall(hdr(11, REQ) + bytes(body)); assert reply_status(s) == -22
# 5. half a message then silence: must not block other clients
slow = conn(); slow.sendall(hdr(11, REQ) + b"\0" * 100)
# 6. a client that connects and vanishes
conn().close()
print("hostile ok")
PY
# A silent connection to apps.sock (world-connectable on root's daemon) and
# one sending garbage must not stall the daemon either.
python3 - "$dir/apps.sock" <<'PY' &
import socket, sys, time, os
try:
    quiet = socket.socket(socket.AF_UNIX); quiet.connect(sys.argv[1])
    noisy = socket.socket(socket.AF_UNIX); noisy.connect(sys.argv[1]); noisy.sendall(b"\xff" * 64)
except OSError:
    pass
time.sleep(4)
PY
silent=$!
sleep 0.3
t0=$(date +%s%N)
expect 0 "$TRAWL" list && grep -q " p \[inactive\]" "$T/out" || fail "daemon stopped serving"
t1=$(date +%s%N)
[ $(( (t1 - t0) / 1000000 )) -lt 1000 ] || fail "a silent app connection stalled the daemon ($(( (t1 - t0) / 1000000 )) ms)"
kill $silent 2>/dev/null; wait $silent 2>/dev/null
grep -q "rejected a malformed\|rejected a message" "$dir/sessiond.log" || fail "rejections not logged"
finish
