#!/bin/sh
# SPDX-License-Identifier: MIT
# Every source, header, script and build file carries an SPDX licence line
# in its first lines (STYLE.md habit 11).
cd "${TRAWL_SOURCE_DIR:?}" || exit 1
git rev-parse --git-dir >/dev/null 2>&1 || { echo "SKIP: not a git checkout"; exit 77; }
missing=$(git ls-files '*.c' '*.h' '*.py' '*.sh' '*CMakeLists.txt' 'scripts/*' '.ci/*' |
	while read -r f; do
		[ -f "$f" ] || continue
		head -n 5 "$f" | grep -q 'SPDX-License-Identifier' || echo "$f"
	done)
if [ -n "$missing" ]; then
	echo "files without an SPDX line:"
	echo "$missing"
	exit 1
fi
echo "ok: every file has an SPDX line"
