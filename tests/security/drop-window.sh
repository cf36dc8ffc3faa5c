#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A traced program the daemon drops (it missed its reply deadline) loses
# nothing silently (issue 10): what it records until its agent notices goes
# to its old buffers, which are still read; what it records from then until
# its next registration is set up is counted (libtrawl-ust's tally,
# src/ust/slots.c) and charged to the discarded events of the channel it
# records into again; a program that exits meanwhile hands its counts over
# (TALLY). `trawl stop` says so (exit 11).
#
# With a real user B (not in 'tracing') and the real root daemon
# (--limit app-reply-ms=1000), root's session S recording tall:seq with
# per-user or per-process buffers:
#   1. B's program records N events (set up: recorded);
#   2. its agent thread is stopped (ptrace: freeze-thread.py, the rest of the
#      program runs on) and a second session's start sends it commands it
#      does not answer: the daemon drops it;
#   3. it records M1 events (its agent has not noticed: its old buffers);
#   4. the daemon is stopped (SIGSTOP) and the agent thread resumed: it sees
#      the connection gone and registers again (the daemon cannot set it up
#      yet); once it counts (its tally memfd exists), it records M2 events;
#   5. uid, pid: the daemon resumes and sets the program up; it exits.
#      exit: it exits first (its TALLY), then the daemon resumes.
# S's stop exits 11 saying M2 events were discarded, and why: recorded while
# the program was disconnected from the daemon (its tally), not full buffers
# (the daemon learns that part of a stream's count apart: the ring buffer's
# lost_tally, src/ringbuffer/ringbuffer.h); the trace holds N + M1 read and
# M2 discarded, exactly.
. "$(dirname "$0")/../cli/lib.sh"

MODE=${1:?usage: drop-window.sh uid|pid|exit}
BUF=$MODE
[ "$MODE" = exit ] && BUF=uid
. "$(dirname "$0")/frozen-app.sh"
frozen_app_setup trawldw
N=1000 M1=500 M2=300

expect 0 "$TRAWL" create S -o "$T/r" &&
	expect 0 "$TRAWL" enable-channel -u ch --buffers-$BUF -s S &&
	expect 0 "$TRAWL" enable-event -u tall:seq -c ch -s S &&
	expect 0 "$TRAWL" start S || finish
expect 0 "$TRAWL" create S2 -o "$T/r2" &&
	expect 0 "$TRAWL" enable-channel -u ch2 --buffers-uid -s S2 &&
	expect 0 "$TRAWL" enable-event -u tall:seq -c ch2 -s S2 || finish

# 1. The program, set up: N events recorded, then it waits for lines.
mkfifo "$T/go" && exec 7<>"$T/go" || { echo "FAIL: mkfifo"; exit 1; }
as_user "$B" env LOSS_APP_HOLD=1 LOSS_APP_MORE=1 LOSS_APP_EXIT=1 "$BIN/loss-app" $N 0 3000 3000 \
	<"$T/go" 7>&- >"$T/app.out" 2>"$T/app.err" &
for _ in $(seq 1200); do
	grep -q '^held' "$T/app.out" && break
	sleep 0.1
done
APP=$(sed -n 's/^held //p' "$T/app.out")
[ -n "$APP" ] || { fail "the program did not run: $(cat "$T/app.err")"; finish; }
echo "program $APP: $N events recorded"

# more K COUNT: the program records COUNT events (its K-th batch), and says so.
more() {
	local k=$1
	echo "$2" >&7
	for _ in $(seq 600); do
		[ "$(grep -c '^more' "$T/app.out")" -ge "$k" ] && return 0
		sleep 0.1
	done
	fail "the program did not record its batch $k"
	finish
}

# 2. Its agent thread stopped; S2's start sends it commands: dropped.
"${TRAWL_PYTHON:-python3}" "$(dirname "$0")/freeze-thread.py" "$APP" trawl-ust 7>&- >"$T/frz.out" 2>&1 &
FRZ=$!
for _ in $(seq 600); do
	grep -q '^frozen' "$T/frz.out" && break
	kill -0 "$FRZ" 2>/dev/null || break
	sleep 0.1
done
grep -q '^frozen' "$T/frz.out" || { fail "the agent thread was not stopped: $(cat "$T/frz.out")"; finish; }
"$TRAWL" start S2 >/dev/null 2>&1
for _ in $(seq 600); do
	grep -Eq "app $APP \(.*(dropped|dropping it)" "$LOG" && break
	sleep 0.1
done
grep -Eq "app $APP \(.*(dropped|dropping it)" "$LOG" ||
	{ fail "the program was not dropped: $(grep -v 'ctl:' "$LOG" | tail -20)"; finish; }

# 3. M1 events before the agent notices.
more 1 $M1
echo "program $APP: dropped, $M1 more events recorded before its agent noticed"

# 4. The daemon stopped, the agent resumed: it counts until its setup.
kill -STOP "$PID"
SD=$PID
kill "$FRZ"
wait "$FRZ" 2>/dev/null
FRZ=
for _ in $(seq 300); do
	ls -l "/proc/$APP/fd" 2>/dev/null | grep -q 'memfd:trawl-tally' && break
	sleep 0.1
done
ls -l "/proc/$APP/fd" 2>/dev/null | grep -q 'memfd:trawl-tally' ||
	{ fail "the program does not count after its drop (no tally memfd)"; finish; }
more 2 $M2
echo "program $APP: $M2 events recorded before its new registration is set up"

# 5. Set up again, then it exits; or it exits first.
if [ "$MODE" = exit ]; then
	exec 7>&-
	for _ in $(seq 600); do kill -0 "$APP" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$APP" 2>/dev/null && fail "the program did not exit"
	APP=
	kill -CONT "$PID"
	SD=
else
	kill -CONT "$PID"
	SD=
	# the setup (REGISTRATION_DONE) ends its tally; then it exits
	exec 7>&-
	for _ in $(seq 600); do kill -0 "$APP" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$APP" 2>/dev/null && fail "the program did not exit"
	APP=
fi

expect 11 "$TRAWL" stop S
echo "stop: $(cat "$T/out" "$T/err" | tr '\n' ' ')"
grep -q "$M2 events discarded" "$T/err" "$T/out" ||
	fail "stop does not count the program's $M2 events: $(cat "$T/out" "$T/err")"
grep -q "where they happened: $M2 events recorded while their program was disconnected from the session daemon" "$T/err" ||
	fail "stop does not say the $M2 events were recorded while the program was disconnected: $(cat "$T/err")"
grep -q "buffers too small" "$T/err" && fail "stop blames full buffers: $(cat "$T/err")"
"$TRAWL" stop S2 >/dev/null 2>&1

read -r rd disc < <("${TRAWL_PYTHON:-python3}" - "$T/r" <<'PY'
import glob, sys
import bt2
rd = disc = 0
if glob.glob(sys.argv[1] + "/**/metadata", recursive=True):
    for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):
        if type(m) is bt2._EventMessageConst and m.event.name == "tall:seq":
            rd += 1
        elif type(m) is bt2._DiscardedEventsMessageConst:
            disc += m.count or 0
print(rd, disc)
PY
)
echo "trace ($BUF): $rd read + $disc discarded of $((N + M1 + M2)) committed"
[ $((rd + disc)) = $((N + M1 + M2)) ] || fail "read + discarded != committed"
[ "$rd" = $((N + M1)) ] && [ "$disc" = "$M2" ] ||
	fail "wanted $((N + M1)) read and $M2 discarded"
finish
