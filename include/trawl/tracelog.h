/* SPDX-License-Identifier: MIT */
/*
 * <trawl/tracelog.h> - printf-style events with a log level:
 * tracelog(TRACE_WARNING, "%d", i) records lttng_ust_tracelog:TRACE_WARNING
 * { line, file, func, _msg_length, msg }, as LTTng-UST does.
 */
#ifndef TRAWL_TRACELOG_H
#define TRAWL_TRACELOG_H

#include <stdarg.h>

#include <trawl/tracepoint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern struct trawl_tracepoint trawl_ust_tracelog_tp[15];
/* So that tracepoint_enabled(lttng_ust_tracelog, TRACE_INFO) works as with LTTng-UST. */
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

#define tracelog(level, fmt, ...)                                                                     \
	do {                                                                                          \
		if (__builtin_expect(!!__atomic_load_n(&trawl_ust_tracelog_tp[level].state, __ATOMIC_RELAXED), 0)) \
			_trawl_tracelog(level, __FILE__, __LINE__, __func__, fmt, ##__VA_ARGS__);     \
	} while (0)

#define vtracelog(level, fmt, ap)                                                                     \
	do {                                                                                          \
		if (__builtin_expect(!!__atomic_load_n(&trawl_ust_tracelog_tp[level].state, __ATOMIC_RELAXED), 0)) \
			_trawl_vtracelog(level, __FILE__, __LINE__, __func__, fmt, ap);               \
	} while (0)

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_TRACELOG_H */
