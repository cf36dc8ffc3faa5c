#!/bin/sh
# SPDX-License-Identifier: MIT
# run_random.sh DIR GEN PYTHON LE|BE SEED...: for each seed, writes a random
# trace with GEN and checks it (values with check_random.py, index files with
# check_index.py).
set -e
dir=$1 gen=$2 py=$3 bo=$4
shift 4
here=$(dirname "$0")
for seed in "$@"; do
	rm -rf "$dir"
	"$gen" "$dir" "$bo" "$seed" || { echo "FAIL: seed $seed: generator"; exit 1; }
	"$py" "$here/check_random.py" "$dir" || { echo "FAIL: seed $seed"; exit 1; }
	"$py" "$here/check_index.py" "$dir" || { echo "FAIL: seed $seed"; exit 1; }
done
