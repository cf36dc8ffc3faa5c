/* SPDX-License-Identifier: MIT */
/*
 * The public accessors of <trawl/reader.h>: the current event, its fields,
 * event classes, traces and streams. Each is a few loads; nothing here
 * moves the reader except the first trawl_reader_event_field() of an event
 * or packet, which decodes its fields (values.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reader/reader_int.h"

/* ---- the current event --------------------------------------------------- */

TRAWL_EXPORT const char *trawl_reader_event_name(const struct trawl_reader *r)
{
	const struct event_class *ec;

	if (!r->cur)
		return "";
	ec = r->cur->dev->ec;
	return ec->name ? ec->name : "<unknown>";
}

TRAWL_EXPORT const struct trawl_reader_event_class *
trawl_reader_event_class_of(const struct trawl_reader *r)
{
	return r->cur ? rd_event_class_pub(r->cur->dev->ec) : NULL;
}

TRAWL_EXPORT int trawl_reader_event_time_ns(const struct trawl_reader *r, int64_t *ns)
{
	if (!r->cur || !r->cur->sc->clock)
		return -ENODATA;
	*ns = r->cur->ev_ns;
	return 0;
}

TRAWL_EXPORT int trawl_reader_event_cycles(const struct trawl_reader *r,
					   uint64_t *cycles)
{
	if (!r->cur || !r->cur->sc->clock)
		return -ENODATA;
	*cycles = r->cur->ev_cycles;
	return 0;
}

TRAWL_EXPORT const struct trawl_reader_stream *
trawl_reader_event_stream(const struct trawl_reader *r)
{
	return r->cur ? rd_stream_pub(r->cur) : NULL;
}

TRAWL_EXPORT int trawl_reader_event_cpu(const struct trawl_reader *r, uint64_t *cpu)
{
	if (!r->cur || r->cur->sc->slot_cpu_id < 0)
		return -ENODATA;
	/* the current packet's value: the stream reads no further until next() */
	*cpu = r->cur->slots[r->cur->sc->slot_cpu_id];
	return 0;
}

static int packet_fields(struct trawl_reader *r, struct rd_stream *s,
			 const struct trawl_reader_field **out)
{
	int ret;

	if (r->pc_stream != s || r->pc_pkt != s->pkt_count) {
		r->pc_stream = NULL;
		ret = rd_values_packet_context(&r->pc_vals, s, &r->err);
		if (ret)
			return ret;
		r->pc_stream = s;
		r->pc_pkt = s->pkt_count;
	}
	*out = r->pc_vals.roots[0];
	return *out ? 0 : -ENODATA;
}

TRAWL_EXPORT int trawl_reader_event_field(struct trawl_reader *r,
					  enum trawl_reader_scope scope,
					  const struct trawl_reader_field **out)
{
	struct rd_stream *s = r->cur;
	int ret;

	*out = NULL;
	rd_err_clear(&r->err);
	if (!s)
		return -ENODATA;
	if (s->eager_body)
		return -EPERM;
	if (scope == TRAWL_READER_SCOPE_PACKET_CONTEXT)
		return packet_fields(r, s, out);
	if ((unsigned int)scope > TRAWL_READER_SCOPE_EVENT_PAYLOAD)
		return -EINVAL;
	if (!r->body_vals_valid) {
		ret = rd_values_body(&r->body_vals, s, &r->err);
		if (ret)
			return ret;
		r->body_vals_valid = true;
	}
	*out = r->body_vals.roots[scope - TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT];
	return *out ? 0 : -ENODATA;
}

/* ---- a few fields of many events, fast ------------------------------------ */

/* A packet context member (decoded with values.c, once per packet) as a flat value. */
static int packet_member(struct trawl_reader *r, struct rd_stream *s, int index,
			 struct rd_flat_val *tmp)
{
	const struct trawl_reader_field *pc, *f;
	int ret = packet_fields(r, s, &pc);

	if (ret)
		return ret;
	if (index < 0 || !(f = trawl_reader_field_at(pc, (size_t)index)))
		return -ENODATA;
	tmp->kind = f->kind;
	tmp->is_signed = f->fc->kind == FC_INT && f->fc->is_signed;
	tmp->str = f->str;
	if (f->kind == TRAWL_READER_FIELD_FLOAT)
		memcpy(&tmp->u, &f->v.d, sizeof(tmp->u));
	else
		tmp->u = f->v.u;
	return 0;
}

