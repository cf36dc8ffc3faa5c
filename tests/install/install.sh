#!/bin/bash
# SPDX-License-Identifier: MIT
# `cmake --install` into a private prefix, then use trawl from there only:
# the programs find their daemons and libraries relative to themselves, the
# bundled demo is traced through the seed's command sequence, and an
# application written for LTTng-UST's classic API builds against the
# installed compatibility headers with `pkg-config trawl-ust` and is traced
# with the same event names and fields. babeltrace2 checks both traces.
. "${TRAWL_SOURCE_DIR:?}/tests/cli/lib.sh"

P=$T/prefix
cmake --install "${TRAWL_BUILD_DIR:?}" --prefix "$P" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log" >&2; fail "cmake --install failed"; finish; }

for f in bin/trawl bin/trawl-sessiond bin/trawl-consumerd bin/trawl-view \
	include/trawl/tracepoint.h include/trawl/ctl.h include/trawl/ctl-types.h include/trawl/ctl/session.h include/trawl/reader.h \
	lib/pkgconfig/trawl-ust.pc lib/pkgconfig/trawl-ctl.pc lib/pkgconfig/trawl-reader.pc share/man/man1/trawl.1 share/man/man1/trawl-create.1 \
	share/man/man1/trawl-track.1 share/man/man1/trawl-regenerate.1 share/bash-completion/completions/trawl; do
	[ -e "$P/$f" ] || fail "not installed: $f"
done
ls "$P"/lib/libtrawl-ust.so* >/dev/null 2>&1 || fail "not installed: libtrawl-ust.so"
ls "$P"/lib/libtrawl-ctl.so* >/dev/null 2>&1 || fail "not installed: libtrawl-ctl.so"

# <trawl/ctl.h>'s topic headers: each one of the source tree is installed as
# it is, and a program outside the tree builds against the installed headers
# only (<trawl/ctl.h>, and one topic header alone), links the installed
# library and runs.
for h in "$TRAWL_SOURCE_DIR"/include/trawl/ctl/*.h; do
	cmp -s "$h" "$P/include/trawl/ctl/${h##*/}" || fail "not installed as it is: include/trawl/ctl/${h##*/}"
done
mkdir -p "$T/ctlprog"
cat >"$T/ctlprog/all.c" <<'C'
#include <trawl/ctl.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	struct trawl_ctl_session_info info;

	memset(&info, 0, sizeof(info));
	info.struct_size = sizeof(info);
	printf("%s %d %s\n", trawl_ctl_version(), trawl_ctl_loglevel_parse("TRACE_INFO"),
	       trawl_ctl_process_attr_name(TRAWL_CTL_PROCESS_ATTR_VPID));
	return info.struct_size ? 0 : 1;
}
C
cat >"$T/ctlprog/alone.c" <<'C'
#include <trawl/ctl/names.h>
#include <stdio.h>
int main(void)
{
	printf("%s\n", trawl_ctl_loglevel_name(6));
	return 0;
}
C
for prog in all alone; do
	cc -std=c99 -Wall -Wextra -Werror -I"$P/include" -o "$T/ctlprog/$prog" "$T/ctlprog/$prog.c" \
		-L"$P/lib" -ltrawl-ctl -Wl,-rpath,"$P/lib" 2>"$T/ctlprog/cc.log" ||
		fail "a program of <trawl/ctl.h> ($prog.c) does not build against the installed headers: $(head -3 "$T/ctlprog/cc.log")"
done
[ "$("$T/ctlprog/all" 2>&1)" = "$("$P/bin/trawl" version | sed -n 's/^trawl \([^ ]*\).*/\1/p') 6 virtual process ID" ] ||
	fail "the installed-header program said '$("$T/ctlprog/all" 2>&1)'"
[ "$("$T/ctlprog/alone" 2>&1)" = TRACE_INFO ] || fail "the <trawl/ctl/names.h> program said '$("$T/ctlprog/alone" 2>&1)'"

# Nothing from the build tree may be used: hide it.
unset TRAWL_BIN_DIR TRAWL_BUILD_DIR
export PATH=$P/bin:/usr/bin:/bin:/usr/sbin:/sbin
"$P/bin/trawl" version | grep -q "^trawl " || fail "trawl version"

