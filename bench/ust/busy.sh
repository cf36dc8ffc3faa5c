#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A busy machine: a CPU hog on each core while the ANCHORS.md program records
# N events flat out (1 thread), trawl and LTTng-UST 2.13 side by side in one
# run, each with its default channel (discard mode) and with
# `--blocking-timeout=inf` (the app allowing it: LTTNG_UST_ALLOW_BLOCKING=1 for
# both), and the same with a small channel (2 x 64 KiB per CPU, both
# tracers), which drops for both without blocking. Prints, per tracer and channel, the events discarded (from the index
# files: each stream's last packet's running count) and ns/event (the hogs
# make this one noisy: it is context, not the figure).
#
#   bench/ust/busy.sh [BUILD_DIR] [EVENTS] [ROUNDS]   (default build, 10000000, 3)
#
# The consumers compete with the hogs and the app for the cores: a default
# channel drops whatever arrives while its consumer is off-CPU; a blocking one
# makes the app wait for it instead. Each row is the median of ROUNDS runs,
# the tracers alternating. As root, LTTng runs as a user made for the run (its
# own lttng-sessiond, HOME and sockets: root's /var/run/lttng is left alone),
# deleted after; trawl's daemons are private to the run too.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
N=${2:-10000000}
ROUNDS=${3:-3}
B=$build/bin
T=$(mktemp -d "${BENCH_OUT:-/dev/shm}/trawl-bench-busy.XXXXXX")
chmod 755 "$T"
export HOME=$T/home TRAWL_RUNTIME_DIR=$T/run TRAWL_ROOT_RUNTIME_DIR=$T/rootrun
mkdir -p "$HOME"
hogs=()
luser=
lsessiond=
cleanup() {
	local p
	for p in "${hogs[@]}"; do kill "$p" 2>/dev/null; done
	"$B/trawl" destroy --all >/dev/null 2>&1
	for f in "$T"/run/sessiond.lock "$T"/rootrun/sessiond.lock; do
		[ -f "$f" ] && kill "$(awk '{print $1}' "$f")" 2>/dev/null
	done
	if [ -n "$lsessiond" ]; then
		kill "$lsessiond" 2>/dev/null
		sleep 0.5
	fi
	if [ -n "$luser" ]; then
		# Whatever the run's user still runs (its consumers), by pid.
		for p in $(pgrep -u "$luser"); do kill "$p" 2>/dev/null; done
		sleep 0.2
		userdel "$luser" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT

for p in "$B/bench-ust-anchor-trawl" "$B/bench-ust-anchor-lttng" "$B/trawl"; do
	[ -x "$p" ] || { echo "bench/ust/busy: $p missing (build first)" >&2; exit 1; }
done
command -v lttng >/dev/null || { echo "bench/ust/busy: lttng-tools missing" >&2; exit 1; }

# LTTng: as a user made for the run when root, else as ourselves with a private HOME.
LH=$T/lhome
mkdir -p "$LH"
if [ "$(id -u)" = 0 ]; then
	luser=trblk$$
	useradd -M -N -d "$LH" "$luser" || exit 1
	chown "$luser" "$LH"
	L() { runuser -u "$luser" -- env HOME="$LH" LTTNG_HOME="$LH" "$@"; }
else
	L() { env HOME="$LH" LTTNG_HOME="$LH" "$@"; }
fi
L lttng-sessiond --daemonize >/dev/null 2>&1 || { echo "bench/ust/busy: lttng-sessiond failed" >&2; exit 1; }
lsessiond=$(pgrep -n -x lttng-sessiond ${luser:+-u "$luser"})

# disk_stats DIR -> events discarded (every stream's last index entry)
disk_stats() {
	/usr/bin/python3 - "$1" <<'PY'
import glob, struct, sys
disc = 0
for idx in glob.glob(sys.argv[1] + "/**/index/*.idx", recursive=True):
    data = open(idx, "rb").read()
    magic, major, minor, elen = struct.unpack(">IIII", data[:16])
    if len(data) >= 16 + elen:
        last = data[16 + (len(data) - 16) // elen * elen - elen:]
        disc += struct.unpack(">Q", last[40:48])[0]
print(disc if glob.glob(sys.argv[1] + "/**/index/*.idx", recursive=True) else "no-trace")
PY
}

# chan_opts MODE: the enable-channel options of a row
chan_opts() {
	case $1 in
	default) ;;
	blocking) echo --blocking-timeout=inf ;;
	small) echo --subbuf-size 64K --num-subbuf 2 ;;
	small-blocking) echo --subbuf-size 64K --num-subbuf 2 --blocking-timeout=inf ;;
	esac
}

