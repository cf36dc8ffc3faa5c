#!/bin/bash
# SPDX-License-Identifier: MIT
# Programs built with pkg-config against each library, from the build tree
# (PKG_CONFIG_PATH=BUILD/lib/pkgconfig) and from an install prefix, work
# end to end: an app instrumented through `pkg-config trawl-ust` is traced by
# a program of our own that drives the session through `pkg-config
# trawl-ctl` (and starts the daemon installed beside the library: the
# program lives elsewhere), and a third, built with `pkg-config
# trawl-reader`, counts the events, which babeltrace2 counts too.
. "${TRAWL_SOURCE_DIR:?}/tests/cli/lib.sh"

command -v pkg-config >/dev/null || { echo "SKIP: pkg-config not installed"; exit 77; }
BUILD=${TRAWL_BUILD_DIR:?}
P=$T/prefix
cmake --install "$BUILD" --prefix "$P" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log" >&2; fail "cmake --install failed"; finish; }
# Nothing may come from the environment: only what pkg-config says.
unset TRAWL_BIN_DIR
export PATH=/usr/bin:/bin:/usr/sbin:/sbin

mkdir -p "$T/src"
cat >"$T/src/tp.h" <<'H'
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER pc
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp.h"
#if !defined(TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_H
#include <trawl/tracepoint.h>
TRACEPOINT_EVENT(pc, tick, TP_ARGS(int, n), TP_FIELDS(ctf_integer(int, n, n)))
#endif
#include <trawl/tracepoint-event.h>
H
cat >"$T/src/app.c" <<'C'
#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "tp.h"
int main(void)
{
	int i;

	for (i = 0; i < 123; i++)
		tracepoint(pc, tick, i);
	return 0;
}
C
# drive OUT start|stop: one session "pc" recording pc:* into OUT.
cat >"$T/src/drive.c" <<'C'
#include <trawl/ctl.h>
#include <stdio.h>
#include <string.h>
static int fail(struct trawl_ctl *ctl, const char *what, int ret)
{
	fprintf(stderr, "drive: %s: %d %s\n", what, ret, ctl ? trawl_ctl_last_error(ctl) : "");
	return 1;
}
int main(int argc, char **argv)
{
	struct trawl_ctl_session_attr *attr;
	struct trawl_ctl_event *ev;
	struct trawl_ctl *ctl;
	int ret;

	if (argc != 3)
		return 2;
	ret = trawl_ctl_connect(&ctl, 0);
	if (ret)
		return fail(NULL, "connect", ret);
	if (!strcmp(argv[2], "stop")) {
		ret = trawl_ctl_session_stop(ctl, "pc");
		if (!ret)
			ret = trawl_ctl_session_destroy(ctl, "pc");
		return ret ? fail(ctl, "stop", ret) : 0;
	}
	attr = trawl_ctl_session_attr_create();
	trawl_ctl_session_attr_set_name(attr, "pc");
	trawl_ctl_session_attr_set_output(attr, argv[1]);
	ret = trawl_ctl_session_create(ctl, attr, NULL);
	trawl_ctl_session_attr_destroy(attr);
	if (ret)
		return fail(ctl, "create", ret);
	ev = trawl_ctl_event_create(TRAWL_CTL_EVENT_TRACEPOINT, "pc:*");
	ret = trawl_ctl_event_enable(ctl, "pc", TRAWL_CTL_DOMAIN_UST, NULL, ev);
	trawl_ctl_event_destroy(ev);
	if (!ret)
		ret = trawl_ctl_session_start(ctl, "pc");
	if (ret)
		fail(ctl, "start", ret);
	trawl_ctl_disconnect(ctl);
	return !!ret;
}
C
# count TRACE NAME: events named NAME.
cat >"$T/src/count.c" <<'C'
#include <trawl/reader.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	const char *paths[] = {argv[1]};
	struct trawl_reader *r = NULL;
	long n = 0;
	int ret = trawl_reader_open(paths, 1, &r);

	while (ret >= 0 && (ret = trawl_reader_next(r)) > 0)
		n += !strcmp(trawl_reader_event_name(r), argv[2]);
	if (ret < 0) {
		fprintf(stderr, "count: %s\n", r ? trawl_reader_error(r) : "open failed");
		trawl_reader_destroy(r);
		return 1;
	}
	trawl_reader_destroy(r);
	printf("%ld\n", n);
	return 0;
}
C

# build MODE PCDIR: the three programs, each with only its library's flags.
build() {
	local mode=$1 pcdir=$2 lib prog flags d
	mkdir -p "$T/$mode"
	for lib in trawl-ust trawl-ctl trawl-reader; do
		PKG_CONFIG_PATH=$pcdir pkg-config --exists --print-errors "$lib" 2>"$T/pc.log" ||
			{ fail "$mode: pkg-config $lib: $(cat "$T/pc.log")"; return 1; }
		# Every folder the flags name exists (the build tree's once named a missing one).
		for d in $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags-only-I --libs-only-L "$lib"); do
			[ -d "${d:2}" ] || fail "$mode: pkg-config $lib names a missing folder: $d"
		done
	done
	for prog in app:trawl-ust drive:trawl-ctl count:trawl-reader; do
		lib=${prog#*:} prog=${prog%%:*}
		flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs "$lib")
		libdir=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir "$lib")
		(cd "$T/src" && cc -Wall -Werror -I. -o "$T/$mode/$prog" "$prog.c" $flags \
			-Wl,-rpath,"$libdir" 2>"$T/cc.log") ||
			{ fail "$mode: $prog does not build with pkg-config $lib: $(head -5 "$T/cc.log")"; return 1; }
	done
}

# trace MODE: the app traced by drive, counted by count and by babeltrace2.
trace() {
	local mode=$1 out=$T/$1/trace n pid
	export HOME=$T/$mode/home TRAWL_RUNTIME_DIR=$T/$mode/run TRAWL_ROOT_RUNTIME_DIR=$T/$mode/rootrun
	mkdir -p "$HOME"
	expect 0 "$T/$mode/drive" "$out" start || return 1
	"$T/$mode/app" || fail "$mode: the app failed"
	expect 0 "$T/$mode/drive" "$out" stop
	# The daemon came from this tree: the library found it beside itself.
	pid=$(cat "$TRAWL_ROOT_RUNTIME_DIR/sessiond.lock" "$TRAWL_RUNTIME_DIR/sessiond.lock" 2>/dev/null)
	[ "$(readlink -f "/proc/${pid:-0}/exe")" = "$(readlink -f "$2")" ] ||
		fail "$mode: the daemon started ($(readlink -f "/proc/${pid:-0}/exe")) is not $2"
	expect 0 "$T/$mode/count" "$out" pc:tick && n=$(cat "$T/out")
	[ "${n:-}" = 123 ] || fail "$mode: trawl-reader counted ${n:-nothing}, wanted 123"
	n=$(babeltrace2 "$out" 2>/dev/null | grep -c ' pc:tick: ')
	[ "$n" = 123 ] || fail "$mode: babeltrace2 counted $n pc:tick, wanted 123"
}

build build "$BUILD/lib/pkgconfig" && trace build "$BUILD/bin/trawl-sessiond"
build prefix "$P/lib/pkgconfig" && trace prefix "$P/bin/trawl-sessiond"
finish
