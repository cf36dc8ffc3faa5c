/* SPDX-License-Identifier: MIT */
/*
 * parse.c - filter text to postfix code (filter-internal.h).
 *
 * A hand-written lexer and a recursive-descent parser with LTTng's grammar
 * (lttng-tools 2.13's filter-parser.y), which differs from C in one place:
 * the bitwise operators bind tighter than the comparisons ("x & 1 == 1" is
 * "(x & 1) == 1"). Code is emitted as it goes (no tree):
 *
 *   or     := and { "||" and }
 *   and    := eq { "&&" eq }
 *   eq     := rel { ("==" | "!=") rel }
 *   rel    := bor { ("<" | "<=" | ">" | ">=") bor }
 *   bor    := bxor { "|" bxor }
 *   bxor   := band { "^" band }
 *   band   := shift { "&" shift }
 *   shift  := unary { ("<<" | ">>") unary }
 *   unary  := ("!" | "~" | "-" | "+") unary | postfix
 *   postfix:= name { "[" integer "]" | ("." | "->") name } | primary
 *   primary:= integer | float | string | "(" or ")"
 *
 * Names are payload fields, "$ctx.NAME" context fields and "$app.NAME"
 * application contexts; a name an event cannot have ("a.b", "$ctx.zzz",
 * "$app.x:y") is accepted and makes the filter false, as with LTTng. The
 * arithmetic operators (+ - * / %, binary) are refused ("not supported", as
 * LTTng says). Strings are '...' or "...", kept as written; "\\" and "\*"
 * are their only escapes. C comments are skipped.
 *
 * Each sub-expression's static type (integer, float, string literal and
 * its kind, or "a field: known once bound") catches the mistakes LTTng
 * refuses up front, with their column: a string as the filter's value, a
 * string with a unary or logical operator or against a number, a float
 * with a bitwise operator, two star-glob patterns, a star-glob pattern
 * with an operator other than == and !=.
 *
 * Limits: TRAWL_FILTER_MAX_LEN bytes of text, TRAWL_FILTER_MAX_DEPTH levels
 * of nesting (so the parser's recursion and the interpreter's stack are
 * bounded: checked again against TRAWL_FILTER_STACK).
 */
#include "filter/filter-internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tok {
	T_END = 0,
	T_INT,
	T_FLT,
	T_STR,
	T_NAME,
	T_GLOBAL, /* $ctx, $app, $anything */
	T_LPAR,
	T_RPAR,
	T_LBRK,
	T_RBRK,
	T_DOT,
	T_ARROW,
	T_NOT,
	T_BNOT,
	T_MINUS,
	T_PLUS,
	T_STAR,
	T_SLASH,
	T_PERCENT,
	T_LT,
	T_LE,
	T_GT,
	T_GE,
	T_EQ,
	T_NE,
	T_ANDAND,
	T_OROR,
	T_AMP,
	T_PIPE,
	T_CARET,
	T_SHL,
	T_SHR,
	T_BAD, /* any other character */
};

/* Static types of sub-expressions. */
enum ty {
	TY_ERR = -1,
	TY_INT,
	TY_FLT,
	TY_STR,  /* a string literal without wildcard */
	TY_PFX,  /* a string literal whose only wildcard ends it: a prefix */
	TY_GLOB, /* a string literal with any other wildcard: a star-glob pattern */
	TY_ANY,  /* a field: known once bound */
};

struct parser {
	const char *s;
	size_t len, pos;
	/* the current token */
	enum tok tok;
	size_t tpos, tlen;
	uint64_t ival;
	double fval;
	enum ty skind; /* T_STR: TY_STR, TY_PFX or TY_GLOB */
	/* output */
	struct filter_insn *code;
	uint32_t nr, cap;
	char *pool;
	uint32_t pool_len, pool_cap;
	unsigned int depth;
	int sp, max_sp;
	struct trawl_filter_error *err;
	int failed;
};

