#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the API test against a private daemon.
. "$(dirname "$0")/../cli/lib.sh"
"$1" "$T/out-api"
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || fail "api test failed ($rc)"
finish
