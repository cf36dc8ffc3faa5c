#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The root daemon's trigger hits are shared by every user: one user's
# programs firing their own trigger without pause must not take the place
# of another user's (src/sessiond/triggers.c, "firing"). Two members of
# 'tracing' (real users, made here):
#  - H, hostile, floods: 10 programs emit trig:info without pause, each
#    event a hit of H's trigger (notify); the hits past H's share are
#    dropped. The share is lowered to 8 hits waiting per uid (--limit
#    trigger-hits-per-uid=8; 1,024 by default): the daemon takes each
#    round's hits in that round, so only a round that reads more than the
#    share overflows it, which a loaded machine's 10 programs may not do
#    with 1,024 before the test's patience ends;
#  - V, the victim, meanwhile: their program emits 20 trig:error, each a
#    hit of V's trigger (notify): V's notification channel gets all 20, and
#    says nothing was lost;
#  - H's losses are not silent: H's channel says some were lost (receive()
#    answers TRAWL_CTL_NOTIFICATIONS_DROPPED, as LTTng's channel answers
#    NOTIFICATIONS_DROPPED) and the daemon's log counts the dropped hits
#    of H's uid, and of no other;
#  - root is answered (`trawl list`) while the flood goes on.
# Before, one queue of 1,024 hits served all users: a flood that filled it
# had V's hits dropped with H's (and no channel was told). Each wait polls
# an outcome; no timing is asserted.
. "$(dirname "$0")/lib.sh"
have_ust || { echo "SKIP: no user-space domain"; exit 77; }
H=trawlh$$
mkuser "$H" tracing || { echo "SKIP: useradd failed"; exit 77; }
V=$M
APP=$BIN/ust-app-trig
NOTIFY=$BIN/ust-trig-notify
FLOOD_PIDS=()
fair_cleanup() {
	programs_stop "$T/flood.stop" "${FLOOD_PIDS[@]}"
	sec_cleanup
}
trap fair_cleanup EXIT
start_root_daemon --limit trigger-hits-per-uid=8
LOG=$TRAWL_ROOT_RUNTIME_DIR/sessiond.log

expect 0 as "$H" add-trigger --name flood --condition event-rule-matches --type=user \
	--name=trig:info --action notify || finish
expect 0 as "$V" add-trigger --name mine --condition event-rule-matches --type=user \
	--name=trig:error --action notify || finish

# H's channel, waiting to be told of a loss
as_user "$H" "$NOTIFY" -l 300000 flood >"$T/h.out" 2>"$T/h.err" &
H_PID=$!
wait_ready "$T/h.out" "$H_PID" "H's notification channel"

# the flood: it is under way once the daemon has dropped some of H's hits
rm -f "$T/flood.stop"
chmod 755 "$T"
for i in $(seq 10); do
	as_user "$H" "$APP" flood "$T/flood.stop" >/dev/null 2>&1 &
	FLOOD_PIDS+=($!)
done
H_UID=$(id -u "$H")
for i in $(seq 1200); do
	grep -q "trigger hits of uid $H_UID dropped" "$LOG" && break
	sleep 0.1
done
grep -q "trigger hits of uid $H_UID dropped" "$LOG" ||
	fail "H's flood dropped none of H's hits: no flood to test with"
daemon_alive

# V, during the flood: every one of 20 notifications, none lost
as_user "$V" "$NOTIFY" 20 120000 mine >"$T/v.out" 2>"$T/v.err" &
V_PID=$!
wait_ready "$T/v.out" "$V_PID" "V's notification channel"
expect 0 as_user "$V" "$APP" pace 20 10
root_answers "root's list during the flood" "$TRAWL" list
wait "$V_PID"
rc=$?
[ "$rc" = 0 ] || fail "V's channel: exit $rc: $(tail -3 "$T/v.err")"
[ "$(grep -c '^mine ' "$T/v.out")" = 20 ] ||
	fail "V got $(grep -c '^mine ' "$T/v.out") of 20 notifications during H's flood"
grep -qx 'dropped=0' "$T/v.out" || fail "V's channel counted losses: $(tail -1 "$T/v.out")"

# H was told
wait "$H_PID"
rc=$?
[ "$rc" = 0 ] || fail "H's channel was not told of a loss (exit $rc): $(cat "$T/h.err")"
grep -q '^lost got=[0-9]* dropped=[1-9]' "$T/h.out" || fail "H's channel: $(cat "$T/h.out")"
echo "H's channel: $(grep '^lost' "$T/h.out")"

touch "$T/flood.stop"
for p in "${FLOOD_PIDS[@]}"; do wait "$p"; done
FLOOD_PIDS=()
daemon_alive
V_UID=$(id -u "$V")
grep -q "trigger hits of uid $V_UID dropped" "$LOG" &&
	fail "V's hits were dropped: $(grep "uid $V_UID dropped" "$LOG" | head -1)"
grep "trigger hits of uid $H_UID dropped" "$LOG" | tail -1
# and the daemon still serves H's own triggers
expect 0 as "$H" list-triggers
grep -q -- '- name: flood' "$T/out" || fail "H's list-triggers: $(cat "$T/out")"
finish
