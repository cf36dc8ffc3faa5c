#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A hostile trawl-relayd against the root kernel consumer (docs/SECURITY.md,
# "Streaming"): a member of 'tracing' (a real user, made here) streams a
# kernel session through the real root daemon (private TRAWL_ROOT_RUNTIME_DIR)
# to a relayd of their choosing, hostile-relayd.py, which misbehaves:
#
#   bad-status  HELLO answered with a positive status: the consumer took it
#               for success with no output and died on a NULL pointer;
#               now `start` is refused in one line ("Protocol error")
#   ctrl-status the same on the control port, which the root daemon reads:
#               `create` is refused in one line (the protocol's)
#   trickle     reads 4 KiB every 0.5 s once it has 64 KiB: every send made
#               progress, so the consumer's per-call timeout never fired and
#               a stop's drain went on for ever; the daemon (root's one
#               thread) waited its 30 s, then killed the consumer.
#               Now the consumer answers within its command deadline and
#               says what streaming lost (stop exits 1 or 11 with the
#               consumer's "streaming to trawl-relayd" line); the consumer
#               is alive for destroy. While the stop waited for it (13 s at
#               most), the root daemon's one thread waited too, and every
#               user's command with it: now the stop's answer comes when
#               the consumer's does, and meanwhile root's `trawl list`,
#               another member's session from create to stop, and the
#               member's own commands on the session (refused: busy) are
#               all answered (stop_held below).
#   trickle-ust the same with a user-space session (the member's own
#               consumer, one per user): an app floods 4 MiB buffers;
#               stop answers within the consumer's bound, the loss (full
#               buffers, packets relayd never took) is counted and said
#               (exit 11), and the daemon answers everyone meanwhile.
#               Before the stop, with the data streaming (held below):
#               `regenerate metadata` and `regenerate statedump` (kernel),
#               `status` and `regenerate metadata` (user space) wait for
#               the member's consumer, which answers between rounds of
#               draining (5 s apart with this relayd); the daemon waited
#               with them (status of a user-space session: up to 5 s, 10 s
#               frozen; regenerate: 13 s, 30 s frozen), everyone's commands
#               behind. Now they are answered when the consumer answers,
#               and everyone meanwhile.
#   held-ust    no relayd: the member's local sessions, their consumer frozen
#               (SIGSTOP) once it has the request: `clear`, `rotate`, a
#               scheduled rotation (--timer) and `snapshot record` waited
#               for it in the daemon's loop (10 s, the consumer's socket
#               timeout, then it was killed), everyone's commands behind.
#               Now each is answered when the consumer answers, the session
#               busy meanwhile (its own commands wait for a scheduled
#               rotation), everyone else answered; then the consumer goes
#               on and the command's work is checked with babeltrace2
#               (cleared, the chunk archived, the snapshot whole).
#               The same consumer frozen while 16 programs are set up in a
#               per-process session (64 commands with no reply): at the
#               33rd the daemon waited 10 s for replies; now they wait in
#               the daemon's queue for that consumer, and everyone else is
#               answered while the session's stop waits behind them.
#               A program registering into the member's live session, the
#               consumer frozen: the daemon waited (10 s) for the consumer
#               to say the new channel's streams were on relayd; now the
#               program's set-up waits, and everyone else is answered.
#   held-kernel no relayd: the member's local kernel session, its consumer
#               (root's, a child of the daemon) held by the test: `start`
#               and `snapshot record` (a new consumer that does not get
#               ready: the daemon's consumer program is a wrapper here,
#               cons-wrap, that stops itself while the test says), `clear`
#               and `rotate` (the running consumer SIGSTOPped once it has
#               the request). The member holds it for real by stopping the
#               consumer's opener, which runs as them (5 s a file), or by a
#               slow relayd; the test holds it as long as it needs. The
#               daemon waited for it in its loop (30 s, then killed it),
#               everyone's commands behind. Now each is answered when the
#               consumer answers, everyone meanwhile; then babeltrace2
#               counts the member's getresuid calls (cleared, the chunk
#               archived, the last chunk, the snapshot).
#   held-folder no relayd: the member's folders are on a FUSE file system of
#               theirs (fuse-gate.py: their trace folder is reached through
#               a link on it; root mounts it for them, as fusermount3 would)
#               that holds the requests of the daemon's children working as
#               the member while the test says: `create -o` (the folder
#               made), a kernel session's `clear` (its files removed),
#               `rotate` (the chunk moved to archives/) and `snapshot
#               record` (its folder made). The daemon waited for the child
#               in its loop, for ever (a FUSE file system may never answer),
#               everyone's commands behind. Now the child's result is read
#               by the loop, the session busy meanwhile, everyone else
#               answered; then babeltrace2 counts what each did. A child
#               held past owner-ms (here 20 s) is killed: the create is
#               refused in one line.
#   held-folder-ust the same file system under a user-space session: the
#               clear's removal of ust/, the ust/ folder the next start
#               makes, a rotated session's destroy (its last chunk
#               archived), each waited for in the loop before; then a
#               kernel and user-space session whose start's ust/ is held
#               past owner-ms: its kernel part is stopped again (its
#               consumer frozen meanwhile, which the loop waited 30 s for),
#               the start refused in one line, the kernel trace whole.
#   held-probe  `add-context -u -t perf:thread:NAME`: the child probing the
#               counter as the member, stopped at its perf_event_open()
#               (strace does it for the test; the member's kill -STOP
#               would): the daemon waited for it, with no bound. Now
#               answered when it answers, within owner-ms (here 40 s).
#   ctrl-mute   the control port takes the daemon's HELLO at `create` and
#               does not answer: the daemon waited 3 s (and 3 more to
#               connect to a port that never accepts), everyone with it.
#               Now the create is answered when relayd answers (within
#               relay-ms), the session busy until then, everyone meanwhile.
#   dns-mute    the relayd's host is a name, and the DNS server does not
#               answer (fake-dns.py: the root daemon runs in a mount
#               namespace whose /etc/resolv.conf names it): the daemon
#               waited in getaddrinfo() (the resolver's timeout, 5 s a try
#               by default), everyone with it. Now a child resolves the
#               name; the create is answered when the name resolves, the
#               session busy until then, everyone meanwhile. Then a name
#               that does not exist: create refused in one line.
#   dns-timeout the same DNS server never answers: create is refused in one
#               line once relay-ms (here 1 s) is over, the daemon serving.
#
# usage: relay-hostile.sh MODE
. "$(dirname "$0")/../cli/lib.sh"
. "$(dirname "$0")/gate.sh"

MODE=${1:?usage: relay-hostile.sh bad-status|ctrl-status|ctrl-mute|dns-mute|dns-timeout|trickle|trickle-ust|held-ust|held-kernel|held-folder|held-folder-ust|held-probe}
users_or_skip
G=trawlrh$$ # the member streaming to their hostile relayd
mkuser "$G" tracing || { echo "SKIP: useradd failed"; exit 77; }
HR_PID= DNS_PID= GATE_PID= STRACE_PID=
hr_cleanup() {
	[ -n "$STRACE_PID" ] && kill "$STRACE_PID" 2>/dev/null && wait "$STRACE_PID" 2>/dev/null
	if [ -n "$GATE_PID" ]; then
		rm -f "$T/gate.hold"
		umount -l "$T/$G/gate" 2>/dev/null
		kill "$GATE_PID" 2>/dev/null && wait "$GATE_PID" 2>/dev/null
	fi
	[ -n "$HR_PID" ] && kill "$HR_PID" 2>/dev/null && wait "$HR_PID" 2>/dev/null
	[ -n "$DNS_PID" ] && kill "$DNS_PID" 2>/dev/null && wait "$DNS_PID" 2>/dev/null
	cleanup
}
trap hr_cleanup EXIT

