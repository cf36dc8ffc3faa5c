/* SPDX-License-Identifier: MIT */
/*
 * <trawl/tracepoint-event.h> - included at the end of a provider header.
 *
 * Does nothing unless TRACEPOINT_CREATE_PROBES (or LTTng-UST 2.13's
 * LTTNG_UST_TRACEPOINT_CREATE_PROBES) is defined. Then it reads the provider
 * header (TRACEPOINT_INCLUDE, or LTTNG_UST_TRACEPOINT_INCLUDE) again once
 * per pass, each time with another meaning for the internal macros that
 * every public spelling stands for (<trawl/tracepoint-names.h>):
 *
 *   1. enums        the TRACEPOINT_ENUM mapping tables
 *   2. fields       each class's field descriptions (sent to the daemon)
 *   3. dyn count    how many fields have a run-time size (strings, sequences)
 *   4. class probe  size computation, the field values for filters, and
 *                   the serializer: filter (only slots with a filter), reserve,
 *                   copy each field byte-aligned (no padding), commit
 *   5. instances    each event's descriptor and probe
 *   6. log levels   the provider's table of TRACEPOINT_LOGLEVEL
 *   7. provider     the table of events and a constructor registering them
 *
 * The payload layout matches src/ctf/layout.h's rule: every field aligned to
 * 8 bits, in the host's byte order, a sequence preceded by its length field
 * "_<name>_length". Integers, arrays and sequences in network byte order
 * are recorded as given (the caller has them in network order: sin_port,
 * s_addr) and declared big-endian, as LTTng-UST does; text arrays and
 * sequences are copied up to their first NUL and zero-filled after it.
 *
 * String arguments are read twice (size, then copy): a string that another
 * thread shortens in between is copied with a NUL at the size first measured.
 *
 * LTTNG_UST_TP_IP_PARAM (or TP_IP_PARAM), defined to the name of an
 * argument, makes that argument the event's "ip" context instead of the
 * call site's address. LTTNG_UST_TP_SESSION_CHECK (or TP_SESSION_CHECK)
 * makes each event's first argument the session it is for: the probe
 * records it only into that session's channels (libtrawl-ust's state
 * dump; see trawl_ust_session_check()).
 */

#if defined(TRACEPOINT_CREATE_PROBES) || defined(LTTNG_UST_TRACEPOINT_CREATE_PROBES)
/* Nested reads of the provider header end by including this file again:
 * make those reads do nothing. Restored at the end, as they were. */
#ifdef TRACEPOINT_CREATE_PROBES
#define _TRAWL_HAD_CREATE_PROBES 1
#undef TRACEPOINT_CREATE_PROBES
#endif
#ifdef LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define _TRAWL_HAD_LTTNG_CREATE_PROBES 1
#undef LTTNG_UST_TRACEPOINT_CREATE_PROBES
#endif

/* The namespaced spelling wins when a file has both, as in LTTng-UST. */
#ifdef LTTNG_UST_TRACEPOINT_PROVIDER
#define _TRAWL_PROVIDER LTTNG_UST_TRACEPOINT_PROVIDER
#else
#define _TRAWL_PROVIDER TRACEPOINT_PROVIDER
#endif
#ifdef LTTNG_UST_TRACEPOINT_INCLUDE
#define _TRAWL_INCLUDE LTTNG_UST_TRACEPOINT_INCLUDE
#else
#define _TRAWL_INCLUDE TRACEPOINT_INCLUDE
#endif
#if defined(LTTNG_UST_TP_IP_PARAM)
#define _TRAWL_IP(x) ((void *)(LTTNG_UST_TP_IP_PARAM))
#elif defined(TP_IP_PARAM)
#define _TRAWL_IP(x) ((void *)(TP_IP_PARAM))
#else
#define _TRAWL_IP(x) (x)
#endif

#if defined(LTTNG_UST_TP_SESSION_CHECK) || defined(TP_SESSION_CHECK)
#define _TRAWL_FIRST_(a, ...) a
#define _TRAWL_FIRST(...) _TRAWL_FIRST_(__VA_ARGS__, 0)
#define _TRAWL_IN_SESSION(chan, ...) trawl_ust_session_check(chan, _TRAWL_FIRST(_TP_VARS(__VA_ARGS__)))
#else
#define _TRAWL_IN_SESSION(chan, ...) 1
#endif
/* libtrawl-ust's own providers register without waiting for the daemons
 * (they are there before the program's, whose wait is the useful one). */
