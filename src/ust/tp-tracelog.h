/* SPDX-License-Identifier: MIT */
/* The tracelog() provider, as LTTng-UST 2.13 names it
 * (lttng_ust_tracelog:LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO, ...). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_ust_tracelog
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust/tp-tracelog.h"
#if !defined(TRAWL_UST_TP_TRACELOG_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_TRACELOG_H
#include <trawl/tracepoint.h>
TRACEPOINT_EVENT_CLASS(lttng_ust_tracelog, tlclass,
		       TP_ARGS(const char *, file, int, line, const char *, func, const char *, msg, unsigned int,
			       len, void *, ip),
		       TP_FIELDS(ctf_integer(int, line, line) ctf_string(file, file) ctf_string(func, func)
					 ctf_sequence_text(char, msg, msg, unsigned int, len)))
#define TRAWL_TRACELOG_LEVEL(level)                                                                   \
	TRACEPOINT_EVENT_INSTANCE(lttng_ust_tracelog, tlclass, level,                                 \
				  TP_ARGS(const char *, file, int, line, const char *, func, const char *, msg, \
					  unsigned int, len, void *, ip))                              \
	TRACEPOINT_LOGLEVEL(lttng_ust_tracelog, level, level)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_EMERG)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_ALERT)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_CRIT)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_ERR)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_NOTICE)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_SYSTEM)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROGRAM)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROCESS)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_MODULE)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_UNIT)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_FUNCTION)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_LINE)
TRAWL_TRACELOG_LEVEL(LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG)
#undef TRAWL_TRACELOG_LEVEL
#endif
#include <trawl/tracepoint-event.h>
