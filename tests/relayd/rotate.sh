#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Trace chunks of sessions streamed to trawl-relayd (LTTng 2.13's rotate,
# clear and snapshot over the network), through real daemons, with ust's
# test app and babeltrace2 as the oracle:
#   rotate   a session streamed with --set-url is rotated 3 times, one app
#            run (its own pid, 200 numbered tall:seq events) per chunk: the
#            3 archives are on relayd's side as LTTng lays them out
#            (<output>/<hostname>/<session>-<date>/archives/BEGIN-END-ID/ust/...),
#            each read alone by babeltrace2 without a word, each holding
#            exactly its round's events (so every event is in exactly one
#            chunk); the chunk in progress (BEGIN-3/) holds the 4th round's,
#            and destroy archives it (LTTng's implicit rotation); rotate and
#            destroy print LTTng's "is now readable on relay tcp://..." line;
#            nothing is left in the session folder but archives/; a session
#            rotated after its stop is not archived again by destroy
#   clear    a streamed session cleared while it runs: relayd's folder then
#            holds only the events of the app run after the clear (those
#            before are gone), read by babeltrace2; a stopped session
#            cleared gets its files again at its next start
#   snapshot snapshots to relayd, as LTTng lays them out
#            (<output>/<hostname>/<session>-<date>/<name>-<date>-<N>/ust/...):
#            a snapshot session created with --set-url (its default output
#            the URL), record and record -n; a local snapshot session's
#            record net://URL and add-output net://URL; list-output's MI
#            names the output's URLs as LTTng's (tcp4://HOST:PORT/); each snapshot read
#            alone by babeltrace2, holding the newest app run's 200 events;
#            relayd killed: record fails with one line
#   kill     relayd killed before a rotation: the rotate fails with one line
#            counting what was lost, whole (a session name of 121 bytes:
#            the line was cut at 256 bytes), exit != 0; destroy works
#   consdie  a local session's consumer killed (-9) while the ROTATE waits
#            in its socket: the rotate fails with one line saying so (the
#            one started in its place answered, and it once succeeded);
#            the next rotation works (the daemon took the new chunk: it
#            once kept the old one, and the chunk the consumer wrote in was
#            never archived), and each app's 200 events are in the
#            archives exactly once
#   hello    relayd killed while the consumer waits for its HELLO's reply
#            (relayd stopped with SIGSTOP, so the consumer's connection and
#            HELLO wait in its socket until the kill, whatever the load):
#            the consumer lives on (no restart), the rotate fails with one
#            line counting the app's 200 events lost, exit != 0; relayd
#            back on the same ports, the consumer reconnects (relayd takes
#            the session up again): the next app's 200 events are in
#            relayd's trace (babeltrace2), and the stop has nothing to say
#   back     relayd killed (-9) while a session streams, then back on the
#            same ports and folder: the session daemon connects its own
#            connection again (as the consumer does its), says so in its
#            log, and the next rotation works: exit 0, LTTng's line, and its
#            archive on relayd holds the app run after relayd came back,
#            read by babeltrace2 without a word (the daemon once kept the
#            lost connection, and every rotation failed until a stop and
#            start)
#   pingcut  a rotation's packets reach relayd, and the connection is lost
#            at the consumer's PING that follows them (pingcut.py, a relay
#            in front of relayd's data port, cuts it there whatever the
#            timing: on a loaded machine, packets written into a connection
#            relayd had dropped were found lost only at that PING): the
#            consumer takes the stream up again and sends them again, and
#            the rotation works: exit 0, LTTng's line, the archive holds the
#            app's 200 events (babeltrace2); it once counted them lost
#   conskill the consumer killed (-9) while a session streams: the one
#            started in its place cannot take relayd's files back, so it
#            counts what the streams hold lost: the rotate fails with one
#            line counting both apps' 400 events, exit != 0; the new
#            chunk's streams have files of their own: the next app's 200
#            events are there (babeltrace2), and the stop has nothing to say
#   killpid  per-process buffers, the app gone (its trace written and
#            removed: the consumer holds nothing of the session), relayd
#            killed: the rotate fails with one line naming trawl-relayd
#            (it once printed the archive's path on the dead relayd)
#   live     a live session's rotation is refused, as LTTng 2.13 refuses it
#   pid      per-process buffers, each app gone before the rotation that
#            ends its chunk (no consumer trace is left to archive it: the
#            session daemon tells relayd, relay protocol 4's CHUNK): each
#            archive holds its round's app, read alone by babeltrace2; the
#            new chunk's folder is there at once, as LTTng's relayd makes
#            it; a rotation with no app in the chunk makes an empty
#            archive; the session folder holds archives/ and nothing else,
#            no hidden file of relayd's either (LTTng's scripts count what
#            `ls -A` shows); a rotation while stopped ends the last chunk
#            (destroy adds no archive, and no chunk folder is left)
#   noclear  a relayd run with TRAWL_RELAYD_DISALLOW_CLEAR=1 (LTTng's
#            LTTNG_RELAYD_DISALLOW_CLEAR): clear of a session streamed there
#            fails in one line, and its trace is left whole
#   clearpid a streamed per-process session cleared once its app has gone:
#            the session folder is left empty (`ls -A`), as LTTng's relayd
#            leaves it, and the next app's events land after it
. "$(dirname "$0")/lib.sh"
ust_relay_or_skip
case=${1:?case}
uid=$(id -u)