# run_TRACER MODE -> "ns_per_event discarded"
run_trawl() {
	local out=$T/trace-trawl opt=($(chan_opts "$1")) f
	"$B/trawl" create busy --output "$out" >/dev/null || return 1
	"$B/trawl" enable-channel -u ch "${opt[@]}" >/dev/null || return 1
	"$B/trawl" enable-event -u anchor:ev -c ch >/dev/null || return 1
	"$B/trawl" start >/dev/null || return 1
	f=( $(LTTNG_UST_ALLOW_BLOCKING=1 "$B/bench-ust-anchor-trawl" tp 1 "$N") )
	"$B/trawl" stop >/dev/null
	"$B/trawl" destroy >/dev/null
	echo "${f[1]} $(disk_stats "$out")"
	rm -rf "$out"
}

run_lttng() {
	local out=$LH/trace-lttng opt=($(chan_opts "$1")) f s=busy$$
	L lttng create "$s" --output "$out" >/dev/null || return 1
	L lttng enable-channel -u ch -s "$s" "${opt[@]}" >/dev/null || return 1
	L lttng enable-event -u anchor:ev -c ch -s "$s" >/dev/null || return 1
	L lttng start "$s" >/dev/null || return 1
	f=( $(L env LTTNG_UST_ALLOW_BLOCKING=1 "$B/bench-ust-anchor-lttng" tp 1 "$N") )
	L lttng stop "$s" >/dev/null
	L lttng destroy "$s" >/dev/null
	echo "${f[1]} $(disk_stats "$out")"
	rm -rf "$out"
}

ncpu=$(nproc)
for ((i = 0; i < ncpu; i++)); do
	( while :; do :; done ) &
	hogs+=($!)
done

MODES="default blocking small small-blocking"
declare -A ns disc
for ((r = 0; r < ROUNDS; r++)); do
	for mode in $MODES; do
		for tr in trawl lttng; do
			f=( $(run_$tr $mode) )
			ns[$tr.$mode]+=" ${f[0]:-nan}"
			disc[$tr.$mode]+=" ${f[1]:-nan}"
		done
	done
done
median() { printf "%s\n" $1 | sort -g | sed -n "$(( ($(printf "%s\n" $1 | wc -l) + 1) / 2 ))p"; }

printf "busy machine: %d CPU hogs, %d events, 1 thread, median of %d (all runs in brackets)\n" "$ncpu" "$N" "$ROUNDS"
printf "%-8s %-30s %14s %10s   %s\n" tracer channel discarded ns/event "discarded per run"
for tr in trawl lttng; do
	for mode in $MODES; do
		desc="default (discard)"
		[ "$mode" = blocking ] && desc="--blocking-timeout=inf"
		[ "$mode" = small ] && desc="2 x 64 KiB (discard)"
		[ "$mode" = small-blocking ] && desc="2 x 64 KiB, blocking inf"
		printf "%-8s %-30s %14s %10s   [%s ]\n" "$tr" "$desc" "$(median "${disc[$tr.$mode]}")" \
			"$(median "${ns[$tr.$mode]}")" "${disc[$tr.$mode]}"
	done
done
