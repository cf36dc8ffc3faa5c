/* SPDX-License-Identifier: MIT */
/*
 * <trawl/tracepoint.h> - instrument a program with tracepoints.
 *
 * The classic LTTng-UST shape. A provider header (tp.h):
 *
 *   #undef TRACEPOINT_PROVIDER
 *   #define TRACEPOINT_PROVIDER hello
 *   #undef TRACEPOINT_INCLUDE
 *   #define TRACEPOINT_INCLUDE "./tp.h"
 *   #if !defined(TP_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
 *   #define TP_H
 *   #include <trawl/tracepoint.h>
 *   TRACEPOINT_EVENT(hello, greet, TP_ARGS(int, n, const char *, who),
 *                    TP_FIELDS(ctf_integer(int, n, n) ctf_string(who, who)))
 *   TRACEPOINT_LOGLEVEL(hello, greet, TRACE_INFO)
 *   #endif
 *   #include <trawl/tracepoint-event.h>
 *
 * One .c file defines TRACEPOINT_CREATE_PROBES and TRACEPOINT_DEFINE before
 * including tp.h (the probes, and the tracepoint state words); the program
 * calls tracepoint(hello, greet, 42, "world"). Link with -ltrawl-ust
 * (pkg-config trawl-ust). A probe provider may also be a shared object
 * (LD_PRELOAD or dlopen): the program then defines TRACEPOINT_DEFINE and
 * TRACEPOINT_PROBE_DYNAMIC_LINKAGE in one of its files and needs only libc.
 * Without TRACEPOINT_PROBE_DYNAMIC_LINKAGE, TRACEPOINT_DEFINE refers to a
 * symbol of the provider's probes, so that a provider in a static library
 * is linked in (as with LTTng-UST).
 *
 * LTTng-UST 2.13's namespaced spelling works alike, and both may be mixed:
 * LTTNG_UST_TRACEPOINT_PROVIDER, _INCLUDE, _DEFINE, _CREATE_PROBES,
 * _PROBE_DYNAMIC_LINKAGE, _HEADER_MULTI_READ; LTTNG_UST_TRACEPOINT_EVENT,
 * LTTNG_UST_TRACEPOINT_EVENT_CLASS, LTTNG_UST_TRACEPOINT_EVENT_INSTANCE
 * (class provider, class name, provider, name, args: an instance may belong
 * to another provider than its class), LTTNG_UST_TRACEPOINT_LOGLEVEL,
 * LTTNG_UST_TRACEPOINT_ENUM, LTTNG_UST_TP_ARGS, LTTNG_UST_TP_FIELDS,
 * lttng_ust_field_*, lttng_ust_tracepoint(), lttng_ust_do_tracepoint(),
 * lttng_ust_tracepoint_enabled(). As with LTTng-UST, defining
 * LTTNG_UST_COMPAT_API_VERSION to 1 or more leaves the classic names
 * (tracepoint, TRACEPOINT_EVENT, ctf_*, TRACE_*) undefined.
 *
 * How a call costs nothing when disabled: each tracepoint has a state word;
 * tracepoint() tests it with a predicted-not-taken branch and evaluates its
 * arguments only when it is set. libtrawl-ust sets it when a started session
 * enables the event.
 *
 * The same event (name and arguments) may come from several providers (two
 * dlopen()ed libraries built from one provider header, say): a call then
 * records it once per provider, as LTTng-UST does.
 *
 * Early events: a provider's constructor (before main(), or in dlopen())
 * waits until the user's and root's session daemons, when running, have set
 * the program up, so events emitted at the top of main() are recorded. The
 * wait lasts at most TRAWL_UST_REGISTER_TIMEOUT ms (environment; default
 * 200, 0 = never wait), and not at all when no daemon runs.
 *
 * This header is read many times by tracepoint-event.h with different
 * meanings for the internal _TRAWL_TP_* and _TRAWL_F_* macros (when
 * TRACEPOINT_HEADER_MULTI_READ is defined); the part below the include
 * guard is the "declare" meaning. The public names (classic and namespaced)
 * are fixed aliases of those. Compiles as C99/C11 and C++.
 */
