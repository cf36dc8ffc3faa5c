/* SPDX-License-Identifier: MIT */
/* The ANCHORS.md benchmark provider; builds against LTTng-UST's headers or
 * trawl's compatibility headers unchanged. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER anchor
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-anchor.h"
#if !defined(TP_ANCHOR_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_ANCHOR_H
#include <lttng/tracepoint.h>
#include <stdint.h>
TRACEPOINT_EVENT(anchor, ev, TP_ARGS(int64_t, a, uint32_t, b, const char *, s),
		 TP_FIELDS(ctf_integer(int64_t, a, a) ctf_integer(uint32_t, b, b) ctf_string(s, s)))
#endif
#include <lttng/tracepoint-event.h>
