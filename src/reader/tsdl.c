/* SPDX-License-Identifier: MIT */
/*
 * TSDL (CTF 1.8 metadata) parser: recursive descent straight to field class
 * trees, no intermediate AST.
 *
 * Grammar covered (what babeltrace2 accepts): top-level `trace`, `env`,
 * `clock`, `stream`, `event`, `callsite` blocks; `typealias T := NAME;`,
 * `typedef T declarators;`, named `struct`/`variant`/`enum` definitions;
 * type specifiers `integer {}`, `floating_point {}`, `string [{}]`,
 * `enum [NAME] [: T] {}`, `struct [NAME] [{}] [align(N)]`,
 * `variant [NAME] [<TAG>] [{}]` and alias names made of several words
 * (`unsigned long`); declarators with static arrays `x[4]`, nested arrays
 * and sequences `x[len]`, `x[stream.event.context.len]`.
 *
 * Type names are lexically scoped: each block and struct body opens a scope.
 * Integers whose byte order is "native" or unset take the trace's byte
 * order, which a quick pre-scan finds before parsing (the trace block may
 * come after the first typealias, as in every LTTng trace).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/internal.h"
#include "reader/tsdl_lex.h"

#define MAX_DEPTH 64

struct alias {
	char *name;	/* "uint8_t", "struct foo", "enum bar", "variant v" */
	struct fc *fc;
};

struct scope {
	struct alias *a;
	uint32_t n, cap;
};

struct parser {
	struct lexer lx;
	const char *path;
	struct rd_err *err;
	struct trace_class *tc;
	struct scope scopes[MAX_DEPTH];
	int nscopes;
	int depth;		/* type nesting, bounded */
	int trace_bo;		/* -1 unknown, 0 le, 1 be */
	struct event_parse *pending;	/* events attached at the end */
	uint32_t npending;
	bool trace_seen;
};

/* A value on the right of `name = value;` */
enum val_kind { V_INT, V_STR, V_PATH };

struct val {
	enum val_kind kind;
	uint64_t u;
	bool neg;	/* V_INT: value is -u */
	char s[256];	/* V_STR, V_PATH */
};

static struct fc *parse_type_spec(struct parser *p);
static int register_named(struct parser *p, const char *kind, const char *name,
			  const struct fc *fc);
static int parse_struct_body(struct parser *p, struct fc *st);

/* ---- errors ---------------------------------------------------------- */

static int perr(struct parser *p, const char *what)
{
	size_t off = p->lx.tok.off;

	rd_err_set(p->err, "%s: offset %zu (line %u): %s", p->path, off,
		   lex_line(&p->lx, off), what);
	return -EINVAL;
}

static int perr_tok(struct parser *p, const char *what)
{
	char buf[200];

	if (p->lx.tok.type == TOK_ERROR)
		return perr(p, p->lx.tok.error);
	if (p->lx.tok.type == TOK_EOF) {
		snprintf(buf, sizeof(buf), "%s, found end of metadata", what);
	} else {
		size_t n = p->lx.tok.type == TOK_ID ? p->lx.tok.len : 1;

		if (n > 40)
			n = 40;
		snprintf(buf, sizeof(buf), "%s, found `%.*s`", what, (int)n,
			 p->lx.tok.start);
	}
	return perr(p, buf);
}

static void next(struct parser *p)
{
	lex_next(&p->lx);
}

static bool is_punct(struct parser *p, int c)
{
	return tok_is_punct(&p->lx.tok, c);
}

static bool is_id(struct parser *p, const char *s)
{
	return tok_is_id(&p->lx.tok, s);
}

static int expect(struct parser *p, int c)
{
	char what[32];

	if (!is_punct(p, c)) {
		if (c == 'A')
			snprintf(what, sizeof(what), "expected `:=`");
		else
			snprintf(what, sizeof(what), "expected `%c`", c);
		return perr_tok(p, what);
	}
	next(p);
	return 0;
}

/* ---- scopes ---------------------------------------------------------- */

static int scope_push(struct parser *p)
{
	if (p->nscopes >= MAX_DEPTH)
		return perr(p, "scopes nested too deeply");
	memset(&p->scopes[p->nscopes++], 0, sizeof(struct scope));
	return 0;
}

static void scope_pop(struct parser *p)
{
	struct scope *s = &p->scopes[--p->nscopes];
	uint32_t i;

	for (i = 0; i < s->n; i++) {
		free(s->a[i].name);
		fc_destroy(s->a[i].fc);
	}
	free(s->a);
}

/* Registers @fc (taken) under @name in the innermost scope. */
static int scope_add(struct parser *p, const char *name, struct fc *fc)
{
	struct scope *s = &p->scopes[p->nscopes - 1];
	uint32_t i;

	for (i = 0; i < s->n; i++) {
		if (strcmp(s->a[i].name, name) == 0) {
			fc_destroy(fc);
			return perr(p, "type name declared twice in the same scope");
		}
	}
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 8;
		struct alias *a = realloc(s->a, cap * sizeof(*a));

		if (!a) {
			fc_destroy(fc);
			return perr(p, "out of memory");
		}
		s->a = a;
		s->cap = cap;
	}
	s->a[s->n].name = strdup(name);
	if (!s->a[s->n].name) {
		fc_destroy(fc);
		return perr(p, "out of memory");
	}
	s->a[s->n++].fc = fc;
	return 0;
}

static const struct fc *scope_find(struct parser *p, const char *name)
{
	int i;
	uint32_t j;

	for (i = p->nscopes - 1; i >= 0; i--)
		for (j = 0; j < p->scopes[i].n; j++)
			if (strcmp(p->scopes[i].a[j].name, name) == 0)
				return p->scopes[i].a[j].fc;
	return NULL;
}

/* ---- values ---------------------------------------------------------- */

static bool is_c_type_word(const struct tok *t)
{
	static const char *const words[] = {
		"const", "char", "double", "float", "int", "long", "short",
		"signed", "unsigned", "void", "_Bool", "_Complex", "_Imaginary",
	};
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(words); i++)
		if (tok_is_id(t, words[i]))
			return true;
	return false;
}

/* Appends identifier text to a dotted path buffer. */
static int path_append(struct parser *p, char *buf, size_t cap, bool dot)
{
	size_t n = strlen(buf);
	size_t l = p->lx.tok.len;

	if (n + l + 2 > cap)
		return perr(p, "name too long");
	if (dot)
		buf[n++] = '.';
	memcpy(buf + n, p->lx.tok.start, l);
	buf[n + l] = '\0';
	return 0;
}

