/* SPDX-License-Identifier: MIT */
/*
 * tl_str.h - the timeline's string table: each name once, by number.
 * Strings are copied in (the reader's names are the reader's); a small
 * cache keyed by the caller's pointer skips hashing the text when the same
 * pointer (an event class's name) comes again.
 */
#ifndef TRAWL_EXPORT_TL_STR_H
#define TRAWL_EXPORT_TL_STR_H

#include <stddef.h>
#include <stdint.h>

#define TL_STR_CACHE 256

struct tl_str {
	char **s;		/* owned, each owned */
	size_t n, cap;
	uint32_t *idx;		/* open addressing: id + 1, 0 empty */
	size_t capidx;
	struct {
		const char *p;
		uint32_t id;
	} cache[TL_STR_CACHE];
};

void tl_str_fini(struct tl_str *t);
/* The id of @s (@len bytes); *@id. 0 or -ENOMEM. @stable: @s lives as
 * long as the table may be asked for it again (it can be cached). */
int tl_str_id(struct tl_str *t, const char *s, size_t len, int stable, uint32_t *id);

#endif /* TRAWL_EXPORT_TL_STR_H */
