/* SPDX-License-Identifier: MIT */
/*
 * jsonw.h - appending JSON text to a struct trawl_reader_buf, fast.
 *
 * Why not json-c or jansson: both build a tree of objects per value and
 * then print it; an export writes ten million events a second straight
 * from the reader's fields into one output buffer, so a tree (a malloc per
 * field) would cost more than the decoding. These helpers only append
 * bytes: the caller writes the structure in order.
 *
 * Errors: the append functions return 0 or -ENOMEM (then the buffer holds
 * part of the value; the callers give up on the whole output).
 */
#ifndef TRAWL_EXPORT_JSONW_H
#define TRAWL_EXPORT_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <trawl/reader.h>

/* Integers beyond this print as strings: JavaScript and jq hold doubles. */
#define JSONW_SAFE_INT ((uint64_t)1 << 53)

/* Grows @b so that @n more bytes fit. */
int jsonw_reserve(struct trawl_reader_buf *b, size_t n);

static inline int jsonw_raw(struct trawl_reader_buf *b, const char *s, size_t n)
{
	if (b->cap - b->len < n && jsonw_reserve(b, n))
		return -12; /* -ENOMEM, without <errno.h> in every user */
	memcpy(b->data + b->len, s, n);
	b->len += n;
	return 0;
}

#define jsonw_lit(b, s) jsonw_raw((b), (s), sizeof(s) - 1)

/* @s (@n bytes, any bytes) as a JSON string, quotes included; bytes that
 * are not UTF-8 become U+FFFD. */
int jsonw_string(struct trawl_reader_buf *b, const char *s, size_t n);
/* Integers: numbers up to 2^53 in magnitude, strings beyond. */
int jsonw_uint(struct trawl_reader_buf *b, uint64_t v);
int jsonw_int(struct trawl_reader_buf *b, int64_t v);
/* Integers as plain numbers whatever their size (ids, counts the writer knows fit). */
int jsonw_u64_plain(struct trawl_reader_buf *b, uint64_t v);
/* A double that reads back exactly; NaN and infinities as "nan", "inf", "-inf". */
int jsonw_double(struct trawl_reader_buf *b, double v);
/* ns as microseconds with three decimals ("1234.567"), exact. */
int jsonw_us_of_ns(struct trawl_reader_buf *b, int64_t ns);

/*
 * A cache of names (event, trace and field names) as JSON keys, so that
 * each is escaped once rather than once an event: a trace has a few
 * hundred names and ten million events. Keyed by the names' addresses:
 * a cache must not outlive the reader whose names it holds. Owned by the caller
 * (jsonw_names_create, NULL when out of memory; jsonw_names_destroy,
 * NULL-safe); every function taking one also takes NULL (no cache).
 */
struct jsonw_names;
struct jsonw_names *jsonw_names_create(void);
void jsonw_names_destroy(struct jsonw_names *c);

/* "@name": (escaped, with its colon), from @c when it holds it. */
int jsonw_key(struct trawl_reader_buf *b, struct jsonw_names *c, const char *name);

/*
 * jsonw_field - a field of the reader as a JSON value: integers as above,
 * enums as {"label": L or null, "value": V} (and "labels": [...] when
 * several ranges hold the value), floats, strings, arrays and sequences as
 * arrays, structures as objects, variants as {"option": value}.
 */
int jsonw_field(struct trawl_reader_buf *b, const struct trawl_reader_field *f);
/* jsonw_field with the names of members from @c. */
int jsonw_field_names(struct trawl_reader_buf *b, const struct trawl_reader_field *f,
		      struct jsonw_names *c);

/*
 * jsonw_event - the reader's current event as one JSON object and "\n":
 * {"name", "time_ns" (absent when its stream has no clock), "trace",
 * "packet_context", "common_context", "specific_context", "payload" (each
 * absent when the event has nothing there)}; names from @c (may be NULL).
 * Returns 0, or a negative errno
 * of the reader (-EINVAL: trawl_reader_error()) or -ENOMEM; on error the
 * buffer is back at its length before the call.
 */
int jsonw_event(struct trawl_reader *r, struct trawl_reader_buf *b, struct jsonw_names *c);

#endif /* TRAWL_EXPORT_JSONW_H */
