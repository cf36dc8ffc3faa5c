#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A trace recorded by LTTng-UST 2.13 itself (Debian's lttng-tools and
# liblttng-ust-dev): every field kind, the vpid/vtid/procname/ip contexts,
# and a channel small enough to discard events. trawl-view must print what
# babeltrace2 prints, byte for byte, and the same discard warnings.
#
# LTTng's session daemon runs as user nobody (tests/lib/lttng-nobody.sh).
set -u
view=${TRAWL_BIN_DIR:?}/trawl-view
. "$(dirname "$0")/../lib/lttng-nobody.sh"
lttng_setup trawl-lttng-test lttng lttng-sessiond babeltrace2
lttng_app
lttng_sessiond

out=$home/trace
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
