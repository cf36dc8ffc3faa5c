/* SPDX-License-Identifier: MIT */
/*
 * After parsing: give special fields their meaning, map timestamp fields to
 * a clock when the metadata forgot to, bind sequence lengths and variant
 * tags to the integer fields they name, and decide which fields the text
 * output shows. The rules mirror babeltrace2's CTF reader so that the text
 * output matches it:
 *
 *  - packet header fields are never shown, nor the event header;
 *  - packet context timestamp_begin/_end, content_size, packet_size,
 *    events_discarded and packet_seq_num are not shown;
 *  - an integer mapped to a clock is not shown, unless a sequence or
 *    variant reads it;
 *  - a struct is shown if it was declared empty or shows a member; a
 *    scope whose struct shows nothing is not printed at all.
 *
 * Paths: absolute (`stream.event.context.len`) start at a named scope;
 * relative ones (`len`) are looked up in the enclosing structs, innermost
 * first, among the fields declared before, then in the earlier scopes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/internal.h"

enum { R_PH, R_PC, R_EH, R_SEC, R_EC, R_EP, R_COUNT };

static const char *const root_prefix[R_COUNT] = {
	"trace.packet.header.", "stream.packet.context.",
	"stream.event.header.", "stream.event.context.",
	"event.context.", "event.fields.",
};

struct frame {
	struct fc *st;
	uint32_t idx;	/* index of the member being visited */
};

struct resolver {
	struct trace_class *tc;
	struct fc *roots[R_COUNT];
	int cur_root;
	struct frame stack[96];
	int depth;
	const char *path;
	struct rd_err *err;
};

/* babeltrace2 shows "_x" as "x": match the name as written, then stripped. */
static bool name_matches(const char *member, const char *name)
{
	if (!strcmp(member, name))
		return true;
	return member[0] == '_' && !strcmp(member + 1, name);
}

static struct fc *member_by_name(const struct fc *st, const char *name)
{
	struct fc *f = fc_struct_member(st, name);
	uint32_t i;

	if (f || !st || st->kind != FC_STRUCT)
		return f;
	for (i = 0; i < st->nmembers; i++)
		if (name_matches(st->members[i].name, name))
			return st->members[i].fc;
	return NULL;
}

static struct fc *walk_path(struct fc *fc, const char *rest)
{
	char comp[256];

	while (fc && *rest) {
		const char *dot = strchr(rest, '.');
		size_t n = dot ? (size_t)(dot - rest) : strlen(rest);

		if (n >= sizeof(comp))
			return NULL;
		memcpy(comp, rest, n);
		comp[n] = '\0';
		if (fc->kind != FC_STRUCT)
			return NULL;
		fc = member_by_name(fc, comp);
		rest = dot ? dot + 1 : rest + n;
	}
	return fc;
}

static struct fc *lookup(struct resolver *r, const char *path)
{
	char first[256];
	const char *dot;
	size_t n;
	int i;
	uint32_t j;

	for (i = 0; i < R_COUNT; i++) {
		size_t l = strlen(root_prefix[i]);

		if (!strncmp(path, root_prefix[i], l))
			return i <= r->cur_root ? walk_path(r->roots[i], path + l) :
						  NULL;
	}
	dot = strchr(path, '.');
	n = dot ? (size_t)(dot - path) : strlen(path);
	if (n >= sizeof(first))
		return NULL;
	memcpy(first, path, n);
	first[n] = '\0';
	for (i = r->depth - 1; i >= 0; i--) {
		struct fc *st = r->stack[i].st;

		if (st->kind != FC_STRUCT)
			continue;
		for (j = 0; j < r->stack[i].idx && j < st->nmembers; j++)
			if (name_matches(st->members[j].name, first))
				return dot ? walk_path(st->members[j].fc, dot + 1) :
					     st->members[j].fc;
	}
	for (i = r->cur_root - 1; i >= 0; i--) {
		struct fc *t = r->roots[i] ? member_by_name(r->roots[i], first) :
					     NULL;

		if (t)
			return dot ? walk_path(t, dot + 1) : t;
	}
	return NULL;
}

static int rerr(struct resolver *r, const char *what, const char *path)
{
	rd_err_set(r->err, "%s: %s `%s`", r->path, what, path);
	return -EINVAL;
}

static bool range_has(const struct fc *tag, const struct enum_range *rg,
		      int64_t v)
{
	if (tag->is_signed)
		return v >= rg->lo && v <= rg->hi;
	return (uint64_t)v >= (uint64_t)rg->lo && (uint64_t)v <= (uint64_t)rg->hi;
}

