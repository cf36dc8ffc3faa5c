/* SPDX-License-Identifier: MIT */
/* dlopen(), dlmopen() and dlclose(), as LTTng-UST 2.13's dl helper records
 * them (lttng_ust_dl:dlopen, dlmopen, build_id, debug_link, dlclose); the
 * ip is their caller. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_ust_dl
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust-helpers/tp-dl.h"
#if !defined(TRAWL_UST_TP_DL_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_DL_H
#include <dlfcn.h>
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(lttng_ust_dl, dlopen,
		 TP_ARGS(void *, ip, void *, baddr, const char *, path, int, flags, uint64_t, memsz, uint8_t,
			 has_build_id, uint8_t, has_debug_link),
		 TP_FIELDS(ctf_unused(ip) ctf_integer_hex(void *, baddr, baddr) ctf_integer(uint64_t, memsz, memsz)
				   ctf_integer_hex(int, flags, flags) ctf_string(path, path)
				   ctf_integer(uint8_t, has_build_id, has_build_id)
				   ctf_integer(uint8_t, has_debug_link, has_debug_link)))

TRACEPOINT_EVENT(lttng_ust_dl, dlmopen,
		 TP_ARGS(void *, ip, void *, baddr, Lmid_t, nsid, const char *, path, int, flags, uint64_t, memsz,
			 uint8_t, has_build_id, uint8_t, has_debug_link),
		 TP_FIELDS(ctf_unused(ip) ctf_integer_hex(void *, baddr, baddr) ctf_integer(uint64_t, memsz, memsz)
				   ctf_integer(Lmid_t, nsid, nsid) ctf_integer_hex(int, flags, flags)
				   ctf_string(path, path) ctf_integer(uint8_t, has_build_id, has_build_id)
				   ctf_integer(uint8_t, has_debug_link, has_debug_link)))

TRACEPOINT_EVENT(lttng_ust_dl, build_id,
		 TP_ARGS(void *, ip, void *, baddr, const uint8_t *, build_id, size_t, build_id_len),
		 TP_FIELDS(ctf_unused(ip) ctf_integer_hex(void *, baddr, baddr)
				   ctf_sequence_hex(uint8_t, build_id, build_id, size_t, build_id_len)))

TRACEPOINT_EVENT(lttng_ust_dl, debug_link, TP_ARGS(void *, ip, void *, baddr, const char *, filename, uint32_t, crc),
		 TP_FIELDS(ctf_unused(ip) ctf_integer_hex(void *, baddr, baddr) ctf_integer(uint32_t, crc, crc)
				   ctf_string(filename, filename)))

TRACEPOINT_EVENT(lttng_ust_dl, dlclose, TP_ARGS(void *, ip, void *, baddr),
		 TP_FIELDS(ctf_unused(ip) ctf_integer_hex(void *, baddr, baddr)))
#endif
#include <trawl/tracepoint-event.h>
