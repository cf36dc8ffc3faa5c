#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trawl vs LTTng-UST 2.13 on the ANCHORS.md program, side by side in one run.
#
#   bench/ust/run.sh [BUILD_DIR] [EVENTS]     (default build-ust, 10000000)
#
# For each tracer: 1 thread ns/event, 2 threads aggregate events/s, tracef
# ns/event, disabled-tracepoint ns, bytes per event on disk, events
# discarded (from the index files: the last packet's running count), then
# the ratios trawl/LTTng. Context rows: 1 thread with
# `add-context -u -t perf:thread:page-fault` (both tracers: one read(2) of
# the thread's counter per event), and trawl's prio + nice (one
# sched_getattr(2) per event) and nice alone (one getpriority(2)). Timings use the ANCHORS.md big channel (4 MiB x 8
# per CPU, per-user, discard) so that what is timed is recording, not
# dropping; "default channel" rows use each tracer's default (LTTng: 4 x 512 KiB; trawl: 8 x 512 KiB, per CPU).
# Consumer CPU rows: the consumer daemons' user + system time (every thread's,
# /proc/PID/task/*/schedstat) from start to the end of stop, per GB of stream
# files: trawl-consumerd vs lttng-consumerd, same runs. Consumer wake-up rows:
# the times their threads went to sleep (voluntary context switches, every
# thread's) per second, from start to the end of stop, and idle: 2 s with the
# session started and the app gone (first run only); and per GB of stream
# files. "ceiling 2P/(P+X)": the 2-thread/1-thread ratio the consumer's
# measured CPU per event (X) leaves the producers (P ns an event) on 2 CPUs.
# "8 threads at R ev/s": 8 threads paced together at LTTng's 1-thread rate
# of the run (anchor.c's RATE), default channel, both tracers' discards.
# Traces go to tmpfs (/dev/shm, or $BENCH_OUT): this disk writes ~210 MB/s,
# less than either tracer produces, and the disk is not what is measured.
# Both consumers sleep until an app closes a packet (their default for user
# space: no read timer; trawl's apps write the channel's eventfd, LTTng's
# their stream's pipe).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build-ust}
N=${2:-10000000}
B=$build/bin
T=$(mktemp -d "${BENCH_OUT:-/dev/shm}/trawl-bench-ust.XXXXXX")
chmod 755 "$T"
export HOME=$T/home TRAWL_RUNTIME_DIR=$T/run TRAWL_ROOT_RUNTIME_DIR=$T/rootrun
mkdir -p "$HOME"
started_lttng=
cleanup() {
	"$B/trawl" destroy --all >/dev/null 2>&1
	for f in "$T"/run/sessiond.lock "$T"/rootrun/sessiond.lock; do
		[ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	[ -n "$started_lttng" ] && kill "$started_lttng" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

for p in "$B/bench-ust-anchor-trawl" "$B/bench-ust-anchor-lttng" "$B/bench-ust-clock" "$B/trawl"; do
	[ -x "$p" ] || { echo "bench/ust: $p missing (build first)" >&2; exit 1; }
done
# Start-up with no daemon: how long loading the tracer library (its
# constructors) holds the program, median of 11, in microseconds.
startup() { # LIBRARY ENV...
	local lib=$1 i
	shift
	for i in 1 2 3 4 5 6 7 8 9 10 11; do
		env "$@" "$B/bench-ust-startup" "$lib"
	done | sort -n | sed -n 6p
}
lttng_root_running=no
pgrep -x lttng-sessiond >/dev/null && lttng_root_running=yes
R_start_trawl=$(startup "$build/lib/libtrawl-ust.so.0" TRAWL_RUNTIME_DIR="$T/none" TRAWL_ROOT_RUNTIME_DIR="$T/none-root")
R_start_lttng=$(startup liblttng-ust.so.1 LTTNG_HOME="$T/none")
# A provider .so: its constructor is where each tracer waits for its daemon
# (trawl: TRAWL_UST_REGISTER_TIMEOUT, 200 ms at most; LTTng: 3 s).
R_start_trawl_tp=$(startup "$build/lib/libbench-ust-tp-trawl.so" TRAWL_RUNTIME_DIR="$T/none" TRAWL_ROOT_RUNTIME_DIR="$T/none-root")
R_start_lttng_tp=-
[ -f "$build/lib/libbench-ust-tp-lttng.so" ] &&
	R_start_lttng_tp=$(startup "$build/lib/libbench-ust-tp-lttng.so" LTTNG_HOME="$T/none")
# ... and with trawl's daemon up and a session enabling every event: the
# time until the app is set up (registration done), so its first events count.
R_start_trawl_tpd=-
R_start_trawl_multi=-
if "$B/trawl" create startup --output "$T/startup" >/dev/null &&
	"$B/trawl" enable-event -u -a >/dev/null && "$B/trawl" start >/dev/null; then
	R_start_trawl_tpd=$(startup "$build/lib/libbench-ust-tp-trawl.so")
	# Four providers in four libraries (a program linked with them): one
	# registration, then each later provider added on the same connection.
	R_start_trawl_multi=$(startup "$build/lib/libbench-ust-multi.so")
fi
"$B/trawl" destroy startup >/dev/null 2>&1

if ! lttng list >/dev/null 2>&1; then
	lttng-sessiond --daemonize >/dev/null 2>&1
	# The daemon's own pid file (root's: /var/run/lttng), not the newest
	# process of that name: lttng-sessiond forks a helper of the same
	# name, and killing only that left the daemon running after the bench.
	for i in 1 2 3 4 5 6 7 8 9 10; do
		started_lttng=$(cat /var/run/lttng/lttng-sessiond.pid 2>/dev/null)
		[ -n "$started_lttng" ] && break
		sleep 0.1
	done
	[ -n "$started_lttng" ] || started_lttng=$(pgrep -o -x lttng-sessiond)
fi

# The consumer daemons' CPU time (user + system), thread by thread: "TID NS"
# lines, from /proc/PID/task/*/schedstat's first field (ns), else utime +
# stime in ticks. cpu_delta SNAP0 SNAP1 adds what each thread of SNAP1 ran
# since SNAP0 (a thread new since then, all of its time), so that a thread
# that ended, or another daemon's, never makes the sum go back.
cpu_tasks() { # PID...
	local p t v hz
	hz=$(getconf CLK_TCK)
	for p in "$@"; do
		for t in /proc/"$p"/task/*; do
			if [ -r "$t/schedstat" ] && read -r v _ <"$t/schedstat" 2>/dev/null; then
				echo "${t##*/} $v"
			elif v=$(awk '{print $14 + $15}' "$t/stat" 2>/dev/null); then
				echo "${t##*/} $((v * 1000000000 / hz))"
			fi
		done
	done
}
cpu_delta() { # SNAP0 SNAP1
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); t0[f[1]] = f[2] }
		n = split(b, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " ")
			if (f[1] != "" && f[2] >= t0[f[1]]) s += f[2] - t0[f[1]] }
		printf "%d\n", s }'
}
# The consumer daemons' sleeps so far, thread by thread: "TID N" lines
# (voluntary_ctxt_switches of /proc/PID/task/*/status), for cpu_delta.
wake_tasks() { # PID...
	local p t v
	for p in "$@"; do
		for t in /proc/"$p"/task/*; do
			v=$(awk '/^voluntary_ctxt_switches:/ {print $2}' "$t/status" 2>/dev/null) &&
				[ -n "$v" ] && echo "${t##*/} $v"
		done
	done
}
# per_s COUNT NS0 NS1: COUNT per second of the time between
per_s() { awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { if (b > a) printf "%.0f", n * 1e9 / (b - a); else print "-" }'; }
# idle_wakes PIDS...: the sleeps per second of 2 s of nothing, after what an
# app left (0.5 s); "-" unless IDLE is set
idle_wakes() {
	local w0 w1 t0 t1
	[ -n "${IDLE:-}" ] || { echo -; return; }
	sleep 0.5
	w0=$(wake_tasks "$@"); t0=$(date +%s%N)
	sleep 2
	w1=$(wake_tasks "$@"); t1=$(date +%s%N)
	per_s "$(cpu_delta "$w0" "$w1")" "$t0" "$t1"
}
# trawl's consumers: trawl-consumerd children of this run's session daemon.
cons_pids_trawl() {
	local f p
	for f in "$T"/run/sessiond.lock "$T"/rootrun/sessiond.lock; do
		[ -f "$f" ] || continue
		for p in $(pgrep -P "$(cat "$f")" -x trawl-consumerd); do echo "$p"; done
	done
}
# LTTng's: lttng-consumerd children of the lttng-sessiond this run started
# (else of every lttng-sessiond: then another user's tracing counts too).
cons_pids_lttng() {
	local s
	for s in ${started_lttng:-$(pgrep -x lttng-sessiond)}; do pgrep -P "$s" -x lttng-consumerd; done
}

# disk_stats DIR N [CPU_NS] -> "bytes_per_event content_per_event discarded
# consumer_ms_per_GB" (stream files of every channel; CPU_NS: the consumers'
# CPU time while they wrote them)
disk_stats() {
	/usr/bin/python3 - "$1" "$2" "${3:-0}" <<'PY'
import glob, os, struct, sys
d, n, cpu = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
size = disc = content = 0
for idx in glob.glob(d + "/**/index/*.idx", recursive=True):
    stream = os.path.join(os.path.dirname(os.path.dirname(idx)), os.path.basename(idx)[:-4])
    size += os.path.getsize(stream)
    data = open(idx, "rb").read()
    magic, major, minor, elen = struct.unpack(">IIII", data[:16])
    for off in range(16, len(data) - elen + 1, elen):
        content += struct.unpack(">Q", data[off + 16:off + 24])[0] // 8
    if len(data) >= 16 + elen:
        last = data[16 + (len(data) - 16) // elen * elen - elen:]
        disc += struct.unpack(">Q", last[40:48])[0]
kept = n - disc
# no consumer thread found, or none ran: "-"
print("%.2f %.2f %d %s" % (size / kept if kept else 0, content / kept if kept else 0, disc,
                           "%.0f" % (cpu / size * 1e3) if size and cpu > 0 else "-"))
PY
}

# run_trawl MODE THREADS EVENT CHANNEL-OPTIONS... -> the program's line, then disk stats
run_trawl() {
	local out=$T/trace-trawl-$1-$2-$# mode=$1 th=$2 ev=$3 pids c0 c1 w0 w1 t0 t1 idle
	shift 3
	"$B/trawl" create bench --output "$out" >/dev/null || return 1
	"$B/trawl" enable-channel -u ch "$@" >/dev/null || return 1
	"$B/trawl" enable-event -u "$ev" -c ch ${FILTER:+--filter "$FILTER"} >/dev/null || return 1
	if [ ${#CTX[@]} -gt 0 ]; then "$B/trawl" add-context -u -c ch "${CTX[@]}" >/dev/null || return 1; fi
	"$B/trawl" start >/dev/null || return 1
	pids=$(cons_pids_trawl)
	c0=$(cpu_tasks $pids); w0=$(wake_tasks $pids); t0=$(date +%s%N)
	"$B/bench-ust-anchor-trawl" "$mode" "$th" "$N" ${RATE:+"$RATE"}
	idle=$(idle_wakes $pids)
	"$B/trawl" stop >/dev/null
	c1=$(cpu_tasks $pids); w1=$(wake_tasks $pids); t1=$(date +%s%N)
	"$B/trawl" destroy >/dev/null
	disk_stats "$out" "$N" "$(cpu_delta "$c0" "$c1")"
	echo "$(per_s "$(cpu_delta "$w0" "$w1")" "$t0" "$t1") $idle $(cpu_delta "$w0" "$w1")"
	rm -rf "$out"
}

run_lttng() {
	local out=$T/trace-lttng-$1-$2-$# s=trawlbench$$ mode=$1 th=$2 ev=$3 pids c0 c1 w0 w1 t0 t1 idle
	shift 3
	lttng create "$s" --output "$out" >/dev/null || return 1
	lttng enable-channel -u ch -s "$s" "$@" >/dev/null || return 1
	lttng enable-event -u "$ev" -c ch -s "$s" ${FILTER:+--filter "$FILTER"} >/dev/null || return 1
	if [ ${#CTX[@]} -gt 0 ]; then lttng add-context -u -c ch -s "$s" "${CTX[@]}" >/dev/null || return 1; fi
	lttng start "$s" >/dev/null || return 1
	pids=$(cons_pids_lttng)
	c0=$(cpu_tasks $pids); w0=$(wake_tasks $pids); t0=$(date +%s%N)
	"$B/bench-ust-anchor-lttng" "$mode" "$th" "$N" ${RATE:+"$RATE"}
	idle=$(idle_wakes $pids)
	lttng stop "$s" >/dev/null
	c1=$(cpu_tasks $pids); w1=$(wake_tasks $pids); t1=$(date +%s%N)
	lttng destroy "$s" >/dev/null
	disk_stats "$out" "$N" "$(cpu_delta "$c0" "$c1")"
	echo "$(per_s "$(cpu_delta "$w0" "$w1")" "$t0" "$t1") $idle $(cpu_delta "$w0" "$w1")"
	rm -rf "$out"
}

# snap_TRACER THREADS -> the program's line, in a snapshot (flight recorder)
# session: nothing is drained, so this times the tracer alone, without the
# consumer's copy competing for this machine's two CPUs.
snap_trawl() {
	"$B/trawl" create snap --snapshot --output "$T/snap" >/dev/null || return 1
	"$B/trawl" enable-event -u anchor:ev >/dev/null || return 1
	"$B/trawl" start >/dev/null || return 1
	"$B/bench-ust-anchor-trawl" tp "$1" "$N"
	"$B/trawl" stop >/dev/null
	"$B/trawl" destroy >/dev/null
}

snap_lttng() {
	local s=trawlsnap$$
	lttng create "$s" --snapshot --output "$T/snapl" >/dev/null || return 1
	lttng enable-event -u anchor:ev -s "$s" >/dev/null || return 1
	lttng start "$s" >/dev/null || return 1
	"$B/bench-ust-anchor-lttng" tp "$1" "$N"
	lttng stop "$s" >/dev/null
	lttng destroy "$s" >/dev/null
}

declare -A R
CTX=() # add-context -u options for run_TRACER
measure() { # TRACER
	local tr=$1 f big=(--subbuf-size 4M --num-subbuf 8) extra=()
	f=( $(IDLE=1 run_$tr tp 1 anchor:ev "${big[@]}" "${extra[@]}" | tr '\n' ' ') )
	R[$tr.ns1]=${f[1]}; R[$tr.bpe]=${f[4]}; R[$tr.cpe]=${f[5]}; R[$tr.disc1]=${f[6]}; R[$tr.cpu1]=${f[7]}
	R[$tr.wake1]=${f[8]}; R[$tr.idle]=${f[9]}; R[$tr.wn1]=${f[10]}
	f=( $(run_$tr tp 2 anchor:ev "${big[@]}" "${extra[@]}" | tr '\n' ' ') )
	R[$tr.eps2]=${f[3]}; R[$tr.disc2]=${f[6]}; R[$tr.cpu2]=${f[7]}; R[$tr.wake2]=${f[8]}; R[$tr.wn2]=${f[10]}
	R[$tr.bpe2]=${f[4]}
	f=( $(run_$tr tp 1 anchor:ev "${extra[@]}" | tr '\n' ' ') )
	R[$tr.nsdef]=${f[1]}; R[$tr.discdef]=${f[6]}; R[$tr.cpudef]=${f[7]}; R[$tr.wakedef]=${f[8]}
	R[$tr.wndef]=${f[10]}; R[$tr.bpedef]=${f[4]}
	# 8 threads on the 2 CPUs, together at LTTng's 1-thread rate of this
	# run (measured first), the default channel: what a program with
	# more threads than CPUs at a rate LTTng-UST sustains loses.
	R[pace.rate]=$(awk -v ns="${R[lttng.ns1]}" 'BEGIN { if (ns > 0) printf "%.0f", 1e9 / ns; else print 7700000 }')
	f=( $(RATE=${R[pace.rate]} run_$tr tp 8 anchor:ev | tr '\n' ' ') )
	R[$tr.discpace]=${f[6]}; R[$tr.epspace]=${f[3]}
	# A filter that half the events pass (a is the loop counter): both
	# tracers evaluate it before reserving; rejected events cost no space.
	f=( $(FILTER='(a & 1) == 0' run_$tr tp 1 anchor:ev "${big[@]}" "${extra[@]}" | tr '\n' ' ') )
	R[$tr.nsfilt]=${f[1]}; R[$tr.cpefilt]=${f[5]}
	f=( $(run_$tr tracef 1 lttng_ust_tracef:event "${big[@]}" "${extra[@]}" | tr '\n' ' ') )
	R[$tr.tracef]=${f[1]}
	f=( $(snap_$tr 1) )
	R[$tr.snap1]=${f[3]}
	f=( $(snap_$tr 2) )
	R[$tr.snap2]=${f[3]}
	# The disabled loop: the fastest of 5 runs of 20 M (6 ms each), so that
	# the row shows the check and not what preemption adds to one run. One
	# run of 100 M gave trawl 1.7x LTTng-UST's time in three runs of this
	# bench (December 6th, 03:44), not reproduced since: both loops are the
	# same load, test and branch (trawl's one instruction shorter: callgrind
	# 7.0 vs 8.1 per iteration), and the fastest of 30 runs is 0.28 ns for
	# both, wherever the loop sits in a 64-byte line.
	R[$tr.dis]=$(for i in 1 2 3 4 5; do "$B/bench-ust-anchor-$tr" disabled 1 20000000; done |
		awk '{print $2}' | sort -n | head -1)
}
measure lttng
measure trawl

# Context rows: a system call per event makes them ~20x slower, so N/10
# events, and the two tracers alternate over 3 rounds (median of each):
# this host's system call cost drifts by 2x within a minute under load.
median3() { printf "%s\n" "$@" | sort -n | sed -n 2p; }
ctx_rows() {
	local tr big=(--subbuf-size 4M --num-subbuf 8) f round
	local -A v
	local N=$((N / 10))
	for round in 1 2 3; do
		for tr in lttng trawl; do
			local extra=()
			CTX=(-t perf:thread:page-fault)
			f=( $(run_$tr tp 1 anchor:ev "${big[@]}" "${extra[@]}" | tr '\n' ' ') )
			v[$tr.perf]+=" ${f[1]}"; R[$tr.perfdisc]=${f[6]}
			[ "$tr" = trawl ] || continue
			CTX=(-t prio -t nice)
			f=( $(run_$tr tp 1 anchor:ev "${big[@]}" "${extra[@]}" | tr '\n' ' ') )
			v[$tr.prionice]+=" ${f[1]}"
			CTX=(-t nice)
			f=( $(run_$tr tp 1 anchor:ev "${big[@]}" "${extra[@]}" | tr '\n' ' ') )
			v[$tr.nice]+=" ${f[1]}"
		done
	done
	CTX=()
	for k in lttng.perf trawl.perf trawl.prionice trawl.nice; do
		R[$k]=$(median3 ${v[$k]})
	done
}
ctx_rows

# For scale: what the clocks cost here (bench-ust-clock: the fastest of 51
# short rounds), the clock trawl's session daemon chose for user-space
# traces (the metadata's: 1 GHz is CLOCK_MONOTONIC, else the TSC), and the
# ratio trawl cannot go below with it: its clock read alone over LTTng-UST's
# whole event (LTTng-UST reads CLOCK_MONOTONIC).
scale_rows() {
	local f out=$T/trace-clock
	f=( $("$B/bench-ust-clock") )
	R[mono]=${f[1]}; R[tsc]=${f[3]}; R[tsco]=${f[5]}
	R[clock]=-
	if "$B/trawl" create clock --output "$out" >/dev/null && "$B/trawl" enable-event -u anchor:ev >/dev/null &&
		"$B/trawl" start >/dev/null; then
		"$B/bench-ust-anchor-trawl" tp 1 1000 >/dev/null
		"$B/trawl" stop >/dev/null
		f=$(find "$out" -path '*/ust/*' -name metadata -exec grep -ao 'freq = [0-9]*' {} + | head -1)
		f=${f##* }
		case $f in
		1000000000) R[clock]=monotonic; R[clockns]=${R[mono]} ;;
		[0-9]*) R[clock]="tsc $f Hz"; R[clockns]=${R[tsc]} ;;
		esac
	fi
	"$B/trawl" destroy clock >/dev/null 2>&1
	rm -rf "$out"
}
scale_rows

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
eps1() { awk -v ns="$1" 'BEGIN { printf "%.0f", 1e9 / ns }'; }
printf "%-34s %14s %14s %8s\n" "ANCHORS program, $N events" "LTTng-UST" "trawl" "ratio"
printf "%-34s %14s %14s %8s\n" "1 thread, ns/event" "${R[lttng.ns1]}" "${R[trawl.ns1]}" "$(ratio "${R[trawl.ns1]}" "${R[lttng.ns1]}")"
printf "%-34s %14s %14s %8s\n" "1 thread, events/s" "$(eps1 "${R[lttng.ns1]}")" "$(eps1 "${R[trawl.ns1]}")" "$(ratio "$(eps1 "${R[trawl.ns1]}")" "$(eps1 "${R[lttng.ns1]}")")"
sub() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b != "") printf "%.1f", a - b; else print "-" }'; }
printf "%-34s %14s %14s %8s\n" "  same, above its clock read, ns" "$(sub "${R[lttng.ns1]}" "${R[mono]}")" \
	"$(sub "${R[trawl.ns1]}" "${R[clockns]:-}")" \
	"$([ -n "${R[clockns]:-}" ] && ratio "$(sub "${R[trawl.ns1]}" "${R[clockns]}")" "$(sub "${R[lttng.ns1]}" "${R[mono]}")" || echo -)"
printf "%-34s %14s %14s\n" "  for scale: trawl's clock" "monotonic" "${R[clock]}"
printf "%-34s %14s %14s\n" "  for scale: clock_gettime MONO, ns" "${R[mono]}" "${R[mono]}"
printf "%-34s %14s %14s\n" "  for scale: rdtsc (lfence+), ns" "${R[tsc]} (${R[tsco]})" "${R[tsc]} (${R[tsco]})"
printf "%-34s %14s %14s %8s\n" "  for scale: ratio floor" "" "" "$([ -n "${R[clockns]:-}" ] && ratio "${R[clockns]}" "${R[lttng.ns1]}" || echo -)"
echo "  (floor: trawl's clock read alone over LTTng-UST's whole event; the fastest of 51 short rounds of each read)"
printf "%-34s %14s %14s %8s\n" "2 threads, aggregate events/s" "${R[lttng.eps2]}" "${R[trawl.eps2]}" "$(ratio "${R[trawl.eps2]}" "${R[lttng.eps2]}")"
printf "%-34s %14s %14s\n" "2 threads / 1 thread rate" "$(ratio "${R[lttng.eps2]}" "$(eps1 "${R[lttng.ns1]}")")" "$(ratio "${R[trawl.eps2]}" "$(eps1 "${R[trawl.ns1]}")")"
# What the consumer's CPU per byte allows two threads on two CPUs: the
# producers (P ns an event, 1 thread) and the consumer (X ns of CPU an
# event, its CPU time over the events of the 2-thread run) share the 2 CPUs,
# so at best 2 events take P + X of CPU each: 2P / (P + X) times one thread.
xns() { awk -v c="$1" -v b="$2" 'BEGIN { if (c > 0 && b > 0) printf "%.1f", c * b / 1000; else print "-" }'; }
ceil2() { awk -v p="$1" -v x="$2" 'BEGIN { if (p > 0 && x > 0) printf "%.2f", 2 * p / (p + x); else print "-" }'; }
for tr in lttng trawl; do R[$tr.x2]=$(xns "${R[$tr.cpu2]}" "${R[$tr.bpe2]}"); done
printf "%-34s %14s %14s\n" "  ceiling 2P/(P+X)" "$(ceil2 "${R[lttng.ns1]}" "${R[lttng.x2]}")" "$(ceil2 "${R[trawl.ns1]}" "${R[trawl.x2]}")"
printf "%-34s %14s %14s\n" "  X: consumer CPU ns/event, 2 thr." "${R[lttng.x2]}" "${R[trawl.x2]}"
printf "%-34s %14s %14s %8s\n" "no consumer: 1 thread events/s" "${R[lttng.snap1]}" "${R[trawl.snap1]}" "$(ratio "${R[trawl.snap1]}" "${R[lttng.snap1]}")"
printf "%-34s %14s %14s %8s\n" "no consumer: 2 threads events/s" "${R[lttng.snap2]}" "${R[trawl.snap2]}" "$(ratio "${R[trawl.snap2]}" "${R[lttng.snap2]}")"
printf "%-34s %14s %14s\n" "no consumer: 2 threads / 1 thread" "$(ratio "${R[lttng.snap2]}" "${R[lttng.snap1]}")" "$(ratio "${R[trawl.snap2]}" "${R[trawl.snap1]}")"
printf "%-34s %14s %14s %8s\n" "filter '(a & 1) == 0', ns/event" "${R[lttng.nsfilt]}" "${R[trawl.nsfilt]}" "$(ratio "${R[trawl.nsfilt]}" "${R[lttng.nsfilt]}")"
# Events kept: the filtered run's packet contents over one event's bytes.
kept() { awk -v f="$1" -v c="$2" -v n="$N" 'BEGIN { if (c > 0) printf "%.0f", f * n / c; else print "-" }'; }
printf "%-34s %14s %14s\n" "  same, events recorded (~N/2)" "$(kept "${R[lttng.cpefilt]}" "${R[lttng.cpe]}")" "$(kept "${R[trawl.cpefilt]}" "${R[trawl.cpe]}")"
printf "%-34s %14s %14s %8s\n" "tracef(\"%d %s\"), ns/event" "${R[lttng.tracef]}" "${R[trawl.tracef]}" "$(ratio "${R[trawl.tracef]}" "${R[lttng.tracef]}")"
printf "%-34s %14s %14s %8s\n" "disabled tracepoint, ns" "${R[lttng.dis]}" "${R[trawl.dis]}" "$(ratio "${R[trawl.dis]}" "${R[lttng.dis]}")"
printf "%-34s %14s %14s %8s\n" "bytes/event on disk (files)" "${R[lttng.bpe]}" "${R[trawl.bpe]}" "$(ratio "${R[trawl.bpe]}" "${R[lttng.bpe]}")"
printf "%-34s %14s %14s %8s\n" "bytes/event (packet contents)" "${R[lttng.cpe]}" "${R[trawl.cpe]}" "$(ratio "${R[trawl.cpe]}" "${R[lttng.cpe]}")"
printf "%-34s %14s %14s %8s\n" "start-up, no daemon, us" "$R_start_lttng" "$R_start_trawl" "$(ratio "$R_start_trawl" "$R_start_lttng")"
printf "%-34s %14s %14s\n" "start-up, provider .so, no daemon, us" "$R_start_lttng_tp" "$R_start_trawl_tp"
printf "%-34s %14s %14s\n" "  same, daemon + session, us" "-" "$R_start_trawl_tpd"
printf "%-34s %14s %14s\n" "  4 providers, daemon + session, us" "-" "$R_start_trawl_multi"
echo "  (LTTng: a root lttng-sessiond was running during its start-up run: $lttng_root_running)"
printf "%-34s %14s %14s\n" "discarded, 1 thread, big channel" "${R[lttng.disc1]}" "${R[trawl.disc1]}"
printf "%-34s %14s %14s\n" "discarded, 2 threads, big channel" "${R[lttng.disc2]}" "${R[trawl.disc2]}"
printf "%-34s %14s %14s %8s\n" "default channel: ns/event" "${R[lttng.nsdef]}" "${R[trawl.nsdef]}" "$(ratio "${R[trawl.nsdef]}" "${R[lttng.nsdef]}")"
printf "%-34s %14s %14s\n" "default channel: discarded" "${R[lttng.discdef]}" "${R[trawl.discdef]}"
printf "%-34s %14s %14s\n" "8 threads paced, default: discarded" "${R[lttng.discpace]}" "${R[trawl.discpace]}"
printf "%-34s %14s %14s\n" "  same, events/s reached" "${R[lttng.epspace]}" "${R[trawl.epspace]}"
echo "  (paced: 8 threads together at ${R[pace.rate]} events/s, LTTng's 1-thread rate of this run, in bursts of 1000 events)"
printf "%-34s %14s %14s %8s\n" "consumer CPU ms/GB, 1 thread" "${R[lttng.cpu1]}" "${R[trawl.cpu1]}" "$(ratio "${R[trawl.cpu1]}" "${R[lttng.cpu1]}")"
printf "%-34s %14s %14s %8s\n" "consumer CPU ms/GB, 2 threads" "${R[lttng.cpu2]}" "${R[trawl.cpu2]}" "$(ratio "${R[trawl.cpu2]}" "${R[lttng.cpu2]}")"
printf "%-34s %14s %14s %8s\n" "consumer CPU ms/GB, default ch." "${R[lttng.cpudef]}" "${R[trawl.cpudef]}" "$(ratio "${R[trawl.cpudef]}" "${R[lttng.cpudef]}")"
echo "  (consumer daemons' user + system CPU time over the bytes of their stream files, run and stop; -: none found)"
printf "%-34s %14s %14s %8s\n" "consumer wake-ups/s, 1 thread" "${R[lttng.wake1]}" "${R[trawl.wake1]}" "$(ratio "${R[trawl.wake1]}" "${R[lttng.wake1]}")"
printf "%-34s %14s %14s %8s\n" "consumer wake-ups/s, 2 threads" "${R[lttng.wake2]}" "${R[trawl.wake2]}" "$(ratio "${R[trawl.wake2]}" "${R[lttng.wake2]}")"
printf "%-34s %14s %14s %8s\n" "consumer wake-ups/s, default ch." "${R[lttng.wakedef]}" "${R[trawl.wakedef]}" "$(ratio "${R[trawl.wakedef]}" "${R[lttng.wakedef]}")"
printf "%-34s %14s %14s %8s\n" "consumer wake-ups/s, idle" "${R[lttng.idle]}" "${R[trawl.idle]}" "$(ratio "${R[trawl.idle]}" "${R[lttng.idle]}")"
# Per GB of stream files: trawl's apps produce more bytes a second, so a
# consumer woken once a packet wakes more often a second for the same work.
per_gb() { awk -v w="$1" -v b="$2" -v n="$N" -v d="$3" 'BEGIN { if (w != "" && b > 0 && n > d) printf "%.0f", w / (b * (n - d) / 1e9); else print "-" }'; }
for k in 1 2 def; do
	for tr in lttng trawl; do
		bp=${R[$tr.bpe]}
		[ $k = 2 ] && bp=${R[$tr.bpe2]}
		[ $k = def ] && bp=${R[$tr.bpedef]}
		d=${R[$tr.disc$k]}
		R[$tr.wgb$k]=$(per_gb "${R[$tr.wn$k]}" "$bp" "${d:-0}")
	done
done
printf "%-34s %14s %14s %8s\n" "consumer wake-ups/GB, 1 thread" "${R[lttng.wgb1]}" "${R[trawl.wgb1]}" "$(ratio "${R[trawl.wgb1]}" "${R[lttng.wgb1]}")"
printf "%-34s %14s %14s %8s\n" "consumer wake-ups/GB, 2 threads" "${R[lttng.wgb2]}" "${R[trawl.wgb2]}" "$(ratio "${R[trawl.wgb2]}" "${R[lttng.wgb2]}")"
printf "%-34s %14s %14s %8s\n" "consumer wake-ups/GB, default ch." "${R[lttng.wgbdef]}" "${R[trawl.wgbdef]}" "$(ratio "${R[trawl.wgbdef]}" "${R[lttng.wgbdef]}")"
echo "  (sleeps of every consumer thread per second, or per GB of stream files, run and stop; idle: 2 s with the session started, the app gone)"
printf "%-34s %14s %14s %8s\n" "perf:thread:page-fault, ns/event*" "${R[lttng.perf]}" "${R[trawl.perf]}" "$(ratio "${R[trawl.perf]}" "${R[lttng.perf]}")"
printf "%-34s %14s %14s\n" "  same, discarded" "${R[lttng.perfdisc]}" "${R[trawl.perfdisc]}"
printf "%-34s %14s %14s\n" "prio + nice, ns/event*" "-" "${R[trawl.prionice]}"
printf "%-34s %14s %14s\n" "nice alone, ns/event*" "-" "${R[trawl.nice]}"
echo "  (*: N/10 events, 1 thread, big channel, median of 3 alternating runs)"
