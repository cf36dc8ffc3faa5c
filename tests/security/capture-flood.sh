#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One user's programs flooding the root daemon with trigger hits that carry
# many captures of wide events must not take the daemon from the other
# users, and no hit may be lost silently (src/sessiond/ust-notify.c,
# ust-capture.c). Two members of 'tracing' (real users, made here):
#  - M floods: a trigger capturing 64 fields of twide:ev (f000, f003 and
#    f511 62 times), and 8 programs (wide-app.c) that describe twide:ev as
#    512 fields and fire it in bursts of 64 (a notification ring's worth)
#    every 20 ms. The daemon had looked each capture up by name among the
#    512 fields at every hit, and read 64 hits of every program each round
#    with nothing bounding the sum: now a capture is resolved once per
#    event and trigger, and a uid's programs are read 256 hits a round in
#    all, the rest left in their rings, which count what they drop;
#  - V meanwhile: `trawl list` completes, three times, and root's too; V's
#    own trigger sees all 20 hits of V's program, none lost;
#  - every hit M's programs fired is accounted for: M's notification
#    channel got it, or counts it as lost (dropped by a program, its ring
#    full, or by the daemon, M's queue full, or rolled out of M's log).
#    Before, a program's ring dropping hits told no one.
# Each wait polls an outcome; no timing is asserted.
. "$(dirname "$0")/lib.sh"
have_ust || { echo "SKIP: no user-space domain"; exit 77; }
V=trawlv$$
mkuser "$V" tracing || { echo "SKIP: useradd failed"; exit 77; }
WIDE=$BIN/wide-app
APP=$BIN/ust-app-trig
NOTIFY=$BIN/ust-trig-notify
NAPPS=8
PIDS=()
flood_cleanup() {
	programs_stop "$T/wide.stop" "${PIDS[@]}"
	sec_cleanup
}
trap flood_cleanup EXIT
start_root_daemon
LOG=$TRAWL_ROOT_RUNTIME_DIR/sessiond.log

caps=(--capture f000)
for i in $(seq 62); do caps+=(--capture f511); done
caps+=(--capture f003)
expect 0 as "$M" add-trigger --name wide --condition event-rule-matches --type=user \
	--name=twide:ev "${caps[@]}" --action notify || finish
expect 0 as "$V" add-trigger --name mine --condition event-rule-matches --type=user \
	--name=trig:error --action notify || finish


chmod 755 "$T"
rm -f "$T/wide.stop" "$T/total"
# M's channel: every hit, notified or counted lost
as_user "$M" "$NOTIFY" -a "$T/total" 100000 wide >"$T/m.out" 2>"$T/m.err" &
M_PID=$!
wait_ready "$T/m.out" "$M_PID" "M's notification channel"
for i in $(seq $NAPPS); do
	as_user "$M" "$WIDE" "$T/wide.stop" >"$T/w$i.out" 2>&1 &
	PIDS+=($!)
done
for i in $(seq $NAPPS); do
	wait_ready "$T/w$i.out" "${PIDS[$((i - 1))]}" "program $i"
done

# V, during the flood
as_user "$V" "$NOTIFY" 20 300000 mine >"$T/v.out" 2>"$T/v.err" &
V_PID=$!
wait_ready "$T/v.out" "$V_PID" "V's notification channel"
for k in 1 2 3; do
	expect 0 as "$V" list || fail "V's list during the flood"
	expect 0 "$TRAWL" list || fail "root's list during the flood"
done
expect 0 as_user "$V" "$APP" pace 20 10
wait "$V_PID"
rc=$?
[ "$rc" = 0 ] || fail "V's channel: exit $rc: $(tail -3 "$T/v.err")"
[ "$(grep -c '^mine ' "$T/v.out")" = 20 ] ||
	fail "V got $(grep -c '^mine ' "$T/v.out") of 20 notifications during M's flood"
grep -qx 'dropped=0' "$T/v.out" || fail "V's channel counted losses: $(tail -1 "$T/v.out")"
daemon_alive

# the flood ends: what M's programs fired is what M's channel accounts for
touch "$T/wide.stop"
total=0
for i in $(seq $NAPPS); do
	wait "${PIDS[$((i - 1))]}"
	n=$(sed -n 's/^fired=//p' "$T/w$i.out")
	[ -n "$n" ] || { fail "program $i: $(cat "$T/w$i.out")"; n=0; }
	total=$((total + n))
done
PIDS=()
echo "$total" >"$T/total"
wait "$M_PID"
rc=$?
[ "$rc" = 0 ] || fail "M's channel: exit $rc: $(tail -3 "$T/m.err")"
line=$(grep '^all ' "$T/m.out")
echo "M's programs fired $total hits; M's channel: $line"
got=$(echo "$line" | sed -n 's/.* got=\([0-9]*\).*/\1/p')
dropped=$(echo "$line" | sed -n 's/.* dropped=\([0-9]*\).*/\1/p')
[ -n "$got" ] && [ $((got + dropped)) = "$total" ] ||
	fail "M's programs fired $total hits: $got notified, $dropped counted lost"
[ "${got:-0}" -gt 0 ] || fail "no notification of M's flood"
echo "$line" | grep -q ' captures=64$' || fail "M's notifications: $line"
# the first: f000 = 0, f511 unavailable (the record is 4 bytes), f003 = 0
first=$(grep '^wide ' "$T/m.out" | head -1)
echo "$first" | grep -q 'captures=0|<unavailable>|.*|<unavailable>|0$' ||
	fail "M's first notification: $first"
grep "trigger hits of uid $(id -u "$M") dropped" "$LOG" | tail -2
daemon_alive
finish
