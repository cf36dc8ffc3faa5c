/* SPDX-License-Identifier: MIT */
/*
 * An event's fields as a flat list (flat.h): the fourth walker of field
 * classes, for callers that read a few members of many events. Only the
 * top level of each scope is walked here; everything below it (and every
 * member babeltrace2 does not show) is stepped over by field.c, which keeps
 * the integers' side effects (sequence lengths, variant tags). It costs a
 * switch and one bounds-checked load per member where values.c reserves,
 * clears and links a node for every field at every depth.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/reader.h"
#include "common/array.h"
#include "reader/decode_int.h"
#include "reader/flat.h"

/* Members of one event's scopes: beyond this, an event is refused. */
#define MAX_VALS (1u << 22)

static int flat_grow(struct rd_flat *f, struct dctx *d, uint32_t n)
{
	if (n > MAX_VALS - f->n)
		return rd_derr(d, "too many fields in one event to list them");
	return trawl_array_grow((void **)&f->vals, &f->cap, (size_t)f->n + n, sizeof(*f->vals),
				64);
}

/* A text array with no NUL in it: a NUL-terminated copy in the scratch. */
static int flat_copy(struct rd_flat *f, struct rd_flat_val *v, const char *str, size_t len)
{
	if (len >= f->scap - f->slen &&
	    (len >= SIZE_MAX - f->slen ||
	     trawl_array_grow((void **)&f->scratch, &f->scap, f->slen + len + 1, 1, 256)))
		return -ENOMEM;
	memcpy(f->scratch + f->slen, str, len);
	f->scratch[f->slen + len] = '\0';
	v->str = NULL;
	v->scratch_off = f->slen;
	f->slen += len + 1;
	return 0;
}

static int flat_text_array(struct rd_flat *f, struct dctx *d, const struct fc *fc,
			   struct rd_flat_val *v)
{
	uint64_t n = fc->kind == FC_ARRAY ? fc->length : d->s->slots[fc->ref->slot];
	const char *str = NULL;
	size_t len = 0;

	if (rd_decode_text_array(d, n, &str, &len))
		return -EINVAL;
	v->kind = TRAWL_READER_FIELD_STRING;
	v->u = len;
	v->str = str;
	/* cut at a NUL inside the array: the bytes are terminated where they are */
	return len < n ? 0 : flat_copy(f, v, str, len);
}

/* One shown top-level member into @v. */
static int flat_member(struct rd_flat *f, struct dctx *d, const struct fc *fc,
		       struct rd_flat_val *v)
{
	double x = 0;
	size_t len = 0;
	int ret;

	v->is_signed = false;
	v->str = NULL;
	switch (fc->kind) {
	case FC_INT:
		v->kind = fc->is_enum ? TRAWL_READER_FIELD_ENUM : TRAWL_READER_FIELD_INTEGER;
		v->is_signed = fc->is_signed;
		return rd_decode_int(d, fc, &v->u);
	case FC_FLOAT:
		v->kind = TRAWL_READER_FIELD_FLOAT;
		ret = rd_decode_float(d, fc, &x);
		memcpy(&v->u, &x, sizeof(x));
		return ret;
	case FC_STRING:
		v->kind = TRAWL_READER_FIELD_STRING;
		ret = rd_decode_string(d, &v->str, &len);
		v->u = len;
		return ret;
	case FC_ARRAY:
	case FC_SEQ:
		if (fc->is_text)
			return flat_text_array(f, d, fc, v);
		v->kind = fc->kind == FC_ARRAY ? TRAWL_READER_FIELD_ARRAY :
						 TRAWL_READER_FIELD_SEQUENCE;
		break;
	case FC_STRUCT:
		v->kind = TRAWL_READER_FIELD_STRUCT;
		break;
	default:
		v->kind = TRAWL_READER_FIELD_VARIANT;
		break;
	}
	return rd_decode_fc(d, fc, NULL) ? -EINVAL : 0;
}

/* A scope: its shown members, one slot each, from f->n on. */
static int flat_scope(struct rd_flat *f, struct dctx *d, const struct fc *root,
		      unsigned which)
{
	uint32_t i;
	int ret;

	f->first[which] = f->n;
	f->count[which] = 0;
	f->shown[which] = root && root->shown;
	if (!root)
		return 0;
	if (!f->shown[which] || root->kind != FC_STRUCT)
		return rd_decode_fc(d, root, NULL) ? -EINVAL : 0;
	if (f->cap - f->n < root->nmembers && (ret = flat_grow(f, d, root->nmembers)))
		return ret;
	if (root->align > 1 && do_align(d, root->align))
		return -EINVAL;
	for (i = 0; i < root->nmembers; i++) {
		const struct fc *m = root->members[i].fc;

		if (!m->shown) {
			if (rd_decode_fc(d, m, NULL))
				return -EINVAL;
			continue;
		}
		ret = flat_member(f, d, m, &f->vals[f->n]);
		if (ret)
			return ret;
		f->n++;
	}
	f->count[which] = f->n - f->first[which];
	return 0;
}

