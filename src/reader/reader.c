/* SPDX-License-Identifier: MIT */
/*
 * The reader's life (open, settings that come before reading) and the
 * merge of its streams' events.
 *
 * Merge order is babeltrace2's muxer order: time (ns from the Epoch), then
 * for equal times the trace name, trace UUID, stream class id, data stream
 * id, event class id and name. The heap holds each stream whose next event
 * header is already decoded, so an event costs one header decode and
 * O(log streams) comparisons before its body is decoded.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/reader_int.h"

TRAWL_EXPORT const char *trawl_reader_error(const struct trawl_reader *r)
{
	return r && r->err.set ? r->err.msg : "";
}

/* ---- merge heap ------------------------------------------------------ */

static int cmp_str_null(const char *a, const char *b)
{
	if (a && b)
		return strcmp(a, b);
	return a ? -1 : b ? 1 : 0;
}

int rd_stream_cmp(const struct rd_stream *a, const struct rd_stream *b)
{
	const struct trace_class *ta = a->trace->tc, *tb = b->trace->tc;
	int c;

	if (a->ev_ns != b->ev_ns)
		return a->ev_ns < b->ev_ns ? -1 : 1;
	if (a->trace != b->trace) {
		c = strcmp(a->trace->name, b->trace->name);
		if (c)
			return c;
		if (ta->has_uuid != tb->has_uuid)
			return ta->has_uuid ? -1 : 1;
		if (ta->has_uuid) {
			c = memcmp(ta->uuid, tb->uuid, 16);
			if (c)
				return c;
		}
	}
	if (a->sc->id != b->sc->id)
		return a->sc->id < b->sc->id ? -1 : 1;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->dev->ec->id != b->dev->ec->id)
		return a->dev->ec->id < b->dev->ec->id ? -1 : 1;
	c = cmp_str_null(a->dev->ec->name, b->dev->ec->name);
	if (c)
		return c;
	if (a->trace->index != b->trace->index)
		return a->trace->index < b->trace->index ? -1 : 1;
	return a < b ? -1 : a > b;
}

static void heap_down(struct trawl_reader *r, uint32_t i)
{
	struct rd_stream **h = r->heap;
	uint32_t n = r->nheap;

	for (;;) {
		uint32_t l = 2 * i + 1, m = i;

		if (l < n && rd_stream_cmp(h[l], h[m]) < 0)
			m = l;
		if (l + 1 < n && rd_stream_cmp(h[l + 1], h[m]) < 0)
			m = l + 1;
		if (m == i)
			return;
		{
			struct rd_stream *tmp = h[i];

			h[i] = h[m];
			h[m] = tmp;
		}
		i = m;
	}
}

static void heap_up(struct trawl_reader *r, uint32_t i)
{
	struct rd_stream **h = r->heap;

	while (i) {
		uint32_t p = (i - 1) / 2;
		struct rd_stream *tmp;

		if (rd_stream_cmp(h[i], h[p]) >= 0)
			return;
		tmp = h[i];
		h[i] = h[p];
		h[p] = tmp;
		i = p;
	}
}

void rd_reader_heap_push(struct trawl_reader *r, struct rd_stream *s)
{
	r->heap[r->nheap++] = s;
	heap_up(r, r->nheap - 1);
}

/*
 * @s (at its end) continues in s->next_file: carry what the discarded-record
 * reports compare with (the previous packet's counts and end time) into it,
 * unless a seek already placed that file, and read on there.
 */
int rd_reader_stream_continue(struct trawl_reader *r, struct rd_stream **sp)
{
	struct rd_stream *s = *sp;
	int ret = 0;

	while (s->next_file) {
		struct rd_stream *n = s->next_file;

		if (s->prev_valid && n->next_pkt_off == 0 && !n->in_packet) {
			n->prev_valid = true;
			n->prev_disc = s->prev_disc;
			n->prev_seq = s->prev_seq;
			n->prev_ts_end = s->prev_ts_end;
			n->seeked = false;
		}
		s = n;
		ret = rd_stream_next(s, &r->cb, &r->err);
		if (ret)
			break;
	}
	*sp = s;
	return ret;
}

static int heap_push_next(struct trawl_reader *r, struct rd_stream *s)
{
	int ret;

	if (s->continued)	/* joins when the file before it ends */
		return 0;
	ret = rd_stream_next(s, &r->cb, &r->err);
	if (ret == 0 && s->next_file)
		ret = rd_reader_stream_continue(r, &s);
	if (ret <= 0)
		return ret;
	r->heap[r->nheap++] = s;
	heap_up(r, r->nheap - 1);
	return 1;
}

