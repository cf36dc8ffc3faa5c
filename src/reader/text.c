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

#include "reader/decode_int.h"

/* ---- text helpers ---------------------------------------------------- */

void rd_text_reserve_slow(struct rd_text *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 4096;
	char *b;

	if (t->oom)
		return;
	while (cap - t->len < n)
		cap *= 2;
	b = realloc(t->buf, cap);
	if (!b) {
		t->oom = true;
		return;
	}
	t->buf = b;
	t->cap = cap;
}

void rd_text_str(struct rd_text *t, const char *s)
{
	rd_text_put(t, s, strlen(s));
}

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void rd_text_u64(struct rd_text *t, uint64_t v)
{
	char tmp[24];
	char *e = tmp + sizeof(tmp), *p = e;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, digits2 + r * 2, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digits2 + v * 2, 2);
	} else {
		*--p = (char)('0' + v);
	}
	rd_text_put(t, p, (size_t)(e - p));
}

void rd_text_i64(struct rd_text *t, int64_t v)
{
	if (v < 0) {
		rd_text_lit(t, "-");
		rd_text_u64(t, 0 - (uint64_t)v);
	} else {
		rd_text_u64(t, (uint64_t)v);
	}
}

void rd_text_u64_pad(struct rd_text *t, uint64_t v, int width)
{
	char tmp[24];
	int i = (int)sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while ((int)sizeof(tmp) - i < width && i > 0)
		tmp[--i] = '0';
	rd_text_put(t, tmp + i, sizeof(tmp) - (size_t)i);
}

/* babeltrace2's string escaping (print_escape_string), byte for byte. */
void rd_text_escaped(struct rd_text *t, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	rd_text_reserve(t, n + 2);
	rd_text_lit(t, "\"");
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char xb[4];

		if (c >= 0x20 && c != 0x7f && c != '\\' && c != '\'' &&
		    c != '"' && c != '?') {
			run++;
			continue;
		}
		if (run) {
			rd_text_put(t, s + i - run, run);
			run = 0;
		}
		switch (c) {
		case '\\': esc = "\\\\"; break;
		case '\'': esc = "\\'"; break;
		case '"': esc = "\\\""; break;
		case '?': esc = "\\?"; break;
		case '\a': esc = "\\a"; break;
		case '\b': esc = "\\b"; break;
		case 27: esc = "\\e"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\v': esc = "\\v"; break;
		default:
			break;
		}
		if (esc) {
			rd_text_str(t, esc);
		} else {
			xb[0] = '\\';
			xb[1] = 'x';
			xb[2] = hex[c >> 4];
			xb[3] = hex[c & 15];
			rd_text_put(t, xb, 4);
		}
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

