#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# TALLY across users (app protocol minor 3, docs/SECURITY.md "The sockets"):
# a program that exits before the daemon set it up hands over the events
# it counted; they are charged to the sessions that would have traced it,
# in the trace it would have written, and never to another user's.
#
# With real users and the real root daemon (private TRAWL_ROOT_RUNTIME_DIR):
# A, a member of 'tracing', records tall:seq in a per-user session of their
# own (SA); root records it in a session of root's (SR), which traces every
# user's programs. B, another user (not a member), runs 16 programs while
# the daemon is stopped (SIGSTOP) until they have all exited: none is set
# up, each hands over its 20 events (TALLY). Then A runs 16 the same way.
#
#   SA (A's trace): A's programs' 320 events, read + discarded, exactly:
#                   nothing of B's, neither read nor counted
#   SR, ust/uid/B:  B's 320, read + discarded, exactly
#   SR, ust/uid/A:  A's 320, the same
. "$(dirname "$0")/../cli/lib.sh"

users_or_skip
have_ust || { echo "SKIP: no user-space consumer"; exit 77; }
"${TRAWL_PYTHON:-python3}" -c 'import bt2' 2>/dev/null || { echo "SKIP: no bt2"; exit 77; }
A=trawlta$$ # the member, with a session of their own
B=trawltb$$ # another user: only programs
mkuser "$A" tracing || { echo "SKIP: useradd failed"; exit 77; }
mkuser "$B" || { echo "SKIP: useradd failed"; exit 77; }
SD=
ta_cleanup() {
	[ -n "$SD" ] && kill -CONT "$SD" 2>/dev/null
	cleanup
}
trap ta_cleanup EXIT

"$BIN/trawl-sessiond" --daemonize || { echo "FAIL: the root daemon did not start"; exit 1; }
PID=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock")
N=16 PER=20

session() { # WHO OUT: a per-user session recording tall:seq, started (WHO: a user, or root)
	local who=$1 out=$2 t=("$TRAWL")
	[ "$who" = root ] || t=(as "$who")
	expect 0 "${t[@]}" create S -o "$out" &&
		expect 0 "${t[@]}" enable-channel -u ch --buffers-uid -s S &&
		expect 0 "${t[@]}" enable-event -u tall:seq -c ch -s S &&
		expect 0 "${t[@]}" start S
}
session "$A" "$T/$A/o" || finish
session root "$T/r" || finish

# stalled USER BASE: N programs of USER (ids BASE..BASE+N-1), each exiting
# before its setup: the daemon is stopped until they have all exited.
stalled() {
	local u=$1 base=$2 i pids=() rc=0
	kill -STOP "$PID"
	SD=$PID
	for i in $(seq 0 $((N - 1))); do
		as_user "$u" env TRAWL_UST_REGISTER_TIMEOUT=1 "$BIN/loss-app" $PER 0 $((base + i)) 0 \
			>/dev/null 2>>"$T/apps.err" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	kill -CONT "$PID"
	SD=
	[ $rc = 0 ] || fail "$u's programs failed: $(cat "$T/apps.err")"
}
stalled "$B" 2000
stalled "$A" 1000

# stopped: every TALLY read first (the daemon reads them before a stop);
# A's stop says A's events were lost (all were counted, none recorded): 11
expect 11 as "$A" stop S
grep -q "$((N * PER)) events discarded" "$T/err" || fail "A's stop does not count A's $((N * PER)): $(cat "$T/err")"
"$TRAWL" stop S >/dev/null 2>&1
as "$A" destroy S >/dev/null 2>&1
"$TRAWL" destroy S >/dev/null 2>&1

# count DIR: "READ_A READ_B DISCARDED" of the trace(s) under DIR (ids 1000.. are A's, 2000.. B's)
count() {
	"${TRAWL_PYTHON:-python3}" - "$1" <<'EOF'
import glob, sys
import bt2
a = b = disc = 0
if glob.glob(sys.argv[1] + "/**/metadata", recursive=True):
    for m in bt2.TraceCollectionMessageIterator(sys.argv[1]):
        if type(m) is bt2._EventMessageConst and m.event.name == "tall:seq":
            t = int(m.event.payload_field["thread"])
            a += 1000 <= t < 2000
            b += 2000 <= t < 3000
        elif type(m) is bt2._DiscardedEventsMessageConst:
            disc += m.count or 0
print(a, b, disc)
EOF
}
want=$((N * PER))
UA=$(id -u "$A") UB=$(id -u "$B")
read -r ra rb d < <(count "$T/$A/o")
echo "A's session: A's $ra read, B's $rb read, $d discarded (A's $want committed)"
[ "$rb" = 0 ] || fail "A's trace holds $rb events of B's programs"
[ $((ra + d)) = "$want" ] ||
	fail "A's trace: $ra read + $d discarded != $want committed by A (B's charged to A, or A's lost)"
for u in A B; do
	uid=$([ $u = A ] && echo "$UA" || echo "$UB")
	dir=$T/r/ust/uid/$uid
	[ -d "$dir" ] || { fail "root's session has no trace of $u's (uid $uid)"; continue; }
	read -r ra rb d < <(count "$dir")
	echo "root's session, uid $uid ($u): A's $ra read, B's $rb read, $d discarded (of $want)"
	if [ $u = A ]; then
		[ "$rb" = 0 ] && [ $((ra + d)) = "$want" ] || fail "root's trace of A's: wrong count"
	else
		[ "$ra" = 0 ] && [ $((rb + d)) = "$want" ] || fail "root's trace of B's: wrong count"
	fi
done
finish
