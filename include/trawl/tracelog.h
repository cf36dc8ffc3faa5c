/* SPDX-License-Identifier: MIT */
/*
 * <trawl/tracelog.h> - printf-style events with a log level:
 * tracelog(TRACE_WARNING, "%d", i) (or LTTng-UST 2.13's
 * lttng_ust_tracelog(LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING, ...)) records
 * lttng_ust_tracelog:LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING
 * { line, file, func, _msg_length, msg }, as LTTng-UST 2.13 names and lays
 * it out. The level may be any constant expression of 0..14. Like
 * <trawl/tracef.h>, each file including it waits for the session daemons
 * in its constructor.
 */
#ifndef TRAWL_TRACELOG_H
#define TRAWL_TRACELOG_H

#include <stdarg.h>

#include <trawl/tracepoint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern struct trawl_tracepoint trawl_ust_tracelog_tp[15];
/* So that tracepoint_enabled(lttng_ust_tracelog, LEVEL) works as with
 * LTTng-UST, whichever spelling of the level. */
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_EMERG trawl_ust_tracelog_tp[0]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_ALERT trawl_ust_tracelog_tp[1]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_CRIT trawl_ust_tracelog_tp[2]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_ERR trawl_ust_tracelog_tp[3]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING trawl_ust_tracelog_tp[4]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_NOTICE trawl_ust_tracelog_tp[5]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO trawl_ust_tracelog_tp[6]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_SYSTEM trawl_ust_tracelog_tp[7]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROGRAM trawl_ust_tracelog_tp[8]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROCESS trawl_ust_tracelog_tp[9]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_MODULE trawl_ust_tracelog_tp[10]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_UNIT trawl_ust_tracelog_tp[11]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_FUNCTION trawl_ust_tracelog_tp[12]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_LINE trawl_ust_tracelog_tp[13]
#define __tracepoint_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG trawl_ust_tracelog_tp[14]
#define __tracepoint_lttng_ust_tracelog___TRACE_EMERG trawl_ust_tracelog_tp[0]
#define __tracepoint_lttng_ust_tracelog___TRACE_ALERT trawl_ust_tracelog_tp[1]
#define __tracepoint_lttng_ust_tracelog___TRACE_CRIT trawl_ust_tracelog_tp[2]
#define __tracepoint_lttng_ust_tracelog___TRACE_ERR trawl_ust_tracelog_tp[3]
#define __tracepoint_lttng_ust_tracelog___TRACE_WARNING trawl_ust_tracelog_tp[4]
#define __tracepoint_lttng_ust_tracelog___TRACE_NOTICE trawl_ust_tracelog_tp[5]
#define __tracepoint_lttng_ust_tracelog___TRACE_INFO trawl_ust_tracelog_tp[6]
#define __tracepoint_lttng_ust_tracelog___TRACE_DEBUG_SYSTEM trawl_ust_tracelog_tp[7]
#define __tracepoint_lttng_ust_tracelog___TRACE_DEBUG_PROGRAM trawl_ust_tracelog_tp[8]
#define __tracepoint_lttng_ust_tracelog___TRACE_DEBUG_PROCESS trawl_ust_tracelog_tp[9]
#define __tracepoint_lttng_ust_tracelog___TRACE_DEBUG_MODULE trawl_ust_tracelog_tp[10]
#define __tracepoint_lttng_ust_tracelog___TRACE_DEBUG_UNIT trawl_ust_tracelog_tp[11]
#define __tracepoint_lttng_ust_tracelog___TRACE_DEBUG_FUNCTION trawl_ust_tracelog_tp[12]
#define __tracepoint_lttng_ust_tracelog___TRACE_DEBUG_LINE trawl_ust_tracelog_tp[13]
#define __tracepoint_lttng_ust_tracelog___TRACE_DEBUG trawl_ust_tracelog_tp[14]
void _trawl_tracelog(int level, const char *file, int line, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void _trawl_vtracelog(int level, const char *file, int line, const char *func, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));
void trawl_ust_wait_registered(void);

/* Not in libtrawl-ust itself, whose constructor must not wait. */
#ifndef _TRAWL_UST_NO_WAIT
static void __attribute__((constructor, unused)) __trawl_tracelog_wait(void)
{
	trawl_ust_wait_registered();
}
#endif

/* A level outside 0..14 records nothing (and reads no state word). */
#define _TRAWL_TRACELOG_ON(level)                                                                     \
	((unsigned int)(level) < 15u &&                                                               \
	 __builtin_expect(!!__atomic_load_n(&trawl_ust_tracelog_tp[(unsigned int)(level) % 15u].state,  \
					    __ATOMIC_RELAXED),                                        \
			  0))

#define lttng_ust_tracelog(level, fmt, ...)                                                           \
	do {                                                                                          \
		if (_TRAWL_TRACELOG_ON(level))                                                        \
			_trawl_tracelog(level, __FILE__, __LINE__, __func__, fmt, ##__VA_ARGS__);     \
	} while (0)

#define lttng_ust_vtracelog(level, fmt, ap)                                                           \
	do {                                                                                          \
		if (_TRAWL_TRACELOG_ON(level))                                                        \
			_trawl_vtracelog(level, __FILE__, __LINE__, __func__, fmt, ap);               \
	} while (0)

#if _TRAWL_CLASSIC_API
#define tracelog lttng_ust_tracelog
#define vtracelog lttng_ust_vtracelog
#endif

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_TRACELOG_H */