/* unary expression: [+-] INT | STRING | 'c' | ID { (.|->) ID } */
static int parse_value(struct parser *p, struct val *v)
{
	bool neg = false;

	memset(v, 0, sizeof(*v));
	if (is_punct(p, '-') || is_punct(p, '+')) {
		neg = is_punct(p, '-');
		next(p);
		if (p->lx.tok.type != TOK_INT)
			return perr_tok(p, "expected an integer after a sign");
	}
	switch (p->lx.tok.type) {
	case TOK_INT:
	case TOK_CHAR:
		if (p->lx.tok.overflow)
			return perr(p, "integer literal out of range");
		if (neg && p->lx.tok.u > (uint64_t)INT64_MAX + 1)
			return perr(p, "integer literal out of range");
		v->kind = V_INT;
		v->u = p->lx.tok.u;
		v->neg = neg && v->u != 0;
		next(p);
		return 0;
	case TOK_STR:
		if (strlen(p->lx.tok.s) >= sizeof(v->s))
			return perr(p, "string literal too long");
		v->kind = V_STR;
		strcpy(v->s, p->lx.tok.s);
		next(p);
		return 0;
	case TOK_ID:
		v->kind = V_PATH;
		if (path_append(p, v->s, sizeof(v->s), false))
			return -EINVAL;
		next(p);
		while (is_punct(p, '.') || is_punct(p, 'R')) {
			next(p);
			if (p->lx.tok.type != TOK_ID)
				return perr_tok(p, "expected a name after `.`");
			if (path_append(p, v->s, sizeof(v->s), true))
				return -EINVAL;
			next(p);
		}
		return 0;
	default:
		return perr_tok(p, "expected a value");
	}
}

static int val_u64(struct parser *p, const struct val *v, uint64_t *out)
{
	if (v->kind != V_INT || v->neg)
		return perr(p, "expected an unsigned integer");
	*out = v->u;
	return 0;
}

static int val_i64(struct parser *p, const struct val *v, int64_t *out)
{
	if (v->kind != V_INT)
		return perr(p, "expected an integer");
	if (v->neg) {
		*out = (int64_t)(0 - v->u);
	} else {
		if (v->u > (uint64_t)INT64_MAX)
			return perr(p, "integer literal out of range");
		*out = (int64_t)v->u;
	}
	return 0;
}

static int val_bool(struct parser *p, const struct val *v, bool *out)
{
	if (v->kind == V_INT && !v->neg && v->u <= 1) {
		*out = v->u;
		return 0;
	}
	if (v->kind == V_PATH) {
		if (!strcmp(v->s, "true") || !strcmp(v->s, "TRUE")) {
			*out = true;
			return 0;
		}
		if (!strcmp(v->s, "false") || !strcmp(v->s, "FALSE")) {
			*out = false;
			return 0;
		}
	}
	return perr(p, "expected a boolean");
}

/* returns 0 le, 1 be, 2 native; <0 error */
static int val_byte_order(struct parser *p, const struct val *v)
{
	if (v->kind == V_PATH) {
		if (!strcmp(v->s, "le") || !strcmp(v->s, "little_endian"))
			return 0;
		if (!strcmp(v->s, "be") || !strcmp(v->s, "big_endian") ||
		    !strcmp(v->s, "network"))
			return 1;
		if (!strcmp(v->s, "native"))
			return 2;
	}
	return perr(p, "invalid byte_order (expected le, be, network or native)");
}

static int parse_uuid(const char *s, uint8_t out[16])
{
	int i, j = 0;

	if (strlen(s) != 36)
		return -1;
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return -1;
			continue;
		}
		{
			int hi = s[i], lo = s[i + 1];
			int h = (hi >= '0' && hi <= '9') ? hi - '0' :
				(hi | 0x20) >= 'a' && (hi | 0x20) <= 'f' ? (hi | 0x20) - 'a' + 10 : -1;
			int l = (lo >= '0' && lo <= '9') ? lo - '0' :
				(lo | 0x20) >= 'a' && (lo | 0x20) <= 'f' ? (lo | 0x20) - 'a' + 10 : -1;

			if (h < 0 || l < 0 || i + 1 == 8 || i + 1 == 13 ||
			    i + 1 == 18 || i + 1 == 23)
				return -1;
			out[j++] = (uint8_t)(h << 4 | l);
			i++;
		}
	}
	return j == 16 ? 0 : -1;
}

/*
 * Parses `{ name = value; ... }` attribute lists of integer, floating_point
 * and string, calling @cb for each.
 */
typedef int (*attr_cb)(struct parser *p, struct fc *fc, const char *name,
		       const struct val *v);

static int parse_attr_block(struct parser *p, struct fc *fc, attr_cb cb)
{
	char name[128];
	struct val v;

	if (expect(p, '{'))
		return -EINVAL;
	while (!is_punct(p, '}')) {
		name[0] = '\0';
		if (p->lx.tok.type != TOK_ID)
			return perr_tok(p, "expected an attribute name");
		if (path_append(p, name, sizeof(name), false))
			return -EINVAL;
		next(p);
		while (is_punct(p, '.')) {
			next(p);
			if (p->lx.tok.type != TOK_ID)
				return perr_tok(p, "expected a name after `.`");
			if (path_append(p, name, sizeof(name), true))
				return -EINVAL;
			next(p);
		}
		if (expect(p, '='))
			return -EINVAL;
		if (parse_value(p, &v))
			return -EINVAL;
		if (cb(p, fc, name, &v))
			return -EINVAL;
		if (expect(p, ';'))
			return -EINVAL;
	}
	next(p);
	return 0;
}

static struct clock_class *find_clock(struct trace_class *tc, const char *name)
{
	uint32_t i;

	for (i = 0; i < tc->nclocks; i++)
		if (tc->clocks[i]->name && !strcmp(tc->clocks[i]->name, name))
			return tc->clocks[i];
	return NULL;
}

static int int_attr(struct parser *p, struct fc *fc, const char *name,
		    const struct val *v)
{
	uint64_t u;
	int bo;

	if (!strcmp(name, "size")) {
		if (val_u64(p, v, &u))
			return -EINVAL;
		if (u == 0 || u > 64)
			return perr(p, "integer size must be between 1 and 64 bits");
		fc->size = (uint32_t)u;
	} else if (!strcmp(name, "align")) {
		if (val_u64(p, v, &u))
			return -EINVAL;
		if (u == 0 || (u & (u - 1)) || u > (1u << 20))
			return perr(p, "alignment must be a power of two");
		fc->align = (uint32_t)u;
		fc->slot = -2;	/* marks "align set" until the block ends */
	} else if (!strcmp(name, "signed")) {
		return val_bool(p, v, &fc->is_signed);
	} else if (!strcmp(name, "byte_order")) {
		bo = val_byte_order(p, v);
		if (bo < 0)
			return -EINVAL;
		fc->big_endian = bo == 2 ? p->trace_bo == 1 : bo == 1;
	} else if (!strcmp(name, "base")) {
		if (v->kind == V_INT && !v->neg &&
		    (v->u == 2 || v->u == 8 || v->u == 10 || v->u == 16)) {
			fc->base = (uint8_t)v->u;
		} else if (v->kind == V_PATH) {
			const char *s = v->s;

			if (!strcmp(s, "decimal") || !strcmp(s, "dec") ||
			    !strcmp(s, "d") || !strcmp(s, "i") || !strcmp(s, "u"))
				fc->base = 10;
			else if (!strcmp(s, "hexadecimal") || !strcmp(s, "hex") ||
				 !strcmp(s, "x") || !strcmp(s, "X") || !strcmp(s, "p"))
				fc->base = 16;
			else if (!strcmp(s, "octal") || !strcmp(s, "oct") ||
				 !strcmp(s, "o"))
				fc->base = 8;
			else if (!strcmp(s, "binary") || !strcmp(s, "b"))
				fc->base = 2;
			else
				return perr(p, "invalid integer base");
		} else {
			return perr(p, "invalid integer base");
		}
	} else if (!strcmp(name, "encoding")) {
		if (v->kind != V_PATH)
			return perr(p, "invalid encoding");
		if (!strcmp(v->s, "none"))
			fc->encoding = 0;
		else if (!strcmp(v->s, "UTF8") || !strcmp(v->s, "utf8") ||
			 !strcmp(v->s, "ASCII") || !strcmp(v->s, "ascii"))
			fc->encoding = 1;
		else
			return perr(p, "invalid encoding");
	} else if (!strcmp(name, "map")) {
		char cname[256];
		size_t l;

		if (v->kind != V_PATH || strncmp(v->s, "clock.", 6) != 0)
			return perr(p, "invalid map (expected clock.NAME.value)");
		l = strlen(v->s + 6);
		if (l < 7 || strcmp(v->s + 6 + l - 6, ".value") != 0)
			return perr(p, "invalid map (expected clock.NAME.value)");
		memcpy(cname, v->s + 6, l - 6);
		cname[l - 6] = '\0';
		/* bound after parsing: clock blocks may come later in the text */
		free(fc->map_name);
		fc->map_name = strdup(cname);
		if (!fc->map_name)
			return perr(p, "out of memory");
	}
	return 0;
}

