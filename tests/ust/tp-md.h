/* SPDX-License-Identifier: MIT */
/* Provider tmd of app-multi.c, in its own shared object (libtp-md.so). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER tmd
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-md.h"
#if !defined(TP_MD_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_MD_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(tmd, seq, TP_ARGS(int, n), TP_FIELDS(ctf_integer(int, n, n)))
TRACEPOINT_EVENT(tmd, other, TP_ARGS(const char *, s), TP_FIELDS(ctf_string(s, s)))
#endif
#include <trawl/tracepoint-event.h>
