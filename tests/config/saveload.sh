#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trawl save / load and trawl-sessiond's autoload, through real daemons,
# with LTTng 2.13's session.xsd (xmllint), babeltrace2 and real LTTng
# (lttng-sessiond run by a test user with a private HOME) as the oracles:
#   xsd        sessions with every feature trawl saves (channel attributes,
#              filters, log levels, contexts, trackers, rotation, snapshot
#              outputs, no output): save -a is valid against session.xsd;
#              default folder, -f, the file's mode
#   roundtrip  save, destroy, load, start: the same list, the same events in
#              babeltrace2 as before; --override-name / --override-url; the
#              loaded session becomes the current one
#   lttng2trawl  a file saved by LTTng 2.13 loads in trawl and traces
#   trawl2lttng  a file saved by trawl loads in LTTng (`lttng load`), whose
#              `lttng list` shows the same channels and events
#   live       a live session streaming to trawl-relayd: saved as LTTng's
#              <net_output> (tcp4:// URLs) and live timer, loaded back, traces;
#              one with trace file limits and two events of one name, log
#              levels apart, the second disabled with range log level -1 (as
#              LTTng's load-42-complex.lttng): loads, the first enabled
#   autoload   trawl-sessiond loads $HOME/.lttng/sessions/auto at start (a
#              started session traces), and --load PATH
#   errors     malformed XML, unknown elements, a DOCTYPE, a name clash
#              without -f, a session not in the files, bad options: one line
#              each, a non-zero exit, nothing made
. "$(dirname "$0")/../relayd/lib.sh"
APP=$BIN/ust-app-all
XSD=/usr/share/xml/lttng/session.xsd
case=${1:?case}