static const char *const ctx_names[TRAWL_FILTER_CTX_COUNT] = {
	[TRAWL_FILTER_CTX_VPID] = "vpid",
	[TRAWL_FILTER_CTX_VTID] = "vtid",
	[TRAWL_FILTER_CTX_PID] = "pid",
	[TRAWL_FILTER_CTX_TID] = "tid",
	[TRAWL_FILTER_CTX_PPID] = "ppid",
	[TRAWL_FILTER_CTX_VPPID] = "vppid",
	[TRAWL_FILTER_CTX_PROCNAME] = "procname",
	[TRAWL_FILTER_CTX_PTHREAD_ID] = "pthread_id",
	[TRAWL_FILTER_CTX_CPU_ID] = "cpu_id",
	[TRAWL_FILTER_CTX_PRIO] = "prio",
	[TRAWL_FILTER_CTX_NICE] = "nice",
};

static void __attribute__((format(printf, 3, 4))) fail(struct parser *p, size_t pos, const char *fmt, ...)
{
	char what[120];
	va_list ap;

	if (p->failed)
		return;
	p->failed = 1;
	if (!p->err)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p->err->column = (unsigned int)pos + 1;
	snprintf(p->err->msg, sizeof(p->err->msg), "filter: %s at column %u", what, p->err->column);
}

