#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A registration bomb on root's apps.sock: a user not in 'tracing'
# registers apps with thousands of events (one connection of 1,000 events x
# 1,024 fields took the daemon from 3 MB to 243 MB). Each app is held to
# app-events, app-fields and app-bytes, each untrusted uid to
# app-bytes-per-uid (here 32 MiB): a registration beyond is read, dropped,
# and answered REGISTRATION_DONE flagged REFUSED, with one log line. The
# daemon's peak RSS stays within the budget plus its own needs; root is
# answered throughout.
. "$(dirname "$0")/lib.sh"

start_root_daemon --limit app-bytes-per-uid=32M
base=$(daemon_kib VmRSS)
# 8 apps of 4,000 events x 64 fields (15 KiB each: 4 x 16 MiB = 480 MiB
# decoded if kept), then 2 of 100 events x 1,024 fields.
attack regbomb "$APPS" 8 4000 64 120
root_answers "root's list after the bomb" "$TRAWL" list
root_answers "member's list after the bomb" as "$M" list
attack_end
[ "$(att refused)" -ge 6 ] || fail "the daemon refused $(att refused) of 8 bombs: $ATT_RESULT"
attack regbomb "$APPS" 2 100 1024 120
root_answers "root's list after the second bomb" "$TRAWL" list
attack_end
[ "$(att refused)" = 2 ] || fail "events of 1,024 fields not refused: $ATT_RESULT"
peak=$(daemon_kib VmHWM)
echo "daemon RSS: $base KiB at start, peak $peak KiB"
# The budget (32 MiB) and one app's input buffer, plus the daemon's own.
[ "$peak" -lt $((base + 80 * 1024)) ] || fail "daemon peak RSS $peak KiB (started at $base)"
grep -q "registration refused: .*more than the .* allowed" "$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" ||
	fail "refusals not logged"
grep -q "registration refused: event bomb:e0 has 1024 fields, more than the 512 allowed" \
	"$TRAWL_ROOT_RUNTIME_DIR/sessiond.log" || fail "the fields refusal not logged"
daemon_alive
finish