need_app() { [ -x "$APP" ] || { echo "SKIP: ust-app-all not built"; exit 77; }; }
need_bt2() { command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 missing"; exit 77; }; }
need_xsd() {
	[ -r "$XSD" ] && command -v xmllint >/dev/null ||
		{ echo "SKIP: $XSD or xmllint missing (lttng-tools, libxml2-utils)"; exit 77; }
}
xsd_ok() { # FILE...
	xmllint --noout --schema "$XSD" "$@" >"$T/xmllint.out" 2>&1 ||
		fail "not valid against session.xsd: $(cat "$T/xmllint.out")"
}
count() { grep -c " $1: " "$2"; }
# Stops this test's daemons and waits until they are gone, so that the next
# one started takes the lock (a dying one still holding it would make the
# next exit at once, "another daemon serves").
stop_daemons() {
	local f pids=() p i
	for f in "$TRAWL_RUNTIME_DIR/sessiond.lock" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock"; do
		[ -f "$f" ] && pids+=("$(cat "$f")")
	done
	for p in "${pids[@]}"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		for i in $(seq 600); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
	done
}
# The events of a trace, as babeltrace2 reads it: NAME COUNT per line.
bt_events() { # DIR OUT
	babeltrace2 "$1" >"$T/bt.txt" 2>"$T/bt.err" || fail "babeltrace2 $1: $(cat "$T/bt.err")"
	[ -s "$T/bt.err" ] && fail "babeltrace2 warned: $(cat "$T/bt.err")"
	sed -E 's/^[^]]*\] \(\+[^)]*\) [^ ]+ ([^:]+:[^:]+): .*/\1/' "$T/bt.txt" | sort | uniq -c >"$2"
}

# A session with what trawl saves in user space; $1 its name, $2 its folder.
make_ust_session() {
	expect 0 "$TRAWL" create "$1" -o "$2" || return 1
	expect 0 "$TRAWL" enable-channel -u -s "$1" big --subbuf-size 64k --num-subbuf 8 \
		--switch-timer 100000 --read-timer 50000 --overwrite --tracefile-size 256k \
		--tracefile-count 4
	expect 0 "$TRAWL" enable-channel -u -s "$1" chan
	expect 0 "$TRAWL" enable-event -u -s "$1" -c chan tall:seq --filter 'n >= 0 && n < 1000000'
	expect 0 "$TRAWL" enable-event -u -s "$1" -c chan tall:ints
	expect 0 "$TRAWL" enable-event -u -s "$1" -c big 'tall:*' --loglevel TRACE_WARNING
	expect 0 "$TRAWL" enable-event -u -s "$1" -c big tall:string --loglevel-only TRACE_INFO
	# (not for LTTng 2.13.9 to load: its session daemon dies listing a
	# session loaded with exclusions, even from its own save)
	[ "${NO_EXCL:-}" ] || expect 0 "$TRAWL" enable-event -u -s "$1" -c big 'tall:a*' --exclude 'tall:arrays'
	expect 0 "$TRAWL" add-context -u -s "$1" -c chan -t vpid -t procname
	expect 0 "$TRAWL" disable-event -u -s "$1" -c big tall:string
}

case $case in
xsd)
	need_xsd
	make_ust_session s1 "$T/tr1"
	expect 0 "$TRAWL" add-context -u -s s1 -c big -t perf:thread:page-fault ||
		echo "note: no perf counter context here" >&2
	expect 0 "$TRAWL" track -u -s s1 --vpid 1,2,3
	expect 0 "$TRAWL" track -u -s s1 --vuid 0
	expect 0 "$TRAWL" enable-rotation -s s1 --timer 10s
	expect 0 "$TRAWL" enable-rotation -s s1 --size 64M
	kernel=0
	if "$TRAWL" enable-channel -k -s s1 kc --subbuf-size 256k >/dev/null 2>&1; then
		kernel=1
		expect 0 "$TRAWL" enable-event -k -s s1 -c kc sched_switch --filter 'prev_pid != 0'
		expect 0 "$TRAWL" enable-event -k -s s1 -c kc --syscall openat,close
		expect 0 "$TRAWL" add-context -k -s s1 -c kc -t pid -t prio
		# LTTng's --output: a kernel channel splices unless asked for mmap
		expect 0 "$TRAWL" enable-channel -k -s s1 km --output mmap
	else
		echo "note: no kernel domain here: user space only" >&2
	fi
	expect 0 "$TRAWL" create s2 --snapshot -o "$T/snap"
	expect 0 "$TRAWL" enable-event -u -s s2 -a
	if [ $kernel = 1 ]; then
		# LTTng's rule: a snapshot session's kernel channels map, whatever is asked
		expect 0 "$TRAWL" enable-channel -k -s s2 ksnap --output splice
		expect 0 "$TRAWL" list s2
		grep -q '^      Output mode:      mmap$' "$T/out" || fail "snapshot kernel channel: $(grep 'Output mode' "$T/out")"
	fi
	expect 0 "$TRAWL" create s3 --no-output
	expect 0 "$TRAWL" enable-event -u -s s3 'a&b<c>"d' --filter 'x == "<&>"'
	expect 0 "$TRAWL" save -a -o "$T/saved"
	grep -qx "All sessions have been saved successfully in $T/saved." "$T/out" || fail "save -a: $(cat "$T/out")"
	for s in s1 s2 s3; do [ -f "$T/saved/$s.lttng" ] || fail "no $s.lttng"; done
	xsd_ok "$T/saved"/*.lttng
	grep -q '<filter>x == &quot;&lt;&amp;&gt;&quot;</filter>\|<filter>x == "&lt;&amp;&gt;"</filter>' "$T/saved/s3.lttng" ||
		fail "filter not escaped: $(grep filter "$T/saved/s3.lttng")"
	grep -q '<vpid_process_attr_tracker>' "$T/saved/s1.lttng" || fail "no vpid tracker saved"
	grep -q '<exclusions><exclusion>tall:arrays</exclusion></exclusions>' "$T/saved/s1.lttng" ||
		tr -d ' \n\t' <"$T/saved/s1.lttng" | grep -q '<exclusions><exclusion>tall:arrays</exclusion></exclusions>' ||
		fail "exclusions not saved: $(grep -A3 exclusions "$T/saved/s1.lttng")"
	grep -q '<periodic>' "$T/saved/s1.lttng" && grep -q '<size_threshold>' "$T/saved/s1.lttng" ||
		fail "rotation schedules not saved"
	grep -q '<tracefile_size>262144</tracefile_size>' "$T/saved/s1.lttng" &&
		grep -q '<tracefile_count>4</tracefile_count>' "$T/saved/s1.lttng" ||
		fail "trace file limits not saved: $(grep tracefile "$T/saved/s1.lttng")"
	grep -q '<snapshot_mode>true</snapshot_mode>' "$T/saved/s2.lttng" || fail "snapshot mode not saved"
	grep -q "<path>$T/snap</path>" "$T/saved/s2.lttng" || fail "snapshot output not saved"
	grep -q '<enabled>false</enabled>' "$T/saved/s3.lttng" || fail "no-output not saved"
	# Without -f an existing file stays; with -f it is replaced.
	expect 6 "$TRAWL" save s1 -o "$T/saved" && expect_err_line "already exists"
	expect 0 "$TRAWL" save s1 -o "$T/saved" -f
	grep -qx "Session s1 saved successfully in $T/saved." "$T/out" || fail "save -f: $(cat "$T/out")"
	# The default folder is LTTng's, the file mode LTTng's (0660 less the umask).
	(umask 002; "$TRAWL" save s1 >"$T/out" 2>"$T/err") || fail "save s1: $(cat "$T/err")"
	grep -qx "Session s1 saved successfully." "$T/out" || fail "save: $(cat "$T/out")"
	[ "$(stat -c %a "$HOME/.lttng/sessions/s1.lttng")" = 660 ] ||
		fail "mode $(stat -c %a "$HOME/.lttng/sessions/s1.lttng"), wanted 660"
	xsd_ok "$HOME/.lttng/sessions/s1.lttng"
	expect 5 "$TRAWL" save nosuch && expect_err_line "nosuch"
	[ $kernel = 0 ] || grep -q '<type>SYSCALL</type>' "$T/saved/s1.lttng" || fail "no kernel system call rule saved"
	for c in kc:SPLICE km:MMAP chan:MMAP; do
		[ $kernel = 0 ] && [ "${c%%:*}" != chan ] && continue
		got=$(xmllint --xpath "string(//channel[name='${c%%:*}']/output_type)" "$T/saved/s1.lttng")
		[ "$got" = "${c#*:}" ] || fail "channel ${c%%:*} saved with output_type '$got', want ${c#*:}"
	done
	# Loaded back, each session lists as it did.
	for s in s1 s2 s3; do
		expect 0 "$TRAWL" list $s && grep -v -e "Bytes written" -e "Events discarded" -e "Consumer:" "$T/out" >"$T/before.$s"
	done
	expect 0 "$TRAWL" destroy -a
	expect 0 "$TRAWL" load -a -i "$T/saved"
	for s in s1 s2 s3; do
		expect 0 "$TRAWL" list $s && grep -v -e "Bytes written" -e "Events discarded" -e "Consumer:" "$T/out" >"$T/after.$s"
		diff "$T/before.$s" "$T/after.$s" >"$T/diff" || fail "$s lists otherwise once loaded: $(cat "$T/diff")"
	done
	expect 0 "$TRAWL" snapshot list-output -s s2 && grep -q "$T/snap" "$T/out" ||
		fail "s2's snapshot output not loaded: $(cat "$T/out")"
	# A tracker given twice adds its values to the first's, as LTTng 2.13
	# loads its own load-42-trackers.lttng (vpid twice); a value in both is one.
	python3 - "$T/saved/s1.lttng" "$T/dup.lttng" <<-'EOF'
		import re, sys
		s = open(sys.argv[1]).read()
		t = re.search(r'<vpid_process_attr_tracker>.*?</vpid_process_attr_tracker>', s, re.S).group(0)
		t = t.replace('<id>1</id>', '<id>999</id>').replace('<id>2</id>', '<id>1</id>')
		s = s.replace('</process_attr_trackers>', t + '</process_attr_trackers>', 1)
		open(sys.argv[2], 'w').write(s.replace('<name>s1</name>', '<name>dup</name>', 1))
	EOF
	expect 0 "$TRAWL" load -i "$T/dup.lttng" dup
	expect 0 "$TRAWL" list dup
	grep -qx '  Virtual process IDs:  1, 2, 3, 999' "$T/out" ||
		fail "vpid tracker given twice: $(grep -A1 'Tracked process' "$T/out")"
	;;
roundtrip)
	need_app
	need_bt2
	make_ust_session s "$T/tr1"
	expect 0 "$TRAWL" start s
	"$APP" 1 100 5000 || fail "app failed"
	expect_done "$TRAWL" stop s
	expect 0 "$TRAWL" list s && sed 1d "$T/out" | grep -v -e "Trace output" -e "Bytes written" -e "Events discarded" -e "Memory usage" >"$T/list1"
	bt_events "$T/tr1" "$T/ev1"
	grep -q ' tall:seq$' "$T/ev1" || fail "no tall:seq in the first trace: $(cat "$T/ev1")"
	expect 0 "$TRAWL" save s -o "$T/saved"
	expect 0 "$TRAWL" destroy s
	expect 0 "$TRAWL" load s -i "$T/saved" --override-url "$T/tr2"
	grep -qx "Session s has been loaded successfully" "$T/out" || fail "load: $(cat "$T/out")"
	grep -qx "Session output url overridden with $T/tr2" "$T/out" || fail "load: $(cat "$T/out")"
	expect 0 "$TRAWL" list s && sed 1d "$T/out" | grep -v -e "Trace output" -e "Bytes written" -e "Events discarded" -e "Memory usage" >"$T/list2"
	diff "$T/list1" "$T/list2" >"$T/diff" || fail "list differs after load: $(cat "$T/diff")"
	expect 0 "$TRAWL" status && grep -q "Recording session s:" "$T/out" ||
		fail "the loaded session is not the current one: $(cat "$T/out")"
	expect 0 "$TRAWL" start
	"$APP" 1 100 5000 || fail "app failed"
	expect_done "$TRAWL" stop
	bt_events "$T/tr2" "$T/ev2"
	diff "$T/ev1" "$T/ev2" >"$T/diff" || fail "events differ after load: $(cat "$T/diff")"
	# Another name, the file's output; a started session starts when loaded.
	expect 0 "$TRAWL" start s
	expect 0 "$TRAWL" save s -o "$T/saved" -f
	grep -q '<started>true</started>' "$T/saved/s.lttng" || fail "started not saved"
	expect 0 "$TRAWL" load s -i "$T/saved/s.lttng" --override-name t
	grep -qx "Session name overridden with t" "$T/out" || fail "load: $(cat "$T/out")"
	expect 0 "$TRAWL" list t && grep -q "t: \[active\]" "$T/out" || fail "t not active: $(cat "$T/out")"
	# (s was loaded with --override-url $T/tr2: a folder URL, its path
	# "$T/tr2/" as LTTng's, saved so)
	grep -q "Trace output: $T/tr2/$" "$T/out" || fail "t's output is not the file's: $(cat "$T/out")"
	expect 0 "$TRAWL" destroy -a
	;;
lttng2trawl | trawl2lttng)
	[ "$(id -u)" = 0 ] && [ -x /usr/bin/lttng-sessiond ] && command -v runuser >/dev/null ||
		{ echo "SKIP: needs root (a test user runs LTTng) and lttng-tools"; exit 77; }
	need_xsd
	u=trawlsl$$
	mkuser "$u" || { echo "SKIP: cannot make a user"; exit 77; }
	LH=$T/$u
	lt() { runuser -u "$u" -- env -i PATH=/usr/bin:/bin HOME="$LH" LTTNG_HOME="$LH" lttng "$@"; }
	runuser -u "$u" -- env -i PATH=/usr/bin:/bin HOME="$LH" LTTNG_HOME="$LH" \
		lttng-sessiond --daemonize --no-kernel >"$T/lt.out" 2>&1 ||
		{ fail "lttng-sessiond: $(cat "$T/lt.out")"; finish; }
	ltpid=$(cat "$LH/.lttng/lttng-sessiond.pid")
	stop_lttng() { kill "$ltpid" 2>/dev/null; for _ in $(seq 600); do kill -0 "$ltpid" 2>/dev/null || break; sleep 0.1; done; }
	if [ "$case" = lttng2trawl ]; then
		need_app
		need_bt2
		lt create s -o "$LH/lt" >"$T/out" 2>&1 &&
			lt enable-channel -u chan --subbuf-size 128k --num-subbuf 4 --overwrite \
				--tracefile-size 512k --tracefile-count 2 >>"$T/out" 2>&1 &&
			lt enable-event -u -c chan tall:seq --filter 'n >= 10' >>"$T/out" 2>&1 &&
			lt enable-event -u -c chan tall:ints --loglevel TRACE_DEBUG >>"$T/out" 2>&1 &&
			lt enable-event -u -c chan 'tall:e*' -x tall:enums >>"$T/out" 2>&1 &&
			lt add-context -u -c chan -t vpid -t procname >>"$T/out" 2>&1 &&
			lt save s -o "$LH/saved" >>"$T/out" 2>&1 || fail "lttng: $(cat "$T/out")"
		stop_lttng
		xsd_ok "$LH/saved/s.lttng"
		expect 0 "$TRAWL" load -i "$LH/saved/s.lttng" --override-url "$T/tr"
		expect 0 "$TRAWL" list s
		for re in '^- chan: \[enabled\]' 'Event-loss mode: +overwrite' \
			'Sub-buffer size: +131072 bytes' 'Sub-buffer count: +4' \
			"tall:seq .*filter: '?n >= 10'?\]" 'tall:seq \(type: tracepoint\).*\[enabled\]' \
			'tall:ints .*loglevel <= TRACE_DEBUG.*\[enabled\]' 'Context: vpid, procname' \
			'tall:e\* .*\[exclusions: tall:enums\]' 'Trace file count: 2 per stream' \
			'Trace file size:  524288 bytes'; do
			grep -qE -- "$re" "$T/out" || fail "trawl's list lacks /$re/: $(cat "$T/out")"
		done
		expect 0 "$TRAWL" start s
		"$APP" 1 100 5000 || fail "app failed"
		expect_done "$TRAWL" stop s
		bt_events "$T/tr" "$T/ev"
		grep -q ' 90 tall:seq$' "$T/ev" || fail "wanted 90 tall:seq (n >= 10 of 100): $(cat "$T/ev")"
		grep -q 'vpid = ' "$T/bt.txt" || fail "no vpid context in the trace"
	else
		NO_EXCL=1 make_ust_session s "$LH/tr"
		expect 0 "$TRAWL" track -u -s s --vpid 4242
		expect 0 "$TRAWL" save s -o "$T/saved"
		xsd_ok "$T/saved/s.lttng"
		expect 0 "$TRAWL" list s && cp "$T/out" "$T/mine"
		chmod 755 "$T/saved" && chmod 644 "$T/saved/s.lttng"
		lt load -i "$T/saved/s.lttng" --override-url "$LH/ltout" >"$T/out" 2>&1 ||
			fail "lttng load: $(cat "$T/out")"
		lt list s >"$T/theirs" 2>&1 || fail "lttng list: $(cat "$T/theirs")"
		# LTTng 2.13's list has no contexts: its own save of what it loaded does.
		lt save s -o "$LH/resaved" >"$T/out" 2>&1 || fail "lttng save: $(cat "$T/out")"
		stop_lttng
		for ctx in VPID PROCNAME; do
			grep -q "<type>$ctx</type>" "$LH/resaved/s.lttng" || fail "LTTng lost context $ctx"
		done
		# The same channels, attributes, rules and trackers in both lists.
		for f in "$T/theirs" "$T/mine"; do
			for re in '^- big: \[enabled\]' '^- chan: \[enabled\]' \
				'Event-loss mode: +overwrite' 'Sub-buffer size: +65536 bytes' \
				'Sub-buffer count: +8' 'Switch timer: +100000 ' 'Read timer: +50000 ' \
				'tall:seq \(type: tracepoint\).*\[enabled\]' \
				"tall:seq .*filter: '?n >= 0 && n < 1000000'?\]" \
				'tall:ints \(type: tracepoint\) \[enabled\]' \
				'tall:\* .*\(loglevel <= TRACE_WARNING( \(4\))?\).*\[enabled\]' \
				'tall:string .*\(loglevel == TRACE_INFO( \(6\))?\).*\[disabled\]' \
				'Virtual process IDs: +4242' 'Trace file count: 4 per stream' \
				'Trace file size:  262144 bytes'; do
				grep -qE -- "$re" "$f" || fail "$(basename "$f") lacks /$re/: $(cat "$f")"
			done
		done
	fi
	;;
live)
	need_xsd
	need_app
	need_bt2
	relayd_start || { fail "trawl-relayd did not start"; finish; }
	expect 0 "$TRAWL" create l --live=200000 --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-event -u -s l tall:seq
	expect 0 "$TRAWL" save l -o "$T/saved"
	xsd_ok "$T/saved/l.lttng"
	for want in "<control_uri>tcp4://127.0.0.1:$CTRL_PORT/</control_uri>" \
		"<data_uri>tcp4://127.0.0.1:$DATA_PORT/</data_uri>" \
		"<live_timer_interval>200000</live_timer_interval>"; do
		grep -qF "$want" "$T/saved/l.lttng" || fail "l.lttng lacks $want"
	done
	expect 0 "$TRAWL" list l && grep -v -e "Bytes written" -e "Events discarded" "$T/out" >"$T/before"
	expect 0 "$TRAWL" destroy l
	expect 0 "$TRAWL" load l -i "$T/saved"
	expect 0 "$TRAWL" list l && grep -v -e "Bytes written" -e "Events discarded" "$T/out" >"$T/after"
	diff "$T/before" "$T/after" >"$T/diff" || fail "l lists otherwise once loaded: $(cat "$T/diff")"
	expect 0 "$TRAWL" start l
	"$APP" 1 100 5000 || fail "app failed"
	expect_done "$TRAWL" stop l
	expect 0 "$TRAWL" destroy l
	# relayd made a folder for each session l (before and after the load):
	# the loaded one's is the one with a trace. relayd writes what it
	# received on its own time: wait for it (a bound, not a delay).
	for _ in $(seq 300); do
		for f in "$RELAY_OUT"/*/l-[0-9]*-[0-9]*; do
			[ "$(babeltrace2 "$f" 2>/dev/null | grep -c " tall:seq: ")" = 100 ] && break 2
		done
		sleep 0.1
	done
	d=$(ls -d "$RELAY_OUT"/*/l-[0-9]*-[0-9]* | while read -r f; do
		[ -n "$(find "$f" -name metadata)" ] && echo "$f"; done)
	[ "$(echo "$d" | grep -c .)" = 1 ] || fail "wanted one trace of l at relayd: $d"
	[ -n "$d" ] && bt_events "$d" "$T/ev" && grep -q ' 100 tall:seq$' "$T/ev" ||
		fail "the loaded live session's trace at relayd lacks 100 tall:seq: $d $(cat "$T/ev" 2>/dev/null)"
	# a live session with trace file limits, and an event whose range log
	# level is -1 (LTTng-UST matches every level), as LTTng's own session
	# files have them: loaded as LTTng loads them
	expect 0 "$TRAWL" create l2 --live=200000 --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
	expect 0 "$TRAWL" enable-channel -u -s l2 c --tracefile-size 1M --tracefile-count 4
	expect 0 "$TRAWL" enable-event -u -s l2 -c c tall:seq --loglevel TRACE_INFO
	expect 0 "$TRAWL" enable-event -u -s l2 -c c tall:seq
	expect 0 "$TRAWL" save l2 -o "$T/saved2"
	expect 0 "$TRAWL" destroy l2
	# the second tall:seq (all levels): saved as LTTng's RANGE of -1, disabled
	/usr/bin/python3 - "$T/saved2/l2.lttng" <<'PY' || fail "cannot edit l2.lttng"
import re, sys
p = sys.argv[1]
s = open(p).read()
evs = [m for m in re.finditer(r"<event>.*?</event>", s, re.S)
       if "<name>tall:seq</name>" in m.group(0) and "<loglevel_type>ALL" in m.group(0)]
assert len(evs) == 1, evs
e = evs[0].group(0).replace("<enabled>true</enabled>", "<enabled>false</enabled>")
e = e.replace("<loglevel_type>ALL</loglevel_type>", "<loglevel_type>RANGE</loglevel_type>")
open(p, "w").write(s[:evs[0].start()] + e + s[evs[0].end():])
PY
	xsd_ok "$T/saved2/l2.lttng"
	expect 0 "$TRAWL" load l2 -i "$T/saved2"
	expect 0 "$TRAWL" list l2
	for want in "Trace file count: 4 per stream" "Trace file size:  1048576 bytes" \
		"tall:seq (loglevel <= TRACE_INFO (6)) (type: tracepoint) [enabled]" \
		"tall:seq (type: tracepoint) [disabled]"; do
		grep -qF -- "$want" "$T/out" || fail "loaded l2 lacks '$want': $(cat "$T/out")"
	done
	expect 0 "$TRAWL" destroy l2
	;;
autoload)
	need_app
	need_bt2
	make_ust_session a "$T/tra"
	expect 0 "$TRAWL" start a
	expect 0 "$TRAWL" save a -o "$HOME/.lttng/sessions/auto"
	make_ust_session b "$T/trb"
	expect 0 "$TRAWL" save b -o "$T/other"
	expect 0 "$TRAWL" destroy -a
	stop_daemons
	expect 0 "$BIN/trawl-sessiond" --daemonize
	expect 0 "$TRAWL" list
	grep -q " a \[active\]" "$T/out" || fail "a not autoloaded and started: $(cat "$T/out")"
	grep -q " b " "$T/out" && fail "b loaded from elsewhere: $(cat "$T/out")"
	"$APP" 1 100 5000 || fail "app failed"
	expect_done "$TRAWL" stop a
	bt_events "$T/tra" "$T/ev"
	grep -q ' tall:seq$' "$T/ev" || fail "the autoloaded session traced nothing: $(cat "$T/ev")"
	expect 0 "$TRAWL" destroy -a
	stop_daemons
	expect 0 "$BIN/trawl-sessiond" --daemonize --load "$T/other/b.lttng"
	expect 0 "$TRAWL" list
	grep -q " b \[inactive\]" "$T/out" || fail "b not loaded by --load: $(cat "$T/out")"
	grep -q " a " "$T/out" && fail "a autoloaded besides --load: $(cat "$T/out")"
	expect 0 "$TRAWL" destroy -a
	stop_daemons
	expect 0 "$BIN/trawl-sessiond" --daemonize --no-autoload
	expect 0 "$TRAWL" list && grep -q "no available recording session" "$T/out" ||
		fail "--no-autoload loaded: $(cat "$T/out")"
	;;
errors)
	need_xsd
	mkdir -p "$T/f"
	make_ust_session s "$T/tr"
	expect 0 "$TRAWL" save s -o "$T/f"
	good=$T/f/s.lttng
	printf '<sessions><session><name>x</name>' >"$T/trunc.lttng"
	expect 7 "$TRAWL" load -i "$T/trunc.lttng" && expect_err_line "malformed XML"
	sed 's|<enabled>true</enabled>|<enabled>true</enabled><colour>red</colour>|' "$good" >"$T/unknown.lttng"
	expect 7 "$TRAWL" load -i "$T/unknown.lttng" && expect_err_line "unknown element <colour>"
	grep -q ":[0-9]*: unknown element" "$T/err" || fail "no line number: $(cat "$T/err")"
	sed 's|<subbuffer_size>65536</subbuffer_size>|<subbuffer_size>-1</subbuffer_size>|' "$good" >"$T/neg.lttng"
	expect 7 "$TRAWL" load -i "$T/neg.lttng" && expect_err_line "subbuffer_size"
	{ echo '<?xml version="1.0"?><!DOCTYPE sessions [<!ENTITY a "aaaa">]>'; sed 1d "$good"; } >"$T/dtd.lttng"
	expect 7 "$TRAWL" load -i "$T/dtd.lttng" && expect_err_line "DOCTYPE"
	sed 's|<type>UST</type>|<type>JUL</type>|' "$good" >"$T/jul.lttng"
	expect 7 "$TRAWL" load -i "$T/jul.lttng" && expect_err_line "JUL domain"
	expect 0 "$TRAWL" list s && before=$(cat "$T/out")
	expect 6 "$TRAWL" load -i "$good" && expect_err_line "s"
	expect 0 "$TRAWL" list s
	[ "$(cat "$T/out")" = "$before" ] || fail "a failed load changed s: $(cat "$T/out")"
	expect 0 "$TRAWL" load -i "$good" -f
	expect 5 "$TRAWL" load nosuch -i "$T/f" && expect_err_line "nosuch"
	expect 5 "$TRAWL" load -i "$T/nowhere" && expect_err_line "nowhere"
	# save -f replaces what has the file's name, never writes through it.
	mkdir -p "$T/trap" && echo precious >"$T/target" && ln -s "$T/target" "$T/trap/s.lttng"
	expect 6 "$TRAWL" save s -o "$T/trap" && expect_err_line "already exists"
	expect 0 "$TRAWL" save s -o "$T/trap" -f
	[ "$(cat "$T/target")" = precious ] || fail "save -f wrote through a link"
	[ -L "$T/trap/s.lttng" ] && fail "save -f left the link in place"
	xsd_ok "$T/trap/s.lttng"
	expect 2 "$TRAWL" load -a --override-name x && expect_err_line "--override-name"
	expect 2 "$TRAWL" load a b && expect_err_line "unknown argument"
	expect 2 "$TRAWL" save a b && expect_err_line "unknown argument"
	expect 0 "$TRAWL" list && [ "$(grep -c ' \[' "$T/out")" = 1 ] || fail "sessions made by failed loads: $(cat "$T/out")"
	;;
*)
	echo "unknown case $case" >&2
	exit 2
	;;
esac
finish
