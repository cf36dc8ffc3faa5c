/* SPDX-License-Identifier: MIT */
/*
 * cyg-profile.c - libtrawl-ust-cyg-profile (LTTng-UST's
 * liblttng-ust-cyg-profile): a program built with -finstrument-functions
 * calls __cyg_profile_func_enter/exit around each of its functions; this
 * library, preloaded, records them as lttng_ust_cyg_profile:func_entry and
 * func_exit (the function's address and its call site; the ip context is
 * the function's address). The state dump (lttng_ust_statedump:*) lets a
 * viewer turn the addresses into symbols.
 */
#define _GNU_SOURCE
#include "common/common.h"

#define TRACEPOINT_DEFINE
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_PROVIDER_HIDDEN_DEFINITION
#define TP_IP_PARAM func_addr
#include "ust-helpers/tp-cyg-profile.h"

TRAWL_EXPORT void __cyg_profile_func_enter(void *this_fn, void *call_site) __attribute__((no_instrument_function));
TRAWL_EXPORT void __cyg_profile_func_exit(void *this_fn, void *call_site) __attribute__((no_instrument_function));

TRAWL_EXPORT void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
	tracepoint(lttng_ust_cyg_profile, func_entry, this_fn, call_site);
}

TRAWL_EXPORT void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
	tracepoint(lttng_ust_cyg_profile, func_exit, this_fn, call_site);
}