/*
 * Member @index of @scope of the current event: from the flat list (body
 * scopes, decoded at the first call for the event), or @tmp.
 */
static int event_member(struct trawl_reader *r, enum trawl_reader_scope scope, int index,
			struct rd_flat_val *tmp, const struct rd_flat_val **out)
{
	struct rd_stream *s = r->cur;
	int ret;

	rd_err_clear(&r->err);
	if (trawl_likely(r->body_flat_valid) &&
	    (unsigned int)scope - TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT < 3)
		return rd_flat_get(&r->body_flat, s, &r->err,
				   scope - TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT, index, tmp, out);
	if (!s)
		return -ENODATA;
	if (s->eager_body)
		return -EPERM;
	if (scope == TRAWL_READER_SCOPE_PACKET_CONTEXT) {
		*out = tmp;
		return packet_member(r, s, index, tmp);
	}
	if ((unsigned int)scope > TRAWL_READER_SCOPE_EVENT_PAYLOAD)
		return -EINVAL;
	if (trawl_unlikely(!r->body_flat_valid)) {
		ret = rd_flat_body(&r->body_flat, s, &r->err);
		if (ret)
			return ret;
		r->body_flat_valid = true;
	}
	return rd_flat_get(&r->body_flat, s, &r->err,
			   scope - TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT, index, tmp, out);
}

static bool flat_is_int(const struct rd_flat_val *v)
{
	return v->kind == TRAWL_READER_FIELD_INTEGER || v->kind == TRAWL_READER_FIELD_ENUM;
}

/*
 * The fast path: a member of a fixed layout (flat.h), read in place with
 * no call. Anything else (the event's first read, other layouts, errors)
 * takes event_member(). Returns the slot, or NULL with *@ret -ENODATA (no
 * such member) or 0 (the slow path).
 */
static inline const struct rd_flat_slot *fast_slot(struct trawl_reader *r,
						   enum trawl_reader_scope scope, int index,
						   int *ret)
{
	*ret = 0;
	if (!r->body_flat_valid)
		return NULL;
	rd_err_clear(&r->err);
	return rd_flat_slot_of(&r->body_flat,
			       (unsigned int)scope - TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT,
			       index, ret);
}

static bool slot_is_int(const struct rd_flat_slot *sl)
{
	return sl->kind == TRAWL_READER_FIELD_INTEGER || sl->kind == TRAWL_READER_FIELD_ENUM;
}

static int event_int_slow(struct trawl_reader *r, enum trawl_reader_scope scope,
			  int index, uint64_t *value)
{
	struct rd_flat_val tmp;
	const struct rd_flat_val *v;
	int ret = event_member(r, scope, index, &tmp, &v);

	if (ret)
		return ret;
	if (!flat_is_int(v))
		return -ENOMSG;
	*value = v->u;
	return 0;
}

TRAWL_EXPORT int trawl_reader_event_int(struct trawl_reader *r, enum trawl_reader_scope scope,
					int index, int64_t *value)
{
	int ret;
	const struct rd_flat_slot *sl = fast_slot(r, scope, index, &ret);
	uint64_t u;

	if (trawl_likely(sl && slot_is_int(sl))) {
		*value = (int64_t)rd_flat_slot_load(r->body_flat.base + sl->off, sl);
		return 0;
	}
	if (ret)
		return ret;
	ret = event_int_slow(r, scope, index, &u);
	if (ret == 0)
		*value = (int64_t)u;
	return ret;
}

TRAWL_EXPORT int trawl_reader_event_uint(struct trawl_reader *r, enum trawl_reader_scope scope,
					 int index, uint64_t *value)
{
	int ret;
	const struct rd_flat_slot *sl = fast_slot(r, scope, index, &ret);

	if (trawl_likely(sl && slot_is_int(sl))) {
		*value = rd_flat_slot_load(r->body_flat.base + sl->off, sl);
		return 0;
	}
	if (ret)
		return ret;
	return event_int_slow(r, scope, index, value);
}