static struct fc *parse_integer(struct parser *p)
{
	struct fc *fc = fc_new(FC_INT);

	if (!fc) {
		perr(p, "out of memory");
		return NULL;
	}
	fc->big_endian = p->trace_bo == 1;
	fc->size = 0;
	next(p);	/* integer */
	if (parse_attr_block(p, fc, int_attr))
		goto error;
	if (fc->size == 0) {
		perr(p, "integer has no size");
		goto error;
	}
	if (fc->slot != -2)
		fc->align = fc->size % 8 ? 1 : 8;
	fc->slot = -1;
	return fc;
error:
	fc_destroy(fc);
	return NULL;
}

static int float_attr(struct parser *p, struct fc *fc, const char *name,
		      const struct val *v)
{
	uint64_t u;
	int bo;

	if (!strcmp(name, "exp_dig") || !strcmp(name, "mant_dig")) {
		if (val_u64(p, v, &u))
			return -EINVAL;
		if (u > 64)
			return perr(p, "invalid floating point digits");
		if (name[0] == 'e')
			fc->exp_dig = (uint32_t)u;
		else
			fc->mant_dig = (uint32_t)u;
	} else if (!strcmp(name, "align")) {
		if (val_u64(p, v, &u))
			return -EINVAL;
		if (u == 0 || (u & (u - 1)) || u > (1u << 20))
			return perr(p, "alignment must be a power of two");
		fc->align = (uint32_t)u;
		fc->slot = -2;
	} else if (!strcmp(name, "byte_order")) {
		bo = val_byte_order(p, v);
		if (bo < 0)
			return -EINVAL;
		fc->big_endian = bo == 2 ? p->trace_bo == 1 : bo == 1;
	}
	return 0;
}

static struct fc *parse_float(struct parser *p)
{
	struct fc *fc = fc_new(FC_FLOAT);

	if (!fc) {
		perr(p, "out of memory");
		return NULL;
	}
	fc->big_endian = p->trace_bo == 1;
	next(p);
	if (parse_attr_block(p, fc, float_attr))
		goto error;
	fc->size = fc->exp_dig + fc->mant_dig;
	if (!((fc->exp_dig == 8 && fc->mant_dig == 24) ||
	      (fc->exp_dig == 11 && fc->mant_dig == 53))) {
		perr(p, "unsupported floating point size (only 32 and 64 bits)");
		goto error;
	}
	if (fc->slot != -2)
		fc->align = 8;
	fc->slot = -1;
	return fc;
error:
	fc_destroy(fc);
	return NULL;
}

static int string_attr(struct parser *p, struct fc *fc, const char *name,
		       const struct val *v)
{
	(void)p;
	(void)fc;
	(void)name;
	(void)v;
	return 0;
}

static struct fc *parse_string(struct parser *p)
{
	struct fc *fc = fc_new(FC_STRING);

	if (!fc) {
		perr(p, "out of memory");
		return NULL;
	}
	next(p);
	if (is_punct(p, '{') && parse_attr_block(p, fc, string_attr)) {
		fc_destroy(fc);
		return NULL;
	}
	return fc;
}

/* Reads an optional name (identifier) after struct/variant/enum. */
static int opt_name(struct parser *p, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (p->lx.tok.type == TOK_ID) {
		if (p->lx.tok.len + 1 > cap)
			return perr(p, "name too long");
		memcpy(buf, p->lx.tok.start, p->lx.tok.len);
		buf[p->lx.tok.len] = '\0';
		next(p);
	}
	return 0;
}

static struct fc *lookup_copy(struct parser *p, const char *kind,
			      const char *name)
{
	char key[300];
	const struct fc *fc;
	struct fc *c;

	snprintf(key, sizeof(key), "%s%s%s", kind, *kind ? " " : "", name);
	fc = scope_find(p, key);
	if (!fc) {
		char msg[340];

		snprintf(msg, sizeof(msg), "unknown type `%s`", key);
		perr(p, msg);
		return NULL;
	}
	c = fc_copy(fc);
	if (!c)
		perr(p, "out of memory");
	return c;
}

static int add_enum_label(struct parser *p, struct fc *fc, const char *label,
			  int64_t lo, int64_t hi)
{
	uint32_t i;
	struct enum_range *r;

	for (i = 0; i < fc->nlabels; i++)
		if (!strcmp(fc->labels[i], label))
			break;
	if (i == fc->nlabels) {
		char **l = realloc(fc->labels, (fc->nlabels + 1) * sizeof(*l));

		if (!l)
			return perr(p, "out of memory");
		fc->labels = l;
		l[fc->nlabels] = strdup(label);
		if (!l[fc->nlabels])
			return perr(p, "out of memory");
		fc->nlabels++;
	}
	r = realloc(fc->ranges, (fc->nranges + 1) * sizeof(*r));
	if (!r)
		return perr(p, "out of memory");
	fc->ranges = r;
	r[fc->nranges].lo = lo;
	r[fc->nranges].hi = hi;
	r[fc->nranges].label = i;
	fc->nranges++;
	return 0;
}

static int enum_value(struct parser *p, const struct fc *fc, int64_t *out)
{
	struct val v;

	if (parse_value(p, &v))
		return -EINVAL;
	if (fc->is_signed)
		return val_i64(p, &v, out);
	if (val_u64(p, &v, (uint64_t *)out))
		return -EINVAL;
	return 0;
}