/* ---- fixed layouts ------------------------------------------------------- */

/* Members a fixed layout lists at most (a larger body is walked). */
#define MAX_SLOTS 4096u

/*
 * Where member @fc goes in a fixed layout (at *@pos bits from the body's
 * start, which is advanced), into @slot when it is not NULL. False when
 * its place or size depends on the bytes, or decoding it has a side
 * effect the decoder needs (a sequence length, a variant tag, a clock).
 */
static bool layout_member(const struct fc *fc, uint64_t *pos, uint32_t *align,
			  struct rd_flat_slot *slot)
{
	uint32_t a = fc->align > 1 ? fc->align : 1;
	uint64_t bits;

	switch (fc->kind) {
	case FC_INT:
		if (fc->slot >= 0 || fc->map || fc->meaning != M_NONE)
			return false;
		/* fall through */
	case FC_FLOAT:
		if (fc->size != 8 && fc->size != 16 && fc->size != 32 && fc->size != 64)
			return false;
		if (fc->kind == FC_FLOAT && fc->size < 32)
			return false;
		bits = fc->size;
		break;
	case FC_ARRAY:
		/* as rd_decode_text_array(): byte-aligned, whatever the class says */
		if (!fc->is_text || a > 8 || fc->length > UINT32_MAX / 8)
			return false;
		a = 8;
		bits = fc->length * 8;
		break;
	default:
		return false;
	}
	if (a > *align)
		*align = a;
	*pos = align_up(*pos, a);
	if (*pos & 7 || *pos / 8 > UINT32_MAX)
		return false;
	if (slot) {
		slot->off = (uint32_t)(*pos / 8);
		slot->len = (uint32_t)(bits / 8);
		slot->bytes = (uint8_t)(bits / 8);
		slot->is_signed = fc->kind == FC_INT && fc->is_signed;
		slot->big_endian = fc->big_endian;
		slot->sign_shift = slot->is_signed ? (uint8_t)(64 - bits) : 0;
		slot->kind = fc->kind == FC_FLOAT ? TRAWL_READER_FIELD_FLOAT :
			     fc->kind == FC_ARRAY ? TRAWL_READER_FIELD_STRING :
			     fc->is_enum	  ? TRAWL_READER_FIELD_ENUM :
						    TRAWL_READER_FIELD_INTEGER;
	}
	*pos += bits;
	return true;
}

/* @ec's fixed layout, or NULL when its bodies have none (or out of memory). */
static struct rd_flat_layout *layout_make(const struct event_class *ec)
{
	const struct fc *scopes[3] = { ec->sc->event_context, ec->context, ec->payload };
	struct rd_flat_layout *lay;
	uint64_t pos = 0;
	uint32_t n = 0, i, k;

	for (k = 0; k < 3; k++) {
		if (scopes[k] && scopes[k]->kind != FC_STRUCT)
			return NULL;
		n += scopes[k] ? scopes[k]->nmembers : 0;
	}
	if (n > MAX_SLOTS)
		return NULL;
	lay = calloc(1, sizeof(*lay) + n * sizeof(lay->slots[0]));
	if (!lay)
		return NULL;
	lay->align = 8;
	for (k = 0; k < 3; k++) {
		const struct fc *root = scopes[k];

		lay->first[k] = lay->nslots;
		if (!root)
			continue;
		lay->shown[k] = root->shown;
		if (root->align > lay->align)
			lay->align = root->align;
		pos = align_up(pos, root->align > 1 ? root->align : 1);
		for (i = 0; i < root->nmembers; i++) {
			const struct fc *m = root->members[i].fc;
			bool listed = root->shown && m->shown;

			if (!layout_member(m, &pos, &lay->align,
					   listed ? &lay->slots[lay->nslots] : NULL))
				goto none;
			lay->nslots += listed;
		}
		lay->count[k] = lay->nslots - lay->first[k];
	}
	lay->body_bits = pos;
	/* an empty body: the walker says when the event has no size at all */
	if (pos)
		return lay;
none:
	free(lay);
	return NULL;
}

static const struct rd_flat_layout *layout_of(struct rd_dec_event *dev)
{
	if (trawl_unlikely(!dev->flat_tried)) {
		dev->flat_layout = layout_make(dev->ec);
		dev->flat_tried = true;
	}
	return dev->flat_layout;
}

