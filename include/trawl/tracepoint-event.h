/* SPDX-License-Identifier: MIT */
/*
 * <trawl/tracepoint-event.h> - included at the end of a provider header.
 *
 * Does nothing unless TRACEPOINT_CREATE_PROBES is defined. Then it reads the
 * provider header (TRACEPOINT_INCLUDE) again once per pass, each time with
 * another meaning for TRACEPOINT_EVENT_CLASS / _INSTANCE / _LOGLEVEL / _ENUM
 * and the ctf_* field macros:
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
 * 8 bits, in the host's byte order (ctf_integer_network: the value's bytes
 * as given, which the caller has in network order, declared big-endian), a
 * sequence preceded by its length field "_<name>_length".
 *
 * String arguments are read twice (size, then copy): a string that another
 * thread shortens in between is copied with a NUL at the size first measured.
 */

#ifdef TRACEPOINT_CREATE_PROBES
/* Nested reads of the provider header end by including this file again:
 * make those reads do nothing. Restored at the end. */
#undef TRACEPOINT_CREATE_PROBES

#define TRACEPOINT_HEADER_MULTI_READ

#define _TRAWL_STR_(x) #x
#define _TRAWL_STR(x) _TRAWL_STR_(x)
#define _TRAWL_SIGNED(type) ((type)-1 < (type)1)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-function"

#define _TRAWL_UNDEF_ALL
#undef TRACEPOINT_EVENT_CLASS
#undef TRACEPOINT_EVENT_INSTANCE
#undef TRACEPOINT_LOGLEVEL
#undef TRACEPOINT_ENUM
#undef TRACEPOINT_MODEL_EMF_URI
#undef ctf_integer
#undef ctf_integer_hex
#undef ctf_integer_network
#undef ctf_integer_network_hex
#undef ctf_float
#undef ctf_string
#undef ctf_array
#undef ctf_array_hex
#undef ctf_array_text
#undef ctf_sequence
#undef ctf_sequence_hex
#undef ctf_sequence_text
#undef ctf_enum
#undef ctf_enum_value
#undef ctf_enum_range
#undef ctf_enum_auto

/* Fields that exist only for filters (LTTng's): not recorded, so nothing
 * in most passes; described (with TRAWL_UST_FIELD_NOWRITE) in pass 2 and
 * given their values for filters in pass 4b. */
#undef ctf_integer_nowrite
#undef ctf_float_nowrite
#undef ctf_string_nowrite
#undef ctf_array_nowrite
#undef ctf_array_text_nowrite
#undef ctf_sequence_nowrite
#undef ctf_sequence_text_nowrite
#undef ctf_enum_nowrite
#define ctf_integer_nowrite(type, item, src)
#define ctf_float_nowrite(type, item, src)
#define ctf_string_nowrite(item, src)
#define ctf_array_nowrite(type, item, src, len)
#define ctf_array_text_nowrite(type, item, src, len)
#define ctf_sequence_nowrite(type, item, src, ltype, len)
#define ctf_sequence_text_nowrite(type, item, src, ltype, len)
#define ctf_enum_nowrite(provider, name, type, item, src)
#undef ctf_unused
#define ctf_unused(item)

