#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-fuzz.sh KIND FUZZER WORKDIR: seeds WORKDIR/seeds from the CTF corpus
# (make-seeds.sh) and the regression inputs, then fuzzes for ~20 s.
set -u
kind=$1 fuzzer=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/seeds" "$work/corpus" "$work/crashes"
"$here/make-seeds.sh" "$kind" "$work/seeds" || exit 77
cp "$here/regress-$kind"/* "$work/seeds/" 2>/dev/null
cd "$work"
# -timeout is a hang detector, not a speed test: an input of 256 KiB can
# hold ~60,000 events, each decoded (and, for fuzz-export, written four
# ways) under ASan+UBSan with coverage at -O1, on a CI machine whose two
# cores are shared with another fuzzer. fuzz_export passed 10 s once (CI of
# 0e14c25); locally, 23,000 runs at -timeout=2 found no input that slow.
# A loop that never ends still fails here, and
# inputs over 5 s are named in fuzz.log (-report_slow_units).
"$fuzzer" -max_total_time=20 -timeout=60 -report_slow_units=5 -rss_limit_mb=2048 -max_len=262144 \
	-artifact_prefix="$work/crashes/" corpus seeds 2>fuzz.log
rc=$?
tail -n 3 fuzz.log
if [ $rc -ne 0 ]; then
	echo "fuzzer found a problem; input saved in $work/crashes (add it to fuzz/reader/regress-$kind):"
	grep -E "ERROR|SUMMARY" fuzz.log | head -5
	# killed by a signal libFuzzer does not catch (SIGPIPE, say): no report of its own
	[ $rc -gt 128 ] && echo "the fuzzer was killed by signal $((rc - 128))"
fi
exit $rc