/* Slot @sl of the body at @base into @v; false for a text array without a NUL. */
static bool layout_load(const uint8_t *base, const struct rd_flat_slot *sl,
			struct rd_flat_val *v)
{
	const uint8_t *p = base + sl->off;

	v->kind = sl->kind;
	v->is_signed = sl->is_signed;
	v->str = NULL;
	if (sl->kind == TRAWL_READER_FIELD_STRING) {
		const uint8_t *nul = memchr(p, 0, sl->len);

		if (!nul)
			return false;
		v->str = (const char *)p;
		v->u = (uint64_t)(nul - p);
		return true;
	}
	v->u = rd_flat_slot_load(p, sl);
	if (sl->kind == TRAWL_READER_FIELD_FLOAT && sl->bytes == 4) {
		/* as the walker keeps it: a double's bits */
		uint32_t u = (uint32_t)v->u;
		float x;
		double dx;

		memcpy(&x, &u, 4);
		dx = (double)x;
		memcpy(&v->u, &dx, 8);
	}
	return true;
}

static void flat_reset(struct rd_flat *f)
{
	f->lay = NULL;
	f->n = 0;
	f->slen = 0;
	memset(f->count, 0, sizeof(f->count));
	memset(f->shown, 0, sizeof(f->shown));
}

/* out of line: the fixed layouts' path stays a leaf */
static __attribute__((noinline)) int flat_walk(struct rd_flat *f, struct rd_stream *s,
					       struct rd_err *err);

int rd_flat_body(struct rd_flat *f, struct rd_stream *s, struct rd_err *err)
{
	const struct dctx *d = &s->evd;
	const struct rd_flat_layout *lay = layout_of(s->dev);
	uint64_t pos = s->body_pending ? s->pos : s->body_pos;

	flat_reset(f);
	if (trawl_likely(lay) && !(pos & (lay->align - 1)) && pos <= d->end &&
	    lay->body_bits <= d->end - pos) {
		f->lay = lay;
		f->base = d->pkt + pos / 8;
		/*
		 * Decoding such a body only moves the position (no member has a
		 * side effect, and it has a size): step over it here, as
		 * rd_stream_body() would have.
		 */
		s->body_pos = pos;
		s->pos = pos + lay->body_bits;
		s->body_pending = false;
		return 0;
	}
	return flat_walk(f, s, err);
}

int rd_flat_get(struct rd_flat *f, struct rd_stream *s, struct rd_err *err, unsigned which,
		int index, struct rd_flat_val *tmp, const struct rd_flat_val **out)
{
	const struct rd_flat_layout *lay = f->lay;
	int ret;

	*out = NULL;
	if (trawl_likely(lay)) {
		if (which > 2 || index < 0 || (uint32_t)index >= lay->count[which])
			return -ENODATA;
		if (trawl_likely(layout_load(f->base,
					     &lay->slots[lay->first[which] + (uint32_t)index],
					     tmp))) {
			*out = tmp;
			return 0;
		}
		ret = flat_walk(f, s, err);
		if (ret)
			return ret;
	}
	if (which > 2 || index < 0 || (uint32_t)index >= f->count[which])
		return -ENODATA;
	*out = &f->vals[f->first[which] + (uint32_t)index];
	return 0;
}

/* Every member of @s's current body decoded into @f (the stream moves past it). */
static __attribute__((noinline)) int flat_walk(struct rd_flat *f, struct rd_stream *s, struct rd_err *err)
{
	struct dctx *d = &s->evd;
	const struct fc *scopes[3] = { s->sc->event_context, s->dev->ec->context,
				       s->dev->ec->payload };
	unsigned i;
	int ret = 0;

	flat_reset(f);
	if (s->body_pending)	/* same protocol as rd_stream_body() */
		s->body_pos = s->pos;
	else
		s->pos = s->body_pos;
	s->body_pending = false;
	d->err = err;
	for (i = 0; i < 3 && !ret; i++)
		ret = flat_scope(f, d, scopes[i], i);
	if (!ret && s->pos == s->ev_pos)
		ret = rd_derr(d, "event has zero size");
	if (ret)
		flat_reset(f);
	return ret;
}

void rd_flat_fini(struct rd_flat *f)
{
	free(f->vals);
	free(f->scratch);
	memset(f, 0, sizeof(*f));
}

/* ---- selections ------------------------------------------------------------ */

