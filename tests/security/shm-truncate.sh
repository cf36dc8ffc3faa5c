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
#
# shm-truncate.sh snapshot: the file shrinks under a snapshot instead. S1 is
# a snapshot session (--shm-path, a discard-mode channel of 4 x 1 MiB, so
# that the snapshot reads the buffer file itself and not a copy made by the
# overwrite mode's reader); a program on CPU 0 and one on CPU 1 record N
# events each (more than a page of each stream's first packet), and U cuts
# CPU 0's file one page into that packet. `snapshot record` says in one
# line that the stream was abandoned (exit non-zero), and the snapshot holds
# the other stream whole: whole packets only (tests/consumerd/whole.py),
# babeltrace2 reads its N events. The consumer copies each packet out of a
# file its owner can shrink before writing any of it (ust-consumer.c,
# snapshot_stream()): the copy faults (SIGBUS), nothing is written of it.
# Before, the write itself faulted ("Bad address"), the snapshot's output
# failed and CPU 1's events were not written. S1's stop then says it in
# one line, the consumer is the same process, and S2 holds every event.
#
# shm-truncate.sh early: U's consumer is stopped (SIGSTOP) while program 1
# records and exits and U truncates the files, so that it maps them cut
# (as when the consumer comes late on a loaded host: ~1 ASan run in 30 of
# the plain case at load 10). The same outcome; before ust-consumer.c
# abandoned such a stream, mapping it failed (EINVAL), and S1's stop exited
# 0 and said nothing.
. "$(dirname "$0")/../cli/lib.sh"
CASE=${1:-drain}

users_or_skip
have_ust || { echo "SKIP: no user-space consumer"; exit 77; }
"${TRAWL_PYTHON:-python3}" -c 'import bt2' 2>/dev/null || { echo "SKIP: no bt2"; exit 77; }
U=trawlst$$
mkuser "$U" || { echo "SKIP: useradd failed"; exit 77; }
N=2000

as_user "$U" "$BIN/trawl-sessiond" --daemonize || { fail "U's daemon did not start"; finish; }
session() { # NAME OUT CHANNEL-OPTIONS [create options]
	local n=$1 out=$2 chopt=$3; shift 3
	expect 0 as "$U" create "$n" -o "$out" "$@" &&
		expect 0 as "$U" enable-channel -u ch --buffers-uid $chopt -s "$n" &&
		expect 0 as "$U" enable-event -u tall:seq -c ch -s "$n" &&
		expect 0 as "$U" start "$n"
}
if [ "$CASE" = snapshot ]; then
	session S1 "$T/$U/o1" "--discard --subbuf-size 1M --num-subbuf 4" --snapshot \
		--shm-path "$T/$U/shm" || finish
else
	session S1 "$T/$U/o1" "" --shm-path "$T/$U/shm" || finish
fi
session S2 "$T/$U/o2" "" || finish

# app ID [CPU]: N events of id ID (on CPU), once the sessions enabled the event
app() {
	local pin=()
	[ -n "${2:-}" ] && pin=(taskset -c "$2")
	as_user "$U" "${pin[@]}" "$BIN/loss-app" $N 0 "$1" 3000 >/dev/null 2>>"$T/apps.err" ||
		fail "the program $1 failed: $(cat "$T/apps.err")"
}
if [ "$CASE" = snapshot ]; then
	[ "$(nproc)" -ge 2 ] || { echo "SKIP: one CPU"; exit 77; }
	# one stream each (per-CPU buffers): CPU 0's is cut, CPU 1's kept
	app 1 0
	app 3 1
else
	if [ "$CASE" = early ]; then
		CPID=$(pgrep -u "$U" -x trawl-consumerd | head -1)
		[ -n "$CPID" ] || { fail "no consumer of U's once the sessions started"; finish; }
		kill -STOP "$CPID"
	fi
	app 1
fi
[ "$CASE" = early ] || CPID=$(pgrep -u "$U" -x trawl-consumerd | head -1)
[ -n "$CPID" ] || { fail "no consumer of U's"; finish; }
mapfile -t files < <(find "$T/$U/shm" -type f -name 'ch_*')
[ ${#files[@]} -gt 0 ] || { fail "no buffer file under $T/$U/shm"; finish; }
if [ "$CASE" = snapshot ]; then
	# control pages, then 4 sub-buffers of 1 MiB: the events are in the
	# second (the first holds the empty packet each stream starts with)
	cpu0=$(printf '%s\n' "${files[@]}" | grep '_0$')
	[ -n "$cpu0" ] || { fail "no buffer file of CPU 0 among ${files[*]}"; finish; }
	size=$(stat -c %s "$cpu0")
	cut=$((size - 4 * 1048576 + 1048576 + 4096))
	echo "cutting $cpu0 ($size bytes) to $cut as $U; consumer $CPID"
	as_user "$U" truncate -s "$cut" "$cpu0" || fail "U could not truncate their file"
	as "$U" snapshot record -s S1 >"$T/out" 2>"$T/err"
	rc=$?
	echo "snapshot record: exit $rc: $(cat "$T/err")"
	[ "$rc" != 0 ] || fail "snapshot record exited 0: the abandoned stream is not said"
	expect_err_line "shrank"
	snap=$(find "$T/$U/o1" -mindepth 1 -maxdepth 1 -type d -name 'snapshot-*' | head -1)
	[ -n "$snap" ] || { fail "no snapshot folder under $T/$U/o1"; finish; }
	bytes=$("${TRAWL_PYTHON:-python3}" "$(dirname "$0")/../consumerd/whole.py" "$snap" 2>"$T/whole.err") ||
		fail "the snapshot is not whole packets: $(cat "$T/whole.err")"
	babeltrace2 "$snap" >"$T/snap.bt" 2>"$T/snap.bt.err" ||
		fail "babeltrace2 cannot read the snapshot: $(head -3 "$T/snap.bt.err")"
	n=$(grep -c ' tall:seq: ' "$T/snap.bt")
	echo "snapshot: $bytes bytes of whole packets, $n events read"
	[ "$n" = "$N" ] || fail "the snapshot holds $n events, wanted CPU 1's $N"
else
	echo "truncating ${#files[@]} buffer file(s) as $U; consumer $CPID ($CASE)"
	as_user "$U" truncate -s 0 "${files[@]}" || fail "U could not truncate their files"
	[ "$CASE" = early ] && kill -CONT "$CPID"
fi

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
all=$((2 * N))
[ "$CASE" = snapshot ] && all=$((3 * N)) # the two programs of the snapshot, then the last
echo "S2: $r read + $d discarded of $all committed"
[ $((r + d)) = $all ] || fail "S2: $r read + $d discarded != $all"
expect 0 as "$U" destroy S2
grep -q "shrank under the consumer" "$T/$U/run/sessiond.log" 2>/dev/null ||
	echo "note: the consumer's line is not in $T/$U/run/sessiond.log"
as_user "$U" "$TRAWL" list >/dev/null 2>&1
finish