# dns-*: the DNS server the test controls, named by the root daemon's own
# /etc/resolv.conf (a mount namespace: nothing else on the machine sees it)
WRAP=()
if [ "${MODE#dns-}" != "$MODE" ]; then
	unshare -m true 2>/dev/null || { echo "SKIP: no mount namespace (unshare -m)"; exit 77; }
	"${TRAWL_PYTHON:-python3}" "$(dirname "$0")/fake-dns.py" "$T/dns" >"$T/dns.log" 2>&1 &
	DNS_PID=$!
	for i in $(seq 100); do [ -s "$T/dns" ] && break; sleep 0.1; done
	[ -s "$T/dns" ] || { echo "FAIL: the fake DNS server did not start: $(cat "$T/dns.log")"; exit 1; }
	# one try, long: the test says when the answer comes, not the resolver's clock
	printf 'nameserver %s\noptions timeout:30 attempts:1\n' "$(cat "$T/dns")" >"$T/resolv.conf"
	echo "hosts: dns" >"$T/nsswitch.conf"
	WRAP=(unshare -m --propagation private sh -c
		'mount --bind "$1" /etc/resolv.conf && mount --bind "$2" /etc/nsswitch.conf &&
		 shift 2 && exec "$@"' sh "$T/resolv.conf" "$T/nsswitch.conf")
fi
# held-kernel: the daemon's consumer program, a wrapper that stops itself
# (the kernel consumer, root's, before it runs) while $T/hold-kernel exists
if [ "$MODE" = held-kernel ]; then
	printf '#!/bin/sh\ncase "$1" in --kernel) [ -e "%s" ] && kill -STOP $$ ;; esac\nexec "%s" "$@"\n' \
		"$T/hold-kernel" "$BIN/trawl-consumerd" >"$T/cons-wrap"
	chmod 0755 "$T/cons-wrap"
	WRAP=(env TRAWL_TRAWL_CONSUMERD_PATH="$T/cons-wrap")
fi
# relayd's control port may take 30 s to answer (ctrl-mute: the test, not
# the clock, says when it answers); HR_SESSIOND_ARGS= runs a daemon without
# the limit (one from before it)
RELAY_MS=30000
[ "$MODE" = dns-timeout ] && RELAY_MS=1000
# held-folder: a child held past owner-ms is killed (20 s: the test's holds
# are ended by the test well before, but the last)
[ "$MODE" = held-folder ] || [ "$MODE" = held-folder-ust ] &&
	HR_SESSIOND_ARGS=${HR_SESSIOND_ARGS---limit relay-ms=$RELAY_MS --limit owner-ms=20000}
# held-probe: the second hold is past owner-ms, which it waits for; the
# first must outlast the commands answered meanwhile (5 s did not at load
# 15, nor 20 s at a higher one: the first hold ran out before the test was
# done with it)
[ "$MODE" = held-probe ] && HR_SESSIOND_ARGS=${HR_SESSIOND_ARGS---limit relay-ms=$RELAY_MS --limit owner-ms=40000}
# shellcheck disable=SC2086
"${WRAP[@]}" "$BIN/trawl-sessiond" --daemonize ${HR_SESSIOND_ARGS---limit relay-ms=$RELAY_MS} ||
	{ echo "FAIL: the root daemon did not start"; exit 1; }
if [ "$MODE" = trickle-ust ] || [ "$MODE" = ctrl-mute ] || [ "$MODE" = held-ust ] ||
	[ "$MODE" = held-probe ] || [ "${MODE#dns-}" != "$MODE" ]; then
	have_ust || { echo "SKIP: no user-space consumer"; exit 77; }
else
	"$TRAWL" list -k >/dev/null 2>&1 || { echo "SKIP: kernel tracing unavailable"; exit 77; }
fi
RELAY_MODE=${MODE%-ust}

if [ "$MODE" = held-ust ] || [ "$MODE" = held-kernel ] || [ "$MODE" = held-folder ] ||
	[ "$MODE" = held-folder-ust ] || [ "$MODE" = held-probe ]; then
	command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 missing"; exit 77; }
	MODE_LOCAL=1
fi

# the hostile relayd runs as the member: it is theirs
[ -n "${MODE_LOCAL:-}" ] || runuser -u "$G" -- "${TRAWL_PYTHON:-python3}" "$(dirname "$0")/hostile-relayd.py" "$RELAY_MODE" \
	"$T/$G/ports" >"$T/hr.log" 2>&1 &
if [ -z "${MODE_LOCAL:-}" ]; then
	HR_PID=$!
	for i in $(seq 100); do [ -s "$T/$G/ports" ] && break; sleep 0.1; done
	read -r CTRL DATA <"$T/$G/ports" || { fail "the hostile relayd did not start: $(cat "$T/hr.log")"; finish; }
	URL=net://127.0.0.1:$CTRL:$DATA
fi

gt() { as "$G" "$@"; }

# The session's token lets a peer of relayd take up its files: besides
# relayd (here the member's own), nothing another local user can read may
# show it: command lines, environments, `trawl list`/`status`, files.
token_nowhere() {
	local tok p f
	tok=$(sort -u "$T/$G/ports.token" 2>/dev/null | head -1)
	[ -n "$tok" ] || { fail "the relayd got no HELLO"; return; }
	ps -eo args= | grep -F -- "$tok" | grep -v grep && fail "a command line shows the token"
	for p in $(ps -eo pid=,comm= | awk '$2 ~ /^trawl/ {print $1}'); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qF -- "$tok" &&
			fail "process $p's environment shows the token"
	done
	for c in "list" "list H" "status"; do
		gt $c >"$T/l.out" 2>&1; "$TRAWL" $c >>"$T/l.out" 2>&1
		grep -qF -- "$tok" "$T/l.out" && fail "trawl $c shows the token"
	done
	f=$(find "$T" -xdev -perm -o+r -type f ! -name 'ports*' 2>/dev/null |
		xargs -r grep -lF -- "$tok" 2>/dev/null)
	[ -z "$f" ] || fail "files others can read show the token: $f"
	grep -qF -- "$tok" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" && fail "root's log shows the token"
	echo "token $tok: in no command line, environment, listing, log or file others can read"
}
ms() { echo $(($(date +%s%N) / 1000000)); }

# timed NAME CMD...: runs CMD (its status is CMD's), notes how long it took in $T/times
timed() {
	local name=$1 t0 rc; shift
	t0=$(ms)
	"$@"
	rc=$?
	echo "$name $(($(ms) - t0)) ms (exit $rc)" >>"$T/times"
	return $rc
}

# Another member's user-space session, local, from create to stop.
# (each command timed: $T/times)
other_session() {
	local o=$T/$B/o
	timed "  B create" as "$B" create S2 -o "$o" >"$T/b.out" 2>&1 &&
		timed "  B enable-event" as "$B" enable-event -u tall:seq -s S2 >>"$T/b.out" 2>&1 &&
		timed "  B start" as "$B" start S2 >>"$T/b.out" 2>&1 &&
		timed "  B stop" as "$B" stop S2 >>"$T/b.out" 2>&1
}

# The member's consumer: their user-space one (trickle-ust), else the
# kernel consumer of their session (root's, a child of the root daemon).
member_cons() {
	if [ "$MODE" = trickle-ust ] || [ "$MODE" = held-ust ]; then
		pgrep -u "$G" -x trawl-consumerd
	else
		pgrep -f -- "trawl-consumerd --kernel" | while read -r p; do
			[ "$(ps -o ppid= -p "$p" | tr -d ' ')" = "$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")" ] && echo "$p"; done
	fi
}

# Bytes waiting in consumer PID's control socket (its fd 3): a request the
# daemon sent it and it has not read.
cons_rq() {
	ss -xpn 2>/dev/null | awk -v k="pid=$1,fd=3)" 'index($0, k) {print $3; f = 1; exit}
		END {if (!f) print 0}'
}

other_session_whole() {
	other_session && timed "  B destroy" as "$B" destroy S2 >>"$T/b.out" 2>&1
}

# answered_meanwhile NAME PID: root's `trawl list`, the other member's
# session from create to destroy and the member's own `trawl list` are
# answered while PID (the member's command NAME, known to wait in the
# daemon) has not returned: they did not wait behind it. Structure, not a
# timing; the times go in $T/times.
answered_meanwhile() {
	local name=$1 pid=$2 p1 p2= p3
	: >"$T/times"
	timed root-list "$TRAWL" list >"$T/root.out" 2>&1 &
	p1=$!
	if [ -n "$B" ]; then
		timed other-session other_session_whole &
		p2=$!
	fi
	timed member-list gt list >"$T/gl.out" 2>&1 &
	p3=$!
	wait $p1 || fail "root's list failed during $name: $(cat "$T/root.out")"
	if [ -n "$p2" ]; then
		wait $p2 || fail "the other member's session failed during $name: $(cat "$T/b.out")"
	fi
	wait $p3 || fail "the member's list failed during $name: $(cat "$T/gl.out")"
	if kill -0 "$pid" 2>/dev/null; then
		echo "answered while $name waited:"
	else
		fail "$name was over before the others were answered: they waited for it"
	fi
	sed 's/^/  /' "$T/times"
}

# held NAME ARGS...: the member's `trawl ARGS`, which waits for their
# consumer, held by the test: the consumer is frozen (SIGSTOP) before, so
# that the command is known to wait in the daemon (its request in the
# consumer's socket) for as long as the test needs; everyone must be
# answered meanwhile (answered_meanwhile). Then the consumer goes on, and
# ARGS gets its answer: its exit status in HELD_RC, its output in
# $T/held.out, $T/held.err.
HELD_RC=
held() {
	local name=$1 cons q0 q=0 i pid
	shift
	cons=$(member_cons)
	[ -n "$cons" ] || { fail "$name: the member has no consumer to hold"; return; }
	kill -STOP $cons
	q0=$(cons_rq "$cons")
	gt "$@" >"$T/held.out" 2>"$T/held.err" &
	pid=$!
	for i in $(seq 200); do
		q=$(cons_rq "$cons")
		[ "$q" -gt "$q0" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if [ "$q" -le "$q0" ]; then
		kill -CONT $cons
		wait "$pid"
		fail "$name: the daemon never asked the consumer (exit $?: $(cat "$T/held.err"))"
		return
	fi
	answered_meanwhile "$name" "$pid"
	kill -CONT $cons
	wait "$pid"
	HELD_RC=$?
	echo "$name: exit $HELD_RC: $(head -c 300 "$T/held.err")"
}

# 1 while the daemon says a stop or destroy of H waits for its consumer.
h_pending() { gt list H 2>/dev/null | grep -q "waiting for its consumer"; }

# stop_held: the member's `stop H` waits for a consumer held by the
# trickling relayd; meanwhile the daemon must answer everyone else.
# Asserted by structure, not by a timing: each command below completed
# while the daemon still said the stop was waiting (it used to wait for
# the stop: they came back after it). The times go in $T/times.
STOP_PID=
stop_held() {
	local i seen=
	: >"$T/times"
	T0=$(ms)
	gt stop H >"$T/stop.out" 2>"$T/stop.err" &
	STOP_PID=$!
	# `list H` is answered while the stop waits, and says so
	for i in $(seq 400); do
		if h_pending; then seen=1; break; fi
		kill -0 "$STOP_PID" 2>/dev/null || break
		sleep 0.05
	done
	# Held from here on by the test, not by the clock: the consumer is
	# frozen (SIGSTOP) until every command below is answered, so a loaded
	# machine cannot end the stop first (the daemon would wait 30 s for it).
	local cons
	if [ "$MODE" = trickle-ust ]; then
		cons=$(pgrep -u "$G" -x trawl-consumerd)
	else
		cons=$(pgrep -f -- "trawl-consumerd --kernel" | while read -r p; do
			[ "$(ps -o ppid= -p "$p" | tr -d ' ')" = "$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")" ] && echo "$p"; done)
	fi
	[ -n "$seen" ] && [ -n "$cons" ] && kill -STOP $cons
	if [ -z "$seen" ]; then
		wait "$STOP_PID"
		STOP_RC=$?
		STOP_MS=$(($(ms) - T0))
		fail "the daemon never said the stop waits for the consumer (the stop ended first, or listing H waited for it): stop exit $STOP_RC after $STOP_MS ms: $(cat "$T/stop.err")"
		return
	fi
	# all at once: root, the other member's session, the member's own commands on H
	timed root-list "$TRAWL" list >"$T/root.out" 2>&1 &
	local p1=$!
	local p2=
	if [ -n "$B" ]; then
		timed other-session other_session &
		p2=$!
	fi
	timed busy-start gt start H >"$T/busy1.out" 2>"$T/busy1.err" &
	local p3=$!
	timed busy-enable gt enable-event -k --syscall getpid -s H >"$T/busy2.out" 2>"$T/busy2.err" &
	local p4=$!
	wait $p1 || fail "root's list failed during the stop: $(cat "$T/root.out")"
	if [ -n "$p2" ]; then
		wait $p2 || fail "the other member's session failed during the stop: $(cat "$T/b.out")"
	fi
	wait $p3 && fail "start of H was accepted during its stop"
	wait $p4 && fail "enable-event on H was accepted during its stop"
	grep -q "is busy" "$T/busy1.err" && [ "$(wc -l <"$T/busy1.err")" = 1 ] ||
		fail "start of H during its stop: not one line saying it is busy: $(cat "$T/busy1.err")"
	grep -q "is busy" "$T/busy2.err" ||
		fail "enable-event on H during its stop: not saying it is busy: $(cat "$T/busy2.err")"
	# the stop still waits: every command above was answered meanwhile
	if h_pending; then
		echo "answered while the stop waited for the consumer:"
	else
		kill -0 "$STOP_PID" 2>/dev/null &&
			fail "listing H no longer says the stop waits, but the stop has not returned"
		fail "the stop was over before the other commands were: they may have waited for it"
	fi
	sed 's/^/  /' "$T/times"
	[ -n "$cons" ] && kill -CONT $cons
	wait "$STOP_PID"
	STOP_RC=$?
	STOP_MS=$(($(ms) - T0))
	echo "stop: exit $STOP_RC after $STOP_MS ms: $(cat "$T/stop.err")"
	[ -n "$B" ] && { as "$B" destroy S2 >/dev/null 2>&1 || fail "the other member's destroy failed"; }
}

# tall N ID: the member's program records N tall:seq events (thread ID)
tall() { as_user "$G" "$BIN/loss-app" "$1" 0 "$2" 5000 >"$T/app.out" 2>&1 || fail "the app failed: $(cat "$T/app.out")"; }

# count DIR ID: tall:seq events of thread ID babeltrace2 reads in DIR
count() { babeltrace2 "$1" 2>"$T/bt.err" | grep -c "tall:seq: .*thread = $2,"; }

# 1 while `list H` says a rotation of H waits for its consumer
rot_pending() { gt list H 2>/dev/null | grep -q "a rotation of the session is waiting for its consumer"; }

# sched_held: a rotation H's schedule began (the test freezes the consumer
# first) waits for the consumer; everyone is answered meanwhile, and the
# member's own command on H waits for the rotation (not refused).
sched_held() {
	local cons q0 q=0 i wp dp
	cons=$(member_cons)
	[ -n "$cons" ] || { fail "scheduled rotation: the member has no consumer to hold"; return; }
	kill -STOP $cons
	q0=$(cons_rq "$cons")
	expect 0 gt enable-rotation -s H --timer 1s || { kill -CONT $cons; return; }
	for i in $(seq 400); do
		q=$(cons_rq "$cons")
		[ "$q" -gt "$q0" ] && rot_pending && break
		sleep 0.05
	done
	if [ "$q" -le "$q0" ] || ! rot_pending; then
		kill -CONT $cons
		fail "scheduled rotation: the daemon never said it waits for the consumer (queued $q0 -> $q)"
		return
	fi
	gt disable-rotation -s H --timer >"$T/dis.out" 2>"$T/dis.err" &
	dp=$!
	# ends once the rotation is over (structure: the daemon says so)
	(while rot_pending; do sleep 0.1; done) &
	wp=$!
	answered_meanwhile "scheduled rotation" $wp
	kill -0 $dp 2>/dev/null ||
		fail "disable-rotation of H was answered while its rotation waited: $(cat "$T/dis.err")"
	kill -CONT $cons
	wait $wp
	wait $dp || fail "disable-rotation of H after its rotation: $(cat "$T/dis.err")"
	echo "disable-rotation: $(cat "$T/dis.out" "$T/dis.err")"
}

# 1 while `list P` says a stop of P waits for its consumer
p_pending() { gt list P 2>/dev/null | grep -q "a stop or destroy of the session is waiting for its consumer"; }

# queue_held: a per-process session P, its consumer frozen; 16 programs set
# up in it meanwhile (a trace, its metadata, its channel, its removal at
# the exit: 4 commands each, 64 in all with no reply; at the 33rd the
# daemon waited for the consumer's replies, 10 s), then its stop waits for
# the consumer: everyone is answered meanwhile, and once the consumer goes
# on, the trace holds every program's events.
queue_held() {
	local P=$T/$G/p cons i pid n
	expect 0 gt create P -o "$P" || return
	expect 0 gt enable-channel -u --buffers-pid cp -s P || return
	expect 0 gt enable-event -u tall:seq -c cp -s P || return
	expect 0 gt start P || return
	cons=$(member_cons)
	[ -n "$cons" ] || { fail "queue: the member has no consumer to hold"; return; }
	kill -STOP $cons
	for i in $(seq 16); do tall 50 $((100 + i)); done
	gt stop P >"$T/held.out" 2>"$T/held.err" &
	pid=$!
	for i in $(seq 400); do p_pending && break; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
	p_pending || fail "the stop of P never waited for the consumer: $(cat "$T/held.err")"
	answered_meanwhile "stop behind 64 unanswered commands" $pid
	kill -CONT $cons
	wait $pid
	HELD_RC=$?
	echo "stop behind 64 unanswered commands: exit $HELD_RC: $(cat "$T/held.err")"
	[ "$HELD_RC" = 0 ] || fail "the stop of P exited $HELD_RC: $(cat "$T/held.err")"
	n=$(babeltrace2 "$P" 2>"$T/bt.err" | grep -c " tall:seq: ")
	echo "per-process traces: $n events of 16 x 50"
	[ "$n" = 800 ] || fail "the per-process traces hold $n events of 800: $(head -3 "$T/bt.err")"
	expect 0 gt destroy P || fail "destroy of P failed"
}

# live_held: a program of the member registers into their live session
# while their consumer is frozen: its channel's streams must be on relayd
# before the program is given the channel, and the daemon waited for the
# consumer's answer (10 s, then killed it). Now the program's set-up waits
# (its registration is answered once the channel is ready) and everyone
# is answered meanwhile; once the consumer goes on, its 100 events are in
# the relayd's trace.
live_held() {
	local cons q0 q=0 i app line ctrl data n
	"$BIN/trawl-relayd" -o "$T/relay" -C tcp://127.0.0.1:0 -D tcp://127.0.0.1:0 \
		-L tcp://127.0.0.1:0 2>"$T/relay.log" &
	HR_PID=$!
	for i in $(seq 100); do grep -q "control port" "$T/relay.log" && break; sleep 0.05; done
	line=$(grep -m1 "control port" "$T/relay.log") || { fail "relayd did not start: $(cat "$T/relay.log")"; return; }
	ctrl=$(sed -n 's/.*control port \([0-9]*\),.*/\1/p' <<<"$line")
	data=$(sed -n 's/.*data port \([0-9]*\),.*/\1/p' <<<"$line")
	expect 0 gt create L --live=100000 --set-url "net://127.0.0.1:$ctrl:$data" || return
	expect 0 gt enable-event -u tall:seq -s L || return
	expect 0 gt start L || return
	cons=$(member_cons)
	[ -n "$cons" ] || { fail "live: the member has no consumer to hold"; return; }
	kill -STOP $cons
	q0=$(cons_rq "$cons")
	# its start-up waits for its set-up (60 s at most: longer than the test
	# holds the consumer; the default 3 s would let it go on counting its
	# events as lost, libtrawl-ust's late-daemon tally), then records 100
	as_user "$G" env TRAWL_UST_REGISTER_TIMEOUT=60000 "$BIN/loss-app" 100 0 7 60000 \
		>"$T/app.out" 2>&1 &
	app=$!
	for i in $(seq 400); do
		q=$(cons_rq "$cons")
		[ "$q" -gt "$q0" ] && break
		kill -0 $app 2>/dev/null || break
		sleep 0.05
	done
	[ "$q" -gt "$q0" ] || fail "live: the daemon never sent the consumer the program's channel"
	answered_meanwhile "live app set-up" $app
	kill -CONT $cons
	wait $app || fail "the live program failed: $(cat "$T/app.out")"
	expect 0 gt stop L || fail "stop of L: $(cat "$T/err")"
	n=$(babeltrace2 "$T/relay" 2>"$T/bt.err" | grep -c "tall:seq: .*thread = 7,")
	echo "live: $n events of 100 in relayd's trace"
	[ "$n" = 100 ] || fail "relayd's trace holds $n events of 100: $(head -3 "$T/bt.err")"
	expect 0 gt destroy L || fail "destroy of L failed"
	kill $HR_PID 2>/dev/null
	wait $HR_PID 2>/dev/null
	HR_PID=
}

if [ "$MODE" = held-ust ]; then
	B=trawlrb$$
	mkuser "$B" tracing || B=
	O=$T/$G/h
	expect 0 gt create H -o "$O" || finish
	expect 0 gt enable-event -u tall:seq -s H || finish
	expect 0 gt start H || finish
	tall 1000 1
	held clear clear H
	[ "$HELD_RC" = 0 ] || fail "clear exited $HELD_RC: $(cat "$T/held.err")"
	tall 300 2
	held rotate rotate H
	[ "$HELD_RC" = 0 ] || fail "rotate exited $HELD_RC: $(cat "$T/held.err")"
	a0=$(ls -d "$O"/archives/*-1 2>/dev/null) # (the clear took ID 0's successor, as LTTng's)
	[ -n "$a0" ] || fail "no archive of chunk 1 (after the clear) after the rotation: $(ls -R "$O" | head -20)"
	# cleared: none of the first program's, all of the second's
	n1=$(count "$a0" 1) n2=$(count "$a0" 2)
	echo "chunk 1: $n1 events of the program before the clear, $n2 of the 300 after"
	[ "$n1" = 0 ] && [ "$n2" = 300 ] || fail "chunk 1 holds $n1 (want 0) and $n2 (want 300): $(cat "$T/bt.err")"
	tall 200 3
	sched_held
	a1=$(ls -d "$O"/archives/*-2 2>/dev/null)
	[ -n "$a1" ] || fail "no archive of chunk 2 after the scheduled rotation: $(ls "$O"/archives)"
	n3=$(count "$a1" 3)
	echo "chunk 2: $n3 events of 200"
	[ "$n3" = 200 ] || fail "chunk 2 holds $n3 events of 200: $(cat "$T/bt.err")"
	expect 0 gt destroy H || fail "destroy of H failed"
	queue_held
	live_held
	S=$T/$G/s
	expect 0 gt create S --snapshot -o "$S" || finish
	expect 0 gt enable-event -u tall:seq -s S || finish
	expect 0 gt start S || finish
	tall 500 4
	held "snapshot record" snapshot record -s S
	[ "$HELD_RC" = 0 ] || fail "snapshot record exited $HELD_RC: $(cat "$T/held.err")"
	snap=$(ls -d "$S"/snapshot-1-* 2>/dev/null)
	[ -n "$snap" ] || fail "no snapshot folder: $(ls "$S")"
	n4=$(count "$snap" 4)
	echo "snapshot: $n4 events of 500"
	[ "$n4" = 500 ] || fail "the snapshot holds $n4 events of 500: $(cat "$T/bt.err")"
	expect 0 gt destroy S || fail "destroy of S failed"
	grep -q "did not answer\|consumer died\|killed" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" &&
		fail "the consumer was killed: $(grep 'died\|killed\|did not answer' "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log")"
	expect 0 "$TRAWL" list || fail "root's list failed"
	finish
fi

if [ "$MODE" = held-kernel ]; then
	B=
	if have_ust; then
		B=trawlrb$$
		mkuser "$B" tracing || B=
	fi
	DPID=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")
	# kgen N: the member's program makes N getresuid calls; its pid in $KP
	# (not getppid: the load programs of other tests make millions, and a
	# flight-recorder snapshot of every process's getppid calls could hold
	# none of this one's, as seen in a CI run beside them)
	kgen() {
		as_user "$G" "${TRAWL_PYTHON:-python3}" -c '
import os, sys
print(os.getpid(), flush=True)
for _ in range(int(sys.argv[1])): os.getresuid()' "$1" >"$T/kgen.out" 2>&1 ||
			fail "the getresuid program failed: $(cat "$T/kgen.out")"
		KP=$(head -1 "$T/kgen.out")
	}
	# kcount DIR PID: getresuid calls of PID babeltrace2 reads in DIR
	kcount() {
		babeltrace2 "$1" 2>"$T/bt.err" | grep " syscall_entry_getresuid: " |
			grep -cE "pid = $2[ ,}]"
	}
	# held_spawn NAME ARGS...: the member's `trawl ARGS`, which starts a
	# kernel consumer (start, snapshot record), held by the test before it
	# runs (cons-wrap stops itself); everyone must be answered meanwhile
	held_spawn() {
		local name=$1 pid w= i
		shift
		touch "$T/hold-kernel"
		gt "$@" >"$T/held.out" 2>"$T/held.err" &
		pid=$!
		for i in $(seq 400); do
			w=$(ps -o pid=,stat= --ppid "$DPID" | awk '$2 ~ /^T/ {print $1; exit}')
			[ -n "$w" ] && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		rm -f "$T/hold-kernel"
		if [ -z "$w" ]; then
			wait "$pid"
			fail "$name: no kernel consumer was started to hold (exit $?: $(cat "$T/held.err"))"
			return
		fi
		answered_meanwhile "$name" "$pid"
		# the member's own command on the session meanwhile: refused, busy
		gt enable-event -k --syscall getpid -s "${HS:-H}" >"$T/out" 2>"$T/err" &&
			fail "enable-event was accepted during the $name"
		grep -q "is busy" "$T/err" || fail "enable-event during the $name: $(cat "$T/err")"
		kill -0 "$pid" 2>/dev/null || fail "the $name was over before the member's commands were answered"
		kill -CONT "$w"
		wait "$pid"
		HELD_RC=$?
		echo "$name: exit $HELD_RC: $(head -c 300 "$T/held.err")"
	}
	O=$T/$G/k
	expect 0 gt create H -o "$O" || finish
	expect 0 gt enable-event -k --syscall getresuid -s H || finish
	expect 0 gt add-context -k -t pid -s H || finish
	held_spawn start start H
	[ "$HELD_RC" = 0 ] || fail "start exited $HELD_RC: $(cat "$T/held.err")"
	kgen 1000
	P1=$KP
	held clear clear H
	[ "$HELD_RC" = 0 ] || fail "clear exited $HELD_RC: $(cat "$T/held.err")"
	kgen 300
	P2=$KP
	held rotate rotate H
	[ "$HELD_RC" = 0 ] || fail "rotate exited $HELD_RC: $(cat "$T/held.err")"
	a0=$(ls -d "$O"/archives/*-1 2>/dev/null) # (the clear took ID 0's successor, as LTTng's)
	[ -n "$a0" ] || fail "no archive of chunk 1 (after the clear) after the rotation: $(ls -R "$O" | head -20)"
	n1=$(kcount "$a0" "$P1") n2=$(kcount "$a0" "$P2")
	echo "chunk 1: $n1 getresuid calls of the program before the clear, $n2 of the 300 after"
	[ "$n1" = 0 ] && [ "$n2" = 300 ] || fail "chunk 1 holds $n1 (want 0) and $n2 (want 300): $(head -3 "$T/bt.err")"
	kgen 200
	P3=$KP
	expect 0 gt stop H || fail "stop of H failed"
	expect 0 gt destroy H || fail "destroy of H failed"
	a1=$(ls -d "$O"/archives/*-2 2>/dev/null)
	[ -n "$a1" ] || fail "no archive of chunk 2 after the destroy: $(ls "$O"/archives)"
	n3=$(kcount "$a1" "$P3")
	echo "chunk 2: $n3 getresuid calls of 200"
	[ "$n3" = 200 ] || fail "chunk 2 holds $n3 of 200: $(head -3 "$T/bt.err")"
	S=$T/$G/s
	HS=S
	expect 0 gt create S --snapshot -o "$S" || finish
	expect 0 gt enable-event -k --syscall getresuid -s S || finish
	expect 0 gt add-context -k -t pid -s S || finish
	expect 0 gt start S || finish
	kgen 500
	P4=$KP
	held_spawn "snapshot record" snapshot record -s S
	[ "$HELD_RC" = 0 ] || fail "snapshot record exited $HELD_RC: $(cat "$T/held.err")"
	snap=$(ls -d "$S"/snapshot-1-* 2>/dev/null)
	[ -n "$snap" ] || fail "no snapshot folder: $(ls "$S")"
	n4=$(kcount "$snap" "$P4")
	echo "snapshot: $n4 getresuid calls of 500"
	[ "$n4" = 500 ] || fail "the snapshot holds $n4 of 500: $(head -3 "$T/bt.err")"
	expect 0 gt destroy S || fail "destroy of S failed"
	grep -q "did not start\|did not finish\|consumer died\|snapshot consumer failed" \
		"$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" &&
		fail "a kernel consumer was given up on: $(grep 'did not\|died\|failed' "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log")"
	expect 0 "$TRAWL" list || fail "root's list failed"
	finish
fi

if [ "$MODE" = held-folder ] || [ "$MODE" = held-folder-ust ]; then
	[ -c /dev/fuse ] && grep -qw fuse /proc/filesystems || { echo "SKIP: no FUSE"; exit 77; }
	B=
	if have_ust; then
		B=trawlrb$$
		mkuser "$B" tracing || B=
	fi
	DPID=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")
	gate_mount "$G" "$DPID" # F: the member's folder, through their FUSE file system
	kgen() {
		as_user "$G" "${TRAWL_PYTHON:-python3}" -c '
import os, sys
print(os.getpid(), flush=True)
for _ in range(int(sys.argv[1])): os.getresuid()' "$1" >"$T/kgen.out" 2>&1 ||
			fail "the getresuid program failed: $(cat "$T/kgen.out")"
		KP=$(head -1 "$T/kgen.out")
	}
	kcount() {
		babeltrace2 "$1" 2>"$T/bt.err" | grep " syscall_entry_getresuid: " |
			grep -cE "pid = $2[ ,}]"
	}
	# gate_held NAME SESSION ARGS...: the member's `trawl ARGS`, whose child
	# working as the member is held by their file system (the gate holds
	# it: $T/gate.hold.held says so); everyone must be answered meanwhile,
	# the member's own command on SESSION refused (busy); then the gate
	# answers and ARGS gets its answer ($HELD_RC, $T/held.err)
	gate_held() {
		local name=$1 ses=$2 pid i
		shift 2
		rm -f "$T/gate.hold.held"
		touch "$T/gate.hold"
		gt "$@" >"$T/held.out" 2>"$T/held.err" &
		pid=$!
		for i in $(seq 400); do
			[ -s "$T/gate.hold.held" ] && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		if [ ! -s "$T/gate.hold.held" ]; then
			rm -f "$T/gate.hold"
			wait "$pid"
			fail "$name: no child of the daemon reached the member's file system (exit $?: $(cat "$T/held.err"))"
			return
		fi
		answered_meanwhile "$name" "$pid"
		gt enable-event -k --syscall getpid -s "$ses" >"$T/out" 2>"$T/err" &&
			fail "enable-event on $ses was accepted during the $name"
		grep -q "is busy" "$T/err" || fail "enable-event on $ses during the $name: $(cat "$T/err")"
		kill -0 "$pid" 2>/dev/null || fail "the $name was over before the member's commands were answered"
		rm -f "$T/gate.hold"
		wait "$pid"
		HELD_RC=$?
		echo "$name: exit $HELD_RC: $(head -c 300 "$T/held.err")"
	}
fi
if [ "$MODE" = held-folder ]; then
	gate_held create H create H -o "$F/o"
	[ "$HELD_RC" = 0 ] || fail "create exited $HELD_RC: $(cat "$T/held.err")"
	[ "$(stat -c %U "$R/o" 2>/dev/null)" = "$G" ] || fail "the trace folder is not the member's: $(ls -ld "$R/o")"
	expect 0 gt enable-event -k --syscall getresuid -s H || finish
	expect 0 gt add-context -k -t pid -s H || finish
	expect 0 gt start H || finish
	kgen 1000
	P1=$KP
	gate_held clear H clear H
	[ "$HELD_RC" = 0 ] || fail "clear exited $HELD_RC: $(cat "$T/held.err")"
	kgen 300
	P2=$KP
	gate_held rotate H rotate H
	[ "$HELD_RC" = 0 ] || fail "rotate exited $HELD_RC: $(cat "$T/held.err")"
	a0=$(ls -d "$R"/o/archives/*-1 2>/dev/null) # (the clear took ID 0's successor, as LTTng's)
	[ -n "$a0" ] || fail "no archive of chunk 1 (after the clear) after the rotation: $(ls -R "$R/o" | head -20)"
	n1=$(kcount "$a0" "$P1") n2=$(kcount "$a0" "$P2")
	echo "chunk 1: $n1 getresuid calls of the program before the clear, $n2 of the 300 after"
	[ "$n1" = 0 ] && [ "$n2" = 300 ] || fail "chunk 1 holds $n1 (want 0) and $n2 (want 300): $(head -3 "$T/bt.err")"
	expect 0 gt stop H || fail "stop of H failed"
	expect 0 gt destroy H || fail "destroy of H failed"
	expect 0 gt create S --snapshot -o "$F/s" || finish
	expect 0 gt enable-event -k --syscall getresuid -s S || finish
	expect 0 gt add-context -k -t pid -s S || finish
	expect 0 gt start S || finish
	kgen 500
	P4=$KP
	gate_held "snapshot record" S snapshot record -s S
	[ "$HELD_RC" = 0 ] || fail "snapshot record exited $HELD_RC: $(cat "$T/held.err")"
	snap=$(ls -d "$R"/s/snapshot-1-* 2>/dev/null)
	[ -n "$snap" ] || fail "no snapshot folder: $(ls "$R/s")"
	n4=$(kcount "$snap" "$P4")
	echo "snapshot: $n4 getresuid calls of 500"
	[ "$n4" = 500 ] || fail "the snapshot holds $n4 of 500: $(head -3 "$T/bt.err")"
	expect 0 gt destroy S || fail "destroy of S failed"
	# held for good: the child is killed at owner-ms, the create refused in one line
	touch "$T/gate.hold"
	t0=$(ms)
	gt create D -o "$F/d" >"$T/out" 2>"$T/err"
	rc=$?
	echo "create held for good: exit $rc after $(($(ms) - t0)) ms: $(cat "$T/err")"
	[ "$rc" != 0 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "within owner-ms (20000 ms)" "$T/err" ||
		fail "create held for good: not refused in one line: exit $rc: $(cat "$T/err")"
	rm -f "$T/gate.hold"
	gt list D >/dev/null 2>&1 && fail "D exists after its create failed"
	expect 0 "$TRAWL" list || fail "root's list failed"
	finish
fi

if [ "$MODE" = ctrl-mute ]; then
	B=trawlrb$$
	mkuser "$B" tracing || B=
	gt create H --set-url "$URL" >"$T/held.out" 2>"$T/held.err" &
	pid=$!
	# its HELLO is in: the daemon waits for relayd's answer
	for i in $(seq 200); do
		[ -s "$T/$G/ports.token" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	[ -s "$T/$G/ports.token" ] || fail "the relayd got no HELLO: $(cat "$T/held.err")"
	answered_meanwhile create $pid
	# the member's own commands on H meanwhile: refused in one line; listed as waiting
	gt enable-event -k --syscall getpid -s H >"$T/out" 2>"$T/err" &&
		fail "enable-event on H was accepted during its create"
	grep -q "is busy" "$T/err" || fail "enable-event on H during its create: $(cat "$T/err")"
	gt start H >"$T/out" 2>"$T/err" && fail "start of H was accepted during its create"
	grep -q "is busy.*trawl-relayd" "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] ||
		fail "start of H during its create: not one line saying it waits for relayd: $(cat "$T/err")"
	kill -0 $pid 2>/dev/null || fail "the create was over before the member's commands were answered"
	# relayd answers: the create gets its answer, the session works
	touch "$T/$G/ports.release"
	wait $pid
	rc=$?
	echo "create: exit $rc: $(cat "$T/held.out" "$T/held.err")"
	[ "$rc" = 0 ] || fail "create exited $rc once relayd answered: $(cat "$T/held.err")"
	expect 0 gt list H || fail "H is not listed after its create"
	expect 0 gt destroy H
	expect 0 "$TRAWL" list || fail "root's list failed"
	finish
fi
# children_gone PID: the daemon PID has no child of its own program left
# (a resolver or owner child). An owner child may exit just after it
# reported, so after the daemon answered; the daemon reaps such a child at
# its next loop round (a `trawl list` here makes one): one still there
# after 200 rounds is left behind.
children_gone() {
	local i
	for i in $(seq 200); do
		[ -z "$(pgrep -P "$1" -x trawl-sessiond)" ] && return 0
		"$TRAWL" list >/dev/null 2>&1
		sleep 0.1
	done
	return 1
}

if [ "$MODE" = held-folder-ust ]; then
	have_ust || { echo "SKIP: no user-space consumer"; exit 77; }
	# a user-space session on the member's FUSE file system
	expect 0 gt create H -o "$F/o" || finish
	expect 0 gt enable-event -u tall:seq -s H || finish
	expect 0 gt start H || finish
	tall 1000 1
	expect 0 gt stop H || finish
	# the clear's removal of ust/
	gate_held "user-space clear" H clear H
	[ "$HELD_RC" = 0 ] || fail "clear exited $HELD_RC: $(cat "$T/held.err")"
	[ -e "$R/o/ust" ] && fail "ust/ is still there after the clear: $(ls -R "$R/o" | head)"
	# the next start makes the chunk's ust/ folder
	gate_held "start after a clear" H start H
	[ "$HELD_RC" = 0 ] || fail "start exited $HELD_RC: $(cat "$T/held.err")"
	[ "$(stat -c %U "$R/o/ust" 2>/dev/null)" = "$G" ] || fail "no ust/ of the member's after the start: $(ls -l "$R/o")"
	tall 300 2
	expect 0 gt rotate H || fail "rotate of H failed"
	tall 200 3
	expect 0 gt stop H || fail "stop of H failed"
	# destroy archives the last chunk
	gate_held "destroy of a rotated session" H destroy H
	[ "$HELD_RC" = 0 ] || fail "destroy exited $HELD_RC: $(cat "$T/held.err")"
	a0=$(ls -d "$R"/o/archives/*-1 2>/dev/null) a1=$(ls -d "$R"/o/archives/*-2 2>/dev/null) # (the clear took an ID, as LTTng's)
	[ -n "$a0" ] && [ -n "$a1" ] || fail "archives after the destroy: $(ls "$R/o/archives" 2>&1)"
	n1=$(count "$a0" 1) n2=$(count "$a0" 2) n3=$(count "$a1" 3)
	echo "chunk 1: $n1 events before the clear, $n2 of 300 after; chunk 2: $n3 of 200"
	[ "$n1" = 0 ] && [ "$n2" = 300 ] || fail "chunk 1 holds $n1 (want 0) and $n2 (want 300): $(head -3 "$T/bt.err")"
	[ "$n3" = 200 ] || fail "chunk 2 holds $n3 of 200: $(head -3 "$T/bt.err")"
	# A kernel and user-space session whose start's user-space part fails:
	# its ust/ folder held past owner-ms. The kernel part, started, is
	# stopped again; its consumer frozen then (the member can hold it as
	# long: held-kernel), the stop waited for it in the loop (30 s).
	expect 0 gt create K -o "$F/k" || finish
	expect 0 gt enable-event -k --syscall getresuid -s K || finish
	expect 0 gt add-context -k -t pid -s K || finish
	expect 0 gt enable-event -u tall:seq -s K || finish
	expect 0 gt start K || finish
	expect 0 gt stop K || finish
	expect 0 gt clear K || finish
	rm -f "$T/gate.hold.held"
	touch "$T/gate.hold"
	t0=$(ms)
	gt start K >"$T/held.out" 2>"$T/held.err" &
	pid=$!
	for i in $(seq 400); do
		[ -s "$T/gate.hold.held" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -s "$T/gate.hold.held" ] || fail "start of K: no child of the daemon reached the member's file system: $(cat "$T/held.err")"
	kgen 400
	P5=$KP
	cons=$(member_cons | tail -1)
	[ -n "$cons" ] || fail "K has no kernel consumer"
	q0=$(cons_rq "$cons")
	kill -STOP $cons
	answered_meanwhile "start of K (its ust/ folder held)" "$pid"
	# past owner-ms: the user-space part fails, the kernel part is stopped
	q=$q0
	for i in $(seq 1200); do
		q=$(cons_rq "$cons")
		[ "$q" -gt "$q0" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ "$q" -gt "$q0" ] || fail "start of K: the kernel part was not stopped after owner-ms: $(cat "$T/held.err")"
	answered_meanwhile "start of K (its kernel part stopped)" "$pid"
	kill -CONT $cons
	rm -f "$T/gate.hold"
	wait "$pid"
	rc=$?
	echo "start of K held for good: exit $rc after $(($(ms) - t0)) ms: $(cat "$T/held.err")"
	[ "$rc" != 0 ] && [ "$(wc -l <"$T/held.err")" = 1 ] && grep -q "within owner-ms (20000 ms)" "$T/held.err" ||
		fail "start of K held for good: not refused in one line: exit $rc: $(cat "$T/held.err")"
	gt list K >"$T/out" 2>&1 || fail "list K failed: $(cat "$T/out")"
	grep -q "\[inactive\]" "$T/out" || fail "K is not inactive after its start failed: $(head -3 "$T/out")"
	n5=$(kcount "$R/k/kernel" "$P5")
	echo "K: $n5 getresuid calls of 400 recorded by its kernel part before it was stopped"
	[ "$n5" = 400 ] || fail "K's kernel trace holds $n5 of 400: $(head -3 "$T/bt.err")"
	expect 0 gt destroy K || fail "destroy of K failed"
	expect 0 "$TRAWL" list || fail "root's list failed"
	d=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")
	children_gone "$d" || fail "an owner child is left: $(pgrep -a -P "$d")"
	finish
fi

if [ "$MODE" = held-probe ]; then
	have_ust || { echo "SKIP: no user-space consumer"; exit 77; }
	command -v strace >/dev/null || { echo "SKIP: strace missing"; exit 77; }
	B=
	B=trawlrb$$
	mkuser "$B" tracing || B=
	DPID=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")
	# probe_held NAME ARGS...: the member's `trawl ARGS`, whose child
	# probing a perf counter as the member is stopped at its
	# perf_event_open() (strace stops it there for the test, then lets go
	# of it: the child stays stopped, as the member's kill -STOP would leave
	# it); everyone must be answered meanwhile, the session busy. Then the
	# member lets it go on unless RELEASE is 0; ARGS's status in HELD_RC.
	probe_held() {
		local name=$1 release=$2 pid i st child=
		shift 2
		strace -f -p "$DPID" -e trace=perf_event_open -e inject=perf_event_open:signal=SIGSTOP \
			-o "$T/strace.log" 2>"$T/strace.err" &
		STRACE_PID=$!
		for i in $(seq 200); do
			grep -q "TracerPid:[[:space:]]*[1-9]" "/proc/$DPID/status" && break
			sleep 0.05
		done
		gt "$@" >"$T/held.out" 2>"$T/held.err" &
		pid=$!
		for i in $(seq 400); do
			for c in $(pgrep -P "$DPID" -u "$G" -x trawl-sessiond); do
				st=$(awk '{print $3}' "/proc/$c/stat" 2>/dev/null)
				[ "$st" = T ] || [ "$st" = t ] && child=$c
			done
			[ -n "$child" ] && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		kill "$STRACE_PID" 2>/dev/null
		wait "$STRACE_PID" 2>/dev/null
		STRACE_PID=
		if [ -z "$child" ]; then
			wait "$pid"
			fail "$name: no child of the daemon probed as the member (exit $?: $(cat "$T/held.err"); $(tail -3 "$T/strace.log"))"
			return 1
		fi
		echo "$name: the daemon's child $child (the member's) is stopped: $(grep perf_event_open "$T/strace.log" | head -1)"
		answered_meanwhile "$name" "$pid"
		gt enable-event -u tall:seq -s P >"$T/out" 2>"$T/err" &&
			fail "enable-event on P was accepted during the $name"
		grep -q "is busy" "$T/err" || fail "enable-event on P during the $name: $(cat "$T/err")"
		kill -0 "$pid" 2>/dev/null || fail "the $name was over before the member's commands were answered"
		t0=$(ms)
		[ "$release" = 1 ] && as_user "$G" kill -CONT "$child"
		wait "$pid"
		HELD_RC=$?
		echo "$name: exit $HELD_RC after $(($(ms) - t0)) ms more: $(head -c 300 "$T/held.err")"
		kill -CONT "$child" 2>/dev/null
	}
	expect 0 gt create P -o "$T/$G/p" || finish
	expect 0 gt enable-channel -u c0 -s P || finish
	probe_held "add-context perf:thread:page-fault" 1 add-context -u -t perf:thread:page-fault -c c0 -s P
	[ "$HELD_RC" = 0 ] || fail "add-context exited $HELD_RC: $(cat "$T/held.err")"
	# held for good: the child killed at owner-ms, the command refused in one line
	probe_held "add-context perf:thread:context-switches, held for good" 0 \
		add-context -u -t perf:thread:context-switches -c c0 -s P
	[ "$HELD_RC" != 0 ] && [ "$(wc -l <"$T/held.err")" = 1 ] && grep -q "within owner-ms (40000 ms)" "$T/held.err" ||
		fail "add-context held for good: not refused in one line: exit $HELD_RC: $(cat "$T/held.err")"
	expect 0 gt enable-event -u tall:seq -c c0 -s P || finish
	expect 0 gt start P || finish
	tall 500 4
	expect 0 gt stop P || finish
	n=$(babeltrace2 "$T/$G/p" 2>"$T/bt.err" | grep "tall:seq: .*thread = 4," | grep -c "perf_thread_page_fault = ")
	echo "P: $n of 500 events with the page-fault counter"
	[ "$n" = 500 ] || fail "P holds $n of 500 events with perf_thread_page_fault: $(head -3 "$T/bt.err")"
	babeltrace2 "$T/$G/p" 2>/dev/null | grep -q "perf_thread_context_switches" &&
		fail "the context refused at owner-ms is recorded"
	expect 0 gt destroy P || fail "destroy of P failed"
	expect 0 "$TRAWL" list || fail "root's list failed"
	children_gone "$DPID" || fail "an owner child is left: $(pgrep -a -P "$DPID")"
	finish
fi

if [ "$MODE" = dns-mute ]; then
	B=trawlrb$$
	mkuser "$B" tracing || B=
	NURL=net://relay.trawl.test:$CTRL:$DATA
	gt create H --set-url "$NURL" >"$T/held.out" 2>"$T/held.err" &
	pid=$!
	# the daemon's resolver asked the DNS server: the create waits for its answer
	for i in $(seq 200); do
		[ -e "$T/dns.asked" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	[ -e "$T/dns.asked" ] || fail "the DNS server was not asked: $(cat "$T/held.err")"
	answered_meanwhile create $pid
	gt start H >"$T/out" 2>"$T/err" && fail "start of H was accepted during its create"
	grep -q "is busy" "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] ||
		fail "start of H during its create: not one line saying it is busy: $(cat "$T/err")"
	kill -0 $pid 2>/dev/null || fail "the create was over before the member's commands were answered"
	# the DNS server answers: the create gets its answer, the session is there
	touch "$T/dns.release"
	wait $pid
	rc=$?
	echo "create: exit $rc: $(cat "$T/held.out" "$T/held.err")"
	[ "$rc" = 0 ] || fail "create exited $rc once the name resolved: $(cat "$T/held.err")"
	[ -s "$T/$G/ports.token" ] || fail "relayd got no HELLO once the name resolved"
	expect 0 gt list H || fail "H is not listed after its create"
	grep -q "relay.trawl.test" "$T/out" || fail "list H does not show the URL: $(cat "$T/out")"
	expect 0 gt destroy H
	# a name that does not exist: one line
	expect 5 gt create N --set-url "net://nx.trawl.test:$CTRL:$DATA"
	expect_err_line "cannot reach trawl-relayd at nx.trawl.test:$CTRL (control port) at create: unknown host"
	expect 0 "$TRAWL" list || fail "root's list failed"
	# no resolver child left behind
	d=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")
	children_gone "$d" || fail "a resolver child is left: $(pgrep -a -P "$d")"
	finish
fi
if [ "$MODE" = dns-timeout ]; then
	expect 1 gt create H --set-url "net://relay.trawl.test:$CTRL:$DATA"
	expect_err_line "at create: resolving the host name: no answer within relay-ms (1000 ms)"
	expect 0 "$TRAWL" list || fail "root's list failed"
	gt list H >/dev/null 2>&1 && fail "H exists after its create failed"
	d=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")
	children_gone "$d" || fail "a resolver child is left: $(pgrep -a -P "$d")"
	finish
fi
if [ "$MODE" = ctrl-status ]; then
	expect 10 gt create H --set-url "$URL"
	expect_err_line "does not speak trawl-relayd's protocol"
	expect 0 "$TRAWL" list || fail "root's list failed"
	finish
fi
expect 0 gt create H --set-url "$URL" || finish
# big buffers: a stop has MiBs to drain, far more than the sockets hold
CH=()
case $MODE in
trickle)
	expect 0 gt enable-channel -k c0 --subbuf-size 1M --num-subbuf 4 || finish
	CH=(-c c0)
	;;
trickle-ust)
	expect 0 gt enable-channel -u c0 --subbuf-size 1M --num-subbuf 4 || finish
	expect 0 gt enable-event -u tall:seq -c c0 || finish
	;;
esac
[ "$MODE" = trickle-ust ] || expect 0 gt enable-event -k --syscall getppid "${CH[@]}" || finish
# the other member, whose commands must be answered during the stop
B=
if [ "${MODE#trickle}" != "$MODE" ] && have_ust; then
	B=trawlrb$$
	mkuser "$B" tracing || B=
fi

case $MODE in
bad-status)
	expect 1 gt start
	expect_err_line "Protocol error"
	grep -qi "segmentation\|signal 11" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" &&
		fail "the kernel consumer crashed: $(grep -i 'signal\|segm' "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log")"
	;;
trickle)
	expect 0 gt start || finish
	token_nowhere
	# a few MiB of getppid events: far more than 64 KiB at 8 KiB/s
	as_user "$G" "${TRAWL_PYTHON:-python3}" -c '
import os
for _ in range(300000): os.getppid()' || fail "the event flood failed"
	for what in metadata statedump; do
		held "regenerate $what" regenerate $what -s H
		[ "$HELD_RC" = 0 ] || fail "regenerate $what exited $HELD_RC: $(cat "$T/held.err")"
	done
	stop_held
	rc=$STOP_RC
	cp "$T/stop.err" "$T/err"
	# the consumer's own account (what streaming lost), not the daemon
	# giving up on it after its 30 s ("the kernel consumer died")
	[ "$rc" = 1 ] || [ "$rc" = 11 ] || fail "stop exited $rc, wanted 1 or 11: $(cat "$T/err")"
	grep -q "consumer died" "$T/err" &&
		fail "the daemon gave up on the consumer: $(cat "$T/err"); root's log: $(tail -15 "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log")"
	grep -q "streaming to trawl-relayd at 127.0.0.1:$DATA" "$T/err" ||
		echo "(streaming was not cut: the consumer sent less than the sockets hold)"
	# root answered after it; the consumer still answers (destroy)
	expect 0 "$TRAWL" list || fail "root's list failed after the stop"
	expect 0 gt destroy H || true
	grep -q "kernel consumer.*killed\|did not answer" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" &&
		fail "the consumer was killed: $(grep 'killed\|did not answer' "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log")"
	;;
trickle-ust)
	expect 0 gt start || finish
	token_nowhere
	# 2,000,000 events as fast as they come: the 4 MiB fill (discarded,
	# counted), and the stop has them to drain at 8 KiB/s
	as_user "$G" "$BIN/loss-app" 2000000 0 1 5000 >"$T/app.out" 2>&1 ||
		fail "the app failed: $(cat "$T/app.out")"
	# status: 0, or 11 with the events the full buffers discarded
	held status status
	[ "$HELD_RC" = 0 ] || [ "$HELD_RC" = 11 ] ||
		fail "status exited $HELD_RC: $(cat "$T/held.err")"
	grep -q "Events discarded" "$T/held.out" || fail "status counted nothing: $(cat "$T/held.out")"
	held "regenerate metadata" regenerate metadata -s H
	[ "$HELD_RC" = 0 ] || fail "regenerate metadata exited $HELD_RC: $(cat "$T/held.err")"
	stop_held
	rc=$STOP_RC
	# answered by the consumer (not killed by the daemon), the loss counted and said
	[ "$rc" = 1 ] || [ "$rc" = 11 ] || fail "stop exited $rc, wanted 1 or 11: $(cat "$T/stop.err")"
	grep -q "lost\|discarded" "$T/stop.err" ||
		fail "stop did not say what was lost: $(cat "$T/stop.err")"
	grep -q "consumer died\|did not answer\|killed" "$T/stop.err" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" &&
		fail "the consumer was killed: $(grep 'died\|killed\|did not answer' "$T/stop.err" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log")"
	gt status >"$T/status.out" 2>&1
	grep -q "Events discarded: [1-9]" "$T/status.out" ||
		fail "status counts no discarded event: $(cat "$T/status.out")"
	expect 0 "$TRAWL" list || fail "root's list failed after the stop"
	t0=$(ms)
	gt destroy H >"$T/out" 2>"$T/err"
	echo "destroy: exit $? after $(($(ms) - t0)) ms: $(cat "$T/err")"
	;;
*) fail "unknown mode $MODE" ;;
esac
finish
