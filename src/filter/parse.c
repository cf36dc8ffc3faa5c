/* SPDX-License-Identifier: MIT */
/*
 * parse.c - filter text to postfix code (filter-internal.h).
 *
 * A hand-written lexer and a recursive-descent parser with C's precedence,
 * emitting code as it goes (no tree):
 *
 *   or     := and { "||" and }
 *   and    := bor { "&&" bor }
 *   bor    := bxor { "|" bxor }
 *   bxor   := band { "^" band }
 *   band   := eq { "&" eq }
 *   eq     := rel { ("==" | "!=") rel }
 *   rel    := shift { ("<" | "<=" | ">" | ">=") shift }
 *   shift  := unary { ("<<" | ">>") unary }
 *   unary  := ("!" | "~" | "-" | "+") unary | postfix
 *   postfix:= primary [ "[" integer "]" ]
 *   primary:= integer | float | string | name | "$ctx." name | "(" or ")"
 *
 * The arithmetic operators (+ - * / %, binary) are refused, as LTTng does.
 * Each sub-expression's static type (integer, float, string, string with a
 * wildcard, or "a field: not known yet") catches mistakes the user can see
 * now - a string compared with a number, '~' on a string - with the column;
 * what depends on the event's fields is settled at bind or run time.
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
	T_CTX,
	T_LPAR,
	T_RPAR,
	T_LBRK,
	T_RBRK,
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
	TY_STR,
	TY_GLOB, /* a string literal with a wildcard */
	TY_ANY,  /* a field: known once bound */
};

