#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A full disk under a local trace (a 2 MiB tmpfs the test mounts): nothing
# recorded before it is lost to it, and what is lost is said.
#   ust      a user-space session fills the disk: `trawl stop` exits 11 (stopped, data lost) with
#            one line "...: No space left on device, N packets (M events) lost",
#            list says it too, every stream file holds whole packets only,
#            each named by its index entry (whole.py), "Bytes written" is what
#            the stream files hold, babeltrace2 reads the events before the
#            disk filled (> 0, exit 0), and those + M = all the app made;
#            the trace itself says what it lost: babeltrace2 warns of M
#            discarded events and N discarded packets (the seal's packets)
#   kernel   the same with a kernel session (getpgid floods until the
#            consumer logs the full disk), ended by
#            `trawl destroy` (no stop): destroy exits 11 with the line, whose
#            event count is exact: events babeltrace2 reads + events the line
#            says lost + events the kernel dropped >= the 2 x N the flood made,
#            and babeltrace2 alone says as much (read + reported discarded)
. "$(dirname "$0")/../cli/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
case=${1:?case}
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 missing"; exit 77; }
. "$HERE/lib.sh"
M=$T/m
small_disk "$M"
trap 'umount "$M" 2>/dev/null; cleanup' EXIT

# whole_check DIR: every stream under DIR is whole packets; sets BYTES (the stream files' bytes)
whole_check() {
	BYTES=$(/usr/bin/python3 "$HERE/whole.py" "$1" 2>"$T/whole.err") ||
		fail "the trace is not whole packets: $(cat "$T/whole.err")"
}

# bt_discarded WHAT: the sum of what babeltrace2's warnings in $T/bt.err say
# the tracer discarded (WHAT: events or packets)
bt_discarded() {
	sed -n "s/.*Tracer discarded \([0-9]*\) ${1%s}s\? between.*/\1/p" "$T/bt.err" |
		awk '{n += $1} END {print n + 0}'
}

# lost_line WHAT: $T/err is one line saying the disk is full and how much was lost
lost_line() {
	expect_err_line "No space left on device"
	grep -qE ", [0-9]+ packets? \([1-9][0-9]* $1\) lost" "$T/err" ||
		fail "the line does not count what was lost in $1: $(cat "$T/err")"
	grep -qF "$M/" "$T/err" || fail "the line does not name the trace's folder: $(cat "$T/err")"
}

case $case in
ust)
	APP=$BIN/ust-app-all
	[ -x "$APP" ] || { echo "SKIP: ust-app-all not built"; exit 77; }
	expect 0 "$TRAWL" create D -o "$M/tr"
	expect 0 "$TRAWL" enable-event -u tall:seq
	expect 0 "$TRAWL" start
	# ~30 bytes an event: 200,000 of them are three times the disk
	"$APP" 1 200000 5000 || fail "the app failed"
	expect 11 "$TRAWL" stop && lost_line events
	lost=$(sed -n 's/.*, [0-9]* packets\? (\([0-9]*\) events\?) lost.*/\1/p' "$T/err")
	lostp=$(sed -n 's/.*, \([0-9]*\) packets\? ([0-9]* events\?) lost.*/\1/p' "$T/err")
	line=$(cat "$T/err")
	expect 0 "$TRAWL" list D
	grep -q "^Problem: .*No space left on device" "$T/out" ||
		fail "list does not say the trace lost packets: $(cat "$T/out")"
	written=$(sed -n 's/^Bytes written: //p' "$T/out")
	whole_check "$M/tr"
	[ "$written" = "$BYTES" ] || fail "Bytes written says $written, the stream files hold $BYTES"
	babeltrace2 "$M/tr" >"$T/bt.txt" 2>"$T/bt.err" || fail "babeltrace2 failed: $(cat "$T/bt.err")"
	n=$(grep -c " tall:seq: " "$T/bt.txt")
	# the trace says it too: the seal's packets (output.h, trawl_output_seal())
	[ "$(bt_discarded events)" = "${lost:-}" ] ||
		fail "babeltrace2 reports $(bt_discarded events) events discarded, the line $lost"
	[ "$(bt_discarded packets)" = "${lostp:-}" ] ||
		fail "babeltrace2 reports $(bt_discarded packets) packets discarded, the line $lostp"
	[ "$n" -gt 0 ] || fail "babeltrace2 read no event of the trace"
	# every event the app made is read or counted lost (discard mode, and
	# the consumer keeps emptying the buffers: none is dropped)
	[ $((n + ${lost:-0})) = 200000 ] || fail "read $n + lost ${lost:-?} != the 200000 made"
	echo "read $n of 200000: $line"
	expect 0 "$TRAWL" destroy D
	;;
kernel)
	PROG=$BIN/ksyscalls
	[ -x "$PROG" ] || { echo "SKIP: ksyscalls not built"; exit 77; }
	[ "$(id -u)" = 0 ] || { echo "SKIP: kernel tracing needs root"; exit 77; }
	[ -d /sys/kernel/tracing/instances ] || { echo "SKIP: no tracefs instances"; exit 77; }
	N=400000
	expect 0 "$TRAWL" create K -o "$M/kt"
	expect 0 "$TRAWL" enable-event -k --syscall getpgid
	expect 0 "$TRAWL" start
	# Floods until the consumer says the disk is full: on a loaded machine
	# the kernel can drop most of a flood (its buffers full while the
	# consumer waits for a CPU), and what it kept of one flood can fit the
	# disk (then destroy exited 0). Its log line, not a time, says so; a
	# flood more while the consumer catches up only adds to the loss.
	total=0
	for i in $(seq 30); do
		"$PROG" flood $N >/dev/null || fail "ksyscalls failed"
		total=$((total + N))
		grep -qs "writing $M/kt/.*: No space left on device" "$T"/rootrun/sessiond.log* && break
	done
	expect 0 "$TRAWL" list K
	dropped=$(sed -n 's/^Events discarded: //p' "$T/out" | head -1)
	expect 11 "$TRAWL" destroy K && lost_line events
	lost=$(sed -n 's/.*, [0-9]* packets\? (\([0-9]*\) events\?) lost.*/\1/p' "$T/err")
	whole_check "$M/kt"
	babeltrace2 "$M/kt" >"$T/bt.txt" 2>"$T/bt.err" || fail "babeltrace2 failed: $(cat "$T/bt.err")"
	n=$(grep -c "syscall_e[a-z]*_getpgid:" "$T/bt.txt")
	[ "$n" -gt 0 ] || fail "babeltrace2 read no event of the trace"
	# babeltrace2 alone accounts for every call: read, or reported discarded
	d=$(bt_discarded events)
	[ "$d" -ge "${lost:-0}" ] || fail "babeltrace2 reports $d events discarded, the line ${lost:-?}"
	[ $((n + d)) -ge $((2 * total)) ] || fail "babeltrace2: read $n + discarded $d < $((2 * total))"
	# each call is an entry and an exit; other programs' getpgid only add
	[ $((n + ${lost:-0} + ${dropped:-0})) -ge $((2 * total)) ] ||
		fail "events unaccounted for: read $n + lost ${lost:-?} + dropped ${dropped:-?} < $((2 * total))"
	echo "read $n, lost $lost, dropped $dropped, babeltrace2 reports $d discarded, of $((2 * total)) or more ($i floods)"
	;;
*)
	fail "unknown case $case"
	;;
esac
finish
