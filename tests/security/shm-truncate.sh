#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A `create --shm-path` buffer file truncated by its owner while their
# consumer has it mapped (docs/SECURITY.md, "The files"): the consumer
# catches the SIGBUS (src/consumerd/bus.h), abandons that stream and keeps
# serving the owner's other sessions; the session's stop says what was
# lost in one line and exits non-zero.
#
# With a real user U (not root) and U's own session daemon:
#   S1: --shm-path under U's home, per-user buffers, records tall:seq
#   S2: no --shm-path, records tall:seq too
#   a program records N events (both sessions); U truncates S1's channel
#   files; S1's stop exits non-zero with one line naming the channel; the
#   consumer is the same process; a second program then records N more,
#   and S2 holds 2N events, read + discarded, exactly.
. "$(dirname "$0")/../cli/lib.sh"

users_or_skip
have_ust || { echo "SKIP: no user-space consumer"; exit 77; }
"${TRAWL_PYTHON:-python3}" -c 'import bt2' 2>/dev/null || { echo "SKIP: no bt2"; exit 77; }
U=trawlst$$
mkuser "$U" || { echo "SKIP: useradd failed"; exit 77; }
N=2000

as_user "$U" "$BIN/trawl-sessiond" --daemonize || { fail "U's daemon did not start"; finish; }
session() { # NAME OUT [create options]
	local n=$1 out=$2; shift 2
	expect 0 as "$U" create "$n" -o "$out" "$@" &&
		expect 0 as "$U" enable-channel -u ch --buffers-uid -s "$n" &&
		expect 0 as "$U" enable-event -u tall:seq -c ch -s "$n" &&
		expect 0 as "$U" start "$n"
}
session S1 "$T/$U/o1" --shm-path "$T/$U/shm" || finish
session S2 "$T/$U/o2" || finish

# app ID: N events of id ID, once the sessions enabled the event
app() {
	as_user "$U" "$BIN/loss-app" $N 0 "$1" 3000 >/dev/null 2>>"$T/apps.err" ||
		fail "the program $1 failed: $(cat "$T/apps.err")"
}
app 1
CPID=$(pgrep -u "$U" -x trawl-consumerd | head -1)
[ -n "$CPID" ] || { fail "no consumer of U's"; finish; }
mapfile -t files < <(find "$T/$U/shm" -type f -name 'ch_*')
[ ${#files[@]} -gt 0 ] || { fail "no buffer file under $T/$U/shm"; finish; }
echo "truncating ${#files[@]} buffer file(s) as $U; consumer $CPID"
as_user "$U" truncate -s 0 "${files[@]}" || fail "U could not truncate their files"

as "$U" stop S1 >"$T/out" 2>"$T/err"
rc=$?
echo "S1's stop: exit $rc: $(cat "$T/err")"
[ "$rc" != 0 ] || fail "S1's stop exited 0: the loss is not said"
expect_err_line "shrank"
kill -0 "$CPID" 2>/dev/null || fail "the consumer $CPID died"
expect 0 as "$U" destroy S1

app 2
kill -0 "$CPID" 2>/dev/null || fail "the consumer $CPID died"
[ "$(pgrep -u "$U" -x trawl-consumerd | head -1)" = "$CPID" ] || fail "not the same consumer"
expect_done as "$U" stop S2
read -r r d < <("${TRAWL_PYTHON:-python3}" - "$T/$U/o2" <<'PY'
import sys
import bt2
r = d = 0
for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):
    if type(m) is bt2._EventMessageConst and m.event.name == "tall:seq":
        r += 1
    elif type(m) is bt2._DiscardedEventsMessageConst:
        d += m.count or 0
print(r, d)
PY
)
echo "S2: $r read + $d discarded of $((2 * N)) committed"
[ $((r + d)) = $((2 * N)) ] || fail "S2: $r read + $d discarded != $((2 * N))"
expect 0 as "$U" destroy S2
grep -q "shrank under the consumer" "$T/$U/run/sessiond.log" 2>/dev/null ||
	echo "note: the consumer's line is not in $T/$U/run/sessiond.log"
as_user "$U" "$TRAWL" list >/dev/null 2>&1
finish
