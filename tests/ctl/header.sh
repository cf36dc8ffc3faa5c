#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The public header's rules (STYLE.md): libtrawl-ctl exports exactly the
# functions <trawl/ctl.h> and its topic headers (<trawl/ctl/*.h>) declare
# (everything else hidden), each declared function has its kernel-doc
# comment, <trawl/ctl.h> includes every topic header, and each header
# compiles alone as strict ISO C99 and C++ with every warning (the C++ side
# of the whole API: ctl-header-cxx).
set -u
INC=${TRAWL_SOURCE_DIR:?}/include
H=$INC/trawl/ctl.h
LIB=${TRAWL_BUILD_DIR:?}/lib/libtrawl-ctl.so
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
TOPICS=$(ls "$INC"/trawl/ctl/*.h 2>/dev/null)
[ -n "$TOPICS" ] || fail "no topic headers in $INC/trawl/ctl"
cat "$H" $TOPICS >"$T/all.h"

# Declarations: a line starting with a type, ending its first line at "NAME(".
grep -E '^[a-z].*\btrawl_ctl_[a-z0-9_]+\(' "$T/all.h" | grep -oE 'trawl_ctl_[a-z0-9_]+\(' | head -n 1000 |
	sed 's/($//' | awk '{print $NF}' | sort -u >"$T/declared"
nm -D --defined-only "$LIB" | awk '$2 ~ /^[TW]$/ {print $3}' | sort -u >"$T/exported"
nm -D --defined-only "$LIB" | awk '$2 !~ /^[TW]$/ {print $3}' >"$T/other"
[ -s "$T/declared" ] || fail "no declarations found in $H or <trawl/ctl/*.h>"
diff "$T/declared" "$T/exported" >"$T/diff" ||
	fail "exported functions differ from the header's (< declared only, > exported only): $(tr '\n' ' ' <"$T/diff")"
[ -s "$T/other" ] && fail "exported data symbols: $(tr '\n' ' ' <"$T/other")"

# Kernel-doc: "NAME - what it does" in a comment (the *_at getters share one).
while read -r f; do
	case $f in
	trawl_ctl_list_*_at) grep -q '^ \* trawl_ctl_list_\*_at - ' "$T/all.h" || fail "no doc for $f" ;;
	*) grep -q "^ \* $f - " "$T/all.h" || fail "no kernel-doc comment for $f" ;;
	esac
done <"$T/declared"

printf '#include <trawl/ctl.h>\nint main(void) { return trawl_ctl_version() ? 0 : 1; }\n' >"$T/c99.c"
cc -std=c99 -pedantic-errors -Wall -Wextra -Werror -I"$INC" \
	-fsyntax-only "$T/c99.c" 2>"$T/cc.log" || fail "not strict C99: $(head -3 "$T/cc.log")"

# Each topic header is included by <trawl/ctl.h>, and stands alone: it
# includes what it uses, twice over (its guard), as C99 and as C++.
for t in $TOPICS; do
	n=trawl/ctl/$(basename "$t")
	grep -qx "#include <$n>" "$H" || fail "<trawl/ctl.h> does not include <$n>"
	printf '#include <%s>\n#include <%s>\nint main(void) { return 0; }\n' "$n" "$n" >"$T/alone.c"
	cc -std=c99 -pedantic-errors -Wall -Wextra -Werror -I"$INC" -fsyntax-only "$T/alone.c" \
		2>"$T/cc.log" || fail "<$n> alone is not strict C99: $(head -3 "$T/cc.log")"
	if command -v c++ >/dev/null; then
		c++ -x c++ -std=c++11 -pedantic-errors -Wall -Wextra -Werror -I"$INC" -fsyntax-only \
			"$T/alone.c" 2>"$T/cc.log" || fail "<$n> alone is not C++11: $(head -3 "$T/cc.log")"
	fi
done

[ "$fails" = 0 ] || exit 1
echo "ok: $(wc -l <"$T/declared") functions declared, documented and exported; $(echo "$TOPICS" | wc -l) topic headers stand alone"
