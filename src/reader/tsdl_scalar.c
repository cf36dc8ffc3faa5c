/* SPDX-License-Identifier: MIT */
/*
 * TSDL scalar types: `integer {}`, `floating_point {}`, `string [{}]` and
 * `enum [NAME] [: T] {}`, with their attribute lists. Compound types,
 * declarators and scopes are in tsdl.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/internal.h"
#include "reader/tsdl_lex.h"
#include "reader/tsdl_int.h"

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

	if (tp_expect(p, '{'))
		return -EINVAL;
	while (!tp_is_punct(p, '}')) {
		name[0] = '\0';
		if (p->lx.tok.type != TOK_ID)
			return tp_err_tok(p, "expected an attribute name");
		if (tp_path_append(p, name, sizeof(name), false))
			return -EINVAL;
		tp_next(p);
		while (tp_is_punct(p, '.')) {
			tp_next(p);
			if (p->lx.tok.type != TOK_ID)
				return tp_err_tok(p, "expected a name after `.`");
			if (tp_path_append(p, name, sizeof(name), true))
				return -EINVAL;
			tp_next(p);
		}
		if (tp_expect(p, '='))
			return -EINVAL;
		if (tp_value(p, &v))
			return -EINVAL;
		if (cb(p, fc, name, &v))
			return -EINVAL;
		if (tp_expect(p, ';'))
			return -EINVAL;
	}
	tp_next(p);
	return 0;
}
static int int_attr(struct parser *p, struct fc *fc, const char *name,
		    const struct val *v)
{
	uint64_t u;
	int bo;

	if (!strcmp(name, "size")) {
		if (tp_val_u64(p, v, &u))
			return -EINVAL;
		if (u == 0 || u > 64)
			return tp_err(p, "integer size must be between 1 and 64 bits");
		fc->size = (uint32_t)u;
	} else if (!strcmp(name, "align")) {
		if (tp_val_u64(p, v, &u))
			return -EINVAL;
		if (u == 0 || (u & (u - 1)) || u > (1u << 20))
			return tp_err(p, "alignment must be a power of two");
		fc->align = (uint32_t)u;
		fc->slot = -2;	/* marks "align set" until the block ends */
	} else if (!strcmp(name, "signed")) {
		return tp_val_bool(p, v, &fc->is_signed);
	} else if (!strcmp(name, "byte_order")) {
		bo = tp_val_byte_order(p, v);
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
				return tp_err(p, "invalid integer base");
		} else {
			return tp_err(p, "invalid integer base");
		}
	} else if (!strcmp(name, "encoding")) {
		if (v->kind != V_PATH)
			return tp_err(p, "invalid encoding");
		if (!strcmp(v->s, "none"))
			fc->encoding = 0;
		else if (!strcmp(v->s, "UTF8") || !strcmp(v->s, "utf8") ||
			 !strcmp(v->s, "ASCII") || !strcmp(v->s, "ascii"))
			fc->encoding = 1;
		else
			return tp_err(p, "invalid encoding");
	} else if (!strcmp(name, "map")) {
		char cname[256];
		size_t l;

		if (v->kind != V_PATH || strncmp(v->s, "clock.", 6) != 0)
			return tp_err(p, "invalid map (expected clock.NAME.value)");
		l = strlen(v->s + 6);
		if (l < 7 || strcmp(v->s + 6 + l - 6, ".value") != 0)
			return tp_err(p, "invalid map (expected clock.NAME.value)");
		memcpy(cname, v->s + 6, l - 6);
		cname[l - 6] = '\0';
		/* bound after parsing: clock blocks may come later in the text */
		free(fc->map_name);
		fc->map_name = strdup(cname);
		if (!fc->map_name)
			return tp_err(p, "out of memory");
	}
	return 0;
}

struct fc *tp_parse_integer(struct parser *p)
{
	struct fc *fc = fc_new(FC_INT);

	if (!fc) {
		tp_err(p, "out of memory");
		return NULL;
	}
	fc->big_endian = p->trace_bo == 1;
	fc->size = 0;
	tp_next(p);	/* integer */
	if (parse_attr_block(p, fc, int_attr))
		goto error;
	if (fc->size == 0) {
		tp_err(p, "integer has no size");
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
		if (tp_val_u64(p, v, &u))
			return -EINVAL;
		if (u > 64)
			return tp_err(p, "invalid floating point digits");
		if (name[0] == 'e')
			fc->exp_dig = (uint32_t)u;
		else
			fc->mant_dig = (uint32_t)u;
	} else if (!strcmp(name, "align")) {
		if (tp_val_u64(p, v, &u))
			return -EINVAL;
		if (u == 0 || (u & (u - 1)) || u > (1u << 20))
			return tp_err(p, "alignment must be a power of two");
		fc->align = (uint32_t)u;
		fc->slot = -2;
	} else if (!strcmp(name, "byte_order")) {
		bo = tp_val_byte_order(p, v);
		if (bo < 0)
			return -EINVAL;
		fc->big_endian = bo == 2 ? p->trace_bo == 1 : bo == 1;
	}
	return 0;
}

