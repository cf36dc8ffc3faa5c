/* SPDX-License-Identifier: MIT */
/*
 * src/top/samples.c: the nearest-rank percentiles of latency samples are
 * exact (the same value as sorting them all), with values kept in the
 * array, counted per ns, or both; across resets (a row's next interval);
 * at the edges (one value, 0, values at and around the counted limit);
 * merged, the values of several rows in one. And src/top/map.c's prune:
 * the entries kept are found, the others gone.
 */
#include "top.h"
#include "../lib/check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The nearest rank of @pct among @n sorted values, as the tests' oracle computes it. */
static uint64_t oracle(uint64_t *v, size_t n, unsigned int pct)
{
	size_t rank = (pct * n + 99) / 100;

	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(rank ? rank : 1) - 1];
}

/* A value of distribution @kind, the @i-th of @n. */
static uint64_t value(int kind, size_t i, size_t n)
{
	switch (kind) {
	case 0: return 300 + next() % 700;	/* a fast call: all counted */
	case 1: return next() % 200000;		/* across the counted limit */
	case 2: return i < n / 2 ? 5000000 + next() % 1000 : 400 + next() % 10;	/* slow, then fast */
	case 3: return i < n / 2 ? 400 : 1000000000ull + i;	/* fast, then slow */
	case 4: return TRAWL_TOP_SAMPLES_COUNTED - 2 + next() % 4;	/* at the limit */
	case 5: return n - i;			/* decreasing */
	default: return next() % 4 ? 500 : next();	/* outliers up to 2^64 */
	}
}

static void check_kind(int kind, size_t n, struct trawl_top_samples *s)
{
	static const unsigned int pcts[] = { 99, 50, 1, 100, 90 };
	uint64_t *v = malloc(n * sizeof(*v));

	if (!v)
		abort();
	for (size_t i = 0; i < n; i++) {
		v[i] = value(kind, i, n);
		CHECK(trawl_top_samples_add(s, v[i]) == 0);
	}
	for (size_t p = 0; p < sizeof(pcts) / sizeof(pcts[0]); p++) {
		uint64_t want = oracle(v, n, pcts[p]), got = trawl_top_samples_pct(s, pcts[p]);

		if (got != want)
			fprintf(stderr, "kind %d n %zu p%u: %llu, want %llu\n", kind, n, pcts[p],
				(unsigned long long)got, (unsigned long long)want);
		CHECK(got == want);
	}
	free(v);
}

/*
 * trawl_top_samples_merge() (the calls view's row of all processes): rows
 * of kinds @ka and @kb, @na and @nb values, into @dst holding @nd of kind
 * 0 already, give the percentiles of all the values together.
 */
static void check_merge(int ka, size_t na, int kb, size_t nb, size_t nd,
			struct trawl_top_samples *dst)
{
	static const unsigned int pcts[] = { 99, 50, 1, 100 };
	struct trawl_top_samples a = { 0 }, b = { 0 };
	size_t n = na + nb + nd, k = 0;
	uint64_t *v = malloc(n * sizeof(*v));

	if (!v)
		abort();
	for (size_t i = 0; i < nd; i++, k++) {
		v[k] = value(0, i, nd);
		CHECK(trawl_top_samples_add(dst, v[k]) == 0);
	}
	for (size_t i = 0; i < na; i++, k++) {
		v[k] = value(ka, i, na);
		CHECK(trawl_top_samples_add(&a, v[k]) == 0);
	}
	for (size_t i = 0; i < nb; i++, k++) {
		v[k] = value(kb, i, nb);
		CHECK(trawl_top_samples_add(&b, v[k]) == 0);
	}
	CHECK(trawl_top_samples_merge(dst, &a) == 0);
	CHECK(trawl_top_samples_merge(dst, &b) == 0);
	for (size_t p = 0; p < sizeof(pcts) / sizeof(pcts[0]) && n; p++) {
		uint64_t want = oracle(v, n, pcts[p]), got = trawl_top_samples_pct(dst, pcts[p]);

		if (got != want)
			fprintf(stderr, "merge %d/%zu %d/%zu +%zu p%u: %llu, want %llu\n", ka,
				na, kb, nb, nd, pcts[p], (unsigned long long)got,
				(unsigned long long)want);
		CHECK(got == want);
	}
	/* the rows merged are as they were */
	CHECK(a.len + a.ncounted == na && b.len + b.ncounted == nb);
	trawl_top_samples_fini(&a);
	trawl_top_samples_fini(&b);
	free(v);
}

static int keep_even(void *val, void *arg)
{
	(void)arg;
	return !((uintptr_t)val & 1);
}

int main(void)
{
	static const size_t sizes[] = { 1, 2, 100, 8191, 8192, 8193, 20000, 300000 };
	struct trawl_top_samples s = { 0 };
	struct trawl_top_map m = { 0 };

	CHECK(trawl_top_samples_pct(&s, 99) == 0);
	for (int kind = 0; kind < 7; kind++) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			/* a row's intervals one after the other: emptied, not freed */
			check_kind(kind, sizes[i], &s);
			trawl_top_samples_reset(&s);
			CHECK(trawl_top_samples_pct(&s, 99) == 0);
		}
		/* big, then small, then big again: the memory shrinks and grows back */
		check_kind(kind, 300000, &s);
		trawl_top_samples_reset(&s);
		check_kind(kind, 10, &s);
		trawl_top_samples_reset(&s);
		check_kind(kind, 50000, &s);
		trawl_top_samples_fini(&s);
	}

	/* merged: arrays into arrays, counters into arrays and counters, into an emptied row */
	for (int ka = 0; ka < 7; ka++) {
		static const size_t na[] = { 0, 1, 100, 8192, 20000 }, nd[] = { 0, 5, 9000 };

		for (size_t i = 0; i < sizeof(na) / sizeof(na[0]); i++) {
			for (size_t j = 0; j < sizeof(nd) / sizeof(nd[0]); j++) {
				check_merge(ka, na[i], (ka + 3) % 7, na[(i + j) % 5], nd[j], &s);
				trawl_top_samples_reset(&s);
			}
		}
	}
	trawl_top_samples_fini(&s);

	for (uintptr_t k = 1; k <= 1000; k++)
		CHECK(trawl_top_map_put(&m, k * 7919, (void *)k) == 0);
	CHECK(trawl_top_map_prune(&m, keep_even, NULL) == 500);
	CHECK(m.len == 500);
	for (uintptr_t k = 1; k <= 1000; k++)
		CHECK(trawl_top_map_get(&m, k * 7919) == (k & 1 ? NULL : (void *)k));
	CHECK(trawl_top_map_prune(&m, keep_even, NULL) == 0);
	trawl_top_map_fini(&m, NULL);
	return CHECK_EXIT();
}
