#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The events a program counted before its setup (libtrawl-ust's late-daemon
# tally) are reported even when the program never says so itself: its
# TALLY goes at its exit, which a SIGKILL skips, and which a program the
# daemon dropped cannot send. The counts live in a memfd the daemon holds
# (wire.h TALLY_SHM, app ABI minor 7) and reads when the connection goes.
#
# With a real user (not in 'tracing') and the real root daemon, root's
# per-user session recording tall:seq; the daemon stopped (SIGSTOP) while
# the program starts (TRAWL_UST_REGISTER_TIMEOUT=300: it then counts), emits
# its N events and waits, then:
#   kill: the program is SIGKILLed, then the daemon resumes;
#   drop: the program is stopped (SIGSTOP), the daemon resumes and drops it
#         at its reply deadline (--limit app-reply-ms=1000), then it is
#         SIGKILLed.
#   overflow: as kill, the program's tally memfd made 1 entry long
#         (TRAWL_UST_TALLY_SHM_ENTRIES=1, libtrawl-ust's test knob): its
#         kinds past the table count in the memfd's overflow bucket (app ABI
#         minor 8), as a program with more than 16,384 kinds does.
#   late: as drop, but only the program's agent thread is stopped (ptrace,
#         freeze-thread.py), so the program runs on without noticing the
#         drop: once dropped, it emits M more events, then is SIGKILLed.
#         The daemon keeps a dropped program's memfd and reads it again
#         at the stop: the M count too.
# Root's stop must say the events were lost (exit 11, "N events discarded",
# N + M for late), and the trace must hold read + discarded = N (+ M), read 0.
. "$(dirname "$0")/../cli/lib.sh"

MODE=${1:?usage: tally-shm.sh kill|drop|overflow|late}
. "$(dirname "$0")/frozen-app.sh"
frozen_app_setup trawlk
N=137

expect 0 "$TRAWL" create S -o "$T/r" &&
	expect 0 "$TRAWL" enable-channel -u ch --buffers-uid -s S &&
	expect 0 "$TRAWL" enable-event -u tall:seq -c ch -s S &&
	expect 0 "$TRAWL" start S || finish

# The program, counting: the daemon stopped until it has emitted its events.
M=0
ENVS=
case $MODE in
overflow) ENVS=TRAWL_UST_TALLY_SHM_ENTRIES=1 ;;
late) M=59 ENVS=LOSS_APP_MORE=$M ;;
esac
# The program's stdin: a FIFO this shell holds open (late: its "go").
mkfifo "$T/go" && exec 7<>"$T/go" || { echo "FAIL: mkfifo"; exit 1; }
kill -STOP "$PID"
SD=$PID
as_user "$B" env TRAWL_UST_REGISTER_TIMEOUT=300 LOSS_APP_HOLD=1 $ENVS "$BIN/loss-app" $N 0 3000 0 \
	<&7 >"$T/app.out" 2>"$T/app.err" &
for _ in $(seq 1200); do
	grep -q '^held' "$T/app.out" && break
	sleep 0.1
done
APP=$(sed -n 's/^held //p' "$T/app.out")
APP_PID=$APP
[ -n "$APP" ] || { fail "the program did not run: $(cat "$T/app.err")"; finish; }
echo "program $APP: $N events emitted before its setup"

# The daemon resumes and drops the program (stopped whole, or only its
# agent thread) at its reply deadline.
wait_dropped() {
	kill -CONT "$PID"
	SD=
	for _ in $(seq 600); do
		grep -Eq "app $APP \(.*(dropped|dropping it)" "$LOG" && return 0
		sleep 0.1
	done
	fail "the stopped program was not dropped: $(grep -v 'ctl:' "$LOG" | tail -20)"
	return 1
}

case $MODE in
kill | overflow)
	kill -KILL "$APP"
	APP=
	kill -CONT "$PID"
	SD=
	;;
drop)
	kill -STOP "$APP"
	wait_dropped
	kill -KILL "$APP"
	APP=
	;;
late)
	"${TRAWL_PYTHON:-python3}" "$(dirname "$0")/freeze-thread.py" "$APP" trawl-ust >"$T/frz.out" 2>&1 &
	FRZ=$!
	for _ in $(seq 600); do
		grep -q '^frozen' "$T/frz.out" && break
		kill -0 "$FRZ" 2>/dev/null || break
		sleep 0.1
	done
	grep -q '^frozen' "$T/frz.out" || { fail "the agent thread was not stopped: $(cat "$T/frz.out")"; finish; }
	wait_dropped || finish
	echo go >&7
	for _ in $(seq 600); do
		grep -q '^more' "$T/app.out" && break
		sleep 0.1
	done
	grep -q '^more' "$T/app.out" || { fail "the program did not emit its $M more events"; finish; }
	echo "program $APP: $M more events emitted after its drop, its agent thread stopped"
	kill -KILL "$APP"
	APP=
	kill "$FRZ"
	FRZ=
	;;
*)
	echo "usage: tally-shm.sh kill|drop|overflow|late" >&2
	exit 2
	;;
esac
N=$((N + M))

expect 11 "$TRAWL" stop S
grep -q "$N events discarded" "$T/err" ||
	fail "stop does not count the program's $N events: $(cat "$T/out" "$T/err")"
grep -E "counted before its setup|memfd|TALLY|app $APP_PID" "$LOG" | tail -8

read -r rd disc < <("${TRAWL_PYTHON:-python3}" - "$T/r" <<'EOF'
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
EOF
)
echo "trace: $rd read, $disc discarded (of $N)"
[ "$rd" = 0 ] && [ "$disc" = "$N" ] || fail "the trace holds $rd read + $disc discarded, not 0 + $N"
finish
