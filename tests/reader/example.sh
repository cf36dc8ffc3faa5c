#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's reader example and the one in <trawl/reader.h>'s comment,
# extracted, built as the README says (pkg-config trawl-reader, here the
# build tree's) with gcc and clang, C99 and C11, warnings as errors, and
# run on corpus traces: the events and lost counts babeltrace2 reports.
set -u
src=${TRAWL_SOURCE_DIR:?run through ctest}
build=${TRAWL_BUILD_DIR:?}
corpus=""
for c in "${TRAWL_SHARED_DIR:-}/ctf-corpus" /work/shared/ctf-corpus; do
	[ -d "$c/succeed" ] && { corpus=$c; break; }
done
[ -n "$corpus" ] || { echo "SKIP: ctf-corpus not found"; exit 77; }
command -v pkg-config > /dev/null || { echo "SKIP: pkg-config not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C PKG_CONFIG_PATH=$build/lib/pkgconfig
fail=0

# the README's: the C block after the marker
awk '/<!-- reader-example/ { f = 1; next } f && /^```c/ { p = 1; next } p && /^```/ { exit } p' \
	"$src/README.md" > "$tmp/events.c"
# the header's: its comment's first program, without the " *\t" before each line
awk '/^ \*\t#include <inttypes.h>/ { p = 1 } p { sub(/^ \*\t?/, ""); print } p && /^}$/ { exit }' \
	"$src/include/trawl/reader.h" > "$tmp/header.c"
for f in events header; do
	[ "$(wc -l < "$tmp/$f.c")" -gt 20 ] || { echo "FAIL: no $f example found"; exit 1; }
done

# the build tree's .pc has no rpath (an installed one needs none): ours, for running from here
flags=$(pkg-config --cflags --libs trawl-reader) && libdir=$(pkg-config --variable=libdir trawl-reader) ||
	{ echo "FAIL: pkg-config trawl-reader"; exit 1; }
for cc in gcc clang; do
	command -v $cc > /dev/null || continue
	for std in c99 c11; do
		for f in events header; do
			# shellcheck disable=SC2086
			if ! $cc -std=$std -Wall -Wextra -Werror -o "$tmp/$f-$cc-$std" "$tmp/$f.c" $flags -Wl,-rpath,"$libdir" \
				2> "$tmp/cc.log"; then
				echo "FAIL: $f.c with $cc -std=$std:"; head -n 10 "$tmp/cc.log"; fail=1
			fi
		done
	done
done
[ $fail = 0 ] || exit 1

# multi-domains: 4272 events over two traces, 728 lost (babeltrace2's count)
t=$corpus/succeed/multi-domains
out=$("$tmp/events-gcc-c99" "$t") || { echo "FAIL: events exited $?"; exit 1; }
n=$(grep -c ' cpu[0-9]* ' <<< "$out")
[ "$n" = 4272 ] || { echo "FAIL: events printed $n events, not 4272"; fail=1; }
grep -qx 'lost: 728 events' <<< "$out" || { echo "FAIL: events: no 'lost: 728 events'"; fail=1; }
# the first event, as babeltrace2 shows it ("intfield = 0, ..., arrfield2 = \"test\"")
head -n 1 <<< "$out" | grep -q '^1565032541\.344453871 cpu0 lttng_test_filter_event {intfield=0 intfield2=0 .*arrfield2="test"' ||
	{ echo "FAIL: events' first line: $(head -c 200 <<< "$out")"; fail=1; }
out=$("$tmp/header-clang-c11" "$t") || { echo "FAIL: header example exited $?"; exit 1; }
[ "$(wc -l <<< "$out")" = 4272 ] || { echo "FAIL: header example printed $(wc -l <<< "$out") lines"; fail=1; }
# an error: one line naming the path, exit 1
out=$("$tmp/events-clang-c99" /nonexistent/trace 2>&1); rc=$?
[ $rc = 1 ] && [ "$(wc -l <<< "$out")" = 1 ] && grep -q /nonexistent/trace <<< "$out" ||
	{ echo "FAIL: events on a missing path: exit $rc, $out"; fail=1; }
[ $fail = 0 ] && echo "examples: built with gcc and clang (C99, C11), 4272 events and 728 lost, as babeltrace2"
exit $fail