static int heap_fill(struct trawl_reader *r)
{
	uint32_t t, i;
	int ret;

	r->nheap = 0;
	for (t = 0; t < r->ntraces; t++) {
		for (i = 0; i < r->traces[t].nstreams; i++) {
			ret = heap_push_next(r, &r->traces[t].streams[i]);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* ---- API ------------------------------------------------------------- */

TRAWL_EXPORT int trawl_reader_open(const char *const *paths, size_t npaths,
				   struct trawl_reader **out)
{
	struct trawl_reader *r = calloc(1, sizeof(*r));
	int ret;

	*out = r;
	if (!r)
		return -ENOMEM;
	r->begin_ns = INT64_MIN;
	r->end_ns = INT64_MAX;
	r->cb.discarded = rd_reader_on_discarded;
	r->cb.arg = r;
	rd_line_init(&r->line);
	ret = rd_reader_discover(r, paths, npaths);
	if (ret && !r->err.set)
		rd_err_set(&r->err, "cannot open the trace: %s", strerror(-ret));
	return ret;
}

TRAWL_EXPORT void trawl_reader_destroy(struct trawl_reader *r)
{
	uint32_t i;

	if (!r)
		return;
	for (i = 0; i < r->ntraces; i++)
		rd_trace_close(&r->traces[i]);
	rd_live_destroy(r->live);
	free(r->traces);
	free(r->heap);
	free(r->text.buf);
	free(r->isect_begin);
	free(r->isect_end);
	free(r->disc_queue);
	rd_line_fini(&r->line);
	rd_values_fini(&r->pc_vals);
	rd_values_fini(&r->body_vals);
	rd_flat_fini(&r->body_flat);
	free(r);
}

int rd_reader_not_live(struct trawl_reader *r, const char *what)
{
	if (!r->live)
		return 0;
	rd_err_set(&r->err, "%s: not on a live reader", what);
	return -EOPNOTSUPP;
}

int rd_reader_not_started(struct trawl_reader *r, const char *what)
{
	rd_err_clear(&r->err);
	if (!r->started)
		return 0;
	rd_err_set(&r->err, "%s: only before reading starts", what);
	return -EBUSY;
}

TRAWL_EXPORT int trawl_reader_set_flags(struct trawl_reader *r, unsigned int flags)
{
	uint32_t t, i;
	int ret = rd_reader_not_started(r, "trawl_reader_set_flags");

	if (ret)
		return ret;
	if (flags & ~(TRAWL_READER_NO_FIELDS | TRAWL_READER_LIVE_QUIET))
		return -EINVAL;
	r->flags = flags;
	for (t = 0; t < r->ntraces; t++)
		for (i = 0; i < r->traces[t].nstreams; i++)
			r->traces[t].streams[i].eager_body = flags & TRAWL_READER_NO_FIELDS;
	return 0;
}

TRAWL_EXPORT int trawl_reader_set_clock_offset(struct trawl_reader *r,
					       int64_t seconds, int64_t ns)
{
	uint32_t t, c;
	int ret = rd_reader_not_started(r, "trawl_reader_set_clock_offset");

	if (ret)
		return ret;
	if (r->live)
		rd_live_set_clock_offset(r->live, seconds, ns);
	for (t = 0; t < r->ntraces; t++) {
		struct trace_class *tc = r->traces[t].tc;

		for (c = 0; c < tc->nclocks; c++)
			clock_class_apply_offset(tc->clocks[c], seconds, ns);
	}
	return 0;
}

/* Moves the current event's stream past it: its next header, or its end. */
static inline __attribute__((always_inline)) int advance_current(struct trawl_reader *r)
{
	struct rd_stream *s = r->cur;
	int ret;

	r->cur = NULL;
	if (s->body_pending) {
		ret = rd_stream_body(s, NULL, NULL, &r->err);
		if (ret < 0)
			return ret;
	}
	ret = rd_stream_next(s, &r->cb, &r->err);
	if (trawl_unlikely(ret == 0) && s->next_file) {
		ret = rd_reader_stream_continue(r, &s);
		r->heap[0] = s;
	}
	if (ret < 0)
		return ret;
	if (ret == 0) {
		r->heap[0] = r->heap[--r->nheap];
		if (r->nheap > 1)
			heap_down(r, 0);
	} else if (r->nheap > 1) {
		heap_down(r, 0);
	}
	return 0;
}

/* With a time range: steps over the events outside it (1: one is current). */
static __attribute__((noinline)) int next_in_range(struct trawl_reader *r)
{
	int ret;

	for (;;) {
		switch (rd_reader_range_check(r, r->cur)) {
		case 0:
			return 1;
		case 2:		/* past the end: the end */
			r->cur = NULL;
			r->nheap = 0;
			return 0;
		default:
			ret = advance_current(r);
			if (ret < 0)
				return ret;
			if (!r->nheap)
				return 0;
			r->cur = r->heap[0];
		}
	}
}

/*
 * The current event's stream stays at the top of the heap while it is
 * current; moving on decodes its next header and sifts it down from the
 * top (or removes it at its end): one sift instead of a pop and a push.
 */
TRAWL_EXPORT int trawl_reader_next(struct trawl_reader *r)
{
	int ret;

	rd_reader_event_changed(r);
	rd_err_clear(&r->err);
	if (trawl_unlikely(r->live != NULL))
		return rd_live_next(r);
	if (trawl_likely(r->cur != NULL)) {
		ret = advance_current(r);
		if (trawl_unlikely(ret < 0))
			goto fail;
	} else if (trawl_unlikely(!r->started)) {
		r->started = true;
		ret = r->begin_ns != INT64_MIN ? trawl_reader_seek_ns(r, r->begin_ns) :
						 heap_fill(r);
		if (ret < 0)
			goto fail;
	}
	if (trawl_unlikely(!r->nheap))
		goto end;
	r->cur = r->heap[0];
	if (trawl_unlikely(r->ranged)) {
		ret = next_in_range(r);
		if (ret < 0)
			goto fail;
		if (ret == 0)
			goto end;
	}
	if (trawl_unlikely(r->ndisc))
		rd_reader_discarded_flush(r, r->cur->ev_ns);
	return 1;
end:
	rd_reader_discarded_flush(r, INT64_MAX);
	return 0;
fail:
	/* what was lost before the error is still said */
	rd_reader_discarded_flush(r, INT64_MAX);
	r->cur = NULL;
	r->nheap = 0;
	return ret;
}

/*
 * Nothing to check between events (no time range, no loss report waiting,
 * not live, no field wanted): the current stream's events earlier than
 * every other stream's next one need not go through trawl_reader_next()
 * one by one. That bound, or INT64_MIN when there is no such run: the
 * earliest of the others is a child of the heap's top (a strict bound:
 * an event at the same time may come after another stream's, whose
 * order the heap decides).
 */
#define SKIP_SHORT 4u
#define SKIP_COOL 32u
static inline int64_t skip_bound(const struct trawl_reader *r)
{
	int64_t b = INT64_MAX;

	if (!r->cur || r->ranged || r->ndisc || r->live || !r->cur->eager_body)
		return INT64_MIN;
	if (r->nheap > 1)
		b = r->heap[1]->ev_ns;
	if (r->nheap > 2 && r->heap[2]->ev_ns < b)
		b = r->heap[2]->ev_ns;
	return b;
}

TRAWL_EXPORT int trawl_reader_next_n(struct trawl_reader *r, uint64_t max, uint64_t *n)
{
	uint64_t done = 0, k;
	unsigned cool = 0;
	int64_t bound;
	int ret = 1;

	*n = 0;
	if (!max)
		return -EINVAL;
	while (done < max) {
		/*
		 * Streams whose events interleave finely (one or two at a
		 * time) make short runs that cost more than they save: after
		 * one, the next SKIP_COOL events go one by one.
		 */
		if (cool) {
			cool--;
		} else if ((bound = skip_bound(r)) != INT64_MIN) {
			k = rd_stream_skip_eager(r->cur, max - done, bound);
			if (k < SKIP_SHORT)
				cool = SKIP_COOL;
			if (k) {
				rd_reader_event_changed(r);
				rd_err_clear(&r->err);
				done += k;
				continue;
			}
		}
		ret = trawl_reader_next(r);
		if (ret != 1)
			break;
		done++;
	}
	*n = done;
	return ret;
}

int rd_stream_cycles_to_ns(const struct rd_stream *s, uint64_t cycles,
			   int64_t *ns)
{
	bool ovf;

	if (!s->sc->clock)
		return -ENODATA;
	*ns = clock_ns_from_origin(s->sc->clock, cycles, &ovf);
	return ovf ? -ERANGE : 0;
}
