/* SPDX-License-Identifier: MIT */
/*
 * python-agent.c - trawl's liblttng-ust-python-agent.so.1: the native
 * library LTTng's Python agent (python3-lttngust, lttngust/loghandler.py)
 * loads with ctypes and calls for each log record of an enabled logger,
 * with the same symbol and arguments as LTTng-UST 2.13's. Each call records
 * lttng_python:event through libtrawl-ust; the session's rule on it (made
 * by `trawl enable-event --python`, with the logger and level filter:
 * sessiond/cmd-agent.c) decides what is kept.
 *
 * It is built into lib/lttng-compat (installed: lib/trawl/lttng-compat),
 * where a Python program finds it first with that folder on
 * LD_LIBRARY_PATH, before Debian's (which would record through LTTng-UST).
 */
#include "common/common.h"

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#include "ust-agents/tp-python.h"

TRAWL_EXPORT void py_tracepoint(const char *asctime, const char *msg, const char *logger_name,
				const char *funcName, unsigned int lineno,
				unsigned int int_loglevel, unsigned int thread,
				const char *threadName);

TRAWL_EXPORT void py_tracepoint(const char *asctime, const char *msg, const char *logger_name,
				const char *funcName, unsigned int lineno,
				unsigned int int_loglevel, unsigned int thread,
				const char *threadName)
{
	/* (ctypes passes what Python gives: never NULL, but be safe) */
	tracepoint(lttng_python, event, asctime ? asctime : "", msg ? msg : "",
		   logger_name ? logger_name : "", funcName ? funcName : "", (int)lineno,
		   (int)int_loglevel, (int)thread, threadName ? threadName : "");
}
