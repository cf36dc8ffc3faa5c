#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Streaming to trawl-relayd, end to end through real daemons, with ust's
# test app and babeltrace2 as the oracle:
#   ust      a user-space session streamed with --set-url net://127.0.0.1:C:D:
#            relayd's folder holds a local trace's layout; babeltrace2 reads
#            every event the app emitted (count and values), without
#            warnings; trawl view of it == babeltrace2; list/status show the URL
#   two      three sessions streamed at once to one relayd, each its own
#            events (one with per-process buffers: ust/pid/...)
#   samename two daemons stream a session named A each: two folders, each
#            with its own events, whatever the clock says
#   ipv6     the same over IPv6: relayd on tcp6://[::1], --set-url net6://[::1]:C:D
#   live     --live=200000: the app's events are readable in relayd's folder
#            while the session still runs (partial packets are cut)
#   viewer   a live viewer (babeltrace2's lttng-live source) attached to
#            relayd's live port follows a --live session: it sees every event
#            while the session runs, and ends when the session is destroyed
#   kill     relayd killed mid-session: status and list report it, an app
#            traced afterwards runs to its end normally, stop says what was
#            lost (exit != 0), destroy works, what relayd got (the first
#            app's 300 events) stays readable
#   errors   bad URLs, an unreachable relayd (created as LTTng's, start fails), live
#            sessions with a folder, snapshot sessions with a bad URL, trawl view
#            of a streamed session: one-line errors, exit != 0
#   refused  a relayd (hostile-relayd.py bad-status) that takes the session on
#            its control port and refuses it on its data port: the user's
#            consumer lives on (it once exited on the refusal, and each one
#            started in its place again: 100 a minute), and the stop says in
#            one line that a trace is not recorded, exit != 0
#   installed  cmake --install: trawl-relayd and its systemd unit, runnable from the prefix
#   hostile  garbage, bad headers, path escapes and half messages sent to
#            relayd's ports: nothing written outside its folder, it still
#            serves a session afterwards
. "$(dirname "$0")/lib.sh"
ust_relay_or_skip
case=${1:?case}
count() { grep -c " $1: " "$2"; }
uid=$(id -u)

# bt_check DIR WANT_SEQ: babeltrace2 reads DIR without a word on stderr,
# with WANT_SEQ tall:seq events; its text is left in $T/bt.txt.
bt_check() {
	babeltrace2 "$1" >"$T/bt.txt" 2>"$T/bt.err" || { fail "babeltrace2 $1: $(cat "$T/bt.err")"; return 1; }
	[ -s "$T/bt.err" ] && fail "babeltrace2 warned on $1: $(cat "$T/bt.err")"
	[ "$(count tall:seq "$T/bt.txt")" = "$2" ] || fail "$1: expected $2 tall:seq, got $(count tall:seq "$T/bt.txt")"
}

case $case in
ust)
	relayd_start || { fail "relayd did not start"; finish; }
	url=net://127.0.0.1:$CTRL_PORT:$DATA_PORT
	expect 0 "$TRAWL" create S --set-url "$url"
	grep -q "streamed to trawl-relayd at $url" "$T/out" || fail "create does not say where: $(cat "$T/out")"
	expect 0 "$TRAWL" enable-event --userspace --all
	expect 0 "$TRAWL" start
	"$APP" 2 1000 5000 || fail "app failed"
	expect 0 "$TRAWL" stop
	expect 0 "$TRAWL" list && grep -q "$url" "$T/out" || fail "list does not show the URL: $(cat "$T/out")"
	expect 0 "$TRAWL" status && grep -q "$url" "$T/out" || fail "status does not show the URL: $(cat "$T/out")"
	expect 0 "$TRAWL" destroy
	dir=$(relay_trace S)
	[ -n "$dir" ] || { ls -R "$RELAY_OUT" >&2; fail "no S-YYYYMMDD-HHMMSS folder under relayd's output"; finish; }
	[ "$(dirname "$dir")" = "$RELAY_OUT/$(hostname)" ] || fail "trace not under <output>/<hostname>: $dir"
	t=$dir/ust/uid/$uid/64-bit
	[ -f "$t/metadata" ] || fail "no metadata under ust/uid/$uid/64-bit"
	ls "$t"/channel0_* >/dev/null 2>&1 || fail "no stream files"
	ls "$t"/index/channel0_*.idx >/dev/null 2>&1 || fail "no index files"
	find "$dir" -name '*.tmp' | grep -q . && fail "temporary files left in the trace: $(find "$dir" -name '*.tmp')"
	bt_check "$dir" 2000
	[ "$(count tall:ints "$T/bt.txt")" = 2 ] || fail "expected 2 tall:ints"
	grep -q 's64 = -1234567890123' "$T/bt.txt" || fail "tall:ints value"
	# every sequence number of every thread, once
	n=$(grep -o 'tall:seq: .*n = [0-9]*' "$T/bt.txt" | grep -o 'n = [0-9]*$' | sort -u | wc -l)
	[ "$n" = 1000 ] || fail "expected the 1000 values of n, got $n distinct"
	"$TRAWL" view "$dir" >"$T/view.txt" 2>"$T/view.err" || fail "trawl view: $(cat "$T/view.err")"
	cmp -s "$T/view.txt" "$T/bt.txt" || fail "trawl view differs from babeltrace2"
	;;
