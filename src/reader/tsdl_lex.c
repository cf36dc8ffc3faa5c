/* SPDX-License-Identifier: MIT */
/*
 * TSDL lexer. Comments (block and line), whitespace (CR included, so CRLF
 * metadata reads like LF metadata), identifiers, integer literals (decimal,
 * octal, hexadecimal, with u/l suffixes; overflow is flagged, not wrapped),
 * string and character literals with C escapes, and punctuators.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "common/common.h"
#include "reader/tsdl_lex.h"

void lex_init(struct lexer *lx, const char *text, size_t len)
{
	memset(lx, 0, sizeof(*lx));
	lx->text = text;
	lx->len = len;
}

void lex_fini(struct lexer *lx)
{
	free(lx->tok.s);
	lx->tok.s = NULL;
}

bool tok_is_id(const struct tok *t, const char *s)
{
	return t->type == TOK_ID && strlen(s) == t->len &&
	       memcmp(t->start, s, t->len) == 0;
}

bool tok_is_punct(const struct tok *t, int p)
{
	return t->type == TOK_PUNCT && t->p == p;
}

unsigned lex_line(const struct lexer *lx, size_t off)
{
	unsigned line = 1;
	size_t i;

	for (i = 0; i < off && i < lx->len; i++)
		if (lx->text[i] == '\n')
			line++;
	return line;
}

static int peekc(const struct lexer *lx, size_t k)
{
	return lx->pos + k < lx->len ? (unsigned char)lx->text[lx->pos + k] : -1;
}

static void skip_space_and_comments(struct lexer *lx)
{
	for (;;) {
		int c = peekc(lx, 0);

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		    c == '\f' || c == '\v') {
			lx->pos++;
		} else if (c == '/' && peekc(lx, 1) == '*') {
			const char *end;

			lx->pos += 2;
			end = lx->pos < lx->len ?
				memmem(lx->text + lx->pos, lx->len - lx->pos, "*/", 2) :
				NULL;
			lx->pos = end ? (size_t)(end - lx->text) + 2 : lx->len;
		} else if (c == '/' && peekc(lx, 1) == '/') {
			while (lx->pos < lx->len && lx->text[lx->pos] != '\n')
				lx->pos++;
		} else {
			return;
		}
	}
}

static enum tok_type lex_error(struct lexer *lx, const char *what)
{
	lx->tok.type = TOK_ERROR;
	lx->tok.error = what;
	return TOK_ERROR;
}

/* Reads one possibly escaped character of a string or char literal. */
static int lex_char(struct lexer *lx, int *out)
{
	int c = peekc(lx, 0), v, n;

	if (c < 0)
		return -1;
	lx->pos++;
	if (c != '\\') {
		*out = c;
		return 0;
	}
	c = peekc(lx, 0);
	if (c < 0)
		return -1;
	lx->pos++;
	switch (c) {
	case 'n': *out = '\n'; return 0;
	case 't': *out = '\t'; return 0;
	case 'r': *out = '\r'; return 0;
	case 'a': *out = '\a'; return 0;
	case 'b': *out = '\b'; return 0;
	case 'f': *out = '\f'; return 0;
	case 'v': *out = '\v'; return 0;
	case 'e': *out = 27; return 0;
	case '\\': case '\'': case '"': case '?':
		*out = c;
		return 0;
	case 'x':
		v = 0;
		for (n = 0; n < 2 && trawl_hexval(peekc(lx, 0)) >= 0; n++, lx->pos++)
			v = v * 16 + trawl_hexval(peekc(lx, 0));
		if (n == 0)
			return -1;
		*out = v;
		return 0;
	default:
		if (c >= '0' && c <= '7') {
			v = c - '0';
			for (n = 1; n < 3 && peekc(lx, 0) >= '0' &&
				    peekc(lx, 0) <= '7'; n++, lx->pos++)
				v = v * 8 + (peekc(lx, 0) - '0');
			*out = v & 0xff;
			return 0;
		}
		return -1;
	}
}

static enum tok_type lex_string(struct lexer *lx)
{
	size_t cap = 0, n = 0;
	char *s = NULL;
	int c;

