/* SPDX-License-Identifier: MIT */
/* Function entries and exits of a program built with -finstrument-functions,
 * as LTTng-UST 2.13's cyg-profile helper records them
 * (lttng_ust_cyg_profile:func_entry, func_exit: the function's address and
 * its call site); the ip is the function's address. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_ust_cyg_profile
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust-helpers/tp-cyg-profile.h"
#if !defined(TRAWL_UST_TP_CYG_PROFILE_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_CYG_PROFILE_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT_CLASS(lttng_ust_cyg_profile, func_class, TP_ARGS(void *, func_addr, void *, call_site),
		       TP_FIELDS(ctf_integer_hex(unsigned long, addr, (unsigned long)func_addr)
					 ctf_integer_hex(unsigned long, call_site, (unsigned long)call_site)))
TRACEPOINT_EVENT_INSTANCE(lttng_ust_cyg_profile, func_class, func_entry, TP_ARGS(void *, func_addr, void *, call_site))
TRACEPOINT_LOGLEVEL(lttng_ust_cyg_profile, func_entry, TRACE_DEBUG_FUNCTION)
TRACEPOINT_EVENT_INSTANCE(lttng_ust_cyg_profile, func_class, func_exit, TP_ARGS(void *, func_addr, void *, call_site))
TRACEPOINT_LOGLEVEL(lttng_ust_cyg_profile, func_exit, TRACE_DEBUG_FUNCTION)
#endif
#include <trawl/tracepoint-event.h>
