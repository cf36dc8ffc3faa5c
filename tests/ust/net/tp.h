/* SPDX-License-Identifier: MIT */
/*
 * A provider written for LTTng-UST's classic API, built twice by
 * tests/ust/network.sh: against LTTng-UST 2.13 and against trawl's
 * compatibility headers. ctf_integer_network takes values already in
 * network byte order (a sockaddr_in's port and address) and records them
 * as given, declared big-endian: readers then show the port and address.
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER tnet

#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp.h"

#if !defined(TRAWL_TEST_NET_TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_TEST_NET_TP_H

#include <lttng/tracepoint.h>
#include <netinet/in.h>
#include <stdint.h>

TRACEPOINT_EVENT(tnet, peer,
	TP_ARGS(int, i, const struct sockaddr_in *, sin, uint64_t, v64, int32_t, s32),
	TP_FIELDS(
		ctf_integer(int, i, i)
		ctf_integer_network(uint16_t, port, sin->sin_port)
		ctf_integer_network_hex(uint32_t, addr, sin->sin_addr.s_addr)
		ctf_integer(uint16_t, host_port, ntohs(sin->sin_port))
		ctf_integer_network(uint64_t, v64, v64)
		ctf_integer_network_hex(uint64_t, v64hex, v64)
		ctf_integer_network(int32_t, s32, s32)
		ctf_integer_network(int16_t, s16, (int16_t)s32)
		ctf_integer_network_hex(uint16_t, u16hex, (uint16_t)s32)
		ctf_integer_network(uint8_t, u8, (uint8_t)s32)
	)
)

#endif

#include <lttng/tracepoint-event.h>
