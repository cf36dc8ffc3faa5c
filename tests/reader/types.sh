#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every field type, both byte orders, many text options: trawl-view must
# print exactly what babeltrace2 prints (stdout, and the discarded-records
# warnings on stderr), with the decode plans and with the tree walker.
set -u
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 not installed"; exit 77; }
view=${TRAWL_BIN_DIR:?}/trawl-view
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
for bo in le be; do
	python3 "$here/gen_types.py" "$tmp/$bo" "$bo" || { echo "FAIL: generator"; exit 1; }
done
cd "$tmp"
check() { # ENV-ASSIGNMENT OPTIONS...
	local envs=$1 bo r1 r2
	shift
	for bo in le be; do
		env TZ=Europe/Paris babeltrace2 "$@" "$bo" > bt.out 2> bt.err; r1=$?
		env TZ=Europe/Paris $envs "$view" "$@" "$bo" > tv.out 2> tv.err; r2=$?
		if ! cmp -s bt.out tv.out || [ "$r1" != "$r2" ]; then
			echo "FAIL [$envs $*] $bo: exit $r1/$r2"
			diff bt.out tv.out | head -n 4 | cut -c1-240
			fail=1
		fi
		if ! diff <(grep '^WARNING' bt.err) <(grep '^WARNING' tv.err) > /dev/null; then
			echo "FAIL [$envs $*] $bo: warnings differ"
			diff <(grep '^WARNING' bt.err) <(grep '^WARNING' tv.err) | head -n 4
			fail=1
		fi
	done
}
for e in "" TRAWL_READER_NO_PLAN=1; do
	check "$e"
	check "$e" -n none
	check "$e" -n all -f all
	check "$e" -n payload
	check "$e" -n header,scope
	check "$e" -f loglevel,emf
	check "$e" -f trace,trace:domain
	check "$e" --no-delta --clock-cycles
	check "$e" --clock-seconds
	check "$e" --clock-date --clock-gmt
	check "$e" --clock-offset=-2 --clock-offset-ns=1999999999
	check "$e" --clock-offset-ns=-123456789
	check "$e" --begin=22:13:20.510 --end=22:13:20.512 --clock-gmt
done
[ $fail = 0 ] && echo "types: all outputs identical to babeltrace2"
exit $fail