/* "unexpected ')'": the current token, quoted and shortened. */
static void fail_unexpected(struct parser *p)
{
	size_t n = p->tlen > 24 ? 24 : p->tlen;
	char tok[32];
	size_t i;

	if (p->tok == T_END) {
		fail(p, p->tpos, "unexpected end of expression");
		return;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p->s[p->tpos + i];

		tok[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	tok[n] = '\0';
	fail(p, p->tpos, "unexpected '%s%s'", tok, p->tlen > n ? "..." : "");
}

/* ---- lexer ---- */

/* LTTng's identifiers: letters, digits (not first), '_' and ':'. */
static int is_ident(int c, int first)
{
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * A string literal, "..." or '...' (LTTng takes both as strings), copied
 * as written into the pool. Its kind, as LTTng's star-glob test decides it:
 * the first unescaped '*' makes it a prefix when it ends the literal, else
 * a star-glob pattern.
 */
static int lex_string(struct parser *p)
{
	char quote = p->s[p->pos];
	size_t i = p->pos + 1;

	p->skind = TY_STR;
	p->ival = p->pool_len; /* where the literal starts */
	while (i < p->len && p->s[i] != quote) {
		char c = p->s[i];

		if (c == '\\') {
			if (i + 1 >= p->len || (p->s[i + 1] != '\\' && p->s[i + 1] != '*')) {
				unsigned char e = i + 1 < p->len ? (unsigned char)p->s[i + 1] : ' ';

				fail(p, i, "unsupported escape '\\%c' in string (only \\\\ and \\* are)",
				     e >= 0x20 && e < 0x7f ? e : '?');
				return -1;
			}
			/* The pool is sized for the worst case: never full. */
			p->pool[p->pool_len++] = c;
			c = p->s[++i];
		} else if (c == '*' && p->skind == TY_STR) {
			p->skind = i + 1 < p->len && p->s[i + 1] == quote ? TY_PFX : TY_GLOB;
		}
		p->pool[p->pool_len++] = c;
		i++;
	}
	if (i >= p->len) {
		fail(p, p->pos, "unterminated string");
		return -1;
	}
	p->pos = i + 1;
	p->tok = T_STR;
	return 0;
}

/* Integer suffixes, C's: u, l, ll and their mixes. */
static int int_suffix(const char *s)
{
	size_t u = 0, l = 0;

	for (; *s; s++) {
		if (*s == 'u' || *s == 'U')
			u++;
		else if (*s == 'l' || *s == 'L')
			l++;
		else
			return -1;
	}
	return u > 1 || l > 2 ? -1 : 0;
}

/* An integer (decimal, 0x hex, 0 octal), as LTTng's lexer takes them. */
static int int_value(struct parser *p, const char *buf)
{
	int hex = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
	size_t k = hex ? 2 : 0, ndig = 0;
	unsigned base = hex ? 16 : (buf[0] == '0' ? 8 : 10);
	uint64_t v = 0;

	for (; buf[k]; k++) {
		int d = hexval(buf[k]);

		if (d < 0 || d >= (int)base)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / base) {
			fail(p, p->pos, "integer '%s' does not fit in 64 bits", buf);
			return -1;
		}
		v = v * base + (uint64_t)d;
		ndig++;
	}
	/* LTTng 2.13 lexes 0X but reads its value with "0x%" scanf: refused */
	if (hex && buf[1] == 'X') {
		fail(p, p->pos, "cannot read hexadecimal constant '%s' (write 0x)", buf);
		return -1;
	}
	if ((hex && !ndig) || int_suffix(buf + k)) {
		fail(p, p->pos, "bad number '%s'", buf);
		return -1;
	}
	p->ival = v;
	p->tok = T_INT;
	return 0;
}

/* Numbers: C's integers and floats, hexadecimal floats included. */
static int lex_number(struct parser *p)
{
	size_t i = p->pos;
	int hex = p->s[i] == '0' && i + 1 < p->len && (p->s[i + 1] == 'x' || p->s[i + 1] == 'X');
	int is_float = 0;
	char buf[64], *e;

	if (hex)
		i += 2;
	while (i < p->len) {
		char c = p->s[i];

		if (c == '.') {
			is_float = 1;
		} else if (((!hex && (c == 'e' || c == 'E')) || (hex && (c == 'p' || c == 'P'))) &&
			   i + 1 < p->len && (p->s[i + 1] == '+' || p->s[i + 1] == '-')) {
			is_float = 1;
			i++;
		} else if ((!hex && (c == 'e' || c == 'E')) || (hex && (c == 'p' || c == 'P'))) {
			is_float = 1;
		} else if (!is_ident(c, 0) || c == ':') {
			break;
		}
		i++;
	}
	p->tlen = i - p->pos;
	if (p->tlen >= sizeof(buf)) {
		fail(p, p->pos, "number too long");
		return -1;
	}
	memcpy(buf, p->s + p->pos, p->tlen);
	buf[p->tlen] = '\0';
	if (!is_float) {
		if (int_value(p, buf))
			return -1;
		p->pos = i;
		return 0;
	}
	p->fval = strtod(buf, &e);
	/* One C float suffix at most: f, F, l, L. */
	if (e == buf || (*e && (e[1] || !strchr("fFlL", *e)))) {
		fail(p, p->pos, "bad number '%s'", buf);
		return -1;
	}
	p->tok = T_FLT;
	p->pos = i;
	return 0;
}

/* Skips blanks and C comments; 0, or -1 after fail() (an unterminated one). */
static int skip_blanks(struct parser *p)
{
	for (;;) {
		while (p->pos < p->len && strchr(" \t\n\r", p->s[p->pos]))
			p->pos++;
		if (p->len - p->pos >= 2 && p->s[p->pos] == '/' && p->s[p->pos + 1] == '*') {
			const char *end = NULL;
			size_t k;

			for (k = p->pos + 2; k + 1 < p->len && !end; k++)
				if (p->s[k] == '*' && p->s[k + 1] == '/')
					end = p->s + k + 2;
			if (!end) {
				fail(p, p->pos, "unterminated comment");
				return -1;
			}
			p->pos = (size_t)(end - p->s);
		} else if (p->len - p->pos >= 2 && p->s[p->pos] == '/' && p->s[p->pos + 1] == '/') {
			while (p->pos < p->len && p->s[p->pos] != '\n')
				p->pos++;
		} else {
			return 0;
		}
	}
}

/* Reads the next token into p->tok. 0, or -1 after fail(). */
static int next(struct parser *p)
{
	static const struct {
		const char *s;
		enum tok t;
	} ops[] = {
		{"&&", T_ANDAND}, {"||", T_OROR}, {"<<", T_SHL}, {">>", T_SHR}, {"<=", T_LE},
		{">=", T_GE},     {"==", T_EQ},   {"!=", T_NE},  {"->", T_ARROW}, {"(", T_LPAR},
		{")", T_RPAR},    {"[", T_LBRK},  {"]", T_RBRK}, {".", T_DOT},  {"!", T_NOT},
		{"~", T_BNOT},    {"-", T_MINUS}, {"+", T_PLUS}, {"*", T_STAR}, {"/", T_SLASH},
		{"%", T_PERCENT}, {"<", T_LT},    {">", T_GT},   {"&", T_AMP},  {"|", T_PIPE},
		{"^", T_CARET},
	};
	size_t i;
	char c;

	if (p->failed || skip_blanks(p))
		return -1;
	p->tpos = p->pos;
	p->tlen = 1;
	if (p->pos >= p->len) {
		p->tok = T_END;
		p->tlen = 0;
		return 0;
	}
	c = p->s[p->pos];
	if (c == '"' || c == '\'') {
		if (lex_string(p))
			return -1;
		p->tlen = p->pos - p->tpos;
		return 0;
	}
	if ((c >= '0' && c <= '9') || (c == '.' && p->pos + 1 < p->len && p->s[p->pos + 1] >= '0' &&
				       p->s[p->pos + 1] <= '9'))
		return lex_number(p);
	if (is_ident(c, 1) || (c == '$' && p->pos + 1 < p->len && is_ident(p->s[p->pos + 1], 1))) {
		p->tok = c == '$' ? T_GLOBAL : T_NAME;
		p->pos++;
		while (p->pos < p->len && is_ident(p->s[p->pos], 0))
			p->pos++;
		p->tlen = p->pos - p->tpos;
		return 0;
	}
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].s);

		if (p->len - p->pos >= n && !memcmp(p->s + p->pos, ops[i].s, n)) {
			p->tok = ops[i].t;
			p->tlen = n;
			p->pos += n;
			return 0;
		}
	}
	p->tok = T_BAD;
	p->pos++;
	return 0;
}

