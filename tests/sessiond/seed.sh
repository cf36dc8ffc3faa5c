#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# End to end through real daemons, with ust's test app (every field macro)
# and babeltrace2 as the oracle:
#   seed      the issue's sequence: create; enable-event -u --all; start; app;
#             stop; view; destroy -- trawl view == babeltrace2, nothing lost
#   two       two sessions at once with different events on the same app
#   killd     the session daemon SIGKILLed while tracing: the app runs on
#             unharmed, what was recorded reaches the disk, a new daemon serves
#   restart   start, stop, start, stop: both runs' events are in the trace
#   snapshot  a flight-recorder session: snapshot record writes a readable trace
#   snapout   snapshot add-output/del-output/list-output as LTTng 2.13 (messages,
#             ids, one output at most); record -n NAME to an added output and
#             to a URL: folders NAME-YYYYMMDD-HHMMSS-N, every event in bt2;
#             snapshots do not consume the buffers (the next holds them too)
#   snapmax   record --max-size: refused below one packet per stream, else the
#             stream files fit the size, bt2 reads them, the newest event is in
#   killc     the consumer SIGKILLed: the daemon starts another, which carries
#             on (status and list show no dead consumer), what was written
#             stays readable, stop and destroy still work (tests/security/loss.py
#             consumer-kill counts every event)
#   context   add-context -u with every user-space context: list shows them,
#             every event carries the right values (context.py, over bt2),
#             trawl view == babeltrace2; unknown, unsupported, duplicate and
#             after-start contexts refused with one line
#   context2  contexts added before any channel; two apps at once sharing
#             per-user buffers each record their own vpid; per-process
#             buffers with contexts read the same in trawl view and babeltrace2
. "$(dirname "$0")/../cli/lib.sh"
APP=$BIN/ust-app-all
[ -x "$APP" ] || { echo "SKIP: ust-app-all not built"; exit 77; }
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 missing"; exit 77; }
case=${1:?case}
daemon_dir() { if [ "$(id -u)" = 0 ]; then echo "$TRAWL_ROOT_RUNTIME_DIR"; else echo "$TRAWL_RUNTIME_DIR"; fi; }
count() { grep -c " $1: " "$2"; }

case $case in
seed)
	expect 0 "$TRAWL" create
	expect 0 "$TRAWL" enable-event --userspace --all
	expect 0 "$TRAWL" start
	"$APP" 2 1000 5000 || fail "app failed"
	expect 0 "$TRAWL" stop
	"$TRAWL" view >"$T/view.txt" 2>"$T/view.err" || fail "trawl view: $(cat "$T/view.err")"
	dir=$(ls -d "$HOME"/trawl-traces/auto-* | head -1)
	[ -f "$dir/ust/uid/$(id -u)/64-bit/metadata" ] || fail "no metadata under ust/uid/$(id -u)/64-bit"
	ls "$dir/ust/uid/$(id -u)/64-bit/index/"channel0_*.idx >/dev/null || fail "no index files"
	babeltrace2 "$dir" >"$T/bt.txt" 2>"$T/bt.err" || fail "babeltrace2: $(cat "$T/bt.err")"
	[ -s "$T/bt.err" ] && fail "babeltrace2 warned: $(cat "$T/bt.err")"
	[ "$(count tall:seq "$T/bt.txt")" = 2000 ] || fail "expected 2000 tall:seq, got $(count tall:seq "$T/bt.txt")"
	[ "$(count tall:ints "$T/bt.txt")" = 2 ] || fail "expected 2 tall:ints"
	grep -q 's64 = -1234567890123' "$T/bt.txt" || fail "tall:ints value"
	cmp -s "$T/view.txt" "$T/bt.txt" || fail "trawl view differs from babeltrace2"
	expect 0 "$TRAWL" view "$dir" && cmp -s "$T/out" "$T/bt.txt" || fail "trawl view DIR differs"
	expect 0 "$TRAWL" view -e ls && grep -qx ust "$T/out" || fail "view -e ls did not list the trace folder"
	expect 0 "$TRAWL" destroy
	;;
