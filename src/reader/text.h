/* SPDX-License-Identifier: MIT */
/*
 * The text output buffer (layer 2, see internal.h): a growable buffer,
 * hand-written decimal numbers (two digits per step, no printf per field)
 * and babeltrace2's formats: string escaping, integers in their base,
 * enums, floats.
 */
#ifndef TRAWL_READER_TEXT_H
#define TRAWL_READER_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "reader/internal.h"

/* An output buffer; grows as needed, the caller flushes between events. */
struct rd_text {
	char *buf;
	size_t len, cap;
	bool names;		/* print field names (payload, contexts) */
	bool oom;
};

/* Grows @t to hold @n more bytes; false (and t->oom set) when out of memory. */
bool rd_text_grow(struct rd_text *t, size_t n);
static inline bool rd_text_reserve(struct rd_text *t, size_t n)
{
	return trawl_likely(t->cap - t->len >= n) || rd_text_grow(t, n);
}
static inline void rd_text_put(struct rd_text *t, const char *s, size_t n)
{
	char *d;

	if (trawl_unlikely(t->cap - t->len < n) && !rd_text_grow(t, n))
		return;
	d = t->buf + t->len;
	/* short copies inline: the libc call costs more than the copy */
	if (n <= 16) {
		if (n >= 8) {
			uint64_t a, b;

			memcpy(&a, s, 8);
			memcpy(&b, s + n - 8, 8);
			memcpy(d, &a, 8);
			memcpy(d + n - 8, &b, 8);
		} else if (n >= 4) {
			uint32_t a, b;

			memcpy(&a, s, 4);
			memcpy(&b, s + n - 4, 4);
			memcpy(d, &a, 4);
			memcpy(d + n - 4, &b, 4);
		} else if (n >= 2) {
			uint16_t a, b;

			memcpy(&a, s, 2);
			memcpy(&b, s + n - 2, 2);
			memcpy(d, &a, 2);
			memcpy(d + n - 2, &b, 2);
		} else if (n) {
			d[0] = s[0];
		}
	} else {
		memcpy(d, s, n);
	}
	t->len += n;
}
#define rd_text_lit(t, s) rd_text_put((t), (s), sizeof(s) - 1)
void rd_text_str(struct rd_text *t, const char *s);
void rd_text_escaped(struct rd_text *t, const char *s, size_t n);

/* ---- decimal numbers, two digits per step ---- */

static const char rd_digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline unsigned rd_count_digits32(uint32_t v)
{
	if (v < 100000)
		return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : 5;
	return v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 :
	       v < 1000000000 ? 9 : 10;
}

static inline unsigned rd_count_digits(uint64_t v)
{
	unsigned n = 0;

	while (v > UINT32_MAX) {
		v /= 10000;
		n += 4;
	}
	return n + rd_count_digits32((uint32_t)v);
}

/*
 * Writes the @n decimal digits of @v ending at @end (exclusive), two at a
 * time, in 32-bit arithmetic as soon as the value fits.
 */
static inline void rd_write_digits(char *end, uint64_t v, unsigned n)
{
	uint32_t w;

	while (v > UINT32_MAX) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, rd_digits2 + r * 2, 2);
		n -= 2;
	}
	w = (uint32_t)v;
	/* four digits per step: two independent halves, shorter dependency chain */
	while (n >= 4) {
		uint32_t q = w / 10000, r = w - q * 10000;

		end -= 4;
		memcpy(end, rd_digits2 + (r / 100) * 2, 2);
		memcpy(end + 2, rd_digits2 + (r % 100) * 2, 2);
		w = q;
		n -= 4;
	}
	if (n >= 2) {
		uint32_t r = w % 100;

		w /= 100;
		end -= 2;
		memcpy(end, rd_digits2 + r * 2, 2);
		n -= 2;
	}
	if (n)
		end[-1] = (char)('0' + w % 10);
}

/* The 9 digits of @v (below 10^9, zero-padded) at @d: one division by 10^8, four pairs. */
static inline void rd_write_9digits(char *d, uint32_t v)
{
	uint32_t hi = v / 100000000u, lo = v - hi * 100000000u;
	uint32_t a = lo / 10000u, b = lo - a * 10000u;

	d[0] = (char)('0' + hi);
	memcpy(d + 1, rd_digits2 + (a / 100) * 2, 2);
	memcpy(d + 3, rd_digits2 + (a % 100) * 2, 2);
	memcpy(d + 5, rd_digits2 + (b / 100) * 2, 2);
	memcpy(d + 7, rd_digits2 + (b % 100) * 2, 2);
}

static inline void rd_text_u64(struct rd_text *t, uint64_t v)
{
	unsigned n = rd_count_digits(v);

	if (!rd_text_reserve(t, 20))
		return;
	rd_write_digits(t->buf + t->len + n, v, n);
	t->len += n;
}

static inline void rd_text_i64(struct rd_text *t, int64_t v)
{
	if (v < 0) {
		rd_text_lit(t, "-");
		rd_text_u64(t, 0 - (uint64_t)v);
	} else {
		rd_text_u64(t, (uint64_t)v);
	}
}

static inline void rd_text_u64_pad(struct rd_text *t, uint64_t v, int width)
{
	unsigned n = rd_count_digits(v);

	if ((int)n < width)
		n = (unsigned)width;
	if (n > 20)
		n = 20;
	if (!rd_text_reserve(t, 20))
		return;
	rd_write_digits(t->buf + t->len + n, v, n);
	t->len += n;
}

/* babeltrace2's formats of an integer (in its base), an enum and a float */
void rd_print_int(struct rd_text *t, const struct fc *fc, uint64_t v);
void rd_print_enum(struct rd_text *t, const struct fc *fc, uint64_t v);
void rd_print_float(struct rd_text *t, double d);

#endif /* TRAWL_READER_TEXT_H */
