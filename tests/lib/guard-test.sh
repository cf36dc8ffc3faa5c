#!/bin/sh
# SPDX-License-Identifier: MIT
# trawl-test-guard: a detached child (setsid, as a daemon makes itself) of a
# test that is killed with SIGKILL is stopped by the guard's watcher.
set -u
guard=$TRAWL_BIN_DIR/trawl-test-guard
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$guard" sh -c 'setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > "$1"; kill -9 $$' sh "$t/pid"
pid=$(cat "$t/pid")
[ -n "$pid" ] || { echo "FAIL: no child pid"; exit 1; }
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$pid" 2>/dev/null; then
	kill "$pid"; echo "FAIL: the detached child $pid outlived its killed test"; exit 1
fi
echo "ok: detached child stopped"