static int parse_enum_body(struct parser *p, struct fc *fc)
{
	int64_t next_val = 0;
	char label[256];

	if (expect(p, '{'))
		return -EINVAL;
	while (!is_punct(p, '}')) {
		int64_t lo, hi;

		if (p->lx.tok.type == TOK_STR) {
			if (strlen(p->lx.tok.s) >= sizeof(label))
				return perr(p, "enum label too long");
			strcpy(label, p->lx.tok.s);
		} else if (p->lx.tok.type == TOK_ID) {
			if (p->lx.tok.len >= sizeof(label))
				return perr(p, "enum label too long");
			memcpy(label, p->lx.tok.start, p->lx.tok.len);
			label[p->lx.tok.len] = '\0';
		} else {
			return perr_tok(p, "expected an enum label");
		}
		next(p);
		if (is_punct(p, '=')) {
			next(p);
			if (enum_value(p, fc, &lo))
				return -EINVAL;
			hi = lo;
			if (is_punct(p, 'E')) {
				next(p);
				if (enum_value(p, fc, &hi))
					return -EINVAL;
			}
		} else {
			lo = hi = next_val;
		}
		if (fc->is_signed ? lo > hi : (uint64_t)lo > (uint64_t)hi)
			return perr(p, "enum range is inverted");
		if (add_enum_label(p, fc, label, lo, hi))
			return -EINVAL;
		next_val = hi + 1;
		if (is_punct(p, ','))
			next(p);
		else if (!is_punct(p, '}'))
			return perr_tok(p, "expected `,` or `}` in enum");
	}
	next(p);
	return 0;
}

static struct fc *parse_enum(struct parser *p)
{
	char name[200];
	struct fc *fc = NULL;

	next(p);	/* enum */
	if (opt_name(p, name, sizeof(name)))
		return NULL;
	if (is_punct(p, ':')) {
		next(p);
		fc = parse_type_spec(p);
		if (!fc)
			return NULL;
	} else if (is_punct(p, '{')) {
		fc = lookup_copy(p, "", "int");
		if (!fc)
			return NULL;
	} else {
		if (!name[0]) {
			perr_tok(p, "expected an enum name or body");
			return NULL;
		}
		return lookup_copy(p, "enum", name);
	}
	if (fc->kind != FC_INT) {
		perr(p, "enum container type is not an integer");
		goto error;
	}
	fc->is_enum = true;
	if (parse_enum_body(p, fc))
		goto error;
	if (name[0] && register_named(p, "enum", name, fc))
		goto error;
	return fc;
error:
	fc_destroy(fc);
	return NULL;
}

static int register_named(struct parser *p, const char *kind, const char *name,
			  const struct fc *fc)
{
	char key[300];
	struct fc *c;

	snprintf(key, sizeof(key), "%s %s", kind, name);
	c = fc_copy(fc);
	if (!c)
		return perr(p, "out of memory");
	return scope_add(p, key, c);
}

static struct fc *parse_struct(struct parser *p)
{
	char name[200];
	struct fc *fc;
	uint64_t align;

	next(p);	/* struct */
	if (opt_name(p, name, sizeof(name)))
		return NULL;
	if (!is_punct(p, '{')) {
		if (!name[0]) {
			perr_tok(p, "expected a struct name or body");
			return NULL;
		}
		return lookup_copy(p, "struct", name);
	}
	fc = fc_new(FC_STRUCT);
	if (!fc) {
		perr(p, "out of memory");
		return NULL;
	}
	fc->align = 1;
	if (parse_struct_body(p, fc))
		goto error;
	if (is_id(p, "align")) {
		struct val v;

		next(p);
		if (expect(p, '(') || parse_value(p, &v) ||
		    val_u64(p, &v, &align) || expect(p, ')'))
			goto error;
		if (align == 0 || (align & (align - 1)) || align > (1u << 20)) {
			perr(p, "alignment must be a power of two");
			goto error;
		}
		if (align > fc->align)
			fc->align = (uint32_t)align;
	}
	if (name[0] && register_named(p, "struct", name, fc))
		goto error;
	return fc;
error:
	fc_destroy(fc);
	return NULL;
}

static struct fc *parse_variant(struct parser *p)
{
	char name[200], tag[256];
	struct fc *fc;

	next(p);	/* variant */
	if (opt_name(p, name, sizeof(name)))
		return NULL;
	tag[0] = '\0';
	if (is_punct(p, '<')) {
		next(p);
		if (p->lx.tok.type != TOK_ID) {
			perr_tok(p, "expected a variant tag name");
			return NULL;
		}
		if (path_append(p, tag, sizeof(tag), false))
			return NULL;
		next(p);
		while (is_punct(p, '.') || is_punct(p, 'R')) {
			next(p);
			if (p->lx.tok.type != TOK_ID) {
				perr_tok(p, "expected a name after `.`");
				return NULL;
			}
			if (path_append(p, tag, sizeof(tag), true))
				return NULL;
			next(p);
		}
		if (expect(p, '>'))
			return NULL;
	}
	if (!is_punct(p, '{')) {
		if (!name[0]) {
			perr_tok(p, "expected a variant name or body");
			return NULL;
		}
		fc = lookup_copy(p, "variant", name);
	} else {
		fc = fc_new(FC_VARIANT);
		if (!fc) {
			perr(p, "out of memory");
			return NULL;
		}
		fc->align = 1;
		if (parse_struct_body(p, fc))
			goto error;
		if (name[0] && register_named(p, "variant", name, fc))
			goto error;
	}
	if (!fc)
		return NULL;
	if (tag[0]) {
		free(fc->ref_path);
		fc->ref_path = strdup(tag);
		if (!fc->ref_path) {
			perr(p, "out of memory");
			goto error;
		}
	}
	return fc;
error:
	fc_destroy(fc);
	return NULL;
}

/* An alias name made of C type words and at most one identifier. */
static struct fc *parse_named_type(struct parser *p)
{
	char name[256];
	bool have_word = false;

	name[0] = '\0';
	while (p->lx.tok.type == TOK_ID) {
		if (is_c_type_word(&p->lx.tok)) {
			size_t n = strlen(name);

			if (n + p->lx.tok.len + 2 > sizeof(name)) {
				perr(p, "type name too long");
				return NULL;
			}
			if (n)
				name[n++] = ' ';
			memcpy(name + n, p->lx.tok.start, p->lx.tok.len);
			name[n + p->lx.tok.len] = '\0';
			have_word = true;
			next(p);
			continue;
		}
		if (have_word || name[0])
			break;
		if (path_append(p, name, sizeof(name), false))
			return NULL;
		next(p);
		break;
	}
	if (!name[0]) {
		perr_tok(p, "expected a type");
		return NULL;
	}
	{
		/* "const" qualifies, it is not part of the name */
		char *s = name;

		while (!strncmp(s, "const ", 6))
			s += 6;
		return lookup_copy(p, "", s);
	}
}

static struct fc *parse_type_spec(struct parser *p)
{
	struct fc *fc;

