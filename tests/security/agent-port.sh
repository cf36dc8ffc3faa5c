#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The agent port (TCP 127.0.0.1, src/sessiond/agent-port.c) attacked by a
# user not in 'tracing' ($X), while root and a member ($M) use it.
#
#   flood   (security-agent-port-flood) 200 idle connections (past the
#           per-uid cap of 256 with the rest), 50 registrations trickled a
#           byte per 0.5 s, 20 of another domain or protocol version, 10
#           registered agents that never read while root enables 260 rules:
#           root's `trawl list` and the registration of root's and the
#           member's agents answered within 1 s throughout; the idle and
#           trickling ones dropped at the registration deadline, the bad
#           ones at once, the deaf ones at their cap of owed answers, each
#           logged under the attacker's uid (the kernel's answer to the
#           exact 4-tuple, for an AF_INET and a dual-stack AF_INET6 socket);
#           the daemon's peak RSS bounded; a reading agent of $X's gets all
#           260 rules and stays.
#   rules   (security-agent-port-rules) whose rules an agent gets: $X's
#           agent gets root's rule and trigger, never the member's (a
#           logger and a filter naming a secret); the member's agent gets
#           root's and its own; a LIST answer of $X's agent holding a
#           terminal escape and a newline in logger names: left out of
#           root's `list -p`, the plain name listed.
#   big     (security-agent-port-big) 8 agents of $X's answering root's
#           `list -p` with 1 MiB of names each (app-bytes-per-uid 3 MiB,
#           which the user's agents share with its apps): those over the
#           budget dropped, logged; root's list answered, with at most
#           16,384 of $X's names (more made it fail: too many records);
#           the daemon's peak RSS bounded.
. "$(dirname "$0")/lib.sh"