TRAWL_EXPORT int trawl_reader_event_double(struct trawl_reader *r,
					   enum trawl_reader_scope scope, int index,
					   double *value)
{
	struct rd_flat_val tmp;
	const struct rd_flat_val *v;
	int ret = event_member(r, scope, index, &tmp, &v);

	if (ret)
		return ret;
	if (v->kind != TRAWL_READER_FIELD_FLOAT)
		return -ENOMSG;
	memcpy(value, &v->u, sizeof(*value));
	return 0;
}

TRAWL_EXPORT int trawl_reader_event_string(struct trawl_reader *r,
					   enum trawl_reader_scope scope, int index,
					   const char **str, size_t *len)
{
	struct rd_flat_val tmp;
	const struct rd_flat_val *v;
	int ret;
	const struct rd_flat_slot *sl = fast_slot(r, scope, index, &ret);

	if (trawl_likely(sl && sl->kind == TRAWL_READER_FIELD_STRING)) {
		/* a text array cut at its NUL; without one, the walker copies it */
		const char *p = (const char *)r->body_flat.base + sl->off;
		const char *nul = memchr(p, 0, sl->len);

		if (trawl_likely(nul)) {
			*str = p;
			if (len)
				*len = (size_t)(nul - p);
			return 0;
		}
	}
	if (ret)
		return ret;
	ret = event_member(r, scope, index, &tmp, &v);
	if (ret)
		return ret;
	if (v->kind != TRAWL_READER_FIELD_STRING)
		return -ENOMSG;
	*str = v->str ? v->str : rd_flat_str(&r->body_flat, v);
	if (len)
		*len = (size_t)v->u;
	return 0;
}

/* A flat value as a public one (the kinds the accessors read; others -ENOMSG). */
static int value_of(struct trawl_reader *r, const struct rd_flat_val *v,
		    struct trawl_reader_value *out)
{
	out->kind = v->kind;
	out->i = 0;
	out->d = 0;
	out->str = NULL;
	switch (v->kind) {
	case TRAWL_READER_FIELD_INTEGER:
	case TRAWL_READER_FIELD_ENUM:
		out->i = (int64_t)v->u;
		return 0;
	case TRAWL_READER_FIELD_FLOAT:
		memcpy(&out->d, &v->u, sizeof(out->d));
		return 0;
	case TRAWL_READER_FIELD_STRING:
		out->i = (int64_t)v->u;
		out->str = rd_flat_str(&r->body_flat, v);
		return 0;
	default:
		return -ENOMSG;
	}
}

TRAWL_EXPORT int trawl_reader_event_read(struct trawl_reader *r,
					 const struct trawl_reader_member *members, size_t n,
					 struct trawl_reader_value *values)
{
	struct rd_stream *s = r->cur;
	const struct rd_flat_layout *lay;
	size_t k;
	int ret;

	rd_err_clear(&r->err);
	if (trawl_unlikely(!r->body_flat_valid)) {
		if (!s)
			return -ENODATA;
		if (s->eager_body)
			return -EPERM;
		ret = rd_flat_body(&r->body_flat, s, &r->err);
		if (ret)
			return ret;
		r->body_flat_valid = true;
	}
	lay = r->body_flat.lay;
	for (k = 0; k < n; k++) {
		struct trawl_reader_value *out = &values[k];
		unsigned int which = (unsigned int)members[k].scope -
				     TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT;
		uint32_t index = (uint32_t)members[k].index;	/* negative ones: huge */
		struct rd_flat_val tmp;
		const struct rd_flat_val *v;

		/* a fixed layout (flat.h): a load in place, as the accessors' fast path */
		if (trawl_likely(lay != NULL) && which <= 2) {
			const struct rd_flat_slot *sl;

			if (index >= lay->count[which]) {
				out->ret = -ENODATA;
				continue;
			}
			sl = &lay->slots[lay->first[which] + index];
			if (trawl_likely(slot_is_int(sl))) {
				out->ret = 0;
				out->kind = sl->kind;
				out->i = (int64_t)rd_flat_slot_load(r->body_flat.base + sl->off, sl);
				continue;
			}
			if (sl->kind == TRAWL_READER_FIELD_STRING) {
				const char *p = (const char *)r->body_flat.base + sl->off;
				const char *nul = memchr(p, 0, sl->len);

				if (trawl_likely(nul != NULL)) {
					out->ret = 0;
					out->kind = TRAWL_READER_FIELD_STRING;
					out->str = p;
					out->i = nul - p;
					continue;
				}
			}
		}
		/* the rest (packet context, floats, walked bodies) as the accessors read it */
		if ((unsigned int)members[k].scope > TRAWL_READER_SCOPE_EVENT_PAYLOAD) {
			out->ret = -EINVAL;
			continue;
		}
		ret = event_member(r, members[k].scope, (int)index, &tmp, &v);
		lay = r->body_flat.lay;	/* a text array without a NUL: walked now */
		if (ret == -ENODATA) {
			out->ret = ret;
			continue;
		}
		if (ret)
			return ret;	/* the fields do not decode, or no memory */
		out->ret = value_of(r, v, out);
	}
	return 0;
}

