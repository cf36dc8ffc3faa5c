#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Buffer memory, trawl vs LTTng-UST 2.13, side by side in one run, for the
# same explicit channel (--subbuf-size 1M --num-subbuf 4, per-uid and
# per-pid buffers):
#
#   bench/memory/run.sh [BUILD_DIR] [FEW_EVENTS] [MANY_EVENTS]
#                       (default build, 1000, 200000)
#
# 1 app, then 10 apps, each pinned to CPU 0 (taskset), each recording the
# ANCHORS.md event FEW_EVENTS times (a few pages) or MANY_EVENTS times (more
# than its 4 MiB CPU buffer holds), then holding its buffers while the bench
# reads /proc (bench/memory/mem.py): the buffers' shared memory actually
# allocated (memfd/shm files' st_blocks) and their size, per app and per CPU
# (the traced CPU's stream and the ones that never traced), each app's RSS
# increase from tracing, the session and consumer daemons' RSS. LTTng runs as
# a user made for the run (tests/lib/lttngref.py: its own lttng-sessiond,
# deleted at the end); trawl with private runtime folders. Root only.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build}
for p in "$build/bin/trawl" "$build/bin/bench-memory-app-trawl" "$build/bin/bench-memory-app-lttng"; do
	[ -x "$p" ] || { echo "bench/memory: $p missing (build first, with liblttng-ust-dev)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "bench/memory: run as root (LTTng runs as a user made for the run)" >&2; exit 1; }
exec /usr/bin/python3 "$top/bench/memory/mem.py" "$build/bin" "${2:-1000}" "${3:-200000}"
