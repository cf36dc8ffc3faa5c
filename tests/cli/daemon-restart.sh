#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The daemon killed with SIGKILL: the next command starts a new one (over
# the stale socket), which serves new commands.
. "$(dirname "$0")/lib.sh"

expect 0 "$TRAWL" create a -o "$T/a"
expect 0 "$TRAWL" enable-channel -u -s a c
expect 0 "$TRAWL" start a
dir=$TRAWL_ROOT_RUNTIME_DIR
[ "$(id -u)" = 0 ] || dir=$TRAWL_RUNTIME_DIR
pid=$(cat "$dir/sessiond.lock")
kill -9 "$pid"
sleep 0.1
[ -S "$dir/sessiond.sock" ] || fail "stale socket expected to remain"
expect 0 "$TRAWL" create b -o "$T/b"
pid2=$(cat "$dir/sessiond.lock")
[ "$pid" != "$pid2" ] || fail "no new daemon"
expect 0 "$TRAWL" list && grep -q " b \[inactive\]" "$T/out" || fail "b not listed"
expect 0 "$TRAWL" destroy b
finish
