/* SPDX-License-Identifier: MIT */
/* The benchmark app's provider, in LTTng-UST's classic form: the same source
 * builds against LTTng-UST and against trawl's compatibility headers. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER benchctl
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp.h"
#if !defined(BENCHCTL_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define BENCHCTL_TP_H
#include <lttng/tracepoint.h>
TRACEPOINT_EVENT(benchctl, ev, TP_ARGS(int64_t, a, uint32_t, b, const char *, s),
		 TP_FIELDS(ctf_integer(int64_t, a, a) ctf_integer(uint32_t, b, b) ctf_string(s, s)))
#endif
#include <lttng/tracepoint-event.h>
