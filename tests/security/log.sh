#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The root daemon's log names every user's sessions and paths: it is read
# by root only (0600), including when an older, wider one is there; and no
# user can make it grow without bound (a connect/close loop grew it by
# ~560 MB/h): lines a peer causes are rate limited per uid, and the file is
# cut at log-bytes (here 16 KiB) into sessiond.log.1.
. "$(dirname "$0")/lib.sh"

LOG=$TRAWL_ROOT_RUNTIME_DIR/sessiond.log
mkdir -p "$TRAWL_ROOT_RUNTIME_DIR"
chmod 755 "$TRAWL_ROOT_RUNTIME_DIR"
echo "an older daemon's line" >"$LOG"
chmod 644 "$LOG"
start_root_daemon --limit log-bytes=16K
[ "$(stat -c '%a %U' "$LOG")" = "600 root" ] || fail "the log is $(stat -c '%a %U' "$LOG")"
runuser -u "$X" -- cat "$LOG" >/dev/null 2>&1 && fail "a non-member can read the log"
runuser -u "$M" -- cat "$LOG" >/dev/null 2>&1 && fail "a member can read the log"
expect 0 "$TRAWL" create "secret-$$" -o "$T/secret"
grep -q "secret-$$" "$LOG" || fail "the session's creation is not logged"
attack churn "$APPS" 60
sleep 10
attack_end
n=$(att connections)
lines=$(cat "$LOG" "$LOG.1" 2>/dev/null | grep -c "uid $(id -u "$X")")
held=$(cat "$LOG" "$LOG.1" 2>/dev/null | grep -o "([0-9]* similar lines held back)" | wc -l)
size=$(($(stat -c %s "$LOG") + $(stat -c %s "$LOG.1" 2>/dev/null || echo 0)))
echo "churn: $n connections, $lines lines about the attacker, $size bytes of log"
[ "$n" -ge 1000 ] || fail "the churn made only $n connections"
# A burst of 20, then one a second, for 10 s: at most ~35 lines.
[ "$lines" -le 60 ] || fail "$lines lines about the attacker for $n connections"
[ "$held" -ge 1 ] || fail "no line says how many were held back"
grep -q "forged" "$LOG" && fail "a peer's bytes reached the log"
# A member's consumer runs as the member: its stderr is a pipe the daemon
# reads (rate limited), not the log file it could write anything to.
if have_ust; then
	expect 0 as "$M" create msess -o "$T/$M/trace"
	expect 0 as "$M" enable-event -u tall:seq
	cpid=$(pgrep -u "$M" -f trawl-consumerd | head -1)
	if [ -z "$cpid" ]; then
		fail "no consumer runs as the member"
	else
		case $(readlink "/proc/$cpid/fd/2") in
		pipe:*) ;;
		*) fail "the member's consumer's stderr is $(readlink "/proc/$cpid/fd/2")" ;;
		esac
	fi
	expect 0 as "$M" destroy msess
fi
# Cut at 16 KiB: the two files together hold at most twice that.
for i in $(seq 150); do
	"$TRAWL" create "s$i" -o "$T/s$i" >/dev/null 2>&1
done
size=$(($(stat -c %s "$LOG") + $(stat -c %s "$LOG.1" 2>/dev/null || echo 0)))
[ -f "$LOG.1" ] || fail "the log was not cut"
[ "$size" -le $((2 * 16384 + 4096)) ] || fail "the log takes $size bytes (bound 2 x 16 KiB)"
[ "$(stat -c '%a %U' "$LOG")" = "600 root" ] || fail "the new log is $(stat -c '%a %U' "$LOG")"
[ "$(stat -c '%a %U' "$LOG.1")" = "600 root" ] || fail "the old log is $(stat -c '%a %U' "$LOG.1")"
expect 0 "$TRAWL" destroy --all
daemon_alive
finish
