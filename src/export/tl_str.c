/* SPDX-License-Identifier: MIT */
/*
 * tl_str.c - the timeline's string table (tl_str.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tl_str.h"

void tl_str_fini(struct tl_str *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->idx);
	memset(t, 0, sizeof(*t));
}

static uint64_t fnv(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static int grow(struct tl_str *t)
{
	size_t cap = t->capidx ? t->capidx * 2 : 256, i;
	uint32_t *x = calloc(cap, sizeof(*x));

	if (!x)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		size_t h = fnv(t->s[i], strlen(t->s[i])) & (cap - 1);

		while (x[h])
			h = (h + 1) & (cap - 1);
		x[h] = (uint32_t)i + 1;
	}
	free(t->idx);
	t->idx = x;
	t->capidx = cap;
	return 0;
}

static int lookup(struct tl_str *t, const char *s, size_t len, uint32_t *id)
{
	size_t h;
	char *c;

	if ((t->n + 1) * 2 > t->capidx && grow(t))
		return -ENOMEM;
	for (h = fnv(s, len) & (t->capidx - 1); t->idx[h]; h = (h + 1) & (t->capidx - 1)) {
		const char *o = t->s[t->idx[h] - 1];

		if (!strncmp(o, s, len) && !o[len]) {
			*id = t->idx[h] - 1;
			return 0;
		}
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		void *n = realloc(t->s, cap * sizeof(*t->s));

		if (!n)
			return -ENOMEM;
		t->s = n;
		t->cap = cap;
	}
	c = strndup(s, len);
	if (!c)
		return -ENOMEM;
	t->s[t->n] = c;
	t->idx[h] = (uint32_t)++t->n;
	*id = (uint32_t)t->n - 1;
	return 0;
}

int tl_str_id(struct tl_str *t, const char *s, size_t len, int stable, uint32_t *id)
{
	size_t slot = ((uintptr_t)s >> 3) & (TL_STR_CACHE - 1);
	int ret;

	if (stable && t->cache[slot].p == s) {
		*id = t->cache[slot].id;
		return 0;
	}
	/* a NUL inside a name would cut it short in the page: keep what is before */
	len = strnlen(s, len);
	ret = lookup(t, s, len, id);
	if (!ret && stable) {
		t->cache[slot].p = s;
		t->cache[slot].id = *id;
	}
	return ret;
}