# chunk_check DIR PID: babeltrace2 reads DIR alone, silently; it holds 200
# tall:seq events, all from PID, n = 0..199 each once
chunk_check() {
	babeltrace2 "$1" >"$T/bt.txt" 2>"$T/bt.err" || { fail "babeltrace2 $1: $(cat "$T/bt.err")"; return 1; }
	[ -s "$T/bt.err" ] && fail "babeltrace2 warned on $1: $(cat "$T/bt.err")"
	local all mine n
	all=$(grep -c " tall:seq: " "$T/bt.txt")
	mine=$(grep " tall:seq: " "$T/bt.txt" | grep -Ec "vpid = $2([^0-9]|$)")
	n=$(grep " tall:seq: " "$T/bt.txt" | grep -o 'n = [0-9]*' | sort -u | wc -l)
	[ "$all" = 200 ] && [ "$mine" = 200 ] && [ "$n" = 200 ] ||
		fail "$1: expected 200 tall:seq of pid $2 (n = 0..199), got $all, $mine of it, $n distinct n"
}

case $case in
rotate)
	relayd_start || { fail "relayd did not start"; finish; }
	url=net://127.0.0.1:$CTRL_PORT:$DATA_PORT
	expect 0 "$TRAWL" create R --set-url "$url"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" add-context -u -t vpid
	expect 0 "$TRAWL" start
	pids=()
	for round in 1 2 3 4; do
		"$APP" 1 200 5000 >"$T/app.out" & app=$!
		wait "$app" || fail "app of round $round failed"
		pids+=("$app")
		[ "$round" = 4 ] && break
		if [ "$round" = 3 ]; then
			# LTTng's MI: <location><relay> (mi-lttng-4.1.xsd when given)
			expect 0 "$TRAWL" --mi xml rotate R
			xsd=${TRAWL_LTTNG_MI_XSD:-}
			xmllint --noout ${xsd:+--schema "$xsd"} "$T/out" 2>"$T/xml.err" ||
				fail "rotate --mi xml: $(cat "$T/xml.err")"
			grep -q "<relay><host>127.0.0.1</host><control_port>$CTRL_PORT</control_port><data_port>$DATA_PORT</data_port><protocol>TCP</protocol><relative_path>$(hostname)/R-[0-9]*-[0-9]*/archives/" "$T/out" ||
				fail "rotate --mi xml: no <relay> location: $(cat "$T/out")"
			continue
		fi
		expect 0 "$TRAWL" rotate R
		grep -q "^Trace chunk archive for session R is now readable on relay tcp://127.0.0.1/$(hostname)/R-[0-9]*-[0-9]*/archives/[0-9T+-]* \[control port $CTRL_PORT, data port $DATA_PORT\]$" "$T/out" ||
			fail "rotate $round: not LTTng's line: $(cat "$T/out")"
	done
	expect 0 "$TRAWL" stop
	dir=$(relay_trace R)
	[ -n "$dir" ] || { ls -R "$RELAY_OUT" >&2; fail "no R-YYYYMMDD-HHMMSS folder"; finish; }
	# the chunk in progress: BEGIN-3, as a local session's
	cur=$(ls -d "$dir"/[0-9]*T*-3 2>/dev/null)
	[ -n "$cur" ] || { ls "$dir" >&2; fail "no chunk 3 folder"; finish; }
	chunk_check "$cur" "${pids[3]}"
	# destroy archives the last chunk, as LTTng's implicit rotation does
	expect 0 "$TRAWL" destroy
	grep -q "^Trace chunk archive for session R is now readable on relay tcp://127.0.0.1/$(hostname)/R-[0-9]*-[0-9]*/archives/[0-9T+-]*-3 \[control port $CTRL_PORT, data port $DATA_PORT\]$" "$T/out" ||
		fail "destroy: not LTTng's archive line: $(cat "$T/out")"
	mapfile -t arch < <(ls -d "$dir"/archives/* 2>/dev/null | sort -t- -k3 -n)
	[ "${#arch[@]}" = 4 ] || { ls -R "$dir" >&2; fail "expected 4 archives, got ${#arch[@]}"; finish; }
	for i in 0 1 2 3; do
		b=$(basename "${arch[$i]}")
		[[ $b =~ ^[0-9]{8}T[0-9]{6}[+-][0-9]{4}-[0-9]{8}T[0-9]{6}[+-][0-9]{4}-$i$ ]] ||
			fail "archive $i not named BEGIN-END-$i: $b"
		[ -f "${arch[$i]}/ust/uid/$uid/64-bit/metadata" ] || fail "archive $i: no ust/uid/$uid/64-bit/metadata"
		chunk_check "${arch[$i]}" "${pids[$i]}"
	done
	left=$(ls -A "$dir" | grep -vx "archives")
	[ -z "$left" ] || fail "left in the session folder: $left"
	# rotated after its stop: the chunk that ended then was the last (no archive at destroy)
	expect 0 "$TRAWL" create R2 --set-url "$url"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" || fail "app failed"
	expect 0 "$TRAWL" stop
	expect 0 "$TRAWL" rotate
	expect 0 "$TRAWL" destroy
	grep -q "archive" "$T/out" && fail "destroy after a rotation while stopped archived again: $(cat "$T/out")"
	[ "$(ls "$(relay_trace R2)/archives" | wc -l)" = 1 ] || fail "R2: expected 1 archive: $(ls -R "$(relay_trace R2)")"
	;;
clear)
	relayd_start || { fail "relayd did not start"; finish; }
	expect 0 "$TRAWL" create C --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" add-context -u -t vpid
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" || fail "app 1 failed"
	expect 0 "$TRAWL" clear C
	"$APP" 1 200 5000 >"$T/app.out" & app=$!
	wait "$app" || fail "app 2 failed"
	expect 0 "$TRAWL" stop
	dir=$(relay_trace C)
	[ -n "$dir" ] || { ls -R "$RELAY_OUT" >&2; fail "no C-YYYYMMDD-HHMMSS folder"; finish; }
	chunk_check "$dir" "$app"
	# stopped: cleared, then the next start's events only
	expect 0 "$TRAWL" clear C
	[ -z "$(find "$dir/ust" -type f)" ] || fail "files left after a clear of the stopped session: $(find "$dir/ust" -type f)"
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" & app=$!
	wait "$app" || fail "app 3 failed"
	expect 0 "$TRAWL" destroy
	chunk_check "$dir" "$app"
	;;
snapshot)
	relayd_start || { fail "relayd did not start"; finish; }
	url=net://127.0.0.1:$CTRL_PORT:$DATA_PORT
	expect 0 "$TRAWL" create S --snapshot --set-url "$url"
	grep -q "^Default snapshot output set to $url$" "$T/out" || fail "create --snapshot --set-url said: $(cat "$T/out")"
	expect 0 "$TRAWL" snapshot list-output
	grep -q "\[1\] snapshot-1: $url" "$T/out" || fail "list-output said: $(cat "$T/out")"
	# LTTng's MI: the control and data URLs as tcp4://HOST:PORT/ (its save-load
	# test_load reads them after load --override-url)
	expect 0 "$TRAWL" --mi xml snapshot list-output
	grep -q "<ctrl_url>tcp4://127.0.0.1:$CTRL_PORT/</ctrl_url><data_url>tcp4://127.0.0.1:$DATA_PORT/</data_url>" "$T/out" ||
		fail "list-output --mi xml: not LTTng's URLs: $(cat "$T/out")"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" add-context -u -t vpid
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" & app=$!
	wait "$app" || fail "app failed"
	expect 0 "$TRAWL" snapshot record
	grep -q "^Snapshot recorded successfully for session S$" "$T/out" || fail "record said: $(cat "$T/out")"
	expect 0 "$TRAWL" snapshot record -n named
	dir=$(relay_trace S)
	[ -n "$dir" ] || { ls -R "$RELAY_OUT" >&2; fail "no S-YYYYMMDD-HHMMSS folder on relayd"; finish; }
	for snap in snapshot-1-*-0 named-*-1; do
		d=$(ls -d "$dir"/$snap 2>/dev/null)
		[ -n "$d" ] || { ls "$dir" >&2; fail "no $snap snapshot on relayd"; continue; }
		[ -f "$d/ust/uid/$uid/64-bit/metadata" ] || fail "$snap: no ust/uid/$uid/64-bit/metadata"
		chunk_check "$d" "$app"
	done
	expect 0 "$TRAWL" destroy S
	# a local snapshot session, to relayd for one record, then by its output
	expect 0 "$TRAWL" create L --snapshot --output "$T/local"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" add-context -u -t vpid
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" & app=$!
	wait "$app" || fail "app failed"
	expect 0 "$TRAWL" snapshot record "$url"
	grep -q "^Snapshot written at: $url$" "$T/out" || fail "record URL said: $(cat "$T/out")"
	expect 0 "$TRAWL" snapshot del-output 1
	expect 0 "$TRAWL" snapshot add-output "$url" -n far
	expect 0 "$TRAWL" snapshot record
	dir=$(relay_trace L)
	[ -n "$dir" ] || { ls -R "$RELAY_OUT" >&2; fail "no L-YYYYMMDD-HHMMSS folder on relayd"; finish; }
	for snap in snapshot-0-*-0 far-*-1; do
		d=$(ls -d "$dir"/$snap 2>/dev/null)
		[ -n "$d" ] || { ls "$dir" >&2; fail "no $snap snapshot on relayd"; continue; }
		chunk_check "$d" "$app"
	done
	[ -z "$(ls "$T/local" 2>/dev/null | grep snapshot)" ] || fail "a snapshot to relayd landed in the local folder"
	kill -9 "$RELAY_PID"
	wait "$RELAY_PID" 2>/dev/null
	expect_fail "$TRAWL" snapshot record
	echo "record with relayd gone said: $(cat "$T/err")"
	one_line_naming "trawl-relayd"
	"$TRAWL" destroy L >/dev/null 2>&1
	;;
kill)
	relayd_start || { fail "relayd did not start"; finish; }
	# (a long session name: the daemon's words and the consumer's line,
	# whole, are longer than the 256 bytes the line once had)
	K=K$(printf 'k%.0s' $(seq 120))
	expect 0 "$TRAWL" create "$K" --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 || fail "app failed"
	kill -9 "$RELAY_PID"
	wait "$RELAY_PID" 2>/dev/null
	expect_fail "$TRAWL" rotate "$K"
	echo "rotate with relayd gone said: $(cat "$T/err")"
	one_line_naming "trawl-relayd"
	one_line_naming "Rotation failure on consumer (session '$K', user space): the consumer could not rotate the session: streaming to trawl-relayd at 127.0.0.1:$DATA_PORT stopped"
	# the whole line: it ends with the consumer's count (and what relayd may hold)
	grep -qE " \(200 events\) lost( \([0-9]+ sent, not confirmed: trawl-relayd may hold them\))?$" "$T/err" ||
		fail "the rotate's line does not end with the count of what was lost: $(cat "$T/err")"
	"$TRAWL" destroy "$K" >/dev/null 2>&1
	;;
consdie)
	# a local session: its consumer killed (-9) during a rotation, while
	# the ROTATE waits in its socket (the consumer stopped, so whatever
	# the load); then rotated again
	expect 0 "$TRAWL" create D --output "$T/D"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" add-context -u -t vpid
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" & app1=$!
	wait "$app1" || fail "app 1 failed"
	sd=$(cat "$T"/*/sessiond.lock 2>/dev/null | head -1)
	cons=$(pgrep -P "$sd" -x trawl-consumerd)
	[ -n "$cons" ] || { fail "no consumer under the session daemon ($sd)"; finish; }
	kill -STOP "$cons"
	"$TRAWL" rotate D >"$T/rot.out" 2>"$T/rot.err" & rot=$!
	for i in $(seq 300); do
		q=$(ss -xpH | grep "pid=$cons," | awk '$3 > 0 { print $3 }' | head -1)
		[ -n "$q" ] && break
		sleep 0.1
	done
	[ -n "$q" ] || fail "the ROTATE never reached the consumer's socket: $(ss -xp | grep "pid=$cons,")"
	kill -9 "$cons"
	wait "$rot" && fail "the rotate succeeded though its consumer died during it: $(cat "$T/rot.out")"
	cp "$T/rot.err" "$T/err"
	echo "rotate with the consumer killed in it said: $(cat "$T/err")"
	one_line_naming "Rotation failure on consumer (session 'D', user space): the consumer could not rotate the session: consumer died (signal 9) during the rotation"
	grep -q "consumer started again" "$T"/*/sessiond.log ||
		fail "the consumer was not started again: $(grep -h consumer "$T"/*/sessiond.log)"
	# the session took the new chunk: the next rotation works, and every
	# event of both apps is in exactly one chunk
	"$APP" 1 200 5000 >"$T/app.out" & app2=$!
	wait "$app2" || fail "app 2 failed"
	expect 0 "$TRAWL" rotate D
	grep -q "^Trace chunk archive for session D is now readable at $T/D/archives/[0-9T+-]*-1$" "$T/out" ||
		fail "the rotation after the failed one: not chunk 1's archive: $(cat "$T/out")"
	expect 0 "$TRAWL" destroy D
	left=$(ls -A "$T/D" | grep -vx "archives")
	[ -z "$left" ] || fail "left outside archives/ (a chunk never archived): $left"
	: >"$T/all.txt"
	for a in "$T"/D/archives/*; do
		[ -n "$(find "$a" -name metadata)" ] || continue
		babeltrace2 "$a" >"$T/bt.txt" 2>"$T/bt.err" || fail "babeltrace2 $a: $(cat "$T/bt.err")"
		grep " tall:seq: " "$T/bt.txt" | sed -n 's/.*vpid = \([0-9]*\).*n = \([0-9]*\).*/\1 \2/p' >>"$T/all.txt"
	done
	for p in "$app1" "$app2"; do
		n=$(grep -c "^$p " "$T/all.txt")
		u=$(grep "^$p " "$T/all.txt" | sort -u | wc -l)
		[ "$n" = 200 ] && [ "$u" = 200 ] ||
			fail "app $p: $n events in the archives ($u distinct), wanted its 200 once each: $(ls -R "$T/D")"
	done
	;;
