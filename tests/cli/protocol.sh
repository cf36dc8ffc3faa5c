#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hostile and malformed messages on the ctl socket are rejected (and
# logged) and the daemon keeps serving everyone else.
. "$(dirname "$0")/lib.sh"

expect 0 "$TRAWL" create p -o "$T/p"
dir=$TRAWL_ROOT_RUNTIME_DIR
[ "$(id -u)" = 0 ] || dir=$TRAWL_RUNTIME_DIR
export PYTHONPATH=$TRAWL_SOURCE_DIR/tests/lib
python3 - "$dir/sessiond.sock" <<'PY' || fail "hostile client script"
import socket, struct, sys, os
from ctlwire import hdr, req, read_hdr, REQ, W
path = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    return s
def status(s):
    h = read_hdr(s)
    return None if h is None else h[4]
# 1. garbage header: rejected with -EPROTO (-71) and closed
s = conn(); s.sendall(os.urandom(16)); st = status(s)
assert st in (None, -71), st
# 2. good header, wrong size
s = conn(); s.sendall(hdr(1, 12)); assert status(s) in (None, -71)
# 3. right size, unterminated strings
s = conn(); body = bytearray(b"A" * REQ); body[0:4] = struct.pack("<I", REQ)
s.sendall(hdr(W["CMD_CREATE"], REQ) + bytes(body)); assert status(s) == -71
# 4. a bad enum value: -EINVAL (-22), connection stays usable
s = conn(); s.sendall(hdr(W["CMD_LIST_SESSIONS"], REQ) + req(domain=99)); assert status(s) == -22
# 5. half a message then silence: must not block other clients
slow = conn(); slow.sendall(hdr(W["CMD_LIST_SESSIONS"], REQ) + b"\0" * 100)
# 6. a client that connects and vanishes
conn().close()
# 7. a client of another protocol version: told so in the daemon's own version
s = conn(); s.sendall(hdr(W["CMD_PING"], REQ, version=W["VERSION"] + 1) + req())
h = read_hdr(s); assert h is None or (h[1] == W["VERSION"] and h[4] < 0), h
print("hostile ok")
PY
# A silent connection to apps.sock (world-connectable on root's daemon) and
# one sending garbage must not stall the daemon either. They stay open until
# the test ends them, so a daemon they stalled would never answer `list`:
# the bound below catches that hang whatever the machine's load.
python3 - "$dir/apps.sock" "$T/held" <<'PY' &
import socket, sys, time
quiet = socket.socket(socket.AF_UNIX); quiet.connect(sys.argv[1])
noisy = socket.socket(socket.AF_UNIX); noisy.connect(sys.argv[1]); noisy.sendall(b"\xff" * 64)
open(sys.argv[2], "w").close()
time.sleep(600)
PY
silent=$!
for i in $(seq 300); do [ -e "$T/held" ] && break; sleep 0.1; done
[ -e "$T/held" ] || fail "the silent app connections were not made"
expect 0 timeout 120 "$TRAWL" list && grep -q " p \[inactive\]" "$T/out" ||
	fail "the daemon stopped serving while an app connection stayed silent"
kill -0 $silent 2>/dev/null || fail "the silent connections ended before list answered"
kill $silent 2>/dev/null; wait $silent 2>/dev/null
grep -q "rejected a malformed\|rejected a message" "$dir/sessiond.log" || fail "rejections not logged"

# The library checks the daemon's replies as hard: a fake daemon answering
# PING properly, then each command with one kind of garbage. The command
# fails with one line and exit 10 (protocol), never reads past the reply.
fake=$T/fake
mkdir -p "$fake"
python3 - "$fake/sessiond.sock" <<'PY' &
import socket, struct, sys
from ctlwire import hdr, read_hdr, W
srv = socket.socket(socket.AF_UNIX); srv.bind(sys.argv[1]); srv.listen(8)
def head(nr):
    return struct.pack("<II", W["REPLY"], nr) + b"\0" * (W["REPLY"] - 8)
def rec(strings):  # a SESSION record: header, zeroed body, raw string bytes
    size = W["REC"] + W["REC_SESSION_BODY"] + len(strings)
    return struct.pack("<IHH", size, W["ITEM_SESSION"], 2) + b"\0" * W["REC_SESSION_BODY"] + strings
bad = [
    head(1) + rec(b"abcdefgh"),                  # strings without their NUL
    head(1) + rec(b"a\0b\0\0\0\0\0")[:-8],       # record cut short of its size
    head(5) + rec(b"a\0b\0\0\0\0\0"),            # more records announced than sent
    head(1) + rec(b"a\0b\0zzzz"),               # bytes hidden after the strings
]
for body in bad + ["version"]:
    c, _ = srv.accept()
    for _ in range(2):
        h = read_hdr(c)
        if h is None:
            break
        c.recv(h[3], socket.MSG_WAITALL)
        if body == "version":  # a daemon of another protocol version
            c.sendall(hdr(h[2], W["REPLY"], -71, version=W["VERSION"] - 1) + head(0)); break
        if h[2] == W["CMD_PING"]:
            c.sendall(hdr(h[2], W["REPLY"]) + head(0))
        else:
            c.sendall(hdr(h[2], len(body)) + body)
    c.close()
PY
fakepid=$!
for i in 1 2 3 4; do
	for k in $(seq 50); do [ -S "$fake/sessiond.sock" ] && break; sleep 0.1; done
	expect 10 env TRAWL_ROOT_RUNTIME_DIR="$fake" TRAWL_RUNTIME_DIR="$fake" "$TRAWL" list &&
		expect_err_line "malformed reply"
done
expect 10 env TRAWL_ROOT_RUNTIME_DIR="$fake" TRAWL_RUNTIME_DIR="$fake" "$TRAWL" list &&
	expect_err_line "another version of trawl"
wait $fakepid || fail "fake daemon script"
finish
