#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the kernel consumer's opener costs (src/consumerd/opener.c): `trawl
# start` and `trawl stop` of a kernel session, and `snapshot record`, for
# root's own session (files opened in place, no opener) and for a 'tracing'
# member's (an opener forked as the member), alternating in the same run.
# Prints medians in ms and the member/root ratio.
#
# usage: bench/security/opener.sh BIN_DIR [ROUNDS]   (as root; makes and removes a user)
set -u
BIN=${1:?usage: opener.sh BIN_DIR [ROUNDS]}
N=${2:-15}
[ "$(id -u)" = 0 ] || { echo "needs root" >&2; exit 1; }
T=$(mktemp -d /tmp/trawl-bench-opener.XXXXXX)
chmod 755 "$T"
U=trawlbo$$
export TRAWL_ROOT_RUNTIME_DIR=$T/rootrun HOME=$T
getent group tracing >/dev/null || groupadd -r tracing
useradd -M -N -d "$T/$U" -G tracing "$U" && mkdir -p "$T/$U" "$T/root" && chown "$U" "$T/$U"
cleanup() {
	kill "$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock" 2>/dev/null)" 2>/dev/null
	sleep 0.3
	userdel "$U" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
"$BIN/trawl-sessiond" --daemonize || exit 1

# as WHO CMD...: runs CMD as root or as the member, through the same wrapper
as() {
	local u=$U
	[ "$1" = root ] && u=root
	shift
	runuser -u "$u" -- env HOME="$T/$u" TRAWL_RUNTIME_DIR="$T/$u/run" \
		TRAWL_ROOT_RUNTIME_DIR="$TRAWL_ROOT_RUNTIME_DIR" "$@"
}
run() { local who=$1; shift; as "$who" "$BIN/trawl" "$@"; }
# ms WHO CMD...: the wall time of `trawl CMD` in microseconds
ms() {
	local who=$1 a b; shift
	a=$(date +%s%N); run "$who" "$@" >/dev/null 2>&1; b=$(date +%s%N)
	echo $(((b - a) / 1000))
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)] / 1000}'; }

for i in $(seq "$N"); do
	for who in root member; do
		d=$T/$who-$i
		[ "$who" = member ] && d=$T/$U/t-$i
		run "$who" create "b$i" -o "$d" >/dev/null 2>&1
		run "$who" enable-event -k -s "b$i" sched_switch >/dev/null 2>&1
		ms "$who" start "b$i" >>"$T/$who.start"
		ms "$who" stop "b$i" >>"$T/$who.stop"
		run "$who" destroy "b$i" >/dev/null 2>&1
		run "$who" create "s$i" --snapshot -o "$d-snap" >/dev/null 2>&1
		run "$who" enable-event -k -s "s$i" sched_switch >/dev/null 2>&1
		run "$who" start "s$i" >/dev/null 2>&1
		ms "$who" snapshot record -s "s$i" >>"$T/$who.snap"
		run "$who" destroy "s$i" >/dev/null 2>&1
	done
done
printf "%-16s %10s %10s %7s   (%d rounds, medians)\n" "" "root ms" "member ms" "ratio" "$N"
for what in start stop snap; do
	r=$(median <"$T/root.$what")
	m=$(median <"$T/member.$what")
	printf "%-16s %10.1f %10.1f %7.2f\n" "$what" "$r" "$m" "$(echo "$m / $r" | bc -l)"
done