two)
	expect 0 "$TRAWL" create A -o "$T/A"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" create B -o "$T/B"
	expect 0 "$TRAWL" enable-event -u 'tall:ints,tall:floats'
	expect 0 "$TRAWL" start A
	expect 0 "$TRAWL" start B
	"$APP" 1 500 5000 || fail "app failed"
	n=$(pgrep -P "$(cat "$(daemon_dir)/sessiond.lock")" -x trawl-consumerd | wc -l)
	[ "$n" = 1 ] || fail "expected one consumer shared by the owner's two sessions, found $n"
	expect 0 "$TRAWL" stop A
	expect 0 "$TRAWL" stop B
	babeltrace2 "$T/A" >"$T/a.txt" 2>"$T/a.err" || fail "bt A: $(cat "$T/a.err")"
	babeltrace2 "$T/B" >"$T/b.txt" 2>"$T/b.err" || fail "bt B: $(cat "$T/b.err")"
	[ "$(count tall:seq "$T/a.txt")" = 500 ] || fail "A: expected 500 tall:seq"
	[ "$(count tall:ints "$T/a.txt")" = 0 ] || fail "A has tall:ints"
	[ "$(count tall:ints "$T/b.txt")" = 2 ] || fail "B: expected 2 tall:ints"
	[ "$(count tall:floats "$T/b.txt")" = 1 ] || fail "B: expected 1 tall:floats"
	[ "$(count tall:seq "$T/b.txt")" = 0 ] || fail "B has tall:seq"
	expect 0 "$TRAWL" destroy --all
	;;
killd)
	expect 0 "$TRAWL" create K -o "$T/K"
	expect 0 "$TRAWL" enable-event -u --all
	expect 0 "$TRAWL" start
	"$APP" 1 300 5000 hang >"$T/app.out" &
	app=$!
	for i in $(seq 50); do grep -q ready "$T/app.out" && break; sleep 0.1; done
	grep -q ready "$T/app.out" || fail "app never got ready"
	expect 0 "$TRAWL" list -u && grep -q "tall:seq" "$T/out" || fail "list -u lacks the app's events"
	expect 0 "$TRAWL" list -u --fields && grep -q "field: n (integer)" "$T/out" || fail "list -u --fields"
	kill -9 "$(cat "$(daemon_dir)/sessiond.lock")"
	sleep 0.5
	kill -0 "$app" 2>/dev/null || fail "the app died with the daemon"
	# The consumer saw its daemon go: it wrote everything and left.
	babeltrace2 "$T/K" >"$T/k.txt" 2>"$T/k.err" || fail "bt: $(cat "$T/k.err")"
	[ "$(count tall:seq "$T/k.txt")" = 300 ] || fail "expected 300 tall:seq after the daemon died, got $(count tall:seq "$T/k.txt")"
	expect 0 "$TRAWL" create K2 -o "$T/K2"
	expect 0 "$TRAWL" list && grep -q " K2 " "$T/out" || fail "the new daemon does not serve"
	kill -0 "$app" 2>/dev/null || fail "the app died when the new daemon came"
	# The app registers again with the new daemon by itself.
	for i in $(seq 50); do
		"$TRAWL" list -u 2>/dev/null | grep -q tall:seq && break
		sleep 0.1
	done
	"$TRAWL" list -u 2>/dev/null | grep -q tall:seq || fail "the app did not register with the new daemon"
	kill "$app"
	expect 0 "$TRAWL" destroy K2
	;;
