/* SPDX-License-Identifier: MIT */
/*
 * The classic spelling of the field macros LTTng-UST 2.13 added or that
 * trawl lacked (ctf_array_network, ctf_sequence_network and their _hex and
 * _nowrite_hex forms, ctf_unused_nowrite), as LTTng's gen-ust-events uses
 * them. Beside tp-compat.h in compat.py's program.
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER tclassic
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-classic.h"
#if !defined(TP_CLASSIC_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_CLASSIC_H
#include <lttng/tracepoint.h>

TRACEPOINT_EVENT(tclassic, net,
	TP_ARGS(const uint32_t *, be, unsigned int, n, uint32_t, x),
	TP_FIELDS(
		ctf_array_network(uint32_t, an, be, 3)
		ctf_array_network_hex(uint32_t, anh, be, 3)
		ctf_sequence_network(uint32_t, sn, be, unsigned int, n)
		ctf_sequence_network_hex(uint32_t, snh, be, unsigned int, n)
		ctf_array_nowrite_hex(uint32_t, anwh, be, 3)
		ctf_sequence_nowrite_hex(uint32_t, snwh, be, unsigned int, n)
		ctf_array_network_nowrite(uint32_t, annw, be, 3)
		ctf_sequence_network_nowrite(uint32_t, snnw, be, unsigned int, n)
		ctf_unused_nowrite(x)
		ctf_integer(uint32_t, x, x)))

#endif
#include <lttng/tracepoint-event.h>