hello)
	relayd_start || { fail "relayd did not start"; finish; }
	expect 0 "$TRAWL" create H --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" add-context -u -t vpid
	expect 0 "$TRAWL" start
	kill -STOP "$RELAY_PID"
	# the app's trace is made as it registers: the consumer connects (the
	# kernel accepts for the stopped relayd) and sends its HELLO, which
	# waits unread in relayd's socket (Recv-Q) until the kill resets it
	"$APP" 1 200 5000 >"$T/app.out" & app=$!
	wait "$app" || fail "app failed"
	for i in $(seq 300); do
		q=$(ss -tnH state established "( sport = :$DATA_PORT )" | awk '$1 > 0 { print $1 }' | head -1)
		[ -n "$q" ] && break
		sleep 0.1
	done
	[ -n "$q" ] || fail "the consumer's HELLO never reached relayd's socket: $(ss -tn | grep ":$DATA_PORT ")"
	sd=$(cat "$T"/*/sessiond.lock 2>/dev/null | head -1)
	cons=$(pgrep -P "$sd" -x trawl-consumerd)
	kill -9 "$RELAY_PID"
	wait "$RELAY_PID" 2>/dev/null
	expect_fail "$TRAWL" rotate H
	echo "rotate with relayd killed in the HELLO said: $(cat "$T/err")"
	one_line_naming "trawl-relayd"
	grep -qE "\(200 events\) lost" "$T/err" || fail "the rotate's line does not count the 200 events lost"
	[ -n "$cons" ] && [ "$(pgrep -P "$sd" -x trawl-consumerd)" = "$cons" ] ||
		fail "the consumer was restarted: $(grep -h consumer "$T"/*/sessiond.log)"
	# relayd back on the same ports and folder: the consumer reconnects
	"$RELAYD" -o "$RELAY_OUT" -C "tcp://127.0.0.1:$CTRL_PORT" -D "tcp://127.0.0.1:$DATA_PORT" \
		-L tcp://127.0.0.1:0 2>"$T/relay-again.log" &
	RELAY_PIDS+=("$!")
	for i in $(seq 100); do grep -q "control port" "$T/relay-again.log" && break; sleep 0.05; done
	grep -q "control port" "$T/relay-again.log" || fail "relayd did not come back: $(cat "$T/relay-again.log")"
	# (`trawl list` asks the consumer whether its output is broken: that is
	# when an idle one tries relayd again)
	for i in $(seq 150); do
		grep -q "session H from .*: taken up again" "$T/relay-again.log" && break
		"$TRAWL" list H >/dev/null 2>&1
		sleep 0.2
	done
	grep -q "session H from .*: taken up again" "$T/relay-again.log" ||
		fail "the consumer did not reconnect: $(cat "$T/relay-again.log")"
	"$APP" 1 200 5000 >"$T/app.out" & app=$!
	wait "$app" || fail "app 2 failed"
	expect 0 "$TRAWL" stop H
	dir=$(relay_trace H)
	meta=$(find "$dir" -name metadata -path "*/ust/uid/$uid/64-bit/*" 2>/dev/null | head -1)
	[ -n "$meta" ] || { ls -R "$RELAY_OUT" >&2; fail "no trace on relayd after it came back"; finish; }
	chunk_check "$(dirname "$meta")" "$app"
	"$TRAWL" destroy H >/dev/null 2>&1
	;;
