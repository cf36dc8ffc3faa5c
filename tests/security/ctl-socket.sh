#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The root daemon's client socket, sessiond.sock: root:tracing 0660, so a
# user not in 'tracing' cannot open it (and falls back to their own daemon);
# behind that, the daemon's SO_PEERCRED check refuses a non-member that
# connects anyway (the socket made 0666 by hand). A member is trusted but
# still bounded: a request begun must be whole within message-ms (here
# 2 s), at most ctl-conns-per-uid connections (here 20), an idle one is
# closed at ctl-idle-ms (here 1.5 s; libtrawl-ctl reconnects at the next
# call), and root always gets through.
. "$(dirname "$0")/lib.sh"

start_root_daemon --limit message-ms=2000 --limit ctl-conns-per-uid=20 --limit ctl-idle-ms=1500 \
	--log-level debug
SOCK=$TRAWL_ROOT_RUNTIME_DIR/sessiond.sock
[ "$(stat -c '%a %U %G' "$SOCK")" = "660 root tracing" ] ||
	fail "sessiond.sock is $(stat -c '%a %U %G' "$SOCK")"
expect 0 as "$X" list
[ -S "$T/$X/run/sessiond.sock" ] || fail "the non-member did not fall back to their own daemon"

# The SO_PEERCRED check behind the mode.
chmod 666 "$SOCK"
runuser -u "$X" -- env PYTHONPATH="$TRAWL_SOURCE_DIR/tests/lib" \
	"${TRAWL_PYTHON:-python3}" - "$SOCK" <<'PY' || fail "the non-member was not refused"
import socket, sys
from ctlwire import hdr, read_hdr, W
# The daemon answers a refused client at its first header.
s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
s.sendall(hdr(W["CMD_PING"], 4096))
h = read_hdr(s)
sys.exit(0 if h and h[4] == -13 else 1)
PY
chmod 660 "$SOCK"
grep -q "refusing uid $(id -u "$X") (pid [0-9]*): not root nor in group 'tracing'" \
	"$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" || fail "the refusal is not logged"

# A member's slow and idle connections: capped, and closed at the deadline.
runuser -u "$M" -- "${TRAWL_PYTHON:-python3}" - "$SOCK" "$T/$M/member.out" <<'PY' &
import socket, sys, time
socks = []
for i in range(40):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.send(b"T")
        socks.append(s)
    except OSError:
        pass
time.sleep(6)
closed = 0
for s in socks:
    try:
        s.setblocking(False)
        closed += s.recv(100) == b""
    except BlockingIOError:
        pass
    except OSError:
        closed += 1
open(sys.argv[2], "w").write("%d %d\n" % (len(socks), closed))
PY
mpid=$!
sleep 1
root_answers "root's list while a member holds slow connections" "$TRAWL" list
wait "$mpid"
read -r opened closed <"$T/$M/member.out"
echo "member: $opened connections, $closed closed by the daemon"
# 20 kept (the cap) until the deadline, the other 20 closed at once: all closed.
[ "$closed" = "$opened" ] || fail "the member's slow connections: $closed of $opened closed"
grep -q "uid $(id -u "$M") holds 20 connections to the client socket (the cap)" \
	"$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" || fail "the member's cap is not logged"
grep -q "request not done within 2000 ms: closed" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" ||
	fail "the slow requests' deadline is not logged"
root_answers "root's list after" "$TRAWL" list

# A member's program keeping a libtrawl-ctl handle idle past ctl-idle-ms:
# the daemon closes the connection, the library reconnects at the next call.
runuser -u "$M" -- env TRAWL_ROOT_RUNTIME_DIR="$TRAWL_ROOT_RUNTIME_DIR" \
	"$BIN/security-idle-client" 4 >"$T/idle.out" 2>&1 ||
	fail "the member's idle handle: $(cat "$T/idle.out")"
grep -q "client pid [0-9]* uid $(id -u "$M") idle for 1500 ms: closed" \
	"$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" || fail "the member's idle connection was not closed"
daemon_alive
finish
