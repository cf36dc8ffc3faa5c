/* SPDX-License-Identifier: MIT */
/*
 * An event's fields as values (values.h): the third walker of field class
 * trees, beside field.c (which prints) and the plans (which are fast). It
 * decodes every field of a scope, keeps a node for each field babeltrace2
 * shows, and steps over the others with field.c. A compound reserves all
 * its children's nodes at once, so they are contiguous; nodes are
 * addressed by index while decoding (the array grows) and get their
 * pointers once it is done.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/reader.h"
#include "common/array.h"
#include "reader/decode_int.h"
#include "reader/values.h"

/* Nodes of one event (48 bytes each): beyond this, an event is refused. */
#define MAX_NODES (1u << 22)
#define MAX_NESTING 200

struct vctx {
	struct dctx *d;
	struct rd_values *v;
	int depth;
};

static int reserve(struct vctx *c, uint64_t n, uint32_t *first)
{
	struct rd_values *v = c->v;

	*first = v->n; /* set on every path: gcc -O3 cannot see rd_derr() is never 0 */
	if (n > MAX_NODES - v->n)
		return rd_derr(c->d, "too many fields in one event to list them");
	if (trawl_array_grow((void **)&v->nodes, &v->cap, (size_t)v->n + n, sizeof(*v->nodes), 64))
		return -ENOMEM;
	memset(v->nodes + v->n, 0, n * sizeof(*v->nodes));
	v->n += (uint32_t)n;
	return 0;
}

/* A copy of @len bytes and a NUL in the scratch; its offset in @node. */
static int scratch_copy(struct rd_values *v, uint32_t node, const char *str,
			size_t len)
{
	if (len >= v->scap - v->slen &&
	    (len >= SIZE_MAX - v->slen ||
	     trawl_array_grow((void **)&v->scratch, &v->scap, v->slen + len + 1, 1, 256)))
		return -ENOMEM;
	memcpy(v->scratch + v->slen, str, len);
	v->scratch[v->slen + len] = '\0';
	v->nodes[node].scratch_off = v->slen;
	v->nodes[node].in_scratch = true;
	v->nodes[node].v.len = len;
	v->slen += len + 1;
	return 0;
}

static const char *shown_name(const char *name)
{
	return name + (name[0] == '_');
}

static int val_fc(struct vctx *c, const struct fc *fc, uint32_t node);

static int val_struct(struct vctx *c, const struct fc *fc, uint32_t node)
{
	uint32_t i, k = 0, n = 0, first;
	int ret;

	if (fc->align > 1 && do_align(c->d, fc->align))
		return -EINVAL;
	for (i = 0; i < fc->nmembers; i++)
		n += fc->members[i].fc->shown;
	ret = reserve(c, n, &first);
	if (ret)
		return ret;
	c->v->nodes[node].kind = TRAWL_READER_FIELD_STRUCT;
	c->v->nodes[node].first = first;
	c->v->nodes[node].count = n;
	for (i = 0; i < fc->nmembers; i++) {
		const struct member *m = &fc->members[i];

		if (!m->fc->shown) {
			if (rd_decode_fc(c->d, m->fc, NULL))
				return -EINVAL;
			continue;
		}
		c->v->nodes[first + k].name = shown_name(m->name);
		ret = val_fc(c, m->fc, first + k);
		if (ret)
			return ret;
		k++;
	}
	return 0;
}

static int val_variant(struct vctx *c, const struct fc *fc, uint32_t node)
{
	uint32_t o = 0, first;
	int ret;

	if (rd_variant_option(c->d, fc, &o))
		return -EINVAL;
	ret = reserve(c, 1, &first);
	if (ret)
		return ret;
	c->v->nodes[node].kind = TRAWL_READER_FIELD_VARIANT;
	c->v->nodes[node].first = first;
	c->v->nodes[node].count = 1;
	c->v->nodes[first].name = shown_name(fc->members[o].name);
	return val_fc(c, fc->members[o].fc, first);
}

static int val_array(struct vctx *c, const struct fc *fc, uint32_t node)
{
	struct trawl_reader_field *nd;
	uint64_t i, n;
	uint32_t first;
	int ret;

	if (fc->is_text) {
		const char *str = NULL;
		size_t len = 0;

		n = fc->kind == FC_ARRAY ? fc->length : c->d->s->slots[fc->ref->slot];
		if (rd_decode_text_array(c->d, n, &str, &len))
			return -EINVAL;
		c->v->nodes[node].kind = TRAWL_READER_FIELD_STRING;
		return scratch_copy(c->v, node, str, len);
	}
	if (rd_array_length(c->d, fc, &n))
		return -EINVAL;
	ret = reserve(c, n, &first);
	if (ret)
		return ret;
	nd = &c->v->nodes[node];
	nd->kind = fc->kind == FC_ARRAY ? TRAWL_READER_FIELD_ARRAY :
					  TRAWL_READER_FIELD_SEQUENCE;
	nd->first = first;
	nd->count = (uint32_t)n;
	for (i = 0; i < n; i++) {
		ret = val_fc(c, fc->elem, first + (uint32_t)i);
		if (ret)
			return ret;
	}
	return 0;
}