#ifndef _TRAWL_PROVIDER_REGISTER
#define _TRAWL_PROVIDER_REGISTER trawl_ust_provider_register
#endif

#define TRACEPOINT_HEADER_MULTI_READ
#define LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ

#define _TRAWL_SIGNED(type) ((type)-1 < (type)1)
/* Pastes on a field's nw (or be) argument: the literal 0 or 1. */
#define _TRAWL_NW_0(...) __VA_ARGS__
#define _TRAWL_NW_1(...)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-function"

/* Every internal macro, undefined before each pass gives its meaning. */
#undef _TRAWL_TP_EVENT_CLASS
#undef _TRAWL_TP_EVENT_INSTANCE
#undef _TRAWL_TP_LOGLEVEL
#undef _TRAWL_TP_ENUM
#undef _TRAWL_F_INT
#undef _TRAWL_F_FLOAT
#undef _TRAWL_F_STRING
#undef _TRAWL_F_ARRAY
#undef _TRAWL_F_SEQ
#undef _TRAWL_F_ENUM
#undef _TRAWL_F_UNUSED
#undef _TRAWL_E_RANGE

/* ctf_unused: an argument the fields do not record (never evaluated). */
#define _TRAWL_F_UNUSED(src)

/* ---------------- pass 1: enums ---------------- */
#define _TRAWL_TP_EVENT_CLASS(provider, name, args, fields)
#define _TRAWL_TP_EVENT_INSTANCE(cprovider, cname, provider, name, args)
#define _TRAWL_TP_LOGLEVEL(provider, name, level)
#define _TRAWL_E_RANGE(label, a, b, is_auto) { label, (int64_t)(a), (int64_t)(b), is_auto },
#define _TRAWL_TP_ENUM(provider, name, values)                                                        \
	static const struct trawl_ust_enum_entry_desc __trawl_enum_entries_##provider##_##name[] = {  \
		values { 0, 0, 0, 0 }                                                                 \
	};                                                                                            \
	static const struct trawl_ust_enum_desc __trawl_enum_##provider##_##name = {                  \
		#provider "_" #name, __trawl_enum_entries_##provider##_##name,                        \
		(unsigned int)(sizeof(__trawl_enum_entries_##provider##_##name) /                     \
				       sizeof(__trawl_enum_entries_##provider##_##name[0]) -          \
			       1)                                                                     \
	};
#include _TRAWL_INCLUDE
#undef _TRAWL_TP_ENUM
#define _TRAWL_TP_ENUM(provider, name, values)

/* ---------------- pass 2: field descriptions ---------------- */
#undef _TRAWL_TP_EVENT_CLASS
#define _TRAWL_FD(name, type, nw, size, sgn, base, be, text, len, lname, en)                          \
	{ name,                                                                                       \
	  (unsigned char)((type) | ((nw) ? TRAWL_UST_FIELD_NOWRITE : 0)),                             \
	  (unsigned char)(size),                                                                      \
	  (unsigned char)(sgn),                                                                       \
	  base,                                                                                       \
	  be,                                                                                         \
	  text,                                                                                       \
	  len,                                                                                        \
	  lname,                                                                                      \
	  en },
#define _TRAWL_F_INT(type, item, src, be, base, nw)                                                   \
	_TRAWL_FD(#item, 1, nw, sizeof(type) * 8, _TRAWL_SIGNED(type), base, be, 0, 0, 0, 0)
#define _TRAWL_F_FLOAT(type, item, src, nw) _TRAWL_FD(#item, 2, nw, sizeof(type) * 8, 1, 10, 0, 0, 0, 0, 0)
#define _TRAWL_F_STRING(item, src, nw) _TRAWL_FD(#item, 3, nw, 8, 0, 10, 0, 1, 0, 0, 0)
#define _TRAWL_F_ARRAY(type, item, src, len, be, text, base, nw)                                      \
	_TRAWL_FD(#item, 4, nw, sizeof(type) * 8, _TRAWL_SIGNED(type), base, be, text, len, 0, 0)
#define _TRAWL_F_SEQ(type, item, src, ltype, len, be, text, base, nw)                                 \
	_TRAWL_FD("_" #item "_length", 1, nw, sizeof(ltype) * 8, _TRAWL_SIGNED(ltype), 10, 0, 0, 0, 0, 0) \
	_TRAWL_FD(#item, 5, nw, sizeof(type) * 8, _TRAWL_SIGNED(type), base, be, text, 0, "_" #item "_length", 0)
#define _TRAWL_F_ENUM(provider, name, type, item, src, nw)                                            \
	_TRAWL_FD(#item, 6, nw, sizeof(type) * 8, _TRAWL_SIGNED(type), 10, 0, 0, 0, 0,                 \
		  &__trawl_enum_##provider##_##name)
#define _TRAWL_TP_EVENT_CLASS(provider, name, args, fields)                                           \
	static const struct trawl_ust_field_desc __trawl_fields_##provider##___##name[] = {           \
		fields { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }                                               \
	};
#include _TRAWL_INCLUDE

/* ---------------- pass 3: count of run-time sized fields ---------------- */
#undef _TRAWL_TP_EVENT_CLASS
#undef _TRAWL_F_INT
#undef _TRAWL_F_FLOAT
#undef _TRAWL_F_STRING
#undef _TRAWL_F_ARRAY
#undef _TRAWL_F_SEQ
#undef _TRAWL_F_ENUM
#define _TRAWL_F_INT(type, item, src, be, base, nw)
#define _TRAWL_F_FLOAT(type, item, src, nw)
#define _TRAWL_F_STRING(item, src, nw) _TRAWL_NW_##nw(+1)
#define _TRAWL_F_ARRAY(type, item, src, len, be, text, base, nw)
#define _TRAWL_F_SEQ(type, item, src, ltype, len, be, text, base, nw) _TRAWL_NW_##nw(+1)
#define _TRAWL_F_ENUM(provider, name, type, item, src, nw)
#define _TRAWL_TP_EVENT_CLASS(provider, name, args, fields)                                           \
	enum { __trawl_ndyn_##provider##___##name = 0 fields };
#include _TRAWL_INCLUDE

/* ---------------- pass 4: size and serializer of each class ---------------- */
#undef _TRAWL_TP_EVENT_CLASS
#undef _TRAWL_F_INT
#undef _TRAWL_F_FLOAT
#undef _TRAWL_F_STRING
#undef _TRAWL_F_ARRAY
#undef _TRAWL_F_SEQ
#undef _TRAWL_F_ENUM
/* 4a: the payload size; strings and sequence lengths are kept in __dyn. */
#define _TRAWL_F_INT(type, item, src, be, base, nw) _TRAWL_NW_##nw(__s += sizeof(type);)
#define _TRAWL_F_FLOAT(type, item, src, nw) _TRAWL_NW_##nw(__s += sizeof(type);)
#define _TRAWL_F_STRING(item, src, nw)                                                                \
	_TRAWL_NW_##nw({                                                                              \
		const char *__str = (src);                                                            \
		__s += __dyn[__di++] = __str ? strlen(__str) + 1 : 7;                                 \
	})
#define _TRAWL_F_ARRAY(type, item, src, len, be, text, base, nw)                                      \
	_TRAWL_NW_##nw(__s += sizeof(type) * (size_t)(len);)
#define _TRAWL_F_SEQ(type, item, src, ltype, len, be, text, base, nw)                                 \
	_TRAWL_NW_##nw(__s += sizeof(ltype) + sizeof(type) * (__dyn[__di++] = (size_t)(len));)
#define _TRAWL_F_ENUM(provider, name, type, item, src, nw) _TRAWL_NW_##nw(__s += sizeof(type);)
#define _TRAWL_TP_EVENT_CLASS(provider, name, args, fields)                                           \
	static inline size_t __trawl_size_##provider##___##name(size_t *__dyn _TP_PROTO_COMMA(args))  \
	{                                                                                             \
		size_t __s = 0, __di = 0;                                                             \
		(void)__dyn;                                                                          \
		(void)__di;                                                                           \
		fields return __s;                                                                    \
	}
#include _TRAWL_INCLUDE

#undef _TRAWL_TP_EVENT_CLASS
#undef _TRAWL_F_INT
#undef _TRAWL_F_FLOAT
#undef _TRAWL_F_STRING
#undef _TRAWL_F_ARRAY
#undef _TRAWL_F_SEQ
#undef _TRAWL_F_ENUM
/* 4b: the field values for filters, one struct trawl_ust_filter_arg per
 * field description (a sequence has two: its length, then itself), fields
 * for filters only included. Called only for an event that a slot with a
 * filter is about to record. */
#define _TRAWL_FA_INT_0(type, src)                                                                    \
	{                                                                                             \
		type __v = (type)(src);                                                               \
		/* Sign- or zero-extended by the conversion to uint64_t. */                           \
		__fa->i = (int64_t)(uint64_t)__v;                                                     \
		__fa++;                                                                               \
	}
/* Network byte order: the value a reader sees. */
#define _TRAWL_FA_INT_1(type, src)                                                                    \
	{                                                                                             \
		type __r = (type)(src), __v;                                                          \
		_trawl_ust_from_be(&__v, &__r, sizeof(type));                                         \
		__fa->i = (int64_t)(uint64_t)__v;                                                     \
		__fa++;                                                                               \
	}
#define _TRAWL_FA_PTR(src, len)                                                                       \
	{                                                                                             \
		__fa->p = (const void *)(src);                                                        \
		__fa->n = (uint64_t)(len);                                                            \
		__fa++;                                                                               \
	}
#define _TRAWL_F_INT(type, item, src, be, base, nw) _TRAWL_FA_INT_##be(type, src)
#define _TRAWL_F_FLOAT(type, item, src, nw)                                                           \
	{                                                                                             \
		__fa->d = (double)(src);                                                              \
		__fa++;                                                                               \
	}
#define _TRAWL_F_STRING(item, src, nw)                                                                \
	{                                                                                             \
		const char *__str = (src);                                                            \
		__fa->p = __str ? __str : "(null)";                                                   \
		__fa++;                                                                               \
	}
#define _TRAWL_F_ARRAY(type, item, src, len, be, text, base, nw) _TRAWL_FA_PTR(src, len)
#define _TRAWL_F_SEQ(type, item, src, ltype, len, be, text, base, nw)                                 \
	{                                                                                             \
		size_t __cnt = (size_t)(len);                                                         \
		_TRAWL_FA_INT_0(ltype, __cnt)                                                         \
		_TRAWL_FA_PTR(src, __cnt)                                                             \
	}
#define _TRAWL_F_ENUM(provider, name, type, item, src, nw) _TRAWL_FA_INT_0(type, src)
#define _TRAWL_TP_EVENT_CLASS(provider, name, args, fields)                                           \
	static void __trawl_fargs_##provider##___##name(struct trawl_ust_filter_arg *__fa              \
							_TP_PROTO_COMMA(args))                        \
	{                                                                                             \
		(void)__fa;                                                                           \
		fields                                                                                \
	}
#include _TRAWL_INCLUDE

#undef _TRAWL_TP_EVENT_CLASS
#undef _TRAWL_F_INT
#undef _TRAWL_F_FLOAT
#undef _TRAWL_F_STRING
#undef _TRAWL_F_ARRAY
#undef _TRAWL_F_SEQ
#undef _TRAWL_F_ENUM
/* 4c: the serializer (fields for filters only write nothing). */
/* Integers in network byte order too: recorded as given (top comment). */
#define _TRAWL_W_INT_0(type, src)                                                                     \
	{                                                                                             \
		type __v = (type)(src);                                                               \
		memcpy(__p, &__v, sizeof(type));                                                      \
		__p += sizeof(type);                                                                  \
	}
#define _TRAWL_W_INT_1 _TRAWL_W_INT_0
#define _TRAWL_W_BYTES_0(type, src, n)                                                                \
	{                                                                                             \
		size_t __n = sizeof(type) * (size_t)(n);                                              \
		if (__n)                                                                              \
			memcpy(__p, (src), __n);                                                      \
		__p += __n;                                                                           \
	}
/* Text of chars: up to the first NUL, zero-filled after it. */
#define _TRAWL_W_BYTES_1(type, src, n)                                                                \
	{                                                                                             \
		size_t __n = sizeof(type) * (size_t)(n);                                              \
		if (sizeof(type) == 1)                                                                \
			_trawl_ust_write_text(__p, (src), __n);                                       \
		else if (__n)                                                                         \
			memcpy(__p, (src), __n);                                                      \
		__p += __n;                                                                           \
	}
#define _TRAWL_F_INT(type, item, src, be, base, nw) _TRAWL_NW_##nw(_TRAWL_W_INT_##be(type, src))
#define _TRAWL_F_FLOAT(type, item, src, nw) _TRAWL_NW_##nw(_TRAWL_W_INT_0(type, src))
#define _TRAWL_F_STRING(item, src, nw)                                                                \
	_TRAWL_NW_##nw({                                                                              \
		const char *__str = (src);                                                            \
		size_t __l = __dyn[__di++];                                                           \
		_trawl_ust_copy(__p, __str ? __str : "(null)", __l);                                  \
		__p[__l - 1] = '\0';                                                                  \
		__p += __l;                                                                           \
	})
#define _TRAWL_F_ARRAY(type, item, src, len, be, text, base, nw)                                      \
	_TRAWL_NW_##nw(_TRAWL_W_BYTES_##text(type, src, len))
#define _TRAWL_F_SEQ(type, item, src, ltype, len, be, text, base, nw)                                 \
	_TRAWL_NW_##nw({                                                                              \
		size_t __cnt = __dyn[__di++];                                                         \
		_TRAWL_W_INT_0(ltype, __cnt)                                                          \
		_TRAWL_W_BYTES_##text(type, src, __cnt)                                               \
	})
