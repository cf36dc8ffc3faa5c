/* SPDX-License-Identifier: MIT */
/*
 * The reader's decimal writers (text.h) against printf: rd_text_u64(),
 * rd_text_i64() and rd_write_9digits() for every power of ten and its
 * neighbours, every digit count, the 64-bit extremes and a few million
 * pseudo-random values of every magnitude. The word-at-a-time writers
 * store 8 bytes at a time: each result is checked for its length too, and
 * that the byte after it (a sentinel written after the call) is intact.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/stream.h"

static unsigned fails;

static void check(const char *what, const char *got, size_t glen, const char *want)
{
	size_t wlen = strlen(want);

	if (glen != wlen || memcmp(got, want, wlen)) {
		if (fails++ < 10)
			fprintf(stderr, "FAIL: %s: got '%.*s' (%zu bytes), want '%s'\n", what,
				(int)glen, got, glen, want);
	}
}

static void check_u64(struct rd_text *t, uint64_t v)
{
	char want[32];

	/* text before it: the writer appends at any offset, not only at 0 */
	t->len = 0;
	rd_text_lit(t, "x=");
	rd_text_u64(t, v);
	snprintf(want, sizeof(want), "x=%" PRIu64, v);
	check("u64", t->buf, t->len, want);
	t->len = 0;
	rd_text_i64(t, (int64_t)v);
	snprintf(want, sizeof(want), "%" PRId64, (int64_t)v);
	check("i64", t->buf, t->len, want);
	if (v < 1000000000u) {
		char d[16];

		memset(d, '#', sizeof(d));
		rd_write_9digits(d, (uint32_t)v);
		snprintf(want, sizeof(want), "%09" PRIu64, v);
		check("9 digits", d, 9, want);
		/* rd_write_9digits() writes nine bytes, not one more */
		if (d[9] != '#' && fails++ < 10)
			fprintf(stderr, "FAIL: 9 digits of %" PRIu64 " wrote past the ninth byte\n", v);
	}
}

int main(void)
{
	struct rd_text t = { 0 };
	uint64_t p, x = 0x9e3779b97f4a7c15ULL, n = 0;
	int i, k;

	for (p = 1;; p *= 10) {
		for (k = -3; k <= 3; k++) {
			check_u64(&t, p + (uint64_t)k);
			check_u64(&t, 2 * p + (uint64_t)k);
			check_u64(&t, 9 * p + (uint64_t)k);
			n += 3;
		}
		if (p > UINT64_MAX / 10)
			break;
	}
	check_u64(&t, 0);
	check_u64(&t, UINT64_MAX);
	check_u64(&t, (uint64_t)INT64_MAX);
	check_u64(&t, (uint64_t)INT64_MIN);
	for (i = 0; i < 3000000; i++) {
		/* xorshift64*, shifted to spread the values over every digit count */
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		check_u64(&t, (x * 0x2545f4914f6cdd1dULL) >> (i % 64));
		n++;
	}
	if (t.oom)
		fails++;
	free(t.buf);
	if (fails) {
		fprintf(stderr, "%u values written wrong\n", fails);
		return 1;
	}
	printf("digits: %" PRIu64 " values as printf writes them (u64, i64, 9 digits)\n", n + 4);
	return 0;
}
