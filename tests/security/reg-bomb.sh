#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A registration bomb on root's apps.sock: a user not in 'tracing'
# registers apps with many events (one connection of 1,000 events x 1,024
# fields took the daemon from 3 MB to 243 MB). Each app is held to
# app-events, app-fields and app-bytes, each untrusted uid to
# app-bytes-per-uid (here 1 MiB and 3 MiB, so that the bombs stay small
# enough to be sent whole within the registration deadline on a loaded
# machine; bench/security/run.sh bombs the default limits): a registration
# beyond is read, dropped, and answered REGISTRATION_DONE flagged REFUSED,
# with one log line. The daemon's peak RSS stays within the budget plus its
# own needs; root is answered throughout.
. "$(dirname "$0")/lib.sh"

# Under ASan, freed memory waits in its quarantine (256 MiB by default) and
# stays resident: a small one keeps the daemon's peak RSS its own
# (the variable means nothing to a build without ASan).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8"
start_root_daemon --limit app-bytes=1M --limit app-bytes-per-uid=3M
LOG=$TRAWL_ROOT_RUNTIME_DIR/sessiond.log
base=$(daemon_kib VmRSS)
# 8 apps of 50 events x 64 fields (~780 KiB each as decoded): three fit in
# the uid's 3 MiB, the others are refused.
attack regbomb "$APPS" 8 50 64 120
root_answers "root's list during the bomb" "$TRAWL" list
root_answers "member's list during the bomb" as "$M" list
attack_end
[ "$(att refused)" -ge 4 ] || fail "the daemon refused $(att refused) of 8 apps: $ATT_RESULT"
[ "$(att refused)" -le 6 ] || fail "the daemon refused $(att refused) of 8 apps (3 fit): $ATT_RESULT"
grep -q "registration refused: its event descriptions take more than the memory its user's apps may have" \
	"$LOG" || fail "the per-uid refusal is not logged"
# One app over its own share; events of 1,024 fields; too many events.
attack regbomb "$APPS" 2 200 64 120
attack_end
[ "$(att refused)" = 2 ] || fail "apps over app-bytes not refused: $ATT_RESULT"
grep -q "registration refused: its event descriptions take more than the memory one app may have" \
	"$LOG" || fail "the per-app refusal is not logged"
attack regbomb "$APPS" 2 5 1024 120
attack_end
[ "$(att refused)" = 2 ] || fail "events of 1,024 fields not refused: $ATT_RESULT"
grep -q "registration refused: event bomb:e0 has 1024 fields, more than the 512 allowed" "$LOG" ||
	fail "the fields refusal is not logged"
attack regbomb "$APPS" 1 20000 0 120
attack_end
[ "$(att refused)" = 1 ] || fail "20,000 events not refused: $ATT_RESULT"
grep -q "registration refused: it has 20000 events, more than the 16384 allowed" "$LOG" ||
	fail "the events refusal is not logged"
root_answers "root's list after the bombs" "$TRAWL" list
peak=$(daemon_kib VmHWM)
echo "daemon RSS: $base KiB at start, peak $peak KiB"
# The uid's budget (3 MiB), one input buffer, the daemon's own: far below.
[ "$peak" -lt $((base + 32 * 1024)) ] || fail "daemon peak RSS $peak KiB (started at $base)"
daemon_alive
finish