static int build_choices(struct resolver *r, struct fc *var)
{
	struct fc *tag = var->ref;
	uint32_t i, o;

	(void)range_has;
	free(var->choices);
	var->choices = calloc(tag->nranges ? tag->nranges : 1,
			      sizeof(*var->choices));
	if (!var->choices)
		return -ENOMEM;
	var->nchoices = 0;
	for (i = 0; i < tag->nranges; i++) {
		const char *label = tag->labels[tag->ranges[i].label];

		for (o = 0; o < var->nmembers; o++)
			if (!strcmp(var->members[o].name, label))
				break;
		if (o == var->nmembers)
			for (o = 0; o < var->nmembers; o++)
				if (var->members[o].name[0] == '_' &&
				    !strcmp(var->members[o].name + 1, label))
					break;
		if (o == var->nmembers)
			continue;
		var->choices[var->nchoices].lo = tag->ranges[i].lo;
		var->choices[var->nchoices].hi = tag->ranges[i].hi;
		var->choices[var->nchoices].option = o;
		var->nchoices++;
	}
	(void)r;
	return 0;
}

static int bind_ref(struct resolver *r, struct fc *fc)
{
	struct fc *t = lookup(r, fc->ref_path);

	if (!t)
		return rerr(r, fc->kind == FC_SEQ ?
			       "cannot find the sequence length field" :
			       "cannot find the variant tag field", fc->ref_path);
	if (fc->kind == FC_SEQ) {
		if (t->kind != FC_INT || t->is_signed)
			return rerr(r, "sequence length field is not an unsigned integer",
				    fc->ref_path);
	} else {
		if (t->kind != FC_INT || !t->is_enum)
			return rerr(r, "variant tag field is not an enumeration",
				    fc->ref_path);
	}
	fc->ref = t;
	t->is_target = true;
	if (t->slot < 0) {
		if (r->tc->nslots >= 1u << 20)
			return rerr(r, "too many referenced fields at", fc->ref_path);
		t->slot = (int32_t)r->tc->nslots++;
	}
	if (fc->kind == FC_VARIANT && build_choices(r, fc))
		return -ENOMEM;
	return 0;
}

static int resolve_fc(struct resolver *r, struct fc *fc)
{
	uint32_t i;
	int ret;

	if (!fc)
		return 0;
	if ((fc->kind == FC_SEQ || fc->kind == FC_VARIANT) && fc->ref_path) {
		ret = bind_ref(r, fc);
		if (ret)
			return ret;
	} else if (fc->kind == FC_VARIANT) {
		return rerr(r, "variant has no tag", "?");
	}
	if (fc->kind == FC_STRUCT || fc->kind == FC_VARIANT) {
		if (r->depth >= (int)TRAWL_ARRAY_SIZE(r->stack))
			return rerr(r, "types nested too deeply at", "?");
		r->stack[r->depth].st = fc;
		r->depth++;
		for (i = 0; i < fc->nmembers; i++) {
			r->stack[r->depth - 1].idx = i;
			ret = resolve_fc(r, fc->members[i].fc);
			if (ret) {
				r->depth--;
				return ret;
			}
		}
		r->depth--;
	} else if (fc->kind == FC_ARRAY || fc->kind == FC_SEQ) {
		return resolve_fc(r, fc->elem);
	}
	return 0;
}

static int resolve_root(struct resolver *r, int which)
{
	r->cur_root = which;
	r->depth = 0;
	return resolve_fc(r, r->roots[which]);
}

/* ---- meanings and clocks -------------------------------------------- */

static void set_meaning(struct fc *st, const char *name, enum fc_meaning m)
{
	struct fc *f = fc_struct_member(st, name);

	if (f && st->kind == FC_STRUCT && f->kind == FC_INT)
		f->meaning = m;
}

static void set_id_meaning(struct fc *fc, const char *name)
{
	uint32_t i;

	if (!fc)
		return;
	switch (fc->kind) {
	case FC_INT:
		if (name && !strcmp(name, "id"))
			fc->meaning = M_EVENT_ID;
		break;
	case FC_STRUCT:
		for (i = 0; i < fc->nmembers; i++)
			set_id_meaning(fc->members[i].fc, fc->members[i].name);
		break;
	case FC_VARIANT:
		for (i = 0; i < fc->nmembers; i++)
			set_id_meaning(fc->members[i].fc, NULL);
		break;
	case FC_ARRAY:
	case FC_SEQ:
		set_id_meaning(fc->elem, NULL);
		break;
	default:
		break;
	}
}