/* ---- code ---- */

static struct filter_insn *emit(struct parser *p, enum filter_op op, int push)
{
	struct filter_insn *in;

	if (p->nr >= p->cap) { /* sized for the worst case: cannot happen */
		fail(p, p->tpos, "expression too complex");
		return NULL;
	}
	in = &p->code[p->nr++];
	memset(in, 0, sizeof(*in));
	in->op = (uint8_t)op;
	p->sp += push;
	if (p->sp > p->max_sp)
		p->max_sp = p->sp;
	return in;
}

static int is_str(enum ty t)
{
	return t == TY_STR || t == TY_PFX || t == TY_GLOB;
}

static enum ty parse_or(struct parser *p);

/* Appends the current token's text to the name at pool[start..]. */
static int name_put(struct parser *p)
{
	if (p->pool_cap - p->pool_len < p->tlen) { /* sized for the worst case: cannot happen */
		fail(p, p->tpos, "expression too complex");
		return -1;
	}
	memcpy(p->pool + p->pool_len, p->s + p->tpos, p->tlen);
	p->pool_len += (uint32_t)p->tlen;
	return 0;
}

/* A known context field: its index, or TRAWL_FILTER_CTX_COUNT. */
static unsigned int ctx_index(const char *name, size_t n)
{
	unsigned int k;

	for (k = 0; k < TRAWL_FILTER_CTX_COUNT; k++)
		if (strlen(ctx_names[k]) == n && !memcmp(name, ctx_names[k], n))
			break;
	return k;
}

/*
 * "[" constant "]": the index of @in; 0, or -1 after fail(). LTTng takes
 * a constant integer only: "[-1]" and "[(1)]" are refused too.
 */
static int parse_index(struct parser *p, struct filter_insn *in)
{
	if (next(p))
		return -1;
	if (p->tok != T_INT) {
		fail(p, p->tpos, "an index must be a constant integer");
		return -1;
	}
	/* A second index ("a[1][2]"): no event's field has one; never true. */
	in->a = in->a ? 2 : 1;
	in->imm.u = p->ival;
	if (next(p))
		return -1;
	if (p->tok != T_RBRK) {
		fail_unexpected(p);
		return -1;
	}
	return next(p);
}

/*
 * A field: NAME, $ctx.NAME or $app.NAME, then any "[N]" and ".NAME" or
 * "->NAME" (a path no event's flat fields have: accepted, never true).
 */
static enum ty parse_field(struct parser *p)
{
	struct filter_insn *in = emit(p, OP_NAME, 1);
	size_t start = p->pool_len, gpos = p->tpos;
	int global = p->tok == T_GLOBAL;

