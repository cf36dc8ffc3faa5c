#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Where trawl-relayd lays traces out, as LTTng 2.13's lttng-relayd does,
# through real daemons, babeltrace2 as the oracle of every trace:
#   basepath  net://HOST:C:D/my/custom/path1 (a URL with a path: LTTng's base
#             path) streams into OUTPUT/HOSTNAME/my/custom/path1/ust/uid/...,
#             not OUTPUT/HOSTNAME/NAME-DATE-TIME; -C tcp://HOST:C/ctl/path
#             -D tcp://HOST:D the same with the control URL's path;
#             `create --live 200000 -U URL` (the timer as its own word)
#             is a live session with that timer; bad paths are refused
#   snapshot  snapshots to relayd with a path: --snapshot -U URL/p2 (snapshot-1
#             in OUTPUT/HOSTNAME/p2), `snapshot record URL/p3` (snapshot-0),
#             add-output URL/p4 (snapshot-1); a --no-output session (not
#             --snapshot) takes snapshot outputs and records, as LTTng's:
#             OUTPUT/HOSTNAME/NAME-DATE-TIME/snapshot-1-...; an app traced
#             by a session with no output makes no folder (none under /);
#             `snapshot record -s S ""` is a record to the session's output;
#             -C tcp://HOST:C/PATH -D tcp://HOST:D for add-output, record and
#             a trigger's snapshot-session action
#   group     trawl-relayd --group-output-by-session: OUTPUT/NAME/HOSTNAME-DATE-TIME,
#             and OUTPUT/NAME/HOSTNAME-DATE-TIME/PATH for a URL with a path;
#             both --group-output-by options at once are refused
#   removed   the output folder removed between two sessions (LTTng's tests
#             do so): relayd makes it again for the next one
#   workdir   -w/--working-directory DIR (and $TRAWL_RELAYD_WORKING_DIRECTORY,
#             which -w overrides): relayd's cwd, in the foreground and with
#             -d; -d or -b without one: /; a missing one: exit 1, "Failed to
#             change working directory to"; one it cannot write: a warning;
#             a relative -o: exit 1 (LTTng's rule), traces never follow the cwd
. "$(dirname "$0")/lib.sh"
ust_relay_or_skip
case=${1:?case}
uid=$(id -u)
host=$(hostname)

# bt_check DIR WANT_SEQ: babeltrace2 reads DIR without a word on stderr, with
# WANT_SEQ tall:seq events.
bt_check() {
	babeltrace2 "$1" >"$T/bt.txt" 2>"$T/bt.err" || { fail "babeltrace2 $1: $(cat "$T/bt.err")"; return 1; }
	[ -s "$T/bt.err" ] && fail "babeltrace2 warned on $1: $(cat "$T/bt.err")"
	local n
	n=$(grep -c " tall:seq: " "$T/bt.txt")
	[ "$n" = "$2" ] || fail "$1: expected $2 tall:seq, got $n"
}

# stream NAME CREATE-ARGS...: a session streaming the app's 200 events, destroyed.
stream() {
	local name=$1
	shift
	expect 0 "$TRAWL" create "$name" "$@" || return 1
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 || fail "app failed"
	expect 0 "$TRAWL" stop
	expect 0 "$TRAWL" destroy
}

# snap NAME CREATE-ARGS...: a session started with the app's 200 events in its
# (overwrite) buffers, stopped; snapshot commands follow.
snap_session() {
	local name=$1
	shift
	expect 0 "$TRAWL" create "$name" "$@" || return 1
	expect 0 "$TRAWL" enable-channel -u --overwrite c
	expect 0 "$TRAWL" enable-event -u tall:seq -c c
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 || fail "app failed"
	expect 0 "$TRAWL" stop
}