#ifndef TRAWL_TRACEPOINT_H
#define TRAWL_TRACEPOINT_H

/* What LTTng-UST's <lttng/tracepoint.h> brings, for the programs that rely
 * on it (a provider header using stderr or getpid() without including
 * their headers builds against both). */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#include <trawl/tracepoint-names.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2: an event's slots are an array libtrawl-ust sizes. 3: event
 * descriptions carry their argument signature and the next provider's same
 * event; call sites their signature. */
#define TRAWL_UST_ABI_MAJOR 3
/* Minor 1: probes commit inline (_trawl_ust_commit()): the reservation's
 * priv is the commit count's address, or odd for libtrawl-ust's own commit;
 * trawl_ust_commit() stays for probes built before. */
#define TRAWL_UST_ABI_MINOR 1
/* "provider:event" and its NUL, as LTTng-UST limits it. */
#define TRAWL_UST_NAME_LEN_MAX 256

/* LTTng's 15 log levels. */
enum {
	LTTNG_UST_TRACEPOINT_LOGLEVEL_EMERG = 0,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_ALERT = 1,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_CRIT = 2,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_ERR = 3,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING = 4,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_NOTICE = 5,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO = 6,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_SYSTEM = 7,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROGRAM = 8,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROCESS = 9,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_MODULE = 10,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_UNIT = 11,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_FUNCTION = 12,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_LINE = 13,
	LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG = 14,
};

/* A tracepoint's call site state, one per tracepoint per module (program or
 * shared object) that defines TRACEPOINT_DEFINE. */
struct trawl_tracepoint {
	const char *name;    /* "provider:event" */
	int state;           /* non-zero: call the probe (set with release order) */
	int abi;             /* 1: signature below is there (0: built before it) */
	void (*probe)(void); /* the probe, cast to its real type at the call */
	void *priv;          /* libtrawl-ust's */
	const char *signature; /* the TP_ARGS as text: only a provider with the
				  same signature is called */
};

/* ---- what the generated probes need (tracepoint-event.h) ---- */

enum trawl_ust_field_type {
	TRAWL_UST_FIELD_INTEGER = 1,
	TRAWL_UST_FIELD_FLOAT = 2,
	TRAWL_UST_FIELD_STRING = 3,
	TRAWL_UST_FIELD_ARRAY = 4,
	TRAWL_UST_FIELD_SEQUENCE = 5,
	TRAWL_UST_FIELD_ENUM = 6,
};
/* Or'ed into a field description's type: a field for filters only
 * (ctf_*_nowrite), neither recorded nor described to the daemon. */
#define TRAWL_UST_FIELD_NOWRITE 0x80

struct trawl_ust_enum_entry_desc {
	const char *label;
	int64_t start;
	int64_t end;
	int is_auto; /* ctf_enum_auto: the previous end + 1 */
};

struct trawl_ust_enum_desc {
	const char *name; /* "provider_name" */
	const struct trawl_ust_enum_entry_desc *entries;
	unsigned int nr_entries;
};

struct trawl_ust_field_desc {
	const char *name; /* NULL ends a list */
	unsigned char type;      /* enum trawl_ust_field_type */
	unsigned char size_bits; /* integer / element / container / float size */
	unsigned char is_signed;
	unsigned char base;
	unsigned char big_endian; /* integers, array and sequence elements */
	unsigned char is_text;
	unsigned int length;       /* arrays */
	const char *length_name;   /* sequences */
	const struct trawl_ust_enum_desc *enum_desc;
};

/* Where an event records: a (channel, id, filter) slot per channel. */
struct trawl_ust_slot {
	void *chan; /* NULL: free slot (loaded with acquire order) */
	uint32_t id;
	uint32_t filter; /* 0: record every event; else libtrawl-ust's filter
			    for this slot (acquire), see trawl_ust_filter_pass() */
};

/* One field's value for filters, filled only when a slot has a filter:
 * integers and enums sign- or zero-extended to 64 bits in i, floats in d,
 * strings in p, arrays and sequences in p with their element count in n. */
struct trawl_ust_filter_arg {
	int64_t i;
	double d;
	const void *p;
	uint64_t n;
};

