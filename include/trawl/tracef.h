/* SPDX-License-Identifier: MIT */
/*
 * <trawl/tracef.h> - printf-style events: tracef("%d %s", i, s) (or
 * LTTng-UST 2.13's lttng_ust_tracef) records the formatted text as
 * lttng_ust_tracef:event { _msg_length, msg }, exactly as LTTng-UST does.
 * Costs one predicted branch when the event is off; the arguments are
 * evaluated only when it is on. Link with -ltrawl-ust.
 *
 * A program whose only events are tracef()'s has no provider of its own
 * whose start-up would wait for the session daemons (tracepoint.h: early
 * events): this header makes each file that includes it wait, in its
 * constructor, as a provider does.
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
void trawl_ust_wait_registered(void);

/* Not in libtrawl-ust itself, whose constructor must not wait. */
#ifndef _TRAWL_UST_NO_WAIT
static void __attribute__((constructor, unused)) __trawl_tracef_wait(void)
{
	trawl_ust_wait_registered();
}
#endif

#define lttng_ust_tracef(fmt, ...)                                                                    \
	do {                                                                                          \
		if (__builtin_expect(!!__atomic_load_n(&trawl_ust_tracef_tp.state, __ATOMIC_RELAXED), 0)) \
			_trawl_tracef(fmt, ##__VA_ARGS__);                                            \
	} while (0)

#define lttng_ust_vtracef(fmt, ap)                                                                    \
	do {                                                                                          \
		if (__builtin_expect(!!__atomic_load_n(&trawl_ust_tracef_tp.state, __ATOMIC_RELAXED), 0)) \
			_trawl_vtracef(fmt, ap);                                                      \
	} while (0)

#if _TRAWL_CLASSIC_API
#define tracef lttng_ust_tracef
#define vtracef lttng_ust_vtracef
#endif

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_TRACEF_H */
