#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CTF conformance corpus: trawl-view must print exactly what
# babeltrace2 2.0.4 prints for the 41+1 valid traces and fail cleanly on the
# 13 invalid ones (see ../shared/ctf-corpus/README.md).
set -u
corpus=""
for c in "${TRAWL_SHARED_DIR:-}/ctf-corpus" /work/shared/ctf-corpus; do
	[ -x "$c/check.sh" ] && { corpus=$c; break; }
done
if [ -z "$corpus" ]; then
	echo "SKIP: ctf-corpus not found (TRAWL_SHARED_DIR/ctf-corpus)"
	exit 77
fi
view="${TRAWL_BIN_DIR:?}/trawl-view"
out=$("$corpus/check.sh" -v --newer "$view" 2>&1)
rc=$?
echo "$out"
exit $rc