struct parser {
	const char *s;
	size_t len, pos;
	/* the current token */
	enum tok tok;
	size_t tpos, tlen;
	uint64_t ival;
	int iuns;
	double fval;
	uint32_t soff, slen;
	int sglob;
	unsigned int ctx;
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

static int is_ident(int c, int first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (!first && c >= '0' && c <= '9');
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

static void pool_put(struct parser *p, char c)
{
	/* The pool is sized for the worst case (trawl_filter_parse()): never full. */
	if (p->pool_len < p->pool_cap)
		p->pool[p->pool_len++] = c;
}

/* A literal byte in pattern form. */
static void pool_lit(struct parser *p, unsigned char c)
{
	if (c == '*' || c == '\\')
		pool_put(p, '\\');
	pool_put(p, (char)c);
}

static int lex_string(struct parser *p)
{
	size_t i = p->pos + 1;

	p->soff = p->pool_len;
	p->sglob = 0;
	while (i < p->len && p->s[i] != '"') {
		unsigned char c = (unsigned char)p->s[i];
		int v, k;

		if (c != '\\') {
			if (c == '*') {
				pool_put(p, '*');
				p->sglob = 1;
			} else {
				pool_lit(p, c);
			}
			i++;
			continue;
		}
		if (i + 1 >= p->len)
			break;
		c = (unsigned char)p->s[i + 1];
		i += 2;
		switch (c) {
		case 'n': pool_lit(p, '\n'); break;
		case 't': pool_lit(p, '\t'); break;
		case 'r': pool_lit(p, '\r'); break;
		case 'a': pool_lit(p, '\a'); break;
		case 'b': pool_lit(p, '\b'); break;
		case 'f': pool_lit(p, '\f'); break;
		case 'v': pool_lit(p, '\v'); break;
		case '\\': case '"': case '\'': case '?': case '*':
			pool_lit(p, c);
			break;
		case 'x':
			for (v = 0, k = 0; k < 2 && i < p->len && hexval(p->s[i]) >= 0; k++, i++)
				v = v * 16 + hexval(p->s[i]);
			if (!k || !v) {
				fail(p, i - 2 - (size_t)k, "bad escape in string (\\x needs 1 or 2 hex digits, not 00)");
				return -1;
			}
			pool_lit(p, (unsigned char)v);
			break;
		default:
			if (c >= '0' && c <= '7') {
				for (v = c - '0', k = 1; k < 3 && i < p->len && p->s[i] >= '0' && p->s[i] <= '7'; k++, i++)
					v = v * 8 + (p->s[i] - '0');
				if (!v || v > 255) {
					fail(p, i - 1 - (size_t)k, "bad octal escape in string (NUL or above \\377)");
					return -1;
				}
				pool_lit(p, (unsigned char)v);
				break;
			}
			fail(p, i - 2, "bad escape '\\%c' in string", c >= 0x20 && c < 0x7f ? c : '?');
			return -1;
		}
	}
	if (i >= p->len) {
		fail(p, p->pos, "unterminated string");
		return -1;
	}
	p->slen = p->pool_len - p->soff;
	p->pos = i + 1;
	p->tok = T_STR;
	return 0;
}

static int lex_number(struct parser *p)
{
	size_t i = p->pos, end;
	int hex = p->s[i] == '0' && i + 1 < p->len && (p->s[i + 1] == 'x' || p->s[i + 1] == 'X');
	int is_float = 0;
	char buf[64];

	if (hex)
		i += 2;
	while (i < p->len) {
		char c = p->s[i];

		if ((c >= '0' && c <= '9') || is_ident(c, 0)) {
			if (!hex && (c == 'e' || c == 'E')) {
				is_float = 1;
				if (i + 1 < p->len && (p->s[i + 1] == '+' || p->s[i + 1] == '-'))
					i++;
			}
			i++;
		} else if (c == '.' && !hex) {
			is_float = 1;
			i++;
		} else {
			break;
		}
	}
	end = i;
	p->tlen = end - p->pos;
	if (p->tlen >= sizeof(buf)) {
		fail(p, p->pos, "number too long");
		return -1;
	}
	memcpy(buf, p->s + p->pos, p->tlen);
	buf[p->tlen] = '\0';
	if (is_float) {
		char *e;

		p->fval = strtod(buf, &e);
		if (*e || e == buf) {
			fail(p, p->pos, "bad number '%s'", buf);
			return -1;
		}
		p->tok = T_FLT;
	} else {
		/* Integers: decimal, 0x hex, 0 octal; C's u/l suffixes ignored. */
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
		while (buf[k] == 'u' || buf[k] == 'U' || buf[k] == 'l' || buf[k] == 'L')
			k++;
		if (buf[k] || (hex && !ndig)) {
			fail(p, p->pos, "bad number '%s'", buf);
			return -1;
		}
		p->ival = v;
		p->iuns = v > (uint64_t)INT64_MAX;
		p->tok = T_INT;
	}
	p->pos = end;
	return 0;
}

/* $ctx.NAME */
static int lex_ctx(struct parser *p)
{
	size_t i = p->pos + 1, n;
	unsigned int k;

	if (p->len - i < 4 || memcmp(p->s + i, "ctx.", 4)) {
		fail(p, p->pos, "only context fields ($ctx.NAME) start with '$'");
		return -1;
	}
	i += 4;
	for (n = 0; i + n < p->len && is_ident(p->s[i + n], n == 0); n++)
		;
	for (k = 0; k < TRAWL_FILTER_CTX_COUNT; k++)
		if (strlen(ctx_names[k]) == n && !memcmp(p->s + i, ctx_names[k], n))
			break;
	if (k == TRAWL_FILTER_CTX_COUNT) {
		fail(p, p->pos, "unknown context field '$ctx.%.*s' (known: vpid, vtid, pid, tid, ppid, "
				"vppid, procname, pthread_id, cpu_id, prio, nice)",
		     (int)(n > 32 ? 32 : n), p->s + i);
		return -1;
	}
	p->ctx = k;
	p->pos = i + n;
	p->tok = T_CTX;
	return 0;
}

/* Reads the next token into p->tok. 0, or -1 after fail(). */
static int next(struct parser *p)
{
	static const struct {
		const char *s;
		enum tok t;
	} ops[] = {
		{"&&", T_ANDAND}, {"||", T_OROR}, {"<<", T_SHL}, {">>", T_SHR}, {"<=", T_LE},
		{">=", T_GE},     {"==", T_EQ},   {"!=", T_NE},  {"(", T_LPAR}, {")", T_RPAR},
		{"[", T_LBRK},    {"]", T_RBRK},  {"!", T_NOT},  {"~", T_BNOT}, {"-", T_MINUS},
		{"+", T_PLUS},    {"*", T_STAR},  {"/", T_SLASH}, {"%", T_PERCENT}, {"<", T_LT},
		{">", T_GT},      {"&", T_AMP},   {"|", T_PIPE}, {"^", T_CARET},
	};
	size_t i;
	char c;

	if (p->failed)
		return -1;
	while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
				   p->s[p->pos] == '\r'))
		p->pos++;
	p->tpos = p->pos;
	p->tlen = 1;
	if (p->pos >= p->len) {
		p->tok = T_END;
		p->tlen = 0;
		return 0;
	}
	c = p->s[p->pos];
	if (c == '"') {
		if (lex_string(p))
			return -1;
		p->tlen = p->pos - p->tpos;
		return 0;
	}
	if ((c >= '0' && c <= '9') || (c == '.' && p->pos + 1 < p->len && p->s[p->pos + 1] >= '0' &&
				       p->s[p->pos + 1] <= '9'))
		return lex_number(p);
	if (c == '$') {
		if (lex_ctx(p))
			return -1;
		p->tlen = p->pos - p->tpos;
		return 0;
	}
	if (is_ident(c, 1)) {
		while (p->pos < p->len && is_ident(p->s[p->pos], 0))
			p->pos++;
		p->tok = T_NAME;
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

static enum ty parse_or(struct parser *p);

static enum ty parse_primary(struct parser *p)
{
	struct filter_insn *in;
	enum ty t;

	switch (p->tok) {
	case T_INT:
		if (!(in = emit(p, OP_INT, 1)))
			return TY_ERR;
		in->imm.u = p->ival;
		in->a = (uint8_t)p->iuns;
		return next(p) ? TY_ERR : TY_INT;
	case T_FLT:
		if (!(in = emit(p, OP_FLT, 1)))
			return TY_ERR;
		in->imm.d = p->fval;
		return next(p) ? TY_ERR : TY_FLT;
	case T_STR:
		if (!(in = emit(p, OP_STR, 1)))
			return TY_ERR;
		in->idx = p->soff;
		in->len = p->slen;
		in->a = (uint8_t)p->sglob;
		t = p->sglob ? TY_GLOB : TY_STR;
		return next(p) ? TY_ERR : t;
	case T_CTX:
		if (!(in = emit(p, OP_CTX, 1)))
			return TY_ERR;
		in->idx = p->ctx;
		t = p->ctx == TRAWL_FILTER_CTX_PROCNAME ? TY_STR : TY_INT;
		return next(p) ? TY_ERR : t;
	case T_NAME:
		if (!(in = emit(p, OP_NAME, 1)))
			return TY_ERR;
		in->idx = p->pool_len;
		in->len = (uint32_t)p->tlen;
		if (p->pool_cap - p->pool_len < p->tlen) { /* sized for the worst case: cannot happen */
			fail(p, p->tpos, "expression too complex");
			return TY_ERR;
		}
		memcpy(p->pool + p->pool_len, p->s + p->tpos, p->tlen);
		p->pool_len += (uint32_t)p->tlen;
		if (next(p))
			return TY_ERR;
		if (p->tok != T_LBRK)
			return TY_ANY;
		if (next(p))
			return TY_ERR;
		if (p->tok != T_INT) {
			fail(p, p->tpos, "an index must be a non-negative integer constant");
			return TY_ERR;
		}
		in->a = 1;
		in->imm.u = p->ival;
		if (next(p))
			return TY_ERR;
		if (p->tok != T_RBRK) {
			fail_unexpected(p);
			return TY_ERR;
		}
		return next(p) ? TY_ERR : TY_ANY;
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

static int is_str(enum ty t)
{
	return t == TY_STR || t == TY_GLOB;
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
		fail(p, pos, "operator '%c' needs a number, not a string", p->s[pos]);
		return TY_ERR;
	}
	switch (op) {
	case T_NOT:
		return emit(p, OP_NOT, 0) ? TY_INT : TY_ERR;
	case T_BNOT:
		if (t == TY_FLT) {
			fail(p, pos, "operator '~' needs an integer");
			return TY_ERR;
		}
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
			if ((is_str(a) && (b == TY_INT || b == TY_FLT)) ||
			    (is_str(b) && (a == TY_INT || a == TY_FLT))) {
				fail(p, pos, "cannot compare a string with a number");
				return TY_ERR;
			}
			if (op != OP_EQ && op != OP_NE && (a == TY_GLOB || b == TY_GLOB)) {
				fail(p, pos, "a '*' pattern compares with == and != only");
				return TY_ERR;
			}
			if (a == TY_GLOB && b == TY_GLOB) {
				fail(p, pos, "cannot compare two '*' patterns");
				return TY_ERR;
			}
		} else if (is_str(a) || is_str(b) || a == TY_FLT || b == TY_FLT) {
			fail(p, pos, "operator '%.*s' needs integers", (int)oplen, p->s + pos);
			return TY_ERR;
		}
		if (!emit(p, op, -1))
			return TY_ERR;
		a = TY_INT;
	}
	return TY_ERR;
}

static enum ty parse_shift(struct parser *p)
{
	static const enum tok t[] = {T_SHL, T_SHR};
	static const enum filter_op o[] = {OP_SHL, OP_SHR};
	const struct level l = {parse_unary, t, o, 2};
	enum ty r = binary(p, &l);

	/* Arithmetic: parsed in C's place only to say it is not supported. */
	if (r != TY_ERR && (p->tok == T_PLUS || p->tok == T_MINUS || p->tok == T_STAR ||
			    p->tok == T_SLASH || p->tok == T_PERCENT)) {
		fail(p, p->tpos, "arithmetic operator '%c' is not supported", p->s[p->tpos]);
		return TY_ERR;
	}
	return r;
}

static enum ty parse_rel(struct parser *p)
{
	static const enum tok t[] = {T_LT, T_LE, T_GT, T_GE};
	static const enum filter_op o[] = {OP_LT, OP_LE, OP_GT, OP_GE};
	const struct level l = {parse_shift, t, o, 4};

	return binary(p, &l);
}

static enum ty parse_eq(struct parser *p)
{
	static const enum tok t[] = {T_EQ, T_NE};
	static const enum filter_op o[] = {OP_EQ, OP_NE};
	const struct level l = {parse_rel, t, o, 2};

	return binary(p, &l);
}

static enum ty parse_band(struct parser *p)
{
	static const enum tok t[] = {T_AMP};
	static const enum filter_op o[] = {OP_BAND};
	const struct level l = {parse_eq, t, o, 1};

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
	return logical(p, T_ANDAND, OP_AND, parse_bor);
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
	 * "&&" adds two for two bytes); a string literal doubles its bytes in
	 * pattern form at most, a name copies them. */
	p.cap = (uint32_t)(2 * len + 4);
	p.pool_cap = (uint32_t)(2 * len + 4);
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
