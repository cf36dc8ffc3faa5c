/* SPDX-License-Identifier: MIT */
/*
 * What a live reader asks the relay daemon, and what it keeps of the
 * answers: the sessions it attached to, their traces (metadata, parsed
 * again each time it grows) and their streams (an index, then that packet,
 * then the packet's events, and again). live.c merges the streams' events.
 *
 * The order of questions is babeltrace2's lttng-live source's: new streams
 * and metadata first whenever a reply flags them, so that no event is
 * merged before the streams that may hold earlier ones are known.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/live_int.h"

static void *grow(void *arr, size_t n, size_t size)
{
	/* arrays of pointers grow by doubling at powers of two */
	if (n & (n - 1))
		return arr;
	return realloc(arr, (n ? 2 * n : 1) * size);
}

/* ---- traces and their metadata ------------------------------------------- */

static struct lv_trace *trace_get(struct trawl_reader *r, struct lv_session *ss, uint64_t id)
{
	struct rd_live *l = r->live;
	struct lv_trace *t, **arr;
	size_t i;

	for (i = 0; i < l->ntraces; i++)
		if (l->traces[i]->sess == ss && l->traces[i]->id == id)
			return l->traces[i];
	if (l->ntraces >= LV_MAX_TRACES) {
		rd_err_set(&r->err, "relay daemon at %s: more than %u traces", l->c.where,
			   LV_MAX_TRACES);
		return NULL;
	}
	arr = grow(l->traces, l->ntraces, sizeof(*arr));
	t = calloc(1, sizeof(*t));
	if (arr)
		l->traces = arr;
	if (!arr || !t || !(t->t.name = strdup("(unknown)")) ||
	    !(t->t.dir = strdup(l->c.where))) {
		if (t)
			free(t->t.name);
		free(t);
		rd_err_set(&r->err, "out of memory");
		return NULL;
	}
	t->sess = ss;
	t->id = id;
	t->t.index = (uint32_t)l->ntraces;
	l->traces[l->ntraces++] = t;
	return t;
}

/* Parses all the metadata received into a new trace class for @t. */
static int trace_parse(struct trawl_reader *r, struct lv_trace *t)
{
	struct rd_live *l = r->live;
	struct trace_class *tc = NULL;
	struct rd_dec *dec = NULL;
	struct lv_gen *g = NULL;
	char *text, name[64];
	size_t len;
	uint32_t i;
	int ret;

	snprintf(name, sizeof(name), "metadata of trace %" PRIu64, t->id);
	if (t->parsed_total + t->md_len > LV_MAX_PARSED) {
		rd_err_set(&r->err, "relay daemon at %s: %s grew in too many steps (over %llu MiB "
			   "parsed)", l->c.where, name, LV_MAX_PARSED >> 20);
		return -EMSGSIZE;
	}
	t->parsed_total += t->md_len;
	ret = metadata_from_buf(name, (const unsigned char *)t->md_raw, t->md_len, &text, &len,
				&r->err);
	if (ret)
		return ret;
	ret = tsdl_parse(text, len, name, &tc, &r->err);
	if (ret) {
		free(text);
		return ret;
	}
	tc->text = text;
	ret = tsdl_resolve(tc, name, &r->err);
	if (!ret)
		ret = rd_dec_create(tc, &dec);
	if (!ret && t->t.tc && !(g = calloc(1, sizeof(*g))))
		ret = -ENOMEM;
	if (ret) {
		rd_dec_destroy(dec);
		trace_class_destroy(tc);
		return ret;
	}
	for (i = 0; i < tc->nclocks; i++)
		clock_class_apply_offset(tc->clocks[i], l->off_s, l->off_ns);
	if (t->t.tc) {
		g->tc = t->t.tc;
		g->dec = t->t.dec;
		g->next = t->old;
		t->old = g;
	}
	t->t.tc = tc;
	t->t.dec = dec;
	t->md_parsed = t->md_len;
	rd_trace_env_header(&t->t);
	return 0;
}

