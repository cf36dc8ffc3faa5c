#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `trawl view` (the trawl command, not the trawl-view program) takes
# babeltrace2's options itself: the CTF corpus through `trawl view DIR`
# (check.sh), then babeltrace2's options on corpus traces and on the
# every-type trace, byte for byte against babeltrace2 (stdout and exit
# status), and the command line's errors (one line, exit 2).
set -u
command -v babeltrace2 >/dev/null || { echo "SKIP: babeltrace2 not installed"; exit 77; }
trawl=${TRAWL_BIN_DIR:?}/trawl
here=$(cd "$(dirname "$0")" && pwd)
corpus=""
for c in "${TRAWL_SHARED_DIR:-}/ctf-corpus" /work/shared/ctf-corpus; do
	[ -x "$c/check.sh" ] && { corpus=$c; break; }
done
[ -n "$corpus" ] || { echo "SKIP: ctf-corpus not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# no daemon is ever needed to view a folder: a private HOME proves it
export HOME=$tmp/home TRAWL_RUNTIME_DIR=$tmp/run TRAWL_ROOT_RUNTIME_DIR=$tmp/rootrun
mkdir -p "$HOME"
export TZ=UTC LC_ALL=C
fail=0

out=$("$corpus/check.sh" --newer "$trawl view" 2>&1) || { echo "$out" | tail -n 20; fail=1; }
echo "corpus through trawl view: $(tail -n 1 <<< "$out")"

"${TRAWL_PYTHON:-python3}" "$here/../reader/gen_types.py" "$tmp/types" le ||
	{ echo "FAIL: generator"; exit 1; }
traces=("$tmp/types" "$corpus/succeed/wk-heartbeat-u" "$corpus/succeed/multi-domains"
	"$corpus/succeed/ev-disc-no-ts-begin-end" "$corpus/succeed/session-rotation")
n=0
while read -r opts; do
	eval "args=($opts)"	# the words of the line, quotes honoured
	for t in "${traces[@]}"; do
		# babeltrace2's trimmer refuses a stream without packet times, where
		# the reader reads nothing (the reader's difference, as below)
		[[ $t == *ev-disc-no-ts* && ($opts == *--begin* || $opts == *--timerange*) ]] && continue
		babeltrace2 "${args[@]}" "$t" > "$tmp/bt" 2> /dev/null; r1=$?
		"$trawl" view "${args[@]}" "$t" > "$tmp/tv" 2> "$tmp/tv.err"; r2=$?
		n=$((n + 1))
		if [ "$r1" != "$r2" ] || ! cmp -s "$tmp/bt" "$tmp/tv"; then
			echo "FAIL: trawl view $opts $t: exit $r2 (babeltrace2 $r1)"
			diff "$tmp/bt" "$tmp/tv" | head -n 4 | cut -c1-240
			head -n 2 "$tmp/tv.err"
			fail=1
		fi
	done
done <<'OPTS'
--names all --fields all
--names=payload,context -f trace:hostname,loglevel
-n none
--no-delta --clock-cycles
--clock-seconds
--clock-date --clock-gmt
--clock-offset 3 --clock-offset-ns=-5
--begin 22:13:20.510 --end 22:13:20.512
--begin='2012-10-29 17:48:17.587' --clock-gmt
--timerange=[1351532897.5866,1351532897.59]
OPTS
# (--stream-intersection: tests/view/count.sh, on the corpus's intersection
# traces; on wk-heartbeat-u babeltrace2 2.0.4 refuses it and the reader
# does not, a difference of the reader's that is not the command's)
echo "options: $n runs compared with babeltrace2"

# the same options before the folder or after it, and a session name is
# a word, not an option's value
"$trawl" view "$tmp/types" --no-delta > "$tmp/a" && babeltrace2 --no-delta "$tmp/types" > "$tmp/b" &&
	cmp -s "$tmp/a" "$tmp/b" || { echo "FAIL: option after the folder"; fail=1; }
# trawl's own: --count and -o json through the command
"$trawl" view --count "$corpus/succeed/multi-domains" | grep -qE '^ +4272  total' ||
	{ echo "FAIL: trawl view --count"; fail=1; }

bad() { # WHAT ARGS...
	local what=$1
	shift
	"$trawl" view "$@" > "$tmp/out" 2> "$tmp/err"; local rc=$?
	if [ $rc != 2 ] || [ "$(wc -l < "$tmp/err")" != 1 ] || [ -s "$tmp/out" ] ||
	   ! grep -q -- "$what" "$tmp/err"; then
		echo "FAIL: trawl view $*: exit $rc (wanted 2, one line naming $what): $(cat "$tmp/err")"
		fail=1
	fi
}
bad "--bogus" --bogus "$tmp/types"
bad "--names" "$tmp/types" --names
bad "--no-delta" --no-delta=3 "$tmp/types"
bad "too many" "$tmp/types" "$tmp/types"
"$trawl" view --names nonsense "$tmp/types" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "invalid --names" "$tmp/err" || { echo "FAIL: --names nonsense: $rc"; fail=1; }
[ $fail = 0 ] && echo "trawl view: babeltrace2's options, same output"
exit $fail
