/* SPDX-License-Identifier: MIT */
/* A provider with fields for filters only (ctf_*_nowrite), for filter.py. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER tfilt
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-filter.h"
#if !defined(TP_FILTER_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_FILTER_H
#include <trawl/tracepoint.h>
#include <stdint.h>

TRACEPOINT_EVENT(tfilt, hidden,
		 TP_ARGS(int, k, const char *, tag, const int *, arr),
		 TP_FIELDS(ctf_integer(int, shown, k) ctf_integer_nowrite(int, secret, k * 10)
				   ctf_string_nowrite(tag, tag) ctf_float_nowrite(double, half, k / 2.0)
				   ctf_array_nowrite(int, arr, arr, 3)
				   ctf_sequence_text_nowrite(char, initial, tag, unsigned int, 1)
				   ctf_string(label, tag)))
#endif
#include <trawl/tracepoint-event.h>
