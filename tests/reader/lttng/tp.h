/* SPDX-License-Identifier: MIT */
/*
 * A tracepoint provider for tests/reader/lttng.sh, built against the
 * system's LTTng-UST 2.13 headers: one event per kind of field LTTng-UST
 * writes (integers of each size and sign, hex, floats, strings, arrays,
 * sequences, text arrays and sequences, enums).
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER trawltest

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp.h"

#if !defined(TRAWL_TEST_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_TEST_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

TRACEPOINT_ENUM(trawltest, colour,
	TP_ENUM_VALUES(
		ctf_enum_value("RED", 0)
		ctf_enum_value("GREEN", 1)
		ctf_enum_range("MANY", 10, 20)
		ctf_enum_auto("NEXT")
	)
)

TRACEPOINT_EVENT(trawltest, ints,
	TP_ARGS(int64_t, i),
	TP_FIELDS(
		ctf_integer(int8_t, s8, (int8_t)i)
		ctf_integer(uint8_t, u8, (uint8_t)i)
		ctf_integer(int16_t, s16, (int16_t)(i * 77))
		ctf_integer(uint16_t, u16, (uint16_t)(i * 77))
		ctf_integer(int32_t, s32, (int32_t)(i * -100003))
		ctf_integer(uint32_t, u32, (uint32_t)(i * 100003))
		ctf_integer(int64_t, s64, i * -1234567890123LL)
		ctf_integer(uint64_t, u64, (uint64_t)i * 9876543210ULL)
		ctf_integer_hex(uint32_t, hex, (uint32_t)(i * 0x1234567))
		ctf_integer_network(uint16_t, net, (uint16_t)i)
		ctf_integer_network_hex(uint32_t, nethex, (uint32_t)i)
	)
)

TRACEPOINT_EVENT(trawltest, floats,
	TP_ARGS(int64_t, i),
	TP_FIELDS(
		ctf_float(float, f, (float)i / 3.0f)
		ctf_float(double, d, (double)i * 1e-7)
	)
)

TRACEPOINT_EVENT(trawltest, text,
	TP_ARGS(const char *, s, const int *, arr, unsigned int, n),
	TP_FIELDS(
		ctf_string(s, s)
		ctf_array(int, arr, arr, 3)
		ctf_array_text(char, atext, s, 4)
		ctf_sequence(int, seq, arr, unsigned int, n)
		ctf_sequence_text(char, stext, s, unsigned int, n)
		ctf_enum(trawltest, colour, int, col, n * 5)
	)
)

#endif /* TRAWL_TEST_TP_H */

#include <lttng/tracepoint-event.h>