killc)
	expect 0 "$TRAWL" create C -o "$T/C"
	expect 0 "$TRAWL" enable-channel -u small --subbuf-size 4k --num-subbuf 4
	expect 0 "$TRAWL" enable-event -u tall:seq -c small
	expect 0 "$TRAWL" start
	"$APP" 1 5000 5000 hang >"$T/app.out" &
	app=$!
	for i in $(seq 50); do grep -q ready "$T/app.out" && break; sleep 0.1; done
	sleep 0.3 # the consumer takes the full packets (read timer: 1 ms)
	d=$(cat "$(daemon_dir)/sessiond.lock")
	c=$(pgrep -P "$d" -x trawl-consumerd)
	[ -n "$c" ] || fail "no consumer process under the daemon"
	kill -9 $c
	for i in $(seq 50); do
		c2=$(pgrep -P "$d" -x trawl-consumerd)
		[ -n "$c2" ] && [ "$c2" != "$c" ] && break
		sleep 0.1
	done
	[ -n "$c2" ] && [ "$c2" != "$c" ] || fail "no new consumer after the first was killed"
	# 11: the app's events discarded while no consumer emptied the buffers
	expect_done "$TRAWL" status
	grep -q "Consumer: DEAD" "$T/out" && fail "status reports a dead consumer: $(cat "$T/out")"
	expect 0 "$TRAWL" list C
	grep -q "Consumer: DEAD" "$T/out" && fail "list reports a dead consumer: $(cat "$T/out")"
	expect_done "$TRAWL" stop
	babeltrace2 "$T/C" >"$T/c.txt" 2>"$T/c.err" || fail "bt cannot read what was written: $(cat "$T/c.err")"
	n=$(count tall:seq "$T/c.txt")
	[ "$n" -gt 0 ] || { ls -laR "$T/C" >&2; cat "$T/c.err" >&2; fail "nothing readable after the consumer died"; }
	kill "$app"
	expect 0 "$TRAWL" destroy
	# A new session of the same owner gets a consumer.
	expect 0 "$TRAWL" create C2 -o "$T/C2"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	"$APP" 1 100 5000 || fail "app failed"
	expect 0 "$TRAWL" stop
	n=$(babeltrace2 "$T/C2" 2>/dev/null | grep -c " tall:seq: ")
	[ "$n" = 100 ] || fail "after a consumer died, a new session got $n of 100 events"
	expect 0 "$TRAWL" destroy
	;;
restart)
	expect 0 "$TRAWL" create R -o "$T/R"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	"$APP" 1 100 5000 hang >"$T/app.out" &
	app=$!
	for i in $(seq 50); do grep -q ready "$T/app.out" && break; sleep 0.1; done
	expect 0 "$TRAWL" stop
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 || fail "second app failed"
	expect 0 "$TRAWL" stop
	kill "$app"
	babeltrace2 "$T/R" >"$T/r.txt" 2>"$T/r.err" || fail "bt: $(cat "$T/r.err")"
	[ "$(count tall:seq "$T/r.txt")" = 300 ] || fail "start/stop/start/stop: expected 300 tall:seq, got $(count tall:seq "$T/r.txt")"
	expect 0 "$TRAWL" destroy
	;;
snapshot)
	expect 0 "$TRAWL" create S --snapshot -o "$T/S"
	expect 0 "$TRAWL" enable-event -u 'tall:*'
	expect 0 "$TRAWL" list S && grep -q "overwrite" "$T/out" || fail "snapshot channel not in overwrite mode"
	expect 0 "$TRAWL" start
	"$APP" 1 1000 5000 || fail "app failed"
	expect 0 "$TRAWL" snapshot record
	snap=$(ls -d "$T"/S/snapshot-1-* 2>/dev/null)
	[ -n "$snap" ] || fail "no snapshot folder"
	babeltrace2 "$snap" >"$T/s.txt" 2>"$T/s.err" || fail "bt: $(cat "$T/s.err")"
	[ "$(count tall:seq "$T/s.txt")" = 1000 ] || fail "snapshot: expected 1000 tall:seq, got $(count tall:seq "$T/s.txt")"
	expect 0 "$TRAWL" destroy
	;;
