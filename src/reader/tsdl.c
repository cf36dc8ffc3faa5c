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

#include "common/array.h"
#include "common/common.h"
#include "reader/internal.h"
#include "reader/tsdl_lex.h"
#include "reader/tsdl_int.h"

static int parse_struct_body(struct parser *p, struct fc *st);

/*
 * Named types are copied at each use, so a few lines of metadata could
 * describe an exponential number of fields (struct B { A a, b; } ...):
 * the copies a parse may make are counted and capped.
 */
#define TP_MAX_NODES (1u << 20)

static uint64_t fc_nodes(const struct fc *fc)
{
	uint64_t n = 1;
	uint32_t i;

	for (i = 0; i < fc->nmembers; i++)
		n += fc_nodes(fc->members[i].fc);
	if (fc->elem)
		n += fc_nodes(fc->elem);
	return n;
}

static struct fc *tp_copy(struct parser *p, const struct fc *src)
{
	struct fc *c;

	p->nodes += fc_nodes(src);
	if (p->nodes > TP_MAX_NODES) {
		tp_err(p, "metadata describes too many fields (more than 1 M after expanding named types)");
		return NULL;
	}
	c = fc_copy(src);
	if (!c)
		tp_err(p, "out of memory");
	return c;
}

/* ---- errors ---------------------------------------------------------- */

int tp_err(struct parser *p, const char *what)
{
	size_t off = p->lx.tok.off;

	rd_err_set(p->err, "%s: offset %zu (line %u): %s", p->path, off,
		   lex_line(&p->lx, off), what);
	return -EINVAL;
}

int tp_err_tok(struct parser *p, const char *what)
{
	char buf[200];

	if (p->lx.tok.type == TOK_ERROR)
		return tp_err(p, p->lx.tok.error);
	if (p->lx.tok.type == TOK_EOF) {
		trawl_msg_fmt(buf, sizeof(buf), "%s, found end of metadata", what);
	} else {
		size_t n = p->lx.tok.type == TOK_ID ? p->lx.tok.len : 1;

		if (n > 40)
			n = 40;
		trawl_msg_fmt(buf, sizeof(buf), "%s, found `%.*s`", what, (int)n, p->lx.tok.start);
	}
	return tp_err(p, buf);
}

void tp_next(struct parser *p)
{
	lex_next(&p->lx);
}

bool tp_is_punct(struct parser *p, int c)
{
	return tok_is_punct(&p->lx.tok, c);
}

bool tp_is_id(struct parser *p, const char *s)
{
	return tok_is_id(&p->lx.tok, s);
}

int tp_expect(struct parser *p, int c)
{
	char what[32];

	if (!tp_is_punct(p, c)) {
		if (c == 'A')
			snprintf(what, sizeof(what), "expected `:=`");
		else
			snprintf(what, sizeof(what), "expected `%c`", c);
		return tp_err_tok(p, what);
	}
	tp_next(p);
	return 0;
}

/* ---- scopes ---------------------------------------------------------- */

int tp_scope_push(struct parser *p)
{
	if (p->nscopes >= MAX_DEPTH)
		return tp_err(p, "scopes nested too deeply");
	memset(&p->scopes[p->nscopes++], 0, sizeof(struct scope));
	return 0;
}

