/* SPDX-License-Identifier: MIT */
/*
 * <trawl/tracepoint-names.h> - the public spellings of the instrumentation
 * macros, classic (LTTng-UST 2.12: TRACEPOINT_EVENT, ctf_integer, ...) and
 * namespaced (LTTng-UST 2.13: LTTNG_UST_TRACEPOINT_EVENT,
 * lttng_ust_field_integer, ...), each a fixed alias of one internal macro
 * that <trawl/tracepoint-event.h> gives a new meaning on each of its
 * passes. Included by <trawl/tracepoint.h>; not meant to be included alone.
 *
 * The internal field macros take every variation as an argument, so that a
 * pass defines 7 macros instead of 50:
 *
 *   _TRAWL_F_INT(type, item, src, be, base, nw)
 *   _TRAWL_F_FLOAT(type, item, src, nw)
 *   _TRAWL_F_STRING(item, src, nw)
 *   _TRAWL_F_ARRAY(type, item, src, len, be, text, base, nw)
 *   _TRAWL_F_SEQ(type, item, src, ltype, len, be, text, base, nw)
 *   _TRAWL_F_ENUM(provider, name, type, item, src, nw)
 *   _TRAWL_F_UNUSED(src)
 *
 * be: 1 = network byte order (big-endian), text: 1 = characters shown as a
 * string, base: 10 or 16, nw: 1 = for filters only (never recorded). These
 * three are always the literal tokens 0 or 1, which the passes paste.
 */
#ifndef TRAWL_TRACEPOINT_NAMES_H
#define TRAWL_TRACEPOINT_NAMES_H

/* LTTng-UST's LTTNG_UST_COMPAT_API_VERSION: 0 (or undefined) keeps the
 * classic names; 1 and more leave only the namespaced ones. */
#if !defined(LTTNG_UST_COMPAT_API_VERSION) || (LTTNG_UST_COMPAT_API_VERSION + 0) <= 0
#define _TRAWL_CLASSIC_API 1
#else
#define _TRAWL_CLASSIC_API 0
#endif

/* ---- namespaced (LTTng-UST 2.13) ---- */

#define LTTNG_UST_TP_ARGS(...) __VA_ARGS__
#define LTTNG_UST_TP_FIELDS(...) __VA_ARGS__
#define LTTNG_UST_TP_ENUM_VALUES(...) __VA_ARGS__

#define LTTNG_UST_TRACEPOINT_EVENT(provider, name, args, fields)                                      \
	_TRAWL_TP_EVENT_CLASS(provider, name, _TRAWL_PARAMS(args), _TRAWL_PARAMS(fields))              \
	_TRAWL_TP_EVENT_INSTANCE(provider, name, provider, name, _TRAWL_PARAMS(args))
#define LTTNG_UST_TRACEPOINT_EVENT_CLASS(provider, name, args, fields)                                \
	_TRAWL_TP_EVENT_CLASS(provider, name, _TRAWL_PARAMS(args), _TRAWL_PARAMS(fields))
#define LTTNG_UST_TRACEPOINT_EVENT_INSTANCE(cprovider, cname, provider, name, args)                   \
	_TRAWL_TP_EVENT_INSTANCE(cprovider, cname, provider, name, _TRAWL_PARAMS(args))
#define LTTNG_UST_TRACEPOINT_LOGLEVEL(provider, name, level) _TRAWL_TP_LOGLEVEL(provider, name, level)
#define LTTNG_UST_TRACEPOINT_ENUM(provider, name, values) _TRAWL_TP_ENUM(provider, name, _TRAWL_PARAMS(values))
/* The model URI is not recorded (trawl's metadata has no place for it). */
#define LTTNG_UST_TRACEPOINT_MODEL_EMF_URI(provider, name, uri)

#define lttng_ust_field_integer(type, item, src) _TRAWL_F_INT(type, item, src, 0, 10, 0)
#define lttng_ust_field_integer_hex(type, item, src) _TRAWL_F_INT(type, item, src, 0, 16, 0)
#define lttng_ust_field_integer_network(type, item, src) _TRAWL_F_INT(type, item, src, 1, 10, 0)
#define lttng_ust_field_integer_network_hex(type, item, src) _TRAWL_F_INT(type, item, src, 1, 16, 0)
#define lttng_ust_field_integer_nowrite(type, item, src) _TRAWL_F_INT(type, item, src, 0, 10, 1)
#define lttng_ust_field_float(type, item, src) _TRAWL_F_FLOAT(type, item, src, 0)
#define lttng_ust_field_float_nowrite(type, item, src) _TRAWL_F_FLOAT(type, item, src, 1)
#define lttng_ust_field_string(item, src) _TRAWL_F_STRING(item, src, 0)
#define lttng_ust_field_string_nowrite(item, src) _TRAWL_F_STRING(item, src, 1)
#define lttng_ust_field_unused(src) _TRAWL_F_UNUSED(src)
#define lttng_ust_field_unused_nowrite(src) _TRAWL_F_UNUSED(src)
#define lttng_ust_field_enum(provider, name, type, item, src) _TRAWL_F_ENUM(provider, name, type, item, src, 0)
#define lttng_ust_field_enum_nowrite(provider, name, type, item, src)                                 \
	_TRAWL_F_ENUM(provider, name, type, item, src, 1)