	if (++p->depth > MAX_DEPTH) {
		perr(p, "types nested too deeply");
		p->depth--;
		return NULL;
	}
	while (is_id(p, "const"))
		next(p);
	if (is_id(p, "integer"))
		fc = parse_integer(p);
	else if (is_id(p, "floating_point"))
		fc = parse_float(p);
	else if (is_id(p, "string"))
		fc = parse_string(p);
	else if (is_id(p, "enum"))
		fc = parse_enum(p);
	else if (is_id(p, "struct"))
		fc = parse_struct(p);
	else if (is_id(p, "variant"))
		fc = parse_variant(p);
	else if (p->lx.tok.type == TOK_ID)
		fc = parse_named_type(p);
	else {
		perr_tok(p, "expected a type");
		fc = NULL;
	}
	p->depth--;
	return fc;
}

/*
 * declarator: ['*'...] NAME { '[' (INT | PATH) ']' }
 * Takes @base; returns the declared type in *out and the name in @name.
 */
static int parse_declarator(struct parser *p, struct fc *base, char *name,
			    size_t cap, struct fc **out)
{
	struct fc *dims[16];
	int ndims = 0, i;
	struct fc *t = base;

	while (is_punct(p, '*'))
		next(p);
	if (p->lx.tok.type != TOK_ID) {
		fc_destroy(base);
		return perr_tok(p, "expected a field name");
	}
	if (p->lx.tok.len + 1 > cap) {
		fc_destroy(base);
		return perr(p, "field name too long");
	}
	memcpy(name, p->lx.tok.start, p->lx.tok.len);
	name[p->lx.tok.len] = '\0';
	next(p);
	while (is_punct(p, '[')) {
		struct val v;
		struct fc *d;

		next(p);
		if (ndims == (int)TRAWL_ARRAY_SIZE(dims)) {
			perr(p, "too many array dimensions");
			goto error;
		}
		if (parse_value(p, &v) || expect(p, ']'))
			goto error;
		if (v.kind == V_INT) {
			if (v.neg) {
				perr(p, "negative array length");
				goto error;
			}
			d = fc_new(FC_ARRAY);
			if (d)
				d->length = v.u;
		} else if (v.kind == V_PATH) {
			d = fc_new(FC_SEQ);
			if (d && !(d->ref_path = strdup(v.s))) {
				fc_destroy(d);
				d = NULL;
			}
		} else {
			perr(p, "invalid array length");
			goto error;
		}
		if (!d) {
			perr(p, "out of memory");
			goto error;
		}
		dims[ndims++] = d;
	}
	/* x[a][b]: an array of a arrays of b elements; innermost is last */
	for (i = ndims - 1; i >= 0; i--) {
		dims[i]->elem = t;
		dims[i]->align = t->align;
		t = dims[i];
	}
	*out = t;
	return 0;
error:
	for (i = 0; i < ndims; i++)
		fc_destroy(dims[i]);
	fc_destroy(base);
	return -EINVAL;
}

static int struct_add_member(struct parser *p, struct fc *st, const char *name,
			     struct fc *fc)
{
	struct member *m;
	uint32_t i;

	for (i = 0; i < st->nmembers; i++) {
		if (!strcmp(st->members[i].name, name)) {
			fc_destroy(fc);
			return perr(p, "duplicate field name");
		}
	}
	if (st->nmembers >= 65536) {
		fc_destroy(fc);
		return perr(p, "too many fields");
	}
	m = realloc(st->members, (st->nmembers + 1) * sizeof(*m));
	if (!m) {
		fc_destroy(fc);
		return perr(p, "out of memory");
	}
	st->members = m;
	m[st->nmembers].name = strdup(name);
	if (!m[st->nmembers].name) {
		fc_destroy(fc);
		return perr(p, "out of memory");
	}
	m[st->nmembers].fc = fc;
	st->nmembers++;
	if (st->kind == FC_STRUCT && fc->align > st->align)
		st->align = fc->align;
	return 0;
}

/* typealias T [abstract-declarator] := NAME WORDS ; */
static int parse_typealias(struct parser *p)
{
	struct fc *fc;
	char name[256];

	next(p);	/* typealias */
	fc = parse_type_spec(p);
	if (!fc)
		return -EINVAL;
	while (is_punct(p, '*'))
		next(p);
	if (!is_punct(p, 'A')) {
		fc_destroy(fc);
		return perr_tok(p, "expected `:=` in typealias");
	}
	next(p);
	name[0] = '\0';
	while (p->lx.tok.type == TOK_ID) {
		size_t n = strlen(name);

		if (n + p->lx.tok.len + 2 > sizeof(name)) {
			fc_destroy(fc);
			return perr(p, "type name too long");
		}
		if (n)
			name[n++] = ' ';
		memcpy(name + n, p->lx.tok.start, p->lx.tok.len);
		name[n + p->lx.tok.len] = '\0';
		next(p);
	}
	while (is_punct(p, '*'))
		next(p);
	if (!name[0]) {
		fc_destroy(fc);
		return perr_tok(p, "expected an alias name");
	}
	if (scope_add(p, name, fc))
		return -EINVAL;
	return expect(p, ';');
}

/* typedef T declarator {, declarator} ; */
static int parse_typedef(struct parser *p)
{
	struct fc *base, *fc;
	char name[256];

	next(p);	/* typedef */
	base = parse_type_spec(p);
	if (!base)
		return -EINVAL;
	for (;;) {
		struct fc *c = fc_copy(base);

		if (!c) {
			fc_destroy(base);
			return perr(p, "out of memory");
		}
		if (parse_declarator(p, c, name, sizeof(name), &fc)) {
			fc_destroy(base);
			return -EINVAL;
		}
		if (scope_add(p, name, fc)) {
			fc_destroy(base);
			return -EINVAL;
		}
		if (!is_punct(p, ','))
			break;
		next(p);
	}
	fc_destroy(base);
	return expect(p, ';');
}

/* T [declarator {, declarator}] ; inside a struct or variant body */
static int parse_field_decl(struct parser *p, struct fc *st)
{
	struct fc *base, *fc;
	char name[256];

	base = parse_type_spec(p);
	if (!base)
		return -EINVAL;
	if (is_punct(p, ';')) {	/* a named type definition only */
		fc_destroy(base);
		next(p);
		return 0;
	}
	for (;;) {
		struct fc *c = fc_copy(base);

		if (!c) {
			fc_destroy(base);
			return perr(p, "out of memory");
		}
		if (parse_declarator(p, c, name, sizeof(name), &fc) ||
		    struct_add_member(p, st, name, fc)) {
			fc_destroy(base);
			return -EINVAL;
		}
		if (!is_punct(p, ','))
			break;
		next(p);
	}
	fc_destroy(base);
	return expect(p, ';');
}

static int parse_struct_body(struct parser *p, struct fc *st)
{
	int ret = 0;

	if (expect(p, '{'))
		return -EINVAL;
	if (scope_push(p))
		return -EINVAL;
	while (!is_punct(p, '}')) {
		if (p->lx.tok.type == TOK_EOF || p->lx.tok.type == TOK_ERROR) {
			ret = perr_tok(p, "expected `}`");
			break;
		}
		if (is_id(p, "typealias"))
			ret = parse_typealias(p);
		else if (is_id(p, "typedef"))
			ret = parse_typedef(p);
		else
			ret = parse_field_decl(p, st);
		if (ret)
			break;
	}
	scope_pop(p);
	if (ret)
		return ret;
	next(p);
	return 0;
}

