/* SPDX-License-Identifier: MIT */
/* Provider tmb of app-multi.c, in its own shared object (libtp-mb.so). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER tmb
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-mb.h"
#if !defined(TP_MB_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_MB_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(tmb, seq, TP_ARGS(int, n), TP_FIELDS(ctf_integer(int, n, n)))
TRACEPOINT_EVENT(tmb, other, TP_ARGS(const char *, s), TP_FIELDS(ctf_string(s, s)))
#endif
#include <trawl/tracepoint-event.h>