/* GET_METADATA until the relay daemon has no more, then parses it anew. */
static int trace_metadata(struct trawl_reader *r, struct lv_trace *t)
{
	struct rd_live *l = r->live;
	uint32_t status = LIVE_METADATA_OK;
	int ret;

	t->md_needed = false;
	if (!t->has_md || t->md_closed)
		return 0;
	while (status == LIVE_METADATA_OK) {
		size_t before = t->md_len;

		ret = lv_get_metadata(&l->c, t->md_id, &t->md_raw, &t->md_len, &status);
		if (ret)
			return ret;
		/* OK with nothing: lttng-relayd after a clear; ask again */
		if (status == LIVE_METADATA_OK && t->md_len == before)
			break;
	}
	if (status == LIVE_METADATA_ERR)
		t->md_closed = true;
	return t->md_len > t->md_parsed ? trace_parse(r, t) : 0;
}

/* ---- streams ------------------------------------------------------------- */

static int stream_add(struct trawl_reader *r, struct lv_session *ss,
		      const struct lv_stream_info *in)
{
	struct rd_live *l = r->live;
	struct lv_trace *t = trace_get(r, ss, in->trace_id);
	struct lv_stream *s, **arr;
	size_t i;

	if (!t)
		return -ENOMEM;
	if (in->metadata) {
		t->md_id = in->id;
		t->has_md = true;
		t->md_needed = true;
		return 0;
	}
	for (i = 0; i < l->nstreams; i++)
		if (l->streams[i]->id == in->id && l->streams[i]->trace->sess == ss)
			return 0;	/* told twice: once is enough */
	if (l->nstreams >= LV_MAX_STREAMS) {
		rd_err_set(&r->err, "relay daemon at %s: more than %u streams", l->c.where,
			   LV_MAX_STREAMS);
		return -EMSGSIZE;
	}
	arr = grow(l->streams, l->nstreams, sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	l->streams = arr;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->trace = t;
	s->id = in->id;
	s->state = LV_NEED_INDEX;
	snprintf(s->name, sizeof(s->name), "stream-%" PRIu64, in->id);
	l->streams[l->nstreams++] = s;
	ss->nstreams++;
	return 0;
}

static int streams_add(struct trawl_reader *r, struct lv_session *ss,
		       const struct lv_stream_info *in, uint32_t n)
{
	int ret = 0;

	for (uint32_t i = 0; i < n && !ret; i++)
		ret = stream_add(r, ss, &in[i]);
	return ret;
}

static int session_new_streams(struct trawl_reader *r, struct lv_session *ss)
{
	struct rd_live *l = r->live;
	struct lv_stream_info *in;
	uint32_t status, n;
	int ret;

	ss->need_streams = false;
	ret = lv_streams(&l->c, 0, ss->id, &status, &in, &n);
	if (ret)
		return ret;
	ret = streams_add(r, ss, in, n);
	free(in);
	if (status == LIVE_NEW_STREAMS_HUP)
		ss->closed = true;
	if (status == LIVE_NEW_STREAMS_ERR) {
		rd_err_set(&r->err, "relay daemon at %s: session %" PRIu64 " is gone", l->c.where,
			   ss->id);
		return -ECONNRESET;
	}
	return ret;
}

/* ---- attaching ----------------------------------------------------------- */

static const char *attach_why(uint32_t status)
{
	switch (status) {
	case LIVE_ATTACH_ALREADY: return "another viewer is attached to it (lttng-relayd serves one)";
	case LIVE_ATTACH_NOT_LIVE: return "it is not a live session";
	case LIVE_ATTACH_SEEK_ERR: return "seek refused";
	case LIVE_ATTACH_NO_SESSION: return "no viewer session";
	default: return "unknown session";
	}
}

static int attach_one(struct trawl_reader *r, uint64_t id)
{
	struct rd_live *l = r->live;
	struct lv_session *ss, **arr;
	struct lv_stream_info *in;
	uint32_t status, n;
	int ret;

	arr = grow(l->sess, l->nsess, sizeof(*arr));
	if (!arr)
		return -ENOMEM;
	l->sess = arr;
	ss = calloc(1, sizeof(*ss));
	if (!ss)
		return -ENOMEM;
	ss->id = id;
	l->sess[l->nsess++] = ss;
	ret = lv_streams(&l->c, 1, id, &status, &in, &n);
	if (ret)
		return ret;
	if (status != LIVE_ATTACH_OK) {
		rd_err_set(&r->err, "relay daemon at %s: cannot attach to session %s of host %s: %s",
			   l->c.where, l->url.session, l->url.hostname, attach_why(status));
		return status == LIVE_ATTACH_UNK ? -ENOENT : -EPROTO;
	}
	ret = streams_add(r, ss, in, n);
	free(in);
	return ret;
}

int lv_attach_all(struct trawl_reader *r)
{
	struct rd_live *l = r->live;
	struct lv_session_info *list;
	size_t n, i;
	int ret;

	ret = lv_list(&l->c, &list, &n);
	if (ret)
		return ret;
	for (i = 0; i < n && !ret; i++)
		if (!strcmp(list[i].name, l->url.session) &&
		    !strcmp(list[i].hostname, l->url.hostname))
			ret = attach_one(r, list[i].id);
	free(list);
	if (!ret && !l->nsess) {
		rd_err_set(&r->err, "relay daemon at %s: no session %s of host %s", l->c.where,
			   l->url.session, l->url.hostname);
		return -ENOENT;
	}
	return ret;
}

/* ---- a stream's next packet ---------------------------------------------- */

/* The ns from the Epoch of @cycles on stream @s's clock (class @class_id). */
static int quiet_ns(struct trawl_reader *r, struct lv_stream *s, uint64_t class_id,
		    uint64_t cycles, int64_t *ns)
{
	const struct trace_class *tc = s->trace->t.tc;
	const struct clock_class *cc = NULL;
	bool ovf;

	if (s->opened) {
		cc = s->s.sc->clock;
	} else if (tc) {
		for (uint32_t i = 0; i < tc->nstreams; i++)
			if (tc->streams[i]->id == class_id)
				cc = tc->streams[i]->clock;
	}
	if (!cc)
		return 1;	/* nothing to place it in time with yet: wait */
	*ns = clock_ns_from_origin(cc, cycles, &ovf);
	if (ovf) {
		rd_err_set(&r->err, "relay daemon at %s: %s: inactivity time %" PRIu64
			   " cycles is out of range", r->live->c.where, s->name, cycles);
		return -EINVAL;
	}
	return 0;
}

static void flags_note(struct lv_stream *s, uint32_t flags)
{
	if (flags & LIVE_FLAG_NEW_METADATA)
		s->trace->md_needed = true;
	if (flags & LIVE_FLAG_NEW_STREAM)
		s->trace->sess->need_streams = true;
}

/* The packet's bytes arrived: the stream decodes them, from its header. */
static int stream_feed(struct trawl_reader *r, struct lv_stream *s, uint32_t len)
{
	struct rd_stream *rs = &s->s;
	struct lv_trace *t = s->trace;
	int ret;

	if (!s->opened) {
		ret = rd_stream_open_buf(rs, &t->t, t->t.dec, s->name, s->pkt, len, &r->err);
		if (ret) {
			rd_stream_close(rs);	/* what it allocated before failing */
			return ret;
		}
		s->opened = true;
		rs->eager_body = r->flags & TRAWL_READER_NO_FIELDS;
		if (!rs->has_instance_id)
			rs->id = s->id;
	} else if (rs->dec != t->t.dec) {
		ret = rd_stream_rebind(rs, t->t.dec, &r->err);
		if (ret)
			return ret;
	}
	rs->base = s->pkt;
	rs->size = len;
	rs->next_pkt_off = 0;
	rs->in_packet = false;
	ret = rd_stream_next(rs, &r->cb, &r->err);
	if (ret < 0)
		return ret;
	s->state = ret ? LV_EVENT : LV_NEED_INDEX;
	return 0;
}

/*
 * GET_PACKET for the index the stream holds. 0 done (or flagged: see the
 * trace's and session's needs), 1 not possible yet (no metadata yet).
 */
static int stream_packet(struct trawl_reader *r, struct lv_stream *s)
{
	struct rd_live *l = r->live;
	uint32_t len = (uint32_t)s->ix.packet_bytes, status, flags, got, off = 0;
	int ret;

	if (!s->trace->t.tc) {
		/* its metadata first: asked for again, or its stream announced */
		if (s->trace->md_closed || (!s->trace->has_md && s->trace->sess->closed)) {
			rd_err_set(&r->err, "relay daemon at %s: %s: its trace has no metadata",
				   l->c.where, s->name);
			return -EPROTO;
		}
		if (s->trace->has_md)
			s->trace->md_needed = true;
		else
			s->trace->sess->need_streams = true;
		return 1;
	}
	if (len > s->pkt_cap) {
		uint8_t *p = realloc(s->pkt, len);

		if (!p)
			return -ENOMEM;
		s->pkt = p;
		s->pkt_cap = len;
	}
	while (off < len) {
		ret = lv_get_packet(&l->c, s->id, s->ix.offset + off, len - off, s->pkt + off,
				    &status, &flags, &got);
		if (ret)
			return ret;
		if (status != LIVE_PACKET_OK)
			break;
		off += got;
	}
	if (off == len)
		return stream_feed(r, s, len);
	if (status == LIVE_PACKET_ERR && (flags & (LIVE_FLAG_NEW_METADATA | LIVE_FLAG_NEW_STREAM))) {
		flags_note(s, flags);
		return 0;
	}
	rd_err_set(&r->err, "relay daemon at %s: %s: the packet at offset %" PRIu64
		   " (%u bytes) %s", l->c.where, s->name, s->ix.offset, len,
		   status == LIVE_PACKET_EOF ? "is past the stream's end" : "cannot be had");
	return -EPROTO;
}

/* GET_NEXT_INDEX: 0 done, 1 nothing new (retry later). */
static int stream_index(struct trawl_reader *r, struct lv_stream *s)
{
	struct rd_live *l = r->live;
	struct lv_index *ix = &s->ix;
	int ret;

	ret = lv_next_index(&l->c, s->id, ix);
	if (ret)
		return ret;
	flags_note(s, ix->flags);
	switch (ix->status) {
	case LIVE_INDEX_OK:
		s->state = LV_NEED_PACKET;
		return 0;
	case LIVE_INDEX_INACTIVE:
		if (s->quiet_shown && ix->ts_end == s->last_quiet_cycles)
			return 1;	/* quiet as it said: nothing to merge past */
		ret = quiet_ns(r, s, ix->class_id, ix->ts_end, &s->quiet_ns);
		if (ret)
			return ret;
		s->quiet_cycles = ix->ts_end;
		s->state = LV_QUIET;
		return 0;
	case LIVE_INDEX_RETRY:
		return 1;
	case LIVE_INDEX_HUP:
	case LIVE_INDEX_EOF:
		s->state = LV_EOF;
		s->trace->sess->nstreams--;
		return 0;
	default:
		rd_err_set(&r->err, "relay daemon at %s: %s: the relay daemon has no index for it",
			   l->c.where, s->name);
		return -EPROTO;
	}
}

/* ---- one round ------------------------------------------------------------ */

/* New streams and metadata wherever a reply (or nothing at all) asks for them. */
static int needs(struct trawl_reader *r, bool *did)
{
	struct rd_live *l = r->live;
	size_t i;
	int ret;

	for (i = 0; i < l->nsess; i++) {
		struct lv_session *ss = l->sess[i];

		if (ss->closed || !(ss->need_streams || !ss->nstreams))
			continue;
		ret = session_new_streams(r, ss);
		if (ret)
			return ret;
		*did = true;
	}
	for (i = 0; i < l->ntraces; i++) {
		if (!l->traces[i]->md_needed)
			continue;
		ret = trace_metadata(r, l->traces[i]);
		if (ret)
			return ret;
		*did = true;
	}
	return 0;
}

static bool needs_pending(const struct rd_live *l)
{
	size_t i;

	for (i = 0; i < l->nsess; i++)
		if (!l->sess[i]->closed && l->sess[i]->need_streams)
			return true;
	for (i = 0; i < l->ntraces; i++)
		if (l->traces[i]->md_needed)
			return true;
	return false;
}

int lv_update(struct trawl_reader *r, unsigned int *blocked)
{
	struct rd_live *l = r->live;
	bool did = false;
	size_t i;
	int ret;

	*blocked = 0;
	ret = needs(r, &did);
	for (i = 0; i < l->nstreams && !ret; i++) {
		struct lv_stream *s = l->streams[i];
		unsigned int spins = 0;

		/*
		 * A packet without events: its stream is asked again at once.
		 * A relay daemon that keeps flagging metadata it does not
		 * send is waited for like one with nothing new.
		 */
		while (!ret && (s->state == LV_NEED_INDEX || s->state == LV_NEED_PACKET)) {
			enum lv_state was = s->state;

			ret = was == LV_NEED_INDEX ? stream_index(r, s) : stream_packet(r, s);
			if (ret == 0 && was == LV_NEED_PACKET && s->state == was && ++spins > 8)
				ret = 1;
			if (ret == 1) {
				(*blocked)++;
				ret = 0;
				break;
			}
			/* a reply flagged new streams or metadata: those first */
			if (!ret && needs_pending(l))
				ret = needs(r, &did);
		}
	}
	return ret;
}
