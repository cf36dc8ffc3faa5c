/* SPDX-License-Identifier: MIT */
/*
 * tl_lod.c - the timeline's levels of detail (tl_lod.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "tl_lod.h"

void tl_lod_init(struct tl_lod *d, size_t budget)
{
	memset(d, 0, sizeof(*d));
	d->budget = budget;
}

static void lane_level_free(struct tl_lane *l, int lv)
{
	free(l->lv[lv].v);
	memset(&l->lv[lv], 0, sizeof(l->lv[lv]));
}

void tl_lod_fini(struct tl_lod *d)
{
	size_t i;
	int lv;

	for (i = 0; i < d->nlanes; i++) {
		for (lv = 0; lv < TL_LEVELS; lv++)
			lane_level_free(d->lanes[i], lv);
		free(d->lanes[i]->pend.data);
		free(d->lanes[i]);
	}
	free(d->lanes);
	for (lv = 0; lv < TL_LEVELS; lv++)
		free(d->det[lv].data);
	memset(d, 0, sizeof(*d));
}

struct tl_lane *tl_lod_lane(struct tl_lod *d, enum tl_lane_kind kind, int64_t id, uint32_t sub)
{
	struct tl_lane *l;

	if (d->nlanes == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		void *n = realloc(d->lanes, cap * sizeof(*d->lanes));

		if (!n)
			return NULL;
		d->lanes = n;
		d->cap = cap;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->kind = kind;
	l->id = id;
	l->sub = sub;
	d->lanes[d->nlanes++] = l;
	return l;
}

bool tl_lod_opens(const struct tl_lod *d, const struct tl_lane *l, int64_t t0)
{
	const struct tl_vec *v;
	int s;

	if (d->finest >= TL_LEVELS)
		return false;
	v = &l->lv[d->finest];
	s = TL_LEVEL_SHIFT(d->finest);
	return !v->n || (t0 >> s) != (v->v[v->n - 1].t0 >> s);
}

/*
 * Level @lv went over the budget: it and every finer level are gone (the
 * finer ones already are). The coarsest level is never dropped, so that
 * the page always shows the whole trace.
 */
static void level_drop(struct tl_lod *d, int lv)
{
	size_t i;

	for (i = 0; i < d->nlanes; i++)
		lane_level_free(d->lanes[i], lv);
	free(d->det[lv].data);
	memset(&d->det[lv], 0, sizeof(d->det[lv]));
	d->count[lv] = 0;
	d->finest = lv + 1;
}

/*
 * @it merges into the last item of every level from @from on (the levels
 * are nested: tl_lod.h). One loop per kind of lane, so that the common
 * case, a mark or a slice, costs a few instructions a level.
 */
static void merge_from(struct tl_lane *l, int from, const struct tl_item *it)
{
	int lv;

	for (lv = from; lv < TL_LEVELS; lv++) {
		struct tl_item *c = &l->lv[lv].v[l->lv[lv].n - 1];

		if (it->t1 > c->t1)
			c->t1 = it->t1;
		c->n += c->n < 0x7fffffff;
		c->mixed |= it->name != c->name;
		if (l->kind == TL_LANE_CTR) {
			c->v = it->v;
			c->lo = it->v < c->lo ? it->v : c->lo;
			c->hi = it->v > c->hi ? it->v : c->hi;
		} else if (l->kind == TL_LANE_CPU && it->t1 - it->t0 > c->lo) {
			/* the run shown for a bucket is its longest one */
			c->lo = it->t1 - it->t0;
			c->v = it->v;
			c->name = it->name;
		}
	}
}

static int item_push(struct tl_lod *d, struct tl_lane *l, int lv, const struct tl_item *it,
		     const char *detail, size_t dlen)
{
	struct tl_vec *v = &l->lv[lv];
	struct tl_item *c;

	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		void *n = realloc(v->v, cap * sizeof(*v->v));

		if (!n)
			return -ENOMEM;
		v->v = n;
		v->cap = cap;
	}
	c = &v->v[v->n++];
	*c = *it;
	c->n = 1;
	c->mixed = 0;
	c->dlen = 0;
	if (l->kind == TL_LANE_CTR) {
		c->lo = c->hi = c->v;
	} else if (l->kind == TL_LANE_CPU) {
		c->lo = it->t1 - it->t0;
	}
	if (detail && dlen && dlen <= TL_DETAIL_MAX && d->det[lv].len < UINT32_MAX - dlen) {
		if (jsonw_raw(&d->det[lv], detail, dlen))
			return -ENOMEM;
		c->doff = (uint32_t)(d->det[lv].len - dlen);
		c->dlen = (uint32_t)dlen;
	}
	d->count[lv]++;
	return 0;
}

int tl_lod_add(struct tl_lod *d, struct tl_lane *l, const struct tl_item *it,
	       const char *detail, size_t dlen)
{
	int lv, ret;

	for (lv = d->finest; lv < TL_LEVELS; lv++) {
		struct tl_vec *v = &l->lv[lv];
		int s = TL_LEVEL_SHIFT(lv);

		if (v->n && (it->t0 >> s) == (v->v[v->n - 1].t0 >> s)) {
			merge_from(l, lv, it);
			return 0;
		}
		ret = item_push(d, l, lv, it, detail, dlen);
		if (ret)
			return ret;
		if (d->count[lv] > d->budget && lv < TL_LEVELS - 1)
			level_drop(d, lv);
	}
	return 0;
}

int tl_lod_pick(const struct tl_lod *d, int *out)
{
	int lv, n = 0;
	size_t last = 0;

	for (lv = d->finest; lv < TL_LEVELS; lv++) {
		if (n && d->count[lv] * 2 > last)
			continue;
		out[n++] = lv;
		last = d->count[lv];
	}
	return n;
}