# one_dir GLOB: the one folder GLOB names (else a failure, and "").
one_dir() {
	local d=($1)
	[ ${#d[@]} = 1 ] && [ -d "${d[0]}" ] && { echo "${d[0]}"; return; }
	fail "expected one folder $1, got: ${d[*]}" >&2
	echo ""
}

case $case in
basepath)
	relayd_start || { fail "relayd did not start"; exit 1; }
	stream P1 -U "net://127.0.0.1:$CTRL_PORT:$DATA_PORT/my/custom/path1"
	[ -f "$RELAY_OUT/$host/my/custom/path1/ust/uid/$uid/64-bit/metadata" ] ||
		fail "no trace in $host/my/custom/path1: $(cd "$RELAY_OUT" && find . | head -20)"
	bt_check "$RELAY_OUT/$host/my/custom/path1" 200
	ls -d "$RELAY_OUT/$host"/P1-* 2>/dev/null && fail "a NAME-DATE-TIME folder beside the base path"
	# -C/-D: the control URL's path
	stream P2 -C "tcp://127.0.0.1:$CTRL_PORT/ctl/path" -D "tcp://127.0.0.1:$DATA_PORT"
	bt_check "$RELAY_OUT/$host/ctl/path" 200
	# the live timer as its own word, with a URL
	expect 0 "$TRAWL" create L --live 200000 -U "net://127.0.0.1:$CTRL_PORT:$DATA_PORT/live/p"
	expect 0 "$TRAWL" list
	grep -q "Live timer interval: 200000" "$T/out" || fail "live timer not 200000: $(cat "$T/out")"
	grep -q "net://127.0.0.1:$CTRL_PORT:$DATA_PORT/live/p" "$T/out" || fail "list lacks the URL's path: $(cat "$T/out")"
	expect 0 "$TRAWL" destroy L
	[ -d "$RELAY_OUT/$host/live/p" ] || fail "the live session's folder is not $host/live/p"
	for p in ../up a/../b; do
		expect_fail "$TRAWL" create E -U "net://127.0.0.1:$CTRL_PORT:$DATA_PORT/$p" &&
			expect_err_line "$p"
	done
	[ -e "$RELAY_OUT/up" ] || [ -e "$T/up" ] && fail "a '..' path escaped the output folder"
	;;
snapshot)
	relayd_start || { fail "relayd did not start"; exit 1; }
	url=net://127.0.0.1:$CTRL_PORT:$DATA_PORT
	snap_session S2 --snapshot -U "$url/my/path2"
	expect 0 "$TRAWL" snapshot record -s S2 ""
	expect 0 "$TRAWL" destroy S2
	d=$(one_dir "$RELAY_OUT/$host/my/path2/snapshot-1-*-0")
	[ -n "$d" ] && bt_check "$d" 200
	[ -f "$d/ust/uid/$uid/64-bit/metadata" ] || fail "$d: no ust/uid/$uid/64-bit"
	snap_session S3 --snapshot --no-output
	expect 0 "$TRAWL" snapshot record -s S3 "$url/my/path3"
	expect 0 "$TRAWL" destroy S3
	d=$(one_dir "$RELAY_OUT/$host/my/path3/snapshot-0-*-0")
	[ -n "$d" ] && bt_check "$d" 200
	snap_session S4 --snapshot --no-output
	expect 0 "$TRAWL" snapshot add-output -s S4 "$url/my/path4"
	expect 0 "$TRAWL" snapshot record -s S4
	expect 0 "$TRAWL" destroy S4
	d=$(one_dir "$RELAY_OUT/$host/my/path4/snapshot-1-*-0")
	[ -n "$d" ] && bt_check "$d" 200
	# -C/-D, as LTTng's: the control URL's path is the base path
	snap_session S5 --snapshot --no-output
	expect 0 "$TRAWL" snapshot add-output -s S5 -C "tcp://127.0.0.1:$CTRL_PORT/my/path5" \
		-D "tcp://127.0.0.1:$DATA_PORT"
	expect 0 "$TRAWL" snapshot record -s S5
	expect 0 "$TRAWL" snapshot record -s S5 -C "tcp://127.0.0.1:$CTRL_PORT/my/path6" \
		-D "tcp://127.0.0.1:$DATA_PORT"
	expect 0 "$TRAWL" destroy S5
	d=$(one_dir "$RELAY_OUT/$host/my/path5/snapshot-1-*-0")
	[ -n "$d" ] && bt_check "$d" 200
	d=$(one_dir "$RELAY_OUT/$host/my/path6/snapshot-0-*-1")
	[ -n "$d" ] && bt_check "$d" 200
	# a trigger's snapshot-session action with -C/-D URLs
	expect 0 "$TRAWL" add-trigger --name=t15 --condition event-rule-matches --type=user \
		--action snapshot-session S7 --ctrl-url="tcp://127.0.0.1:$CTRL_PORT/my/path7" \
		--data-url="tcp://127.0.0.1:$DATA_PORT"
	grep -q "Added trigger \`t15\`" "$T/out" || fail "add-trigger said: $(cat "$T/out")"
	expect 0 "$TRAWL" list-triggers
	grep -q "127.0.0.1" "$T/out" || fail "list-triggers lacks the relay: $(cat "$T/out")"
	expect 0 "$TRAWL" remove-trigger t15
	# --no-output without --snapshot: snapshot outputs are LTTng's too
	snap_session N --no-output
	expect 0 "$TRAWL" snapshot add-output -s N "$url"
	expect 0 "$TRAWL" snapshot record -s N
	expect 0 "$TRAWL" destroy N
	d=$(one_dir "$RELAY_OUT/$host/N-*/snapshot-1-*-0")
	[ -n "$d" ] && bt_check "$d" 200
	# a session writing a trace still refuses them
	expect 0 "$TRAWL" create W -o "$T/w"
	expect_fail "$TRAWL" snapshot add-output -s W "$url" && expect_err_line "snapshot"
	expect 0 "$TRAWL" destroy W
	# a session with no output makes no folder for its traces (not under /)
	logs=$(ls "$T"/*/sessiond.log "$T"/*/*/sessiond.log 2>/dev/null)
	[ -n "$logs" ] || fail "no sessiond.log under $T"
	# shellcheck disable=SC2086
	grep "cannot create" $logs && fail "a consumer tried to make a folder"
	;;