/* Decodes @fc (shown) into node @node. */
static int val_fc(struct vctx *c, const struct fc *fc, uint32_t node)
{
	struct trawl_reader_field *nd = &c->v->nodes[node];
	int ret;

	nd->fc = fc;
	switch (fc->kind) {
	case FC_INT:
		nd->kind = fc->is_enum ? TRAWL_READER_FIELD_ENUM :
					 TRAWL_READER_FIELD_INTEGER;
		return rd_decode_int(c->d, fc, &nd->v.u);
	case FC_FLOAT:
		nd->kind = TRAWL_READER_FIELD_FLOAT;
		return rd_decode_float(c->d, fc, &nd->v.d);
	case FC_STRING: {
		size_t len = 0;

		nd->kind = TRAWL_READER_FIELD_STRING;
		ret = rd_decode_string(c->d, &nd->str, &len);
		nd->v.len = len;
		return ret;
	}
	default:
		break;
	}
	if (++c->depth > MAX_NESTING) {
		c->depth--;
		return rd_derr(c->d, "fields nested too deeply");
	}
	if (fc->kind == FC_STRUCT)
		ret = val_struct(c, fc, node);
	else if (fc->kind == FC_VARIANT)
		ret = val_variant(c, fc, node);
	else
		ret = val_array(c, fc, node);
	c->depth--;
	return ret;
}

/* A scope: its root node, or none when it shows nothing (decoded all the same). */
static int val_scope(struct vctx *c, const struct fc *root, int which)
{
	uint32_t node;
	int ret;

	c->v->root_node[which] = UINT32_MAX;
	if (!root)
		return 0;
	if (!root->shown)
		return rd_decode_fc(c->d, root, NULL);
	ret = reserve(c, 1, &node);
	if (ret)
		return ret;
	c->v->root_node[which] = node;
	return val_fc(c, root, node);
}

/* Nodes stopped moving: indexes become pointers. */
static void finish(struct rd_values *v)
{
	uint32_t i;

	for (i = 0; i < v->n; i++) {
		struct trawl_reader_field *nd = &v->nodes[i];

		if (nd->count)
			nd->children = &v->nodes[nd->first];
		if (nd->in_scratch)
			nd->str = v->scratch + nd->scratch_off;
	}
	for (i = 0; i < 3; i++)
		v->roots[i] = v->root_node[i] == UINT32_MAX ? NULL :
							     &v->nodes[v->root_node[i]];
}

static void reset(struct rd_values *v)
{
	v->n = 0;
	v->slen = 0;
	v->roots[0] = v->roots[1] = v->roots[2] = NULL;
	v->root_node[0] = v->root_node[1] = v->root_node[2] = UINT32_MAX;
}

int rd_values_body(struct rd_values *v, struct rd_stream *s, struct rd_err *err)
{
	struct vctx c = { .d = &s->evd, .v = v };
	const struct fc *scopes[3] = { s->sc->event_context, s->dev->ec->context,
				       s->dev->ec->payload };
	int i, ret = 0;

	reset(v);
	if (s->body_pending)	/* same protocol as rd_stream_body() */
		s->body_pos = s->pos;
	else
		s->pos = s->body_pos;
	s->body_pending = false;
	c.d->err = err;
	for (i = 0; i < 3 && !ret; i++)
		ret = val_scope(&c, scopes[i], i);
	if (!ret && s->pos == s->ev_pos)
		ret = rd_derr(c.d, "event has zero size");
	if (ret) {
		reset(v);
		return ret;
	}
	finish(v);
	return 0;
}

int rd_values_packet_context(struct rd_values *v, struct rd_stream *s,
			     struct rd_err *err)
{
	/* as rd_stream_pc_text_make(): the packet context's bytes again */
	struct dctx d = { .s = s, .err = err, .pkt = s->pkt, .end = s->content_bits };
	struct vctx c = { .d = &d, .v = v };
	uint64_t pos = s->pos, clock = s->clock;
	int ret;

	reset(v);
	s->pos = s->pc_pos;
	ret = val_scope(&c, s->sc->packet_context, 0);
	s->pos = pos;
	s->clock = clock;
	if (ret) {
		reset(v);
		return ret;
	}
	finish(v);
	return 0;
}

void rd_values_fini(struct rd_values *v)
{
	free(v->nodes);
	free(v->scratch);
	memset(v, 0, sizeof(*v));
}
