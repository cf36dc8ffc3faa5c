# SPDX-License-Identifier: MIT
# Sourced by the tests that run LTTng 2.13 itself (Debian's lttng-tools and
# liblttng-ust-dev) beside trawl: tests/reader/lttng.sh, tests/view/lttng-live.sh.
# Its daemons run as user nobody with a private LTTNG_HOME, so they never
# meet another test's or another user's daemon; each is stopped by its own
# pid at the end.
#
#   lttng_setup NAME TOOL...  skips (exit 77, the reason said) without the
#                             tools, liblttng-ust-dev or root; makes $tmp
#                             (/tmp/NAME.XXXXXX) and $home (nobody's)
#   asnobody CMD...           runs CMD as nobody, in that home
#   lttng_app                 builds $tmp/app (tests/reader/lttng/app.c)
#                             against the system's LTTng-UST headers only
#   lttng_sessiond            starts lttng-sessiond (no kernel), waits for
#                             its pid (its pid file): $sd_pid
#   run ARGS...               lttng ARGS as nobody; a failure fails the test
#   lttng_pids+=(PID)         killed at exit, with the daemon
lttng_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
lttng_pids=()
sd_pid=""

lttng_setup() {
	local name=$1 c
	shift
	for c in "$@" setpriv cc; do
		command -v "$c" >/dev/null || { echo "SKIP: $c not installed"; exit 77; }
	done
	[ -f /usr/include/x86_64-linux-gnu/lttng/tracepoint.h ] || [ -f /usr/include/lttng/tracepoint.h ] ||
		{ echo "SKIP: liblttng-ust-dev not installed"; exit 77; }
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (to run LTTng's daemons as nobody)"; exit 77; }
	tmp=$(mktemp -d "/tmp/$name.XXXXXX")
	chmod 755 "$tmp"
	home=$tmp/home
	mkdir -p "$home" && chown 65534:65534 "$home"
	trap lttng_cleanup EXIT
}

lttng_cleanup() {
	local p
	for p in "${lttng_pids[@]}" $sd_pid; do kill "$p" 2>/dev/null; done
	sleep 0.2
	rm -rf "$tmp"
}

asnobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env -i PATH=/usr/bin:/bin HOME="$home" LTTNG_HOME="$home" "$@"
}

lttng_app() {
	cp "$lttng_here/../reader/lttng/tp.h" "$lttng_here/../reader/lttng/app.c" "$tmp/"
	(cd "$tmp" && cc -O1 -I. -o app app.c -llttng-ust -ldl) ||
		{ echo "SKIP: cannot build an LTTng-UST program"; exit 77; }
	chmod 755 "$tmp/app"
}

lttng_sessiond() {
	local i
	asnobody lttng-sessiond --daemonize --no-kernel > "$tmp/sd.log" 2>&1 ||
		{ echo "SKIP: lttng-sessiond does not start here"; cat "$tmp/sd.log"; exit 77; }
	# its own pid file, not the first lttng-sessiond of nobody's (another
	# such test's may run at the same time)
	for i in $(seq 50); do
		sd_pid=$(cat "$home/.lttng/lttng-sessiond.pid" 2>/dev/null)
		[ -n "$sd_pid" ] && return 0
		sleep 0.1
	done
	echo "SKIP: lttng-sessiond did not start"
	exit 77
}

run() {
	asnobody lttng "$@" > "$tmp/lttng.log" 2>&1 || { echo "FAIL: lttng $*"; cat "$tmp/lttng.log"; exit 1; }
}
