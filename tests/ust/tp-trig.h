/* SPDX-License-Identifier: MIT */
/* The trigger test app's events (app-trig.c, triggers.py). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER trig
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-trig.h"
#if !defined(TP_TRIG_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_TRIG_H
/* (TRAWL_APP_TRIG_LTTNG: built against LTTng-UST, for side-by-side runs) */
#ifdef TRAWL_APP_TRIG_LTTNG
#include <lttng/tracepoint.h>
#else
#include <trawl/tracepoint.h>
#endif
#include <stdint.h>

TRACEPOINT_EVENT(trig, info, TP_ARGS(int, i), TP_FIELDS(ctf_integer(int, i, i)))
TRACEPOINT_LOGLEVEL(trig, info, TRACE_INFO)
TRACEPOINT_EVENT(trig, error, TP_ARGS(int, code, const char *, msg),
		 TP_FIELDS(ctf_integer(int, code, code) ctf_string(msg, msg)))
TRACEPOINT_LOGLEVEL(trig, error, TRACE_ERR)
TRACEPOINT_EVENT(trig, warn, TP_ARGS(int, n), TP_FIELDS(ctf_integer(int, n, n)))
TRACEPOINT_LOGLEVEL(trig, warn, TRACE_WARNING)
TRACEPOINT_EVENT(trig, mark, TP_ARGS(const char *, what), TP_FIELDS(ctf_string(what, what)))
/* An array and a sequence, for captures of their elements (field[N]). */
TRACEPOINT_EVENT(trig, arr, TP_ARGS(const int32_t *, a, const uint16_t *, s, size_t, ns),
		 TP_FIELDS(ctf_array(int32_t, a, a, 3) ctf_sequence(uint16_t, s, s, size_t, ns)))
/* One field of each type a capture may be typed as (C API test: typed values). */
TRACEPOINT_ENUM(trig, color, TP_ENUM_VALUES(ctf_enum_value("RED", 0) ctf_enum_value("BLUE", 7)))
TRACEPOINT_EVENT(trig, typed,
		 TP_ARGS(uint64_t, big, int8_t, neg, int32_t, hx, double, d, float, f, const char *, msg,
			 const int32_t *, a, const char *, txt, int, col, const int16_t *, h),
		 TP_FIELDS(ctf_integer(uint64_t, big, big) ctf_integer(int8_t, neg, neg)
				   ctf_integer_hex(int32_t, hx, hx) ctf_float(double, d, d)
				   ctf_float(float, f, f) ctf_string(msg, msg) ctf_array(int32_t, a, a, 3)
				   ctf_array_text(char, txt, txt, 4) ctf_enum(trig, color, int, col, col)
				   ctf_array_hex(int16_t, h, h, 2)))
#endif
#ifdef TRAWL_APP_TRIG_LTTNG
#include <lttng/tracepoint-event.h>
#else
#include <trawl/tracepoint-event.h>
#endif
