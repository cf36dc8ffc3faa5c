#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A hostile trawl-relayd against the root kernel consumer (docs/SECURITY.md,
# "Streaming"): a member of 'tracing' (a real user, made here) streams a
# kernel session through the real root daemon (private TRAWL_ROOT_RUNTIME_DIR)
# to a relayd of their choosing, hostile-relayd.py, which misbehaves:
#
#   bad-status  HELLO answered with a positive status: the consumer took it
#               for success with no output and died on a NULL pointer;
#               now `start` is refused in one line ("Protocol error")
#   ctrl-status the same on the control port, which the root daemon reads:
#               `create` is refused in one line (the protocol's)
#   trickle     reads 4 KiB every 0.5 s once it has 64 KiB: every send made
#               progress, so the consumer's per-call timeout never fired and
#               a stop's drain went on for ever; the daemon (root's one
#               thread) waited its 30 s, then killed the consumer.
#               Now the consumer answers within its command deadline and
#               says what streaming lost (stop exits 1 or 11 with the
#               consumer's "streaming to trawl-relayd" line); root is
#               answered right after; the consumer is alive for destroy.
#
# usage: relay-hostile.sh MODE
. "$(dirname "$0")/../cli/lib.sh"

MODE=${1:?usage: relay-hostile.sh bad-status|ctrl-status|trickle}
users_or_skip
G=trawlrh$$ # the member streaming to their hostile relayd
mkuser "$G" tracing || { echo "SKIP: useradd failed"; exit 77; }
HR_PID=
hr_cleanup() {
	[ -n "$HR_PID" ] && kill "$HR_PID" 2>/dev/null && wait "$HR_PID" 2>/dev/null
	cleanup
}
trap hr_cleanup EXIT

"$BIN/trawl-sessiond" --daemonize || { echo "FAIL: the root daemon did not start"; exit 1; }
"$TRAWL" list -k >/dev/null 2>&1 || { echo "SKIP: kernel tracing unavailable"; exit 77; }

# the hostile relayd runs as the member: it is theirs
runuser -u "$G" -- "${TRAWL_PYTHON:-python3}" "$(dirname "$0")/hostile-relayd.py" "$MODE" \
	"$T/$G/ports" >"$T/hr.log" 2>&1 &
HR_PID=$!
for i in $(seq 100); do [ -s "$T/$G/ports" ] && break; sleep 0.1; done
read -r CTRL DATA <"$T/$G/ports" || { fail "the hostile relayd did not start: $(cat "$T/hr.log")"; finish; }
URL=net://127.0.0.1:$CTRL:$DATA

gt() { as "$G" "$@"; }

# The session's token lets a peer of relayd take up its files: besides
# relayd (here the member's own), nothing another local user can read may
# show it: command lines, environments, `trawl list`/`status`, files.
token_nowhere() {
	local tok p f
	tok=$(sort -u "$T/$G/ports.token" 2>/dev/null | head -1)
	[ -n "$tok" ] || { fail "the relayd got no HELLO"; return; }
	ps -eo args= | grep -F -- "$tok" | grep -v grep && fail "a command line shows the token"
	for p in $(ps -eo pid=,comm= | awk '$2 ~ /^trawl/ {print $1}'); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qF -- "$tok" &&
			fail "process $p's environment shows the token"
	done
	for c in "list" "list H" "status"; do
		gt $c >"$T/l.out" 2>&1; "$TRAWL" $c >>"$T/l.out" 2>&1
		grep -qF -- "$tok" "$T/l.out" && fail "trawl $c shows the token"
	done
	f=$(find "$T" -xdev -perm -o+r -type f ! -name 'ports*' 2>/dev/null |
		xargs -r grep -lF -- "$tok" 2>/dev/null)
	[ -z "$f" ] || fail "files others can read show the token: $f"
	grep -qF -- "$tok" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" && fail "root's log shows the token"
	echo "token $tok: in no command line, environment, listing, log or file others can read"
}
if [ "$MODE" = ctrl-status ]; then
	expect 10 gt create H --set-url "$URL"
	expect_err_line "does not speak trawl-relayd's protocol"
	expect 0 "$TRAWL" list || fail "root's list failed"
	finish
fi
expect 0 gt create H --set-url "$URL" || finish
# big buffers: a stop has MiBs to drain, far more than the sockets hold
CH=()
if [ "$MODE" = trickle ]; then
	expect 0 gt enable-channel -k c0 --subbuf-size 1M --num-subbuf 4 || finish
	CH=(-c c0)
fi
expect 0 gt enable-event -k --syscall getppid "${CH[@]}" || finish

case $MODE in
bad-status)
	expect 1 gt start
	expect_err_line "Protocol error"
	grep -qi "segmentation\|signal 11" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" &&
		fail "the kernel consumer crashed: $(grep -i 'signal\|segm' "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log")"
	;;
trickle)
	expect 0 gt start || finish
	token_nowhere
	# a few MiB of getppid events: far more than 64 KiB at 8 KiB/s
	as_user "$G" "${TRAWL_PYTHON:-python3}" -c '
import os
for _ in range(300000): os.getppid()' || fail "the event flood failed"
	t0=$(date +%s)
	gt stop >"$T/out" 2>"$T/err"
	rc=$?
	t1=$(date +%s)
	echo "stop: exit $rc after $((t1 - t0)) s: $(cat "$T/err")"
	# the consumer's own account (what streaming lost), not the daemon
	# giving up on it after its 30 s ("the kernel consumer died")
	[ "$rc" = 1 ] || [ "$rc" = 11 ] || fail "stop exited $rc, wanted 1 or 11: $(cat "$T/err")"
	grep -q "consumer died" "$T/err" &&
		fail "the daemon gave up on the consumer: $(cat "$T/err"); root's log: $(tail -15 "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log")"
	grep -q "streaming to trawl-relayd at 127.0.0.1:$DATA" "$T/err" ||
		echo "(streaming was not cut: the consumer sent less than the sockets hold)"
	# root answered after it; the consumer still answers (destroy)
	expect 0 "$TRAWL" list || fail "root's list failed after the stop"
	expect 0 gt destroy H || true
	grep -q "kernel consumer.*killed\|did not answer" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" &&
		fail "the consumer was killed: $(grep 'killed\|did not answer' "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log")"
	;;
*) fail "unknown mode $MODE" ;;
esac
finish
