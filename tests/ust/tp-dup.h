/* SPDX-License-Identifier: MIT */
/*
 * One event, tdup:ev, in several providers built from this header: A and
 * A2 with the same fields (one event class: recorded once per provider),
 * B with other fields (another class of the same name), as LTTng's
 * multi-lib test has them. DUP_VARIANT picks the fields (none: the call
 * sites).
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER tdup
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-dup.h"
#if !defined(TP_DUP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_DUP_H
#include <lttng/tracepoint.h>

#if DUP_VARIANT == 2
TRACEPOINT_EVENT(tdup, ev, TP_ARGS(uint64_t, v),
		 TP_FIELDS(ctf_integer(uint64_t, b_long, v) ctf_float(float, b_float, (float)v)))
#else
TRACEPOINT_EVENT(tdup, ev, TP_ARGS(uint64_t, v), TP_FIELDS(ctf_integer(uint64_t, a_long, v)))
#endif
#endif
#include <lttng/tracepoint-event.h>
