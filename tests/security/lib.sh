# SPDX-License-Identifier: MIT
# What the attack tests share: a private root daemon, throw-away users (one
# not in group 'tracing', one in it), the attacker (attacker.py) run as the
# non-member, and root's commands timed against a generous bound.
#
# Pass/fail never depends on a tight timing: root's command must be
# answered at all within ROOT_BOUND s while the attack runs (the 100 ms
# figure is bench/security/run.sh's to measure), and the daemon's deadlines
# are checked with several times their value as margin.
. "$(dirname "$0")/../cli/lib.sh"

ATTACKER=$(dirname "$0")/attacker.py
ROOT_BOUND=5

users_or_skip
X=trawlx$$ # the attacker: not in 'tracing'
M=trawlm$$ # a member of 'tracing'
mkuser "$X" || { echo "SKIP: useradd failed"; exit 77; }
mkuser "$M" tracing
APPS=$TRAWL_ROOT_RUNTIME_DIR/apps.sock
ATT_PID=
ATT_OUT=$T/attacker.out

# The root daemon, started as the service starts it, with extra options.
start_root_daemon() {
	"$BIN/trawl-sessiond" --daemonize "$@" || { fail "the root daemon did not start"; finish; }
	DPID=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")
}

# attack KIND ARGS...: starts attacker.py as $X, returns once it is in place.
attack() {
	rm -f "$T/stop"
	# ATT_ARGV0: the attacker's argv[0] (what `trawl list -u` shows of it)
	runuser -u "$X" -- env ATTACK_STOP="$T/stop" bash -c 'exec -a "$0" "$@"' \
		"${ATT_ARGV0:-${TRAWL_PYTHON:-python3}}" "${TRAWL_PYTHON:-python3}" "$ATTACKER" "$@" \
		>"$ATT_OUT" 2>&1 &
	ATT_PID=$!
	wait_ready "$ATT_OUT" "$ATT_PID" "the attacker"
}

# attack_end: stops the attacker; its account is in $ATT_RESULT (key=value ...).
attack_end() {
	touch "$T/stop"
	wait "$ATT_PID"
	ATT_PID=
	ATT_RESULT=$(grep -v '^ready' "$ATT_OUT" | tail -1)
	echo "attacker: $ATT_RESULT"
}

# att VALUE-NAME: a number from the attacker's account.
att() { echo "$ATT_RESULT" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# root_answers WHAT CMD...: CMD (a program or a function such as `as`) must
# succeed within ROOT_BOUND s.
root_answers() {
	local what=$1 t0 t1 p k=0 rc; shift
	t0=$(date +%s%N)
	"$@" >"$T/out" 2>"$T/err" &
	p=$!
	while kill -0 "$p" 2>/dev/null && ((k < ROOT_BOUND * 10)); do
		sleep 0.1
		k=$((k + 1))
	done
	if kill -0 "$p" 2>/dev/null; then
		pkill -P "$p" 2>/dev/null
		kill "$p" 2>/dev/null
		wait "$p"
		fail "$what: not answered within ${ROOT_BOUND} s"
		return 1
	fi
	wait "$p"
	rc=$?
	t1=$(date +%s%N)
	[ "$rc" = 0 ] || { fail "$what: exit $rc: $(cat "$T/err")"; return 1; }
	echo "$what: $(((t1 - t0) / 1000000)) ms"
}

# daemon_kib FIELD: VmRSS / VmHWM of the root daemon, KiB.
daemon_kib() { awk -v f="$1:" '$1 == f {print $2}' "/proc/$DPID/status"; }

# wait_ready FILE PID WHAT: a line "ready" in FILE, written by PID while it
# runs (120 s at most: a bound for a hang, never a timing check)
wait_ready() {
	local i
	for i in $(seq 1200); do
		grep -q '^ready' "$1" && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.1
	done
	fail "$3 did not get ready: $(cat "$1")"
	finish
}

# programs_stop STOPFILE PID...: tells the programs to stop (STOPFILE), kills
# those still there, and waits for them.
programs_stop() {
	local p
	touch "$1"
	shift
	for p in "$@"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}

daemon_alive() { kill -0 "$DPID" 2>/dev/null || { fail "the root daemon died"; finish; }; }

sec_cleanup() {
	[ -n "$ATT_PID" ] && { touch "$T/stop"; kill "$ATT_PID" 2>/dev/null; wait "$ATT_PID"; }
	cleanup
}
trap sec_cleanup EXIT