void tp_scope_pop(struct parser *p)
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
			return tp_err(p, "type name declared twice in the same scope");
		}
	}
	if (trawl_array_grow((void **)&s->a, &s->cap, (size_t)s->n + 1, sizeof(*s->a), 8)) {
		fc_destroy(fc);
		return tp_err(p, "out of memory");
	}
	s->a[s->n].name = strdup(name);
	if (!s->a[s->n].name) {
		fc_destroy(fc);
		return tp_err(p, "out of memory");
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
int tp_path_append(struct parser *p, char *buf, size_t cap, bool dot)
{
	size_t n = strlen(buf);
	size_t l = p->lx.tok.len;

	if (n + l + 2 > cap)
		return tp_err(p, "name too long");
	if (dot)
		buf[n++] = '.';
	memcpy(buf + n, p->lx.tok.start, l);
	buf[n + l] = '\0';
	return 0;
}

/* unary expression: [+-] INT | STRING | 'c' | ID { (.|->) ID } */
int tp_value(struct parser *p, struct val *v)
{
	bool neg = false;

	memset(v, 0, sizeof(*v));
	if (tp_is_punct(p, '-') || tp_is_punct(p, '+')) {
		neg = tp_is_punct(p, '-');
		tp_next(p);
		if (p->lx.tok.type != TOK_INT)
			return tp_err_tok(p, "expected an integer after a sign");
	}
	switch (p->lx.tok.type) {
	case TOK_INT:
	case TOK_CHAR:
		if (p->lx.tok.overflow)
			return tp_err(p, "integer literal out of range");
		if (neg && p->lx.tok.u > (uint64_t)INT64_MAX + 1)
			return tp_err(p, "integer literal out of range");
		v->kind = V_INT;
		v->u = p->lx.tok.u;
		v->neg = neg && v->u != 0;
		tp_next(p);
		return 0;
	case TOK_STR:
		if (strlen(p->lx.tok.s) >= sizeof(v->s))
			return tp_err(p, "string literal too long");
		v->kind = V_STR;
		strcpy(v->s, p->lx.tok.s);
		tp_next(p);
		return 0;
	case TOK_ID:
		v->kind = V_PATH;
		if (tp_path_append(p, v->s, sizeof(v->s), false))
			return -EINVAL;
		tp_next(p);
		while (tp_is_punct(p, '.') || tp_is_punct(p, 'R')) {
			tp_next(p);
			if (p->lx.tok.type != TOK_ID)
				return tp_err_tok(p, "expected a name after `.`");
			if (tp_path_append(p, v->s, sizeof(v->s), true))
				return -EINVAL;
			tp_next(p);
		}
		return 0;
	default:
		return tp_err_tok(p, "expected a value");
	}
}

int tp_val_u64(struct parser *p, const struct val *v, uint64_t *out)
{
	if (v->kind != V_INT || v->neg)
		return tp_err(p, "expected an unsigned integer");
	*out = v->u;
	return 0;
}

int tp_val_i64(struct parser *p, const struct val *v, int64_t *out)
{
	if (v->kind != V_INT)
		return tp_err(p, "expected an integer");
	if (v->neg) {
		*out = (int64_t)(0 - v->u);
	} else {
		if (v->u > (uint64_t)INT64_MAX)
			return tp_err(p, "integer literal out of range");
		*out = (int64_t)v->u;
	}
	return 0;
}

int tp_val_bool(struct parser *p, const struct val *v, bool *out)
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
	return tp_err(p, "expected a boolean");
}

/* returns 0 le, 1 be, 2 native; <0 error */
int tp_val_byte_order(struct parser *p, const struct val *v)
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
	return tp_err(p, "invalid byte_order (expected le, be, network or native)");
}

int tp_parse_uuid(const char *s, uint8_t out[16])
{
	if (strlen(s) != 36 || trawl_uuid_parse(s, out))
		return -1;
	return 0;
}

struct clock_class *tp_find_clock(struct trace_class *tc, const char *name)
{
	uint32_t i;

	for (i = 0; i < tc->nclocks; i++)
		if (tc->clocks[i]->name && !strcmp(tc->clocks[i]->name, name))
			return tc->clocks[i];
	return NULL;
}


/* Reads an optional name (identifier) after struct/variant/enum. */
int tp_opt_name(struct parser *p, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (p->lx.tok.type == TOK_ID) {
		if (p->lx.tok.len + 1 > cap)
			return tp_err(p, "name too long");
		memcpy(buf, p->lx.tok.start, p->lx.tok.len);
		buf[p->lx.tok.len] = '\0';
		tp_next(p);
	}
	return 0;
}

struct fc *tp_lookup_copy(struct parser *p, const char *kind,
			      const char *name)
{
	char key[300];
	const struct fc *fc;
	struct fc *c;

	/* A cut key could find another type: a name too long is an error. */
	if (trawl_path_fmt(key, sizeof(key), "%s%s%s", kind, *kind ? " " : "", name)) {
		tp_err(p, "type name too long");
		return NULL;
	}
	fc = scope_find(p, key);
	if (!fc) {
		char msg[340];

		trawl_msg_fmt(msg, sizeof(msg), "unknown type `%s`", key);
		tp_err(p, msg);
		return NULL;
	}
	c = tp_copy(p, fc);
	if (!c)
		tp_err(p, "out of memory");
	return c;
}


int tp_register_named(struct parser *p, const char *kind, const char *name,
		      const struct fc *fc)
{
	char key[300];
	struct fc *c;

	if (trawl_path_fmt(key, sizeof(key), "%s %s", kind, name))
		return tp_err(p, "type name too long");
	c = tp_copy(p, fc);
	if (!c)
		return tp_err(p, "out of memory");
	return scope_add(p, key, c);
}

static struct fc *parse_struct(struct parser *p)
{
	char name[200];
	struct fc *fc;
	uint64_t align;

