/* SPDX-License-Identifier: MIT */
/* The event LTTng's Java agent for log4j 1.2 records for each logging
 * event: lttng_log4j:event, with LTTng-UST 2.13's fields and C types
 * (line_number, int_loglevel 32-bit signed, timestamp 64-bit signed). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_log4j
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust-agents/tp-log4j.h"
#if !defined(TRAWL_UST_TP_LOG4J_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_LOG4J_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(lttng_log4j, event,
		 TP_ARGS(const char *, msg, const char *, logger_name, const char *, class_name,
			 const char *, method_name, const char *, file_name, int, line_number,
			 long, timestamp, int, log_level, const char *, thread_name),
		 TP_FIELDS(ctf_string(msg, msg) ctf_string(logger_name, logger_name)
				   ctf_string(class_name, class_name)
				   ctf_string(method_name, method_name)
				   ctf_string(filename, file_name)
				   ctf_integer(int, line_number, line_number)
				   ctf_integer(long, timestamp, timestamp)
				   ctf_integer(int, int_loglevel, log_level)
				   ctf_string(thread_name, thread_name)))
#endif
#include <trawl/tracepoint-event.h>
