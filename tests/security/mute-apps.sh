#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Apps that register and never answer (nor read a command), while root
# traces every user's apps: each used to cost ~3 s of everyone's time at
# every command sent to it. Commands are queued, never waited for in the
# loop; root's list is answered during the attack; each mute app is dropped
# at its reply deadline (--limit app-reply-ms, 3 s), counted, and `trawl
# status` says so; root's stop waits for all apps at once, one deadline.
. "$(dirname "$0")/lib.sh"

have_ust || { echo "SKIP: no user-space domain in this build"; exit 77; }
start_root_daemon
expect 0 "$TRAWL" create rootsess -o "$T/rootsess"
expect 0 "$TRAWL" enable-event -u -a
expect 0 "$TRAWL" start
attack mute "$APPS" 30 120
t0=$SECONDS
for i in 1 2 3 4; do
	root_answers "root's list with mute apps ($i)" "$TRAWL" list
	sleep 1
done
# Root's rule change and stop: every mute app still there is waited for at
# once (one deadline), not one after the other.
root_answers "root's enable-event" timeout 30 "$TRAWL" enable-event -u 'bomb:*'
while ((SECONDS - t0 < 12)); do sleep 1; done
attack_end
[ "$(att apps)" = 30 ] || fail "the attacker registered $(att apps) of 30 apps"
[ "$(att dropped)" = 30 ] || fail "mute apps not all dropped: $ATT_RESULT"
expect 0 "$TRAWL" status
grep -q "30 traced apps were dropped for not answering" "$T/out" ||
	fail "status does not say the apps were dropped: $(cat "$T/out")"
grep -q "dropped: no answer to .* within 3000 ms" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" ||
	fail "the drops are not logged"
# Mute apps that come while root stops: stop waits one deadline at most.
attack mute "$APPS" 30 120
t1=$(date +%s%N)
expect 0 timeout 60 "$TRAWL" stop
t2=$(date +%s%N)
echo "root's stop with 30 mute apps: $(((t2 - t1) / 1000000)) ms"
[ $(((t2 - t1) / 1000000)) -lt 20000 ] || fail "stop took $(((t2 - t1) / 1000000)) ms"
attack_end
daemon_alive
finish
