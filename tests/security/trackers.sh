#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Trackers (track/untrack) on the root daemon, by members of 'tracing' (real
# users, made here; the real root daemon with a private state folder):
#  - each tracker set is bounded, but a user has up to 1024 sessions of two
#    domains with six trackers each (192 MiB of the shared daemon): the
#    values of one user's sessions are capped (--limit tracker-values-per-uid,
#    8 here), refused in one line past it, and room comes back with untrack;
#    root is not capped;
#  - a member cannot see or change another member's session's trackers, and
#    a non-member cannot reach the root daemon's sessions at all.
. "$(dirname "$0")/lib.sh"
have_ust || { echo "SKIP: no user-space consumer"; exit 77; }
N=trawln$$ # another member
mkuser "$N" tracing
start_root_daemon --limit tracker-values-per-uid=8

expect 0 as "$M" create A --no-output || finish
expect 0 as "$M" track -u -s A --vpid 1,2,3,4,5 || finish
expect 0 as "$M" create B --no-output || finish
expect 0 as "$M" track -u -s B --vpid 11,12,13
# the 9th value of the user's sessions
expect 1 as "$M" track -u -s B --vpid 14
expect_err_line "tracker-values-per-uid"
as "$M" list B >"$T/list" 2>&1
grep -q "14" "$T/list" && fail "the refused value is tracked: $(cat "$T/list")"
# room comes back with untrack, and --all never adds values
expect 0 as "$M" untrack -u -s A --vpid 5
expect 0 as "$M" track -u -s B --vpid 14
expect 0 as "$M" untrack -u -s A --vpid --all
expect 0 as "$M" track -u -s B --vpid 15,16,17,18
# root is not capped
expect 0 "$TRAWL" create R --no-output
expect 0 "$TRAWL" track -u -s R --vpid "$(seq -s, 100 130)"

# another member: the session is not theirs to see or change
expect 5 as "$N" track -u -s B --vpid 99
expect_err_line "no session named 'B'"
expect 5 as "$N" untrack -u -s B --vpid --all
as "$M" list B >"$T/list" 2>&1
grep -q "18" "$T/list" || fail "B's trackers changed by another member: $(cat "$T/list")"
# a non-member talks to their own daemon, which has no session B
as "$X" track -u -s B --vpid 99 >"$T/out" 2>"$T/err" && fail "a non-member tracked in B"
as "$M" list B >"$T/list" 2>&1
grep -q "99" "$T/list" && fail "B got a value from another user: $(cat "$T/list")"
finish
