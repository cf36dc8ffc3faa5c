/* SPDX-License-Identifier: MIT */
/*
 * TSDL lexer: C-like tokens over the metadata text. The lexer state is a
 * plain struct so the parser can save and restore it to look ahead.
 */
#ifndef TRAWL_READER_TSDL_LEX_H
#define TRAWL_READER_TSDL_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tok_type {
	TOK_EOF,
	TOK_ID,		/* identifiers and keywords */
	TOK_INT,	/* integer literal (value in u, overflow flagged) */
	TOK_STR,	/* string literal (unescaped in s) */
	TOK_CHAR,	/* character literal (value in u) */
	TOK_PUNCT,	/* punctuator in p: one char, or ':=' as 'A', '...' as 'E', '->' as 'R' */
	TOK_ERROR,
};

struct tok {
	enum tok_type type;
	const char *start;	/* identifier text, not NUL-terminated */
	size_t len;
	uint64_t u;
	bool overflow;
	char *s;		/* TOK_STR: malloc'd, owned by the lexer (freed on next token) */
	int p;
	size_t off;		/* byte offset of the token in the text */
	const char *error;	/* TOK_ERROR: what was wrong */
};

struct lexer {
	const char *text;
	size_t len;
	size_t pos;
	struct tok tok;		/* current token */
};

void lex_init(struct lexer *lx, const char *text, size_t len);
void lex_fini(struct lexer *lx);
/* Advances to the next token; returns its type. */
enum tok_type lex_next(struct lexer *lx);
bool tok_is_id(const struct tok *t, const char *s);
bool tok_is_punct(const struct tok *t, int p);
/* 1-based line of byte offset @off. */
unsigned lex_line(const struct lexer *lx, size_t off);

#endif /* TRAWL_READER_TSDL_LEX_H */
