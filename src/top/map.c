/* SPDX-License-Identifier: MIT */
/*
 * The containers of the model: a u64 -> pointer hash map (open addressing,
 * linear probing, deletion by shifting back so no tombstones pile up), an
 * interning table (strings -> dense ids) built on it, and latency samples
 * with an exact nearest-rank percentile (quickselect).
 */
#include "top.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define slot_of trawl_top_map_slot

static int map_grow(struct trawl_top_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	uint64_t *keys = calloc(cap, sizeof(*keys));
	void **vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->vals[i])
			continue;
		for (j = slot_of(m->keys[i], cap); vals[j]; j = (j + 1) & (cap - 1))
			;
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

int trawl_top_map_put(struct trawl_top_map *m, uint64_t key, void *val)
{
	size_t i;

	/* at most 3/4 full, so a probe always ends on an empty slot */
	if ((m->len + 1) * 4 > m->cap * 3 && map_grow(m) < 0)
		return -ENOMEM;
	for (i = slot_of(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key) {
			m->vals[i] = val;
			return 0;
		}
	}
	m->keys[i] = key;
	m->vals[i] = val;
	m->len++;
	return 0;
}

void *trawl_top_map_del(struct trawl_top_map *m, uint64_t key)
{
	size_t i, j;
	void *val;

	if (!m->cap)
		return NULL;
	for (i = slot_of(key, m->cap); m->vals[i]; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == key)
			break;
	if (!m->vals[i])
		return NULL;
	val = m->vals[i];
	m->vals[i] = NULL;
	m->len--;
	/* Shift back the entries after it whose probe passed through slot i. */
	for (j = (i + 1) & (m->cap - 1); m->vals[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = slot_of(m->keys[j], m->cap);

		/* j's entry stays unless its home lies cyclically in (i, j] */
		int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);

		if (!stays) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			m->vals[j] = NULL;
			i = j;
		}
	}
	return val;
}

void trawl_top_map_fini(struct trawl_top_map *m, void (*free_val)(void *))
{
	if (free_val)
		TRAWL_TOP_MAP_FOREACH(m, i)
			free_val(m->vals[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

struct intern_entry {
	struct intern_entry *next;	/* same hash */
	uint32_t id;
};

static uint64_t fnv1a(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

int64_t trawl_top_intern_id(struct trawl_top_intern *in, const char *s, size_t len)
{
	uint64_t h = fnv1a(s, len);
	struct intern_entry *head = trawl_top_map_get(&in->by_hash, h), *e;
	char *copy;

	for (e = head; e; e = e->next) {
		const char *t = in->strs[e->id];

		if (strlen(t) == len && !memcmp(t, s, len))
			return e->id;
	}
	if (in->len == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 256;
		char **strs = realloc(in->strs, cap * sizeof(*strs));

		if (!strs)
			return -ENOMEM;
		in->strs = strs;
		in->cap = cap;
	}
	e = malloc(sizeof(*e));
	copy = strndup(s, len);
	if (!e || !copy || trawl_top_map_put(&in->by_hash, h, e) < 0) {
		free(e);
		free(copy);
		return -ENOMEM;
	}
	e->next = head;
	e->id = (uint32_t)in->len;
	in->strs[in->len++] = copy;
	return e->id;
}

const char *trawl_top_intern_str(const struct trawl_top_intern *in, uint32_t id)
{
	return id < in->len ? in->strs[id] : "?";
}

static void free_chain(void *p)
{
	struct intern_entry *e = p, *next;

	for (; e; e = next) {
		next = e->next;
		free(e);
	}
}

void trawl_top_intern_fini(struct trawl_top_intern *in)
{
	trawl_top_map_fini(&in->by_hash, free_chain);
	for (size_t i = 0; i < in->len; i++)
		free(in->strs[i]);
	free(in->strs);
	memset(in, 0, sizeof(*in));
}

int trawl_top_samples_grow(struct trawl_top_samples *s, uint64_t ns)
{
	size_t cap = s->cap ? s->cap * 2 : 16;
	uint64_t *v = realloc(s->v, cap * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->v = v;
	s->cap = cap;
	s->v[s->len++] = ns;
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
	size_t rank;

	if (!s->len)
		return 0;
	/* nearest rank: the smallest value with at least pct % at or below it */
	rank = (size_t)((pct / 100.0) * (double)s->len + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > s->len)
		rank = s->len;
	select_rank(s->v, s->len, rank - 1);
	return s->v[rank - 1];
}
