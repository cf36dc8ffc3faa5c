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
# Root's stop must say the N events were lost (exit 11, "N events
# discarded"), and the trace must hold read + discarded = N, read 0.
. "$(dirname "$0")/../cli/lib.sh"

MODE=${1:?usage: tally-shm.sh kill|drop}
users_or_skip
have_ust || { echo "SKIP: no user-space consumer"; exit 77; }
"${TRAWL_PYTHON:-python3}" -c 'import bt2' 2>/dev/null || { echo "SKIP: no bt2"; exit 77; }
B=trawlk$$
mkuser "$B" || { echo "SKIP: useradd failed"; exit 77; }
SD= APP=
ts_cleanup() {
	[ -n "$APP" ] && kill -KILL "$APP" 2>/dev/null
	[ -n "$SD" ] && kill -CONT "$SD" 2>/dev/null
	cleanup
}
trap ts_cleanup EXIT

"$BIN/trawl-sessiond" --daemonize --limit app-reply-ms=1000 ||
	{ echo "FAIL: the root daemon did not start"; exit 1; }
PID=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")
N=137
LOG=$TRAWL_ROOT_RUNTIME_DIR/sessiond.log

expect 0 "$TRAWL" create S -o "$T/r" &&
	expect 0 "$TRAWL" enable-channel -u ch --buffers-uid -s S &&
	expect 0 "$TRAWL" enable-event -u tall:seq -c ch -s S &&
	expect 0 "$TRAWL" start S || finish

# The program, counting: the daemon stopped until it has emitted its events.
kill -STOP "$PID"
SD=$PID
as_user "$B" env TRAWL_UST_REGISTER_TIMEOUT=300 LOSS_APP_HOLD=1 "$BIN/loss-app" $N 0 3000 0 \
	>"$T/app.out" 2>"$T/app.err" &
for _ in $(seq 1200); do
	grep -q '^held' "$T/app.out" && break
	sleep 0.1
done
APP=$(sed -n 's/^held //p' "$T/app.out")
[ -n "$APP" ] || { fail "the program did not run: $(cat "$T/app.err")"; finish; }
echo "program $APP: $N events emitted before its setup"

case $MODE in
kill)
	kill -KILL "$APP"
	APP=
	kill -CONT "$PID"
	SD=
	;;
drop)
	kill -STOP "$APP"
	kill -CONT "$PID"
	SD=
	for _ in $(seq 600); do
		grep -Eq "app $APP \(.*(dropped|dropping it)" "$LOG" && break
		sleep 0.1
	done
	grep -Eq "app $APP \(.*(dropped|dropping it)" "$LOG" ||
		fail "the stopped program was not dropped: $(grep -v 'ctl:' "$LOG" | tail -20)"
	kill -KILL "$APP"
	APP=
	;;
*)
	echo "usage: tally-shm.sh kill|drop" >&2
	exit 2
	;;
esac

expect 11 "$TRAWL" stop S
grep -q "$N events discarded" "$T/err" ||
	fail "stop does not count the program's $N events: $(cat "$T/out" "$T/err")"
grep "counted before its setup" "$LOG" | tail -2

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