group)
	expect_fail "$RELAYD" -o "$T/g0" --group-output-by-host --group-output-by-session &&
		expect_err_line "--group-output-by"
	RELAY_ARGS=--group-output-by-session relayd_start || { fail "relayd did not start"; exit 1; }
	stream G1 -U "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	d=$(one_dir "$RELAY_OUT/G1/$host-[0-9]*-[0-9]*")
	[ -n "$d" ] && bt_check "$d" 200
	[ -f "$d/ust/uid/$uid/64-bit/metadata" ] || fail "$d: no ust/uid/$uid/64-bit"
	stream G2 -U "net://127.0.0.1:$CTRL_PORT:$DATA_PORT/custom"
	d=$(one_dir "$RELAY_OUT/G2/$host-[0-9]*-[0-9]*/custom")
	[ -n "$d" ] && bt_check "$d" 200
	[ -e "$RELAY_OUT/$host" ] && fail "grouped by session, yet a $host folder"
	;;
removed)
	relayd_start || { fail "relayd did not start"; exit 1; }
	stream R1 -U "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	bt_check "$(relay_trace R1)" 200
	rm -rf "$RELAY_OUT"
	stream R2 -U "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	d=$(relay_trace R2)
	[ -n "$d" ] && bt_check "$d" 200 || fail "no R2 trace after the output folder was removed"
	;;
