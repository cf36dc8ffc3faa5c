#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A kernel + user-space session streamed to trawl-relayd: the kernel consumer
# (root daemon) and the user-space consumer each stream their trace and
# relayd puts both in the session's one folder (kernel/, ust/uid/0/64-bit/);
# babeltrace2 reads the known syscall with its values and the app's events,
# without warnings, and trawl view prints the same. Then relayd is killed
# while a live kernel session streams: status reports it, stop counts the
# events lost (exit != 0), destroy works, what relayd received stays
# readable. No consumer's command line shows the session's relayd token.
# Root only.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: kernel tracing needs root"; exit 77; }
[ -d /sys/kernel/tracing/instances ] || [ -d /sys/kernel/debug/tracing/instances ] ||
	{ echo "SKIP: no tracefs"; exit 77; }
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 missing"; exit 77; }
PROG=$BIN/ksyscalls
APP=$BIN/ust-app-all
[ -x "$PROG" ] && [ -x "$APP" ] || { echo "SKIP: ksyscalls or ust-app-all not built"; exit 77; }

relayd_start || { fail "relayd did not start"; finish; }
url=net://127.0.0.1:$CTRL_PORT:$DATA_PORT
expect 0 "$TRAWL" create KS --set-url "$url"
expect 0 "$TRAWL" enable-event --kernel --syscall lseek
expect 0 "$TRAWL" enable-event --userspace tall:seq
expect 0 "$TRAWL" start
# the session's relayd token lets a peer of relayd take up its files: no
# command line, which every local user can read, may show it
# (this test's daemon's consumers only: their parent holds a lock file of $T)
sd=$(cat "$T"/*/sessiond.lock "$T"/*/*/sessiond.lock 2>/dev/null | tr '\n' ' ')
ps -eo ppid=,args= | awk -v sd=" $sd" 'index(sd, " " $1 " ") && /trawl-consumerd/' >"$T/ps.txt"
grep -q -- "--kernel" "$T/ps.txt" || fail "no kernel consumer running: $(cat "$T/ps.txt")"
grep -q "relay:" "$T/ps.txt" && fail "a consumer's command line shows the relay token: $(grep relay: "$T/ps.txt")"
"$PROG" known >"$T/prog.out" || fail "ksyscalls failed"
"$APP" 1 100 5000 || fail "app failed"
expect 0 "$TRAWL" stop
expect 0 "$TRAWL" list KS && grep -q "$url" "$T/out" || fail "list does not show the URL"
expect 0 "$TRAWL" destroy
dir=$(relay_trace KS)
[ -n "$dir" ] || { ls -R "$RELAY_OUT" >&2; fail "no KS folder in relayd's output"; finish; }
[ -f "$dir/kernel/metadata" ] || fail "no kernel/metadata"
ls "$dir"/kernel/index/*.idx >/dev/null 2>&1 || fail "no kernel index files"
[ -f "$dir/ust/uid/0/64-bit/metadata" ] || fail "no ust/uid/0/64-bit/metadata"
babeltrace2 "$dir" >"$T/bt.txt" 2>"$T/bt.err" || fail "babeltrace2: $(cat "$T/bt.err")"
[ -s "$T/bt.err" ] && fail "babeltrace2 warned: $(cat "$T/bt.err")"
grep "syscall_entry_lseek" "$T/bt.txt" | grep -q "fd = 1000, offset = 4242" ||
	fail "the known lseek(1000, 4242) is missing: $(grep lseek "$T/bt.txt" | head -3)"
grep "syscall_exit_lseek" "$T/bt.txt" | grep -q "ret = -9" || fail "lseek's exit (-EBADF) is missing"
[ "$(grep -c " tall:seq: " "$T/bt.txt")" = 100 ] || fail "expected 100 tall:seq"
"$TRAWL" view "$dir" >"$T/view.txt" 2>"$T/view.err" || fail "trawl view: $(cat "$T/view.err")"
cmp -s "$T/view.txt" "$T/bt.txt" || fail "trawl view differs from babeltrace2"

# relayd killed while a kernel session streams: status says so, the stop
# says what was lost (exit != 0), the session goes cleanly, what relayd got
# stays readable
relayd_start relay2 || { fail "relayd did not start"; finish; }
expect 0 "$TRAWL" create KK --live=100000 --set-url "net://127.0.0.1:$CTRL_PORT:$DATA_PORT"
expect 0 "$TRAWL" enable-event --kernel --syscall lseek,getppid
expect 0 "$TRAWL" start
"$PROG" known >/dev/null || fail "ksyscalls failed"
for i in $(seq 100); do
	d=$(relay_trace KK)
	# this program's lseek, not any: other programs' reach the trace too
	[ -n "$d" ] && babeltrace2 "$d" 2>/dev/null | grep -q "fd = 1000, offset = 4242" && break
	sleep 0.1
done
kill -9 "$RELAY_PID"
wait "$RELAY_PID" 2>/dev/null
"$PROG" known >/dev/null || fail "ksyscalls failed after relayd died"
expect 0 "$TRAWL" status
grep -q "trawl-relayd at net://127.0.0.1:$CTRL_PORT:$DATA_PORT closed the session's connection" "$T/out" ||
	fail "status does not report the lost relayd: $(cat "$T/out")"
# the events of the program traced after relayd died are counted lost
expect 11 "$TRAWL" stop && expect_err_line "trawl-relayd at 127.0.0.1:$DATA_PORT stopped"
grep -qE ", [0-9]+ packets? \([1-9][0-9]* events?\) lost" "$T/err" ||
	fail "stop does not count the events lost: $(cat "$T/err")"
expect 0 "$TRAWL" destroy
babeltrace2 "$(relay_trace KK)" >"$T/bt2.txt" 2>"$T/bt2.err" || fail "what relayd got is unreadable: $(cat "$T/bt2.err")"
grep -q "fd = 1000, offset = 4242" "$T/bt2.txt" || fail "the lseek sent before relayd died is missing"
relayd_stop_all
finish