snapout)
	# LTTng 2.13's snapshot outputs: the default one, one at most, del by id
	# and by name, record -n NAME to an added output, record to a URL
	expect 0 "$TRAWL" create S --snapshot -o "$T/S"
	grep -qx "Default snapshot output set to $T/S" "$T/out" || fail "create: $(cat "$T/out")"
	expect 0 "$TRAWL" snapshot list-output
	printf 'Snapshot output list for session S\n    [1] snapshot-1: %s\n' "$T/S" | cmp -s - "$T/out" ||
		fail "list-output: $(cat "$T/out")"
	expect 6 "$TRAWL" snapshot add-output "$T/O" && expect_err_line "already exists"
	expect 0 "$TRAWL" snapshot del-output 1
	grep -qx "Snapshot output id 1 successfully deleted for session S" "$T/out" || fail "del 1: $(cat "$T/out")"
	expect 0 "$TRAWL" snapshot list-output
	printf 'Snapshot output list for session S\n    None\n' | cmp -s - "$T/out" || fail "empty list: $(cat "$T/out")"
	expect 0 "$TRAWL" snapshot add-output "$T/O"
	grep -qx "  \[2\] snapshot-2: $T/O" "$T/out" || fail "add: $(cat "$T/out")"
	expect 0 "$TRAWL" snapshot del-output snapshot-2
	grep -qx "Snapshot output snapshot-2 successfully deleted for session S" "$T/out" || fail "del name: $(cat "$T/out")"
	expect 7 "$TRAWL" snapshot del-output 2 && expect_err_line "no snapshot output with id 2"
	expect 7 "$TRAWL" snapshot del-output nosuch && expect_err_line "no snapshot output named"
	expect 7 "$TRAWL" snapshot del-output 2x && expect_err_line "not recognized"
	expect 2 "$TRAWL" snapshot add-output
	expect 2 "$TRAWL" snapshot record -C "$T/c"
	# trawl-relayd: the URL, normalized (tests/relayd/rotate.sh records there)
	expect 0 "$TRAWL" snapshot add-output net://127.0.0.1
	expect 0 "$TRAWL" snapshot list-output
	grep -qx "    \[3\] snapshot-3: net://127.0.0.1:5342:5343" "$T/out" || fail "list net: $(cat "$T/out")"
	expect 0 "$TRAWL" snapshot del-output 3
	# -C/-D, LTTng's pair: one trawl-relayd URL (relayd/paths.sh records there)
	expect 0 "$TRAWL" snapshot add-output -C tcp://127.0.0.1:1/p -D tcp://127.0.0.1:2
	expect 0 "$TRAWL" snapshot list-output
	grep -qx "    \[4\] snapshot-4: net://127.0.0.1:1:2/p" "$T/out" || fail "list -C/-D: $(cat "$T/out")"
	expect 0 "$TRAWL" snapshot del-output 4
	expect 7 "$TRAWL" snapshot add-output -C tcp://127.0.0.1:1 -D tcp://127.0.0.2:2 && expect_err_line "different hosts"
	expect 0 "$TRAWL" snapshot add-output -n flight -m 64M "file://$T/O"
	grep -qx "  \[5\] flight: file://$T/O (max size: 67108864 bytes)" "$T/out" || fail "add -n -m: $(cat "$T/out")"
	expect 0 "$TRAWL" snapshot list-output
	grep -qx "    \[5\] flight: $T/O (max size: 67108864 bytes)" "$T/out" || fail "list: $(cat "$T/out")"
	expect 0 "$TRAWL" enable-event -u 'tall:*'
	expect 8 "$TRAWL" snapshot record && expect_err_line "started once"
	expect 0 "$TRAWL" start
	"$APP" 1 1000 5000 || fail "app failed"
	expect 0 "$TRAWL" snapshot record -n NAME
	grep -qx "Snapshot recorded successfully for session S" "$T/out" || fail "record: $(cat "$T/out")"
	snap=$(ls -d "$T"/O/NAME-*-0 2>/dev/null)
	[[ $snap =~ /NAME-[0-9]{8}-[0-9]{6}-0$ ]] || fail "no folder NAME-YYYYMMDD-HHMMSS-0: $(ls "$T/O")"
	babeltrace2 "$snap" >"$T/s.txt" 2>"$T/s.err" || fail "bt: $(cat "$T/s.err")"
	[ "$(count tall:seq "$T/s.txt")" = 1000 ] || fail "snapshot -n: expected 1000 tall:seq, got $(count tall:seq "$T/s.txt")"
	[ "$(count tall:ints "$T/s.txt")" -ge 1 ] || fail "snapshot -n: no tall:ints: $(grep -v tall:seq "$T/s.txt" | head -3)"
	"$APP" 1 300 5000 || fail "app failed"
	expect 0 "$TRAWL" snapshot record "$T/U"
	grep -qx "Snapshot written at: $T/U" "$T/out" || fail "record URL: $(cat "$T/out")"
	snap=$(ls -d "$T"/U/snapshot-0-*-1 2>/dev/null)
	[ -n "$snap" ] || fail "no folder snapshot-0-*-1 in $T/U: $(ls "$T/U")"
	babeltrace2 "$snap" >"$T/s.txt" 2>"$T/s.err" || fail "bt: $(cat "$T/s.err")"
	# as LTTng, a snapshot does not consume the buffers: the first run's
	# 1000 events are in the second snapshot too
	[ "$(count tall:seq "$T/s.txt")" = 1300 ] || fail "snapshot URL: expected 1300 tall:seq, got $(count tall:seq "$T/s.txt")"
	# the session's output is untouched by a URL's snapshot; the count goes on
	[ "$(ls "$T/O" | wc -l)" = 1 ] || fail "the output got the URL's snapshot: $(ls "$T/O")"
	expect 0 "$TRAWL" snapshot record
	snap=$(ls -d "$T"/O/flight-*-2 2>/dev/null)
	[ -n "$snap" ] || fail "no folder flight-*-2 in $T/O: $(ls "$T/O")"
	babeltrace2 "$snap" >"$T/s.txt" 2>"$T/s.err" || fail "bt: $(cat "$T/s.err")"
	[ "$(count tall:seq "$T/s.txt")" = 1300 ] || fail "third snapshot: expected 1300 tall:seq, got $(count tall:seq "$T/s.txt")"
	expect 0 "$TRAWL" snapshot list-output -s S
	expect 0 "$TRAWL" create N -o "$T/N"
	expect 7 "$TRAWL" snapshot list-output && expect_err_line "not in snapshot mode"
	expect 5 "$TRAWL" snapshot list-output -s nosuch
	expect 0 "$TRAWL" destroy --all
	;;