#define _TRAWL_F_ENUM(provider, name, type, item, src, nw) _TRAWL_NW_##nw(_TRAWL_W_INT_0(type, src))
#define _TRAWL_TP_EVENT_CLASS(provider, name, args, fields)                                           \
	static void __trawl_class_probe_##provider##___##name(struct trawl_ust_event_desc *__ev,      \
								  void *__ip _TP_PROTO_COMMA(args))   \
	{                                                                                             \
		size_t __dyn[__trawl_ndyn_##provider##___##name + 1];                                 \
		size_t __len = __trawl_size_##provider##___##name(__dyn _TP_VARS_COMMA(args));        \
		/* Filled on the first slot with a filter, if any. */                                 \
		struct trawl_ust_filter_arg __fa[sizeof(__trawl_fields_##provider##___##name) /         \
						 sizeof(__trawl_fields_##provider##___##name[0])];     \
		int __fdone = 0;                                                                      \
		/* Acquire (array, count, slot): pairs with the release stores that published them. */ \
		struct trawl_ust_slots *__s = __atomic_load_n(&__ev->slots, __ATOMIC_ACQUIRE);         \
		unsigned int __i, __nr = __s ? __atomic_load_n(&__s->nr, __ATOMIC_ACQUIRE) : 0;       \
		/* Fixed once published (cap, the array): loaded once, not after                    \
		 * each acquire load below. */                                                         \
		struct trawl_ust_slot *__sl = 0;                                                      \
		if (__nr) {                                                                           \
			__sl = __s->slot;                                                             \
			if (__nr > __s->cap)                                                          \
				__nr = __s->cap;                                                      \
		}                                                                                     \
		for (__i = 0; __i < __nr; __i++) {                                                   \
			void *__chan = __atomic_load_n(&__sl[__i].chan, __ATOMIC_ACQUIRE);            \
			struct trawl_ust_ctx __ctx;                                                   \
			uint32_t __filt;                                                              \
			char *__p;                                                                    \
			size_t __di = 0;                                                              \
			if (!__chan || !_TRAWL_IN_SESSION(__chan, args))                              \
				continue;                                                             \
			/* Acquire: pairs with libtrawl-ust's release store of the filter. */         \
			__filt = __atomic_load_n(&__sl[__i].filter, __ATOMIC_ACQUIRE);                 \
			if (__builtin_expect(__filt != 0, 0)) {                                       \
				/* Before reserving: a rejected event costs no space. */              \
				if (!__fdone) {                                                       \
					__trawl_fargs_##provider##___##name(__fa _TP_VARS_COMMA(args)); \
					__fdone = 1;                                                  \
				}                                                                     \
				if (!trawl_ust_filter_pass(__filt, __fa))                             \
					continue;                                                     \
			}                                                                             \
			if (trawl_ust_reserve_ip(__chan, __atomic_load_n(&__sl[__i].id, __ATOMIC_RELAXED), \
						 __len, __ip, &__ctx))                                \
				continue;                                                             \
			__p = __ctx.p;                                                                \
			fields _trawl_ust_commit(&__ctx);                                             \
			(void)__p;                                                                    \
			(void)__di;                                                                   \
		}                                                                                     \
	}
#include _TRAWL_INCLUDE

/* ---------------- pass 5: events ---------------- */
#undef _TRAWL_TP_EVENT_CLASS
#define _TRAWL_TP_EVENT_CLASS(provider, name, args, fields)
#undef _TRAWL_TP_EVENT_INSTANCE
#define _TRAWL_TP_EVENT_INSTANCE(cprovider, cname, provider, name, args)                              \
	static void __trawl_probe_##provider##___##name(_TP_PROTO(args));                             \
	static void __trawl_probe_ip_##provider##___##name(void *__ip _TP_PROTO_COMMA(args));         \
	static struct trawl_ust_event_desc __trawl_event_##provider##___##name = {                    \
		#provider ":" #name,                                                                  \
		(void (*)(void))__trawl_probe_##provider##___##name,                                  \
		__trawl_fields_##cprovider##___##cname,                                               \
		(unsigned int)(sizeof(__trawl_fields_##cprovider##___##cname) /                       \
				       sizeof(__trawl_fields_##cprovider##___##cname[0]) -            \
			       1),                                                                    \
		0,                                                                                    \
		0,                                                                                    \
		_TRAWL_STR_ARGS(args),                                                                \
		(void (*)(void))__trawl_probe_ip_##provider##___##name,                               \
		0                                                                                     \
	};                                                                                            \
	static void __trawl_probe_ip_##provider##___##name(void *__ip _TP_PROTO_COMMA(args))          \
	{                                                                                             \
		struct trawl_ust_event_desc *__next;                                                  \
		__trawl_class_probe_##cprovider##___##cname(&__trawl_event_##provider##___##name,     \
							    __ip _TP_VARS_COMMA(args));               \
		/* The same event from another provider records too. Acquire:                         \
		 * pairs with libtrawl-ust's release store of the chain. */                           \
		__next = __atomic_load_n(&__trawl_event_##provider##___##name.next, __ATOMIC_ACQUIRE); \
		if (__builtin_expect(__next != 0, 0))                                                 \
			((void (*)(void *_TP_PROTO_COMMA(args)))__next->probe_ip)(__ip                \
										  _TP_VARS_COMMA(args)); \
	}                                                                                             \
	static void __trawl_probe_##provider##___##name(_TP_PROTO(args))                              \
	{                                                                                             \
		/* The caller of the probe is the call site (tracepoint() inlines). */                \
		__trawl_probe_ip_##provider##___##name(_TRAWL_IP(__builtin_return_address(0))         \
							       _TP_VARS_COMMA(args));                 \
	}
#include _TRAWL_INCLUDE

/* ---------------- pass 6: log levels ---------------- */
#undef _TRAWL_TP_EVENT_INSTANCE
#define _TRAWL_TP_EVENT_INSTANCE(cprovider, cname, provider, name, args)
#undef _TRAWL_TP_LOGLEVEL
#define _TRAWL_TP_LOGLEVEL(provider, name, level) { #provider ":" #name, (int)(level) },
static const struct trawl_ust_loglevel_desc _TRAWL_CAT(__trawl_loglevels_, _TRAWL_PROVIDER)[] = {
#include _TRAWL_INCLUDE
	{ 0, 0 }
};

/* ---------------- pass 7: the provider ---------------- */
#undef _TRAWL_TP_LOGLEVEL
#define _TRAWL_TP_LOGLEVEL(provider, name, level)
#undef _TRAWL_TP_EVENT_INSTANCE
#define _TRAWL_TP_EVENT_INSTANCE(cprovider, cname, provider, name, args) &__trawl_event_##provider##___##name,
static struct trawl_ust_event_desc *const _TRAWL_CAT(__trawl_events_, _TRAWL_PROVIDER)[] = {
#include _TRAWL_INCLUDE
	0
};

static struct trawl_ust_provider _TRAWL_CAT(__trawl_provider_, _TRAWL_PROVIDER) = {
	TRAWL_UST_ABI_MAJOR, _TRAWL_STR(_TRAWL_PROVIDER), _TRAWL_CAT(__trawl_events_, _TRAWL_PROVIDER),
	_TRAWL_CAT(__trawl_loglevels_, _TRAWL_PROVIDER), 0
};

/* What TRACEPOINT_DEFINE refers to (tracepoint.h): call sites without
 * TRACEPOINT_PROBE_DYNAMIC_LINKAGE pull these probes into their program. */
#if defined(LTTNG_UST_TRACEPOINT_PROVIDER_HIDDEN_DEFINITION) || defined(TRACEPOINT_PROVIDER_HIDDEN_DEFINITION)
/* The call sites are in the provider's own module (LTTng-UST's option). */
#define _TRAWL_PROVIDER_VISIBILITY "hidden"
#else
#define _TRAWL_PROVIDER_VISIBILITY "default"
#endif
_TRAWL_EXTERN_C int _TRAWL_CAT(__trawl_provider_defined_, _TRAWL_PROVIDER);
int _TRAWL_CAT(__trawl_provider_defined_, _TRAWL_PROVIDER) __attribute__((visibility(_TRAWL_PROVIDER_VISIBILITY)));
#undef _TRAWL_PROVIDER_VISIBILITY

static void __attribute__((constructor)) _TRAWL_CAT(__trawl_provider_ctor_, _TRAWL_PROVIDER)(void)
{
	_TRAWL_PROVIDER_REGISTER(&_TRAWL_CAT(__trawl_provider_, _TRAWL_PROVIDER));
}

static void __attribute__((destructor)) _TRAWL_CAT(__trawl_provider_dtor_, _TRAWL_PROVIDER)(void)
{
	trawl_ust_provider_unregister(&_TRAWL_CAT(__trawl_provider_, _TRAWL_PROVIDER));
}

#pragma GCC diagnostic pop

/* Back to the "declare" meaning for any provider header read next. */
#undef TRACEPOINT_HEADER_MULTI_READ
#undef LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ
#undef _TRAWL_TP_EVENT_INSTANCE
#undef _TRAWL_TP_LOGLEVEL
#undef _TRAWL_TP_ENUM
#undef _TRAWL_TP_EVENT_CLASS
#undef _TRAWL_F_INT
#undef _TRAWL_F_FLOAT
#undef _TRAWL_F_STRING
#undef _TRAWL_F_ARRAY
#undef _TRAWL_F_SEQ
#undef _TRAWL_F_ENUM
#undef _TRAWL_F_UNUSED
#undef _TRAWL_E_RANGE
#undef _TRAWL_PROVIDER
#undef _TRAWL_INCLUDE
/* As LTTng-UST: the next provider header says which file it is. */
#undef LTTNG_UST_TRACEPOINT_INCLUDE
#undef TRACEPOINT_INCLUDE
#undef _TRAWL_IP
#undef _TRAWL_IN_SESSION
#include <trawl/tracepoint.h>
#ifdef _TRAWL_HAD_CREATE_PROBES
#undef _TRAWL_HAD_CREATE_PROBES
#define TRACEPOINT_CREATE_PROBES
#endif
#ifdef _TRAWL_HAD_LTTNG_CREATE_PROBES
#undef _TRAWL_HAD_LTTNG_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#endif
#endif /* TRACEPOINT_CREATE_PROBES */