/* ---- selections: members of a class compiled once -------------------------- */

TRAWL_EXPORT int trawl_reader_selection_create(const struct trawl_reader_event_class *ec,
					       const struct trawl_reader_member *members,
					       size_t n, struct trawl_reader_selection **out)
{
	struct rd_flat_sel *sel;
	int ret;

	*out = NULL;
	if (!ec || (n && !members))
		return -EINVAL;
	ret = rd_flat_sel_make(rd_event_class_of(ec), members, n, &sel);
	if (ret)
		return ret;
	*out = rd_sel_pub(sel);
	return 0;
}

TRAWL_EXPORT void trawl_reader_selection_destroy(struct trawl_reader_selection *sel)
{
	free(sel);
}

/*
 * The rest of trawl_reader_event_read_selection(): the checks that failed,
 * or the members from @k on when the fast path read those before (@k 0:
 * none; the body then is not stepped over yet).
 */
static __attribute__((noinline)) int read_selection_slow(struct trawl_reader *r,
							 const struct rd_flat_sel *sel,
							 struct trawl_reader_value *values,
							 size_t k)
{
	struct rd_stream *s = r->cur;
	int ret;

	if (!s)
		return -ENODATA;
	if (s->dev->ec != sel->ec) {
		rd_err_set(&r->err, "a selection of event class \"%s\" read on an event of \"%s\"",
			   sel->ec->name ? sel->ec->name : "<unknown>",
			   trawl_reader_event_name(r));
		return -EINVAL;
	}
	if (s->eager_body)
		return -EPERM;
	rd_err_clear(&r->err);
	if (!k)	/* no fixed layout, or the body does not fit: the walker says what is wrong */
		return trawl_reader_event_read(r, sel->members, sel->n, values);
	/* the packet context, or a text array without a NUL, then the rest */
	for (;;) {
		ret = trawl_reader_event_read(r, &sel->members[k], 1, &values[k]);
		if (ret)
			return ret;
		if (++k == sel->n)
			return 0;
		/* the body the fast path stepped over: body_pos stays its start */
		k = rd_flat_sel_read(sel, k, s->evd.pkt + s->body_pos / 8, values);
		if (k == sel->n)
			return 0;
	}
}

/*
 * The current event's body (from its common context to the end of its
 * payload), when it is of @sel's class and that class has a fixed layout
 * that fits the packet here; else NULL. Such a body has no side effect and
 * a size (flat.c): stepping over it is decoding it, so the stream moves
 * past it as if it were decoded.
 */
static inline const uint8_t *sel_body(struct rd_stream *s, const struct rd_flat_sel *sel)
{
	const struct dctx *d;
	uint64_t pos;

	if (trawl_unlikely(!s || s->dev->ec != sel->ec || s->eager_body || !sel->fixed))
		return NULL;
	d = &s->evd;
	pos = s->body_pending ? s->pos : s->body_pos;
	if (trawl_unlikely((pos & (sel->align - 1)) || pos > d->end ||
			   sel->body_bits > d->end - pos))
		return NULL;
	s->body_pos = pos;
	s->pos = pos + sel->body_bits;
	s->body_pending = false;
	return d->pkt + pos / 8;
}

TRAWL_EXPORT int trawl_reader_event_read_selection(struct trawl_reader *r,
						   const struct trawl_reader_selection *pub,
						   struct trawl_reader_value *values)
{
	const struct rd_flat_sel *sel = rd_sel_of(pub);
	const uint8_t *base;
	size_t k;

