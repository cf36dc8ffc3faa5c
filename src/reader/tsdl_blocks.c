/* SPDX-License-Identifier: MIT */
/*
 * TSDL blocks: `trace`, `env`, `clock`, `stream`, `event`, `callsite`, the
 * top level, and the entry point tsdl_parse(). Events may come before their
 * stream class (LTTng writes them so): they are attached at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/tsdl_int.h"

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

	tp_next(p);	/* block keyword */
	if (tp_expect(p, '{'))
		return -EINVAL;
	if (tp_scope_push(p))
		return -EINVAL;
	while (!tp_is_punct(p, '}')) {
		if (tp_is_id(p, "typealias")) {
			ret = tp_typealias(p);
		} else if (tp_is_id(p, "typedef")) {
			ret = tp_typedef(p);
		} else if (p->lx.tok.type == TOK_ID) {
			struct val v;

			name[0] = '\0';
			ret = tp_path_append(p, name, sizeof(name), false);
			tp_next(p);
			while (!ret && (tp_is_punct(p, '.') || tp_is_punct(p, 'R'))) {
				tp_next(p);
				if (p->lx.tok.type != TOK_ID) {
					ret = tp_err_tok(p, "expected a name after `.`");
					break;
				}
				ret = tp_path_append(p, name, sizeof(name), true);
				tp_next(p);
			}
			if (ret)
				break;
			if (tp_is_punct(p, 'A')) {
				struct fc *fc;

				tp_next(p);
				fc = tp_type_spec(p);
				if (!fc) {
					ret = -EINVAL;
					break;
				}
				while (tp_is_punct(p, '*'))
					tp_next(p);
				ret = cb_type ? cb_type(p, obj, name, fc) :
						(fc_destroy(fc), tp_err(p, "unexpected type assignment"));
			} else if (tp_is_punct(p, '=')) {
				tp_next(p);
				ret = tp_value(p, &v);
				if (!ret)
					ret = cb_val(p, obj, name, &v);
			} else {
				ret = tp_err_tok(p, "expected `=` or `:=`");
			}
			if (!ret)
				ret = tp_expect(p, ';');
		} else {
			ret = tp_err_tok(p, "expected an attribute or `}`");
		}
		if (ret)
			break;
	}
	tp_scope_pop(p);
	if (ret)
		return ret;
	tp_next(p);
	return tp_expect(p, ';');
}