workdir)
	mkdir -p "$T/wd" "$T/wd2" "$T/ro"
	# foreground, -w: its cwd (the output stays where -o says)
	"$RELAYD" -o "$T/out1" -C tcp://127.0.0.1:0 -D tcp://127.0.0.1:0 -L tcp://127.0.0.1:0 \
		--working-directory "$T/wd" 2>"$T/fg.log" &
	pid=$!
	RELAY_PIDS+=("$pid")
	for i in $(seq 100); do grep -q "control port" "$T/fg.log" && break; sleep 0.05; done
	[ "$(readlink "/proc/$pid/cwd")" = "$T/wd" ] || fail "foreground -w: cwd $(readlink "/proc/$pid/cwd")"
	kill "$pid"
	wait "$pid"
	# -d, -b: / without -w, DIR with it; the variable, and -w over it
	n=0
	for args in "-d" "-b" "-d -w $T/wd" "-b env" "-d env -w $T/wd2"; do
		n=$((n + 1))
		want=/
		pre=()
		case $args in
		*"-w $T/wd") want=$T/wd ;;
		*"env -w $T/wd2") pre=(env "TRAWL_RELAYD_WORKING_DIRECTORY=$T/wd"); want=$T/wd2 ;;
		*env) pre=(env "TRAWL_RELAYD_WORKING_DIRECTORY=$T/wd"); want=$T/wd ;;
		esac
		# shellcheck disable=SC2086
		"${pre[@]}" "$RELAYD" ${args/env/} -o "$T/out-$n" -C tcp://127.0.0.1:0 -D tcp://127.0.0.1:0 \
			-L tcp://127.0.0.1:0 2>"$T/d.log" || fail "$args did not start: $(cat "$T/d.log")"
		# the daemon is the parent's grandchild: found by its own output folder
		dpid=$(pgrep -f -- "-o $T/out-$n ")
		[ -n "$dpid" ] || { fail "$args: no daemon found"; continue; }
		RELAY_PIDS+=("$dpid")
		[ "$(readlink "/proc/$dpid/cwd")" = "$want" ] ||
			fail "$args: cwd $(readlink "/proc/$dpid/cwd"), wanted $want"
		err=$(readlink "/proc/$dpid/fd/2")
		case $args in
		-b*) [ "$err" = "$T/d.log" ] || fail "-b closed stderr ($err)" ;;
		*) [ "$err" = /dev/null ] || fail "-d kept stderr ($err)" ;;
		esac
		kill "$dpid"
		for i in $(seq 100); do kill -0 "$dpid" 2>/dev/null || break; sleep 0.05; done
	done
	# a missing working directory: exit 1 and LTTng's words
	"$RELAYD" -o "$T/out3" -w "$T/nowhere" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = 1 ] || fail "a missing working directory: exit $rc, wanted 1"
	grep -q "Failed to change working directory to" "$T/err" || fail "no LTTng line: $(cat "$T/err")"
	# a relative output folder: refused as LTTng does
	(cd "$T" && "$RELAYD" -o relative-out >"$T/out" 2>"$T/err")
	rc=$?
	[ "$rc" = 1 ] || fail "a relative -o: exit $rc, wanted 1"
	expect_err_line "absolute"
	[ -e "$T/relative-out" ] && fail "a relative -o was made"
	# a working directory it cannot write: a warning (not as root: root writes anywhere)
	if [ "$(id -u)" != 0 ]; then
		chmod a-w "$T/ro"
		"$RELAYD" -o "$T/out4" -C tcp://127.0.0.1:0 -D tcp://127.0.0.1:0 -L tcp://127.0.0.1:0 \
			-w "$T/ro" 2>"$T/ro.log" &
		pid=$!
		RELAY_PIDS+=("$pid")
		for i in $(seq 100); do grep -q "control port" "$T/ro.log" && break; sleep 0.05; done
		grep -q "Working directory \"$T/ro\" is not writable" "$T/ro.log" ||
			fail "no warning for a working directory it cannot write: $(cat "$T/ro.log")"
	fi
	;;
*)
	echo "unknown case $case" >&2
	exit 2
	;;
esac
[ "$FAILS" = 0 ]
