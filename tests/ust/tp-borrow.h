/* SPDX-License-Identifier: MIT */
/* An instance of another provider's class (tcompat:pair): LTTng-UST 2.13's
 * five-argument LTTNG_UST_TRACEPOINT_EVENT_INSTANCE. Its probes are made
 * after tp-compat.h's, in the same file (tp-compat.c). */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tborrow
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./tp-borrow.h"
#if !defined(TP_BORROW_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TP_BORROW_H
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(tcompat, pair, tborrow, borrowed, LTTNG_UST_TP_ARGS(int, a, int, b))
LTTNG_UST_TRACEPOINT_LOGLEVEL(tborrow, borrowed, LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
#endif
#include <lttng/tracepoint-event.h>