struct fc *tp_parse_float(struct parser *p)
{
	struct fc *fc = fc_new(FC_FLOAT);

	if (!fc) {
		tp_err(p, "out of memory");
		return NULL;
	}
	fc->big_endian = p->trace_bo == 1;
	tp_next(p);
	if (parse_attr_block(p, fc, float_attr))
		goto error;
	fc->size = fc->exp_dig + fc->mant_dig;
	if (!((fc->exp_dig == 8 && fc->mant_dig == 24) ||
	      (fc->exp_dig == 11 && fc->mant_dig == 53))) {
		tp_err(p, "unsupported floating point size (only 32 and 64 bits)");
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

struct fc *tp_parse_string(struct parser *p)
{
	struct fc *fc = fc_new(FC_STRING);

	if (!fc) {
		tp_err(p, "out of memory");
		return NULL;
	}
	tp_next(p);
	if (tp_is_punct(p, '{') && parse_attr_block(p, fc, string_attr)) {
		fc_destroy(fc);
		return NULL;
	}
	return fc;
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
			return tp_err(p, "out of memory");
		fc->labels = l;
		l[fc->nlabels] = strdup(label);
		if (!l[fc->nlabels])
			return tp_err(p, "out of memory");
		fc->nlabels++;
	}
	r = realloc(fc->ranges, (fc->nranges + 1) * sizeof(*r));
	if (!r)
		return tp_err(p, "out of memory");
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

	if (tp_value(p, &v))
		return -EINVAL;
	if (fc->is_signed)
		return tp_val_i64(p, &v, out);
	if (tp_val_u64(p, &v, (uint64_t *)out))
		return -EINVAL;
	return 0;
}

static int parse_enum_body(struct parser *p, struct fc *fc)
{
	int64_t next_val = 0;
	char label[256];

	if (tp_expect(p, '{'))
		return -EINVAL;
	while (!tp_is_punct(p, '}')) {
		int64_t lo, hi;

		if (p->lx.tok.type == TOK_STR) {
			if (strlen(p->lx.tok.s) >= sizeof(label))
				return tp_err(p, "enum label too long");
			strcpy(label, p->lx.tok.s);
		} else if (p->lx.tok.type == TOK_ID) {
			if (p->lx.tok.len >= sizeof(label))
				return tp_err(p, "enum label too long");
			memcpy(label, p->lx.tok.start, p->lx.tok.len);
			label[p->lx.tok.len] = '\0';
		} else {
			return tp_err_tok(p, "expected an enum label");
		}
		tp_next(p);
		if (tp_is_punct(p, '=')) {
			tp_next(p);
			if (enum_value(p, fc, &lo))
				return -EINVAL;
			hi = lo;
			if (tp_is_punct(p, 'E')) {
				tp_next(p);
				if (enum_value(p, fc, &hi))
					return -EINVAL;
			}
		} else {
			lo = hi = next_val;
		}
		if (fc->is_signed ? lo > hi : (uint64_t)lo > (uint64_t)hi)
			return tp_err(p, "enum range is inverted");
		if (add_enum_label(p, fc, label, lo, hi))
			return -EINVAL;
		next_val = hi + 1;
		if (tp_is_punct(p, ','))
			tp_next(p);
		else if (!tp_is_punct(p, '}'))
			return tp_err_tok(p, "expected `,` or `}` in enum");
	}
	tp_next(p);
	return 0;
}

struct fc *tp_parse_enum(struct parser *p)
{
	char name[200];
	struct fc *fc = NULL;

	tp_next(p);	/* enum */
	if (tp_opt_name(p, name, sizeof(name)))
		return NULL;
	if (tp_is_punct(p, ':')) {
		tp_next(p);
		fc = tp_type_spec(p);
		if (!fc)
			return NULL;
	} else if (tp_is_punct(p, '{')) {
		fc = tp_lookup_copy(p, "", "int");
		if (!fc)
			return NULL;
	} else {
		if (!name[0]) {
			tp_err_tok(p, "expected an enum name or body");
			return NULL;
		}
		return tp_lookup_copy(p, "enum", name);
	}
	if (fc->kind != FC_INT) {
		tp_err(p, "enum container type is not an integer");
		goto error;
	}
	fc->is_enum = true;
	if (parse_enum_body(p, fc))
		goto error;
	if (name[0] && tp_register_named(p, "enum", name, fc))
		goto error;
	return fc;
error:
	fc_destroy(fc);
	return NULL;
}
