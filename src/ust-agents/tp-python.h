/* SPDX-License-Identifier: MIT */
/* The event LTTng's Python agent (python3-lttngust) records for each log
 * record: lttng_python:event, with LTTng-UST 2.13's fields and types. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_python
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust-agents/tp-python.h"
#if !defined(TRAWL_UST_TP_PYTHON_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_PYTHON_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(lttng_python, event,
		 TP_ARGS(const char *, asctime, const char *, msg, const char *, logger_name,
			 const char *, funcName, int, lineno, int, int_loglevel, int, thread,
			 const char *, threadName),
		 TP_FIELDS(ctf_string(asctime, asctime) ctf_string(msg, msg)
				   ctf_string(logger_name, logger_name) ctf_string(funcName, funcName)
				   ctf_integer(unsigned int, lineno, lineno)
				   ctf_integer(unsigned int, int_loglevel, int_loglevel)
				   ctf_integer(unsigned int, thread, thread)
				   ctf_string(threadName, threadName)))
#endif
#include <trawl/tracepoint-event.h>
