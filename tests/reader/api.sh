#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the public API test (reader-api) over the CTF corpus.
set -u
export TZ=UTC LC_ALL=C
for c in "${TRAWL_SHARED_DIR:-}/ctf-corpus" /work/shared/ctf-corpus; do
	[ -d "$c/succeed" ] && exec "$1" "$c"
done
echo "SKIP: ctf-corpus not found"
exit 77
