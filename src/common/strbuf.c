/* SPDX-License-Identifier: MIT */
/*
 * strbuf.c - a growing string (strbuf.h): TSDL metadata (src/ctf), and any
 * text built piece by piece.
 */
#include "common/strbuf.h"
#include "common/array.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trawl_strbuf_init(struct trawl_strbuf *sb)
{
	memset(sb, 0, sizeof(*sb));
}

static int sb_grow(struct trawl_strbuf *sb, size_t more)
{
	int ret;

	if (sb->err)
		return -1;
	if (more > SIZE_MAX - 1 - sb->len) {
		sb->err = ENOMEM;
		return -1;
	}
	ret = trawl_array_grow((void **)&sb->buf, &sb->cap, sb->len + more + 1, 1, 256);
	if (ret < 0) {
		sb->err = -ret;
		return -1;
	}
	return 0;
}

void trawl_strbuf_add(struct trawl_strbuf *sb, const char *s)
{
	size_t n = strlen(s);

	if (sb_grow(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n + 1);
	sb->len += n;
}

void trawl_strbuf_addf(struct trawl_strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || sb_grow(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

void trawl_strbuf_add_quoted(struct trawl_strbuf *sb, const char *s)
{
	trawl_strbuf_add(sb, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			trawl_strbuf_addf(sb, "\\%c", c);
		else if (c == '\n')
			trawl_strbuf_add(sb, "\\n");
		else if (c == '\t')
			trawl_strbuf_add(sb, "\\t");
		else if (c < 0x20 || c == 0x7f)
			/* Octal, 3 digits: a hex escape would eat a hex digit after it. */
			trawl_strbuf_addf(sb, "\\%03o", c);
		else {
			char one[2] = { (char)c, 0 };

			trawl_strbuf_add(sb, one);
		}
	}
	trawl_strbuf_add(sb, "\"");
}

void trawl_strbuf_indent(struct trawl_strbuf *sb, int depth)
{
	while (depth-- > 0)
		trawl_strbuf_add(sb, "\t");
}

char *trawl_strbuf_detach(struct trawl_strbuf *sb, size_t *len)
{
	char *s;

	if (sb->err || sb_grow(sb, 0)) {
		errno = sb->err ? sb->err : ENOMEM;
		trawl_strbuf_fini(sb);
		return NULL;
	}
	s = sb->buf;
	s[sb->len] = '\0'; /* nothing added yet: the block sb_grow() just made */
	if (len)
		*len = sb->len;
	trawl_strbuf_init(sb);
	return s;
}

void trawl_strbuf_fini(struct trawl_strbuf *sb)
{
	free(sb->buf);
	trawl_strbuf_init(sb);
}