	if (!in)
		return TY_ERR;
	if (global && !(p->tlen == 4 && !memcmp(p->s + p->tpos, "$ctx", 4)) &&
	    !(p->tlen == 4 && !memcmp(p->s + p->tpos, "$app", 4))) {
		fail(p, p->tpos, "unknown '%.*s' (only $ctx.NAME and $app.NAME are)", (int)(p->tlen > 32 ? 32 : p->tlen),
		     p->s + p->tpos);
		return TY_ERR;
	}
	if (name_put(p) || next(p))
		return TY_ERR;
	if (global && p->tok != T_DOT) {
		fail(p, gpos, "expected a name after '%.4s.'", p->s + gpos);
		return TY_ERR;
	}
	for (;;) {
		if (p->tok == T_LBRK) {
			if (parse_index(p, in))
				return TY_ERR;
			continue;
		}
		if (p->tok != T_DOT && p->tok != T_ARROW)
			break;
		if (name_put(p) || next(p))
			return TY_ERR;
		if (p->tok != T_NAME) {
			fail_unexpected(p);
			return TY_ERR;
		}
		if (name_put(p) || next(p))
			return TY_ERR;
	}
	in->idx = (uint32_t)start;
	in->len = (uint32_t)(p->pool_len - start);
	/* "$ctx.NAME": a context field known here, else a name never bound. */
	if (in->len > 5 && !memcmp(p->pool + start, "$ctx.", 5) && !in->a) {
		unsigned int k = ctx_index(p->pool + start + 5, in->len - 5);

		if (k < TRAWL_FILTER_CTX_COUNT) {
			in->op = OP_CTX;
			in->idx = k;
		}
	}
	return TY_ANY;
}

static enum ty parse_primary(struct parser *p)
{
	struct filter_insn *in;
	enum ty t;

	switch (p->tok) {
	case T_INT:
		if (!(in = emit(p, OP_INT, 1)))
			return TY_ERR;
		in->imm.u = p->ival;
		return next(p) ? TY_ERR : TY_INT;
	case T_FLT:
		if (!(in = emit(p, OP_FLT, 1)))
			return TY_ERR;
		in->imm.d = p->fval;
		return next(p) ? TY_ERR : TY_FLT;
	case T_STR:
		if (!(in = emit(p, OP_STR, 1)))
			return TY_ERR;
		in->idx = (uint32_t)p->ival;
		in->len = (uint32_t)(p->pool_len - p->ival);
		in->a = p->skind == TY_GLOB;
		t = p->skind;
		return next(p) ? TY_ERR : t;
	case T_NAME:
	case T_GLOBAL:
		return parse_field(p);
	case T_LPAR:
		if (++p->depth > TRAWL_FILTER_MAX_DEPTH) {
			fail(p, p->tpos, "expression nested too deeply (at most %u levels)", TRAWL_FILTER_MAX_DEPTH);
			return TY_ERR;
		}
		if (next(p))
			return TY_ERR;
		t = parse_or(p);
		if (t == TY_ERR)
			return TY_ERR;
		if (p->tok != T_RPAR) {
			fail_unexpected(p);
			return TY_ERR;
		}
		p->depth--;
		return next(p) ? TY_ERR : t;
	default:
		fail_unexpected(p);
		return TY_ERR;
	}
}

static enum ty parse_unary(struct parser *p)
{
	enum tok op = p->tok;
	size_t pos = p->tpos;
	enum ty t;

	if (op != T_NOT && op != T_BNOT && op != T_MINUS && op != T_PLUS)
		return parse_primary(p);
	if (++p->depth > TRAWL_FILTER_MAX_DEPTH) {
		fail(p, pos, "expression nested too deeply (at most %u levels)", TRAWL_FILTER_MAX_DEPTH);
		return TY_ERR;
	}
	if (next(p))
		return TY_ERR;
	t = parse_unary(p);
	if (t == TY_ERR)
		return TY_ERR;
	p->depth--;
	if (is_str(t)) {
		fail(p, pos, "operator '%c' is not allowed on a string", p->s[pos]);
		return TY_ERR;
	}
	switch (op) {
	case T_NOT:
		return emit(p, OP_NOT, 0) ? TY_INT : TY_ERR;
	case T_BNOT:
		/* On a float: accepted, and false when run (LTTng's). */
		return emit(p, OP_BNOT, 0) ? TY_INT : TY_ERR;
	case T_MINUS:
		return emit(p, OP_NEG, 0) ? t : TY_ERR;
	default:
		return t;
	}
}

