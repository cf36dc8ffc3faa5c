# SPDX-License-Identifier: MIT
# Shared set-up for the control-plane tests: a private folder for sockets,
# HOME and traces, and cleanup of every daemon the test started.
set -u
BIN=${TRAWL_BIN_DIR:?run through ctest}
TRAWL=$BIN/trawl
T=$(mktemp -d /tmp/trawl-test.XXXXXX)
chmod 755 "$T"
export HOME=$T/home TRAWL_RUNTIME_DIR=$T/run TRAWL_ROOT_RUNTIME_DIR=$T/rootrun
mkdir -p "$HOME"
FAILS=0
CLEANUP_USERS=()

kill_daemons() {
	local f
	for f in "$T"/*/sessiond.lock "$T"/*/*/sessiond.lock; do
		[ -f "$f" ] || continue
		local pid
		pid=$(cat "$f" 2>/dev/null)
		[ -n "$pid" ] && kill "$pid" 2>/dev/null
	done
	sleep 0.2
}

cleanup() {
	kill_daemons
	local u i
	for u in "${CLEANUP_USERS[@]}"; do
		pkill -u "$u" -x trawl-sessiond 2>/dev/null
		# userdel refuses a user who still runs something (their
		# consumer, which outlives the daemon a moment): theirs is
		# ended, a few times at most (the user was made here)
		for i in 1 2 3 4 5 6 7 8 9 10; do
			userdel "$u" 2>/dev/null && break
			getent passwd "$u" >/dev/null || break
			pkill -KILL -u "$u" 2>/dev/null
			sleep 0.2
		done
	done
	rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }

# expect RC CMD... : runs CMD, checks its exit status; stderr kept in $T/err
expect() {
	local want=$1; shift
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		fail "'$*' exited $rc, wanted $want: $(cat "$T/err")"
		return 1
	fi
	return 0
}

# Like expect 0, but 11 (done, data lost: trawl(1)) passes too, for a stop,
# destroy or status of a session whose buffers may overflow while the machine
# is busy (the loss is counted in the trace; the tests of loss expect 11).
expect_done() {
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ "$rc" != 0 ] && [ "$rc" != 11 ]; then
		fail "'$*' exited $rc, wanted 0 (or 11): $(cat "$T/err")"
		return 1
	fi
	return 0
}

# The error line must be exactly one line and mention WORD.
# (bash builtins only: tests call this hundreds of times, and each process
# started costs ~0.1-0.2 s on a loaded machine)
expect_err_line() {
	local word=$1 lines
	mapfile -t lines <"$T/err"
	[ ${#lines[@]} = 1 ] || fail "expected one error line, got ${#lines[@]}: $(<"$T/err")"
	[[ ${lines[0]:-} == *"$word"* ]] || fail "error line lacks '$word': $(<"$T/err")"
}

# Daemons write sanitizer reports to their log: stop them, then look.
check_daemon_logs() {
	kill_daemons
	sleep 0.3
	local f
	for f in "$T"/*/sessiond.log "$T"/*/*/sessiond.log; do
		[ -f "$f" ] || continue
		if grep -q "Sanitizer\|runtime error:" "$f"; then
			fail "sanitizer report in $f:"
			grep -A20 "Sanitizer\|runtime error:" "$f" | head -40 >&2
		fi
	done
}

finish() {
	check_daemon_logs
	if [ "$FAILS" -ne 0 ]; then
		echo "$FAILS failure(s)" >&2
		exit 1
	fi
	echo "ok"
	exit 0
}

# Tests with real users: skips (77) unless root can make users, group
# 'tracing' exists (made if not), and the binaries are reachable by them.
users_or_skip() {
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to create users"; exit 77; }
	command -v useradd >/dev/null && command -v runuser >/dev/null ||
		{ echo "SKIP: useradd/runuser missing"; exit 77; }
	getent group tracing >/dev/null || groupadd -r tracing 2>/dev/null || true
	getent group tracing >/dev/null || { echo "SKIP: cannot create group tracing"; exit 77; }
	local d
	for d in "$BIN" "$BIN/.." "$BIN/../.."; do
		[ -x "$d" ] && [ "$(stat -c %a "$d" | cut -c3)" -ge 5 ] ||
			{ echo "SKIP: $d is not readable by other users"; exit 77; }
	done
}

mkuser() { # NAME [GROUPS]: a user deleted at the end, home $T/NAME
	useradd -M -N -d "$T/$1" ${2:+-G "$2"} "$1" || return 1
	CLEANUP_USERS+=("$1")
	mkdir -p "$T/$1" && chown "$1" "$T/$1"
}

as_user() { # USER CMD...: runs CMD as USER with their own HOME and daemon folder
	local u=$1; shift
	runuser -u "$u" -- env HOME="$T/$u" TRAWL_RUNTIME_DIR="$T/$u/run" \
		TRAWL_ROOT_RUNTIME_DIR="$TRAWL_ROOT_RUNTIME_DIR" "$@"
}

as() { # USER ARGS...: runs trawl as USER with their own folders
	local u=$1; shift
	as_user "$u" "$TRAWL" "$@"
}

have_ust() { "$BIN/trawl-consumerd" --ust --fd 1 2>&1 | grep -q usage; }