static int auto_map(struct resolver *r, struct fc *fc, const char *name)
{
	struct trace_class *tc = r->tc;
	uint32_t i;

	if (!fc || (fc->kind != FC_STRUCT && fc->kind != FC_VARIANT))
		return 0;
	for (i = 0; i < fc->nmembers; i++) {
		struct fc *m = fc->members[i].fc;

		if (!strcmp(fc->members[i].name, name) && m->kind == FC_INT &&
		    !m->map) {
			if (tc->nclocks == 0) {
				struct clock_class *cc = calloc(1, sizeof(*cc));
				struct clock_class **a = malloc(sizeof(*a));

				if (!cc || !a || !(cc->name = strdup("default"))) {
					free(cc);
					free(a);
					return -ENOMEM;
				}
				cc->freq = 1000000000ULL;
				clock_class_finish(cc);
				a[0] = cc;
				tc->clocks = a;
				tc->nclocks = 1;
			} else if (tc->nclocks > 1) {
				rd_err_set(r->err, "%s: timestamp field `%s` has no mapped clock and the trace has several clocks",
					   r->path, name);
				return -EINVAL;
			}
			m->map = tc->clocks[0];
		}
		if (auto_map(r, m, name))
			return -EINVAL;
	}
	return 0;
}

static struct clock_class *first_map(const struct fc *fc)
{
	uint32_t i;
	struct clock_class *cc;

	if (!fc)
		return NULL;
	if (fc->kind == FC_INT)
		return fc->map;
	if (fc->kind == FC_STRUCT || fc->kind == FC_VARIANT) {
		for (i = 0; i < fc->nmembers; i++)
			if ((cc = first_map(fc->members[i].fc)))
				return cc;
	}
	return NULL;
}

/* ---- shown fields (babeltrace2's "in IR") ---------------------------- */

static void force_hidden(struct fc *fc)
{
	uint32_t i;

	if (!fc)
		return;
	fc->shown = false;
	for (i = 0; i < fc->nmembers; i++)
		force_hidden(fc->members[i].fc);
	force_hidden(fc->elem);
}

static void update_shown(struct fc *fc)
{
	int64_t i;

	if (!fc)
		return;
	switch (fc->kind) {
	case FC_INT:
		fc->shown = (!fc->map && fc->meaning == M_NONE) || fc->is_target;
		break;
	case FC_STRUCT:
		fc->shown = fc->nmembers == 0;
		for (i = (int64_t)fc->nmembers - 1; i >= 0; i--) {
			update_shown(fc->members[i].fc);
			if (fc->members[i].fc->shown)
				fc->shown = true;
		}
		break;
	case FC_VARIANT:
		fc->shown = false;
		for (i = (int64_t)fc->nmembers - 1; i >= 0; i--) {
			update_shown(fc->members[i].fc);
			if (fc->members[i].fc->shown)
				fc->shown = true;
		}
		if (fc->shown)
			for (i = 0; i < (int64_t)fc->nmembers; i++)
				fc->members[i].fc->shown = true;
		break;
	case FC_ARRAY:
	case FC_SEQ:
		update_shown(fc->elem);
		fc->shown = fc->elem->shown;
		break;
	default:
		fc->shown = true;
		break;
	}
}

static void mark_text(struct fc *fc)
{
	uint32_t i;

	if (!fc)
		return;
	if ((fc->kind == FC_ARRAY || fc->kind == FC_SEQ) &&
	    fc->elem->kind == FC_INT && fc->elem->align == 8 &&
	    fc->elem->size == 8 && fc->elem->encoding) {
		fc->is_text = true;
		fc->elem->is_signed = false;
	}
	for (i = 0; i < fc->nmembers; i++)
		mark_text(fc->members[i].fc);
	mark_text(fc->elem);
}

static void bind_maps(struct trace_class *tc, struct fc *fc)
{
	uint32_t i;

	if (!fc)
		return;
	if (fc->kind == FC_INT && fc->map_name && !fc->map) {
		/* a map to an unknown clock is ignored, as babeltrace2 does */
		for (i = 0; i < tc->nclocks; i++)
			if (!strcmp(tc->clocks[i]->name, fc->map_name))
				fc->map = tc->clocks[i];
	}
	for (i = 0; i < fc->nmembers; i++)
		bind_maps(tc, fc->members[i].fc);
	bind_maps(tc, fc->elem);
}

/*
 * The slot of @st's integer member @name, given one if it has none, for the
 * decoder to read its last value back; -1 when there is no such member.
 */
