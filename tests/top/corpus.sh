#!/bin/sh
# SPDX-License-Identifier: MIT
# trawltop over every trace of the shared CTF corpus, good and malformed, in
# short intervals: no crash (an ASan build also fails on leaks), and a trace
# that does not decode gives exit 1 with one line on stderr.
set -u
TOP=$TRAWL_BIN_DIR/trawltop
corpus=$(dirname "$0")/../../../shared/ctf-corpus
[ -x "$TOP" ] || { echo "SKIP: trawltop not built"; exit 77; }
[ -d "$corpus/succeed" ] || { echo "SKIP: no CTF corpus at $corpus"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for d in "$corpus"/succeed/* "$corpus"/fail/*; do
	[ -d "$d" ] || continue
	n=$((n + 1))
	"$TOP" --batch -d 0.001 -n 50 "$d" >/dev/null 2>"$tmp/err"; rc=$?
	case "$rc" in
	0) ;;
	1) [ "$(wc -l <"$tmp/err")" = 1 ] || { echo "FAIL: $d: exit 1 without one line:"; cat "$tmp/err"; fail=1; } ;;
	*) echo "FAIL: $d: exit $rc"; head -5 "$tmp/err"; fail=1 ;;
	esac
	"$TOP" --batch --json -d 0 "$d" 2>/dev/null | /usr/bin/python3 -c '
import json, sys
for line in sys.stdin:
    json.loads(line)' || { echo "FAIL: $d: --json is not JSON"; fail=1; }
done
echo "$n traces"
exit $fail
