/* SPDX-License-Identifier: MIT */
/*
 * fmt.c - snprintf() that says when it cut (common.h): trawl_path_fmt()
 * refuses a cut path or name, trawl_msg_fmt() marks a cut message.
 * tests/lint/snprintf.py keeps a bare snprintf() from coming back.
 */
#include "common/common.h"

#include <errno.h>
#include <stdarg.h>
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
