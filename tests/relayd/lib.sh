# SPDX-License-Identifier: MIT
# Shared set-up for the relayd tests: tests/cli/lib.sh's private folders,
# plus a trawl-relayd on free ports writing into $T/relay.
. "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"
RELAYD=$BIN/trawl-relayd
RELAY_PIDS=()

# ust_relay_or_skip: sets APP (ust-app-all); skips (77) without it,
# trawl-relayd or babeltrace2
ust_relay_or_skip() {
	APP=$BIN/ust-app-all
	[ -x "$APP" ] || { echo "SKIP: ust-app-all not built"; exit 77; }
	[ -x "$RELAYD" ] || { echo "SKIP: trawl-relayd not built"; exit 77; }
	command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 missing"; exit 77; }
}

# relayd_start [NAME]: starts a relayd with its own output folder $T/NAME
# (default relay) on ports the kernel picks (port 0), on 127.0.0.1 (or
# $RELAY_LISTEN, e.g. tcp6://[::1]), with $RELAY_ARGS' options; sets RELAY_PID,
# CTRL_PORT, DATA_PORT, LIVE_PORT, RELAY_OUT.
relayd_start() {
	local name=${1:-relay}
	RELAY_OUT=$T/$name
	local a=${RELAY_LISTEN:-tcp://127.0.0.1}
	# shellcheck disable=SC2086
	"$RELAYD" -o "$RELAY_OUT" -C "$a:0" -D "$a:0" -L "$a:0" ${RELAY_ARGS:-} 2>"$T/$name.log" &
	RELAY_PID=$!
	RELAY_PIDS+=("$RELAY_PID")
	local i
	for i in $(seq 100); do
		grep -q "control port" "$T/$name.log" && break
		sleep 0.05
	done
	local line
	line=$(grep -m1 "control port" "$T/$name.log") || { cat "$T/$name.log" >&2; return 1; }
	CTRL_PORT=$(sed -n 's/.*control port \([0-9]*\),.*/\1/p' <<<"$line")
	DATA_PORT=$(sed -n 's/.*data port \([0-9]*\),.*/\1/p' <<<"$line")
	LIVE_PORT=$(sed -n 's/.*live port \([0-9]*\),.*/\1/p' <<<"$line")
	[ -n "$CTRL_PORT" ] && [ -n "$DATA_PORT" ]
}

# expect_fail CMD...: CMD must fail (any non-zero status); stderr kept in $T/err
expect_fail() {
	"$@" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ "$rc" = 0 ]; then
		fail "'$*' succeeded, wanted a failure"
		return 1
	fi
	return 0
}

# one_line_naming TEXT: $T/err is one line holding TEXT (as is, not a pattern)
one_line_naming() {
	[ "$(wc -l <"$T/err")" = 1 ] || fail "expected one error line, got: $(cat "$T/err")"
	grep -qF -- "$1" "$T/err" || fail "error line lacks '$1': $(cat "$T/err")"
}

# stream_then_kill NAME: a live session NAME (URL: the relayd started last)
# records the app's 300 tall:seq events, and that relayd is killed (-9)
# once its files hold them (the live timer brings them there).
stream_then_kill() {
	URL=net://127.0.0.1:$CTRL_PORT:$DATA_PORT
	expect 0 "$TRAWL" create "$1" --live=100000 --set-url "$URL"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	"$BIN/ust-app-all" 1 300 5000 || fail "the first app failed"
	local i d
	for i in $(seq 100); do
		d=$(relay_trace "$1")
		[ -n "$d" ] && [ "$(babeltrace2 "$d" 2>/dev/null | grep -c " tall:seq: ")" = 300 ] && break
		sleep 0.1
	done
	kill -9 "$RELAY_PID"
	wait "$RELAY_PID" 2>/dev/null
}

relayd_stop_all() {
	local p
	for p in "${RELAY_PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}

# A port nothing listens on: bound then closed (another process could take
# it in between, which would only make the "unreachable" case fail loudly).
free_port() {
	/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# relay_trace NAME: the session NAME's folder in relayd's output (one match).
relay_trace() {
	ls -d "$RELAY_OUT"/*/"$1"-[0-9]*-[0-9]* 2>/dev/null | head -1
}

trap 'relayd_stop_all; cleanup' EXIT
