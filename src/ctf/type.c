/* SPDX-License-Identifier: MIT */
/*
 * Field types and their TSDL.
 *
 * Ownership: a type belongs to whoever created it until a parent takes it;
 * every function that takes a type takes it even when it fails, so a builder
 * chain like struct_add(s, "x", array_create(integer_create(...), 4)) never
 * leaks whatever step fails.
 */
#include "common/array.h"
#include "ctf/internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int align_valid(unsigned a)
{
	return a >= 1 && a <= 64 && (a & (a - 1)) == 0;
}

static struct trawl_ctf_type *type_new(enum ctf_kind kind, unsigned align_bits)
{
	struct trawl_ctf_type *t = calloc(1, sizeof(*t));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->kind = kind;
	t->align_bits = align_bits;
	return t;
}

struct trawl_ctf_type *trawl_ctf_type_integer_create(unsigned size_bits, int is_signed,
						     unsigned align_bits)
{
	struct trawl_ctf_type *t;

	if (size_bits < 1 || size_bits > 64 || !align_valid(align_bits)) {
		errno = EINVAL;
		return NULL;
	}
	t = type_new(CTF_INTEGER, align_bits);
	if (!t)
		return NULL;
	t->u.integer.size_bits = size_bits;
	t->u.integer.is_signed = !!is_signed;
	t->u.integer.base = 10;
	return t;
}

int trawl_ctf_type_integer_set_base(struct trawl_ctf_type *t, unsigned base)
{
	if (!t || t->kind != CTF_INTEGER || (base != 2 && base != 8 && base != 10 && base != 16))
		return -EINVAL;
	t->u.integer.base = base;
	return 0;
}

int trawl_ctf_type_integer_set_byte_order(struct trawl_ctf_type *t, enum trawl_ctf_byte_order bo)
{
	if (!t || t->kind != CTF_INTEGER || bo > TRAWL_CTF_BO_NETWORK)
		return -EINVAL;
	/*
	 * CTF lets the byte order change only at a byte boundary; a whole-byte,
	 * byte-aligned integer can never leave a neighbour mid-byte.
	 */
	if (bo != TRAWL_CTF_BO_NATIVE && (t->align_bits % 8 || t->u.integer.size_bits % 8))
		return -EINVAL;
	t->u.integer.bo = bo;
	return 0;
}

int trawl_ctf_type_integer_set_utf8(struct trawl_ctf_type *t)
{
	if (!t || t->kind != CTF_INTEGER || t->u.integer.size_bits != 8)
		return -EINVAL;
	t->u.integer.utf8 = 1;
	return 0;
}

int trawl_ctf_type_integer_set_clock(struct trawl_ctf_type *t, const char *clock_name)
{
	char *c;

	if (!t || t->kind != CTF_INTEGER || !trawl_ctf_identifier_valid(clock_name))
		return -EINVAL;
	c = strdup(clock_name);
	if (!c)
		return -ENOMEM;
	free(t->u.integer.clock);
	t->u.integer.clock = c;
	return 0;
}

struct trawl_ctf_type *trawl_ctf_type_float_create(unsigned size_bits, unsigned align_bits)
{
	struct trawl_ctf_type *t;

	if ((size_bits != 32 && size_bits != 64) || !align_valid(align_bits)) {
		errno = EINVAL;
		return NULL;
	}
	t = type_new(CTF_FLOAT, align_bits);
	if (t)
		t->u.flt.size_bits = size_bits;
	return t;
}

int trawl_ctf_type_float_set_byte_order(struct trawl_ctf_type *t, enum trawl_ctf_byte_order bo)
{
	if (!t || t->kind != CTF_FLOAT || bo > TRAWL_CTF_BO_NETWORK)
		return -EINVAL;
	t->u.flt.bo = bo;
	return 0;
}

struct trawl_ctf_type *trawl_ctf_type_string_create(void)
{
	return type_new(CTF_STRING, 8);
}

struct trawl_ctf_type *trawl_ctf_type_enum_create(struct trawl_ctf_type *container)
{
	struct trawl_ctf_type *t;