two)
	relayd_start || { fail "relayd did not start"; finish; }
	url=net://127.0.0.1:$CTRL_PORT:$DATA_PORT
	expect 0 "$TRAWL" create A --set-url "$url"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" create B -C tcp://127.0.0.1:$CTRL_PORT -D tcp://127.0.0.1:$DATA_PORT
	expect 0 "$TRAWL" enable-event -u 'tall:ints,tall:floats'
	expect 0 "$TRAWL" create P --set-url "$url"
	expect 0 "$TRAWL" enable-channel -u pc --buffers-pid
	expect 0 "$TRAWL" enable-event -u tall:seq -c pc
	expect 0 "$TRAWL" start A
	expect 0 "$TRAWL" start B
	expect 0 "$TRAWL" start P
	"$APP" 1 500 5000 || fail "app failed"
	expect 0 "$TRAWL" destroy --all
	# per-process buffers: ust/pid/<procname>-<pid>-<date>/
	ls -d "$(relay_trace P)"/ust/pid/ust-app-all-* >/dev/null 2>&1 || fail "no ust/pid/ust-app-all-* folder for P"
	bt_check "$(relay_trace P)" 500
	bt_check "$(relay_trace A)" 500
	[ "$(count tall:ints "$T/bt.txt")" = 0 ] || fail "A has tall:ints"
	bt_check "$(relay_trace B)" 0
	[ "$(count tall:ints "$T/bt.txt")" = 2 ] || fail "B: expected 2 tall:ints"
	[ "$(count tall:floats "$T/bt.txt")" = 1 ] || fail "B: expected 1 tall:floats"
	;;
live)
	relayd_start || { fail "relayd did not start"; finish; }
	expect 0 "$TRAWL" create L --live=200000 --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	grep -q "(live)" "$T/out" || fail "create does not say live: $(cat "$T/out")"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" list L && grep -q "switch timer: 200000" "$T/out" ||
		grep -qi "200000" "$T/out" || fail "the channel lacks the live timer: $(cat "$T/out")"
	expect 0 "$TRAWL" start
	"$APP" 1 300 5000 hang >"$T/app.out" &
	app=$!
	# Nothing is stopped or flushed by hand: only the live timer cuts packets.
	for i in $(seq 100); do
		d=$(relay_trace L)
		if [ -n "$d" ] && babeltrace2 "$d" 2>/dev/null | grep -c " tall:seq: " | grep -qx 300; then
			break
		fi
		sleep 0.1
	done
	[ -n "$d" ] && babeltrace2 "$d" 2>/dev/null | grep -c " tall:seq: " | grep -qx 300 ||
		fail "the events did not reach relayd's folder while the session ran"
	grep -q "(live)" "$T/relay.log" || fail "relayd did not mark the session live"
	kill "$app"
	wait "$app" 2>/dev/null
	expect 0 "$TRAWL" destroy
	bt_check "$(relay_trace L)" 300
	;;
