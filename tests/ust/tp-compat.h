/* SPDX-License-Identifier: MIT */
/*
 * A provider in LTTng-UST 2.13's namespaced spelling, with every field
 * macro (the nowrite ones for filters), an enum, a class with an instance
 * and a log level, an event without fields. Built against trawl and against
 * LTTng-UST by tests/ust/CMakeLists.txt; compat.py compares their traces.
 * It calls fprintf(stderr) and getpid() with only <lttng/tracepoint.h>
 * included, as a provider written for LTTng-UST may.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER tcompat
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./tp-compat.h"
#if !defined(TP_COMPAT_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define TP_COMPAT_H
#include <lttng/tracepoint.h>

#ifndef TP_COMPAT_NOTE
#define TP_COMPAT_NOTE
static inline void tcompat_note(const char *what)
{
	if (getenv("TCOMPAT_VERBOSE"))
		fprintf(stderr, "tcompat %d: %s\n", (int)getpid(), what);
}
#endif

LTTNG_UST_TRACEPOINT_ENUM(tcompat, color,
			  LTTNG_UST_TP_ENUM_VALUES(lttng_ust_field_enum_value("RED", 0)
							   lttng_ust_field_enum_range("BLUES", 10, 19)
								   lttng_ust_field_enum_auto("AFTER")))

LTTNG_UST_TRACEPOINT_EVENT(tcompat, ints, LTTNG_UST_TP_ARGS(int32_t, v, uint16_t, net16, uint32_t, net32),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int32_t, i, v)
		lttng_ust_field_integer_hex(int32_t, ihex, v)
		lttng_ust_field_integer_network(uint32_t, inet, net32)
		lttng_ust_field_integer_network_hex(uint16_t, inethex, net16)
		lttng_ust_field_integer_nowrite(int32_t, inw, v + 1)
		lttng_ust_field_float(double, d, v / 2.0)
		lttng_ust_field_float_nowrite(float, fnw, v)
		lttng_ust_field_enum(tcompat, color, int, color, v)
		lttng_ust_field_enum_nowrite(tcompat, color, int, colornw, v)
		lttng_ust_field_unused(net16)
		lttng_ust_field_unused_nowrite(net32)))

LTTNG_UST_TRACEPOINT_EVENT(tcompat, arrays,
	LTTNG_UST_TP_ARGS(const uint32_t *, a, const uint32_t *, be, const char *, s),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_array(uint32_t, arr, a, 3)
		lttng_ust_field_array_hex(uint32_t, arrhex, a, 3)
		lttng_ust_field_array_network(uint32_t, arrnet, be, 3)
		lttng_ust_field_array_network_hex(uint32_t, arrnethex, be, 3)
		lttng_ust_field_array_text(char, arrtext, s, 8)
		lttng_ust_field_array_nowrite(uint32_t, arrnw, a, 3)
		lttng_ust_field_array_nowrite_hex(uint32_t, arrnwhex, a, 3)
		lttng_ust_field_array_network_nowrite(uint32_t, arrnetnw, be, 3)
		lttng_ust_field_array_network_nowrite_hex(uint32_t, arrnetnwhex, be, 3)
		lttng_ust_field_array_text_nowrite(char, arrtextnw, s, 8)))

LTTNG_UST_TRACEPOINT_EVENT(tcompat, seqs,
	LTTNG_UST_TP_ARGS(const uint32_t *, a, const uint32_t *, be, const char *, s, unsigned int, n),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_sequence(uint32_t, seq, a, unsigned int, n)
		lttng_ust_field_sequence_hex(uint32_t, seqhex, a, uint8_t, n)
		lttng_ust_field_sequence_network(uint32_t, seqnet, be, uint16_t, n)
		lttng_ust_field_sequence_network_hex(uint32_t, seqnethex, be, size_t, n)
		lttng_ust_field_sequence_text(char, seqtext, s, unsigned int, n)
		lttng_ust_field_sequence_nowrite(uint32_t, seqnw, a, unsigned int, n)
		lttng_ust_field_sequence_nowrite_hex(uint32_t, seqnwhex, a, unsigned int, n)
		lttng_ust_field_sequence_network_nowrite(uint32_t, seqnetnw, be, unsigned int, n)
		lttng_ust_field_sequence_network_nowrite_hex(uint32_t, seqnetnwhex, be, unsigned int, n)
		lttng_ust_field_sequence_text_nowrite(char, seqtextnw, s, unsigned int, n)))

LTTNG_UST_TRACEPOINT_EVENT(tcompat, strings, LTTNG_UST_TP_ARGS(const char *, s),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(str, s)
		lttng_ust_field_string_nowrite(strnw, s)))

LTTNG_UST_TRACEPOINT_EVENT_CLASS(tcompat, pair, LTTNG_UST_TP_ARGS(int, a, int, b),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer(int, a, a)
		lttng_ust_field_integer(int, b, b)))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(tcompat, pair, tcompat, first, LTTNG_UST_TP_ARGS(int, a, int, b))
LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(tcompat, pair, tcompat, second, LTTNG_UST_TP_ARGS(int, a, int, b))
LTTNG_UST_TRACEPOINT_LOGLEVEL(tcompat, first, LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING)
LTTNG_UST_TRACEPOINT_MODEL_EMF_URI(tcompat, second, "http://example.com/second")

LTTNG_UST_TRACEPOINT_EVENT(tcompat, noargs, LTTNG_UST_TP_ARGS(), LTTNG_UST_TP_FIELDS())
#endif
#include <lttng/tracepoint-event.h>