/*
 * An event's slots: one per channel it records into, in any number of
 * sessions. libtrawl-ust changes slots in place and, to make room, publishes
 * a copy twice as large (release); an array is never freed while the
 * process runs (a probe may still be reading one it loaded), so the arrays
 * an event ever had take at most twice its largest.
 */
struct trawl_ust_slots {
	unsigned int nr;             /* slots in use are below this (acquire) */
	unsigned int cap;            /* fixed */
	struct trawl_ust_slot *slot; /* cap of them; fixed */
};

struct trawl_ust_event_desc {
	const char *name; /* "provider:event" */
	void (*probe)(void); /* called by the call sites with the TP_ARGS */
	const struct trawl_ust_field_desc *fields;
	unsigned int nr_fields;
	unsigned int reserved;
	/* NULL until first enabled (acquire); libtrawl-ust's. */
	struct trawl_ust_slots *slots;
	const char *signature; /* the TP_ARGS as text */
	/* The same probe taking the call site's address first (ip, TP_ARGS):
	 * what the previous provider of the same event calls. */
	void (*probe_ip)(void);
	/* The next provider's event of the same name and signature, which this
	 * probe calls after recording (set by libtrawl-ust, acquire). */
	struct trawl_ust_event_desc *next;
};

struct trawl_ust_loglevel_desc {
	const char *name; /* "provider:event"; NULL ends the list */
	int loglevel;
};

struct trawl_ust_provider {
	unsigned int abi_major;
	const char *name;
	struct trawl_ust_event_desc *const *events; /* NULL-terminated */
	const struct trawl_ust_loglevel_desc *loglevels;
	void *priv; /* libtrawl-ust's */
};

/* An event being written; trawl_ust_reserve() fills it. */
struct trawl_ust_ctx {
	char *p;
	void *priv;
	uint64_t len;
};

/*
 * ctf_integer_network: the caller's value is already in network byte order
 * (sin_port, s_addr), so it is recorded as given and declared big-endian,
 * as LTTng-UST does. A filter compares what a reader sees: the @n bytes at
 * @v read big-endian, which this writes to @dst in the host's order.
 */
static inline void _trawl_ust_from_be(void *dst, const void *v, size_t n)
{
	const unsigned char *b = (const unsigned char *)v;
	unsigned char *d = (unsigned char *)dst;
	size_t i;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (i = 0; i < n; i++)
		d[i] = b[n - 1 - i];
#else
	for (i = 0; i < n; i++)
		d[i] = b[i];
#endif
}

/*
 * A string's @n bytes (its NUL included, @n >= 1) from @src: memcpy(), with
 * those of 8 to 16 bytes, most event strings, copied inline as two
 * overlapping 8-byte loads and stores within the @n bytes rather than
 * through the PLT.
 */
static inline void _trawl_ust_copy(char *p, const char *src, size_t n)
{
	if (n - 8 <= 8) {
		uint64_t a, b;

		memcpy(&a, src, 8);
		memcpy(&b, src + n - 8, 8);
		memcpy(p, &a, 8);
		memcpy(p + n - 8, &b, 8);
	} else {
		memcpy(p, src, n);
	}
}

/* Copies @n bytes of text from @src up to its first NUL, the rest of the
 * @n bytes zeroed (ctf_array_text, ctf_sequence_text: as LTTng-UST does). */
static inline void _trawl_ust_write_text(char *p, const void *src, size_t n)
{
	const char *nul = src ? (const char *)memchr(src, 0, n) : NULL;
	size_t k = !src ? 0 : nul ? (size_t)(nul - (const char *)src) : n;

	if (k)
		memcpy(p, src, k);
	if (n > k)
		memset(p + k, 0, n - k);
}

/* libtrawl-ust's entry points, called by the generated probes (a probe
 * provider links -ltrawl-ust). Call sites (TRACEPOINT_DEFINE) reach
 * libtrawl-ust through dlsym() instead, so that a program whose providers
 * are loaded later (LD_PRELOAD, dlopen) need not link it. */
int trawl_ust_reserve(void *chan, uint32_t id, size_t payload, struct trawl_ust_ctx *ctx);
/* What a probe calls for every event, through the GOT rather than the PLT
 * (GCC's noplt, position-independent code only): one jump less per call,
 * the same symbols (the loader binds them at start-up). */
