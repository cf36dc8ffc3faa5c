/* SPDX-License-Identifier: MIT */
/* A provider using every field macro, for the end-to-end tests. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER tall
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-all.h"
#if !defined(TP_ALL_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_ALL_H
#include <lttng/tracepoint.h>
#include <stdint.h>

TRACEPOINT_ENUM(tall, color,
		TP_ENUM_VALUES(ctf_enum_value("RED", 0) ctf_enum_value("GREEN", 1)
				       ctf_enum_range("BLUES", 10, 19) ctf_enum_auto("AFTER_BLUES")))

TRACEPOINT_EVENT(tall, ints,
		 TP_ARGS(int64_t, i, uint32_t, u),
		 TP_FIELDS(ctf_integer(int8_t, s8, (int8_t)i) ctf_integer(uint8_t, u8, (uint8_t)u)
				   ctf_integer(int16_t, s16, (int16_t)i) ctf_integer(uint16_t, u16, (uint16_t)u)
				   ctf_integer(int32_t, s32, (int32_t)i) ctf_integer(uint32_t, u32, u)
				   ctf_integer(int64_t, s64, i) ctf_integer(uint64_t, u64, (uint64_t)u * 3)
				   ctf_integer_hex(uint32_t, hex, u) ctf_integer_network(uint32_t, net, u)
				   ctf_integer_network_hex(uint16_t, nethex, (uint16_t)u)))

TRACEPOINT_EVENT(tall, floats,
		 TP_ARGS(double, d),
		 TP_FIELDS(ctf_float(float, f, (float)d) ctf_float(double, d, d)))

TRACEPOINT_EVENT(tall, strings,
		 TP_ARGS(const char *, s, int, n),
		 TP_FIELDS(ctf_string(str, s) ctf_array_text(char, arrtext, s, 4)
				   ctf_sequence_text(char, seqtext, s, unsigned int, n)))

TRACEPOINT_EVENT(tall, arrays,
		 TP_ARGS(const int *, a, unsigned int, n),
		 TP_FIELDS(ctf_array(int, arr, a, 3) ctf_sequence(int, seq, a, unsigned int, n)
				   ctf_sequence_hex(int, seqhex, a, uint8_t, n)))

TRACEPOINT_EVENT(tall, enums,
		 TP_ARGS(int, c),
		 TP_FIELDS(ctf_enum(tall, color, int, color, c) ctf_integer(int, raw, c)))

TRACEPOINT_EVENT_CLASS(tall, pair, TP_ARGS(int, a, int, b),
		       TP_FIELDS(ctf_integer(int, a, a) ctf_integer(int, b, b)))
TRACEPOINT_EVENT_INSTANCE(tall, pair, first, TP_ARGS(int, a, int, b))
TRACEPOINT_EVENT_INSTANCE(tall, pair, second, TP_ARGS(int, a, int, b))
TRACEPOINT_LOGLEVEL(tall, first, TRACE_WARNING)

TRACEPOINT_EVENT(tall, noargs, TP_ARGS(), TP_FIELDS())

TRACEPOINT_EVENT(tall, seq,
		 TP_ARGS(uint32_t, thread, uint64_t, n),
		 TP_FIELDS(ctf_integer(uint32_t, thread, thread) ctf_integer(uint64_t, n, n)))
#endif
#include <lttng/tracepoint-event.h>
