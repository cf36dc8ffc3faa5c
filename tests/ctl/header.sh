#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The public header's rules (STYLE.md): libtrawl-ctl exports exactly the
# functions <trawl/ctl.h> declares (everything else hidden), each declared
# function has its kernel-doc comment, and the header compiles as strict
# ISO C99 with every warning (the C++ side: ctl-header-cxx).
set -u
H=${TRAWL_SOURCE_DIR:?}/include/trawl/ctl.h
LIB=${TRAWL_BUILD_DIR:?}/lib/libtrawl-ctl.so
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# Declarations: a line starting with a type, ending its first line at "NAME(".
grep -E '^[a-z].*\btrawl_ctl_[a-z0-9_]+\(' "$H" | grep -oE 'trawl_ctl_[a-z0-9_]+\(' | head -n 1000 |
	sed 's/($//' | awk '{print $NF}' | sort -u >"$T/declared"
nm -D --defined-only "$LIB" | awk '$2 ~ /^[TW]$/ {print $3}' | sort -u >"$T/exported"
nm -D --defined-only "$LIB" | awk '$2 !~ /^[TW]$/ {print $3}' >"$T/other"
[ -s "$T/declared" ] || fail "no declarations found in $H"
diff "$T/declared" "$T/exported" >"$T/diff" ||
	fail "exported functions differ from the header's (< declared only, > exported only): $(tr '\n' ' ' <"$T/diff")"
[ -s "$T/other" ] && fail "exported data symbols: $(tr '\n' ' ' <"$T/other")"

# Kernel-doc: "NAME - what it does" in a comment (the *_at getters share one).
while read -r f; do
	case $f in
	trawl_ctl_list_*_at) grep -q '^ \* trawl_ctl_list_\*_at - ' "$H" || fail "no doc for $f" ;;
	*) grep -q "^ \* $f - " "$H" || fail "no kernel-doc comment for $f" ;;
	esac
done <"$T/declared"

printf '#include <trawl/ctl.h>\nint main(void) { return trawl_ctl_version() ? 0 : 1; }\n' >"$T/c99.c"
cc -std=c99 -pedantic-errors -Wall -Wextra -Werror -I"${TRAWL_SOURCE_DIR}/include" \
	-fsyntax-only "$T/c99.c" 2>"$T/cc.log" || fail "not strict C99: $(head -3 "$T/cc.log")"

[ "$fails" = 0 ] || exit 1
echo "ok: $(wc -l <"$T/declared") functions declared, documented and exported"
