/* SPDX-License-Identifier: MIT */
/* The event LTTng's Java agent for java.util.logging records for each log
 * record: lttng_jul:event, with LTTng-UST 2.13's fields and C types
 * (long_millis a 64-bit signed integer, the level and thread id 32-bit
 * signed ones), so that a trace reads the same as one LTTng recorded. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_jul
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust-agents/tp-jul.h"
#if !defined(TRAWL_UST_TP_JUL_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_JUL_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(lttng_jul, event,
		 TP_ARGS(const char *, msg, const char *, logger_name, const char *, class_name,
			 const char *, method_name, long, millis, int, log_level, int, thread_id),
		 TP_FIELDS(ctf_string(msg, msg) ctf_string(logger_name, logger_name)
				   ctf_string(class_name, class_name)
				   ctf_string(method_name, method_name)
				   ctf_integer(long, long_millis, millis)
				   ctf_integer(int, int_loglevel, log_level)
				   ctf_integer(int, int_threadid, thread_id)))
#endif
#include <trawl/tracepoint-event.h>
