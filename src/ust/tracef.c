/* SPDX-License-Identifier: MIT */
/*
 * tracef.c - tracef() and tracelog(): printf-style events, recorded as
 * LTTng-UST records them (lttng_ust_tracef:event { _msg_length, msg } and
 * lttng_ust_tracelog:<LEVEL> { line, file, func, _msg_length, msg }).
 *
 * The message is formatted into a 512-byte stack buffer, by fast_format()
 * for the common conversions, else by vsnprintf; only a longer message is
 * formatted again into a malloc'd one (vasprintf).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

#define TRACEPOINT_CREATE_PROBES
#define _TRAWL_PROVIDER_REGISTER trawl_ust_provider_register_internal
#include "ust/tp-tracef.h"
#include "ust/tp-tracelog.h"

#define _TRAWL_UST_NO_WAIT
#include <trawl/tracef.h>
#include <trawl/tracelog.h>

#include "ust/ust.h"

/* The library's own call sites: no signature to check (abi 0), they are
 * the same code as their probes. */
TRAWL_EXPORT struct trawl_tracepoint trawl_ust_tracef_tp = { "lttng_ust_tracef:event", 0, 0, NULL, NULL, NULL };

#define TL(level) { "lttng_ust_tracelog:LTTNG_UST_TRACEPOINT_LOGLEVEL_" #level, 0, 0, NULL, NULL, NULL }
TRAWL_EXPORT struct trawl_tracepoint trawl_ust_tracelog_tp[15] = {
	TL(EMERG),	 TL(ALERT),	  TL(CRIT),	  TL(ERR),
	TL(WARNING),	 TL(NOTICE),	  TL(INFO),	  TL(DEBUG_SYSTEM),
	TL(DEBUG_PROGRAM), TL(DEBUG_PROCESS), TL(DEBUG_MODULE), TL(DEBUG_UNIT),
	TL(DEBUG_FUNCTION), TL(DEBUG_LINE),	  TL(DEBUG),
};

static struct trawl_tracepoint *const own_tps[16] = {
	&trawl_ust_tracef_tp,	   &trawl_ust_tracelog_tp[0],  &trawl_ust_tracelog_tp[1],  &trawl_ust_tracelog_tp[2],
	&trawl_ust_tracelog_tp[3], &trawl_ust_tracelog_tp[4],  &trawl_ust_tracelog_tp[5],  &trawl_ust_tracelog_tp[6],
	&trawl_ust_tracelog_tp[7], &trawl_ust_tracelog_tp[8],  &trawl_ust_tracelog_tp[9],  &trawl_ust_tracelog_tp[10],
	&trawl_ust_tracelog_tp[11], &trawl_ust_tracelog_tp[12], &trawl_ust_tracelog_tp[13], &trawl_ust_tracelog_tp[14],
};

/* After the providers' own constructors (default priority runs later than
 * 200 for constructors in one object? no: order within an object is not
 * guaranteed, so registration matches in whichever order). */
static void __attribute__((constructor)) tracef_init(void)
{
	trawl_ust_tracepoints_register(own_tps, TRAWL_ARRAY_SIZE(own_tps));
}

static char *put_u64(char *p, char *end, uint64_t v, unsigned int base)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (end - p < n)
		return NULL;
	while (n)
		*p++ = tmp[--n];
	return p;
}

/*
 * The common conversions (%d %i %u %x %s %c %p %% with l/ll/z), without
 * flags, width or precision, formatted here: glibc's vsnprintf costs more
 * than the whole rest of a tracef(). Returns the length, or -1 to let
 * vsnprintf do it (any other conversion, or no room).
 */