static int root_struct(struct parser *p, struct fc *fc, struct fc **slot)
{
	if (*slot) {
		fc_destroy(fc);
		return tp_err(p, "scope declared twice");
	}
	if (fc->kind != FC_STRUCT) {
		fc_destroy(fc);
		return tp_err(p, "a scope's type must be a struct");
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
		if (tp_val_u64(p, v, &u))
			return -EINVAL;
		if (name[1] == 'a') {
			if (u != 1)
				return tp_err(p, "unsupported trace major version (expected 1)");
			tc->major = 1;
		} else {
			if (u != 8)
				return tp_err(p, "unsupported trace minor version (expected 8)");
			tc->minor = 8;
		}
	} else if (!strcmp(name, "uuid")) {
		if (v->kind != V_STR || tp_parse_uuid(v->s, tc->uuid))
			return tp_err(p, "invalid trace uuid");
		tc->has_uuid = true;
	} else if (!strcmp(name, "byte_order")) {
		int bo = tp_val_byte_order(p, v);

		if (bo < 0)
			return -EINVAL;
		if (bo == 2)
			return tp_err(p, "trace byte_order cannot be native");
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
		return tp_err(p, "duplicate trace block");
	p->trace_seen = true;
	if (parse_block(p, p->tc, trace_val, trace_type))
		return -EINVAL;
	if (!p->tc->major || !p->tc->minor)
		return tp_err(p, "trace block lacks major or minor");
	if (!p->tc->byte_order_set)
		return tp_err(p, "trace block lacks byte_order");
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
			return tp_err(p, "out of memory");
		tc->env = e;
		memset(&e[i], 0, sizeof(*e));
		e[i].name = strdup(name);
		if (!e[i].name)
			return tp_err(p, "out of memory");
		tc->nenv++;
	}
	e = &tc->env[i];
	free(e->str);
	e->str = NULL;
	if (v->kind == V_INT) {
		e->type = ENV_INT;
		if (tp_val_i64(p, v, &e->i))
			return -EINVAL;
	} else {
		e->type = ENV_STR;
		e->str = strdup(v->s);
		if (!e->str)
			return tp_err(p, "out of memory");
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
			return tp_err(p, "invalid clock name");
		free(cc->name);
		cc->name = strdup(v->s);
		return cc->name ? 0 : tp_err(p, "out of memory");
	} else if (!strcmp(name, "description")) {
		if (v->kind != V_STR)
			return tp_err(p, "invalid clock description");
		free(cc->description);
		cc->description = strdup(v->s);
		return cc->description ? 0 : tp_err(p, "out of memory");
	} else if (!strcmp(name, "uuid")) {
		if (v->kind != V_STR || tp_parse_uuid(v->s, cc->uuid))
			return tp_err(p, "invalid clock uuid");
		cc->has_uuid = true;
	} else if (!strcmp(name, "freq")) {
		if (tp_val_u64(p, v, &cc->freq))
			return -EINVAL;
		if (cc->freq == 0)
			return tp_err(p, "clock frequency is zero");
	} else if (!strcmp(name, "precision")) {
		return tp_val_u64(p, v, &cc->precision);
	} else if (!strcmp(name, "offset_s")) {
		return tp_val_i64(p, v, &cc->offset_s);
	} else if (!strcmp(name, "offset")) {
		uint64_t u;

		if (tp_val_u64(p, v, &u))
			return -EINVAL;
		if (u > (uint64_t)INT64_MAX)
			return tp_err(p, "clock offset out of range");
		cc->offset = (int64_t)u;
	} else if (!strcmp(name, "absolute")) {
		return tp_val_bool(p, v, &cc->absolute);
	}
	return 0;
}

