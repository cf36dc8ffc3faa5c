/* SPDX-License-Identifier: MIT */
/*
 * The reference field decoder: walks a field class tree recursively,
 * decoding (and printing, when @t is given) each field as babeltrace2
 * would show it. The hot path uses plan.c instead; this one handles what
 * plans do not (very deep nesting) and defines the behaviour plans match.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/decode_int.h"

#define MAX_EMPTY_ELEMS (1u << 20)



static int decode_int(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	struct rd_stream *s = d->s;
	uint64_t v;

	if (fc->align > 1 && do_align(d, fc->align))
		return -EINVAL;
	if (need(d, fc->size))
		return -EINVAL;
	v = read_bits(d->pkt, s->pos, fc->size, fc->big_endian);
	s->pos += fc->size;
	if (fc->is_signed && fc->size < 64 && (v >> (fc->size - 1)) & 1)
		v |= ~0ULL << fc->size;
	if (fc->slot >= 0 || fc->map || fc->meaning)
		int_side_effects(s, fc, v);
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
	struct rd_stream *s = d->s;
	uint64_t v;

	if (do_align(d, fc->align) || need(d, fc->size))
		return -EINVAL;
	v = read_bits(d->pkt, s->pos, fc->size, fc->big_endian);
	s->pos += fc->size;
	if (t && fc->shown) {
		if (fc->size == 32) {
			float f;
			uint32_t u = (uint32_t)v;

			memcpy(&f, &u, 4);
			rd_print_float(t, (double)f);
		} else {
			double x;

			memcpy(&x, &v, 8);
			rd_print_float(t, x);
		}
	}
	return 0;
}

static int decode_string(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	struct rd_stream *s = d->s;
	const uint8_t *start, *nul;
	uint64_t avail;

	if (do_align(d, 8))
		return -EINVAL;
	start = d->pkt + s->pos / 8;
	avail = (d->end - s->pos) / 8;
	nul = memchr(start, 0, avail);
	if (!nul)
		return rd_derr(d, "string is not terminated before the end of the packet content");
	if (t && fc->shown)
		rd_text_escaped(t, (const char *)start, (size_t)(nul - start));
	s->pos += (uint64_t)(nul - start + 1) * 8;
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

static int decode_variant(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	uint64_t tag = d->s->slots[fc->ref->slot];
	const struct fc *tagfc = fc->ref;
	uint32_t i;
	bool show = t && fc->shown;

	for (i = 0; i < fc->nchoices; i++) {
		const struct var_choice *c = &fc->choices[i];
		bool in = tagfc->is_signed ?
			(int64_t)tag >= c->lo && (int64_t)tag <= c->hi :
			tag >= (uint64_t)c->lo && tag <= (uint64_t)c->hi;

		if (in)
			break;
	}
	if (i == fc->nchoices) {
		char msg[128];

		snprintf(msg, sizeof(msg),
			 "variant tag value %" PRId64 " selects no option",
			 (int64_t)tag);
		return rd_derr(d, msg);
	}
	if (show)
		rd_text_lit(t, "{ ");
	if (rd_decode_fc(d, fc->members[fc->choices[i].option].fc, show ? t : NULL))
		return -EINVAL;
	if (show)
		rd_text_lit(t, " }");
	return 0;
}

static bool fc_is_empty(const struct fc *fc)
{
	uint32_t i;

	if (fc->kind == FC_STRUCT) {
		for (i = 0; i < fc->nmembers; i++)
			if (!fc_is_empty(fc->members[i].fc))
				return false;
		return true;
	}
	if (fc->kind == FC_ARRAY)
		return fc->length == 0 || fc_is_empty(fc->elem);
	return false;
}

static int decode_text_array(struct dctx *d, uint64_t n, struct rd_text *t,
			     bool show)
{
	struct rd_stream *s = d->s;
	const uint8_t *start;
	const void *nul;

	if (do_align(d, 8))
		return -EINVAL;
	if (n > (d->end - s->pos) / 8)
		return rd_derr(d, "text array extends past the end of the packet content");
	start = d->pkt + s->pos / 8;
	if (show) {
		nul = memchr(start, 0, n);
		rd_text_escaped(t, (const char *)start,
				nul ? (size_t)((const uint8_t *)nul - start) : n);
	}
	s->pos += n * 8;
	return 0;
}

static int decode_array(struct dctx *d, const struct fc *fc, uint64_t n,
			struct rd_text *t)
{
	struct rd_stream *s = d->s;
	bool show = t && fc->shown;
	uint64_t i;

	if (fc->is_text)
		return decode_text_array(d, n, t, show);
	if (fc->align > 1 && do_align(d, fc->align))
		return -EINVAL;
	if (n > d->end - s->pos && (n > MAX_EMPTY_ELEMS || !fc_is_empty(fc->elem)))
		return rd_derr(d, "array or sequence length exceeds the packet content");
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
	if (++d->depth > 200) {
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
		ret = decode_array(d, fc, fc->length, t);
		break;
	case FC_SEQ:
		ret = decode_array(d, fc, d->s->slots[fc->ref->slot], t);
		break;
	default:
		ret = rd_derr(d, "unknown field class");
	}
	d->depth--;
	return ret;
}