	/* the fast path: an event of a fixed layout, its members read in place */
	if (trawl_unlikely(r->err.set) || !(base = sel_body(r->cur, sel)))
		return read_selection_slow(r, sel, values, 0);
	k = rd_flat_sel_read(sel, 0, base, values);
	if (trawl_likely(k == sel->n))
		return 0;
	return read_selection_slow(r, sel, values, k);
}

TRAWL_EXPORT const void *trawl_reader_event_body(struct trawl_reader *r,
						 const struct trawl_reader_selection *sel)
{
	return sel_body(r->cur, rd_sel_of(sel));
}

TRAWL_EXPORT int trawl_reader_selection_layout(const struct trawl_reader_selection *pub, size_t i,
					       struct trawl_reader_layout *out)
{
	const struct rd_flat_sel *sel = rd_sel_of(pub);
	const struct rd_sel_op *op;
	/* integers and floats are in place when the machine loads them as they are */
	const bool native = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

	memset(out, 0, sizeof(*out));
	if (i >= sel->n)
		return -EINVAL;
	op = &sel->ops[i];
	out->load = TRAWL_READER_LOAD_NONE;
	if (!sel->fixed)
		return 0;
	switch ((enum rd_sel_code)op->code) {
	case RD_SEL_U8:
	case RD_SEL_U16:
	case RD_SEL_U32:
	case RD_SEL_U64:
	case RD_SEL_S8:
	case RD_SEL_S16:
	case RD_SEL_S32:
	case RD_SEL_SLOT:
		if (op->slot.big_endian != native)
			return 0;
		/* RD_SEL_U64 holds the signed ones too: the same bits, but not the same load */
		out->load = op->slot.is_signed ? TRAWL_READER_LOAD_INT : TRAWL_READER_LOAD_UINT;
		out->size = op->slot.bytes;
		break;
	case RD_SEL_TEXT:
		out->load = TRAWL_READER_LOAD_TEXT;
		out->size = op->slot.len;
		break;
	default:
		return 0;	/* a float, not in the body, or no value */
	}
	out->offset = op->off;
	return 0;
}

TRAWL_EXPORT int
trawl_reader_event_class_field_kind(const struct trawl_reader_event_class *pub,
				    enum trawl_reader_scope scope, int index)
{
	const struct fc *fc;

	if ((unsigned int)scope > TRAWL_READER_SCOPE_EVENT_PAYLOAD)
		return -EINVAL;
	fc = rd_scope_member(rd_event_class_of(pub), (unsigned int)scope, index);
	return fc ? rd_fc_kind(fc) : -ENODATA;
}

/* ---- fields ---------------------------------------------------------------- */

TRAWL_EXPORT enum trawl_reader_field_kind
trawl_reader_field_kind(const struct trawl_reader_field *f)
{
	return (enum trawl_reader_field_kind)f->kind;
}

TRAWL_EXPORT const char *trawl_reader_field_name(const struct trawl_reader_field *f)
{
	return f->name;
}

TRAWL_EXPORT size_t trawl_reader_field_count(const struct trawl_reader_field *f)
{
	return f->count;
}

TRAWL_EXPORT const struct trawl_reader_field *
trawl_reader_field_at(const struct trawl_reader_field *f, size_t i)
{
	return i < f->count ? &f->children[i] : NULL;
}

/* babeltrace2 shows "_x" as "x": either spelling finds it. */
static bool name_is(const char *shown, const char *name)
{
	return !strcmp(shown, name) || (name[0] == '_' && !strcmp(shown, name + 1));
}

TRAWL_EXPORT const struct trawl_reader_field *
trawl_reader_field_member(const struct trawl_reader_field *f, const char *name)
{
	uint32_t i;

	if (f->kind != TRAWL_READER_FIELD_STRUCT && f->kind != TRAWL_READER_FIELD_VARIANT)
		return NULL;
	for (i = 0; i < f->count; i++)
		if (name_is(f->children[i].name, name))
			return &f->children[i];
	return NULL;
}

static bool is_int(const struct trawl_reader_field *f)
{
	return f->kind == TRAWL_READER_FIELD_INTEGER || f->kind == TRAWL_READER_FIELD_ENUM;
}

TRAWL_EXPORT int trawl_reader_field_is_signed(const struct trawl_reader_field *f)
{
	return is_int(f) && f->fc->is_signed;
}