	if (!container || container->kind != CTF_INTEGER) {
		trawl_ctf_type_destroy(container);
		errno = EINVAL;
		return NULL;
	}
	t = type_new(CTF_ENUM, container->align_bits);
	if (!t) {
		trawl_ctf_type_destroy(container);
		return NULL;
	}
	t->u.enumeration.container = container;
	return t;
}

/* Does @v (a bit pattern when unsigned) fit the container? */
static int enum_value_fits(const struct trawl_ctf_type *c, int64_t v)
{
	unsigned n = c->u.integer.size_bits;

	if (n == 64)
		return 1;
	if (c->u.integer.is_signed)
		return v >= -(INT64_C(1) << (n - 1)) && v < (INT64_C(1) << (n - 1));
	return (uint64_t)v < (UINT64_C(1) << n);
}

int trawl_ctf_type_enum_add(struct trawl_ctf_type *t, const char *label, int64_t start,
			    int64_t end)
{
	const struct trawl_ctf_type *c;
	struct ctf_enum_entry *e;
	int ordered;

	if (!t || t->kind != CTF_ENUM || !label)
		return -EINVAL;
	c = t->u.enumeration.container;
	ordered = c->u.integer.is_signed ? start <= end : (uint64_t)start <= (uint64_t)end;
	if (!ordered || !enum_value_fits(c, start) || !enum_value_fits(c, end))
		return -EINVAL;
	if (trawl_array_grow((void **)&t->u.enumeration.entries, &t->u.enumeration.cap,
			     t->u.enumeration.nr + 1, sizeof(*e), 8))
		return -ENOMEM;
	e = &t->u.enumeration.entries[t->u.enumeration.nr];
	e->label = strdup(label);
	if (!e->label)
		return -ENOMEM;
	e->start = start;
	e->end = end;
	t->u.enumeration.nr++;
	return 0;
}

static struct trawl_ctf_type *array_new(enum ctf_kind kind, struct trawl_ctf_type *elem,
					uint64_t length, const char *length_field)
{
	struct trawl_ctf_type *t;

	if (!elem || elem->kind == CTF_ARRAY || elem->kind == CTF_SEQUENCE ||
	    (kind == CTF_SEQUENCE && !ctf_name_valid(length_field))) {
		trawl_ctf_type_destroy(elem);
		errno = EINVAL;
		return NULL;
	}
	t = type_new(kind, elem->align_bits);
	if (!t) {
		trawl_ctf_type_destroy(elem);
		return NULL;
	}
	t->u.array.elem = elem;
	t->u.array.length = length;
	if (length_field) {
		t->u.array.length_field = strdup(length_field);
		if (!t->u.array.length_field) {
			trawl_ctf_type_destroy(t);
			errno = ENOMEM;
			return NULL;
		}
	}
	return t;
}

struct trawl_ctf_type *trawl_ctf_type_array_create(struct trawl_ctf_type *elem, uint64_t length)
{
	return array_new(CTF_ARRAY, elem, length, NULL);
}

struct trawl_ctf_type *trawl_ctf_type_sequence_create(struct trawl_ctf_type *elem,
						      const char *length_field)
{
	return array_new(CTF_SEQUENCE, elem, 0, length_field);
}

struct trawl_ctf_type *trawl_ctf_type_struct_create(unsigned min_align_bits)
{
	if (!align_valid(min_align_bits)) {
		errno = EINVAL;
		return NULL;
	}
	return type_new(CTF_STRUCT, min_align_bits);
}

struct trawl_ctf_type *trawl_ctf_type_variant_create(const char *tag_field)
{
	struct trawl_ctf_type *t;

	if (!ctf_name_valid(tag_field)) {
		errno = EINVAL;
		return NULL;
	}
	t = type_new(CTF_VARIANT, 1);
	if (!t)
		return NULL;
	t->u.strct.tag = strdup(tag_field);
	if (!t->u.strct.tag) {
		free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

static const struct trawl_ctf_type *struct_field(const struct trawl_ctf_type *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->u.strct.nr; i++)
		if (!strcmp(s->u.strct.fields[i].name, name))
			return s->u.strct.fields[i].type;
	return NULL;
}

int trawl_ctf_type_struct_add(struct trawl_ctf_type *s, const char *name,
			      struct trawl_ctf_type *field)
{
	struct ctf_struct_field *f;
	int ret = -EINVAL;