#if defined(__GNUC__) && !defined(__clang__) && (defined(__x86_64__) || defined(__i386__))
#define _TRAWL_NOPLT __attribute__((noplt))
#else
#define _TRAWL_NOPLT
#endif
/* The same, knowing the call site's address (the "ip" context). */
_TRAWL_NOPLT int trawl_ust_reserve_ip(void *chan, uint32_t id, size_t payload, void *ip, struct trawl_ust_ctx *ctx);
_TRAWL_NOPLT void trawl_ust_commit(struct trawl_ust_ctx *ctx);
/* 1 if an event whose field values are @args (one per field of its
 * description) passes the filter @filter of a slot (its non-zero filter
 * word), 0 if it must not be recorded. Called before reserving. */
/*
 * What a probe calls after writing its payload: trawl_ust_commit(), inline
 * for an event in a ring buffer (the common case: one call through the PLT
 * less per event). There, @ctx->priv is the sub-buffer's
 * commit count (ABI minor >= 1): the add is the event's publication.
 * Release: every byte of the event before the count says it is there
 * (pairs with the consumer's acquire load of it). An odd priv is one whose
 * commit libtrawl-ust does: an event notifier's record, or an event on its
 * stream's own CPU (a plain add, cheaper than this one with the call).
 */
static inline void _trawl_ust_commit(struct trawl_ust_ctx *ctx)
{
	if ((uintptr_t)ctx->priv & 1)
		trawl_ust_commit(ctx);
	else
		__atomic_fetch_add((uint64_t *)ctx->priv, ctx->len, __ATOMIC_RELEASE);
}
int trawl_ust_filter_pass(uint32_t filter, const struct trawl_ust_filter_arg *args);
int trawl_ust_provider_register(struct trawl_ust_provider *p);
/* The same without waiting for the daemons: libtrawl-ust's own providers. */
int trawl_ust_provider_register_internal(struct trawl_ust_provider *p);
/* 1 if @chan (a slot's channel) belongs to @session, the token a state dump
 * passes to the events it records (LTTNG_UST_TP_SESSION_CHECK). */
int trawl_ust_session_check(void *chan, const void *session);
void trawl_ust_provider_unregister(struct trawl_ust_provider *p);
void trawl_ust_tracepoints_register(struct trawl_tracepoint *const *start, size_t count);
void trawl_ust_tracepoints_unregister(struct trawl_tracepoint *const *start);
/* Returns once the session daemons (if any) have set the program up with
 * every provider registered so far, or after TRAWL_UST_REGISTER_TIMEOUT ms
 * (tracepoint.h: early events); a provider's constructor calls it. */
void trawl_ust_wait_registered(void);

/* ---- TP_ARGS: (type, name, type, name, ...) -> prototype and call ---- */

#ifdef __cplusplus
#define _TRAWL_EXTERN_C extern "C"
#else
#define _TRAWL_EXTERN_C extern
#endif
#define _TRAWL_CAT_(a, b) a##b
#define _TRAWL_CAT(a, b) _TRAWL_CAT_(a, b)
#define _TRAWL_STR_(x) #x
#define _TRAWL_STR(x) _TRAWL_STR_(x)
#define _TRAWL_STR_ARGS(...) #__VA_ARGS__
#define _TRAWL_PARAMS(...) __VA_ARGS__
#define _TRAWL_NARGS(...)                                                                              \
	_TRAWL_NARGS_(__VA_ARGS__, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define _TRAWL_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, _18, _19, \
		      _20, N, ...)                                                                    \
	N

/* One argument: TP_ARGS() or TP_ARGS(void). */
#define _TP_PROTO_1(v) void
#define _TP_PROTO_2(t1, n1) t1 n1
#define _TP_PROTO_4(t1, n1, t2, n2) t1 n1, t2 n2
#define _TP_PROTO_6(t1, n1, t2, n2, t3, n3) t1 n1, t2 n2, t3 n3
#define _TP_PROTO_8(t1, n1, t2, n2, t3, n3, t4, n4) t1 n1, t2 n2, t3 n3, t4 n4
#define _TP_PROTO_10(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5) t1 n1, t2 n2, t3 n3, t4 n4, t5 n5
#define _TP_PROTO_12(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5, t6, n6) t1 n1, t2 n2, t3 n3, t4 n4, t5 n5, t6 n6
#define _TP_PROTO_14(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5, t6, n6, t7, n7)                                 \
	t1 n1, t2 n2, t3 n3, t4 n4, t5 n5, t6 n6, t7 n7
