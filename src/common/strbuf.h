/* SPDX-License-Identifier: MIT */
/*
 * strbuf.h - a growing NUL-terminated string. An allocation failure is
 * remembered (err) and every later call does nothing, so a builder checks
 * once, at trawl_strbuf_detach(), instead of after each piece.
 *
 *	struct trawl_strbuf sb;
 *	trawl_strbuf_init(&sb);
 *	trawl_strbuf_addf(&sb, "stream %u {\n", id);
 *	text = trawl_strbuf_detach(&sb, &len);   // caller frees; NULL: ENOMEM
 */
#ifndef TRAWL_COMMON_STRBUF_H
#define TRAWL_COMMON_STRBUF_H

#include <stddef.h>

struct trawl_strbuf {
	char *buf;     /* owned; NULL until the first byte */
	size_t len;    /* bytes, the NUL not counted */
	size_t cap;    /* bytes allocated */
	int err;       /* errno of the first failure, else 0 */
};

void trawl_strbuf_init(struct trawl_strbuf *sb);
void trawl_strbuf_add(struct trawl_strbuf *sb, const char *s);
void trawl_strbuf_addf(struct trawl_strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* @s as a C (and TSDL) string literal: quotes, backslash and control bytes escaped. */
void trawl_strbuf_add_quoted(struct trawl_strbuf *sb, const char *s);
/* @depth tabs. */
void trawl_strbuf_indent(struct trawl_strbuf *sb, int depth);
/* Takes the string out of @sb (caller frees; "" when nothing was added), or
 * NULL with errno set after a failure; @sb is empty again either way. */
char *trawl_strbuf_detach(struct trawl_strbuf *sb, size_t *len);
void trawl_strbuf_fini(struct trawl_strbuf *sb);

#endif /* TRAWL_COMMON_STRBUF_H */