/* One binary level: operands parsed by @sub, operators in @toks/@ops. */
struct level {
	enum ty (*sub)(struct parser *p);
	const enum tok *toks;
	const enum filter_op *ops;
	size_t n;
};

/* LTTng's checks of a comparison's two static types; 0 or -1 after fail(). */
static int check_compare(struct parser *p, size_t pos, enum filter_op op, enum ty a, enum ty b)
{
	if ((is_str(a) && (b == TY_INT || b == TY_FLT)) || (is_str(b) && (a == TY_INT || a == TY_FLT))) {
		fail(p, pos, "cannot compare a string with a number");
		return -1;
	}
	if ((a == TY_GLOB && (b == TY_PFX || b == TY_GLOB)) || (b == TY_GLOB && a == TY_PFX)) {
		fail(p, pos, "cannot compare two '*' patterns");
		return -1;
	}
	if (op != OP_EQ && op != OP_NE && (a == TY_GLOB || b == TY_GLOB)) {
		fail(p, pos, "a '*' pattern compares with == and != only");
		return -1;
	}
	return 0;
}

static enum ty binary(struct parser *p, const struct level *l)
{
	enum ty a = l->sub(p), b;

	while (a != TY_ERR) {
		size_t i, pos = p->tpos, oplen = p->tlen;
		enum filter_op op;

		for (i = 0; i < l->n && l->toks[i] != p->tok; i++)
			;
		if (i == l->n)
			return a;
		op = l->ops[i];
		if (next(p))
			return TY_ERR;
		b = l->sub(p);
		if (b == TY_ERR)
			return TY_ERR;
		if (op >= OP_EQ && op <= OP_GE) {
			if (check_compare(p, pos, op, a, b))
				return TY_ERR;
		} else if (is_str(a) || is_str(b)) {
			fail(p, pos, "operator '%.*s' needs integers, not a string", (int)oplen, p->s + pos);
			return TY_ERR;
		} else if (a == TY_FLT || b == TY_FLT) {
			fail(p, pos, "operator '%.*s' cannot take a float", (int)oplen, p->s + pos);
			return TY_ERR;
		}
		if (!emit(p, op, -1))
			return TY_ERR;
		a = TY_INT;
	}
	return TY_ERR;
}

/* Arithmetic: parsed in LTTng's place only to say it is not supported. */
static enum ty parse_arith(struct parser *p)
{
	enum ty r = parse_unary(p);

	if (r != TY_ERR && (p->tok == T_PLUS || p->tok == T_MINUS || p->tok == T_STAR || p->tok == T_SLASH ||
			    p->tok == T_PERCENT)) {
		fail(p, p->tpos, "operator '%c' is not supported", p->s[p->tpos]);
		return TY_ERR;
	}
	return r;
}

static enum ty parse_shift(struct parser *p)
{
	static const enum tok t[] = {T_SHL, T_SHR};
	static const enum filter_op o[] = {OP_SHL, OP_SHR};
	const struct level l = {parse_arith, t, o, 2};

	return binary(p, &l);
}

static enum ty parse_band(struct parser *p)
{
	static const enum tok t[] = {T_AMP};
	static const enum filter_op o[] = {OP_BAND};
	const struct level l = {parse_shift, t, o, 1};

	return binary(p, &l);
}

static enum ty parse_bxor(struct parser *p)
{
	static const enum tok t[] = {T_CARET};
	static const enum filter_op o[] = {OP_BXOR};
	const struct level l = {parse_band, t, o, 1};

	return binary(p, &l);
}

static enum ty parse_bor(struct parser *p)
{
	static const enum tok t[] = {T_PIPE};
	static const enum filter_op o[] = {OP_BOR};
	const struct level l = {parse_bxor, t, o, 1};

	return binary(p, &l);
}

static enum ty parse_rel(struct parser *p)
{
	static const enum tok t[] = {T_LT, T_LE, T_GT, T_GE};
	static const enum filter_op o[] = {OP_LT, OP_LE, OP_GT, OP_GE};
	const struct level l = {parse_bor, t, o, 4};

