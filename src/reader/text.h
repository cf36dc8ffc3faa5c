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
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
/* Copies @n bytes, @n at most 16, in two overlapping loads and stores at most. */
static inline void rd_copy_short(char *d, const char *s, size_t n)
{
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
}

/* Copies @n bytes of any length: up to 32 without a call. */
static inline void rd_copy(char *d, const char *s, size_t n)
{
	if (n <= 16) {
		rd_copy_short(d, s, n);
	} else if (n <= 32) {
		char a[16], b[16];

		memcpy(a, s, 16);
		memcpy(b, s + n - 16, 16);
		memcpy(d, a, 16);
		memcpy(d + n - 16, b, 16);
	} else {
		memcpy(d, s, n);
	}
}

static inline void rd_text_put(struct rd_text *t, const char *s, size_t n)
{
	char *d;

	if (trawl_unlikely(t->cap - t->len < n) && !rd_text_grow(t, n))
		return;
	d = t->buf + t->len;
	/* short copies inline: the libc call costs more than the copy */
	if (n <= 16)
		rd_copy_short(d, s, n);
	else
		memcpy(d, s, n);
	t->len += n;
}
#define rd_text_lit(t, s) rd_text_put((t), (s), sizeof(s) - 1)

/*
 * Copies @n bytes from @s to @d, 16 bytes when @n is up to 16: @s has
 * RD_COPY_PAD readable bytes after its @n (the plans' texts are allocated
 * so), and @d room for 16 bytes at least.
 */
#define RD_COPY_PAD 16
static inline void rd_copy_padded(char *d, const char *s, size_t n)
{
	if (trawl_likely(n <= 16))
		memcpy(d, s, 16);
	else
		memcpy(d, s, n);
}
void rd_text_str(struct rd_text *t, const char *s);
void rd_text_escaped(struct rd_text *t, const char *s, size_t n);

#ifdef __SSE2__
/*
 * Which of the 16 bytes of @v need babeltrace2's escaping (a byte below
 * 0x20, NUL included, 0x7f, or one of \\ ' " ?): bit i for byte i.
 */
static inline unsigned rd_escape_mask16(__m128i v)
{
	const __m128i c1f = _mm_set1_epi8(0x1f);
	/* a byte below 0x20, unsigned: max(b, 0x1f) == 0x1f */
	__m128i m = _mm_cmpeq_epi8(_mm_max_epu8(v, c1f), c1f);

	m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('\'')));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
	m = _mm_or_si128(m, _mm_cmpeq_epi8(v, _mm_set1_epi8('?')));
	return (unsigned)_mm_movemask_epi8(m);
}

/*
 * Whether one of @n bytes (1 to 16) needs babeltrace2's escaping (a byte
 * below 0x20, 0x7f, or one of \\ ' " ?), in one 16-byte test: the first
 * and last eight bytes (overlapping when shorter than 16), or the bytes
 * padded with a letter when shorter than 8; never a load past s + n.
 */
static inline bool rd_needs_escape_short(const char *s, size_t n)
{
	uint64_t lo = 0x6161616161616161ULL, hi = 0x6161616161616161ULL;
	__m128i v;

	if (n >= 8) {
		memcpy(&lo, s, 8);
		memcpy(&hi, s + n - 8, 8);
	} else {
		memcpy(&lo, s, n);
	}
	v = _mm_set_epi64x((long long)hi, (long long)lo);
	return rd_escape_mask16(v) != 0;
}
#endif

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

/*
 * The eight decimal digits of @v (below 10^8, zero-padded) as eight ASCII
 * bytes in one 64-bit word, the first digit in the lowest byte (the first
 * in memory on a little-endian machine): one division by 10^4 and then
 * divisions by 100 and 10 of every lane at once by multiply-and-shift
 * (x * 10486 >> 20 is x / 100 for x <= 9999, x * 103 >> 10 is x / 10 for
 * x <= 99), no table, no loop.
 */
