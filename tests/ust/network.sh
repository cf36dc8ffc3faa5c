#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctf_integer_network(_hex) as LTTng-UST 2.13 records it. One LTTng-UST
# classic-API program (net/: a sockaddr_in's port and address, 64/32/16/8-bit
# values in network byte order) is built against LTTng-UST and against
# trawl's compatibility headers; each tracer records it in two channels, one
# unfiltered and one with a filter on the network fields. babeltrace2 must
# print the same payloads for both traces (the port reads 8000, not 16415),
# and both filters must keep the same events.
. "$(dirname "$0")/../cli/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

skip() { echo "SKIP: $*"; exit 77; }
for c in lttng lttng-sessiond babeltrace2 setpriv cc; do
	command -v $c >/dev/null || skip "$c not installed"
done
[ -f /usr/include/x86_64-linux-gnu/lttng/tracepoint.h ] || [ -f /usr/include/lttng/tracepoint.h ] ||
	skip "liblttng-ust-dev not installed"
[ "$(id -u)" = 0 ] || skip "needs root (to run LTTng's daemon as nobody)"
[ -x "$BIN/ust-app-net" ] || skip "ust-app-net not built"
have_ust || skip "no user-space support in this build"

N=20
FILTER='port == 8005 || (addr == 0x0a000301 && s32 < 0) || v64 == 5000015 || u16hex == 0xfffe || s16 == -1'

# LTTng-UST: its daemon as nobody with a private LTTNG_HOME, stopped by pid.
lhome=$T/lttng-home
mkdir -p "$lhome" "$T/lt" && chown 65534:65534 "$lhome"
sd_pid=
trap '[ -n "$sd_pid" ] && kill "$sd_pid" 2>/dev/null; cleanup' EXIT
asnobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -i PATH=/usr/bin:/bin HOME="$lhome" LTTNG_HOME="$lhome" "$@"
}
cp "$here/net/tp.h" "$here/net/tp.c" "$here/net/app.c" "$T/lt/"
(cd "$T/lt" && cc -O1 -I. -o app app.c tp.c -llttng-ust -ldl) || skip "cannot build an LTTng-UST program"
chmod 755 "$T/lt" "$T/lt/app"
asnobody lttng-sessiond --daemonize --no-kernel >"$T/lsd.log" 2>&1 || skip "lttng-sessiond does not start"
for i in $(seq 50); do
	sd_pid=$(pgrep -u 65534 -x lttng-sessiond | head -n 1)
	[ -n "$sd_pid" ] && break
	sleep 0.1
done
[ -n "$sd_pid" ] || skip "lttng-sessiond did not start"

record() { # TOOL OUT RUNNER APP: the same session with either tool
	local tool=$1 out=$2 runner=$3 app=$4
	$runner $tool create net --output="$out" >/dev/null &&
		$runner $tool enable-channel -u all >/dev/null &&
		$runner $tool enable-channel -u filt >/dev/null &&
		$runner $tool enable-event -u -c all tnet:peer >/dev/null &&
		$runner $tool enable-event -u -c filt tnet:peer --filter "$FILTER" >/dev/null &&
		$runner $tool start >/dev/null || { fail "$tool: session set-up failed"; return 1; }
	$runner "$app" $N || fail "$tool: the traced program failed"
	$runner $tool stop >/dev/null && $runner $tool destroy >/dev/null || fail "$tool: stop failed"
}
as_root() { "$@"; }
record lttng "$lhome/trace" asnobody "$T/lt/app"
record "$TRAWL" "$T/trawl-trace" as_root "$BIN/ust-app-net"

payloads() { # TRACE: each event's payload, sorted
	babeltrace2 "$1" 2>"$T/bt.err" | sed -E 's/^.* tnet:peer: \{ cpu_id = [0-9]+ \}, //' | sort
	[ -s "$T/bt.err" ] && fail "babeltrace2 warned on $1: $(head -3 "$T/bt.err")"
}
payloads "$lhome/trace" >"$T/lttng.txt"
payloads "$T/trawl-trace" >"$T/trawl.txt"
n=$(wc -l <"$T/lttng.txt")
[ "$n" -gt "$N" ] || fail "LTTng recorded $n events: expected $N and the filtered ones"
if ! diff "$T/lttng.txt" "$T/trawl.txt" >"$T/diff"; then
	fail "payloads differ from LTTng-UST's (< LTTng, > trawl):"
	head -8 "$T/diff" >&2
fi
grep -q "{ i = 0, port = 8000, addr = 0xA000001, host_port = 8000, " "$T/trawl.txt" ||
	fail "trawl: port/address not read as given: $(head -1 "$T/trawl.txt")"
echo "$n events (of $N, and $((n - N)) through the filter), identical to LTTng-UST's: $(cmp -s "$T/lttng.txt" "$T/trawl.txt" && echo yes || echo no)"
finish