	tp_next(p);	/* struct */
	if (tp_opt_name(p, name, sizeof(name)))
		return NULL;
	if (!tp_is_punct(p, '{')) {
		if (!name[0]) {
			tp_err_tok(p, "expected a struct name or body");
			return NULL;
		}
		return tp_lookup_copy(p, "struct", name);
	}
	fc = fc_new(FC_STRUCT);
	if (!fc) {
		tp_err(p, "out of memory");
		return NULL;
	}
	fc->align = 1;
	if (parse_struct_body(p, fc))
		goto error;
	if (tp_is_id(p, "align")) {
		struct val v;

		tp_next(p);
		if (tp_expect(p, '(') || tp_value(p, &v) ||
		    tp_val_u64(p, &v, &align) || tp_expect(p, ')'))
			goto error;
		if (align == 0 || (align & (align - 1)) || align > (1u << 20)) {
			tp_err(p, "alignment must be a power of two");
			goto error;
		}
		if (align > fc->align)
			fc->align = (uint32_t)align;
	}
	if (name[0] && tp_register_named(p, "struct", name, fc))
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

	tp_next(p);	/* variant */
	if (tp_opt_name(p, name, sizeof(name)))
		return NULL;
	tag[0] = '\0';
	if (tp_is_punct(p, '<')) {
		tp_next(p);
		if (p->lx.tok.type != TOK_ID) {
			tp_err_tok(p, "expected a variant tag name");
			return NULL;
		}
		if (tp_path_append(p, tag, sizeof(tag), false))
			return NULL;
		tp_next(p);
		while (tp_is_punct(p, '.') || tp_is_punct(p, 'R')) {
			tp_next(p);
			if (p->lx.tok.type != TOK_ID) {
				tp_err_tok(p, "expected a name after `.`");
				return NULL;
			}
			if (tp_path_append(p, tag, sizeof(tag), true))
				return NULL;
			tp_next(p);
		}
		if (tp_expect(p, '>'))
			return NULL;
	}
	if (!tp_is_punct(p, '{')) {
		if (!name[0]) {
			tp_err_tok(p, "expected a variant name or body");
			return NULL;
		}
		fc = tp_lookup_copy(p, "variant", name);
	} else {
		fc = fc_new(FC_VARIANT);
		if (!fc) {
			tp_err(p, "out of memory");
			return NULL;
		}
		fc->align = 1;
		if (parse_struct_body(p, fc))
			goto error;
		if (name[0] && tp_register_named(p, "variant", name, fc))
			goto error;
	}
	if (!fc)
		return NULL;
	if (tag[0]) {
		free(fc->ref_path);
		fc->ref_path = strdup(tag);
		if (!fc->ref_path) {
			tp_err(p, "out of memory");
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
				tp_err(p, "type name too long");
				return NULL;
			}
			if (n)
				name[n++] = ' ';
			memcpy(name + n, p->lx.tok.start, p->lx.tok.len);
			name[n + p->lx.tok.len] = '\0';
			have_word = true;
			tp_next(p);
			continue;
		}
		if (have_word || name[0])
			break;
		if (tp_path_append(p, name, sizeof(name), false))
			return NULL;
		tp_next(p);
		break;
	}
	if (!name[0]) {
		tp_err_tok(p, "expected a type");
		return NULL;
	}
	{
		/* "const" qualifies, it is not part of the name */
		char *s = name;

		while (!strncmp(s, "const ", 6))
			s += 6;
		return tp_lookup_copy(p, "", s);
	}
}

struct fc *tp_type_spec(struct parser *p)
{
	struct fc *fc;

