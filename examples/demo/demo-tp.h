/* SPDX-License-Identifier: MIT */
/* The demo's tracepoints: one per thing a reader wants to see. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER demo
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./demo-tp.h"
#if !defined(DEMO_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define DEMO_TP_H
#include <trawl/tracepoint.h>
#include <stdint.h>

TRACEPOINT_ENUM(demo, phase,
		TP_ENUM_VALUES(ctf_enum_value("INIT", 0) ctf_enum_value("WRITE", 1) ctf_enum_value("READ", 2)
				       ctf_enum_value("ANALYZE", 3) ctf_enum_value("DONE", 4)))

TRACEPOINT_EVENT(demo, phase,
		 TP_ARGS(int, phase, const char *, what),
		 TP_FIELDS(ctf_enum(demo, phase, int, phase, phase) ctf_string(what, what)))

TRACEPOINT_EVENT(demo, file_open,
		 TP_ARGS(const char *, path, int, flags, int, fd),
		 TP_FIELDS(ctf_string(path, path) ctf_integer_hex(int, flags, flags) ctf_integer(int, fd, fd)))

TRACEPOINT_EVENT(demo, chunk,
		 TP_ARGS(int, fd, int64_t, bytes, double, mib_per_s),
		 TP_FIELDS(ctf_integer(int, fd, fd) ctf_integer(int64_t, bytes, bytes)
				   ctf_float(double, mib_per_s, mib_per_s)))

TRACEPOINT_EVENT(demo, word,
		 TP_ARGS(const char *, w, unsigned int, len, uint32_t, count),
		 TP_FIELDS(ctf_sequence_text(char, word, w, unsigned int, len) ctf_integer(uint32_t, count, count)))

TRACEPOINT_EVENT(demo, histogram,
		 TP_ARGS(const uint32_t *, buckets, const uint16_t *, top, unsigned int, ntop),
		 TP_FIELDS(ctf_array(uint32_t, by_length, buckets, 8)
				   ctf_sequence(uint16_t, top_lengths, top, unsigned int, ntop)))

TRACEPOINT_EVENT(demo, nap,
		 TP_ARGS(unsigned int, ms),
		 TP_FIELDS(ctf_integer(unsigned int, ms, ms)))
TRACEPOINT_LOGLEVEL(demo, nap, TRACE_DEBUG)
#endif
#include <trawl/tracepoint-event.h>