TRAWL_EXPORT unsigned int trawl_reader_field_base(const struct trawl_reader_field *f)
{
	return is_int(f) ? f->fc->base : 0;
}

TRAWL_EXPORT uint64_t trawl_reader_field_uint(const struct trawl_reader_field *f)
{
	return is_int(f) ? f->v.u : 0;
}

TRAWL_EXPORT int64_t trawl_reader_field_int(const struct trawl_reader_field *f)
{
	return is_int(f) ? (int64_t)f->v.u : 0;
}

TRAWL_EXPORT double trawl_reader_field_double(const struct trawl_reader_field *f)
{
	return f->kind == TRAWL_READER_FIELD_FLOAT ? f->v.d : 0.0;
}

TRAWL_EXPORT const char *trawl_reader_field_string(const struct trawl_reader_field *f,
						   size_t *len)
{
	if (f->kind != TRAWL_READER_FIELD_STRING)
		return NULL;
	if (len)
		*len = f->v.len;
	return f->str;
}

TRAWL_EXPORT size_t trawl_reader_field_enum_labels(const struct trawl_reader_field *f,
						   const char **labels, size_t max)
{
	const struct fc *fc = f->fc;
	uint64_t v = f->v.u;
	size_t n = 0;
	uint32_t l, k;

	if (f->kind != TRAWL_READER_FIELD_ENUM)
		return 0;
	/* as rd_print_enum(): each label once, in order, if a range of it holds v */
	for (l = 0; l < fc->nlabels; l++) {
		for (k = 0; k < fc->nranges; k++) {
			const struct enum_range *rg = &fc->ranges[k];

			if (rg->label == l &&
			    (fc->is_signed ? (int64_t)v >= rg->lo && (int64_t)v <= rg->hi :
					     v >= (uint64_t)rg->lo && v <= (uint64_t)rg->hi))
				break;
		}
		if (k == fc->nranges)
			continue;
		if (n < max)
			labels[n] = fc->labels[l];
		n++;
	}
	return n;
}

/* ---- event classes ----------------------------------------------------------- */

TRAWL_EXPORT const char *
trawl_reader_event_class_name(const struct trawl_reader_event_class *pub)
{
	const struct event_class *ec = rd_event_class_of(pub);

	return ec->name ? ec->name : "<unknown>";
}

TRAWL_EXPORT uint64_t trawl_reader_event_class_id(const struct trawl_reader_event_class *pub)
{
	return rd_event_class_of(pub)->id;
}

TRAWL_EXPORT uint64_t
trawl_reader_event_class_stream_class_id(const struct trawl_reader_event_class *pub)
{
	return rd_event_class_of(pub)->sc->id;
}

TRAWL_EXPORT int trawl_reader_event_class_loglevel(const struct trawl_reader_event_class *pub,
						   int64_t *level)
{
	const struct event_class *ec = rd_event_class_of(pub);

	if (!ec->has_loglevel)
		return -ENODATA;
	*level = ec->loglevel;
	return 0;
}

TRAWL_EXPORT const char *
trawl_reader_event_class_emf_uri(const struct trawl_reader_event_class *pub)
{
	return rd_event_class_of(pub)->emf_uri;
}

TRAWL_EXPORT int
trawl_reader_event_class_field_index(const struct trawl_reader_event_class *pub,
				     enum trawl_reader_scope scope, const char *name)
{
	const struct event_class *ec = rd_event_class_of(pub);
	const struct fc *roots[] = { ec->sc->packet_context, ec->sc->event_context,
				     ec->context, ec->payload };
	const struct fc *st;
	uint32_t i;
	int n = 0;

	if ((unsigned int)scope >= TRAWL_ARRAY_SIZE(roots))
		return -EINVAL;
	st = roots[scope];
	if (!st || !st->shown || st->kind != FC_STRUCT)
		return -ENOENT;
	/* the nodes of a scope are its shown members, in order (values.c) */
	for (i = 0; i < st->nmembers; i++) {
		const char *m = st->members[i].name;

		if (!st->members[i].fc->shown)
			continue;
		if (name_is(m + (m[0] == '_'), name))
			return n;
		n++;
	}
	return -ENOENT;
}

/* ---- traces and streams ------------------------------------------------------ */

