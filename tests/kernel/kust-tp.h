/* SPDX-License-Identifier: MIT */
/* The user-space events of the combined kernel + user-space test. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER kmix
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./kust-tp.h"
#if !defined(KUST_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define KUST_TP_H
#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(kmix, before, TP_ARGS(int, n), TP_FIELDS(ctf_integer(int, n, n)))
TRACEPOINT_EVENT(kmix, after, TP_ARGS(int, n), TP_FIELDS(ctf_integer(int, n, n)))

#endif
#include <lttng/tracepoint-event.h>