	return binary(p, &l);
}

static enum ty parse_eq(struct parser *p)
{
	static const enum tok t[] = {T_EQ, T_NE};
	static const enum filter_op o[] = {OP_EQ, OP_NE};
	const struct level l = {parse_rel, t, o, 2};

	return binary(p, &l);
}

/* && and ||: left, a conditional jump over the right, the right as 0/1. */
static enum ty logical(struct parser *p, enum tok tok, enum filter_op op, enum ty (*sub)(struct parser *))
{
	enum ty a = sub(p), b;

	while (a != TY_ERR && p->tok == tok) {
		size_t pos = p->tpos;
		uint32_t j;

		if (is_str(a)) {
			fail(p, pos, "'%s' needs conditions, not strings", tok == T_ANDAND ? "&&" : "||");
			return TY_ERR;
		}
		if (!emit(p, op, -1))
			return TY_ERR;
		j = p->nr - 1;
		if (next(p))
			return TY_ERR;
		b = sub(p);
		if (b == TY_ERR)
			return TY_ERR;
		if (is_str(b)) {
			fail(p, pos, "'%s' needs conditions, not strings", tok == T_ANDAND ? "&&" : "||");
			return TY_ERR;
		}
		if (!emit(p, OP_BOOL, 0))
			return TY_ERR;
		p->code[j].idx = p->nr; /* the jump lands after the BOOL */
		a = TY_INT;
	}
	return a;
}

static enum ty parse_and(struct parser *p)
{
	return logical(p, T_ANDAND, OP_AND, parse_eq);
}

static enum ty parse_or(struct parser *p)
{
	return logical(p, T_OROR, OP_OR, parse_and);
}

int trawl_filter_parse(const char *text, struct trawl_filter **out, struct trawl_filter_error *err)
{
	struct parser p;
	struct trawl_filter *f;
	size_t len = strnlen(text, TRAWL_FILTER_MAX_LEN + 1);
	enum ty t;

	memset(&p, 0, sizeof(p));
	p.err = err;
	if (err) {
		err->column = 0;
		err->msg[0] = '\0';
	}
	if (len > TRAWL_FILTER_MAX_LEN) {
		fail(&p, TRAWL_FILTER_MAX_LEN, "expression longer than %u bytes", TRAWL_FILTER_MAX_LEN);
		return -EINVAL;
	}
	p.s = text;
	p.len = len;
	/* Worst cases: every byte a token of two instructions ("!" is one,
	 * "&&" adds two for two bytes); literals and names copy their bytes
	 * into the pool at most once. */
	p.cap = (uint32_t)(2 * len + 4);
	p.pool_cap = (uint32_t)(len + 4);
	p.code = calloc(p.cap, sizeof(*p.code));
	p.pool = malloc(p.pool_cap);
	f = calloc(1, sizeof(*f));
	if (!p.code || !p.pool || !f)
		goto err_nomem;
	if (next(&p))
		goto err_inval;
	if (p.tok == T_END) {
		fail(&p, 0, "empty expression");
		goto err_inval;
	}
	t = parse_or(&p);
	if (t == TY_ERR)
		goto err_inval;
	if (p.tok != T_END) {
		fail_unexpected(&p);
		goto err_inval;
	}
	if (is_str(t)) {
		fail(&p, 0, "a filter is a condition, not a string");
		goto err_inval;
	}
	if (p.max_sp > (int)TRAWL_FILTER_STACK) {
		fail(&p, 0, "expression too complex");
		goto err_inval;
	}
	f->code = p.code;
	f->nr_code = p.nr;
	f->max_stack = (uint32_t)p.max_sp;
	f->pool = p.pool;
	f->pool_len = p.pool_len;
	*out = f;
	return 0;
err_nomem:
	free(f);
	free(p.pool);
	free(p.code);
	return -ENOMEM;
err_inval:
	free(f);
	free(p.pool);
	free(p.code);
	return -EINVAL;
}

void trawl_filter_destroy(struct trawl_filter *f)
{
	if (!f)
		return;
	free(f->code);
	free(f->pool);
	free(f);
}
