#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# An fd flood on root's apps.sock: a user not in 'tracing' opens as many
# idle connections as it can (2,000; the fixed 1,024-entry table of old let
# ~1,200 lock everyone out). The daemon keeps at most app-conns-per-uid of
# one untrusted uid (here 100) and closes the rest at once; root and a
# 'tracing' member always get through, and so do their apps; the idle ones
# that never register are closed at the registration deadline.
. "$(dirname "$0")/lib.sh"

start_root_daemon --limit app-conns-per-uid=100
attack flood "$APPS" 2000 120
t0=$SECONDS
for i in 1 2 3; do
	root_answers "root's list during the flood ($i)" "$TRAWL" list
	root_answers "member's list during the flood ($i)" as "$M" list
done
# The daemon holds no more of the attacker's connections than the cap:
# count its sockets connected to apps.sock (ss would need iproute2).
held=$(ls -l "/proc/$DPID/fd" 2>/dev/null | grep -c socket)
echo "daemon sockets during the flood: $held"
[ "$held" -le 130 ] || fail "the daemon holds $held sockets (cap 100 for the attacker)"
# The member's app gets through the flood (trusted: not capped).
APP=$BIN/ust-app-all
if [ -x "$APP" ] && have_ust; then
	expect 0 as "$M" create msess -o "$T/$M/trace"
	expect 0 as "$M" enable-event -u tall:seq
	expect 0 as "$M" start
	runuser -u "$M" -- env HOME="$T/$M" TRAWL_RUNTIME_DIR="$T/$M/run" \
		TRAWL_ROOT_RUNTIME_DIR="$TRAWL_ROOT_RUNTIME_DIR" timeout 60 "$APP" 1 50 1000 ||
		fail "the member's app failed"
	expect 0 as "$M" stop
	n=$(babeltrace2 "$T/$M/trace" 2>/dev/null | grep -c " tall:seq: ")
	[ "$n" = 50 ] || fail "the member's app during the flood: $n of 50 events"
fi
while ((SECONDS - t0 < 15)); do sleep 1; done
attack_end
[ "$(att alive)" = 0 ] || fail "idle connections still open after the deadline: $ATT_RESULT"
grep -q "apps.sock: refusing pid .* (uid $(id -u "$X")): its uid holds the most connections" \
	"$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" || fail "refusals not logged"
# The flood left nothing behind: root still served, the fd count back down.
root_answers "root's list after the flood" "$TRAWL" list
held=$(ls -l "/proc/$DPID/fd" 2>/dev/null | grep -c socket)
[ "$held" -le 10 ] || fail "the daemon still holds $held sockets"
daemon_alive
finish