	if (++p->depth > MAX_DEPTH) {
		tp_err(p, "types nested too deeply");
		p->depth--;
		return NULL;
	}
	while (tp_is_id(p, "const"))
		tp_next(p);
	if (tp_is_id(p, "integer"))
		fc = tp_parse_integer(p);
	else if (tp_is_id(p, "floating_point"))
		fc = tp_parse_float(p);
	else if (tp_is_id(p, "string"))
		fc = tp_parse_string(p);
	else if (tp_is_id(p, "enum"))
		fc = tp_parse_enum(p);
	else if (tp_is_id(p, "struct"))
		fc = parse_struct(p);
	else if (tp_is_id(p, "variant"))
		fc = parse_variant(p);
	else if (p->lx.tok.type == TOK_ID)
		fc = parse_named_type(p);
	else {
		tp_err_tok(p, "expected a type");
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

	while (tp_is_punct(p, '*'))
		tp_next(p);
	if (p->lx.tok.type != TOK_ID) {
		fc_destroy(base);
		return tp_err_tok(p, "expected a field name");
	}
	if (p->lx.tok.len + 1 > cap) {
		fc_destroy(base);
		return tp_err(p, "field name too long");
	}
	memcpy(name, p->lx.tok.start, p->lx.tok.len);
	name[p->lx.tok.len] = '\0';
	tp_next(p);
	while (tp_is_punct(p, '[')) {
		struct val v;
		struct fc *d;

		tp_next(p);
		if (ndims == (int)TRAWL_ARRAY_SIZE(dims)) {
			tp_err(p, "too many array dimensions");
			goto error;
		}
		if (tp_value(p, &v) || tp_expect(p, ']'))
			goto error;
		if (v.kind == V_INT) {
			if (v.neg) {
				tp_err(p, "negative array length");
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
			tp_err(p, "invalid array length");
			goto error;
		}
		if (!d) {
			tp_err(p, "out of memory");
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
			return tp_err(p, "duplicate field name");
		}
	}
	if (st->nmembers >= 65536) {
		fc_destroy(fc);
		return tp_err(p, "too many fields");
	}
	m = realloc(st->members, (st->nmembers + 1) * sizeof(*m));
	if (!m) {
		fc_destroy(fc);
		return tp_err(p, "out of memory");
	}
	st->members = m;
	m[st->nmembers].name = strdup(name);
	if (!m[st->nmembers].name) {
		fc_destroy(fc);
		return tp_err(p, "out of memory");
	}
	m[st->nmembers].fc = fc;
	st->nmembers++;
	if (st->kind == FC_STRUCT && fc->align > st->align)
		st->align = fc->align;
	return 0;
}

/* typealias T [abstract-declarator] := NAME WORDS ; */
int tp_typealias(struct parser *p)
{
	struct fc *fc;
	char name[256];

	tp_next(p);	/* typealias */
	fc = tp_type_spec(p);
	if (!fc)
		return -EINVAL;
	while (tp_is_punct(p, '*'))
		tp_next(p);
	if (!tp_is_punct(p, 'A')) {
		fc_destroy(fc);
		return tp_err_tok(p, "expected `:=` in typealias");
	}
	tp_next(p);
	name[0] = '\0';
	while (p->lx.tok.type == TOK_ID) {
		size_t n = strlen(name);

		if (n + p->lx.tok.len + 2 > sizeof(name)) {
			fc_destroy(fc);
			return tp_err(p, "type name too long");
		}
		if (n)
			name[n++] = ' ';
		memcpy(name + n, p->lx.tok.start, p->lx.tok.len);
		name[n + p->lx.tok.len] = '\0';
		tp_next(p);
	}
	while (tp_is_punct(p, '*'))
		tp_next(p);
	if (!name[0]) {
		fc_destroy(fc);
		return tp_err_tok(p, "expected an alias name");
	}
	if (scope_add(p, name, fc))
		return -EINVAL;
	return tp_expect(p, ';');
}

/* typedef T declarator {, declarator} ; */
int tp_typedef(struct parser *p)
{
	struct fc *base, *fc;
	char name[256];

	tp_next(p);	/* typedef */
	base = tp_type_spec(p);
	if (!base)
		return -EINVAL;
	for (;;) {
		struct fc *c = tp_copy(p, base);

		if (!c) {
			fc_destroy(base);
			return tp_err(p, "out of memory");
		}
		if (parse_declarator(p, c, name, sizeof(name), &fc)) {
			fc_destroy(base);
			return -EINVAL;
		}
		if (scope_add(p, name, fc)) {
			fc_destroy(base);
			return -EINVAL;
		}
		if (!tp_is_punct(p, ','))
			break;
		tp_next(p);
	}
	fc_destroy(base);
	return tp_expect(p, ';');
}

/* T [declarator {, declarator}] ; inside a struct or variant body */
static int parse_field_decl(struct parser *p, struct fc *st)
{
	struct fc *base, *fc;
	char name[256];

	base = tp_type_spec(p);
	if (!base)
		return -EINVAL;
	if (tp_is_punct(p, ';')) {	/* a named type definition only */
		fc_destroy(base);
		tp_next(p);
		return 0;
	}
	for (;;) {
		struct fc *c = tp_copy(p, base);

		if (!c) {
			fc_destroy(base);
			return tp_err(p, "out of memory");
		}
		if (parse_declarator(p, c, name, sizeof(name), &fc) ||
		    struct_add_member(p, st, name, fc)) {
			fc_destroy(base);
			return -EINVAL;
		}
		if (!tp_is_punct(p, ','))
			break;
		tp_next(p);
	}
	fc_destroy(base);
	return tp_expect(p, ';');
}

static int parse_struct_body(struct parser *p, struct fc *st)
{
	int ret = 0;

	if (tp_expect(p, '{'))
		return -EINVAL;
	if (tp_scope_push(p))
		return -EINVAL;
	while (!tp_is_punct(p, '}')) {
		if (p->lx.tok.type == TOK_EOF || p->lx.tok.type == TOK_ERROR) {
			ret = tp_err_tok(p, "expected `}`");
			break;
		}
		if (tp_is_id(p, "typealias"))
			ret = tp_typealias(p);
		else if (tp_is_id(p, "typedef"))
			ret = tp_typedef(p);
		else
			ret = parse_field_decl(p, st);
		if (ret)
			break;
	}
	tp_scope_pop(p);
	if (ret)
		return ret;
	tp_next(p);
	return 0;
}

