#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Two users at once, each with their own daemon, cannot see or touch each
# other's sessions; a member of group 'tracing' uses the root daemon and
# sees only their own sessions there; a non-member is refused by the root
# daemon (checked with SO_PEERCRED) and falls back to their own daemon.
. "$(dirname "$0")/lib.sh"

users_or_skip
A=trawla$$; B=trawlb$$; G=trawlg$$
mkuser "$A" || { echo "SKIP: useradd failed"; exit 77; }
mkuser "$B"
mkuser "$G" tracing

# Two users, two daemons, at once.
expect 0 as "$A" create secret-a
expect 0 as "$B" create secret-b
expect 0 as "$A" enable-channel -u -s secret-a c
expect 0 as "$A" start secret-a
expect 0 as "$B" list
grep -q secret-a "$T/out" && fail "user B sees user A's session"
grep -q secret-b "$T/out" || fail "user B does not see their session"
expect 5 as "$B" stop secret-a && expect_err_line "secret-a"
expect 5 as "$B" destroy secret-a
[ "$(stat -c %U "$T/$A/run")" = "$A" ] || fail "A's state folder not owned by A"
[ "$(stat -c %a "$T/$A/run")" = 700 ] || fail "A's state folder not 0700"
[ "$(stat -c %a "$T/$A/run/sessiond.sock")" = 600 ] || fail "A's socket not 0600"
trace=$(ls -d "$T/$A"/trawl-traces/secret-a-* 2>/dev/null | head -1)
[ -n "$trace" ] && [ "$(stat -c %U "$trace")" = "$A" ] || fail "A's trace folder not owned by A"
# B cannot even connect to A's daemon: the folder is 0700.
runuser -u "$B" -- test -r "$T/$A/run" && fail "B can read A's state folder"

# The root daemon: root starts it; a 'tracing' member uses it; others are refused.
expect 0 "$TRAWL" create rootsess -o "$T/rootsess"
expect 0 as "$G" create gsess
expect 0 as "$G" list
grep -q gsess "$T/out" || fail "G does not see their session"
grep -q rootsess "$T/out" && fail "G sees root's session"
# Root's daemon probes user-space perf counters as the session's owner (a
# forked child with G's ids): software ones open, hardware ones need a PMU.
expect 0 as "$G" add-context -u -s gsess -t perf:thread:page-fault -t prio
[ -d /sys/bus/event_source/devices/cpu ] ||
	{ expect 9 as "$G" add-context -u -s gsess -t perf:thread:cpu-cycles &&
		expect_err_line "no hardware PMU"; }
[ -S "$T/$G/run/sessiond.sock" ] && fail "G started a user daemon instead of using root's"
expect 0 "$TRAWL" list
grep -q gsess "$T/out" || fail "root does not see G's session in the root daemon"
trace=$(ls -d "$T/$G"/trawl-traces/gsess-* 2>/dev/null | head -1)
[ -n "$trace" ] && [ "$(stat -c %U "$trace")" = "$G" ] ||
	fail "G's trace folder (made by the root daemon) not owned by G"
expect 0 as "$A" list
grep -q gsess "$T/out" && fail "A sees G's session"
# A, not in 'tracing', cannot even open the root daemon's client socket
# (root:tracing 0660, LTTng's rule); the daemon's own SO_PEERCRED check
# behind it is tests/security/ctl-socket.sh's.
[ "$(stat -c '%a %U %G' "$TRAWL_ROOT_RUNTIME_DIR/sessiond.sock")" = "660 root tracing" ] ||
	fail "root's sessiond.sock is $(stat -c '%a %U %G' "$TRAWL_ROOT_RUNTIME_DIR/sessiond.sock")"
runuser -u "$A" -- python3 - "$TRAWL_ROOT_RUNTIME_DIR/sessiond.sock" <<'PY' || fail "A could connect"
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
except PermissionError:
    sys.exit(0)
sys.exit(1)
PY
# Each user's own apps, traced by each user's own daemon and consumer (running as
# the user: the files are theirs); G's app traced by the root daemon for G.
APP=$BIN/ust-app-all
if [ -x "$APP" ] && command -v babeltrace2 >/dev/null; then
	for u in "$A" "$G"; do
		expect 0 as "$u" create "apps-$u" -o "$T/$u/apps"
		expect 0 as "$u" enable-event -u tall:seq
		expect 0 as "$u" start
		as_user "$u" "$APP" 1 300 5000 || fail "$u's app failed"
		expect 0 as "$u" stop
		uid=$(id -u "$u")
		d="$T/$u/apps/ust/uid/$uid/64-bit"
		[ "$(stat -c %U "$d/metadata" 2>/dev/null)" = "$u" ] || fail "$u's metadata not owned by $u"
		n=$(babeltrace2 "$T/$u/apps" 2>/dev/null | grep -c " tall:seq: ")
		[ "$n" = 300 ] || fail "$u: expected 300 tall:seq, got $n"
		expect 0 as "$u" destroy "apps-$u"
	done
fi

# Kernel tracing: through the root daemon for G; A (own daemon) is told why not.
if "$TRAWL" list -k >/dev/null 2>&1; then
	expect 0 as "$G" enable-event -k sched_switch -s gsess
fi
expect 4 as "$A" enable-event -k sched_switch -s secret-a && expect_err_line "root session daemon"
expect 0 as "$G" destroy gsess
for u in "$A" "$B"; do
	pid=$(cat "$T/$u/run/sessiond.lock" 2>/dev/null) && kill "$pid" 2>/dev/null
done
finish
