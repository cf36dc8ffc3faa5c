#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How long root waits for the root session daemon while a local user who is
# not in group 'tracing' attacks it (docs/SECURITY.md, tests/security/).
#
#   bench/security/run.sh [BUILD_DIR] [RUNS]      (default build, 20 runs)
#
# A private root daemon (trawl-sessiond --daemonize, TRAWL_ROOT_RUNTIME_DIR
# in a temporary folder), one throw-away non-member user running
# tests/security/attacker.py, and root timing, with no attack and then
# during each attack:
#   answer   trawl_ctl_connect() + disconnect, RUNS times in one process
#            (connect and one PING round trip: the daemon's answer time)
#   list     `trawl list`, RUNS times (the whole command, exec included)
# Printed: median and max in ms, commands that failed, the ratio of the
# attack's median to the no-attack median of the same run, the daemon's
# RSS and peak RSS (VmHWM) after the row, and the attacker's own account.
# The target: every row's answer under 100 ms.
#
# Attacks (each against root's apps.sock, which every user can connect to):
#   slowloris   200 connections sending a registration one byte per 0.5 s
#   fd-flood    4,000 idle connections
#   reg-bomb    8 registrations of 1,000 events x 1,024 fields (2 GB decoded)
#   mute-apps   50 registered apps that never answer, a root session active
#
# Then the agent port's cost per accepted connection (agent-conn.py: the
# daemon finds the peer's user, reads a registration of another domain and
# drops it), with no other TCP socket and with 5,000 idle ones held by the
# user: the median round trip and the daemon's CPU time per connection, for
# this build and, side by side, BEFORE=OLD_BUILD_DIR's (its own daemon).
# ONLY=agent: this row alone.
#
# Then root's `trawl list` while a member of 'tracing' (a second throw-away
# user) floods trigger hits with captures (tests/security/capture-flood.sh's
# attack, more programs): a trigger capturing 64 fields of twide:ev (f511
# 62 times), and CAPFLOOD_APPS programs (32; wide-app, of this build) that
# describe twide:ev as 512 fields and fire it 64 times every 20 ms: median
# and max of RUNS lists before the programs start and while they fire, for
# this build's daemon and BEFORE's, each in its own runtime folder with its
# own CLI and programs (this build's wide-app where BEFORE has none: a daemon
# of another ctl version refuses another build's CLI). ONLY=captures: this
# row alone.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
RUNS=${2:-20}
B=$build/bin
ATT=$top/tests/security/attacker.py
[ "$(id -u)" = 0 ] || { echo "bench/security: run as root (it creates a user)" >&2; exit 1; }
[ -x "$B/trawl-sessiond" ] || { echo "bench/security: build first ($B)" >&2; exit 1; }
T=$(mktemp -d /tmp/trawl-bench-sec.XXXXXX)
chmod 755 "$T"
export HOME=$T/home TRAWL_RUNTIME_DIR=$T/run TRAWL_ROOT_RUNTIME_DIR=$T/rootrun
mkdir -p "$HOME"
U=trawlbench$$
UM=trawlbenchm$$ # a member of 'tracing' (the capture flood), made there
att_pid=
cleanup() {
	[ -n "$att_pid" ] && kill "$att_pid" 2>/dev/null
	"$B/trawl" destroy --all >/dev/null 2>&1
	[ -f "$T/rootrun/sessiond.lock" ] && kill "$(cat "$T/rootrun/sessiond.lock")" 2>/dev/null
	pkill -u "$U" 2>/dev/null
	userdel "$U" 2>/dev/null
	if getent passwd "$UM" >/dev/null; then
		pkill -u "$UM" 2>/dev/null
		userdel "$UM" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT
useradd -M -N -d "$T" "$U" || exit 1
"$B/trawl-sessiond" --daemonize || exit 1
dpid=$(cat "$T/rootrun/sessiond.lock")
apps=$T/rootrun/apps.sock

# Prints "median max failed" of RUNS connect+PING (ms), in one process.
answer() {
	timeout 300 "$B/bench-security-ping" "$RUNS" || echo "- - $RUNS"
}

# Prints "median max failed" of RUNS `trawl list` (ms; each bounded by 30 s).
measure() {
	local i t0 t1 all=() failed=0
	for ((i = 0; i < RUNS; i++)); do
		t0=$(date +%s%N)
		timeout 30 "${CLI:-$B}/trawl" list >/dev/null 2>&1 || failed=$((failed + 1))
		t1=$(date +%s%N)
		all+=($(((t1 - t0) / 1000)))
	done
	printf '%s\n' "${all[@]}" | sort -n |
		awk -v f=$failed '{v[NR] = $1} END {printf "%.1f %.1f %d", v[int((NR + 1) / 2)] / 1000, v[NR] / 1000, f}'
}

# attack NAME ARGS...: starts the attacker, waits for "ready", measures.
row() {
	local name=$1; shift
	rm -f "$T/stop"
	runuser -u "$U" -- env ATTACK_STOP="$T/stop" python3 "$ATT" "$@" >"$T/att.out" 2>&1 &
	att_pid=$!
	for _ in $(seq 600); do
		grep -q ready "$T/att.out" && break
		kill -0 "$att_pid" 2>/dev/null || break
		sleep 0.1
	done
	local t0=$SECONDS
	read -r amed amax afailed < <(answer)
	read -r med max failed < <(measure)
	local rss hwm
	rss=$(awk '/VmRSS/ {print $2}' "/proc/$dpid/status" 2>/dev/null)
	hwm=$(awk '/VmHWM/ {print $2}' "/proc/$dpid/status" 2>/dev/null)
	# Long enough for the daemon's deadlines (5 s, 3 s) to show in the
	# attacker's account.
	while ((SECONDS - t0 < 8)); do sleep 0.5; done
	touch "$T/stop"
	wait "$att_pid" 2>/dev/null
	att_pid=
	printf '%-10s %8s %8s %6s %5s | %8s %8s %6s %5s | %5s %5s  %s\n' "$name" \
		"$amed" "$amax" "$(ratio "$amed" "$abase")" "$afailed" \
		"$med" "$max" "$(ratio "$med" "$base")" "$failed" \
		"$((rss / 1024))" "$((hwm / 1024))" "$(grep -v ready "$T/att.out" | tail -1)"
	sleep 1
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", (b > 0 ? a / b : 0)}'; }

if [ -z "${ONLY:-}" ]; then
echo "root's commands, $RUNS runs per row: answer (connect + PING) and \`trawl list\` in ms;"
echo "failed: runs that failed; daemon RSS and peak RSS in MiB after the row"
printf '%-10s %8s %8s %6s %5s | %8s %8s %6s %5s | %5s %5s  %s\n' attack answer max ratio fail \
	list max ratio fail rss peak attacker
read -r abase abmax abfailed < <(answer)
read -r base bmax bfailed < <(measure)
printf '%-10s %8s %8s %6s %5s | %8s %8s %6s %5s | %5s %5s\n' none "$abase" "$abmax" 1.0 "$abfailed" \
	"$base" "$bmax" 1.0 "$bfailed" \
	"$(($(awk '/VmRSS/ {print $2}' "/proc/$dpid/status") / 1024))" \
	"$(($(awk '/VmHWM/ {print $2}' "/proc/$dpid/status") / 1024))"
row slowloris slowloris "$apps" 200 600
row fd-flood flood "$apps" 4000 600
row reg-bomb regbomb "$apps" 8 1000 1024 600
"$B/trawl" create benchsess -o "$T/trace" >/dev/null
"$B/trawl" enable-event -u -a >/dev/null
"$B/trawl" start >/dev/null
row mute-apps mute "$apps" 50 600
"$B/trawl" destroy benchsess >/dev/null
echo "log: $(stat -c '%a %U:%G %s bytes' "$T/rootrun/sessiond.log")"
fi

if [ -z "${ONLY:-}" ] || [ "$ONLY" = agent ]; then
# agent_conns BIN_DIR: "rtt cpu" per agent-port connection (ms), AGENT_CONNS
# of them, against a daemon of BIN_DIR in its own runtime folder.
AGENT_CONNS=${AGENT_CONNS:-300}
agent_conns() {
	local rt=$T/agentrun.$RANDOM p out
	mkdir -p "$rt"
	TRAWL_RUNTIME_DIR=$rt TRAWL_ROOT_RUNTIME_DIR=$rt "$1/trawl-sessiond" --daemonize || {
		echo "- -"
		return
	}
	p=$(cat "$rt/sessiond.lock")
	out=$(timeout 300 python3 "$top/bench/security/agent-conn.py" conns "$(cat "$rt/agent.port")" \
		"$p" "$AGENT_CONNS") || out="- -"
	kill "$p" 2>/dev/null
	echo "$out"
}
builds=("$B")
[ -n "${BEFORE:-}" ] && builds+=("$BEFORE/bin")
declare -A agent_row
for b in "${builds[@]}"; do agent_row[$b]="$(agent_conns "$b")"; done
coproc HOLDER { runuser -u "$U" -- python3 "$top/bench/security/agent-conn.py" hold 2500 2>"$T/holder.err"; }
read -r -t 120 _ <&"${HOLDER[0]}" || echo "the holder of 5,000 sockets did not start: $(cat "$T/holder.err")"
held=$(($(wc -l </proc/net/tcp) - 1))
for b in "${builds[@]}"; do agent_row[$b]="${agent_row[$b]} $(agent_conns "$b")"; done
eval "exec ${HOLDER[1]}>&-"
wait "$HOLDER_PID" 2>/dev/null
echo
echo "agent port, per accepted connection ($AGENT_CONNS each): median round trip ms, daemon CPU ms;"
echo "without, then with the user's 5,000 idle TCP sockets (/proc/net/tcp: $held lines)"
printf '%-40s %8s %8s | %8s %8s\n' build rtt cpu rtt cpu
for b in "${builds[@]}"; do
	# shellcheck disable=SC2086
	printf '%-40s %8s %8s | %8s %8s\n' "$b" ${agent_row[$b]}
done
fi

# capture_flood BIN_DIR: "median max failed" of root's `trawl list` (ms)
# before UM's programs start, then again while they flood hits with 64
# captures of a 512-field event, against a daemon of BIN_DIR.
CAPFLOOD_APPS=${CAPFLOOD_APPS:-32}
capture_flood() {
	local rt=$T/caprun.$RANDOM p i k pids=() base fl caps=(--capture f000) app=$1/wide-app
	[ -x "$app" ] || app=$B/wide-app
	mkdir -p "$rt"
	chmod 755 "$rt"
	TRAWL_ROOT_RUNTIME_DIR=$rt "$1/trawl-sessiond" --daemonize || {
		echo "- - - - - -"
		return
	}
	p=$(cat "$rt/sessiond.lock")
	for ((i = 0; i < 62; i++)); do caps+=(--capture f511); done
	caps+=(--capture f003)
	runuser -u "$UM" -- env HOME="$T/um" TRAWL_RUNTIME_DIR="$T/um/run" TRAWL_ROOT_RUNTIME_DIR="$rt" \
		"$1/trawl" add-trigger --name wide --condition event-rule-matches --type=user \
		--name=twide:ev "${caps[@]}" --action notify >/dev/null
	base=$(CLI=$1 TRAWL_ROOT_RUNTIME_DIR=$rt measure)
	rm -f "$T/wide.stop"
	for ((i = 0; i < CAPFLOOD_APPS; i++)); do
		runuser -u "$UM" -- env HOME="$T/um" TRAWL_RUNTIME_DIR="$T/um/run" \
			TRAWL_ROOT_RUNTIME_DIR="$rt" "$app" "$T/wide.stop" >"$T/wide.$i" 2>&1 &
		pids+=($!)
	done
	for ((i = 0; i < CAPFLOOD_APPS; i++)); do
		for ((k = 0; k < 600; k++)); do
			grep -q '^ready' "$T/wide.$i" && break
			sleep 0.1
		done
	done
	fl=$(CLI=$1 TRAWL_ROOT_RUNTIME_DIR=$rt measure)
	touch "$T/wide.stop"
	wait "${pids[@]}" 2>/dev/null
	kill "$p" 2>/dev/null
	echo "$base" "$fl"
}
if [ -z "${ONLY:-}" ] || [ "$ONLY" = captures ]; then
	[ -x "$B/wide-app" ] || { echo "bench/security: no $B/wide-app" >&2; exit 1; }
	getent group tracing >/dev/null || groupadd -r tracing || exit 1
	useradd -M -N -d "$T/um" -G tracing "$UM" || exit 1
	mkdir -p "$T/um" && chown "$UM" "$T/um"
	builds=("$B")
	[ -n "${BEFORE:-}" ] && builds+=("$BEFORE/bin")
	echo
	echo "root's \`trawl list\` ($RUNS runs, ms) while a member's $CAPFLOOD_APPS programs fire hits of a"
	echo "trigger capturing 64 fields of a 512-field event (64 hits each every 20 ms)"
	printf '%-40s %8s %8s | %8s %8s %6s %5s\n' build idle max flood max ratio fail
	for b in "${builds[@]}"; do
		read -r bmed bmax _ med max failed < <(capture_flood "$b")
		printf '%-40s %8s %8s | %8s %8s %6s %5s\n' "$b" "$bmed" "$bmax" "$med" "$max" \
			"$(ratio "$med" "$bmed")" "$failed"
	done
fi
