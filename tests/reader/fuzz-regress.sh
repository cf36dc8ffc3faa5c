#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fuzz-regress.sh KIND DRIVER: replays the corpus seeds and the saved
# crash inputs through the fuzz target's entry point (no libFuzzer needed).
set -u
kind=$1 driver=$2
src=${TRAWL_SOURCE_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$src/fuzz/reader/make-seeds.sh" "$kind" "$tmp/seeds" || exit $?
exec "$driver" "$tmp/seeds" "$src/fuzz/reader/regress-$kind"
