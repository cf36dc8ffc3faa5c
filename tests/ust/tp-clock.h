/* SPDX-License-Identifier: MIT */
/* The TSC clock test's event (app-clock.c): its index and the CLOCK_MONOTONIC
 * ns the program read just before it. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER tclock
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-clock.h"
#if !defined(TP_CLOCK_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_CLOCK_H
#include <lttng/tracepoint.h>
#include <stdint.h>

TRACEPOINT_EVENT(tclock, ev, TP_ARGS(int, i, uint64_t, mono),
		 TP_FIELDS(ctf_integer(int, i, i) ctf_integer(uint64_t, mono, mono)))

#endif
#include <lttng/tracepoint-event.h>
