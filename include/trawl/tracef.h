/* SPDX-License-Identifier: MIT */
/*
 * <trawl/tracef.h> - printf-style events: tracef("%d %s", i, s) records the
 * formatted text as lttng_ust_tracef:event { _msg_length, msg }, exactly as
 * LTTng-UST does. Costs one predicted branch when the event is off; the
 * arguments are evaluated only when it is on. Link with -ltrawl-ust.
 */
#ifndef TRAWL_TRACEF_H
#define TRAWL_TRACEF_H

#include <stdarg.h>

#include <trawl/tracepoint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern struct trawl_tracepoint trawl_ust_tracef_tp;
/* So that tracepoint_enabled(lttng_ust_tracef, event) works as with LTTng-UST. */
#define __tracepoint_lttng_ust_tracef___event trawl_ust_tracef_tp
void _trawl_tracef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void _trawl_vtracef(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#define tracef(fmt, ...)                                                                              \
	do {                                                                                          \
		if (__builtin_expect(!!__atomic_load_n(&trawl_ust_tracef_tp.state, __ATOMIC_RELAXED), 0)) \
			_trawl_tracef(fmt, ##__VA_ARGS__);                                            \
	} while (0)

#define vtracef(fmt, ap)                                                                              \
	do {                                                                                          \
		if (__builtin_expect(!!__atomic_load_n(&trawl_ust_tracef_tp.state, __ATOMIC_RELAXED), 0)) \
			_trawl_vtracef(fmt, ap);                                                      \
	} while (0)

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_TRACEF_H */
