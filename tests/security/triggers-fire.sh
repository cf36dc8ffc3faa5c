#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Triggers firing on the root daemon, which serves every user (issue 16):
#  - a member's trigger sees only that member's programs: root's app and
#    another user's app, emitting the event its rule matches, do not fire
#    it; the member's own app does;
#  - its actions run as the member: stopping root's session fails as the
#    member's `trawl stop` would ("no session"), root's session goes on;
#  - root's trigger sees every user's programs (as root's sessions do);
#  - a member's kernel trigger fires on kernel events (root's included); a
#    non-member cannot add one.
# Each wait polls the outcome (no timing asserted).
. "$(dirname "$0")/lib.sh"
have_ust || { echo "SKIP: no user-space domain"; exit 77; }
start_root_daemon
APP=$BIN/ust-app-trig
STATS=$BIN/ust-trig-stats
rule=(--condition event-rule-matches --type=user --name=trig:error)

# STATS_AS WHO TRIGGER: "occurrences runs failures" of TRIGGER's first action
stats_of() {
	local who=$1 name=$2
	if [ "$who" = root ]; then "$STATS"; else as_user "$who" "$STATS"; fi |
		awk -v n="$name" '$1 == n { split($2, o, "="); occ = o[2]; getline;
			split($2, r, "="); split($3, f, "="); print occ, r[2], f[2]; exit }'
}
# wait_stats WHO TRIGGER WANT: polls (60 s) until stats_of says WANT
wait_stats() {
	local i got
	for i in $(seq 600); do
		got=$(stats_of "$1" "$2")
		[ "$got" = "$3" ] && return 0
		sleep 0.1
	done
	fail "trigger $2 of $1: want '$3', got '$got'"
	return 1
}

expect 0 "$TRAWL" create rs -o "$T/rs" || finish
expect 0 "$TRAWL" enable-event -u 'trig:*' -s rs
expect 0 "$TRAWL" start rs
expect 0 as "$M" add-trigger --name mine "${rule[@]}" --action stop-session rs || finish
expect 0 "$TRAWL" add-trigger --name roots "${rule[@]}" --action stop-session nosuch

# root's app and X's app: root's trigger fires twice, M's never
expect 0 "$APP" error 10
expect 0 as_user "$X" "$APP" error 10
wait_stats root roots "2 2 2"
[ "$(stats_of "$M" mine)" = "0 0 0" ] || fail "M's trigger saw others' apps: $(stats_of "$M" mine)"

# M's own app fires M's trigger; its stop-session of root's session fails
expect 0 as_user "$M" "$APP" error 10
wait_stats "$M" mine "1 1 1"
wait_stats root roots "3 3 3"
expect 0 "$TRAWL" list rs
head -1 "$T/out" | grep -q '\[active\]' || fail "M's trigger stopped root's session: $(head -1 "$T/out")"
grep -q "trigger 'mine' of uid $(id -u "$M"): stop-session 'rs' failed .*no session named 'rs'" \
	"$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" || fail "the daemon's log does not say why: $(grep mine "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log")"

# A member's kernel trigger (members may trace the kernel) sees kernel events,
# root's getpgid among them; a non-member cannot add one.
if [ -x "$BIN/ksyscalls" ] && grep -q tracefs /proc/filesystems; then
	B=$((1600000000 + $$ % 100000))
	krule=(--condition event-rule-matches --type=kernel:syscall --name=getpgid --filter "pid == $B")
	expect 0 as "$M" add-trigger --name mk "${krule[@]}" --action notify || finish
	as "$X" add-trigger --name xk "${krule[@]}" --action notify >"$T/out" 2>"$T/err" &&
		fail "a non-member added a kernel trigger"
	expect 0 "$BIN/ksyscalls" flood 1 "$B"
	wait_stats "$M" mk "1 1 0"
else
	echo "note: no kernel tracing here: members' kernel triggers not checked"
fi
finish