static int32_t member_slot(struct trace_class *tc, struct fc *st, const char *name)
{
	struct fc *f = st && st->kind == FC_STRUCT ? fc_struct_member(st, name) : NULL;

	if (!f || f->kind != FC_INT)
		return -1;
	if (f->slot < 0)
		f->slot = (int32_t)tc->nslots++;
	return f->slot;
}

static int resolve_stream(struct resolver *r, struct stream_class *sc)
{
	uint32_t e;
	int ret;

	set_meaning(sc->packet_context, "timestamp_begin", M_TS_BEGIN);
	set_meaning(sc->packet_context, "timestamp_end", M_TS_END);
	set_meaning(sc->packet_context, "events_discarded", M_DISCARDED);
	set_meaning(sc->packet_context, "packet_seq_num", M_SEQ_NUM);
	set_meaning(sc->packet_context, "packet_size", M_PACKET_SIZE);
	set_meaning(sc->packet_context, "content_size", M_CONTENT_SIZE);
	set_id_meaning(sc->event_header, NULL);
	bind_maps(r->tc, sc->packet_context);
	bind_maps(r->tc, sc->event_header);
	bind_maps(r->tc, sc->event_context);
	for (e = 0; e < sc->nevents; e++) {
		bind_maps(r->tc, sc->events[e]->context);
		bind_maps(r->tc, sc->events[e]->payload);
	}
	ret = auto_map(r, sc->event_header, "timestamp");
	if (!ret)
		ret = auto_map(r, sc->packet_context, "timestamp_begin");
	if (!ret)
		ret = auto_map(r, sc->packet_context, "timestamp_end");
	if (ret)
		return ret;
	sc->clock = first_map(sc->event_header);
	if (!sc->clock) {
		struct fc *tb = fc_struct_member(sc->packet_context, "timestamp_begin");

		sc->clock = tb && tb->kind == FC_INT ? tb->map : NULL;
	}
	{
		/* timestamp_end must not move the clock while decoding */
		struct fc *te = fc_struct_member(sc->packet_context, "timestamp_end");

		if (te && te->kind == FC_INT)
			te->map = NULL;
	}
	r->roots[R_PC] = sc->packet_context;
	r->roots[R_EH] = sc->event_header;
	r->roots[R_SEC] = sc->event_context;
	ret = resolve_root(r, R_PC);
	if (!ret)
		ret = resolve_root(r, R_EH);
	if (!ret)
		ret = resolve_root(r, R_SEC);
	for (e = 0; !ret && e < sc->nevents; e++) {
		r->roots[R_EC] = sc->events[e]->context;
		r->roots[R_EP] = sc->events[e]->payload;
		ret = resolve_root(r, R_EC);
		if (!ret)
			ret = resolve_root(r, R_EP);
	}
	if (ret)
		return ret;
	mark_text(sc->packet_context);
	mark_text(sc->event_header);
	mark_text(sc->event_context);
	for (e = 0; e < sc->nevents; e++) {
		mark_text(sc->events[e]->context);
		mark_text(sc->events[e]->payload);
		update_shown(sc->events[e]->payload);
		update_shown(sc->events[e]->context);
	}
	update_shown(sc->event_context);
	force_hidden(sc->event_header);
	update_shown(sc->packet_context);
	sc->slot_cpu_id = member_slot(r->tc, sc->packet_context, "cpu_id");
	return 0;
}

int tsdl_resolve(struct trace_class *tc, const char *path, struct rd_err *err)
{
	struct resolver r;
	uint32_t s;
	int ret;

	memset(&r, 0, sizeof(r));
	r.tc = tc;
	r.path = path;
	r.err = err;
	set_meaning(tc->packet_header, "magic", M_MAGIC);
	set_meaning(tc->packet_header, "stream_id", M_STREAM_ID);
	set_meaning(tc->packet_header, "stream_instance_id", M_STREAM_INSTANCE_ID);
	bind_maps(tc, tc->packet_header);
	r.roots[R_PH] = tc->packet_header;
	ret = resolve_root(&r, R_PH);
	for (s = 0; !ret && s < tc->nstreams; s++)
		ret = resolve_stream(&r, tc->streams[s]);
	if (ret)
		return ret;
	mark_text(tc->packet_header);
	force_hidden(tc->packet_header);
	tc->slot_magic = member_slot(tc, tc->packet_header, "magic");
	tc->slot_stream_id = member_slot(tc, tc->packet_header, "stream_id");
	tc->slot_stream_instance_id = member_slot(tc, tc->packet_header,
						  "stream_instance_id");
	return 0;
}
