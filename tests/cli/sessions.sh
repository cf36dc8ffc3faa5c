#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Many sessions at once, created concurrently by parallel clients racing to
# start the daemon: exactly one daemon runs, every session exists, each can
# be started, listed, stopped and destroyed on its own.
. "$(dirname "$0")/lib.sh"

N=16
for i in $(seq 1 $N); do
	"$TRAWL" -q create "s$i" -o "$T/tr$i" 2>>"$T/create.err" &
done
wait
[ -s "$T/create.err" ] && fail "create errors: $(cat "$T/create.err")"
n=$(ls "$TRAWL_ROOT_RUNTIME_DIR"/sessiond.lock "$TRAWL_RUNTIME_DIR"/sessiond.lock 2>/dev/null | wc -l)
[ "$n" = 1 ] || fail "expected one daemon state folder, found $n"
mine=0
for p in $(pgrep -x trawl-sessiond); do
	{ tr "\0" "\n" <"/proc/$p/environ"; } 2>/dev/null | grep -qx "HOME=$HOME" && mine=$((mine + 1))
done
[ "$mine" = 1 ] || fail "expected one daemon for this test, found $mine"
expect 0 "$TRAWL" list
for i in $(seq 1 $N); do
	grep -q " s$i \[inactive\]" "$T/out" || fail "s$i missing from list"
done
for i in $(seq 1 $N); do "$TRAWL" -q enable-channel -u -s "s$i" c & done
wait
for i in $(seq 1 $N); do "$TRAWL" -q start "s$i" & done
wait
expect 0 "$TRAWL" list
[ "$(grep -c '\[active\]' "$T/out")" = $N ] || fail "not all sessions active: $(cat "$T/out")"
expect 0 "$TRAWL" stop s3
expect 0 "$TRAWL" list s3 && grep -q "s3: \[inactive\]" "$T/out" || fail "s3 not inactive"
expect 0 "$TRAWL" list s4 && grep -q "s4: \[active\]" "$T/out" || fail "s4 should be active"
expect 0 "$TRAWL" set-session s7
expect 0 "$TRAWL" status && grep -q "Recording session s7" "$T/out" || fail "status of s7"
for i in $(seq 1 $N); do "$TRAWL" -q destroy "s$i" & done
wait
expect 0 "$TRAWL" list && grep -q "no available recording session" "$T/out" || fail "sessions left"
finish
