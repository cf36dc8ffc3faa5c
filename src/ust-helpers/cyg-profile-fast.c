/* SPDX-License-Identifier: MIT */
/*
 * cyg-profile-fast.c - libtrawl-ust-cyg-profile-fast (LTTng-UST's
 * liblttng-ust-cyg-profile-fast): as libtrawl-ust-cyg-profile, with smaller
 * events (lttng_ust_cyg_profile_fast:func_entry { addr } and func_exit
 * { }), for when the call sites are not needed.
 */
#define _GNU_SOURCE
#include "common/common.h"

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_PROVIDER_HIDDEN_DEFINITION
#define TP_IP_PARAM func_addr
#include "ust-helpers/tp-cyg-profile-fast.h"

TRAWL_EXPORT void __cyg_profile_func_enter(void *this_fn, void *call_site) __attribute__((no_instrument_function));
TRAWL_EXPORT void __cyg_profile_func_exit(void *this_fn, void *call_site) __attribute__((no_instrument_function));

TRAWL_EXPORT void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
	(void)call_site;
	tracepoint(lttng_ust_cyg_profile_fast, func_entry, this_fn);
}

TRAWL_EXPORT void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
	(void)call_site;
	tracepoint(lttng_ust_cyg_profile_fast, func_exit, this_fn);
}
