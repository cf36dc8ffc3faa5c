/* SPDX-License-Identifier: MIT */
/*
 * Objects loaded and unloaded after start-up, as LTTng-UST 2.13 records
 * them (lttng_ust_lib:load, build_id, debug_link, unload): emitted when the
 * dl helper (libtrawl-ust-dl) sees a dlopen() or dlclose() change the set
 * of loaded objects. The ip is the caller of dlopen()/dlclose().
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_ust_lib
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust/tp-lib.h"
#if !defined(TRAWL_UST_TP_LIB_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_LIB_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(lttng_ust_lib, load,
		 TP_ARGS(void *, ip, void *, baddr, const char *, path, uint64_t, memsz, uint8_t, has_build_id, uint8_t,
			 has_debug_link),
		 TP_FIELDS(ctf_unused(ip) ctf_integer_hex(void *, baddr, baddr) ctf_integer(uint64_t, memsz, memsz)
				   ctf_string(path, path) ctf_integer(uint8_t, has_build_id, has_build_id)
				   ctf_integer(uint8_t, has_debug_link, has_debug_link)))

TRACEPOINT_EVENT(lttng_ust_lib, build_id,
		 TP_ARGS(void *, ip, void *, baddr, const uint8_t *, build_id, size_t, build_id_len),
		 TP_FIELDS(ctf_unused(ip) ctf_integer_hex(void *, baddr, baddr)
				   ctf_sequence_hex(uint8_t, build_id, build_id, size_t, build_id_len)))

TRACEPOINT_EVENT(lttng_ust_lib, debug_link, TP_ARGS(void *, ip, void *, baddr, const char *, filename, uint32_t, crc),
		 TP_FIELDS(ctf_unused(ip) ctf_integer_hex(void *, baddr, baddr) ctf_integer(uint32_t, crc, crc)
				   ctf_string(filename, filename)))

TRACEPOINT_EVENT(lttng_ust_lib, unload, TP_ARGS(void *, ip, void *, baddr),
		 TP_FIELDS(ctf_unused(ip) ctf_integer_hex(void *, baddr, baddr)))
#endif
#include <trawl/tracepoint-event.h>
