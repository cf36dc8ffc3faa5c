/* SPDX-License-Identifier: MIT */
/* Provider tma of app-multi.c, in its own shared object (libtp-ma.so). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER tma
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-ma.h"
#if !defined(TP_MA_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_MA_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(tma, seq, TP_ARGS(int, n), TP_FIELDS(ctf_integer(int, n, n)))
TRACEPOINT_EVENT(tma, other, TP_ARGS(const char *, s), TP_FIELDS(ctf_string(s, s)))
#endif
#include <trawl/tracepoint-event.h>