samename)
	# two daemons (two users, or two hosts behind one name) each stream a
	# session named A, maybe within the same second: each gets a folder of
	# its own, neither truncates the other's files
	relayd_start || { fail "relayd did not start"; finish; }
	url=net://127.0.0.1:$CTRL_PORT:$DATA_PORT
	env2=(env TRAWL_RUNTIME_DIR="$T/run2" TRAWL_ROOT_RUNTIME_DIR="$T/rootrun2")
	expect 0 "$TRAWL" create A --set-url "$url"
	expect 0 "${env2[@]}" "$TRAWL" create A --set-url "$url"
	expect 0 "$TRAWL" enable-event -u tall:seq -s A
	expect 0 "${env2[@]}" "$TRAWL" enable-event -u tall:ints -s A
	expect 0 "$TRAWL" start A
	expect 0 "${env2[@]}" "$TRAWL" start A
	"$APP" 1 500 5000 || fail "app 1 failed"
	"${env2[@]}" "$APP" 1 500 5000 || fail "app 2 failed"
	expect 0 "$TRAWL" destroy A
	expect 0 "${env2[@]}" "$TRAWL" destroy A
	n=0 seq=0 ints=0
	for d in "$RELAY_OUT"/*/A-*; do
		n=$((n + 1))
		babeltrace2 "$d" >"$T/bt.txt" 2>"$T/bt.err" || fail "babeltrace2 $d: $(cat "$T/bt.err")"
		a=$(count tall:seq "$T/bt.txt") b=$(count tall:ints "$T/bt.txt")
		if [ "$a" = 500 ] && [ "$b" = 0 ]; then seq=$((seq + 1));
		elif [ "$a" = 0 ] && [ "$b" = 2 ]; then ints=$((ints + 1));
		else fail "$d holds $a tall:seq and $b tall:ints (a mix, or a loss)"; fi
	done
	[ "$n" = 2 ] && [ "$seq" = 1 ] && [ "$ints" = 1 ] ||
		fail "expected two A folders, one per daemon: $(ls "$RELAY_OUT"/*)"
	;;
ipv6)
	grep -q "^0\{31\}1 .* lo$" /proc/net/if_inet6 2>/dev/null || { echo "SKIP: no IPv6 loopback"; exit 77; }
	RELAY_LISTEN='tcp6://[::1]' relayd_start || { fail "relayd did not start on [::1]"; finish; }
	expect 0 "$TRAWL" create S6 --set-url "net6://[::1]:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	"$APP" 1 400 5000 || fail "app failed"
	expect 0 "$TRAWL" list S6 && grep -qF "net6://[::1]:$CTRL_PORT:$DATA_PORT" "$T/out" ||
		fail "list does not show the net6 URL: $(cat "$T/out")"
	expect 0 "$TRAWL" destroy
	bt_check "$(relay_trace S6)" 400
	;;
viewer)
	# a live viewer (babeltrace2's lttng-live) follows a --live session
	/usr/bin/python3 -c 'import bt2' 2>/dev/null || { echo "SKIP: python3-bt2 missing"; exit 77; }
	relayd_start || { fail "relayd did not start"; finish; }
	/usr/bin/python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 2)' \
		"$LIVE_PORT" 2>/dev/null || { echo "SKIP: trawl-relayd built without the live server"; exit 77; }
	expect 0 "$TRAWL" create V --live=100000 --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	"$APP" 1 300 5000 hang >"$T/app.out" &
	app=$!
	# relayd learns of the session when the app's trace is first streamed
	for i in $(seq 100); do grep -q "session V from" "$T/relay.log" && break; sleep 0.1; done
	grep -q "session V from .*(live)" "$T/relay.log" || fail "relayd never got the live session"
	/usr/bin/python3 "$(dirname "$0")/viewer.py" \
		"net://127.0.0.1:$LIVE_PORT/host/$(hostname)/V" >"$T/viewer.out" 2>"$T/viewer.err" &
	viewer=$!
	# the viewer sees every event while the session still runs (nothing stopped)
	for i in $(seq 150); do
		[ "$(grep -c '^EV tall:seq' "$T/viewer.out")" = 300 ] && break
		sleep 0.1
	done
	[ "$(grep -c '^EV tall:seq' "$T/viewer.out")" = 300 ] ||
		fail "the live viewer saw $(grep -c '^EV tall:seq' "$T/viewer.out") of 300 events while the session ran: $(cat "$T/viewer.err")"
	kill "$app"
	wait "$app" 2>/dev/null
	expect 0 "$TRAWL" destroy
	# destroying the session ends it for the viewer
	for i in $(seq 200); do kill -0 "$viewer" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$viewer" 2>/dev/null; then
		kill "$viewer"
		fail "the viewer did not end after the session was destroyed"
	fi
	wait "$viewer" || fail "the viewer failed: $(cat "$T/viewer.err")"
	tail -1 "$T/viewer.out" | grep -qx END || fail "the viewer did not end cleanly"
	[ "$(grep -c '^EV tall:seq' "$T/viewer.out")" = 300 ] || fail "the viewer's total is not 300"
	[ "$(grep '^EV tall:seq' "$T/viewer.out" | awk '{print $3}' | sort -n | uniq | wc -l)" = 300 ] ||
		fail "the viewer's values of n are not 0..299 once each"
	grep -q DISCARDED "$T/viewer.out" && fail "the viewer reported lost events"
	[ -s "$T/viewer.err" ] && fail "the viewer warned: $(cat "$T/viewer.err")"
	;;
kill)
	relayd_start || { fail "relayd did not start"; finish; }
	stream_then_kill K
	# A program traced after relayd died runs to its end as usual: its
	# events go nowhere, nothing waits for relayd.
	"$APP" 2 100000 5000 || fail "an app traced after relayd died did not exit normally"
	for i in $(seq 50); do
		"$TRAWL" status >"$T/status" 2>&1
		grep -q "trawl-relayd at" "$T/status" && break
		sleep 0.2
	done
	grep -q "Problem: .*trawl-relayd at .*127.0.0.1:.*stopped" "$T/status" ||
		fail "status does not report the lost relayd: $(cat "$T/status")"
	expect 0 "$TRAWL" list K
	grep -q "Problem: .*trawl-relayd at .*127.0.0.1:.*stopped" "$T/out" ||
		fail "list does not report the lost relayd: $(cat "$T/out")"
	# what went nowhere is counted, and the stop says so (relayd-disk-killed checks more)
	expect 11 "$TRAWL" stop && expect_err_line "trawl-relayd at 127.0.0.1:$DATA_PORT stopped"
	expect 0 "$TRAWL" destroy
	bt_check "$(relay_trace K)" 300
	;;
refused)
	/usr/bin/python3 "$(dirname "$0")/../security/hostile-relayd.py" bad-status "$T/ports" \
		2>"$T/hostile.err" &
	RELAY_PIDS+=("$!")
	for i in $(seq 100); do [ -s "$T/ports" ] && break; sleep 0.05; done
	read -r cp dp <"$T/ports" || { fail "hostile-relayd.py did not start: $(cat "$T/hostile.err")"; finish; }
	expect 0 "$TRAWL" create F --set-url "net://127.0.0.1:$cp:$dp"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 || fail "app failed"
	expect_fail "$TRAWL" stop F
	echo "stop with the data port refusing said: $(cat "$T/err")"
	one_line_naming "a trace is not recorded: trawl-relayd at 127.0.0.1:$dp refused the session"
	n=$(grep -hc "consumer started again" "$T"/*/sessiond.log)
	[ "$n" = 0 ] || fail "the consumer was started again $n times: $(grep -h consumer "$T"/*/sessiond.log | head -5)"
	"$TRAWL" destroy F >/dev/null 2>&1
	;;
