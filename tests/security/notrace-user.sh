#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The root kernel consumer keeps trawl's own processes out of root's kernel
# traces (src/kernel/notrace.c). Any user may run trawl's executables, and
# put their own code in that run (LD_PRELOAD, ptrace): that code must show
# in root's trace like any program's. A non-member runs trawl-sessiond with
# an attacker's library (notrace-evil.c) that waits past the consumer's
# once-a-second collection of trawl's processes, then makes 1000 getppid()
# calls; root's kernel session on getppid must hold all 1000, with the
# user's daemon's pid.
. "$(dirname "$0")/lib.sh"
EVIL=$BIN/../lib/libtrawl-test-notrace-evil.so
[ -f "$EVIL" ] || { echo "SKIP: $EVIL not built"; exit 77; }
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 missing"; exit 77; }
[ -d /sys/kernel/tracing/events ] || { echo "SKIP: no tracefs"; exit 77; }
start_root_daemon

expect 0 "$TRAWL" create K -o "$T/k" || finish
expect 0 "$TRAWL" enable-event -k --syscall getppid -s K || finish
expect 0 "$TRAWL" add-context -k -t pid -t procname -s K || finish
expect 0 "$TRAWL" start K || finish

mkdir -p "$T/$X/run" && chown "$X" "$T/$X/run"
# (an ASan build checks that its runtime comes first in the process: not with LD_PRELOAD)
as_user "$X" env LD_PRELOAD="$EVIL" EVIL_GO="$T/$X/go" EVIL_DONE="$T/$X/done" \
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
	"$BIN/trawl-sessiond" >"$T/xd.out" 2>&1 &
XPID=$!
# past two collections of trawl's processes (one a second)
sleep 2.5
kill -0 "$XPID" 2>/dev/null || { fail "the user's trawl-sessiond ended: $(cat "$T/xd.out")"; finish; }
touch "$T/$X/go"
for i in $(seq 200); do [ -f "$T/$X/done" ] && break; sleep 0.1; done
[ -f "$T/$X/done" ] || fail "the attacker's thread did not run"
# the daemon process: runuser's child; it lives until the trace is stopped
DP=$(pgrep -u "$X" -x trawl-sessiond | head -1)
expect_done "$TRAWL" stop K
kill "$XPID" 2>/dev/null
pkill -u "$X" -x trawl-sessiond 2>/dev/null
n=$(babeltrace2 "$T/k" 2>"$T/bt.err" | grep " syscall_entry_getppid: " | grep -c "pid = ${DP:-none}, ")
echo "getppid calls recorded from the user's trawl-sessiond (pid ${DP:-?}): $n of 1000"
[ "${n:-0}" -ge 1000 ] || fail "root's kernel trace lacks the user's code in trawl-sessiond: $n of 1000 getppid calls ($(head -2 "$T/bt.err"))"
finish