static int fast_format(char *buf, size_t size, const char *fmt, va_list ap)
{
	char *p = buf, *end = buf + size - 1;

	for (; *fmt; fmt++) {
		int lng = 0;
		uint64_t u;
		int64_t v;

		if (*fmt != '%') {
			if (p == end)
				return -1;
			*p++ = *fmt;
			continue;
		}
		fmt++;
		while (*fmt == 'l' || *fmt == 'z') {
			lng += *fmt == 'z' ? 2 : 1;
			fmt++;
		}
		switch (*fmt) {
		case 'd':
		case 'i':
			v = lng >= 2 ? (int64_t)va_arg(ap, long long) : lng ? va_arg(ap, long) : va_arg(ap, int);
			if (v < 0) {
				if (p == end)
					return -1;
				*p++ = '-';
				u = (uint64_t)0 - (uint64_t)v;
			} else {
				u = (uint64_t)v;
			}
			p = put_u64(p, end, u, 10);
			break;
		case 'u':
		case 'x':
			u = lng >= 2 ? (uint64_t)va_arg(ap, unsigned long long)
				     : lng ? va_arg(ap, unsigned long) : va_arg(ap, unsigned int);
			p = put_u64(p, end, u, *fmt == 'x' ? 16 : 10);
			break;
		case 'p':
			if (end - p < 2)
				return -1;
			*p++ = '0';
			*p++ = 'x';
			p = put_u64(p, end, (uint64_t)(uintptr_t)va_arg(ap, void *), 16);
			break;
		case 's': {
			const char *str = va_arg(ap, const char *);
			size_t l;

			if (!str)
				str = "(null)";
			l = strlen(str);
			if ((size_t)(end - p) < l)
				return -1;
			memcpy(p, str, l);
			p += l;
			break;
		}
		case 'c':
			if (p == end)
				return -1;
			*p++ = (char)va_arg(ap, int);
			break;
		case '%':
			if (p == end)
				return -1;
			*p++ = '%';
			break;
		default:
			return -1;
		}
		if (!p)
			return -1;
	}
	*p = '\0';
	return (int)(p - buf);
}

/* Formats @fmt; calls @emit with the message; frees what it allocated. */
#define FORMAT_AND(emit)                                                                              \
	do {                                                                                          \
		char buf[512], *msg = buf;                                                            \
		va_list aq;                                                                           \
		int n;                                                                                \
		va_copy(aq, ap);                                                                      \
		n = fast_format(buf, sizeof(buf), fmt, aq);                                           \
		va_end(aq);                                                                           \
		if (n < 0) {                                                                          \
			va_copy(aq, ap);                                                              \
			n = vsnprintf(buf, sizeof(buf), fmt, aq);                                     \
			va_end(aq);                                                                   \
		}                                                                                     \
		if (n < 0)                                                                            \
			break;                                                                        \
		if ((size_t)n >= sizeof(buf) && vasprintf(&msg, fmt, ap) < 0)                         \
			break;                                                                        \
		emit;                                                                                 \
		if (msg != buf)                                                                       \
			free(msg);                                                                    \
	} while (0)

/* @ip: the caller of the public entry point, for the "ip" context. */
static __attribute__((format(printf, 2, 0))) void tracef_ip(void *ip, const char *fmt, va_list ap)
{
	FORMAT_AND(__trawl_class_probe_lttng_ust_tracef___event(&__trawl_event_lttng_ust_tracef___event, ip, msg,
								 (unsigned int)n, ip));
}

TRAWL_EXPORT void _trawl_vtracef(const char *fmt, va_list ap)
{
	tracef_ip(__builtin_return_address(0), fmt, ap);
}

TRAWL_EXPORT void _trawl_tracef(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tracef_ip(__builtin_return_address(0), fmt, ap);
	va_end(ap);
}

/* The 15 instances of lttng_ust_tracelog:tlclass, by level. */
static struct trawl_ust_event_desc *const tracelog_events[15] = {
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_EMERG,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_ALERT,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_CRIT,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_ERR,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_NOTICE,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_SYSTEM,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROGRAM,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROCESS,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_MODULE,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_UNIT,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_FUNCTION,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_LINE,
	&__trawl_event_lttng_ust_tracelog___LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG,
};

static __attribute__((format(printf, 6, 0))) void tracelog_ip(void *ip, int level, const char *file, int line,
								 const char *func, const char *fmt, va_list ap)
{
	if (level < 0 || level > 14)
		return;
	FORMAT_AND(__trawl_class_probe_lttng_ust_tracelog___tlclass(tracelog_events[level], ip, file, line, func,
								     msg, (unsigned int)n, ip));
}

TRAWL_EXPORT void _trawl_vtracelog(int level, const char *file, int line, const char *func, const char *fmt,
				   va_list ap)
{
	tracelog_ip(__builtin_return_address(0), level, file, line, func, fmt, ap);
}

TRAWL_EXPORT void _trawl_tracelog(int level, const char *file, int line, const char *func, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tracelog_ip(__builtin_return_address(0), level, file, line, func, fmt, ap);
	va_end(ap);
}
