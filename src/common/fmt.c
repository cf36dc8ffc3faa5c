/* SPDX-License-Identifier: MIT */
/*
 * fmt.c - snprintf() that says when it cut (common.h): trawl_path_fmt()
 * refuses a cut path or name, trawl_msg_fmt() marks a cut message; and
 * trawl_str_printable() for text of someone else's shown on a terminal.
 * tests/lint/snprintf.py keeps a bare snprintf() from coming back.
 */
#include "common/common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int trawl_path_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!len)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len) {
		buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return 0;
}

int trawl_msg_fmt(char *buf, size_t len, const char *fmt, ...)
{
	static const char cut[] = "...";
	va_list ap;
	int n;

	if (!len)
		return 1;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[0] = '\0';
		return 1;
	}
	if ((size_t)n < len)
		return 0;
	/* Too small for the mark too: the cut text is all there is room for. */
	if (len > sizeof(cut))
		memcpy(buf + len - sizeof(cut), cut, sizeof(cut));
	return 1;
}

/* The length of the UTF-8 sequence at @p whose code point is printable
 * (not C1, not a surrogate, not overlong), or 0. */
static size_t utf8_printable_len(const unsigned char *p)
{
	uint32_t cp;
	size_t n, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1fu;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0fu;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07u;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	if (cp < 0xa0 || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* The length of the printable character at @p (ASCII or UTF-8), or 0. */
static size_t printable_len(const unsigned char *p)
{
	if (*p >= 0x20 && *p < 0x7f)
		return 1;
	return *p >= 0x80 ? utf8_printable_len(p) : 0;
}

char *trawl_str_printable(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n = printable_len(p);

		if (n)
			p += n;
		else
			*p++ = '?';
	}
	return s;
}

const char *trawl_str_unprintable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p && (n = printable_len(p)))
		p += n;
	return *p ? (const char *)p : NULL;
}