errors)
	for u in net:// net://host:99999 net://host:1:2:3 ftp://host net://bad_host!:1 net6://[::1; do
		expect_fail "$TRAWL" create E --set-url "$u" && one_line_naming "$u"
	done
	# unreachable at create: created (as LTTng's), status says it, start fails
	p=$(free_port)
	expect 0 "$TRAWL" create U --set-url "net://127.0.0.1:$p"
	expect 0 "$TRAWL" status
	grep -q "127.0.0.1:$p" "$T/out" || fail "status does not say relayd is unreachable: $(cat "$T/out")"
	expect 0 "$TRAWL" enable-event -u --all
	expect_fail "$TRAWL" start && expect_err_line "127.0.0.1:$p"
	grep -q "start" "$T/err" || fail "the error does not say it was at start"
	expect 0 "$TRAWL" destroy U
	expect_fail "$TRAWL" create E -C tcp://127.0.0.1:1 && expect_err_line "-D"
	expect_fail "$TRAWL" create E --live=abc && expect_err_line "abc"
	expect_fail "$TRAWL" create E --live -o "$T/x" && expect_err_line "net://"
	# a snapshot session's URL is its snapshots' output (rotate.sh snapshot): a bad one is refused
	expect_fail "$TRAWL" create E --snapshot --set-url net://host:99999 && expect_err_line "99999"
	expect_fail "$TRAWL" create E --set-url net://no-such-host.invalid && expect_err_line "no-such-host.invalid"
	expect 0 "$TRAWL" list && grep -q " E " "$T/out" && fail "a session was left behind"
	# reachable at create, gone at start
	relayd_start || { fail "relayd did not start"; finish; }
	expect 0 "$TRAWL" create G --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u --all
	kill "$RELAY_PID"
	wait "$RELAY_PID" 2>/dev/null
	expect_fail "$TRAWL" start && expect_err_line "127.0.0.1:$CTRL_PORT"
	grep -q "start" "$T/err" || fail "the error does not say it was at start"
	expect_fail "$TRAWL" view G && one_line_naming "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" destroy G
	# --live alone streams to net://127.0.0.1 (ports 5342/5343), and says so when it cannot
	if ! /usr/bin/python3 -c 'import socket; socket.create_connection(("127.0.0.1", 5342), 1)' 2>/dev/null; then
		expect 0 "$TRAWL" create E --live
		expect 0 "$TRAWL" enable-event -u --all
		expect_fail "$TRAWL" start && one_line_naming "127.0.0.1:5342"
		expect 0 "$TRAWL" destroy E
	fi
	# relayd's own options
	expect 0 "$RELAYD" -d -o "$T/dd" -C tcp://127.0.0.1:0 -D tcp://127.0.0.1:0 -L tcp://127.0.0.1:0
	grep -q "control port [1-9]" "$T/err" || fail "relayd -d did not say its ports: $(cat "$T/err")"
	dpid=$(sed -n 's/^trawl-relayd\[\([0-9]*\)\].*/\1/p' "$T/err" | head -1)
	sleep 0.3
	dd_pid=$(pgrep -f "trawl-relayd -d -o $T/dd" | head -1)
	[ -n "$dd_pid" ] && [ "$dd_pid" != "$dpid" ] || fail "relayd -d is not running in the background"
	[ -n "$dd_pid" ] && kill "$dd_pid"
	expect 2 "$RELAYD" --bogus
	expect 1 "$RELAYD" -C http://x:1 && expect_err_line "http://x:1"
	expect 0 "$RELAYD" --help && grep -q -- "--control-port" "$T/out" || fail "relayd --help"
	;;
