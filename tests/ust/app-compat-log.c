/* SPDX-License-Identifier: MIT */
/* app-compat.c's printf-style events: LTTng-UST 2.13's lttng_ust_tracef,
 * lttng_ust_vtracef, lttng_ust_tracelog, lttng_ust_vtracelog. */
#include <lttng/tracef.h>
#include <lttng/tracelog.h>
#include <stdarg.h>

void compat_log(int i);

__attribute__((format(printf, 1, 2)))
static void vlog(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	lttng_ust_vtracef(fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	lttng_ust_vtracelog(LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_UNIT, fmt, ap);
	va_end(ap);
}

void compat_log(int i)
{
	lttng_ust_tracef("tracef %d %s", i, "text");
	lttng_ust_tracelog(LTTNG_UST_TRACEPOINT_LOGLEVEL_ERR, "tracelog %ld", (long)i * 3);
	lttng_ust_tracelog(LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO, "info");
	vlog("v%s %u", "log", 42u);
}
