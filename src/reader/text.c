/* SPDX-License-Identifier: MIT */
/*
 * Text output helpers: the growable buffer, hand-written number formatting
 * (two digits per step, no printf per field), babeltrace2's string escaping
 * and its integer, enum and float formats.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/common.h"
#include "reader/text.h"

/* ---- text helpers ---------------------------------------------------- */

bool rd_text_grow(struct rd_text *t, size_t n)
{
	if (t->oom)
		return false;
	/* At least one byte: a text grown by 0 has a buffer all the same. */
	if (n > SIZE_MAX - t->len ||
	    trawl_array_grow((void **)&t->buf, &t->cap, TRAWL_MAX(t->len + n, (size_t)1), 1, 4096)) {
		t->oom = true;
		return false;
	}
	return true;
}

void rd_text_str(struct rd_text *t, const char *s)
{
	rd_text_put(t, s, strlen(s));
}

/*
 * babeltrace2's string escaping (print_escape_string), byte for byte:
 * \\ \' \" \? and the C escapes of control characters, \xNN for the
 * others (DEL included). A table says which bytes need care.
 */
static const char *const esc_table[256] = {
	[0] = "\\0", [1] = "\\x01", [2] = "\\x02", [3] = "\\x03",
	[4] = "\\x04", [5] = "\\x05", [6] = "\\x06", ['\a'] = "\\a",
	['\b'] = "\\b", ['\t'] = "\\t", ['\n'] = "\\n", ['\v'] = "\\v",
	['\f'] = "\\f", ['\r'] = "\\r", [14] = "\\x0e", [15] = "\\x0f",
	[16] = "\\x10", [17] = "\\x11", [18] = "\\x12", [19] = "\\x13",
	[20] = "\\x14", [21] = "\\x15", [22] = "\\x16", [23] = "\\x17",
	[24] = "\\x18", [25] = "\\x19", [26] = "\\x1a", [27] = "\\e",
	[28] = "\\x1c", [29] = "\\x1d", [30] = "\\x1e", [31] = "\\x1f",
	['\\'] = "\\\\", ['\''] = "\\'", ['"'] = "\\\"", ['?'] = "\\?",
	[127] = "\\x7f",
};

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

static inline uint64_t has_zero(uint64_t x)
{
	return (x - ONES) & ~x & HIGHS;
}

static inline bool needs_escape8(uint64_t x)
{
	/* any byte below 0x20 (exact as a yes/no answer), or equal to one of these */
	uint64_t less20 = (x - ONES * 0x20) & ~x & HIGHS;

	return less20 | has_zero(x ^ (ONES * 0x7f)) | has_zero(x ^ (ONES * '\\')) |
	       has_zero(x ^ (ONES * '\'')) | has_zero(x ^ (ONES * '"')) |
	       has_zero(x ^ (ONES * '?'));
}

void rd_text_escaped(struct rd_text *t, const char *s, size_t n)
{
	size_t i, run = 0;

	rd_text_reserve(t, n + 2);
	rd_text_lit(t, "\"");
	/*
	 * Eight bytes at a time while none needs escaping (SWAR: a byte below
	 * 0x20, 0x7f, or one of \\ ' " ?), then byte by byte.
	 */
#ifdef __SSE2__
	if (n <= 16) {
		i = 0;
		if (n && rd_needs_escape_short(s, n))
			goto bytes;
		rd_text_put(t, s, n);
		rd_text_lit(t, "\"");
		return;
	}
#endif
	for (i = 0; i + 8 <= n; i += 8) {
		uint64_t x;

		memcpy(&x, s + i, 8);
		if (needs_escape8(x))
			goto bytes;
	}
	if (i < n) {
		/*
		 * The last 1-7 bytes in one more test: the string's last eight
		 * bytes (overlapping what was tested) or, when it is shorter,
		 * its bytes padded with a letter that needs no escape.
		 */
		uint64_t x = ONES * 'a';

		if (n >= 8)
			memcpy(&x, s + n - 8, 8);
		else
			memcpy(&x, s, n);
		if (needs_escape8(x))
			goto bytes;
	}
	rd_text_put(t, s, n);
	rd_text_lit(t, "\"");
	return;
bytes:
	run = i;
	for (; i < n; i++) {
		const char *esc = esc_table[(unsigned char)s[i]];

		if (trawl_likely(!esc)) {
			run++;
			continue;
		}
		if (run) {
			rd_text_put(t, s + i - run, run);
			run = 0;
		}
		rd_text_str(t, esc);
	}
	if (run)
		rd_text_put(t, s + n - run, run);
	rd_text_lit(t, "\"");
}

/* ---- integer printing ------------------------------------------------ */

void rd_print_int(struct rd_text *t, const struct fc *fc, uint64_t v)
{
	static const char hexu[] = "0123456789ABCDEF";
	char tmp[80];
	int i = (int)sizeof(tmp);
	uint32_t len = fc->size;

	switch (fc->base) {
	case 16:
		if (len < 64) {
			uint32_t r = (len + 3) & ~3u;

			if (r < 64)
				v &= (1ULL << r) - 1;
		}
		do {
			tmp[--i] = hexu[v & 15];
			v >>= 4;
		} while (v);
		rd_text_lit(t, "0x");
		rd_text_put(t, tmp + i, sizeof(tmp) - (size_t)i);
		return;
	case 8:
		if (fc->is_signed && len < 64) {
			uint32_t r = ((len - 1) / 3 + 1) * 3;

			if (r < 64)
				v &= (1ULL << r) - 1;
		}
		do {
			tmp[--i] = (char)('0' + (v & 7));
			v >>= 3;
		} while (v);
		tmp[--i] = '0';
		rd_text_put(t, tmp + i, sizeof(tmp) - (size_t)i);
		return;
	case 2: {
		uint32_t b;

		rd_text_lit(t, "0b");
		rd_text_reserve(t, len);
		for (b = len; b-- > 0;) {
			char c = (v >> b) & 1 ? '1' : '0';

			rd_text_put(t, &c, 1);
		}
		return;
	}
	default:
		if (fc->is_signed)
			rd_text_i64(t, (int64_t)v);
		else
			rd_text_u64(t, v);
	}
}

void rd_print_enum(struct rd_text *t, const struct fc *fc, uint64_t v)
{
	uint32_t l, r, n = 0;

	rd_text_lit(t, "( ");
	for (l = 0; l < fc->nlabels; l++) {
		for (r = 0; r < fc->nranges; r++) {
			const struct enum_range *rg = &fc->ranges[r];
			bool in;

			if (rg->label != l)
				continue;
			in = fc->is_signed ?
				(int64_t)v >= rg->lo && (int64_t)v <= rg->hi :
				v >= (uint64_t)rg->lo && v <= (uint64_t)rg->hi;
			if (in)
				break;
		}
		if (r == fc->nranges)
			continue;
		if (n++)
			rd_text_lit(t, ", ");
		rd_text_escaped(t, fc->labels[l], strlen(fc->labels[l]));
	}
	if (!n)
		rd_text_lit(t, "<unknown>");
	rd_text_lit(t, " : container = ");
	rd_print_int(t, fc, v);
	rd_text_lit(t, " )");
}

void rd_print_float(struct rd_text *t, double d)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%g", d);

	if (n > 0)
		rd_text_put(t, tmp, (size_t)n);
}

