#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `trawl view --live` against LTTng 2.13 itself: Debian's lttng-relayd and
# lttng-sessiond (as user nobody: tests/lib/lttng-nobody.sh) and an
# LTTng-UST program (tests/reader/lttng/app.c). lttng-relayd serves one
# viewer per session (a second gets ATTACH "already"), so babeltrace2 cannot
# follow it at the same time: trawl follows the live session from before
# the program starts to its end, and babeltrace2 then reads what
# lttng-relayd wrote; the two outputs must be the same, line by line.
set -u
trawl=${TRAWL_BIN_DIR:?}/trawl
. "$(dirname "$0")/../lib/lttng-nobody.sh"
lttng_setup trawl-lttng-live lttng lttng-sessiond lttng-relayd babeltrace2 python3
lttng_app

read -r c d l <<<"$(python3 -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))')"
asnobody lttng-relayd -o "$home/relay" -C tcp://127.0.0.1:$c -D tcp://127.0.0.1:$d \
	-L tcp://127.0.0.1:$l > "$tmp/relayd.log" 2>&1 &
lttng_pids+=($!)
lttng_sessiond
for i in $(seq 100); do
	asnobody lttng create s --live=100000 --set-url=net://127.0.0.1:$c:$d > "$tmp/lttng.log" 2>&1 && break
	sleep 0.1	# lttng-relayd still starting
done
grep -q "Live timer" "$tmp/lttng.log" || grep -q "created" "$tmp/lttng.log" ||
	{ echo "FAIL: lttng create --live"; cat "$tmp/lttng.log"; exit 1; }
run enable-event -u 'trawltest:*'
run start

url=net://127.0.0.1:$l/host/$(hostname)/s
"$trawl" view --live "$url" > "$tmp/trawl.out" 2> "$tmp/trawl.err" &
tv=$!
lttng_pids+=($tv)
# attached: the listing counts one client (bounded: ctest's timeout)
until babeltrace2 --input-format=lttng-live net://127.0.0.1:$l 2>/dev/null | grep -q "/s (.* 1 client(s)"; do
	kill -0 $tv 2>/dev/null || { echo "FAIL: trawl view --live ended before attaching:"; cat "$tmp/trawl.err"; exit 1; }
	sleep 0.1
done
asnobody "$tmp/app" 3000 || { echo "FAIL: traced program"; exit 1; }
run stop
run destroy
wait $tv; rt=$?
babeltrace2 "$home/relay" > "$tmp/bt.out" 2> "$tmp/bt.err"; rb=$?
[ $rb = 0 ] && [ ! -s "$tmp/bt.err" ] || { echo "FAIL: babeltrace2 (the oracle) exited $rb:"; head -c 2000 "$tmp/bt.err"; exit 1; }
[ $rt = 0 ] && [ ! -s "$tmp/trawl.err" ] || { echo "FAIL: trawl view --live exited $rt:"; cat "$tmp/trawl.err"; exit 1; }
n=$(grep -c "trawltest:" "$tmp/trawl.out")
[ "$n" = 9000 ] || { echo "FAIL: trawl view --live showed $n of 9000 events"; exit 1; }
if ! cmp "$tmp/bt.out" "$tmp/trawl.out"; then
	echo "FAIL: trawl view --live and babeltrace2 differ on LTTng's lttng-relayd"
	diff "$tmp/bt.out" "$tmp/trawl.out" | head -n 6 | cut -c1-300
	exit 1
fi
echo "LTTng 2.13 lttng-relayd: trawl view --live and babeltrace2 printed the same $n lines"