#define _TP_PROTO_16(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5, t6, n6, t7, n7, t8, n8)                         \
	t1 n1, t2 n2, t3 n3, t4 n4, t5 n5, t6 n6, t7 n7, t8 n8
#define _TP_PROTO_18(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5, t6, n6, t7, n7, t8, n8, t9, n9)                 \
	t1 n1, t2 n2, t3 n3, t4 n4, t5 n5, t6 n6, t7 n7, t8 n8, t9 n9
#define _TP_PROTO_20(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5, t6, n6, t7, n7, t8, n8, t9, n9, t10, n10)       \
	t1 n1, t2 n2, t3 n3, t4 n4, t5 n5, t6 n6, t7 n7, t8 n8, t9 n9, t10 n10
#define _TP_VARS_1(v)
#define _TP_VARS_2(t1, n1) n1
#define _TP_VARS_4(t1, n1, t2, n2) n1, n2
#define _TP_VARS_6(t1, n1, t2, n2, t3, n3) n1, n2, n3
#define _TP_VARS_8(t1, n1, t2, n2, t3, n3, t4, n4) n1, n2, n3, n4
#define _TP_VARS_10(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5) n1, n2, n3, n4, n5
#define _TP_VARS_12(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5, t6, n6) n1, n2, n3, n4, n5, n6
#define _TP_VARS_14(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5, t6, n6, t7, n7) n1, n2, n3, n4, n5, n6, n7
#define _TP_VARS_16(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5, t6, n6, t7, n7, t8, n8)                          \
	n1, n2, n3, n4, n5, n6, n7, n8
#define _TP_VARS_18(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5, t6, n6, t7, n7, t8, n8, t9, n9)                  \
	n1, n2, n3, n4, n5, n6, n7, n8, n9
#define _TP_VARS_20(t1, n1, t2, n2, t3, n3, t4, n4, t5, n5, t6, n6, t7, n7, t8, n8, t9, n9, t10, n10)        \
	n1, n2, n3, n4, n5, n6, n7, n8, n9, n10
#define _TP_PROTO(...) _TRAWL_CAT(_TP_PROTO_, _TRAWL_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define _TP_VARS(...) _TRAWL_CAT(_TP_VARS_, _TRAWL_NARGS(__VA_ARGS__))(__VA_ARGS__)
/* A leading comma when there are arguments, for "ev, args". */
#define _TP_VARS_COMMA(...) _TRAWL_CAT(_TP_VC_, _TRAWL_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define _TP_VC_1(v)
#define _TP_VC_2(...) , _TP_VARS_2(__VA_ARGS__)
#define _TP_VC_4(...) , _TP_VARS_4(__VA_ARGS__)
#define _TP_VC_6(...) , _TP_VARS_6(__VA_ARGS__)
#define _TP_VC_8(...) , _TP_VARS_8(__VA_ARGS__)
#define _TP_VC_10(...) , _TP_VARS_10(__VA_ARGS__)
#define _TP_VC_12(...) , _TP_VARS_12(__VA_ARGS__)
#define _TP_VC_14(...) , _TP_VARS_14(__VA_ARGS__)
#define _TP_VC_16(...) , _TP_VARS_16(__VA_ARGS__)
#define _TP_VC_18(...) , _TP_VARS_18(__VA_ARGS__)
#define _TP_VC_20(...) , _TP_VARS_20(__VA_ARGS__)
#define _TP_PROTO_COMMA(...) _TRAWL_CAT(_TP_PC_, _TRAWL_NARGS(__VA_ARGS__))(__VA_ARGS__)
#define _TP_PC_1(v)
#define _TP_PC_2(...) , _TP_PROTO_2(__VA_ARGS__)
#define _TP_PC_4(...) , _TP_PROTO_4(__VA_ARGS__)
#define _TP_PC_6(...) , _TP_PROTO_6(__VA_ARGS__)
#define _TP_PC_8(...) , _TP_PROTO_8(__VA_ARGS__)
#define _TP_PC_10(...) , _TP_PROTO_10(__VA_ARGS__)
#define _TP_PC_12(...) , _TP_PROTO_12(__VA_ARGS__)
#define _TP_PC_14(...) , _TP_PROTO_14(__VA_ARGS__)
#define _TP_PC_16(...) , _TP_PROTO_16(__VA_ARGS__)
#define _TP_PC_18(...) , _TP_PROTO_18(__VA_ARGS__)
#define _TP_PC_20(...) , _TP_PROTO_20(__VA_ARGS__)