#define lttng_ust_field_enum_value(label, value) _TRAWL_E_RANGE(label, value, value, 0)
#define lttng_ust_field_enum_range(label, start, end) _TRAWL_E_RANGE(label, start, end, 0)
#define lttng_ust_field_enum_auto(label) _TRAWL_E_RANGE(label, 0, 0, 1)

#define lttng_ust_field_array(type, item, src, len) _TRAWL_F_ARRAY(type, item, src, len, 0, 0, 10, 0)
#define lttng_ust_field_array_hex(type, item, src, len) _TRAWL_F_ARRAY(type, item, src, len, 0, 0, 16, 0)
#define lttng_ust_field_array_network(type, item, src, len) _TRAWL_F_ARRAY(type, item, src, len, 1, 0, 10, 0)
#define lttng_ust_field_array_network_hex(type, item, src, len)                                       \
	_TRAWL_F_ARRAY(type, item, src, len, 1, 0, 16, 0)
#define lttng_ust_field_array_text(type, item, src, len) _TRAWL_F_ARRAY(type, item, src, len, 0, 1, 10, 0)
#define lttng_ust_field_array_nowrite(type, item, src, len) _TRAWL_F_ARRAY(type, item, src, len, 0, 0, 10, 1)
#define lttng_ust_field_array_nowrite_hex(type, item, src, len)                                       \
	_TRAWL_F_ARRAY(type, item, src, len, 0, 0, 16, 1)
#define lttng_ust_field_array_network_nowrite(type, item, src, len)                                   \
	_TRAWL_F_ARRAY(type, item, src, len, 1, 0, 10, 1)
#define lttng_ust_field_array_network_nowrite_hex(type, item, src, len)                               \
	_TRAWL_F_ARRAY(type, item, src, len, 1, 0, 16, 1)
#define lttng_ust_field_array_text_nowrite(type, item, src, len)                                      \
	_TRAWL_F_ARRAY(type, item, src, len, 0, 1, 10, 1)

#define lttng_ust_field_sequence(type, item, src, ltype, len)                                         \
	_TRAWL_F_SEQ(type, item, src, ltype, len, 0, 0, 10, 0)
#define lttng_ust_field_sequence_hex(type, item, src, ltype, len)                                     \
	_TRAWL_F_SEQ(type, item, src, ltype, len, 0, 0, 16, 0)
#define lttng_ust_field_sequence_network(type, item, src, ltype, len)                                 \
	_TRAWL_F_SEQ(type, item, src, ltype, len, 1, 0, 10, 0)
#define lttng_ust_field_sequence_network_hex(type, item, src, ltype, len)                             \
	_TRAWL_F_SEQ(type, item, src, ltype, len, 1, 0, 16, 0)
#define lttng_ust_field_sequence_text(type, item, src, ltype, len)                                    \
	_TRAWL_F_SEQ(type, item, src, ltype, len, 0, 1, 10, 0)
#define lttng_ust_field_sequence_nowrite(type, item, src, ltype, len)                                 \
	_TRAWL_F_SEQ(type, item, src, ltype, len, 0, 0, 10, 1)
#define lttng_ust_field_sequence_nowrite_hex(type, item, src, ltype, len)                             \
	_TRAWL_F_SEQ(type, item, src, ltype, len, 0, 0, 16, 1)
#define lttng_ust_field_sequence_network_nowrite(type, item, src, ltype, len)                         \
	_TRAWL_F_SEQ(type, item, src, ltype, len, 1, 0, 10, 1)
#define lttng_ust_field_sequence_network_nowrite_hex(type, item, src, ltype, len)                     \
	_TRAWL_F_SEQ(type, item, src, ltype, len, 1, 0, 16, 1)
#define lttng_ust_field_sequence_text_nowrite(type, item, src, ltype, len)                            \
	_TRAWL_F_SEQ(type, item, src, ltype, len, 0, 1, 10, 1)

/* ---- classic (LTTng-UST 2.12 and before) ---- */
#if _TRAWL_CLASSIC_API

#define TP_ARGS LTTNG_UST_TP_ARGS
#define TP_FIELDS LTTNG_UST_TP_FIELDS
#define TP_ENUM_VALUES LTTNG_UST_TP_ENUM_VALUES