	if (!s || (s->kind != CTF_STRUCT && s->kind != CTF_VARIANT) || !field ||
	    !ctf_name_valid(name) || struct_field(s, name))
		goto err;
	if (field->kind == CTF_VARIANT) {
		const struct trawl_ctf_type *tag = struct_field(s, field->u.strct.tag);

		if (!tag || tag->kind != CTF_ENUM)
			goto err;
	}
	if (field->kind == CTF_SEQUENCE) {
		const struct trawl_ctf_type *len = struct_field(s, field->u.array.length_field);

		if (!len || len->kind != CTF_INTEGER || len->u.integer.is_signed)
			goto err;
	}
	ret = -ENOMEM;
	if (trawl_array_grow((void **)&s->u.strct.fields, &s->u.strct.cap, s->u.strct.nr + 1,
			     sizeof(*f), 8))
		goto err;
	f = &s->u.strct.fields[s->u.strct.nr];
	f->name = strdup(name);
	if (!f->name)
		goto err;
	f->type = field;
	s->u.strct.nr++;
	if (field->align_bits > s->align_bits)
		s->align_bits = field->align_bits;
	return 0;
err:
	trawl_ctf_type_destroy(field);
	return ret;
}

void trawl_ctf_type_destroy(struct trawl_ctf_type *t)
{
	size_t i;

	if (!t)
		return;
	switch (t->kind) {
	case CTF_INTEGER:
		free(t->u.integer.clock);
		break;
	case CTF_ENUM:
		for (i = 0; i < t->u.enumeration.nr; i++)
			free(t->u.enumeration.entries[i].label);
		free(t->u.enumeration.entries);
		trawl_ctf_type_destroy(t->u.enumeration.container);
		break;
	case CTF_ARRAY:
	case CTF_SEQUENCE:
		trawl_ctf_type_destroy(t->u.array.elem);
		free(t->u.array.length_field);
		break;
	case CTF_STRUCT:
	case CTF_VARIANT:
		for (i = 0; i < t->u.strct.nr; i++) {
			free(t->u.strct.fields[i].name);
			trawl_ctf_type_destroy(t->u.strct.fields[i].type);
		}
		free(t->u.strct.fields);
		free(t->u.strct.tag);
		break;
	case CTF_FLOAT:
	case CTF_STRING:
		break;
	}
	free(t);
}

/* ------------------------------------------------------------------ */
/* TSDL                                                               */
/* ------------------------------------------------------------------ */

static const char *bo_name(enum trawl_ctf_byte_order bo)
{
	switch (bo) {
	case TRAWL_CTF_BO_LE:
		return "le";
	case TRAWL_CTF_BO_BE:
		return "be";
	case TRAWL_CTF_BO_NETWORK:
		return "network";
	default:
		return NULL;
	}
}

static void tsdl_integer(struct trawl_strbuf *sb, const struct trawl_ctf_type *t)
{
	const char *bo = bo_name(t->u.integer.bo);

	trawl_strbuf_addf(sb, "integer { size = %u; align = %u; signed = %d; encoding = %s; base = %u;",
		t->u.integer.size_bits, t->align_bits, t->u.integer.is_signed,
		t->u.integer.utf8 ? "UTF8" : "none", t->u.integer.base);
	if (bo)
		trawl_strbuf_addf(sb, " byte_order = %s;", bo);
	if (t->u.integer.clock)
		trawl_strbuf_addf(sb, " map = clock.%s.value;", t->u.integer.clock);
	trawl_strbuf_add(sb, " }");
}

static void tsdl_type(struct trawl_strbuf *sb, const struct trawl_ctf_type *t, int depth);

static void tsdl_enum(struct trawl_strbuf *sb, const struct trawl_ctf_type *t, int depth)
{
	const struct trawl_ctf_type *c = t->u.enumeration.container;
	size_t i;

	trawl_strbuf_add(sb, "enum : ");
	tsdl_integer(sb, c);
	trawl_strbuf_add(sb, " {\n");
	for (i = 0; i < t->u.enumeration.nr; i++) {
		const struct ctf_enum_entry *e = &t->u.enumeration.entries[i];

		trawl_strbuf_indent(sb, depth + 1);
		trawl_strbuf_add_quoted(sb, e->label);
		if (c->u.integer.is_signed) {
			trawl_strbuf_addf(sb, " = %lld", (long long)e->start);
			if (e->end != e->start)
				trawl_strbuf_addf(sb, " ... %lld", (long long)e->end);
		} else {
			trawl_strbuf_addf(sb, " = %llu", (unsigned long long)(uint64_t)e->start);
			if (e->end != e->start)
				trawl_strbuf_addf(sb, " ... %llu", (unsigned long long)(uint64_t)e->end);
		}
		trawl_strbuf_add(sb, i + 1 < t->u.enumeration.nr ? ",\n" : "\n");
	}
	trawl_strbuf_indent(sb, depth);
	trawl_strbuf_add(sb, "}");
}

void ctf_type_tsdl_struct(struct trawl_strbuf *sb, const struct trawl_ctf_type *t, int depth)
{
	size_t i;

	trawl_strbuf_add(sb, "struct {\n");
	for (i = 0; i < t->u.strct.nr; i++)
		ctf_type_tsdl_field(sb, t->u.strct.fields[i].type, t->u.strct.fields[i].name,
				    depth + 1);
	trawl_strbuf_indent(sb, depth);
	trawl_strbuf_addf(sb, "} align(%u)", t->align_bits);
}

/* "variant <_TAG> { ... }": no align() (TSDL has none for a variant; its
 * options are aligned each as declared). */
static void tsdl_variant(struct trawl_strbuf *sb, const struct trawl_ctf_type *t, int depth)
{
	size_t i;

	trawl_strbuf_addf(sb, "variant <_%s> {\n", t->u.strct.tag);
	for (i = 0; i < t->u.strct.nr; i++)
		ctf_type_tsdl_field(sb, t->u.strct.fields[i].type, t->u.strct.fields[i].name,
				    depth + 1);
	trawl_strbuf_indent(sb, depth);
	trawl_strbuf_add(sb, "}");
}

static void tsdl_type(struct trawl_strbuf *sb, const struct trawl_ctf_type *t, int depth)
{
	const char *bo;

	switch (t->kind) {
	case CTF_INTEGER:
		tsdl_integer(sb, t);
		break;
	case CTF_FLOAT:
		bo = bo_name(t->u.flt.bo);
		trawl_strbuf_addf(sb, "floating_point { exp_dig = %u; mant_dig = %u; align = %u;",
			t->u.flt.size_bits == 32 ? 8 : 11, t->u.flt.size_bits == 32 ? 24 : 53,
			t->align_bits);
		if (bo)
			trawl_strbuf_addf(sb, " byte_order = %s;", bo);
		trawl_strbuf_add(sb, " }");
		break;
	case CTF_STRING:
		trawl_strbuf_add(sb, "string { encoding = UTF8; }");
		break;
	case CTF_ENUM:
		/*
		 * TSDL has no empty enum ("enum : int { }" is a syntax error to
		 * babeltrace2), and a traced app may register one: an enum
		 * without labels is written as its container integer, which
		 * has the same layout.
		 */
		if (t->u.enumeration.nr)
			tsdl_enum(sb, t, depth);
		else
			tsdl_integer(sb, t->u.enumeration.container);
		break;
	case CTF_STRUCT:
		ctf_type_tsdl_struct(sb, t, depth);
		break;
	case CTF_VARIANT:
		tsdl_variant(sb, t, depth);
		break;
	case CTF_ARRAY:
	case CTF_SEQUENCE:
		/* Arrays are declarators, written by ctf_type_tsdl_field(). */
		tsdl_type(sb, t->u.array.elem, depth);
		break;
	}
}

void ctf_type_tsdl_field(struct trawl_strbuf *sb, const struct trawl_ctf_type *t, const char *name,
			 int depth)
{
	trawl_strbuf_indent(sb, depth);
	tsdl_type(sb, t, depth);
	trawl_strbuf_addf(sb, " _%s", name);
	if (t->kind == CTF_ARRAY)
		trawl_strbuf_addf(sb, "[%llu]", (unsigned long long)t->u.array.length);
	else if (t->kind == CTF_SEQUENCE)
		trawl_strbuf_addf(sb, "[_%s]", t->u.array.length_field);
	trawl_strbuf_add(sb, ";\n");
}