back)
	relayd_start || { fail "relayd did not start"; finish; }
	expect 0 "$TRAWL" create B --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" add-context -u -t vpid
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" || fail "app 1 failed"
	kill -9 "$RELAY_PID"
	wait "$RELAY_PID" 2>/dev/null
	"$RELAYD" -o "$RELAY_OUT" -C "tcp://127.0.0.1:$CTRL_PORT" -D "tcp://127.0.0.1:$DATA_PORT" \
		-L tcp://127.0.0.1:0 2>"$T/relay-again.log" &
	RELAY_PIDS+=("$!")
	for i in $(seq 100); do grep -q "control port" "$T/relay-again.log" && break; sleep 0.05; done
	grep -q "control port" "$T/relay-again.log" || fail "relayd did not come back: $(cat "$T/relay-again.log")"
	# the consumer (asked by `trawl list`: an idle one tries relayd again
	# then) and the daemon (on its own) connect again; no timing assumed,
	# at most 60 s
	for i in $(seq 300); do
		grep -q "session B from .*: taken up again" "$T/relay-again.log" &&
			grep -q "session B: connected to trawl-relayd at .* again" "$T"/*/sessiond.log && break
		"$TRAWL" list B >/dev/null 2>&1
		sleep 0.2
	done
	grep -q "session B from .*: taken up again" "$T/relay-again.log" ||
		fail "the consumer did not reconnect: $(cat "$T/relay-again.log")"
	grep -q "session B: connected to trawl-relayd at .* again" "$T"/*/sessiond.log ||
		fail "the session daemon did not connect to relayd again: $(grep -h "session B" "$T"/*/sessiond.log)"
	"$APP" 1 200 5000 >"$T/app.out" & app=$!
	wait "$app" || fail "app 2 failed"
	expect 0 "$TRAWL" rotate B
	grep -q "^Trace chunk archive for session B is now readable on relay tcp://127.0.0.1/$(hostname)/B-[0-9]*-[0-9]*/archives/[0-9T+-]* \[control port $CTRL_PORT, data port $DATA_PORT\]$" "$T/out" ||
		fail "rotate after relayd came back: not LTTng's line: $(cat "$T/out") $(cat "$T/err")"
	dir=$(relay_trace B)
	arch=$(ls -d "$dir"/archives/*-0 2>/dev/null | head -1)
	[ -n "$arch" ] || { ls -R "$RELAY_OUT" >&2; fail "no archive of chunk 0 on relayd"; finish; }
	babeltrace2 "$arch" >"$T/bt.txt" 2>"$T/bt.err" || fail "babeltrace2 $arch: $(cat "$T/bt.err")"
	[ -s "$T/bt.err" ] && fail "babeltrace2 warned on $arch: $(cat "$T/bt.err")"
	mine=$(grep " tall:seq: " "$T/bt.txt" | grep -Ec "vpid = $app([^0-9]|$)")
	[ "$mine" = 200 ] || fail "the archive holds $mine of app 2's 200 events"
	"$TRAWL" destroy B >/dev/null 2>&1
	;;
pingcut)
	relayd_start || { fail "relayd did not start"; finish; }
	/usr/bin/python3 "$(dirname "$0")/pingcut.py" "$DATA_PORT" "$T/arm" >"$T/proxy.out" 2>"$T/proxy.err" &
	RELAY_PIDS+=("$!")
	for i in $(seq 600); do grep -q "^port " "$T/proxy.out" && break; sleep 0.05; done
	proxy=$(sed -n 's/^port //p' "$T/proxy.out")
	[ -n "$proxy" ] || { fail "pingcut.py did not start: $(cat "$T/proxy.err")"; finish; }
	expect 0 "$TRAWL" create P --set-url "net://127.0.0.1:$CTRL_PORT:$proxy"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" add-context -u -t vpid
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" & app=$!
	wait "$app" || fail "app failed"
	# the rotation's packets reach relayd, its PING does not: the connection ends there
	touch "$T/arm"
	expect 0 "$TRAWL" rotate P
	grep -qx cut "$T/proxy.out" || fail "pingcut.py did not cut the connection at the PING"
	grep -q "^Trace chunk archive for session P is now readable on relay " "$T/out" ||
		fail "rotate after the lost PING: not LTTng's line: $(cat "$T/out") $(cat "$T/err")"
	dir=$(relay_trace P)
	arch=$(ls -d "$dir"/archives/*-0 2>/dev/null | head -1)
	[ -n "$arch" ] || { ls -R "$RELAY_OUT" >&2; fail "no archive of chunk 0 on relayd"; finish; }
	chunk_check "$arch" "$app"
	"$TRAWL" destroy P >/dev/null 2>&1
	;;
conskill)
	relayd_start || { fail "relayd did not start"; finish; }
	expect 0 "$TRAWL" create Q --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" add-context -u -t vpid
	expect 0 "$TRAWL" start
	# (1 MiB sub-buffers: the 200 events of each run stay in the buffers until the rotate)
	"$APP" 1 200 5000 >"$T/app.out" || fail "app 1 failed"
	sd=$(cat "$T"/*/sessiond.lock 2>/dev/null | head -1)
	cons=$(pgrep -P "$sd" -x trawl-consumerd)
	[ -n "$cons" ] || { fail "no consumer under the session daemon ($sd)"; finish; }
	kill -9 "$cons"
	for i in $(seq 150); do
		grep -q "consumer started again" "$T"/*/sessiond.log && break
		"$TRAWL" list Q >/dev/null 2>&1
		sleep 0.2
	done
	grep -q "consumer started again" "$T"/*/sessiond.log ||
		fail "the consumer was not started again: $(grep -h consumer "$T"/*/sessiond.log)"
	"$APP" 1 200 5000 >"$T/app.out" || fail "app 2 failed"
	expect_fail "$TRAWL" rotate Q
	echo "rotate after the consumer's restart said: $(cat "$T/err")"
	one_line_naming "not taken back from trawl-relayd"
	grep -qF "(400 events) lost" "$T/err" || fail "the rotate's line does not count the 400 events lost"
	"$APP" 1 200 5000 >"$T/app.out" & app=$!
	wait "$app" || fail "app 3 failed"
	expect 0 "$TRAWL" stop Q
	dir=$(relay_trace Q)
	cur=$(ls -d "$dir"/[0-9]*T*-1 2>/dev/null)
	[ -n "$cur" ] || { ls -R "$dir" >&2; fail "no chunk 1 folder"; finish; }
	chunk_check "$cur" "$app"
	"$TRAWL" destroy Q >/dev/null 2>&1
	;;
