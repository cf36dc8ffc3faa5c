/* SPDX-License-Identifier: MIT */
/* The smaller function entry/exit events of LTTng-UST 2.13's fast
 * cyg-profile helper (lttng_ust_cyg_profile_fast:func_entry { addr },
 * func_exit { }); the ip is the function's address. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_ust_cyg_profile_fast
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust-helpers/tp-cyg-profile-fast.h"
#if !defined(TRAWL_UST_TP_CYG_PROFILE_FAST_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_CYG_PROFILE_FAST_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(lttng_ust_cyg_profile_fast, func_entry, TP_ARGS(void *, func_addr),
		 TP_FIELDS(ctf_integer_hex(unsigned long, addr, (unsigned long)func_addr)))
TRACEPOINT_LOGLEVEL(lttng_ust_cyg_profile_fast, func_entry, TRACE_DEBUG_FUNCTION)
TRACEPOINT_EVENT(lttng_ust_cyg_profile_fast, func_exit, TP_ARGS(void *, func_addr), TP_FIELDS(ctf_unused(func_addr)))
TRACEPOINT_LOGLEVEL(lttng_ust_cyg_profile_fast, func_exit, TRACE_DEBUG_FUNCTION)
#endif
#include <trawl/tracepoint-event.h>