const struct fc *rd_scope_member(const struct event_class *ec, unsigned int scope, int index)
{
	const struct fc *roots[] = { ec->sc->packet_context, ec->sc->event_context, ec->context,
				     ec->payload };
	const struct fc *st;
	uint32_t i;
	int n = 0;

	if (scope >= TRAWL_ARRAY_SIZE(roots) || index < 0)
		return NULL;
	st = roots[scope];
	if (!st || !st->shown || st->kind != FC_STRUCT)
		return NULL;
	/* the members of a scope are its shown ones, in order (values.c, flat_scope()) */
	for (i = 0; i < st->nmembers; i++) {
		if (!st->members[i].fc->shown)
			continue;
		if (n++ == index)
			return st->members[i].fc;
	}
	return NULL;
}

int rd_fc_kind(const struct fc *fc)
{
	switch (fc->kind) {
	case FC_INT:
		return fc->is_enum ? TRAWL_READER_FIELD_ENUM : TRAWL_READER_FIELD_INTEGER;
	case FC_FLOAT:
		return TRAWL_READER_FIELD_FLOAT;
	case FC_STRING:
		return TRAWL_READER_FIELD_STRING;
	case FC_ARRAY:
	case FC_SEQ:
		if (fc->is_text)
			return TRAWL_READER_FIELD_STRING;
		return fc->kind == FC_ARRAY ? TRAWL_READER_FIELD_ARRAY :
					      TRAWL_READER_FIELD_SEQUENCE;
	case FC_STRUCT:
		return TRAWL_READER_FIELD_STRUCT;
	default:
		return TRAWL_READER_FIELD_VARIANT;
	}
}

/* How member @sl of a fixed layout is read in place. */
static uint8_t sel_code(const struct rd_flat_slot *sl)
{
	if (sl->kind == TRAWL_READER_FIELD_STRING)
		return RD_SEL_TEXT;
	if (sl->kind == TRAWL_READER_FIELD_FLOAT)
		return RD_SEL_FLOAT;
	if (sl->big_endian)
		return RD_SEL_SLOT;
	switch (sl->bytes) {
	case 1:
		return sl->is_signed ? RD_SEL_S8 : RD_SEL_U8;
	case 2:
		return sl->is_signed ? RD_SEL_S16 : RD_SEL_U16;
	case 4:
		return sl->is_signed ? RD_SEL_S32 : RD_SEL_U32;
	default:
		return RD_SEL_U64;	/* signed or not: the same bits */
	}
}

/* Member @m of @ec into @op, @lay being @ec's fixed layout or NULL. */
static void sel_op_make(const struct event_class *ec, const struct rd_flat_layout *lay,
			struct trawl_reader_member m, struct rd_sel_op *op)
{
	unsigned int scope = (unsigned int)m.scope, which;
	const struct fc *fc;

	op->code = RD_SEL_NONE;
	if (scope > TRAWL_READER_SCOPE_EVENT_PAYLOAD) {
		op->ret = -EINVAL;
		return;
	}
	if (!(fc = rd_scope_member(ec, scope, m.index))) {
		op->ret = -ENODATA;
		return;
	}
	op->kind = rd_fc_kind(fc);
	if (op->kind > TRAWL_READER_FIELD_STRING) {
		op->ret = -ENOMSG;	/* compound: trawl_reader_event_field() */
		return;
	}
	op->code = RD_SEL_WALK;
	which = scope - TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT;
	if (scope == TRAWL_READER_SCOPE_PACKET_CONTEXT || !lay ||
	    (uint32_t)m.index >= lay->count[which])
		return;
	op->slot = lay->slots[lay->first[which] + (uint32_t)m.index];
	op->off = op->slot.off;
	op->code = sel_code(&op->slot);
}

int rd_flat_sel_make(const struct event_class *ec, const struct trawl_reader_member *members,
		     size_t n, struct rd_flat_sel **out)
{
	struct rd_flat_layout *lay;
	struct rd_flat_sel *sel;
	size_t k, one = sizeof(sel->ops[0]) + sizeof(sel->members[0]);

	*out = NULL;
	if (n > (SIZE_MAX - sizeof(*sel)) / one)
		return -EINVAL;
	sel = calloc(1, sizeof(*sel) + n * one);
	if (!sel)
		return -ENOMEM;
	/* the members after the ops, in the same block (both 4-byte aligned at most) */
	sel->members = (struct trawl_reader_member *)(void *)&sel->ops[n];
	sel->ec = ec;
	sel->n = n;
	lay = layout_make(ec);	/* NULL: none (or no memory: the walker then) */
	if (lay) {
		sel->fixed = true;
		sel->align = lay->align;
		sel->body_bits = lay->body_bits;
	}
	for (k = 0; k < n; k++) {
		sel->members[k] = members[k];
		sel_op_make(ec, lay, members[k], &sel->ops[k]);
	}
	free(lay);
	*out = sel;
	return 0;
}