/* ---- the call sites ---- */

#define _TRAWL_TP(provider, name) __tracepoint_##provider##___##name

/* Relaxed: a hint only; the probe pointer is loaded with acquire order. */
#define lttng_ust_tracepoint_enabled(provider, name)                                                  \
	__builtin_expect(!!__atomic_load_n(&_TRAWL_TP(provider, name).state, __ATOMIC_RELAXED), 0)

#define lttng_ust_do_tracepoint(provider, name, ...) __tracepoint_cb_##provider##___##name(__VA_ARGS__)

#define lttng_ust_tracepoint(provider, name, ...)                                                     \
	do {                                                                                          \
		if (lttng_ust_tracepoint_enabled(provider, name))                                     \
			__tracepoint_cb_##provider##___##name(__VA_ARGS__);                           \
	} while (0)

#if _TRAWL_CLASSIC_API
#define tracepoint_enabled lttng_ust_tracepoint_enabled
#define do_tracepoint lttng_ust_do_tracepoint
#define tracepoint lttng_ust_tracepoint
#endif


#ifdef __cplusplus
}
#endif

#endif /* TRAWL_TRACEPOINT_H */

/* ---- the "declare" meaning of the provider macros (re-read each time) ---- */
#if !defined(TRACEPOINT_HEADER_MULTI_READ) && !defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)

#undef _TRAWL_TP_EVENT_CLASS
#undef _TRAWL_TP_EVENT_INSTANCE
#undef _TRAWL_TP_LOGLEVEL
#undef _TRAWL_TP_ENUM
#define _TRAWL_TP_EVENT_CLASS(provider, name, args, fields)
#define _TRAWL_TP_LOGLEVEL(provider, name, level)
#define _TRAWL_TP_ENUM(provider, name, values)

/* Checked again here: a file may define TRACEPOINT_DEFINE before its
 * second provider header only. */
#undef _TRAWL_DEFINE
#if defined(TRACEPOINT_DEFINE) || defined(LTTNG_UST_TRACEPOINT_DEFINE)
#define _TRAWL_DEFINE 1
#endif

