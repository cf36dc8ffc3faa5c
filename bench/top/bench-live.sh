#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/top/bench-live.sh [BUILD_DIR] [EVENTS_PER_S] [SECONDS]
#
# trawltop's own cost in its live mode (no trace given: its own kernel
# session through a private root daemon) while a program makes system calls
# at a known rate (EVENTS_PER_S, default 100,000: half as getpgid() entries,
# half as exits), side by side with top's own cost over the same seconds
# (top -b -d 1), both as % of one core from their CPU time (user + system).
# The issue asks trawltop for under 5 % of one core at 100 K events/s. The
# session daemon and its consumer are not trawltop's cost (they are the
# tracer's; bench/kernel measures them): their CPU is printed apart.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-${TRAWL_BUILD_DIR:-$here/../../build}}" && pwd)
rate=${2:-100000}
secs=${3:-10}
for b in trawltop trawl trawl-sessiond trawl-consumerd topload; do
	[ -x "$build/bin/$b" ] || { echo "bench-live: $build/bin/$b not built" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "bench-live: trawltop's live mode traces the kernel: run as root" >&2; exit 1; }
command -v top >/dev/null || { echo "bench-live: top (procps) missing" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/trawl-bench-live.XXXXXX")
export TRAWL_RUNTIME_DIR=$work/run TRAWL_ROOT_RUNTIME_DIR=$work/rootrun HOME=$work TMPDIR=$work
export PATH=$build/bin:$PATH
gen=
cleanup() { # (under set -e: every step may fail without ending the cleanup)
	[ -n "$gen" ] && { kill "$gen" 2>/dev/null || true; }
	trawl destroy --all >/dev/null 2>&1 || true
	for f in "$work"/*/sessiond.lock "$work"/*/*/sessiond.lock; do
		[ -f "$f" ] && { kill "$(cat "$f")" 2>/dev/null || true; }
	done
	sleep 0.5
	rm -rf "$work"
}
trap cleanup EXIT

# the daemon first (trawltop starts its session through it), not timed
trawl list >/dev/null 2>&1 || true
"$build/bin/topload" rate $((rate / 2)) $((secs + 4)) >/dev/null &
gen=$!
sleep 1
cpu_of() { # user+system CPU seconds of a finished command, from time -f
	awk '{print $1 + $2}' "$1"
}
/usr/bin/time -o "$work/top.time" -f "%U %S" \
	top -b -d 1 -n "$secs" >/dev/null 2>&1 &
toppid=$!
/usr/bin/time -o "$work/trawltop.time" -f "%U %S" \
	"$build/bin/trawltop" --batch --json -d 1 -n "$secs" >"$work/trawltop.json" 2>"$work/trawltop.err" || {
	echo "bench-live: trawltop failed: $(tail -1 "$work/trawltop.err")" >&2
	exit 1
}
wait "$toppid" || true
sd=$( (cat "$work"/*/sessiond.lock "$work"/*/*/sessiond.lock 2>/dev/null || true) | head -1)
# the daemon's CPU with its reaped children's (the kernel consumer ended with trawltop's session)
daemon=$(awk -v hz="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); print ($12 + $13 + $14 + $15) / hz}' \
	"/proc/$sd/stat" 2>/dev/null || echo 0)
events=$(python3 -c '
import json, sys
ivs = [json.loads(l) for l in open(sys.argv[1])]
ns = sum(iv["end_ns"] - iv["begin_ns"] for iv in ivs)
print("%.0f" % (sum(iv["events"] for iv in ivs) / (ns / 1e9)))' "$work/trawltop.json")
t=$(cpu_of "$work/trawltop.time")
p=$(cpu_of "$work/top.time")
echo "live for $secs s at ${rate} events/s asked, $events events/s traced"
printf "trawltop --batch -d 1 (live)   %5.2f %% of one core   (issue: < 5 %%)\n" "$(awk "BEGIN{print 100 * $t / $secs}")"
printf "top -b -d 1                    %5.2f %% of one core   ratio trawltop/top %.2f\n" \
	"$(awk "BEGIN{print 100 * $p / $secs}")" "$(awk "BEGIN{print ($p > 0) ? $t / $p : 0}")"
printf "session daemon + consumer      %5.2f %% of one core   (the tracer's, since the daemon started)\n" \
	"$(awk "BEGIN{print 100 * $daemon / $secs}")"
