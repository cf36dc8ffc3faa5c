/* SPDX-License-Identifier: MIT */
/* The tracef() provider, as LTTng-UST names it (lttng_ust_tracef:event). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_ust_tracef
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust/tp-tracef.h"
#if !defined(TRAWL_UST_TP_TRACEF_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_TRACEF_H
#include <trawl/tracepoint.h>
TRACEPOINT_EVENT(lttng_ust_tracef, event, TP_ARGS(const char *, msg, unsigned int, len, void *, ip),
		 TP_FIELDS(ctf_sequence_text(char, msg, msg, unsigned int, len)))
TRACEPOINT_LOGLEVEL(lttng_ust_tracef, event, TRACE_DEBUG)
#endif
#include <trawl/tracepoint-event.h>