ROOT_BOUND=1 # "answered": within 1 s (a stall breaks it, load does not)
have_ust || { echo "SKIP: no user-space domain in this build"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"
if [ "$1" = big ]; then
	start_root_daemon --limit app-bytes-per-uid=3M
else
	start_root_daemon
fi
LOG=$TRAWL_ROOT_RUNTIME_DIR/sessiond.log
PORT=$(cat "$TRAWL_ROOT_RUNTIME_DIR/agent.port") || { fail "no agent.port"; finish; }
XUID=$(id -u "$X")
PY=${TRAWL_PYTHON:-python3}

# agent_registers WHO: a well-behaved Python agent of WHO (root or a user)
# gets its rules and REGISTRATION_DONE within 1 s; its account in $T/agent.
agent_registers() {
	local ms
	if [ "$1" = root ]; then
		timeout 30 "$PY" "$ATTACKER" agent "$PORT" >"$T/agent" 2>&1
	else
		timeout 30 runuser -u "$1" -- "$PY" "$ATTACKER" agent "$PORT" >"$T/agent" 2>&1
	fi || { fail "$1's agent: not registered: $(cat "$T/agent")"; return 1; }
	ms=$(sed -n 's/.*registered_ms=\([0-9]*\).*/\1/p' "$T/agent")
	echo "$1's agent registered in $ms ms: $(cat "$T/agent")"
	[ "${ms:-99999}" -lt 1000 ] || fail "$1's agent registered in ${ms:-?} ms"
}

# spy USER SECONDS: a reading agent of USER's in the background ($SPY_PID,
# its account in $T/spy.USER once $T/stop exists).
spy() {
	runuser -u "$1" -- env ATTACK_STOP="$T/stop" "$PY" "$ATTACKER" agentspy "$PORT" "$2" \
		>"$T/spy.$1" 2>&1 &
	SPY_PID=$!
	local i
	for i in $(seq 300); do
		grep -q '^ready' "$T/spy.$1" && return 0
		sleep 0.1
	done
	fail "$1's spy did not start: $(cat "$T/spy.$1")"
}

# spied USER: the rules USER's spy was sent, one a line
spied() { sed -n 's/^done=[01] rules=//p' "$T/spy.$1" | tr ',' '\n'; }

flood() {
	local base peak names i
	expect 0 "$TRAWL" create rootsess -o "$T/rootsess"
	expect 0 "$TRAWL" enable-event -p root.logger
	# The peer's user, as the kernel says: an AF_INET and a dual-stack
	# AF_INET6 connection of $X's, each with a registration of domain 7.
	runuser -u "$X" -- "$PY" - "$PORT" <<'PYEOF' || fail "the two bad registrations failed"
import socket, struct, sys
for fam, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::ffff:127.0.0.1")):
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.connect((addr, int(sys.argv[1])))
    s.sendall(struct.pack(">4I", 7, 1, 2, 0))
    s.settimeout(30)
    assert s.recv(1) == b""
PYEOF
	[ "$(grep -c "dropping an agent of uid $XUID: not an LTTng 2.13 agent" "$LOG")" = 2 ] ||
		fail "the two bad registrations are not logged under uid $XUID: $(grep agent "$LOG")"
	rm -f "$T/stop"
	spy "$X" 120
	base=$(daemon_kib VmRSS)
	attack agentflood "$PORT" 200 50 20 10 120
	t0=$SECONDS
	for i in 1 2 3; do
		root_answers "root's list during the agent flood ($i)" "$TRAWL" list
		agent_registers root
		grep -q "enables=1" "$T/agent" || fail "root's agent was not sent root.logger alone"
		agent_registers "$M"
		sleep 1
	done
	# Rules to every agent: the deaf ones owe more answers than allowed.
	names=$(seq -f 'bulk%g' -s, 1 260)
	expect 0 timeout 120 "$TRAWL" enable-event -p "$names"
	root_answers "root's list after 260 rules" "$TRAWL" list
	# past the registration deadline (5 s) with margin
	while ((SECONDS - t0 < 15)); do sleep 1; done
	root_answers "root's list at the end" "$TRAWL" list
	attack_end
	wait "$SPY_PID"
	[ "$(att deaf)" = 10 ] && [ "$(att deaf_dropped)" = 10 ] ||
		fail "deaf agents not all dropped: $ATT_RESULT"
	[ "$(att bad)" = 20 ] && [ "$(att bad_dropped)" = 20 ] ||
		fail "bad registrations not all dropped: $ATT_RESULT"
	[ "$(att trickle)" = 50 ] && [ "$(att trickle_dropped)" = 50 ] ||
		fail "trickled registrations not all dropped: $ATT_RESULT"
	[ "$(att idle)" = 200 ] && [ "$(att idle_dropped)" = 200 ] ||
		fail "idle connections not all dropped: $ATT_RESULT"
	# (the drops' log lines: rate-limited per uid, so not each one here)
	grep -q "agent port: .*uid $XUID" "$LOG" || fail "no drop logged for uid $XUID"
	grep -q "done=1 " "$T/spy.$X" || fail "the reading agent: $(cat "$T/spy.$X")"
	[ "$(spied "$X" | grep -c '^+bulk')" = 260 ] ||
		fail "the reading agent did not get the 260 rules: $(cut -c1-300 "$T/spy.$X")"
	peak=$(daemon_kib VmHWM)
	echo "daemon RSS: $base KiB before the flood, peak $peak KiB"
	[ "$peak" -lt $((base + 32 * 1024)) ] || fail "daemon peak RSS $peak KiB (was $base)"
	daemon_alive
}

rules() {
	local msecret='msg == "m-secret-filter"'
	expect 0 "$TRAWL" create rootsess -o "$T/rootsess"
	expect 0 "$TRAWL" enable-event -p root.logger
	expect 0 "$TRAWL" add-trigger --condition event-rule-matches --type=python \
		--name=root.trig --action notify
	expect 0 as "$M" create msess -o "$T/$M/msess"
	expect 0 as "$M" enable-event -p m.secret.logger --filter "$msecret"
	expect 0 as "$M" add-trigger --condition event-rule-matches --type=python \
		--name=m.secret.trig --action notify
	rm -f "$T/stop"
	spy "$X" 60
	xspy=$SPY_PID
	spy "$M" 60
	# rules enabled while they are registered
	expect 0 "$TRAWL" enable-event -p root.later
	expect 0 as "$M" enable-event -p m.secret.later
	sleep 2
	touch "$T/stop"
	wait "$xspy" "$SPY_PID"
	echo "$X's agent: $(cat "$T/spy.$X")"
	echo "$M's agent: $(cat "$T/spy.$M")"
	for r in +root.logger +root.later +root.trig; do
		spied "$X" | grep -q "^$r|" || fail "$X's agent did not get $r"
		spied "$M" | grep -q "^$r|" || fail "$M's agent did not get $r"
	done
	for r in +m.secret.logger +m.secret.later +m.secret.trig; do
		spied "$M" | grep -q "^$r|" || fail "$M's agent did not get its $r"
	done
	grep -q "m.secret\|m-secret" "$T/spy.$X" && fail "$X's agent got the member's rules"
	# a hostile LIST answer in root's list -p
	attack agentlist "$PORT" 60
	expect 0 "$TRAWL" list -p
	attack_end
	grep -q "plain.logger" "$T/out" || fail "list -p lacks the agent's plain logger: $(cat "$T/out")"
	grep -q "forged\|owned" "$T/out" && fail "list -p shows names with control bytes: $(cat -v "$T/out")"
	grep -q $'\x1b' "$T/out" && fail "list -p holds an escape"
	[ "$(att lists)" = 1 ] || fail "the agent was not asked LIST once: $ATT_RESULT"
	daemon_alive
}

big() {
	local base peak n ROOT_BOUND=5 # (list -p waits for the agents: app-reply-ms, 3 s)
	base=$(daemon_kib VmRSS)
	attack agentbig "$PORT" 8 60
	root_answers "root's list -p with 8 agents of 1 MiB" timeout 30 "$TRAWL" list -p
	n=$(grep -c "big[0-9]" "$T/out")
	echo "root's list -p: $n of $X's names"
	[ "$n" -ge 1 ] && [ "$n" -le 16384 ] || fail "root's list -p holds $n of $X's names"
	root_answers "root's list -p again" timeout 30 "$TRAWL" list -p
	attack_end
	[ "$(att dropped)" -ge 5 ] && [ "$(att dropped)" -le 7 ] ||
		fail "not the agents over the budget dropped (2 fit): $ATT_RESULT"
	grep -q "uid $XUID is over the memory its user's apps and agents may take" "$LOG" ||
		fail "the budget's refusals are not logged"
	grep -q "the loggers of uid $XUID's agents past 16384 left out" "$LOG" ||
		fail "the names left out are not logged"
	peak=$(daemon_kib VmHWM)
	echo "daemon RSS: $base KiB before, peak $peak KiB"
	[ "$peak" -lt $((base + 32 * 1024)) ] || fail "daemon peak RSS $peak KiB (was $base)"
	daemon_alive
}

case $1 in
flood | rules | big) "$1" ;;
*) echo "usage: agent-port.sh flood|rules|big" >&2; exit 2 ;;
esac
finish