# An LTTng-UST classic-API application, unchanged.
mkdir -p "$T/app"
cat >"$T/app/tp.h" <<'H'
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER legacy
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp.h"
#if !defined(TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_H
#include <lttng/tracepoint.h>
TRACEPOINT_EVENT(legacy, hello,
	TP_ARGS(int, n, const char *, who),
	TP_FIELDS(ctf_integer(int, n, n) ctf_string(who, who)))
#endif
#include <lttng/tracepoint-event.h>
H
cat >"$T/app/app.c" <<'C'
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "tp.h"
#include <unistd.h>
int main(void)
{
	int i;
	/* no wait: libtrawl-ust's start-up waits for the daemon's setup */
	for (i = 0; i < 50; i++)
		tracepoint(legacy, hello, i, "installed");
	return 0;
}
C
export PKG_CONFIG_PATH=$P/lib/pkgconfig
(cd "$T/app" && cc -o app app.c -I. $(pkg-config --cflags --libs trawl-ust) \
	-Wl,-rpath,"$P/lib" 2>"$T/cc.log") || { cat "$T/cc.log" >&2; fail "the LTTng-UST app does not build"; }

expect 0 "$P/bin/trawl" create inst --output "$T/trace" || finish
expect 0 "$P/bin/trawl" enable-event --userspace --all
expect 0 "$P/bin/trawl" start
[ -x "$P/bin/trawl-demo" ] && { "$P/bin/trawl-demo" 2 >/dev/null || fail "trawl-demo failed"; }
[ -x "$T/app/app" ] && { "$T/app/app" || fail "the LTTng-UST app failed"; }
expect 0 "$P/bin/trawl" stop
expect 0 "$P/bin/trawl" view inst
cp "$T/out" "$T/view.txt"
expect 0 "$P/bin/trawl" destroy inst

babeltrace2 "$T/trace" >"$T/bt.txt" 2>"$T/bt.err" || fail "babeltrace2 cannot read the trace: $(head -3 "$T/bt.err")"
[ -s "$T/bt.err" ] && fail "babeltrace2 warned: $(head -3 "$T/bt.err")"
n=$(grep -c ' legacy:hello: ' "$T/bt.txt")
[ "$n" = 50 ] || fail "expected 50 legacy:hello events, babeltrace2 read $n"
grep -q 'legacy:hello: .*{ n = 49, who = "installed" }' "$T/bt.txt" || fail "legacy:hello fields wrong"
if [ -x "$P/bin/trawl-demo" ]; then
	grep -q ' demo:' "$T/bt.txt" || fail "no demo events in the trace"
fi
cmp -s "$T/view.txt" "$T/bt.txt" || fail "trawl view differs from babeltrace2"

# The Python package from the prefix: it links the installed libtrawl-ctl
# (rpath), which starts the installed daemon (the one running is it).
pydir=$(ls -d "$P"/lib/python3*/dist-packages 2>/dev/null | head -1)
if [ -n "$pydir" ]; then
	PYTHONPATH=$pydir /usr/bin/python3 -c '
import sys, trawl
assert trawl.__file__.startswith(sys.argv[1]), trawl.__file__
c = trawl.Client(spawn=False)
s = c.create_session("py", output=sys.argv[2])
s.enable_event("legacy:*")
assert [e.name for e in s.channel("channel0").info().events] == ["legacy:*"]
s.destroy()
print("ok")' "$pydir" "$T/pytrace" >"$T/py.out" 2>&1 || fail "the installed Python package: $(tail -3 "$T/py.out")"
	grep -qx ok "$T/py.out" || fail "the installed Python package said: $(cat "$T/py.out")"
	lib=$(ldd "$pydir"/trawl/_ctl*.so | sed -n 's/.*libtrawl-ctl[^ ]* => \([^ ]*\) .*/\1/p')
	[ "$(readlink -f "$lib")" = "$(readlink -f "$P"/lib/libtrawl-ctl.so.0)" ] ||
		fail "the installed Python extension does not link the installed libtrawl-ctl"
fi
finish
