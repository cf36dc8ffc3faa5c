/* SPDX-License-Identifier: MIT */
/*
 * The containers of the model: a u64 -> pointer hash map (open addressing,
 * linear probing, deletion by shifting back so no tombstones pile up) and
 * an interning table (strings -> dense ids) built on it.
 */
#include "top.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define slot_of trawl_top_map_slot

/* Puts @key, @val in arrays of @cap slots where a probe finds it (no equal key there). */
static void slot_put(uint64_t *keys, void **vals, size_t cap, uint64_t key, void *val)
{
	size_t j;

	for (j = slot_of(key, cap); vals[j]; j = (j + 1) & (cap - 1))
		;
	keys[j] = key;
	vals[j] = val;
}

/* The arrays of @m moved to @keys and @vals (freed before). */
static void slots_replace(struct trawl_top_map *m, uint64_t *keys, void **vals)
{
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
}

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
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			slot_put(keys, vals, cap, m->keys[i], m->vals[i]);
	slots_replace(m, keys, vals);
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

int64_t trawl_top_map_prune(struct trawl_top_map *m, int (*keep)(void *val, void *arg),
			    void *arg)
{
	uint64_t *keys;
	void **vals;
	int64_t gone = 0;

	if (!m->len)
		return 0;
	/* the ones kept into new arrays, where a probe finds them */
	keys = calloc(m->cap, sizeof(*keys));
	vals = calloc(m->cap, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	TRAWL_TOP_MAP_FOREACH(m, i) {
		if (!keep(m->vals[i], arg)) {
			gone++;
			continue;
		}
		slot_put(keys, vals, m->cap, m->keys[i], m->vals[i]);
	}
	slots_replace(m, keys, vals);
	m->len -= (size_t)gone;
	return gone;
}

struct intern_entry {
	struct intern_entry *next;	/* same hash */
	uint32_t id;
};

/*
 * A string's hash, eight bytes at a time (paths are interned per open*()
 * call: a byte at a time was most of what interning one cost).
 */
static uint64_t str_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, s + i, len - i);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	return h;
}

int64_t trawl_top_intern_id(struct trawl_top_intern *in, const char *s, size_t len)
{
	uint64_t h = str_hash(s, len);
	struct intern_entry *head = trawl_top_map_get(&in->by_hash, h), *e;
	char *copy;

	for (e = head; e; e = e->next)
		if (in->lens[e->id] == len && !memcmp(in->strs[e->id], s, len))
			return e->id;
	if (in->len == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 256;
		char **strs = realloc(in->strs, cap * sizeof(*strs));
		size_t *lens;

		if (!strs)
			return -ENOMEM;
		in->strs = strs;
		lens = realloc(in->lens, cap * sizeof(*lens));
		if (!lens)
			return -ENOMEM;
		in->lens = lens;
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
	in->lens[in->len] = strlen(copy);	/* a NUL within @len ends it */
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
	free(in->lens);
	memset(in, 0, sizeof(*in));
}
