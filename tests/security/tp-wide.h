/* SPDX-License-Identifier: MIT */
/* Provider twide of wide-app.c: one event, whose fields the program
 * describes itself to the daemon (wide-app.c). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER twide
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-wide.h"
#if !defined(TP_WIDE_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_WIDE_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(twide, ev, TP_ARGS(unsigned int, n), TP_FIELDS(ctf_integer(unsigned int, n, n)))
#endif
#include <trawl/tracepoint-event.h>
