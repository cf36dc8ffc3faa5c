#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# trawl view --count, the command-line errors, -o ctf-metadata and
# --stream-intersection, checked on corpus traces against the numbers
# babeltrace2 reports (expected-warnings/, expected-special/).
set -u
view=${TRAWL_BIN_DIR:?}/trawl-view
corpus=""
for c in "${TRAWL_SHARED_DIR:-}/ctf-corpus" /work/shared/ctf-corpus; do
	[ -d "$c/succeed" ] && { corpus=$c; break; }
done
[ -n "$corpus" ] || { echo "SKIP: ctf-corpus not found"; exit 77; }
export TZ=UTC LC_ALL=C
fail=0
expect() { # DESCRIPTION GREP-PATTERN OUTPUT
	if ! grep -qE -- "$2" <<< "$3"; then
		echo "FAIL: $1: no \"$2\" in:"
		echo "$3" | head -n 8
		fail=1
	fi
}
out=$("$view" --count "$corpus/succeed/multi-domains")
expect "count multi-domains" '^ +4000  sample_component:message$' "$out"
expect "count multi-domains" '^ +4272  total \(2 event names\)$' "$out"
expect "count multi-domains" '^discarded: 728 events, 0 packets$' "$out"
expect "count multi-domains" '^time span: \[19:15:41.344453871\] to \[19:19:59.183651078\]' "$out"
out=$("$view" --count "$corpus/succeed/packet_seq_num-2_streams_lost_in_2")
expect "count lost packets" '^discarded: 0 events, 6 packets$' "$out"

out=$("$view" --no-such-option x 2>&1); rc=$?
[ $rc = 2 ] || { echo "FAIL: unknown option exit $rc"; fail=1; }
expect "unknown option" 'unknown or incomplete option' "$out"
out=$("$view" 2>&1); rc=$?
[ $rc = 2 ] || { echo "FAIL: no path exit $rc"; fail=1; }
out=$("$view" /nonexistent/trace 2>&1); rc=$?
[ $rc = 1 ] && [ "$(wc -l <<< "$out")" = 1 ] || { echo "FAIL: missing path: exit $rc, $out"; fail=1; }
expect "missing path" '/nonexistent/trace' "$out"

cmp <("$view" -o ctf-metadata "$corpus/succeed/wk-heartbeat-u") \
    "$corpus/expected-special/wk-heartbeat-u.ctf-metadata.txt" || { echo "FAIL: -o ctf-metadata"; fail=1; }
for t in 3eventsintersect 3eventsintersectreverse onestream; do
	cmp <("$view" --stream-intersection "$corpus/succeed/intersection-$t") \
	    "$corpus/expected-special/intersection-$t.stream-intersection.txt" ||
		{ echo "FAIL: --stream-intersection $t"; fail=1; }
done
for t in nointersect nostream; do
	"$view" --stream-intersection "$corpus/succeed/intersection-$t" > /dev/null 2>&1 &&
		{ echo "FAIL: --stream-intersection $t should fail"; fail=1; }
done
# -e runs another viewer with the trace paths
out=$("$view" -e echo "$corpus/succeed/succeed1")
[ "$out" = "$corpus/succeed/succeed1" ] || { echo "FAIL: -e echo gave $out"; fail=1; }
# --decode-only decodes everything and prints nothing: valid traces exit 0,
# invalid ones 1 with an error
for d in "$corpus"/succeed/*/; do
	out=$("$view" --decode-only "$d" 2>/dev/null); rc=$?
	[ $rc = 0 ] && [ -z "$out" ] || { echo "FAIL: --decode-only $d: exit $rc"; fail=1; }
done
for d in "$corpus"/fail/*/; do
	"$view" --decode-only "$d" > /dev/null 2>&1 && { echo "FAIL: --decode-only $d succeeded"; fail=1; }
done

# a few lines of metadata that expand into 2^40 fields: refused, quickly
bomb=$(mktemp -d)
{
	echo '/* CTF 1.8 */'
	echo 'typealias integer { size = 8; align = 8; signed = false; } := u8;'
	echo 'trace { major = 1; minor = 8; byte_order = le; };'
	echo 'struct s0 { u8 a; u8 b; };'
	for i in $(seq 1 39); do echo "struct s$i { struct s$((i - 1)) a; struct s$((i - 1)) b; };"; done
	echo 'event { name = e; fields := struct { struct s39 x; }; };'
} > "$bomb/metadata"
# (the timeout only stops a run that would never end: 2^40 fields)
out=$(timeout 120 "$view" "$bomb" 2>&1); rc=$?
rm -rf "$bomb"
[ $rc = 1 ] || { echo "FAIL: expanding metadata: exit $rc"; fail=1; }
expect "expanding metadata" 'too many fields' "$out"
[ $fail = 0 ] && echo "count, errors, metadata, intersection, viewer: ok"
exit $fail
