#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A trace recorded by LTTng-UST 2.13 itself (Debian's lttng-tools and
# liblttng-ust-dev): every field kind, the vpid/vtid/procname/ip contexts,
# and a channel small enough to discard events. trawl-view must print what
# babeltrace2 prints, byte for byte, and the same discard warnings.
#
# The session daemon runs as user nobody with a private LTTNG_HOME, so it
# never meets another test's or another user's daemon; it is stopped by
# its own pid at the end.
set -u
view=${TRAWL_BIN_DIR:?}/trawl-view
here=$(cd "$(dirname "$0")" && pwd)
for c in lttng lttng-sessiond babeltrace2 setpriv cc; do
	command -v $c >/dev/null || { echo "SKIP: $c not installed"; exit 77; }
done
[ -f /usr/include/x86_64-linux-gnu/lttng/tracepoint.h ] || [ -f /usr/include/lttng/tracepoint.h ] ||
	{ echo "SKIP: liblttng-ust-dev not installed"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (to run the daemon as nobody)"; exit 77; }

tmp=$(mktemp -d /tmp/trawl-lttng-test.XXXXXX)
chmod 755 "$tmp"
home=$tmp/home
mkdir -p "$home" && chown 65534:65534 "$home"
sd_pid=""
cleanup() {
	[ -n "$sd_pid" ] && kill "$sd_pid" 2>/dev/null
	sleep 0.2
	rm -rf "$tmp"
}
trap cleanup EXIT
asnobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -i PATH=/usr/bin:/bin HOME="$home" LTTNG_HOME="$home" "$@"
}

# the traced program, against the system's LTTng-UST headers only
cp "$here/lttng/tp.h" "$here/lttng/app.c" "$tmp/"
(cd "$tmp" && cc -O1 -I. -o app app.c -llttng-ust -ldl) ||
	{ echo "SKIP: cannot build an LTTng-UST program"; exit 77; }
chmod 755 "$tmp/app"

asnobody lttng-sessiond --daemonize --no-kernel > "$tmp/sd.log" 2>&1 ||
	{ echo "SKIP: lttng-sessiond does not start here"; cat "$tmp/sd.log"; exit 77; }
for i in $(seq 50); do
	sd_pid=$(pgrep -u 65534 -x lttng-sessiond | head -n 1)
	[ -n "$sd_pid" ] && break
	sleep 0.1
done
[ -n "$sd_pid" ] || { echo "SKIP: lttng-sessiond did not start"; exit 77; }

out=$home/trace
run() { asnobody lttng "$@" > "$tmp/lttng.log" 2>&1 || { echo "FAIL: lttng $*"; cat "$tmp/lttng.log"; exit 1; }; }
run create trawltest --output="$out"
run enable-channel -u small --subbuf-size=4096 --num-subbuf=2
run enable-event -u -c small 'trawltest:*'
run add-context -u -c small -t vpid -t vtid -t procname -t ip
run start
asnobody "$tmp/app" 20000 || { echo "FAIL: traced program"; exit 1; }
run stop
run destroy

export TZ=UTC
babeltrace2 "$out" > "$tmp/bt.out" 2> "$tmp/bt.err" || { echo "FAIL: babeltrace2 cannot read the trace"; exit 1; }
"$view" "$out" > "$tmp/tv.out" 2> "$tmp/tv.err" || { echo "FAIL: trawl-view failed:"; cat "$tmp/tv.err"; exit 1; }
n=$(wc -l < "$tmp/bt.out")
[ "$n" -gt 100 ] || { echo "FAIL: only $n events recorded"; exit 1; }
fail=0
if ! cmp "$tmp/bt.out" "$tmp/tv.out"; then
	echo "FAIL: output differs from babeltrace2"
	diff "$tmp/bt.out" "$tmp/tv.out" | head -n 6 | cut -c1-300
	fail=1
fi
if ! diff <(grep '^WARNING' "$tmp/bt.err") <(grep '^WARNING' "$tmp/tv.err"); then
	echo "FAIL: discard warnings differ"
	fail=1
fi
echo "$n events, $(grep -c '^WARNING' "$tmp/bt.err") discard warnings, identical to babeltrace2: $([ $fail = 0 ] && echo yes || echo no)"
exit $fail
