/* SPDX-License-Identifier: MIT */
/*
 * The user-space state dump, as LTTng-UST 2.13 names and lays it out
 * (lttng_ust_statedump:start, procname, bin_info, build_id, debug_link,
 * end). Each event takes the session it is for first: the probe records it
 * only into that session's channels (_TRAWL_SESSION_CHECK).
 */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_ust_statedump
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust/tp-statedump.h"
#if !defined(TRAWL_UST_TP_STATEDUMP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_STATEDUMP_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(lttng_ust_statedump, start, TP_ARGS(const void *, session), TP_FIELDS(ctf_unused(session)))

TRACEPOINT_EVENT(lttng_ust_statedump, bin_info,
		 TP_ARGS(const void *, session, void *, baddr, const char *, path, uint64_t, memsz, uint8_t, is_pic,
			 uint8_t, has_build_id, uint8_t, has_debug_link),
		 TP_FIELDS(ctf_unused(session) ctf_integer_hex(void *, baddr, baddr) ctf_integer(uint64_t, memsz, memsz)
				   ctf_string(path, path) ctf_integer(uint8_t, is_pic, is_pic)
				   ctf_integer(uint8_t, has_build_id, has_build_id)
				   ctf_integer(uint8_t, has_debug_link, has_debug_link)))

TRACEPOINT_EVENT(lttng_ust_statedump, build_id,
		 TP_ARGS(const void *, session, void *, baddr, const uint8_t *, build_id, size_t, build_id_len),
		 TP_FIELDS(ctf_unused(session) ctf_integer_hex(void *, baddr, baddr)
				   ctf_sequence_hex(uint8_t, build_id, build_id, size_t, build_id_len)))

TRACEPOINT_EVENT(lttng_ust_statedump, debug_link,
		 TP_ARGS(const void *, session, void *, baddr, const char *, filename, uint32_t, crc),
		 TP_FIELDS(ctf_unused(session) ctf_integer_hex(void *, baddr, baddr) ctf_integer(uint32_t, crc, crc)
				   ctf_string(filename, filename)))

TRACEPOINT_EVENT(lttng_ust_statedump, procname, TP_ARGS(const void *, session, const char *, name),
		 TP_FIELDS(ctf_unused(session) ctf_array_text(char, procname, name, 17)))

TRACEPOINT_EVENT(lttng_ust_statedump, end, TP_ARGS(const void *, session), TP_FIELDS(ctf_unused(session)))
#endif
#include <trawl/tracepoint-event.h>
