/* SPDX-License-Identifier: MIT */
/* Provider tmc of app-multi.c, in its own shared object (libtp-mc.so). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER tmc
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-mc.h"
#if !defined(TP_MC_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_MC_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(tmc, seq, TP_ARGS(int, n), TP_FIELDS(ctf_integer(int, n, n)))
TRACEPOINT_EVENT(tmc, other, TP_ARGS(const char *, s), TP_FIELDS(ctf_string(s, s)))
#endif
#include <trawl/tracepoint-event.h>