/* ---- blocks ---------------------------------------------------------- */

/*
 * One entry of a trace/stream/event/clock/env block: typealias, typedef,
 * `name = value;` (@cb_val) or `name := type;` (@cb_type).
 */
typedef int (*entry_val_cb)(struct parser *p, void *obj, const char *name,
			    const struct val *v);
typedef int (*entry_type_cb)(struct parser *p, void *obj, const char *name,
			     struct fc *fc);

static int parse_block(struct parser *p, void *obj, entry_val_cb cb_val,
		       entry_type_cb cb_type)
{
	char name[256];
	int ret = 0;

	next(p);	/* block keyword */
	if (expect(p, '{'))
		return -EINVAL;
	if (scope_push(p))
		return -EINVAL;
	while (!is_punct(p, '}')) {
		if (is_id(p, "typealias")) {
			ret = parse_typealias(p);
		} else if (is_id(p, "typedef")) {
			ret = parse_typedef(p);
		} else if (p->lx.tok.type == TOK_ID) {
			struct val v;

			name[0] = '\0';
			ret = path_append(p, name, sizeof(name), false);
			next(p);
			while (!ret && (is_punct(p, '.') || is_punct(p, 'R'))) {
				next(p);
				if (p->lx.tok.type != TOK_ID) {
					ret = perr_tok(p, "expected a name after `.`");
					break;
				}
				ret = path_append(p, name, sizeof(name), true);
				next(p);
			}
			if (ret)
				break;
			if (is_punct(p, 'A')) {
				struct fc *fc;

				next(p);
				fc = parse_type_spec(p);
				if (!fc) {
					ret = -EINVAL;
					break;
				}
				while (is_punct(p, '*'))
					next(p);
				ret = cb_type ? cb_type(p, obj, name, fc) :
						(fc_destroy(fc), perr(p, "unexpected type assignment"));
			} else if (is_punct(p, '=')) {
				next(p);
				ret = parse_value(p, &v);
				if (!ret)
					ret = cb_val(p, obj, name, &v);
			} else {
				ret = perr_tok(p, "expected `=` or `:=`");
			}
			if (!ret)
				ret = expect(p, ';');
		} else {
			ret = perr_tok(p, "expected an attribute or `}`");
		}
		if (ret)
			break;
	}
	scope_pop(p);
	if (ret)
		return ret;
	next(p);
	return expect(p, ';');
}

static int root_struct(struct parser *p, struct fc *fc, struct fc **slot)
{
	if (*slot) {
		fc_destroy(fc);
		return perr(p, "scope declared twice");
	}
	if (fc->kind != FC_STRUCT) {
		fc_destroy(fc);
		return perr(p, "a scope's type must be a struct");
	}
	*slot = fc;
	return 0;
}

static int trace_val(struct parser *p, void *obj, const char *name,
		     const struct val *v)
{
	struct trace_class *tc = obj;
	uint64_t u;

	if (!strcmp(name, "major") || !strcmp(name, "minor")) {
		if (val_u64(p, v, &u))
			return -EINVAL;
		if (name[1] == 'a') {
			if (u != 1)
				return perr(p, "unsupported trace major version (expected 1)");
			tc->major = 1;
		} else {
			if (u != 8)
				return perr(p, "unsupported trace minor version (expected 8)");
			tc->minor = 8;
		}
	} else if (!strcmp(name, "uuid")) {
		if (v->kind != V_STR || parse_uuid(v->s, tc->uuid))
			return perr(p, "invalid trace uuid");
		tc->has_uuid = true;
	} else if (!strcmp(name, "byte_order")) {
		int bo = val_byte_order(p, v);

		if (bo < 0)
			return -EINVAL;
		if (bo == 2)
			return perr(p, "trace byte_order cannot be native");
		tc->big_endian = bo == 1;
		tc->byte_order_set = true;
	}
	return 0;
}

static int trace_type(struct parser *p, void *obj, const char *name,
		      struct fc *fc)
{
	struct trace_class *tc = obj;

	if (!strcmp(name, "packet.header"))
		return root_struct(p, fc, &tc->packet_header);
	fc_destroy(fc);
	return 0;
}

static int parse_trace(struct parser *p)
{
	if (p->trace_seen)
		return perr(p, "duplicate trace block");
	p->trace_seen = true;
	if (parse_block(p, p->tc, trace_val, trace_type))
		return -EINVAL;
	if (!p->tc->major || !p->tc->minor)
		return perr(p, "trace block lacks major or minor");
	if (!p->tc->byte_order_set)
		return perr(p, "trace block lacks byte_order");
	return 0;
}

static int env_val(struct parser *p, void *obj, const char *name,
		   const struct val *v)
{
	struct trace_class *tc = obj;
	struct env_entry *e;
	uint32_t i;

	for (i = 0; i < tc->nenv; i++)
		if (!strcmp(tc->env[i].name, name))
			break;
	if (i == tc->nenv) {
		e = realloc(tc->env, (tc->nenv + 1) * sizeof(*e));
		if (!e)
			return perr(p, "out of memory");
		tc->env = e;
		memset(&e[i], 0, sizeof(*e));
		e[i].name = strdup(name);
		if (!e[i].name)
			return perr(p, "out of memory");
		tc->nenv++;
	}
	e = &tc->env[i];
	free(e->str);
	e->str = NULL;
	if (v->kind == V_INT) {
		e->type = ENV_INT;
		if (val_i64(p, v, &e->i))
			return -EINVAL;
	} else {
		e->type = ENV_STR;
		e->str = strdup(v->s);
		if (!e->str)
			return perr(p, "out of memory");
		if (!strcmp(name, "tracer_name") && !strncmp(v->s, "lttng", 5))
			tc->is_lttng = true;
	}
	return 0;
}

static int clock_val(struct parser *p, void *obj, const char *name,
		     const struct val *v)
{
	struct clock_class *cc = obj;

	if (!strcmp(name, "name")) {
		if (v->kind == V_INT)
			return perr(p, "invalid clock name");
		free(cc->name);
		cc->name = strdup(v->s);
		return cc->name ? 0 : perr(p, "out of memory");
	} else if (!strcmp(name, "description")) {
		if (v->kind != V_STR)
			return perr(p, "invalid clock description");
		free(cc->description);
		cc->description = strdup(v->s);
		return cc->description ? 0 : perr(p, "out of memory");
	} else if (!strcmp(name, "uuid")) {
		if (v->kind != V_STR || parse_uuid(v->s, cc->uuid))
			return perr(p, "invalid clock uuid");
		cc->has_uuid = true;
	} else if (!strcmp(name, "freq")) {
		if (val_u64(p, v, &cc->freq))
			return -EINVAL;
		if (cc->freq == 0)
			return perr(p, "clock frequency is zero");
	} else if (!strcmp(name, "precision")) {
		return val_u64(p, v, &cc->precision);
	} else if (!strcmp(name, "offset_s")) {
		return val_i64(p, v, &cc->offset_s);
	} else if (!strcmp(name, "offset")) {
		uint64_t u;

		if (val_u64(p, v, &u))
			return -EINVAL;
		if (u > (uint64_t)INT64_MAX)
			return perr(p, "clock offset out of range");
		cc->offset = (int64_t)u;
	} else if (!strcmp(name, "absolute")) {
		return val_bool(p, v, &cc->absolute);
	}
	return 0;
}

