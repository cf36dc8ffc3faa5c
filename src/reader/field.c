/* SPDX-License-Identifier: MIT */
/*
 * The reference field decoder: walks a field class tree recursively,
 * decoding (and printing, when @t is given) each field as babeltrace2
 * would show it. The hot path uses plan.c instead; this one handles what
 * plans do not (very deep nesting, TRAWL_READER_NO_PLAN=1) and defines the
 * behaviour plans match.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/decode_int.h"

#define MAX_NESTING 200

static int decode_int(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	uint64_t v;

	if (rd_decode_int(d, fc, &v))
		return -EINVAL;
	if (t && fc->shown) {
		if (fc->is_enum)
			rd_print_enum(t, fc, v);
		else
			rd_print_int(t, fc, v);
	}
	return 0;
}

static int decode_float(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	double v;

	if (rd_decode_float(d, fc, &v))
		return -EINVAL;
	if (t && fc->shown)
		rd_print_float(t, v);
	return 0;
}

static int decode_string(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	const char *str = NULL;
	size_t len = 0;

	if (rd_decode_string(d, &str, &len))
		return -EINVAL;
	if (t && fc->shown)
		rd_text_escaped(t, str, len);
	return 0;
}

static int decode_struct(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	uint32_t i, printed = 0;
	bool show = t && fc->shown;

	if (fc->align > 1 && do_align(d, fc->align))
		return -EINVAL;
	if (show)
		rd_text_lit(t, "{");
	for (i = 0; i < fc->nmembers; i++) {
		const struct member *m = &fc->members[i];

		if (show && m->fc->shown) {
			if (printed++)
				rd_text_lit(t, ", ");
			else
				rd_text_lit(t, " ");
			if (t->names) {
				/* a leading underscore is not shown */
				rd_text_str(t, m->name + (m->name[0] == '_'));
				rd_text_lit(t, " = ");
			}
		}
		if (rd_decode_fc(d, m->fc, show ? t : NULL))
			return -EINVAL;
	}
	if (show)
		rd_text_lit(t, " }");
	return 0;
}

int rd_variant_error(struct dctx *d, uint64_t tag)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "variant tag value %" PRId64 " selects no option",
		 (int64_t)tag);
	return rd_derr(d, msg);
}

int rd_variant_option(struct dctx *d, const struct fc *fc, uint32_t *option)
{
	uint64_t tag = d->s->slots[fc->ref->slot];
	const struct fc *tagfc = fc->ref;
	uint32_t i;

	for (i = 0; i < fc->nchoices; i++) {
		const struct var_choice *c = &fc->choices[i];
		bool in = tagfc->is_signed ?
			(int64_t)tag >= c->lo && (int64_t)tag <= c->hi :
			tag >= (uint64_t)c->lo && tag <= (uint64_t)c->hi;

		if (in) {
			*option = c->option;
			return 0;
		}
	}
	return rd_variant_error(d, tag);
}

static int decode_variant(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	bool show = t && fc->shown;
	uint32_t o = 0;

	if (rd_variant_option(d, fc, &o))
		return -EINVAL;
	if (show)
		rd_text_lit(t, "{ ");
	if (rd_decode_fc(d, fc->members[o].fc, show ? t : NULL))
		return -EINVAL;
	if (show)
		rd_text_lit(t, " }");
	return 0;
}

bool rd_fc_is_empty(const struct fc *fc)
{
	uint32_t i;

	if (fc->kind == FC_STRUCT) {
		for (i = 0; i < fc->nmembers; i++)
			if (!rd_fc_is_empty(fc->members[i].fc))
				return false;
		return true;
	}
	if (fc->kind == FC_ARRAY)
		return fc->length == 0 || rd_fc_is_empty(fc->elem);
	return false;
}

int rd_array_length(struct dctx *d, const struct fc *fc, uint64_t *n)
{
	struct rd_stream *s = d->s;

	*n = fc->kind == FC_ARRAY ? fc->length : s->slots[fc->ref->slot];
	if (fc->align > 1 && do_align(d, fc->align))
		return -EINVAL;
	if (*n > d->end - s->pos && (*n > RD_MAX_EMPTY_ELEMS || !rd_fc_is_empty(fc->elem)))
		return rd_derr(d, "array or sequence length exceeds the packet content");
	return 0;
}

static int decode_array(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	bool show = t && fc->shown;
	uint64_t i, n;

	if (fc->is_text) {
		const char *str = NULL;
		size_t len = 0;

		n = fc->kind == FC_ARRAY ? fc->length : d->s->slots[fc->ref->slot];
		if (rd_decode_text_array(d, n, &str, &len))
			return -EINVAL;
		if (show)
			rd_text_escaped(t, str, len);
		return 0;
	}
	if (rd_array_length(d, fc, &n))
		return -EINVAL;
	if (show)
		rd_text_lit(t, "[");
	for (i = 0; i < n; i++) {
		if (show) {
			if (i)
				rd_text_lit(t, ", ");
			else
				rd_text_lit(t, " ");
			if (t->names) {
				rd_text_lit(t, "[");
				rd_text_u64(t, i);
				rd_text_lit(t, "] = ");
			}
		}
		if (rd_decode_fc(d, fc->elem, show ? t : NULL))
			return -EINVAL;
	}
	if (show)
		rd_text_lit(t, " ]");
	return 0;
}

int rd_decode_fc(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	int ret;

	switch (fc->kind) {
	case FC_INT:
		return decode_int(d, fc, t);
	case FC_STRING:
		return decode_string(d, fc, t);
	case FC_FLOAT:
		return decode_float(d, fc, t);
	default:
		break;
	}
	if (++d->depth > MAX_NESTING) {
		d->depth--;
		return rd_derr(d, "fields nested too deeply");
	}
	switch (fc->kind) {
	case FC_STRUCT:
		ret = decode_struct(d, fc, t);
		break;
	case FC_VARIANT:
		ret = decode_variant(d, fc, t);
		break;
	case FC_ARRAY:
	case FC_SEQ:
		ret = decode_array(d, fc, t);
		break;
	default:
		ret = rd_derr(d, "unknown field class");
	}
	d->depth--;
	return ret;
}
