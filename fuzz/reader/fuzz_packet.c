/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the packet and event decoder, with text output and
 * as values (the public field API's). The input is "METADATA TEXT \0
 * STREAM BYTES": the metadata is parsed first (invalid metadata ends the
 * run early), then every event of the stream is decoded until the end or
 * an error: in turn skipped, printed as trawl view prints it, listed as
 * values (with its packet context), or both (a body decoded twice); every
 * other event is first read member by member with the fast accessors'
 * flat list (flat.c: a fixed layout, or its walker), and every eighth
 * through a selection of all its members (read in place when its class has
 * a fixed layout that fits, as trawl_reader_event_read_selection() does).
 * Then the stream is decoded only, event by event and in batches
 * (eager_twice()), which must agree.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trawl/reader.h"
#include "reader/decode_int.h"
#include "reader/trace.h"
#include "reader/flat.h"
#include "reader/values.h"

/* Every member of every body scope of the current event, as the fast accessors read them. */
static int read_flat(struct rd_flat *f, struct rd_stream *s, struct rd_err *err)
{
	struct rd_flat_val tmp;
	const struct rd_flat_val *v;
	unsigned which;
	int i, ret = rd_flat_body(f, s, err);

	for (which = 0; which < 3 && !ret; which++) {
		for (i = -1; i < 1000; i++) {
			ret = rd_flat_get(f, s, err, which, i, &tmp, &v);
			if (ret == -ENODATA && i >= 0)
				break;
			if (ret == -ENODATA)
				continue;
			if (ret)
				return ret;
			if (v->kind == TRAWL_READER_FIELD_STRING &&
			    strlen(rd_flat_str(f, v)) != v->u)
				__builtin_trap();
		}
		ret = 0;
	}
	return ret;
}

/* Every member of the current event (and a few that are not there) through a selection. */
static void read_sel(struct rd_stream *s)
{
	struct trawl_reader_member m[260];
	struct trawl_reader_value v[260];
	struct rd_flat_sel *sel;
	const struct dctx *d = &s->evd;
	uint64_t pos = s->body_pending ? s->pos : s->body_pos;
	size_t n = 0, k;
	unsigned sc;
	int i;

	for (sc = 0; sc <= 4; sc++)	/* 4: no such scope */
		for (i = -1; i < 64 && n < 260; i++) {
			m[n++] = (struct trawl_reader_member){ (enum trawl_reader_scope)sc, i };
			if (i >= 0 && !rd_scope_member(s->dev->ec, sc, i))
				break;
		}
	if (rd_flat_sel_make(s->dev->ec, m, n, &sel))
		return;
	if (sel->fixed && !(pos & (sel->align - 1)) && pos <= d->end &&
	    sel->body_bits <= d->end - pos) {
		k = rd_flat_sel_read(sel, 0, d->pkt + pos / 8, v);
		while (k-- > 0)
			if (v[k].ret == 0 && v[k].kind == TRAWL_READER_FIELD_STRING &&
			    strlen(v[k].str) != (size_t)v[k].i)
				__builtin_trap();
	}
	free(sel);
}

/*
 * Both cursors (each of its own trace, opened from the same input) at the
 * same event, in the same state: abort() if not.
 */
static void same_event(const struct rd_stream *a, const struct rd_stream *b)
{
	if (a->pkt_off != b->pkt_off || a->pos != b->pos || a->clock != b->clock ||
	    a->ev_pos != b->ev_pos || a->ev_cycles != b->ev_cycles || a->ev_ns != b->ev_ns ||
	    a->cur_event_id != b->cur_event_id || a->events != b->events ||
	    !a->dev != !b->dev || (a->dev && a->dev->ec->id != b->dev->ec->id))
		abort();
}

/*
 * Decode-only as trawl view --decode-only reads: the stream once event by
 * event (rd_stream_next(), the body with the header) and once in batches
 * (rd_stream_skip_eager() wherever it takes some, up to a merge bound
 * from the input, rd_stream_next() elsewhere), in step: both take the
 * same events to the same end (the same error), or abort().
 */
static void eager_twice(const char *meta, size_t mlen, const uint8_t *stream, size_t slen)
{
	struct rd_trace a, b;
	struct rd_err ea = { 0 }, eb = { 0 };
	int64_t bound = INT64_MAX;
	int ra, rb, n = 0;
	uint64_t k, i;

	if (slen >= 8 && (stream[0] & 1))
		memcpy(&bound, stream + slen - 8, 8);
	if (rd_trace_open_mem(&a, meta, mlen, stream, slen, &ea)) {
		rd_trace_close(&a);
		return;
	}
	if (rd_trace_open_mem(&b, meta, mlen, stream, slen, &eb))
		abort();
	a.streams[0].eager_body = b.streams[0].eager_body = true;
	for (;;) {
		if (++n > 100000)
			break;
		k = rd_stream_skip_eager(&b.streams[0], 1 + (uint64_t)(n & 63), bound);
		rb = 1;
		if (!k) {
			rb = rd_stream_next(&b.streams[0], NULL, &eb);
			k = rb > 0;
		}
		for (i = 0; i < k; i++)
			if (rd_stream_next(&a.streams[0], NULL, &ea) != 1)
				abort();
		if (rb <= 0) {
			ra = rd_stream_next(&a.streams[0], NULL, &ea);
			if (ra != rb || (rb < 0 && strcmp(ea.msg, eb.msg)))
				abort();
			break;
		}
		same_event(&a.streams[0], &b.streams[0]);
	}
	rd_trace_close(&a);
	rd_trace_close(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	struct rd_trace t;
	struct rd_err err = { 0 };
	struct rd_text text = { 0 };
	struct rd_values vals = { 0 }, pcvals = { 0 };
	struct rd_flat flat = { 0 };
	struct rd_body_fmt fmt = { .sep_first = true, .ctx_names = true,
				   .payload_names = true };
	uint8_t *stream;
	size_t mlen, slen;
	int ret, n = 0;

	if (!nul || size > (4u << 20))
		return 0;
	mlen = (size_t)(nul - data);
	slen = size - mlen - 1;
	/* a copy of exactly the stream's size, so ASan sees any overread */
	stream = malloc(slen ? slen : 1);
	if (!stream)
		return 0;
	memcpy(stream, nul + 1, slen);
	ret = rd_trace_open_mem(&t, (const char *)data, mlen, stream, slen, &err);
	if (ret == 0) {
		struct rd_stream *s = &t.streams[0];

		while (rd_stream_next(s, NULL, &err) > 0 && n++ < 100000) {
			text.len = 0;
			text.names = true;
			if ((n & 7) == 3)
				read_sel(s);
			if ((n & 4) && read_flat(&flat, s, &err))
				break;
			if ((n & 3) >= 2 && (rd_values_body(&vals, s, &err) ||
					     rd_values_packet_context(&pcvals, s, &err)))
				break;
			if ((n & 1) && rd_stream_pc_text(s, n & 4, &err))
				break;
			if ((n & 3) != 2 && rd_stream_body(s, (n & 1) ? &text : NULL, &fmt, &err))
				break;
		}
	}
	rd_trace_close(&t);
	eager_twice((const char *)data, mlen, stream, slen);
	rd_values_fini(&vals);
	rd_values_fini(&pcvals);
	rd_flat_fini(&flat);
	free(text.buf);
	free(stream);
	return 0;
}