snapmax)
	# --max-size bounds a snapshot: of each stream its newest packets, as many
	# as fit counting each as a whole sub-buffer (LTTng's rule); it reads whole
	expect 0 "$TRAWL" create M --snapshot --no-output
	expect 0 "$TRAWL" snapshot list-output
	grep -qx "    None" "$T/out" || fail "--no-output has an output: $(cat "$T/out")"
	expect 0 "$TRAWL" enable-channel -u small --subbuf-size 4096 --num-subbuf 16
	expect 0 "$TRAWL" enable-event -u -c small tall:seq
	expect 0 "$TRAWL" start
	"$APP" 1 20000 5000 || fail "app failed"
	expect 5 "$TRAWL" snapshot record && expect_err_line "no snapshot output"
	expect 0 "$TRAWL" snapshot add-output "$T/M"
	expect 1 "$TRAWL" snapshot record -m 1 && expect_err_line "cannot fit at least one packet per stream"
	one=$(sed -n 's/.*(\([0-9]*\) bytes needed).*/\1/p' "$T/err")
	[ -n "$one" ] && [ "$((one % 4096))" = 0 ] || fail "no size in: $(cat "$T/err")"
	ls "$T/M" | grep -q . && fail "a failed record left a folder: $(ls "$T/M")"
	expect 0 "$TRAWL" snapshot record -m $((3 * one + 100)) -n max
	snap=$(ls -d "$T"/M/max-*-0 2>/dev/null)
	[ -n "$snap" ] || fail "no folder max-*-0: $(ls "$T/M")"
	bytes=$(find "$snap" -name 'small_*' -type f -printf '%s\n' | awk '{ n += $1 } END { print n + 0 }')
	[ "$bytes" -gt 0 ] && [ "$bytes" -le $((3 * one)) ] || fail "stream files hold $bytes bytes, more than 3 x $one"
	babeltrace2 "$snap" >"$T/s.txt" 2>"$T/s.err" || fail "bt: $(cat "$T/s.err")"
	n=$(count tall:seq "$T/s.txt")
	[ "$n" -gt 0 ] && [ "$n" -lt 20000 ] || fail "bounded snapshot: $n tall:seq"
	# the newest events: the app's last one is there
	tail -1 "$T/s.txt" | grep -q "n = 19999" || fail "the last event is not the app's last: $(tail -1 "$T/s.txt")"
	expect 0 "$TRAWL" destroy
	;;
