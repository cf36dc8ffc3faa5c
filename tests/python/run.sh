#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The trawl Python module's tests (pytest) against private daemons: this
# process's HOME and runtime folders are fresh, so the module starts its
# own daemons, which cleanup() stops.
. "$(dirname "$0")/../cli/lib.sh"
"$TRAWL_PYTHON" -c 'import pytest, bt2' 2>/dev/null ||
	{ echo "SKIP: python3-pytest or python3-bt2 missing"; exit 77; }
[ -d "$TRAWL_BUILD_DIR/python/trawl" ] || { echo "SKIP: the Python module was not built (python3-dev)"; exit 77; }
export PYTHONPATH=$TRAWL_BUILD_DIR/python
# The tree's folders must be readable by the test's second user.
chmod 755 "$T" "$T"/* 2>/dev/null
"$TRAWL_PYTHON" -m pytest -q -rs -p no:cacheprovider "$(dirname "$0")/test_trawl.py" 2>&1
rc=$?
[ $rc = 0 ] || fail "pytest exited $rc"
finish