#define TRACEPOINT_EVENT LTTNG_UST_TRACEPOINT_EVENT
#define TRACEPOINT_EVENT_CLASS LTTNG_UST_TRACEPOINT_EVENT_CLASS
/* The classic instance belongs to its class's provider. */
#define TRACEPOINT_EVENT_INSTANCE(provider, cname, name, args)                                        \
	_TRAWL_TP_EVENT_INSTANCE(provider, cname, provider, name, _TRAWL_PARAMS(args))
#define TRACEPOINT_LOGLEVEL LTTNG_UST_TRACEPOINT_LOGLEVEL
#define TRACEPOINT_ENUM LTTNG_UST_TRACEPOINT_ENUM
#define TRACEPOINT_MODEL_EMF_URI LTTNG_UST_TRACEPOINT_MODEL_EMF_URI

#define TRACE_EMERG LTTNG_UST_TRACEPOINT_LOGLEVEL_EMERG
#define TRACE_ALERT LTTNG_UST_TRACEPOINT_LOGLEVEL_ALERT
#define TRACE_CRIT LTTNG_UST_TRACEPOINT_LOGLEVEL_CRIT
#define TRACE_ERR LTTNG_UST_TRACEPOINT_LOGLEVEL_ERR
#define TRACE_WARNING LTTNG_UST_TRACEPOINT_LOGLEVEL_WARNING
#define TRACE_NOTICE LTTNG_UST_TRACEPOINT_LOGLEVEL_NOTICE
#define TRACE_INFO LTTNG_UST_TRACEPOINT_LOGLEVEL_INFO
#define TRACE_DEBUG_SYSTEM LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_SYSTEM
#define TRACE_DEBUG_PROGRAM LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROGRAM
#define TRACE_DEBUG_PROCESS LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_PROCESS
#define TRACE_DEBUG_MODULE LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_MODULE
#define TRACE_DEBUG_UNIT LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_UNIT
#define TRACE_DEBUG_FUNCTION LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_FUNCTION
#define TRACE_DEBUG_LINE LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG_LINE
#define TRACE_DEBUG LTTNG_UST_TRACEPOINT_LOGLEVEL_DEBUG

#define ctf_integer lttng_ust_field_integer
#define ctf_integer_hex lttng_ust_field_integer_hex
#define ctf_integer_network lttng_ust_field_integer_network
#define ctf_integer_network_hex lttng_ust_field_integer_network_hex
#define ctf_integer_nowrite lttng_ust_field_integer_nowrite
#define ctf_float lttng_ust_field_float
#define ctf_float_nowrite lttng_ust_field_float_nowrite
#define ctf_array lttng_ust_field_array
#define ctf_array_hex lttng_ust_field_array_hex
#define ctf_array_network lttng_ust_field_array_network
#define ctf_array_network_hex lttng_ust_field_array_network_hex
#define ctf_array_text lttng_ust_field_array_text
#define ctf_array_nowrite lttng_ust_field_array_nowrite
#define ctf_array_nowrite_hex lttng_ust_field_array_nowrite_hex
#define ctf_array_network_nowrite lttng_ust_field_array_network_nowrite
#define ctf_array_network_nowrite_hex lttng_ust_field_array_network_nowrite_hex
#define ctf_array_text_nowrite lttng_ust_field_array_text_nowrite
#define ctf_sequence lttng_ust_field_sequence
#define ctf_sequence_hex lttng_ust_field_sequence_hex
#define ctf_sequence_network lttng_ust_field_sequence_network
#define ctf_sequence_network_hex lttng_ust_field_sequence_network_hex
#define ctf_sequence_text lttng_ust_field_sequence_text
#define ctf_sequence_nowrite lttng_ust_field_sequence_nowrite
#define ctf_sequence_nowrite_hex lttng_ust_field_sequence_nowrite_hex
#define ctf_sequence_network_nowrite lttng_ust_field_sequence_network_nowrite
#define ctf_sequence_network_nowrite_hex lttng_ust_field_sequence_network_nowrite_hex
#define ctf_sequence_text_nowrite lttng_ust_field_sequence_text_nowrite
#define ctf_string lttng_ust_field_string
#define ctf_string_nowrite lttng_ust_field_string_nowrite
#define ctf_unused lttng_ust_field_unused
#define ctf_unused_nowrite lttng_ust_field_unused_nowrite
#define ctf_enum lttng_ust_field_enum
#define ctf_enum_nowrite lttng_ust_field_enum_nowrite
#define ctf_enum_value lttng_ust_field_enum_value
#define ctf_enum_range lttng_ust_field_enum_range
#define ctf_enum_auto lttng_ust_field_enum_auto

#endif /* _TRAWL_CLASSIC_API */

#endif /* TRAWL_TRACEPOINT_NAMES_H */
