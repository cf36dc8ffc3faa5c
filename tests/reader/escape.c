/* SPDX-License-Identifier: MIT */
/*
 * rd_text_escaped() (babeltrace2's string escaping) against a byte-by-byte
 * reference, for every length up to 40 and every byte value at every
 * position of a string of letters: the 8- and 16-byte tests that let
 * clean strings through in one copy must never let a byte needing an
 * escape through, whatever its position (head, overlap, tail).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/stream.h"

static size_t reference(char *out, const unsigned char *s, size_t n)
{
	size_t len = 0, i;

	out[len++] = '"';
	for (i = 0; i < n; i++) {
		unsigned c = s[i];
		const char *e = NULL;
		char hex[8];

		switch (c) {
		case '\a': e = "\\a"; break;
		case '\b': e = "\\b"; break;
		case '\f': e = "\\f"; break;
		case '\n': e = "\\n"; break;
		case '\r': e = "\\r"; break;
		case '\t': e = "\\t"; break;
		case '\v': e = "\\v"; break;
		case 0x1b: e = "\\e"; break;
		case '\\': e = "\\\\"; break;
		case '\'': e = "\\'"; break;
		case '"': e = "\\\""; break;
		case '?': e = "\\?"; break;
		default:
			if (c < 0x20 || c == 0x7f) {
				snprintf(hex, sizeof(hex), "\\x%02x", c);
				e = hex;
			}
		}
		if (e) {
			memcpy(out + len, e, strlen(e));
			len += strlen(e);
		} else {
			out[len++] = (char)c;
		}
	}
	out[len++] = '"';
	return len;
}

int main(void)
{
	unsigned char s[40];
	char want[40 * 4 + 2];
	struct rd_text t = { 0 };
	size_t n, pos, wlen;
	unsigned c, fails = 0;

	for (n = 1; n <= sizeof(s); n++) {
		for (pos = 0; pos < n; pos++) {
			for (c = 1; c < 256; c++) {
				memset(s, 'k', n);
				s[pos] = (unsigned char)c;
				/* the escaped string is not NUL-terminated: a byte after it */
				t.len = 0;
				rd_text_escaped(&t, (const char *)s, n);
				wlen = reference(want, s, n);
				if (t.oom || t.len != wlen || memcmp(t.buf, want, wlen)) {
					if (fails++ < 5)
						fprintf(stderr, "FAIL: length %zu, byte 0x%02x at %zu: %.*s, want %.*s\n",
							n, c, pos, (int)t.len, t.buf, (int)wlen, want);
				}
			}
		}
	}
	free(t.buf);
	if (fails) {
		fprintf(stderr, "%u cases differ\n", fails);
		return 1;
	}
	printf("escape: every byte at every position of strings of 1-40 bytes escaped as the reference\n");
	return 0;
}
