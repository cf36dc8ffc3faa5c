#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Slow-loris on root's apps.sock: a user not in 'tracing' opens 200
# connections and sends a valid registration one byte every 0.5 s. The
# daemon reads without waiting and holds each registration to a deadline
# for the whole of it (--limit app-register-ms, 5 s), not per byte: root
# and a 'tracing' member are answered throughout, a real app registers and
# is traced, and every slow connection is dropped.
. "$(dirname "$0")/lib.sh"

start_root_daemon
expect 0 "$TRAWL" create rootsess -o "$T/rootsess"
attack slowloris "$APPS" 200 120
t0=$SECONDS
for i in 1 2 3; do
	root_answers "root's list during the attack ($i)" "$TRAWL" list
	grep -q rootsess "$T/out" || fail "root's list lacks its session"
	root_answers "member's list during the attack ($i)" as "$M" list
	sleep 1
done
# A real app, during the attack: registered and traced by root's session.
APP=$BIN/ust-app-all
if [ -x "$APP" ] && have_ust; then
	expect 0 "$TRAWL" enable-event -u tall:seq -s rootsess
	expect 0 "$TRAWL" start rootsess
	timeout 60 "$APP" 1 100 1000 || fail "the app failed during the attack"
	expect 0 "$TRAWL" stop rootsess
	n=$(babeltrace2 "$T/rootsess" 2>/dev/null | grep -c " tall:seq: ")
	[ "$n" = 100 ] || fail "the app's events during the attack: $n of 100"
fi
# Three times the deadline, then the attacker's account.
while ((SECONDS - t0 < 15)); do sleep 1; done
attack_end
[ "$(att opened)" -ge 100 ] || fail "the attacker opened only $(att opened) connections"
[ "$(att dropped)" = "$(att opened)" ] || fail "slow connections not all dropped: $ATT_RESULT"
grep -q "registration not complete within 5000 ms" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" ||
	fail "the drops are not logged"
daemon_alive
finish
