/* SPDX-License-Identifier: MIT */
/* A small growing string for TSDL generation. */
#include "ctf/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(struct strbuf *sb)
{
	memset(sb, 0, sizeof(*sb));
}

static int sb_grow(struct strbuf *sb, size_t more)
{
	size_t cap;
	char *p;

	if (sb->err)
		return -1;
	if (sb->len + more + 1 <= sb->cap)
		return 0;
	cap = sb->cap ? sb->cap : 256;
	while (cap < sb->len + more + 1)
		cap *= 2;
	p = realloc(sb->buf, cap);
	if (!p) {
		sb->err = ENOMEM;
		return -1;
	}
	sb->buf = p;
	sb->cap = cap;
	return 0;
}

void sb_add(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);

	if (sb_grow(sb, n))
		return;
	memcpy(sb->buf + sb->len, s, n + 1);
	sb->len += n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
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

/* A TSDL string literal: escapes the backslash, the quote and control bytes. */
void sb_add_quoted(struct strbuf *sb, const char *s)
{
	sb_add(sb, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			sb_addf(sb, "\\%c", c);
		else if (c == '\n')
			sb_add(sb, "\\n");
		else if (c == '\t')
			sb_add(sb, "\\t");
		else if (c < 0x20 || c == 0x7f)
			/* Octal, 3 digits: a hex escape would eat a hex digit after it. */
			sb_addf(sb, "\\%03o", c);
		else {
			char one[2] = { (char)c, 0 };

			sb_add(sb, one);
		}
	}
	sb_add(sb, "\"");
}

void sb_indent(struct strbuf *sb, int depth)
{
	while (depth-- > 0)
		sb_add(sb, "\t");
}

char *sb_detach(struct strbuf *sb, size_t *len)
{
	char *s;

	if (sb->err || sb_grow(sb, 0)) {
		errno = sb->err ? sb->err : ENOMEM;
		sb_fini(sb);
		return NULL;
	}
	s = sb->buf;
	if (len)
		*len = sb->len;
	sb_init(sb);
	return s;
}

void sb_fini(struct strbuf *sb)
{
	free(sb->buf);
	sb_init(sb);
}