static int parse_clock(struct parser *p)
{
	struct clock_class *cc = calloc(1, sizeof(*cc));
	struct clock_class **a;

	if (!cc)
		return perr(p, "out of memory");
	cc->freq = 1000000000ULL;
	if (parse_block(p, cc, clock_val, NULL))
		goto error;
	if (!cc->name) {
		perr(p, "clock has no name");
		goto error;
	}
	if (find_clock(p->tc, cc->name)) {
		perr(p, "duplicate clock name");
		goto error;
	}
	if (cc->offset_s > INT64_MAX / 1000000000LL ||
	    cc->offset_s < INT64_MIN / 1000000000LL) {
		perr(p, "clock offset_s out of range");
		goto error;
	}
	clock_class_finish(cc);
	a = realloc(p->tc->clocks, (p->tc->nclocks + 1) * sizeof(*a));
	if (!a) {
		perr(p, "out of memory");
		goto error;
	}
	p->tc->clocks = a;
	a[p->tc->nclocks++] = cc;
	return 0;
error:
	free(cc->name);
	free(cc->description);
	free(cc);
	return -EINVAL;
}

struct stream_parse {
	struct stream_class *sc;
	bool id_set;
};

static int stream_val(struct parser *p, void *obj, const char *name,
		      const struct val *v)
{
	struct stream_parse *sp = obj;

	if (!strcmp(name, "id")) {
		if (val_u64(p, v, &sp->sc->id))
			return -EINVAL;
		sp->id_set = true;
	}
	return 0;
}

static int stream_type(struct parser *p, void *obj, const char *name,
		       struct fc *fc)
{
	struct stream_parse *sp = obj;

	if (!strcmp(name, "packet.context"))
		return root_struct(p, fc, &sp->sc->packet_context);
	if (!strcmp(name, "event.header"))
		return root_struct(p, fc, &sp->sc->event_header);
	if (!strcmp(name, "event.context"))
		return root_struct(p, fc, &sp->sc->event_context);
	fc_destroy(fc);
	return 0;
}

static void stream_class_destroy(struct stream_class *sc)
{
	uint32_t i;

	if (!sc)
		return;
	fc_destroy(sc->packet_context);
	fc_destroy(sc->event_header);
	fc_destroy(sc->event_context);
	for (i = 0; i < sc->nevents; i++) {
		int k;

		for (k = 0; k < 32; k++)
			rd_plan_destroy(sc->events[i]->plans[k]);
		free(sc->events[i]->name);
		free(sc->events[i]->emf_uri);
		fc_destroy(sc->events[i]->context);
		fc_destroy(sc->events[i]->payload);
		free(sc->events[i]);
	}
	free(sc->events);
	free(sc);
}

static struct stream_class *find_stream(struct trace_class *tc, uint64_t id)
{
	uint32_t i;

	for (i = 0; i < tc->nstreams; i++)
		if (tc->streams[i]->id == id)
			return tc->streams[i];
	return NULL;
}

static int add_stream(struct parser *p, struct stream_class *sc)
{
	struct stream_class **a;

	if (find_stream(p->tc, sc->id))
		return perr(p, "duplicate stream class id");
	a = realloc(p->tc->streams, (p->tc->nstreams + 1) * sizeof(*a));
	if (!a)
		return perr(p, "out of memory");
	p->tc->streams = a;
	a[p->tc->nstreams++] = sc;
	return 0;
}

static int parse_stream(struct parser *p)
{
	struct stream_parse sp = { 0 };

	sp.sc = calloc(1, sizeof(*sp.sc));
	if (!sp.sc)
		return perr(p, "out of memory");
	if (parse_block(p, &sp, stream_val, stream_type))
		goto error;
	if (!sp.id_set && p->tc->nstreams) {
		perr(p, "stream class lacks an id while there are several");
		goto error;
	}
	if (sp.id_set && !fc_struct_member(p->tc->packet_header, "stream_id") &&
	    p->tc->nstreams) {
		perr(p, "stream class has an id but the packet header has no stream_id");
		goto error;
	}
	if (add_stream(p, sp.sc))
		goto error;
	return 0;
error:
	stream_class_destroy(sp.sc);
	return -EINVAL;
}

struct event_parse {
	struct event_class *ec;
	bool id_set, sid_set;
	uint64_t sid;
};

static int event_val(struct parser *p, void *obj, const char *name,
		     const struct val *v)
{
	struct event_parse *ep = obj;

	if (!strcmp(name, "name")) {
		if (v->kind == V_INT)
			return perr(p, "invalid event name");
		free(ep->ec->name);
		ep->ec->name = strdup(v->s);
		return ep->ec->name ? 0 : perr(p, "out of memory");
	} else if (!strcmp(name, "id")) {
		if (val_u64(p, v, &ep->ec->id))
			return -EINVAL;
		ep->id_set = true;
	} else if (!strcmp(name, "stream_id")) {
		if (val_u64(p, v, &ep->sid))
			return -EINVAL;
		ep->sid_set = true;
	} else if (!strcmp(name, "loglevel")) {
		if (val_i64(p, v, &ep->ec->loglevel))
			return -EINVAL;
		ep->ec->has_loglevel = true;
	} else if (!strcmp(name, "model.emf.uri")) {
		if (v->kind != V_STR)
			return perr(p, "invalid model.emf.uri");
		free(ep->ec->emf_uri);
		ep->ec->emf_uri = strdup(v->s);
		return ep->ec->emf_uri ? 0 : perr(p, "out of memory");
	}
	return 0;
}

static int event_type(struct parser *p, void *obj, const char *name,
		      struct fc *fc)
{
	struct event_parse *ep = obj;

	if (!strcmp(name, "context"))
		return root_struct(p, fc, &ep->ec->context);
	if (!strcmp(name, "fields"))
		return root_struct(p, fc, &ep->ec->payload);
	fc_destroy(fc);
	return 0;
}

static int attach_event(struct parser *p, struct event_parse *ep)
{
	struct stream_class *sc;
	struct event_class **a;

	if (ep->sid_set) {
		sc = find_stream(p->tc, ep->sid);
		if (!sc)
			return perr(p, "event refers to an unknown stream class");
	} else if (p->tc->nstreams == 1) {
		sc = p->tc->streams[0];
	} else if (p->tc->nstreams == 0) {
		sc = calloc(1, sizeof(*sc));
		if (!sc)
			return perr(p, "out of memory");
		if (add_stream(p, sc)) {
			free(sc);
			return -EINVAL;
		}
	} else {
		return perr(p, "event lacks stream_id while there are several stream classes");
	}
	if (!ep->id_set && sc->nevents)
		return perr(p, "event lacks an id while its stream has several events");
	if (stream_class_event(sc, ep->ec->id))
		return perr(p, "duplicate event id in stream class");
	a = realloc(sc->events, (sc->nevents + 1) * sizeof(*a));
	if (!a)
		return perr(p, "out of memory");
	sc->events = a;
	a[sc->nevents++] = ep->ec;
	ep->ec->sc = sc;
	if (ep->ec->id < 256)
		sc->by_id[ep->ec->id] = ep->ec;
	return 0;
}

