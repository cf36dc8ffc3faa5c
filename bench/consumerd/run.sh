#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/consumerd/run.sh BUILD [BASE_BUILD] [PACKETS]
#
# Instructions the consumers' packet path executes per packet
# (trawl_output_stream_packet() and all it calls, user space only: the
# system calls' kernel work is not counted), counted by callgrind on
# bench-cons-packet, for BUILD and, side by side in the same run, for
# BASE_BUILD (a build of the commit to compare with; its
# bench-cons-packet, or the same source linked with its libtrawl-output.a
# and libtrawl-ctf.a when it predates this benchmark). Output to tmpfs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$1
base=${2:-}
packets=${3:-20000}
command -v valgrind >/dev/null || { echo "run.sh: valgrind not installed" >&2; exit 1; }
T=$(mktemp -d "${BENCH_OUT:-/dev/shm}/trawl-bench-cons.XXXXXX")
trap 'rm -rf "$T"' EXIT

# the bench program of build $1, made from this source when it has none
prog() {
	local b=$1 name=$2
	if [ -x "$b/bin/bench-cons-packet" ]; then
		echo "$b/bin/bench-cons-packet"
		return
	fi
	local ctf=$b/lib/libtrawl-ctf.a
	[ -f "$ctf" ] || ctf=$(find "$b" -name libtrawl-ctf.a | head -1)
	cc -O2 -D_GNU_SOURCE -I"$top/src" -o "$T/$name.bin" "$here/bench_packet.c" \
		"$b/lib/libtrawl-output.a" "$b/lib/libtrawl-relay-proto.a" "$ctf" \
		"$b/lib/libtrawl-common.a" -lpthread
	echo "$T/$name.bin"
}

count() {
	local p=$1 tag=$2
	mkdir -p "$T/$tag"
	valgrind --tool=callgrind --callgrind-out-file="$T/$tag.cg" \
		--toggle-collect=trawl_output_stream_packet "$p" "$T/$tag" "$packets" >/dev/null 2>"$T/$tag.err" ||
		{ cat "$T/$tag.err" >&2; exit 1; }
	rm -rf "${T:?}/$tag"
	local ir
	ir=$(callgrind_annotate "$T/$tag.cg" 2>/dev/null | sed -n 's/^ *\([0-9,]*\) .*PROGRAM TOTALS.*/\1/p' | tr -d ,)
	echo "$ir"
}

new=$(count "$(prog "$build" new)" new)
printf '%-10s %14s instructions, %8.1f per packet\n' "build" "$new" "$(echo "$new / $packets" | bc -l)"
if [ -n "$base" ]; then
	old=$(count "$(prog "$base" base)" base)
	printf '%-10s %14s instructions, %8.1f per packet\n' "base" "$old" "$(echo "$old / $packets" | bc -l)"
	printf 'ratio build/base: %.3f\n' "$(echo "$new / $old" | bc -l)"
fi