	if (trawl_array_grow((void **)&s, &cap, 16, 1, 16))
		return lex_error(lx, "out of memory");
	lx->pos++;	/* opening quote */
	for (;;) {
		if (peekc(lx, 0) < 0) {
			free(s);
			return lex_error(lx, "unterminated string literal");
		}
		if (peekc(lx, 0) == '"') {
			lx->pos++;
			break;
		}
		if (peekc(lx, 0) == '\n') {
			free(s);
			return lex_error(lx, "newline in string literal");
		}
		if (lex_char(lx, &c) < 0) {
			free(s);
			return lex_error(lx, "invalid escape sequence in string literal");
		}
		if (trawl_array_grow((void **)&s, &cap, n + 2, 1, 16)) {
			free(s);
			return lex_error(lx, "out of memory");
		}
		s[n++] = (char)c;
	}
	s[n] = '\0';
	lx->tok.s = s;
	lx->tok.type = TOK_STR;
	return TOK_STR;
}

static enum tok_type lex_number(struct lexer *lx)
{
	uint64_t v = 0;
	int base = 10, d;
	bool ovf = false, any = false;

	if (peekc(lx, 0) == '0' && (peekc(lx, 1) == 'x' || peekc(lx, 1) == 'X')) {
		base = 16;
		lx->pos += 2;
	} else if (peekc(lx, 0) == '0') {
		base = 8;
	}
	for (;;) {
		int c = peekc(lx, 0);

		d = trawl_hexval(c);
		if (d < 0 || d >= base) {
			if (base == 8 && (c == '8' || c == '9'))
				return lex_error(lx, "invalid octal literal");
			break;
		}
		any = true;
		if (__builtin_mul_overflow(v, (uint64_t)base, &v) ||
		    __builtin_add_overflow(v, (uint64_t)d, &v))
			ovf = true;
		lx->pos++;
	}
	if (!any)
		return lex_error(lx, "invalid integer literal");
	while (peekc(lx, 0) == 'u' || peekc(lx, 0) == 'U' ||
	       peekc(lx, 0) == 'l' || peekc(lx, 0) == 'L')
		lx->pos++;
	if (peekc(lx, 0) >= 0 && (isalnum(peekc(lx, 0)) || peekc(lx, 0) == '_'))
		return lex_error(lx, "invalid integer literal");
	lx->tok.type = TOK_INT;
	lx->tok.u = v;
	lx->tok.overflow = ovf;
	return TOK_INT;
}

enum tok_type lex_next(struct lexer *lx)
{
	int c;

	free(lx->tok.s);
	memset(&lx->tok, 0, sizeof(lx->tok));
	skip_space_and_comments(lx);
	lx->tok.off = lx->pos;
	lx->tok.start = lx->text + lx->pos;
	c = peekc(lx, 0);
	if (c < 0) {
		lx->tok.type = TOK_EOF;
		return TOK_EOF;
	}
	if (c == '\0')
		return lex_error(lx, "NUL byte in metadata text");
	if (isalpha(c) || c == '_') {
		while (peekc(lx, 0) >= 0 &&
		       (isalnum(peekc(lx, 0)) || peekc(lx, 0) == '_'))
			lx->pos++;
		lx->tok.type = TOK_ID;
		lx->tok.len = lx->pos - lx->tok.off;
		return TOK_ID;
	}
	if (isdigit(c))
		return lex_number(lx);
	if (c == '"')
		return lex_string(lx);
	if (c == '\'') {
		int v;

		lx->pos++;
		if (lex_char(lx, &v) < 0 || peekc(lx, 0) != '\'')
			return lex_error(lx, "invalid character literal");
		lx->pos++;
		lx->tok.type = TOK_CHAR;
		lx->tok.u = (uint64_t)v;
		return TOK_CHAR;
	}
	lx->tok.type = TOK_PUNCT;
	if (c == ':' && peekc(lx, 1) == '=') {
		lx->pos += 2;
		lx->tok.p = 'A';
	} else if (c == '.' && peekc(lx, 1) == '.' && peekc(lx, 2) == '.') {
		lx->pos += 3;
		lx->tok.p = 'E';
	} else if (c == '-' && peekc(lx, 1) == '>') {
		lx->pos += 2;
		lx->tok.p = 'R';
	} else if (strchr("{}[]();,:=.<>*+-&|^~!?%/", c)) {
		lx->pos++;
		lx->tok.p = c;
	} else {
		return lex_error(lx, "unexpected character");
	}
	return TOK_PUNCT;
}