static void event_class_free(struct event_class *ec)
{
	free(ec->name);
	free(ec->emf_uri);
	fc_destroy(ec->context);
	fc_destroy(ec->payload);
	free(ec);
}

/*
 * Events may come before their stream class (LTTng writes them so): they
 * wait in a list and are attached once the whole metadata is parsed.
 */
static int parse_event(struct parser *p)
{
	struct event_parse ep = { 0 }, *a;

	ep.ec = calloc(1, sizeof(*ep.ec));
	if (!ep.ec)
		return perr(p, "out of memory");
	if (parse_block(p, &ep, event_val, event_type))
		goto error;
	a = realloc(p->pending, (p->npending + 1) * sizeof(*a));
	if (!a) {
		perr(p, "out of memory");
		goto error;
	}
	p->pending = a;
	a[p->npending++] = ep;
	return 0;
error:
	event_class_free(ep.ec);
	return -EINVAL;
}

static int attach_pending(struct parser *p)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; i < p->npending; i++) {
		if (!ret) {
			ret = attach_event(p, &p->pending[i]);
			if (!ret)
				continue;
		}
		event_class_free(p->pending[i].ec);
	}
	free(p->pending);
	p->pending = NULL;
	p->npending = 0;
	return ret;
}

static int ignore_val(struct parser *p, void *obj, const char *name,
		      const struct val *v)
{
	(void)p;
	(void)obj;
	(void)name;
	(void)v;
	return 0;
}

static int ignore_type(struct parser *p, void *obj, const char *name,
		       struct fc *fc)
{
	(void)p;
	(void)obj;
	(void)name;
	fc_destroy(fc);
	return 0;
}

/* Finds `byte_order = X` at depth 1 of the trace block without parsing. */
static int prescan_byte_order(const char *text, size_t len)
{
	struct lexer lx;
	int depth = 0, state = 0, bo = -1;

	lex_init(&lx, text, len);
	while (lex_next(&lx) != TOK_EOF && lx.tok.type != TOK_ERROR) {
		if (state == 0 && depth == 0 && tok_is_id(&lx.tok, "trace")) {
			state = 1;
		} else if (tok_is_punct(&lx.tok, '{')) {
			depth++;
			if (state == 1)
				state = 2;
		} else if (tok_is_punct(&lx.tok, '}')) {
			depth--;
			if (state == 2 && depth == 0)
				break;
		} else if (state == 2 && depth == 1 &&
			   tok_is_id(&lx.tok, "byte_order")) {
			if (lex_next(&lx) != TOK_PUNCT || lx.tok.p != '=')
				continue;
			lex_next(&lx);
			if (tok_is_id(&lx.tok, "be") || tok_is_id(&lx.tok, "big_endian") ||
			    tok_is_id(&lx.tok, "network"))
				bo = 1;
			else if (tok_is_id(&lx.tok, "le") ||
				 tok_is_id(&lx.tok, "little_endian"))
				bo = 0;
			break;
		} else if (state == 1) {
			state = 0;
		}
	}
	lex_fini(&lx);
	return bo;
}

static int parse_top(struct parser *p)
{
	while (p->lx.tok.type != TOK_EOF) {
		int ret;

		if (p->lx.tok.type == TOK_ERROR)
			return perr(p, p->lx.tok.error);
		if (is_id(p, "trace"))
			ret = parse_trace(p);
		else if (is_id(p, "clock"))
			ret = parse_clock(p);
		else if (is_id(p, "stream"))
			ret = parse_stream(p);
		else if (is_id(p, "event"))
			ret = parse_event(p);
		else if (is_id(p, "env"))
			ret = parse_block(p, p->tc, env_val, NULL);
		else if (is_id(p, "callsite"))
			ret = parse_block(p, NULL, ignore_val, ignore_type);
		else if (is_id(p, "typealias"))
			ret = parse_typealias(p);
		else if (is_id(p, "typedef"))
			ret = parse_typedef(p);
		else if (is_id(p, "struct") || is_id(p, "variant") ||
			 is_id(p, "enum")) {
			struct fc *fc = parse_type_spec(p);

			fc_destroy(fc);
			ret = fc ? expect(p, ';') : -EINVAL;
		} else {
			ret = perr_tok(p, "expected a declaration");
		}
		if (ret)
			return ret;
	}
	return 0;
}

int tsdl_parse(const char *text, size_t len, const char *path,
	       struct trace_class **out, struct rd_err *err)
{
	struct parser *p = calloc(1, sizeof(*p));
	int ret;

	if (!p)
		return -ENOMEM;
	p->path = path;
	p->err = err;
	p->tc = calloc(1, sizeof(*p->tc));
	if (!p->tc) {
		free(p);
		return -ENOMEM;
	}
	p->trace_bo = prescan_byte_order(text, len);
	lex_init(&p->lx, text, len);
	ret = scope_push(p);
	if (!ret) {
		next(p);
		ret = parse_top(p);
		while (p->nscopes)
			scope_pop(p);
		if (!ret && !p->trace_seen)
			ret = perr(p, "no trace block in metadata");
		if (ret) {
			uint32_t i;

			for (i = 0; i < p->npending; i++)
				event_class_free(p->pending[i].ec);
			free(p->pending);
		} else {
			ret = attach_pending(p);
		}
	}
	lex_fini(&p->lx);
	if (ret) {
		trace_class_destroy(p->tc);
		free(p);
		return ret < 0 ? ret : -EINVAL;
	}
	*out = p->tc;
	free(p);
	return 0;
}

struct event_class *stream_class_event(const struct stream_class *sc,
				       uint64_t id)
{
	uint32_t i;

	if (id < 256)
		return sc->by_id[id];
	for (i = 0; i < sc->nevents; i++)
		if (sc->events[i]->id == id)
			return sc->events[i];
	return NULL;
}

const struct env_entry *trace_class_env(const struct trace_class *tc,
					const char *name)
{
	uint32_t i;

	for (i = 0; i < tc->nenv; i++)
		if (!strcmp(tc->env[i].name, name))
			return &tc->env[i];
	return NULL;
}

void trace_class_destroy(struct trace_class *tc)
{
	uint32_t i;

	if (!tc)
		return;
	fc_destroy(tc->packet_header);
	for (i = 0; i < tc->nstreams; i++)
		stream_class_destroy(tc->streams[i]);
	free(tc->streams);
	for (i = 0; i < tc->nclocks; i++) {
		free(tc->clocks[i]->name);
		free(tc->clocks[i]->description);
		free(tc->clocks[i]);
	}
	free(tc->clocks);
	for (i = 0; i < tc->nenv; i++) {
		free(tc->env[i].name);
		free(tc->env[i].str);
	}
	free(tc->env);
	free(tc->text);
	free(tc);
}