context)
	expect 0 "$TRAWL" create X -o "$T/X"
	expect 0 "$TRAWL" enable-event -u --all
	expect 0 "$TRAWL" add-context -u -t vpid -t vtid -t procname
	expect 0 "$TRAWL" add-context -u -c channel0 -t pid -t tid -t pthread_id -t ppid -t ip
	expect 0 "$TRAWL" list X
	grep -q "Context: vpid, vtid, procname, pid, tid, pthread_id, ppid, ip" "$T/out" ||
		fail "list lacks the contexts: $(cat "$T/out")"
	expect 6 "$TRAWL" add-context -u -t vtid && expect_err_line "vtid"
	expect 9 "$TRAWL" add-context -u -t perf:thread:cpu-cycles &&
		expect_err_line "perf:thread:cpu-cycles"
	expect 9 "$TRAWL" add-context -u -t hostname && expect_err_line "'hostname'"
	expect 7 "$TRAWL" add-context -u -t nosuch && expect_err_line "unknown context 'nosuch'"
	expect 0 "$TRAWL" start
	"$APP" 2 300 5000 &
	app=$!
	wait $app || fail "app failed"
	expect 0 "$TRAWL" stop
	expect 8 "$TRAWL" add-context -u -t vpid -c channel0 && expect_err_line "started"
	expect 0 "$TRAWL" list X
	grep -q "Context: vpid, vtid, procname, pid, tid, pthread_id, ppid, ip" "$T/out" ||
		fail "list lost the contexts"
	/usr/bin/python3 "$(dirname "$0")/context.py" "$T/X" "$app" $$ ust-app-all 2 300 ||
		fail "context values (context.py)"
	babeltrace2 "$T/X" >"$T/bt.txt" 2>"$T/bt.err" || fail "babeltrace2: $(cat "$T/bt.err")"
	[ -s "$T/bt.err" ] && fail "babeltrace2 warned: $(cat "$T/bt.err")"
	grep -q "{ vpid = $app, vtid = [0-9]*, pid = $app, tid = [0-9]*, procname = \"ust-app-all\", pthread_id = 0x" "$T/bt.txt" ||
		fail "babeltrace2's text lacks the event context: $(head -2 "$T/bt.txt")"
	expect 0 "$TRAWL" view X && cmp -s "$T/out" "$T/bt.txt" || fail "trawl view differs from babeltrace2"
	expect 0 "$TRAWL" destroy
	;;
context2)
	expect 0 "$TRAWL" create P -o "$T/P"
	expect 0 "$TRAWL" add-context -u -t procname -t vpid
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" create Q -o "$T/Q"
	expect 0 "$TRAWL" enable-channel -u --buffers-pid pc
	expect 0 "$TRAWL" enable-event -u tall:seq -c pc
	expect 0 "$TRAWL" add-context -u -c pc -t vtid -t ip
	# One session at a time: an app set up by one session first would
	# record before the other has set it up.
	expect 0 "$TRAWL" start P
	"$APP" 1 200 5000 &
	a1=$!
	"$APP" 1 300 5000 &
	a2=$!
	wait $a1 || fail "app 1 failed"
	wait $a2 || fail "app 2 failed"
	expect 0 "$TRAWL" stop P
	expect 0 "$TRAWL" start Q
	"$APP" 1 200 5000 &
	b1=$!
	"$APP" 1 300 5000 &
	b2=$!
	wait $b1 || fail "app 3 failed"
	wait $b2 || fail "app 4 failed"
	expect 0 "$TRAWL" stop Q
	babeltrace2 "$T/P" >"$T/p.txt" 2>"$T/p.err" || fail "bt P: $(cat "$T/p.err")"
	[ -s "$T/p.err" ] && fail "babeltrace2 warned on P: $(cat "$T/p.err")"
	[ "$(grep -c "{ vpid = $a1, procname = \"ust-app-all\" }, { thread = 0" "$T/p.txt")" = 200 ] ||
		fail "P: expected 200 events with app 1's vpid: $(head -2 "$T/p.txt")"
	[ "$(grep -c "{ vpid = $a2, procname = \"ust-app-all\" }, { thread = 0" "$T/p.txt")" = 300 ] ||
		fail "P: expected 300 events with app 2's vpid"
	[ "$(count tall:seq "$T/p.txt")" = 500 ] || fail "P: expected 500 tall:seq"
	[ "$(ls -d "$T"/Q/ust/pid/ust-app-all-* | wc -l)" = 2 ] || fail "Q: expected two per-process traces"
	babeltrace2 "$T/Q" >"$T/q.txt" 2>"$T/q.err" || fail "bt Q: $(cat "$T/q.err")"
	[ -s "$T/q.err" ] && fail "babeltrace2 warned on Q: $(cat "$T/q.err")"
	[ "$(grep -c '{ vtid = [0-9]*, ip = 0x[0-9A-F]* }, { thread = 0' "$T/q.txt")" = 500 ] ||
		fail "Q: expected 500 events with vtid and ip: $(head -2 "$T/q.txt")"
	expect 0 "$TRAWL" view Q && cmp -s "$T/out" "$T/q.txt" || fail "Q: trawl view differs from babeltrace2"
	expect 0 "$TRAWL" destroy --all
	;;
esac
finish
