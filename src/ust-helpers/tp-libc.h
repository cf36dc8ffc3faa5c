/* SPDX-License-Identifier: MIT */
/* The C library's allocator, as LTTng-UST 2.13's libc wrapper records it
 * (lttng_ust_libc:malloc, free, calloc, realloc, memalign, posix_memalign);
 * the ip is the allocator's caller. */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER lttng_ust_libc
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "ust-helpers/tp-libc.h"
#if !defined(TRAWL_UST_TP_LIBC_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TRAWL_UST_TP_LIBC_H
#include <trawl/tracepoint.h>

TRACEPOINT_EVENT(lttng_ust_libc, malloc, TP_ARGS(size_t, size, void *, ptr, void *, ip),
		 TP_FIELDS(ctf_integer(size_t, size, size) ctf_integer_hex(void *, ptr, ptr) ctf_unused(ip)))

TRACEPOINT_EVENT(lttng_ust_libc, free, TP_ARGS(void *, ptr, void *, ip),
		 TP_FIELDS(ctf_integer_hex(void *, ptr, ptr) ctf_unused(ip)))

TRACEPOINT_EVENT(lttng_ust_libc, calloc, TP_ARGS(size_t, nmemb, size_t, size, void *, ptr, void *, ip),
		 TP_FIELDS(ctf_integer(size_t, nmemb, nmemb) ctf_integer(size_t, size, size)
				   ctf_integer_hex(void *, ptr, ptr) ctf_unused(ip)))

TRACEPOINT_EVENT(lttng_ust_libc, realloc, TP_ARGS(void *, in_ptr, size_t, size, void *, ptr, void *, ip),
		 TP_FIELDS(ctf_integer_hex(void *, in_ptr, in_ptr) ctf_integer(size_t, size, size)
				   ctf_integer_hex(void *, ptr, ptr) ctf_unused(ip)))

TRACEPOINT_EVENT(lttng_ust_libc, memalign, TP_ARGS(size_t, alignment, size_t, size, void *, ptr, void *, ip),
		 TP_FIELDS(ctf_integer(size_t, alignment, alignment) ctf_integer(size_t, size, size)
				   ctf_integer_hex(void *, ptr, ptr) ctf_unused(ip)))

TRACEPOINT_EVENT(lttng_ust_libc, posix_memalign,
		 TP_ARGS(void *, out_ptr, size_t, alignment, size_t, size, int, result, void *, ip),
		 TP_FIELDS(ctf_integer_hex(void *, out_ptr, out_ptr) ctf_integer(size_t, alignment, alignment)
				   ctf_integer(size_t, size, size) ctf_integer(int, result, result) ctf_unused(ip)))
#endif
#include <trawl/tracepoint-event.h>