killpid)
	relayd_start || { fail "relayd did not start"; finish; }
	expect 0 "$TRAWL" create KP --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-channel -u --buffers-pid chp
	expect 0 "$TRAWL" enable-event -u tall:seq -c chp
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" || fail "app failed"
	kill -9 "$RELAY_PID"
	wait "$RELAY_PID" 2>/dev/null
	expect_fail "$TRAWL" rotate KP
	echo "rotate with relayd gone said: $(cat "$T/err")"
	one_line_naming "trawl-relayd"
	grep -q "readable" "$T/out" && fail "rotate printed an archive on the dead relayd: $(cat "$T/out")"
	"$TRAWL" destroy KP >/dev/null 2>&1
	;;
pid)
	relayd_start || { fail "relayd did not start"; finish; }
	expect 0 "$TRAWL" create P --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-channel -u --buffers-pid chp
	expect 0 "$TRAWL" enable-event -u tall:seq -c chp
	expect 0 "$TRAWL" add-context -u -t vpid -c chp
	expect 0 "$TRAWL" start
	pids=()
	for round in 0 1; do
		"$APP" 1 200 5000 >"$T/app.out" & app=$!
		wait "$app" || fail "app of round $round failed"
		pids+=("$app")
		expect 0 "$TRAWL" rotate P
		dir=$(relay_trace P)
		[ -n "$dir" ] || { ls -R "$RELAY_OUT" >&2; fail "no P-YYYYMMDD-HHMMSS folder"; finish; }
		next=$((round + 1))
		[ -n "$(ls -d "$dir"/[0-9]*T*-$next 2>/dev/null)" ] ||
			fail "rotation $round: no folder for chunk $next: $(ls -A "$dir")"
	done
	# chunk 2: no app in it, an empty archive
	expect 0 "$TRAWL" rotate P
	expect 0 "$TRAWL" stop
	expect 0 "$TRAWL" rotate P
	expect 0 "$TRAWL" destroy P
	grep -q "archive" "$T/out" && fail "destroy after a rotation while stopped archived again: $(cat "$T/out")"
	mapfile -t arch < <(ls -d "$dir"/archives/* 2>/dev/null | sort -t- -k3 -n)
	[ "${#arch[@]}" = 4 ] || { ls -R "$dir" >&2; fail "expected 4 archives, got ${#arch[@]}"; finish; }
	for i in 0 1; do
		[ "$(ls "${arch[$i]}/ust/pid" | wc -l)" = 1 ] ||
			fail "archive $i: expected one app's trace: $(ls -R "${arch[$i]}")"
		chunk_check "${arch[$i]}" "${pids[$i]}"
	done
	for i in 2 3; do
		[ -z "$(ls -A "${arch[$i]}")" ] || fail "archive $i is not empty: $(ls -R "${arch[$i]}")"
	done
	[ "$(ls -A "$dir")" = archives ] || fail "session folder holds more than archives/: $(ls -A "$dir")"
	;;
noclear)
	TRAWL_RELAYD_DISALLOW_CLEAR=1 relayd_start || { fail "relayd did not start"; finish; }
	expect 0 "$TRAWL" create N --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" add-context -u -t vpid
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" & app=$!
	wait "$app" || fail "app failed"
	expect_fail "$TRAWL" clear N
	one_line_naming "trawl-relayd refuses to clear session 'N'"
	expect 0 "$TRAWL" destroy N
	chunk_check "$(relay_trace N)" "$app"
	;;
clearpid)
	relayd_start || { fail "relayd did not start"; finish; }
	expect 0 "$TRAWL" create CP --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-channel -u --buffers-pid chp
	expect 0 "$TRAWL" enable-event -u tall:seq -c chp
	expect 0 "$TRAWL" add-context -u -t vpid -c chp
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" || fail "app 1 failed"
	dir=$(relay_trace CP)
	[ -n "$dir" ] || { ls -R "$RELAY_OUT" >&2; fail "no CP-YYYYMMDD-HHMMSS folder"; finish; }
	expect 0 "$TRAWL" stop
	[ -n "$(find "$dir/ust/pid" -type f -name metadata)" ] || fail "no trace before the clear"
	expect 0 "$TRAWL" clear CP
	[ -z "$(ls -A "$dir")" ] || fail "session folder not empty after the clear: $(ls -RA "$dir")"
	expect 0 "$TRAWL" start
	"$APP" 1 200 5000 >"$T/app.out" & app=$!
	wait "$app" || fail "app 2 failed"
	expect 0 "$TRAWL" destroy CP
	chunk_check "$dir" "$app"
	;;
live)
	relayd_start || { fail "relayd did not start"; finish; }
	expect 0 "$TRAWL" create L --live=200000 --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	expect_fail "$TRAWL" rotate L
	one_line_naming "Rotation feature not available for this session's creation mode"
	expect_fail "$TRAWL" enable-rotation --timer 1s -s L
	one_line_naming "Rotation feature not available for this session's creation mode"
	expect 0 "$TRAWL" destroy L
	;;
*)
	fail "unknown case $case"
	;;
esac
finish
