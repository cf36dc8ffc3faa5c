#!/bin/sh
# SPDX-License-Identifier: MIT
# trawltop's bad input: one line on stderr naming what was wrong, non-zero exit.
set -u
TOP=$TRAWL_BIN_DIR/trawltop
[ -x "$TOP" ] || { echo "SKIP: trawltop not built"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # expected-status pattern args...
	want=$1 pat=$2; shift 2
	"$TOP" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null; got=$?
	lines=$(wc -l <"$tmp/err")
	if [ "$got" != "$want" ] || [ "$lines" != 1 ] || ! grep -q -- "$pat" "$tmp/err"; then
		echo "FAIL: trawltop $*: status $got (want $want), stderr:"; cat "$tmp/err"; fail=1
	fi
}
check 1 "$tmp/nope" --batch "$tmp/nope"
mkdir "$tmp/empty"
check 1 "$tmp/empty" --batch "$tmp/empty"
printf '/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le; garbage' >"$tmp/empty/metadata"
check 1 "metadata" --batch "$tmp/empty"
check 2 "not a number of seconds" --batch -d abc "$tmp"
check 2 "not a number of seconds" --batch -d -1 "$tmp"
check 2 "not a count" --batch -n x "$tmp"
check 2 "not a number of seconds" --batch --begin 1.5x "$tmp"
check 2 "not a number of seconds" --batch -d 1e12 "$tmp"
check 2 "no such view" --batch --view nope "$tmp"
check 2 "needs --batch" --json "$tmp"
"$TOP" --help | grep -q -- "--batch" || { echo "FAIL: --help"; fail=1; }
exit $fail
