/* SPDX-License-Identifier: MIT */
/*
 * Latency samples with an exact nearest-rank percentile. A row starts with
 * an array of its values; once it holds TRAWL_TOP_SAMPLES_PROMOTE of them,
 * the values below TRAWL_TOP_SAMPLES_COUNTED move to one counter per ns
 * (calloc()'s zero pages: only the counters of the values seen are ever
 * touched) and the array keeps only the larger ones. Every value is still
 * there, so the percentile stays exact: a walk over the counters, or a
 * selection (quickselect) among the larger values.
 */
#include "top.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The values below TRAWL_TOP_SAMPLES_COUNTED go from the array to counters. */
static int promote(struct trawl_top_samples *s)
{
	size_t kept = 0;

	s->counts = calloc(TRAWL_TOP_SAMPLES_COUNTED, sizeof(*s->counts));
	if (!s->counts)
		return -ENOMEM;
	s->lo = UINT64_MAX;
	s->hi = 0;
	for (size_t i = 0; i < s->len; i++) {
		uint64_t ns = s->v[i];

		if (ns >= TRAWL_TOP_SAMPLES_COUNTED) {
			s->v[kept++] = ns;
			continue;
		}
		s->counts[ns]++;
		s->ncounted++;
		s->lo = ns < s->lo ? ns : s->lo;
		s->hi = ns > s->hi ? ns : s->hi;
	}
	s->len = kept;
	return 0;
}

int trawl_top_samples_grow(struct trawl_top_samples *s, uint64_t ns)
{
	size_t cap = s->cap ? s->cap * 2 : 16;
	uint64_t *v;

	if (!s->counts && s->len >= TRAWL_TOP_SAMPLES_PROMOTE && promote(s) == 0) {
		if (s->len < s->cap)
			return trawl_top_samples_add(s, ns);
	}
	v = realloc(s->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->v = v;
	s->cap = cap;
	return trawl_top_samples_add(s, ns);
}

int trawl_top_samples_merge(struct trawl_top_samples *dst, const struct trawl_top_samples *src)
{
	int ret;

	if (src->ncounted) {
		/* counted too: every value counted stays below every value in the array */
		if (!dst->counts && (ret = promote(dst)) < 0)
			return ret;
		for (uint64_t ns = src->lo; ns <= src->hi; ns++)
			dst->counts[ns] += src->counts[ns];
		dst->ncounted += src->ncounted;
		dst->lo = src->lo < dst->lo ? src->lo : dst->lo;
		dst->hi = src->hi > dst->hi ? src->hi : dst->hi;
	}
	for (size_t i = 0; i < src->len; i++)
		if ((ret = trawl_top_samples_add(dst, src->v[i])) < 0)
			return ret;
	return 0;
}

/* Hoare's selection: afterwards v[k] holds the value of rank k. */
static void select_rank(uint64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint64_t pivot = v[lo + (hi - lo) / 2], t;
		size_t i = lo, j = hi;

		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return;
	}
}

uint64_t trawl_top_samples_pct(struct trawl_top_samples *s, double pct)
{
	uint64_t n = s->ncounted + s->len, rank, seen = 0;

	if (!n)
		return 0;
	/* nearest rank: the smallest value with at least pct % at or below it */
	rank = (uint64_t)((pct / 100.0) * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	if (rank <= s->ncounted) {
		/* every counted value is below every value of the array */
		for (uint64_t ns = s->lo; ns <= s->hi; ns++) {
			seen += s->counts[ns];
			if (seen >= rank)
				return ns;
		}
	}
	rank -= s->ncounted;
	select_rank(s->v, s->len, (size_t)rank - 1);
	return s->v[rank - 1];
}

void trawl_top_samples_reset(struct trawl_top_samples *s)
{
	if (s->counts && s->ncounted < TRAWL_TOP_SAMPLES_PROMOTE / 8) {
		free(s->counts);	/* few values now: the array is enough */
		s->counts = NULL;
	} else if (s->counts) {
		memset(&s->counts[s->lo], 0, (size_t)(s->hi - s->lo + 1) * sizeof(*s->counts));
	}
	s->ncounted = 0;
	s->lo = UINT64_MAX;
	s->hi = 0;
	if (s->cap > 4096 && s->len < s->cap / 4) {
		free(s->v);	/* far more than it needs now */
		s->v = NULL;
		s->cap = 0;
	}
	s->len = 0;
}

void trawl_top_samples_fini(struct trawl_top_samples *s)
{
	free(s->v);
	free(s->counts);
	memset(s, 0, sizeof(*s));
}
