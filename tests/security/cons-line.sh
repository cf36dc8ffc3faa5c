#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A member's user-space consumer runs as the member, so its replies to the
# root session daemon are the member's to write (cons-forge: the consumer's
# socket taken with pidfd_getfd, the consumer stopped, each command
# answered with a line of the member's). That line reached root's terminal
# as sent: as the session's "Problem:" in root's `trawl list SESSION`
# (a STATUS's reply) and in root's `trawl rotate SESSION` failure line (a
# ROTATE's reply, ctl 21's 1,024-byte lines), escape sequences included.
# Now the daemon makes a consumer's line printable as it reads it
# (control bytes and bytes that are not UTF-8 become '?').
. "$(dirname "$0")/lib.sh"
have_ust || { echo "SKIP: no user-space consumer"; exit 77; }
start_root_daemon
MU=$(id -u "$M")
ESC=$(printf '\033')
BEL=$(printf '\007')
LINE="forged ${ESC}]0;owned${BEL}${ESC}[2J line"

expect 0 as "$M" create H -o "$T/$M/o" || finish
expect 0 as "$M" enable-event -u 'tall:*' -s H || finish
expect 0 as "$M" start H || finish
# the member's program, so that their consumer runs
as_user "$M" "$BIN/loss-app" 10 0 1 0 >/dev/null 2>&1 || fail "the member's program failed"
consumer() {
	ps -e -o pid=,ppid=,euid=,comm= |
		awk -v d="$DPID" -v u="$MU" '$2 == d && $3 == u && $4 == "trawl-consumerd" {print $1}'
}
for i in $(seq 100); do CPID=$(consumer); [ -n "$CPID" ] && break; sleep 0.1; done
[ -n "$CPID" ] || { fail "the member's consumer is not running"; finish; }

# forge CASE STATUS UNTIL CMD...: the member answers in the consumer's
# place (each command, until one numbered UNTIL) while root runs CMD;
# root's output is $T/root.out
forge() {
	local name=$1 status=$2 until=$3 i; shift 3
	as_user "$M" "$BIN/cons-forge" "$CPID" 30 "$status" "$LINE" "$until" >"$T/forge.out" 2>&1 &
	FPID=$!
	for i in $(seq 100); do
		grep -q '^State:.*stopped' "/proc/$CPID/status" 2>/dev/null && break
		kill -0 "$FPID" 2>/dev/null || break
		sleep 0.1
	done
	"$@" >"$T/root.out" 2>&1
	echo "root's $name: exit $? ($(tr -d '\n' <"$T/root.out" | cat -v | grep -o '[^ ]*forged.\{0,40\}' | head -1))"
	wait "$FPID" || fail "$name: the forged consumer did not answer"
	kill -CONT "$CPID" 2>/dev/null
	echo "the member's forged consumer: $(tr '\n' ' ' <"$T/forge.out")"
	grep -q "answered command" "$T/forge.out" ||
		fail "$name: the forged consumer answered nothing: $(cat "$T/forge.out")"
	grep -q "forged" "$T/root.out" || fail "$name: root was not shown the member's line: $(cat "$T/root.out")"
	grep -q "$ESC" "$T/root.out" && fail "$name: the member's escape reached root: $(cat -v "$T/root.out")"
	grep -q "$BEL" "$T/root.out" && fail "$name: the member's BEL reached root: $(cat -v "$T/root.out")"
}
forge "list H" 0 9 "$TRAWL" list H        # STATUS
forge "rotate H" -5 12 "$TRAWL" rotate H  # ROTATE
finish