#if defined(_TRAWL_DEFINE) && !defined(_TRAWL_TRACEPOINT_CTOR_DONE)
#define _TRAWL_TRACEPOINT_CTOR_DONE
#ifdef __cplusplus
extern "C" {
#endif
/* glibc's RTLD_DEFAULT, which <dlfcn.h> hides without _GNU_SOURCE. */
#define _TRAWL_RTLD_DEFAULT ((void *)0)
/* Every TRACEPOINT_DEFINE'd tracepoint of a module is listed in this
 * section; the module registers the whole list once per translation unit
 * (libtrawl-ust ignores repeats). */
extern struct trawl_tracepoint *const __start___trawl_tracepoints_ptrs[]
	__attribute__((weak, visibility("hidden")));
extern struct trawl_tracepoint *const __stop___trawl_tracepoints_ptrs[]
	__attribute__((weak, visibility("hidden")));

typedef void (*_trawl_tp_register_fn)(struct trawl_tracepoint *const *, size_t);
typedef void (*_trawl_tp_unregister_fn)(struct trawl_tracepoint *const *);

static void __attribute__((constructor)) __trawl_tracepoints_ctor(void)
{
	_trawl_tp_register_fn fn;

	if (!__start___trawl_tracepoints_ptrs ||
	    (const void *)__stop___trawl_tracepoints_ptrs == (const void *)__start___trawl_tracepoints_ptrs)
		return;
	*(void **)&fn = dlsym(_TRAWL_RTLD_DEFAULT, "trawl_ust_tracepoints_register");
	if (!fn) {
		/* Not linked with libtrawl-ust: a probe provider loaded later
		 * (dlopen) brings it; load it now so that the call sites are
		 * known when it comes. Without it, tracing stays off. */
		void *h = dlopen("libtrawl-ust.so.0", RTLD_NOW | RTLD_GLOBAL);

		if (!h)
			return;
		*(void **)&fn = dlsym(h, "trawl_ust_tracepoints_register");
		if (!fn)
			return;
	}
	fn(__start___trawl_tracepoints_ptrs,
	   (size_t)(__stop___trawl_tracepoints_ptrs - __start___trawl_tracepoints_ptrs));
}

static void __attribute__((destructor)) __trawl_tracepoints_dtor(void)
{
	_trawl_tp_unregister_fn fn;

	*(void **)&fn = dlsym(_TRAWL_RTLD_DEFAULT, "trawl_ust_tracepoints_unregister");
	if (fn && __start___trawl_tracepoints_ptrs)
		fn(__start___trawl_tracepoints_ptrs);
}
#ifdef __cplusplus
}
#endif
#endif

#undef _TRAWL_TP_STORAGE
#undef _TRAWL_TP_PROVIDER_REF
#ifdef _TRAWL_DEFINE
#if defined(TRACEPOINT_PROBE_DYNAMIC_LINKAGE) || defined(LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE)
#define _TRAWL_TP_PROVIDER_REF(provider, name)
#else
/* A reference to the provider's probes: a provider in a static library is
 * then linked into the program (tracepoint-event.h defines the symbol). */
#define _TRAWL_TP_PROVIDER_REF(provider, name)                                                        \
	_TRAWL_EXTERN_C int __trawl_provider_defined_##provider;                                      \
	static int *const __trawl_provider_ref_##provider##___##name __attribute__((used)) =         \
		&__trawl_provider_defined_##provider;
#endif
#define _TRAWL_TP_STORAGE(provider, name, args)                                                       \
	_TRAWL_TP_PROVIDER_REF(provider, name)                                                        \
	struct trawl_tracepoint _TRAWL_TP(provider, name) __attribute__((weak, visibility("hidden"))) = { \
		#provider ":" #name, 0, 1, 0, 0, _TRAWL_STR_ARGS(args)                                \
	};                                                                                            \
	static struct trawl_tracepoint *const __tracepoint_ptr_##provider##___##name                  \
		__attribute__((used, section("__trawl_tracepoints_ptrs"))) = &_TRAWL_TP(provider, name);
#else
#define _TRAWL_TP_STORAGE(provider, name, args)                                                       \
	extern struct trawl_tracepoint _TRAWL_TP(provider, name) __attribute__((visibility("hidden")));
#endif

/* "provider:event" fits LTTng-UST's limit (a negative array size otherwise). */
#define _TRAWL_TP_EVENT_INSTANCE(cprovider, cname, provider, name, args)                              \
	extern char __trawl_tp_name_fits_##provider##___##name                                        \
		[(sizeof(#provider) + sizeof(#name) <= TRAWL_UST_NAME_LEN_MAX) ? 1 : -1];             \
	_TRAWL_TP_STORAGE(provider, name, _TRAWL_PARAMS(args))                                       \
	static inline void __tracepoint_cb_##provider##___##name(_TP_PROTO(args))                     \
	{                                                                                             \
		/* Acquire: pairs with libtrawl-ust's release store of the probe. */                   \
		void (*__fp)(_TP_PROTO(args)) =                                                       \
			(void (*)(_TP_PROTO(args)))__atomic_load_n(&_TRAWL_TP(provider, name).probe,    \
								   __ATOMIC_ACQUIRE);                 \
		if (__fp)                                                                             \
			__fp(_TP_VARS(args));                                                         \
	}

#endif /* !TRACEPOINT_HEADER_MULTI_READ */