/* ---------------- pass 1: enums ---------------- */
#define TRACEPOINT_EVENT_CLASS(provider, name, args, fields)
#define TRACEPOINT_EVENT_INSTANCE(provider, _class, name, args)
#define TRACEPOINT_LOGLEVEL(provider, name, level)
#define TRACEPOINT_MODEL_EMF_URI(provider, name, uri)
#define ctf_enum_value(label, v) { label, (int64_t)(v), (int64_t)(v), 0 },
#define ctf_enum_range(label, a, b) { label, (int64_t)(a), (int64_t)(b), 0 },
#define ctf_enum_auto(label) { label, 0, 0, 1 },
#define TRACEPOINT_ENUM(provider, name, values)                                                       \
	static const struct trawl_ust_enum_entry_desc __trawl_enum_entries_##provider##_##name[] = {  \
		values { 0, 0, 0, 0 }                                                                 \
	};                                                                                            \
	static const struct trawl_ust_enum_desc __trawl_enum_##provider##_##name = {                  \
		#provider "_" #name, __trawl_enum_entries_##provider##_##name,                        \
		(unsigned int)(sizeof(__trawl_enum_entries_##provider##_##name) /                     \
				       sizeof(__trawl_enum_entries_##provider##_##name[0]) -          \
			       1)                                                                     \
	};
#include TRACEPOINT_INCLUDE
#undef TRACEPOINT_ENUM
#define TRACEPOINT_ENUM(provider, name, values)

/* ---------------- pass 2: field descriptions ---------------- */
#undef TRACEPOINT_EVENT_CLASS
#define _TRAWL_FD(name, type, size, sgn, base, be, text, len, lname, en)                              \
	{ name, type, (unsigned char)(size), (unsigned char)(sgn), base, be, text, len, lname, en },
#define ctf_integer(type, item, src) _TRAWL_FD(#item, 1, sizeof(type) * 8, _TRAWL_SIGNED(type), 10, 0, 0, 0, 0, 0)
#define ctf_integer_hex(type, item, src) _TRAWL_FD(#item, 1, sizeof(type) * 8, _TRAWL_SIGNED(type), 16, 0, 0, 0, 0, 0)
#define ctf_integer_network(type, item, src)                                                          \
	_TRAWL_FD(#item, 1, sizeof(type) * 8, _TRAWL_SIGNED(type), 10, 1, 0, 0, 0, 0)
#define ctf_integer_network_hex(type, item, src)                                                      \
	_TRAWL_FD(#item, 1, sizeof(type) * 8, _TRAWL_SIGNED(type), 16, 1, 0, 0, 0, 0)
#define ctf_float(type, item, src) _TRAWL_FD(#item, 2, sizeof(type) * 8, 1, 10, 0, 0, 0, 0, 0)
#define ctf_string(item, src) _TRAWL_FD(#item, 3, 8, 0, 10, 0, 1, 0, 0, 0)
#define ctf_array(type, item, src, len) _TRAWL_FD(#item, 4, sizeof(type) * 8, _TRAWL_SIGNED(type), 10, 0, 0, len, 0, 0)
#define ctf_array_hex(type, item, src, len)                                                           \
	_TRAWL_FD(#item, 4, sizeof(type) * 8, _TRAWL_SIGNED(type), 16, 0, 0, len, 0, 0)
#define ctf_array_text(type, item, src, len)                                                          \
	_TRAWL_FD(#item, 4, sizeof(type) * 8, _TRAWL_SIGNED(type), 10, 0, 1, len, 0, 0)
#define _TRAWL_SEQ_FD(type, item, ltype, base, text)                                                  \
	_TRAWL_FD("_" #item "_length", 1, sizeof(ltype) * 8, _TRAWL_SIGNED(ltype), 10, 0, 0, 0, 0, 0)  \
	_TRAWL_FD(#item, 5, sizeof(type) * 8, _TRAWL_SIGNED(type), base, 0, text, 0, "_" #item "_length", 0)
#define ctf_sequence(type, item, src, ltype, len) _TRAWL_SEQ_FD(type, item, ltype, 10, 0)
#define ctf_sequence_hex(type, item, src, ltype, len) _TRAWL_SEQ_FD(type, item, ltype, 16, 0)
#define ctf_sequence_text(type, item, src, ltype, len) _TRAWL_SEQ_FD(type, item, ltype, 10, 1)
#define ctf_enum(provider, name, type, item, src)                                                     \
	_TRAWL_FD(#item, 6, sizeof(type) * 8, _TRAWL_SIGNED(type), 10, 0, 0, 0, 0,                     \
		  &__trawl_enum_##provider##_##name)
#define _TRAWL_NW TRAWL_UST_FIELD_NOWRITE
#undef ctf_integer_nowrite
#undef ctf_float_nowrite
#undef ctf_string_nowrite
#undef ctf_array_nowrite
#undef ctf_array_text_nowrite
#undef ctf_sequence_nowrite
#undef ctf_sequence_text_nowrite
#undef ctf_enum_nowrite
#define ctf_integer_nowrite(type, item, src)                                                          \
	_TRAWL_FD(#item, 1 | _TRAWL_NW, sizeof(type) * 8, _TRAWL_SIGNED(type), 10, 0, 0, 0, 0, 0)
#define ctf_float_nowrite(type, item, src) _TRAWL_FD(#item, 2 | _TRAWL_NW, sizeof(type) * 8, 1, 10, 0, 0, 0, 0, 0)
#define ctf_string_nowrite(item, src) _TRAWL_FD(#item, 3 | _TRAWL_NW, 8, 0, 10, 0, 1, 0, 0, 0)
#define ctf_array_nowrite(type, item, src, len)                                                       \
	_TRAWL_FD(#item, 4 | _TRAWL_NW, sizeof(type) * 8, _TRAWL_SIGNED(type), 10, 0, 0, len, 0, 0)
#define ctf_array_text_nowrite(type, item, src, len)                                                  \
	_TRAWL_FD(#item, 4 | _TRAWL_NW, sizeof(type) * 8, _TRAWL_SIGNED(type), 10, 0, 1, len, 0, 0)
#define _TRAWL_SEQ_NW_FD(type, item, ltype, text)                                                     \
	_TRAWL_FD("_" #item "_length", 1 | _TRAWL_NW, sizeof(ltype) * 8, _TRAWL_SIGNED(ltype), 10, 0, 0, 0, 0, 0) \
	_TRAWL_FD(#item, 5 | _TRAWL_NW, sizeof(type) * 8, _TRAWL_SIGNED(type), 10, 0, text, 0, "_" #item "_length", 0)
#define ctf_sequence_nowrite(type, item, src, ltype, len) _TRAWL_SEQ_NW_FD(type, item, ltype, 0)
#define ctf_sequence_text_nowrite(type, item, src, ltype, len) _TRAWL_SEQ_NW_FD(type, item, ltype, 1)
#define ctf_enum_nowrite(provider, name, type, item, src)                                             \
	_TRAWL_FD(#item, 6 | _TRAWL_NW, sizeof(type) * 8, _TRAWL_SIGNED(type), 10, 0, 0, 0, 0,         \
		  &__trawl_enum_##provider##_##name)
#define TRACEPOINT_EVENT_CLASS(provider, name, args, fields)                                          \
	static const struct trawl_ust_field_desc __trawl_fields_##provider##___##name[] = {           \
		fields { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }                                               \
	};
#include TRACEPOINT_INCLUDE
#undef ctf_integer_nowrite
#undef ctf_float_nowrite
#undef ctf_string_nowrite
#undef ctf_array_nowrite
#undef ctf_array_text_nowrite
#undef ctf_sequence_nowrite
#undef ctf_sequence_text_nowrite
#undef ctf_enum_nowrite
#define ctf_integer_nowrite(type, item, src)
#define ctf_float_nowrite(type, item, src)
#define ctf_string_nowrite(item, src)
#define ctf_array_nowrite(type, item, src, len)
#define ctf_array_text_nowrite(type, item, src, len)
#define ctf_sequence_nowrite(type, item, src, ltype, len)
#define ctf_sequence_text_nowrite(type, item, src, ltype, len)
#define ctf_enum_nowrite(provider, name, type, item, src)

/* ---------------- pass 3: count of run-time sized fields ---------------- */
#undef TRACEPOINT_EVENT_CLASS
#undef ctf_integer
#undef ctf_integer_hex
#undef ctf_integer_network
#undef ctf_integer_network_hex
#undef ctf_float
#undef ctf_string
#undef ctf_array
#undef ctf_array_hex
#undef ctf_array_text
#undef ctf_sequence
#undef ctf_sequence_hex
#undef ctf_sequence_text
#undef ctf_enum
#define ctf_integer(type, item, src)
#define ctf_integer_hex(type, item, src)
#define ctf_integer_network(type, item, src)
#define ctf_integer_network_hex(type, item, src)
#define ctf_float(type, item, src)
#define ctf_string(item, src) +1
#define ctf_array(type, item, src, len)
#define ctf_array_hex(type, item, src, len)
#define ctf_array_text(type, item, src, len)
#define ctf_sequence(type, item, src, ltype, len) +1
#define ctf_sequence_hex(type, item, src, ltype, len) +1
#define ctf_sequence_text(type, item, src, ltype, len) +1
#define ctf_enum(provider, name, type, item, src)
#define TRACEPOINT_EVENT_CLASS(provider, name, args, fields) enum { __trawl_ndyn_##provider##___##name = 0 fields };
#include TRACEPOINT_INCLUDE

/* ---------------- pass 4: size and serializer of each class ---------------- */
#undef TRACEPOINT_EVENT_CLASS
#undef ctf_integer
#undef ctf_integer_hex
#undef ctf_integer_network
#undef ctf_integer_network_hex
#undef ctf_float
#undef ctf_string
#undef ctf_array
#undef ctf_array_hex
#undef ctf_array_text
#undef ctf_sequence
#undef ctf_sequence_hex
#undef ctf_sequence_text
#undef ctf_enum
/* 4a: the payload size; strings and sequence lengths are kept in __dyn. */
#define ctf_integer(type, item, src) __s += sizeof(type);
#define ctf_integer_hex(type, item, src) __s += sizeof(type);
#define ctf_integer_network(type, item, src) __s += sizeof(type);
#define ctf_integer_network_hex(type, item, src) __s += sizeof(type);
#define ctf_float(type, item, src) __s += sizeof(type);
#define ctf_string(item, src)                                                                         \
	{                                                                                             \
		const char *__str = (src);                                                            \
		__s += __dyn[__di++] = __str ? strlen(__str) + 1 : 7;                                 \
	}
#define ctf_array(type, item, src, len) __s += sizeof(type) * (size_t)(len);
#define ctf_array_hex(type, item, src, len) __s += sizeof(type) * (size_t)(len);
#define ctf_array_text(type, item, src, len) __s += sizeof(type) * (size_t)(len);
#define ctf_sequence(type, item, src, ltype, len) __s += sizeof(ltype) + sizeof(type) * (__dyn[__di++] = (size_t)(len));
#define ctf_sequence_hex(type, item, src, ltype, len) ctf_sequence(type, item, src, ltype, len)
#define ctf_sequence_text(type, item, src, ltype, len) ctf_sequence(type, item, src, ltype, len)
#define ctf_enum(provider, name, type, item, src) __s += sizeof(type);
#define TRACEPOINT_EVENT_CLASS(provider, name, args, fields)                                          \
	static inline size_t __trawl_size_##provider##___##name(size_t *__dyn _TP_PROTO_COMMA(args))  \
	{                                                                                             \
		size_t __s = 0, __di = 0;                                                             \
		(void)__dyn;                                                                          \
		(void)__di;                                                                           \
		fields return __s;                                                                    \
	}
#include TRACEPOINT_INCLUDE

#undef TRACEPOINT_EVENT_CLASS
#undef ctf_integer
#undef ctf_integer_hex
#undef ctf_integer_network
#undef ctf_integer_network_hex
#undef ctf_float
#undef ctf_string
#undef ctf_array
#undef ctf_array_hex
#undef ctf_array_text
#undef ctf_sequence
#undef ctf_sequence_hex
#undef ctf_sequence_text
#undef ctf_enum
/* 4b: the field values for filters, one struct trawl_ust_filter_arg per
 * field description (a sequence has two: its length, then itself). Called
 * only for an event that a slot with a filter is about to record. */
#define _TRAWL_FA_INT(type, src)                                                                      \
	{                                                                                             \
		type __v = (type)(src);                                                               \
		/* Sign- or zero-extended by the conversion to uint64_t. */                           \
		__fa->i = (int64_t)(uint64_t)__v;                                                     \
		__fa++;                                                                               \
	}
#define _TRAWL_FA_PTR(src, len)                                                                       \
	{                                                                                             \
		__fa->p = (const void *)(src);                                                        \
		__fa->n = (uint64_t)(len);                                                            \
		__fa++;                                                                               \
	}
#define _TRAWL_FA_NET(type, src)                                                                      \
	{                                                                                             \
		type __r = (type)(src), __v;                                                          \
		_trawl_ust_from_be(&__v, &__r, sizeof(type));                                         \
		__fa->i = (int64_t)(uint64_t)__v;                                                     \
		__fa++;                                                                               \
	}
#define ctf_integer(type, item, src) _TRAWL_FA_INT(type, src)
#define ctf_integer_hex(type, item, src) _TRAWL_FA_INT(type, src)
#define ctf_integer_network(type, item, src) _TRAWL_FA_NET(type, src)
#define ctf_integer_network_hex(type, item, src) _TRAWL_FA_NET(type, src)
#define ctf_float(type, item, src)                                                                    \
	{                                                                                             \
		__fa->d = (double)(src);                                                              \
		__fa++;                                                                               \
	}
#define ctf_string(item, src)                                                                         \
	{                                                                                             \
		const char *__str = (src);                                                            \
		__fa->p = __str ? __str : "(null)";                                                   \
		__fa++;                                                                               \
	}
#define ctf_array(type, item, src, len) _TRAWL_FA_PTR(src, len)
#define ctf_array_hex(type, item, src, len) _TRAWL_FA_PTR(src, len)
#define ctf_array_text(type, item, src, len) _TRAWL_FA_PTR(src, len)
#define ctf_sequence(type, item, src, ltype, len)                                                     \
	{                                                                                             \
		size_t __cnt = (size_t)(len);                                                         \
		_TRAWL_FA_INT(ltype, __cnt)                                                           \
		_TRAWL_FA_PTR(src, __cnt)                                                             \
	}
#define ctf_sequence_hex(type, item, src, ltype, len) ctf_sequence(type, item, src, ltype, len)
#define ctf_sequence_text(type, item, src, ltype, len) ctf_sequence(type, item, src, ltype, len)
#define ctf_enum(provider, name, type, item, src) _TRAWL_FA_INT(type, src)
#undef ctf_integer_nowrite
#undef ctf_float_nowrite
#undef ctf_string_nowrite
#undef ctf_array_nowrite
#undef ctf_array_text_nowrite
#undef ctf_sequence_nowrite
#undef ctf_sequence_text_nowrite
#undef ctf_enum_nowrite
#define ctf_integer_nowrite(type, item, src) ctf_integer(type, item, src)
#define ctf_float_nowrite(type, item, src) ctf_float(type, item, src)
#define ctf_string_nowrite(item, src) ctf_string(item, src)
#define ctf_array_nowrite(type, item, src, len) _TRAWL_FA_PTR(src, len)
#define ctf_array_text_nowrite(type, item, src, len) _TRAWL_FA_PTR(src, len)
#define ctf_sequence_nowrite(type, item, src, ltype, len) ctf_sequence(type, item, src, ltype, len)
#define ctf_sequence_text_nowrite(type, item, src, ltype, len) ctf_sequence(type, item, src, ltype, len)
#define ctf_enum_nowrite(provider, name, type, item, src) _TRAWL_FA_INT(type, src)
#define TRACEPOINT_EVENT_CLASS(provider, name, args, fields)                                          \
	static void __trawl_fargs_##provider##___##name(struct trawl_ust_filter_arg *__fa              \
							_TP_PROTO_COMMA(args))                        \
	{                                                                                             \
		(void)__fa;                                                                           \
		fields                                                                                \
	}
#include TRACEPOINT_INCLUDE

#undef ctf_integer_nowrite
#undef ctf_float_nowrite
#undef ctf_string_nowrite
#undef ctf_array_nowrite
#undef ctf_array_text_nowrite
#undef ctf_sequence_nowrite
#undef ctf_sequence_text_nowrite
#undef ctf_enum_nowrite
#define ctf_integer_nowrite(type, item, src)
#define ctf_float_nowrite(type, item, src)
#define ctf_string_nowrite(item, src)
#define ctf_array_nowrite(type, item, src, len)
#define ctf_array_text_nowrite(type, item, src, len)
#define ctf_sequence_nowrite(type, item, src, ltype, len)
#define ctf_sequence_text_nowrite(type, item, src, ltype, len)
#define ctf_enum_nowrite(provider, name, type, item, src)
#undef TRACEPOINT_EVENT_CLASS
#undef ctf_integer
#undef ctf_integer_hex
#undef ctf_integer_network
#undef ctf_integer_network_hex
#undef ctf_float
#undef ctf_string
#undef ctf_array
#undef ctf_array_hex
#undef ctf_array_text
#undef ctf_sequence
#undef ctf_sequence_hex
#undef ctf_sequence_text
#undef ctf_enum
/* 4c: the serializer. */
#define _TRAWL_W_INT(type, src)                                                                       \
	{                                                                                             \
		type __v = (type)(src);                                                               \
		memcpy(__p, &__v, sizeof(type));                                                      \
		__p += sizeof(type);                                                                  \
	}
#define _TRAWL_W_BYTES(type, src, n)                                                                  \
	{                                                                                             \
		size_t __n = sizeof(type) * (size_t)(n);                                              \
		if (__n)                                                                              \
			memcpy(__p, (src), __n);                                                      \
		__p += __n;                                                                           \
	}
#define ctf_integer(type, item, src) _TRAWL_W_INT(type, src)
#define ctf_integer_hex(type, item, src) _TRAWL_W_INT(type, src)
#define ctf_integer_network(type, item, src) _TRAWL_W_INT(type, src)
#define ctf_integer_network_hex(type, item, src) _TRAWL_W_INT(type, src)
#define ctf_float(type, item, src) _TRAWL_W_INT(type, src)
#define ctf_string(item, src)                                                                         \
	{                                                                                             \
		const char *__str = (src);                                                            \
		size_t __l = __dyn[__di++];                                                           \
		memcpy(__p, __str ? __str : "(null)", __l);                                           \
		__p[__l - 1] = '\0';                                                                  \
		__p += __l;                                                                           \
	}
#define ctf_array(type, item, src, len) _TRAWL_W_BYTES(type, src, len)
#define ctf_array_hex(type, item, src, len) _TRAWL_W_BYTES(type, src, len)
#define ctf_array_text(type, item, src, len) _TRAWL_W_BYTES(type, src, len)
#define ctf_sequence(type, item, src, ltype, len)                                                     \
	{                                                                                             \
		size_t __cnt = __dyn[__di++];                                                         \
		_TRAWL_W_INT(ltype, __cnt)                                                            \
		_TRAWL_W_BYTES(type, src, __cnt)                                                      \
	}
#define ctf_sequence_hex(type, item, src, ltype, len) ctf_sequence(type, item, src, ltype, len)
#define ctf_sequence_text(type, item, src, ltype, len) ctf_sequence(type, item, src, ltype, len)
#define ctf_enum(provider, name, type, item, src) _TRAWL_W_INT(type, src)
#define TRACEPOINT_EVENT_CLASS(provider, name, args, fields)                                          \
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
		for (__i = 0; __i < __nr && __i < __s->cap; __i++) {                                  \
			void *__chan = __atomic_load_n(&__s->slot[__i].chan, __ATOMIC_ACQUIRE);        \
			struct trawl_ust_ctx __ctx;                                                   \
			uint32_t __filt;                                                              \
			char *__p;                                                                    \
			size_t __di = 0;                                                              \
			if (!__chan)                                                                  \
				continue;                                                             \
			/* Acquire: pairs with libtrawl-ust's release store of the filter. */         \
			__filt = __atomic_load_n(&__s->slot[__i].filter, __ATOMIC_ACQUIRE);            \
			if (__builtin_expect(__filt != 0, 0)) {                                       \
				/* Before reserving: a rejected event costs no space. */              \
				if (!__fdone) {                                                       \
					__trawl_fargs_##provider##___##name(__fa _TP_VARS_COMMA(args)); \
					__fdone = 1;                                                  \
				}                                                                     \
				if (!trawl_ust_filter_pass(__filt, __fa))                             \
					continue;                                                     \
			}                                                                             \
			if (trawl_ust_reserve_ip(__chan, __atomic_load_n(&__s->slot[__i].id, __ATOMIC_RELAXED), \
						 __len, __ip, &__ctx))                                \
				continue;                                                             \
			__p = __ctx.p;                                                                \
			fields trawl_ust_commit(&__ctx);                                              \
			(void)__p;                                                                    \
			(void)__di;                                                                   \
		}                                                                                     \
	}
#include TRACEPOINT_INCLUDE

/* ---------------- pass 5: events ---------------- */
#undef TRACEPOINT_EVENT_CLASS
#define TRACEPOINT_EVENT_CLASS(provider, name, args, fields)
#undef TRACEPOINT_EVENT_INSTANCE
#define TRACEPOINT_EVENT_INSTANCE(provider, _class, name, args)                                       \
	static void __trawl_probe_##provider##___##name(_TP_PROTO(args));                             \
	static struct trawl_ust_event_desc __trawl_event_##provider##___##name = {                    \
		#provider ":" #name,                                                                  \
		(void (*)(void))__trawl_probe_##provider##___##name,                                  \
		__trawl_fields_##provider##___##_class,                                               \
		(unsigned int)(sizeof(__trawl_fields_##provider##___##_class) /                       \
				       sizeof(__trawl_fields_##provider##___##_class[0]) -            \
			       1),                                                                    \
		0,                                                                                    \
		0                                                                                     \
	};                                                                                            \
	static void __trawl_probe_##provider##___##name(_TP_PROTO(args))                              \
	{                                                                                             \
		/* The caller of the probe is the call site (tracepoint() inlines). */                \
		__trawl_class_probe_##provider##___##_class(&__trawl_event_##provider##___##name,     \
							    __builtin_return_address(0)               \
								    _TP_VARS_COMMA(args));            \
	}
#include TRACEPOINT_INCLUDE

/* ---------------- pass 6: log levels ---------------- */
#undef TRACEPOINT_EVENT_INSTANCE
#define TRACEPOINT_EVENT_INSTANCE(provider, _class, name, args)
#undef TRACEPOINT_LOGLEVEL
#define TRACEPOINT_LOGLEVEL(provider, name, level) { #provider ":" #name, (int)(level) },
static const struct trawl_ust_loglevel_desc _TRAWL_CAT(__trawl_loglevels_, TRACEPOINT_PROVIDER)[] = {
#include TRACEPOINT_INCLUDE
	{ 0, 0 }
};

/* ---------------- pass 7: the provider ---------------- */
#undef TRACEPOINT_LOGLEVEL
#define TRACEPOINT_LOGLEVEL(provider, name, level)
#undef TRACEPOINT_EVENT_INSTANCE
#define TRACEPOINT_EVENT_INSTANCE(provider, _class, name, args) &__trawl_event_##provider##___##name,
static struct trawl_ust_event_desc *const _TRAWL_CAT(__trawl_events_, TRACEPOINT_PROVIDER)[] = {
#include TRACEPOINT_INCLUDE
	0
};

static struct trawl_ust_provider _TRAWL_CAT(__trawl_provider_, TRACEPOINT_PROVIDER) = {
	TRAWL_UST_ABI_MAJOR, _TRAWL_STR(TRACEPOINT_PROVIDER), _TRAWL_CAT(__trawl_events_, TRACEPOINT_PROVIDER),
	_TRAWL_CAT(__trawl_loglevels_, TRACEPOINT_PROVIDER), 0
};

static void __attribute__((constructor)) _TRAWL_CAT(__trawl_provider_ctor_, TRACEPOINT_PROVIDER)(void)
{
	trawl_ust_provider_register(&_TRAWL_CAT(__trawl_provider_, TRACEPOINT_PROVIDER));
}

static void __attribute__((destructor)) _TRAWL_CAT(__trawl_provider_dtor_, TRACEPOINT_PROVIDER)(void)
{
	trawl_ust_provider_unregister(&_TRAWL_CAT(__trawl_provider_, TRACEPOINT_PROVIDER));
}

#pragma GCC diagnostic pop

/* Back to the "declare" meaning for any provider header read next. */
#undef TRACEPOINT_HEADER_MULTI_READ
#undef TRACEPOINT_EVENT_INSTANCE
#undef TRACEPOINT_LOGLEVEL
#undef TRACEPOINT_ENUM
#undef TRACEPOINT_EVENT_CLASS
#include <trawl/tracepoint.h>
#define TRACEPOINT_CREATE_PROBES
#endif /* TRACEPOINT_CREATE_PROBES */