hostile)
	relayd_start || { fail "relayd did not start"; finish; }
	/usr/bin/python3 "$(dirname "$0")/hostile.py" 127.0.0.1 "$CTRL_PORT" "$DATA_PORT" "$RELAY_OUT" ||
		fail "hostile.py"
	kill -0 "$RELAY_PID" 2>/dev/null || fail "relayd died of hostile input"
	find "$T" -name 'escaped*' | grep -q . && fail "a hostile path escaped relayd's folder"
	grep -c "dropping the connection" "$T/relay.log" >/dev/null || fail "relayd did not log the bad peers"
	expect 0 "$TRAWL" create H --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 || fail "app failed"
	expect 0 "$TRAWL" destroy
	bt_check "$(relay_trace H)" 200
	;;
installed)
	# cmake --install puts the daemon and its systemd unit in the prefix, and
	# the installed daemon runs from there
	P=$T/prefix
	cmake --install "${TRAWL_BUILD_DIR:?}" --prefix "$P" >"$T/install.log" 2>&1 ||
		{ cat "$T/install.log" >&2; fail "cmake --install failed"; finish; }
	[ -x "$P/bin/trawl-relayd" ] || fail "not installed: bin/trawl-relayd"
	grep -q "ExecStart=.*trawl-relayd" "$P/lib/systemd/system/trawl-relayd.service" ||
		fail "not installed: lib/systemd/system/trawl-relayd.service"
	RELAYD=$P/bin/trawl-relayd
	relayd_start || fail "the installed trawl-relayd does not start"
	expect 0 "$P/bin/trawl" create I --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	[ -d "$(relay_trace I)" ] || fail "the installed relayd made no session folder at create"
	expect 0 "$P/bin/trawl" destroy I
	;;
*)
	echo "unknown case $case" >&2
	exit 2
	;;
esac
relayd_stop_all
grep -q "Sanitizer\|runtime error:" "$T"/relay*.log 2>/dev/null && fail "sanitizer report in relayd's log: $(grep -A10 'Sanitizer\|runtime error:' "$T"/relay*.log | head -30)"
finish