static int parse_clock(struct parser *p)
{
	struct clock_class *cc = calloc(1, sizeof(*cc));
	struct clock_class **a;

	if (!cc)
		return tp_err(p, "out of memory");
	cc->freq = 1000000000ULL;
	if (parse_block(p, cc, clock_val, NULL))
		goto error;
	if (!cc->name) {
		tp_err(p, "clock has no name");
		goto error;
	}
	if (tp_find_clock(p->tc, cc->name)) {
		tp_err(p, "duplicate clock name");
		goto error;
	}
	if (cc->offset_s > INT64_MAX / 1000000000LL ||
	    cc->offset_s < INT64_MIN / 1000000000LL) {
		tp_err(p, "clock offset_s out of range");
		goto error;
	}
	clock_class_finish(cc);
	a = realloc(p->tc->clocks, (p->tc->nclocks + 1) * sizeof(*a));
	if (!a) {
		tp_err(p, "out of memory");
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
		if (tp_val_u64(p, v, &sp->sc->id))
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
		return tp_err(p, "duplicate stream class id");
	a = realloc(p->tc->streams, (p->tc->nstreams + 1) * sizeof(*a));
	if (!a)
		return tp_err(p, "out of memory");
	p->tc->streams = a;
	a[p->tc->nstreams++] = sc;
	return 0;
}

static int parse_stream(struct parser *p)
{
	struct stream_parse sp = { 0 };

	sp.sc = calloc(1, sizeof(*sp.sc));
	if (!sp.sc)
		return tp_err(p, "out of memory");
	if (parse_block(p, &sp, stream_val, stream_type))
		goto error;
	if (!sp.id_set && p->tc->nstreams) {
		tp_err(p, "stream class lacks an id while there are several");
		goto error;
	}
	if (sp.id_set && !fc_struct_member(p->tc->packet_header, "stream_id") &&
	    p->tc->nstreams) {
		tp_err(p, "stream class has an id but the packet header has no stream_id");
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
			return tp_err(p, "invalid event name");
		free(ep->ec->name);
		ep->ec->name = strdup(v->s);
		return ep->ec->name ? 0 : tp_err(p, "out of memory");
	} else if (!strcmp(name, "id")) {
		if (tp_val_u64(p, v, &ep->ec->id))
			return -EINVAL;
		ep->id_set = true;
	} else if (!strcmp(name, "stream_id")) {
		if (tp_val_u64(p, v, &ep->sid))
			return -EINVAL;
		ep->sid_set = true;
	} else if (!strcmp(name, "loglevel")) {
		if (tp_val_i64(p, v, &ep->ec->loglevel))
			return -EINVAL;
		ep->ec->has_loglevel = true;
	} else if (!strcmp(name, "model.emf.uri")) {
		if (v->kind != V_STR)
			return tp_err(p, "invalid model.emf.uri");
		free(ep->ec->emf_uri);
		ep->ec->emf_uri = strdup(v->s);
		return ep->ec->emf_uri ? 0 : tp_err(p, "out of memory");
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
			return tp_err(p, "event refers to an unknown stream class");
	} else if (p->tc->nstreams == 1) {
		sc = p->tc->streams[0];
	} else if (p->tc->nstreams == 0) {
		sc = calloc(1, sizeof(*sc));
		if (!sc)
			return tp_err(p, "out of memory");
		if (add_stream(p, sc)) {
			free(sc);
			return -EINVAL;
		}
	} else {
		return tp_err(p, "event lacks stream_id while there are several stream classes");
	}
	if (!ep->id_set && sc->nevents)
		return tp_err(p, "event lacks an id while its stream has several events");
	if (stream_class_event(sc, ep->ec->id))
		return tp_err(p, "duplicate event id in stream class");
	a = realloc(sc->events, (sc->nevents + 1) * sizeof(*a));
	if (!a)
		return tp_err(p, "out of memory");
	sc->events = a;
	ep->ec->index = sc->nevents;
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
		return tp_err(p, "out of memory");
	if (parse_block(p, &ep, event_val, event_type))
		goto error;
	a = realloc(p->pending, (p->npending + 1) * sizeof(*a));
	if (!a) {
		tp_err(p, "out of memory");
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
			return tp_err(p, p->lx.tok.error);
		if (tp_is_id(p, "trace"))
			ret = parse_trace(p);
		else if (tp_is_id(p, "clock"))
			ret = parse_clock(p);
		else if (tp_is_id(p, "stream"))
			ret = parse_stream(p);
		else if (tp_is_id(p, "event"))
			ret = parse_event(p);
		else if (tp_is_id(p, "env"))
			ret = parse_block(p, p->tc, env_val, NULL);
		else if (tp_is_id(p, "callsite"))
			ret = parse_block(p, NULL, ignore_val, ignore_type);
		else if (tp_is_id(p, "typealias"))
			ret = tp_typealias(p);
		else if (tp_is_id(p, "typedef"))
			ret = tp_typedef(p);
		else if (tp_is_id(p, "struct") || tp_is_id(p, "variant") ||
			 tp_is_id(p, "enum")) {
			struct fc *fc = tp_type_spec(p);

			fc_destroy(fc);
			ret = fc ? tp_expect(p, ';') : -EINVAL;
		} else {
			ret = tp_err_tok(p, "expected a declaration");
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
	ret = tp_scope_push(p);
	if (!ret) {
		tp_next(p);
		ret = parse_top(p);
		while (p->nscopes)
			tp_scope_pop(p);
		if (!ret && !p->trace_seen)
			ret = tp_err(p, "no trace block in metadata");
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