TRAWL_EXPORT size_t trawl_reader_trace_count(const struct trawl_reader *r)
{
	return r->ntraces;
}

TRAWL_EXPORT const struct trawl_reader_trace *
trawl_reader_trace_at(const struct trawl_reader *r, size_t i)
{
	return i < r->ntraces ? rd_trace_pub(&r->traces[i]) : NULL;
}

TRAWL_EXPORT const char *trawl_reader_trace_name(const struct trawl_reader_trace *t)
{
	return rd_trace_of(t)->name;
}

TRAWL_EXPORT const char *trawl_reader_trace_path(const struct trawl_reader_trace *t)
{
	return rd_trace_of(t)->dir;
}

TRAWL_EXPORT int trawl_reader_trace_uuid(const struct trawl_reader_trace *t,
					 uint8_t uuid[16])
{
	const struct trace_class *tc = rd_trace_of(t)->tc;

	if (!tc->has_uuid)
		return -ENODATA;
	memcpy(uuid, tc->uuid, 16);
	return 0;
}

TRAWL_EXPORT size_t trawl_reader_trace_env_count(const struct trawl_reader_trace *t)
{
	return rd_trace_of(t)->tc->nenv;
}

TRAWL_EXPORT const char *trawl_reader_trace_env_name(const struct trawl_reader_trace *t,
						     size_t i)
{
	const struct trace_class *tc = rd_trace_of(t)->tc;

	return i < tc->nenv ? tc->env[i].name : NULL;
}

TRAWL_EXPORT const char *trawl_reader_trace_env_string(const struct trawl_reader_trace *t,
						       const char *name)
{
	const struct env_entry *e = trace_class_env(rd_trace_of(t)->tc, name);

	return e && e->type == ENV_STR ? e->str : NULL;
}

TRAWL_EXPORT int trawl_reader_trace_env_int(const struct trawl_reader_trace *t,
					    const char *name, int64_t *value)
{
	const struct env_entry *e = trace_class_env(rd_trace_of(t)->tc, name);

	if (!e || e->type != ENV_INT)
		return -ENOENT;
	*value = e->i;
	return 0;
}

TRAWL_EXPORT const char *trawl_reader_trace_metadata(const struct trawl_reader_trace *t,
						     size_t *len)
{
	const char *text = rd_trace_of(t)->tc->text;

	if (len)
		*len = strlen(text);
	return text;
}

TRAWL_EXPORT size_t trawl_reader_trace_stream_count(const struct trawl_reader_trace *t)
{
	return rd_trace_of(t)->nstreams;
}

TRAWL_EXPORT const struct trawl_reader_stream *
trawl_reader_trace_stream_at(const struct trawl_reader_trace *t, size_t i)
{
	const struct rd_trace *tr = rd_trace_of(t);

	return i < tr->nstreams ? rd_stream_pub(&tr->streams[i]) : NULL;
}

TRAWL_EXPORT const struct trawl_reader_trace *
trawl_reader_stream_trace(const struct trawl_reader_stream *s)
{
	return rd_trace_pub(rd_stream_of(s)->trace);
}

TRAWL_EXPORT const char *trawl_reader_stream_path(const struct trawl_reader_stream *s)
{
	return rd_stream_of(s)->path;
}

TRAWL_EXPORT uint64_t trawl_reader_stream_class_id(const struct trawl_reader_stream *s)
{
	const struct stream_class *sc = rd_stream_of(s)->sc;

	return sc ? sc->id : 0;
}

TRAWL_EXPORT uint64_t trawl_reader_stream_id(const struct trawl_reader_stream *s)
{
	return rd_stream_of(s)->id;
}

TRAWL_EXPORT void trawl_reader_progress(const struct trawl_reader *r, uint64_t *done,
					uint64_t *total)
{
	uint64_t d = 0, t = 0;
	uint32_t i, k;

	for (i = 0; i < r->ntraces; i++) {
		for (k = 0; k < r->traces[i].nstreams; k++) {
			const struct rd_stream *s = &r->traces[i].streams[k];
			bool ended = !s->in_packet && s->next_pkt_off >= s->size;

			d += ended ? s->size : s->pkt_off;
			t += s->size;
		}
	}
	if (done)
		*done = d;
	if (total)
		*total = t;
}
