#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every subcommand: --help works, and each kind of error gives one line and
# its own exit status (trawl(1): 2 usage, 5 not found, 6 exists, 7 bad
# value, 8 wrong state, ...).
. "$(dirname "$0")/lib.sh"

for c in create destroy enable-channel disable-channel enable-event disable-event add-context \
	start stop list status view snapshot set-session version help; do
	expect 0 "$TRAWL" "$c" --help && grep -q "^usage: trawl $c" "$T/out" ||
		fail "$c --help: $(head -1 "$T/out")"
	"$TRAWL" help --man "$c" | grep -q "^.TH TRAWL-$c 1" || fail "help --man $c"
done
expect 0 "$TRAWL" --help
expect 0 "$BIN/trawl-sessiond" --help
expect 2 "$BIN/trawl-sessiond" --bogus
expect 2 "$BIN/trawl-consumerd" && expect_err_line "trawl-sessiond"
expect 2 "$BIN/trawl-consumerd" --ust && expect_err_line "usage"
expect 2 "$TRAWL" no-such-command && expect_err_line "unknown command"
expect 2 "$TRAWL" create --no-such-option
expect 0 "$TRAWL" version && grep -q "^trawl [0-9]" "$T/out" || fail "version"

# No daemon, and none can be started.
expect 3 env TRAWL_TRAWL_SESSIOND_PATH=/bin/false "$TRAWL" list && expect_err_line "no session daemon"

# No session yet.
expect 5 "$TRAWL" start && expect_err_line "no session"
expect 5 "$TRAWL" stop nosuch && expect_err_line "nosuch"
expect 5 "$TRAWL" destroy nosuch && expect_err_line "nosuch"
expect 5 "$TRAWL" status && expect_err_line "current session"
expect 5 "$TRAWL" set-session nosuch && expect_err_line "nosuch"

# Sessions.
expect 0 "$TRAWL" create s1 -o "$T/tr1"
[ -d "$T/tr1" ] || fail "create did not make the output folder"
expect 6 "$TRAWL" create s1 && expect_err_line "already exists"
expect 7 "$TRAWL" create 'bad/name' && expect_err_line "name"
expect 8 "$TRAWL" stop && expect_err_line "not started"
# LTTng 2.13's rule: a session with no channel does not start
expect 5 "$TRAWL" start && expect_err_line "no channel"
expect 0 "$TRAWL" enable-channel -u c0
expect 0 "$TRAWL" start
expect 8 "$TRAWL" start && expect_err_line "already started"
expect 0 "$TRAWL" stop

# Channels: bad sizes, domain required.
expect 2 "$TRAWL" enable-channel c1 && expect_err_line "domain"
expect 7 "$TRAWL" enable-channel -u c1 --subbuf-size 3M && expect_err_line "sub-buffer size"
expect 7 "$TRAWL" enable-channel -u c1 --subbuf-size lots && expect_err_line "sub-buffer size"
expect 7 "$TRAWL" enable-channel -u c1 --num-subbuf 3 && expect_err_line "sub-buffers"
expect 7 "$TRAWL" enable-event -u --loglevel TRACE_NOPE foo && expect_err_line "log level"
expect 2 "$TRAWL" enable-event -u && expect_err_line "--all"
expect 2 "$TRAWL" add-context -u && expect_err_line "-t"

if have_ust; then
	expect 0 "$TRAWL" create s2 -o "$T/tr2"
	expect 0 "$TRAWL" enable-channel -u c1 --subbuf-size 64k --num-subbuf 4
	expect 6 "$TRAWL" enable-channel -u c1 && expect_err_line "already enabled"
	expect 0 "$TRAWL" enable-event -u 'demo:*' -c c1
	expect 6 "$TRAWL" enable-event -u 'demo:*' -c c1 && expect_err_line "already enabled"
	expect 5 "$TRAWL" enable-event -u foo -c nosuch && expect_err_line "nosuch"
	expect 5 "$TRAWL" disable-event -u bar -c c1 && expect_err_line "bar"
	expect 0 "$TRAWL" disable-event -u 'demo:*' -c c1
	expect 0 "$TRAWL" list s2
	grep -q "c1: \[enabled\]" "$T/out" || fail "list s2 lacks channel c1: $(cat "$T/out")"
	expect 0 "$TRAWL" disable-channel -u c1
	expect 6 "$TRAWL" disable-channel -u c1 && expect_err_line "already disabled"
	expect 7 "$TRAWL" add-context -u -t nosuch && expect_err_line "unknown context"
	expect 7 "$TRAWL" add-context -u -t perf:cpu:page-faults && expect_err_line "perf:cpu"
	expect 5 "$TRAWL" disable-channel -u nosuch && expect_err_line "nosuch"
	# A comma list tries every item, as LTTng 2.13 does: each failure said,
	# the others done, the exit status that of the first failure.
	expect 7 "$TRAWL" enable-channel -u c1,ca,.bad,cb && expect_err_line "'.bad'"
	expect 6 "$TRAWL" enable-event -u ev_after,ev_after,ev_two -c c1 && expect_err_line "already"
	expect 5 "$TRAWL" disable-event -u nosuch_ev,ev_after -c c1
	expect 5 "$TRAWL" disable-channel -u nosuch,cb
	expect 0 "$TRAWL" list s2
	for want in "ca: \[enabled\]" "cb: \[disabled\]" "c1: \[enabled\]" \
		"ev_after (type: tracepoint) \[disabled\]" "ev_two (type: tracepoint) \[enabled\]"; do
		grep -q "$want" "$T/out" || fail "comma lists: list s2 lacks '$want': $(cat "$T/out")"
	done
	expect 0 "$TRAWL" start
	expect 8 "$TRAWL" enable-channel -u c2 && expect_err_line "already been started"
	expect 0 "$TRAWL" destroy
fi

# A root daemon without the kernel domain built says so; with it, list works.
"$TRAWL" list -k >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] || [ $rc = 9 ] || fail "list -k exited $rc: $(cat "$T/err")"

expect 7 "$TRAWL" snapshot record -s s1 && expect_err_line "snapshot mode"
expect 2 "$TRAWL" snapshot take && expect_err_line "record"
expect 5 "$TRAWL" view nosuch && expect_err_line "nosuch"
expect 5 "$TRAWL" view /nonexistent/trace && expect_err_line "no trace folder"
expect 2 "$TRAWL" view a b && expect_err_line "too many"
expect 0 "$TRAWL" destroy s1
expect 5 "$TRAWL" destroy s1
expect 0 "$TRAWL" destroy --all

# --consumerd-path (LTTng's --consumerd64-path): the daemon starts that
# program, under the name given (LTTng's tests find the consumer by it).
expect 2 "$BIN/trawl-sessiond" --consumerd-path "$T/nonexistent" && expect_err_line "consumerd-path"
kill_daemons
mkdir -p "$T/cbin" && ln -s "$BIN/trawl-consumerd" "$T/cbin/my-consumerd"
expect 0 "$BIN/trawl-sessiond" --daemonize --consumerd64-path "$T/cbin/my-consumerd"
expect 0 "$TRAWL" create cp -o "$T/cp"
expect 0 "$TRAWL" enable-event -u -a
expect 0 "$TRAWL" start
found=
for pid in $(pgrep -f "$T/cbin/my-consumerd"); do
	[ "$(cut -d '' -f 1 </proc/"$pid"/cmdline)" = "$T/cbin/my-consumerd" ] && found=$pid
done
[ -n "$found" ] || fail "--consumerd64-path: no consumer runs as $T/cbin/my-consumerd"
expect 0 "$TRAWL" destroy cp
finish
