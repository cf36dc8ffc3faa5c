#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-fuzz.sh FUZZER WORKDIR: seeds from the CTF corpus (fuzz/reader's
# make-seeds.sh, "packet" inputs) and the regression inputs, ~20 s of fuzzing.
set -u
fuzzer=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/seeds" "$work/corpus" "$work/crashes"
"$here/../reader/make-seeds.sh" packet "$work/seeds" || exit 77
cp "$here/regress"/* "$work/seeds/" 2>/dev/null
cd "$work"
"$fuzzer" -max_total_time=20 -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
	-artifact_prefix="$work/crashes/" corpus seeds 2>fuzz.log
rc=$?
tail -n 3 fuzz.log
if [ $rc -ne 0 ]; then
	echo "fuzzer found a problem; input saved in $work/crashes (add it to fuzz/export/regress):"
	grep -E "ERROR|SUMMARY" fuzz.log | head -5
fi
exit $rc