static inline uint64_t rd_swar8(uint32_t v)
{
	uint64_t x = (uint64_t)(v / 10000u) | (uint64_t)(v % 10000u) << 32;
	uint64_t h = ((x * 10486u) >> 20) & 0x0000007f0000007fULL;
	uint64_t t;

	x = h | (x - h * 100u) << 16;	/* four lanes of two digits, 16 bits each */
	t = ((x * 103u) >> 10) & 0x000f000f000f000fULL;
	x = t | (x - t * 10u) << 8;	/* eight lanes of one digit */
	return x | 0x3030303030303030ULL;
}

/*
 * The same word from four pairs of the table: more instructions than
 * rd_swar8(), but the four lookups do not wait on one another.
 */
static inline uint64_t rd_pair(uint32_t v)
{
	uint16_t x;

	memcpy(&x, rd_digits2 + v * 2, 2);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap16(x);	/* the first digit in the low byte, as rd_store8() wants */
#endif
	return x;
}

static inline uint64_t rd_pairs8(uint32_t v)
{
	uint32_t hi = v / 10000u, lo = v % 10000u;

	return rd_pair(hi / 100) | rd_pair(hi % 100) << 16 | rd_pair(lo / 100) << 32 |
	       rd_pair(lo % 100) << 48;
}

/* Stores the word rd_swar8() made, first digit first, whatever the byte order. */
static inline void rd_store8(char *d, uint64_t x)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	x = __builtin_bswap64(x);
#endif
	memcpy(d, &x, 8);
}

/* The 4 digits of @v (below 10^4, zero-padded) at @d: two pairs from the table. */
static inline void rd_write_4digits(char *d, uint32_t v)
{
	memcpy(d, rd_digits2 + (v / 100) * 2, 2);
	memcpy(d + 2, rd_digits2 + (v % 100) * 2, 2);
}

/* The 9 digits of @v (below 10^9, zero-padded) at @d. */
static inline void rd_write_9digits(char *d, uint32_t v)
{
	uint32_t hi = v / 100000000u;

	d[0] = (char)('0' + hi);
	rd_store8(d + 1, rd_swar8(v - hi * 100000000u));
}

/*
 * @v in decimal at @d, which has room for 24 bytes (up to 8 bytes past the
 * digits are overwritten); returns the number of digits. Values below
 * 10^8 (most fields) are one rd_pairs8() word shifted past its leading
 * zeros; values below 10^16 two rd_swar8() words, the leading zeros of the
 * first found by counting its trailing zero bits.
 */
static inline unsigned rd_put_u64(char *d, uint64_t v)
{
	uint64_t x;
	unsigned lz, n;

	if (trawl_unlikely(v >= 10000000000000000ULL)) {
		n = rd_count_digits(v);
		rd_write_digits(d + n, v, n);
		return n;
	}
	if (v < 100000000u) {
		/*
		 * The digit count from the bit length (log10 2 ~ 1233 / 4096),
		 * not from the digits: it does not wait for them, so the text
		 * after this number need not either.
		 */
		static const uint32_t pow10[10] = {
			1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
			1000000000,
		};
		uint32_t w = (uint32_t)v | 1;	/* 0 has one digit, as 1 */
		unsigned l10 = ((32u - (unsigned)__builtin_clz(w)) * 1233u) >> 12;

		n = l10 + 1 - (w < pow10[l10]);
		rd_store8(d, rd_pairs8((uint32_t)v) >> (64 - 8 * n));
		return n;
	}
	x = rd_swar8((uint32_t)(v / 100000000u));
	lz = (unsigned)__builtin_ctzll(x & 0x0f0f0f0f0f0f0f0fULL) >> 3;
	rd_store8(d, x >> (8 * lz));
	rd_store8(d + 8 - lz, rd_swar8((uint32_t)(v % 100000000u)));
	return 16 - lz;
}

static inline void rd_text_u64(struct rd_text *t, uint64_t v)
{
	if (!rd_text_reserve(t, 24))
		return;
	t->len += rd_put_u64(t->buf + t->len, v);
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
