/* SPDX-License-Identifier: MIT */
/*
 * Reading part of the time: babeltrace2's --begin/--end (its trimmer) and
 * --stream-intersection, and what they do to the discarded-record reports
 * (dropped outside the range, clipped to it).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "reader/reader_int.h"

TRAWL_EXPORT int trawl_reader_set_time_range(struct trawl_reader *r,
					     int64_t begin_ns, int64_t end_ns)
{
	int ret = rd_reader_not_started(r, "trawl_reader_set_time_range");

	if (!ret)
		ret = rd_reader_not_live(r, "trawl_reader_set_time_range");
	if (ret)
		return ret;
	if (begin_ns > end_ns) {
		rd_err_set(&r->err, "the time range begins after it ends");
		return -EINVAL;
	}
	r->begin_ns = begin_ns;
	r->end_ns = end_ns;
	r->ranged = begin_ns != INT64_MIN || end_ns != INT64_MAX || r->isect_begin;
	return 0;
}

/*
 * A data stream's time: from its first file's first packet to its last
 * file's last packet (files continuing one another are one data stream).
 */
static int data_stream_range(struct trawl_reader *r, const struct rd_stream *s,
			     int64_t *b, int64_t *e)
{
	int64_t nb;
	int ret = rd_stream_time_range(s, b, e, &r->err);

	while (!ret && s->next_file) {
		s = s->next_file;
		ret = rd_stream_time_range(s, &nb, e, &r->err);
	}
	return ret;
}

/*
 * Per trace: [latest stream begin, earliest stream end] of packet times.
 * Folders sharing a trace UUID are one trace (one rd_trace.index).
 */
TRAWL_EXPORT int trawl_reader_set_stream_intersection(struct trawl_reader *r)
{
	uint32_t t, i;
	int ret = rd_reader_not_started(r, "trawl_reader_set_stream_intersection");

	if (!ret)
		ret = rd_reader_not_live(r, "trawl_reader_set_stream_intersection");
	if (ret)
		return ret;
	free(r->isect_begin);
	free(r->isect_end);
	r->isect_begin = calloc(r->ntraces + 1, sizeof(int64_t));
	r->isect_end = calloc(r->ntraces + 1, sizeof(int64_t));
	if (!r->isect_begin || !r->isect_end)
		goto oom;
	for (t = 0; t < r->ntraces; t++) {
		r->isect_begin[t] = INT64_MIN;
		r->isect_end[t] = INT64_MAX;
	}
	for (t = 0; t < r->ntraces && !ret; t++) {
		const struct rd_trace *tr = &r->traces[t];
		int64_t *b = &r->isect_begin[tr->index], *e = &r->isect_end[tr->index];

		if (!tr->nstreams) {
			rd_err_set(&r->err, "%s: trace has no streams", tr->dir);
			ret = -EINVAL;
		}
		for (i = 0; i < tr->nstreams && !ret; i++) {
			const struct rd_stream *s = &tr->streams[i];
			int64_t sb, se;

			if (s->continued)	/* counted with its first file */
				continue;
			ret = data_stream_range(r, s, &sb, &se);
			if (!ret && sb > *b)
				*b = sb;
			if (!ret && se < *e)
				*e = se;
		}
	}
	for (t = 0; t < r->ntraces && !ret; t++) {
		if (r->traces[t].index == t && r->isect_begin[t] > r->isect_end[t]) {
			rd_err_set(&r->err, "%s: the streams have no time range in common",
				   r->traces[t].dir);
			ret = -EINVAL;
		}
	}
	if (ret) {
		free(r->isect_begin);
		free(r->isect_end);
		r->isect_begin = r->isect_end = NULL;
		return ret;
	}
	r->ranged = true;
	return 0;
oom:
	free(r->isect_begin);
	free(r->isect_end);
	r->isect_begin = r->isect_end = NULL;
	return -ENOMEM;
}

int rd_reader_range_check(const struct trawl_reader *r, const struct rd_stream *s)
{
	if (s->ev_ns > r->end_ns && s->sc->clock)
		return 2;
	if (s->ev_ns < r->begin_ns)
		return 1;
	if (r->isect_begin) {
		uint32_t t = s->trace->index;

		if (s->ev_ns < r->isect_begin[t] || s->ev_ns > r->isect_end[t])
			return 1;
	}
	return 0;
}

/*
 * Clips @d's time range to the range read, as babeltrace2's trimmer does:
 * false when it lies wholly outside (no report); a clipped range makes the
 * report approximate.
 */
static bool clip(const struct trawl_reader *r, const struct rd_stream *s,
		 struct trawl_reader_discarded *d)
{
	int64_t lo = r->begin_ns, hi = r->end_ns;

	if (r->isect_begin) {	/* --stream-intersection trims per trace too */
		int64_t ib = r->isect_begin[s->trace->index];
		int64_t ie = r->isect_end[s->trace->index];

		lo = lo > ib ? lo : ib;
		hi = hi < ie ? hi : ie;
	}
	if (d->end_ns < lo || d->begin_ns > hi)
		return false;
	if (d->begin_ns < lo) {
		d->begin_ns = lo;
		d->approximate = 1;
	}
	if (d->end_ns > hi) {
		d->end_ns = hi;
		d->approximate = 1;
	}
	return true;
}

static int64_t disc_time(const struct trawl_reader_discarded *d)
{
	return d->has_range ? d->begin_ns : INT64_MIN;
}

static void queue_discarded(struct trawl_reader *r, const struct trawl_reader_discarded *d);

void rd_reader_on_discarded(void *arg, struct rd_stream *s, bool packets,
			    uint64_t count, bool have_range, uint64_t b, uint64_t e)
{
	struct trawl_reader *r = arg;
	struct trawl_reader_discarded d = {
		.struct_size = sizeof(d),
		.kind = packets ? TRAWL_READER_DISCARDED_PACKETS :
				  TRAWL_READER_DISCARDED_EVENTS,
		.count = count,
		.stream = rd_stream_pub(s),
	};

	if (count == RD_COUNT_UNKNOWN) {
		/* the totals count what the stream's first packet says */
		d.count = s->disc;
		d.approximate = 1;
	}
	if (packets)
		r->disc_packets += d.count;
	else
		r->disc_events += d.count;
	if (!r->disc_fn)
		return;
	d.has_range = have_range && s->sc->clock;
	if (d.has_range) {
		/* both converted (a time out of range reads 0, as babeltrace2 prints it) */
		int rb = rd_stream_cycles_to_ns(s, b, &d.begin_ns);
		int re = rd_stream_cycles_to_ns(s, e, &d.end_ns);

		if (!rb && !re && r->ranged && !clip(r, s, &d))
			return;
	}
	queue_discarded(r, &d);
}

/*
 * babeltrace2's muxer orders a loss by the time it begins, among the
 * events: the callback gets it just before the first event at or after
 * that time. A stream reads its next packet (and finds a loss) only once
 * the merge is past its last event, so a loss found later never begins
 * before one handed out already. Records without a time go out first.
 */
static void queue_discarded(struct trawl_reader *r, const struct trawl_reader_discarded *d)
{
	uint32_t i;

	if (r->ndisc == r->capdisc) {
		uint32_t cap = r->capdisc ? r->capdisc * 2 : 16;
		struct trawl_reader_discarded *q = realloc(r->disc_queue, cap * sizeof(*q));

		if (!q) {	/* out of memory: now rather than never */
			r->disc_fn(r->disc_arg, d);
			return;
		}
		r->disc_queue = q;
		r->capdisc = cap;
	}
	for (i = r->ndisc; i > 0 && disc_time(&r->disc_queue[i - 1]) > disc_time(d); i--)
		r->disc_queue[i] = r->disc_queue[i - 1];
	r->disc_queue[i] = *d;
	r->ndisc++;
}

void rd_reader_discarded_flush(struct trawl_reader *r, int64_t ns)
{
	uint32_t n = 0, i;

	while (n < r->ndisc && disc_time(&r->disc_queue[n]) <= ns)
		n++;
	if (!n || !r->disc_fn)
		return;
	/* the callback may not move the reader, so the queue holds still */
	for (i = 0; i < n; i++)
		r->disc_fn(r->disc_arg, &r->disc_queue[i]);
	memmove(r->disc_queue, r->disc_queue + n, (r->ndisc - n) * sizeof(*r->disc_queue));
	r->ndisc -= n;
}

TRAWL_EXPORT void trawl_reader_set_discarded_cb(struct trawl_reader *r,
						trawl_reader_discarded_fn fn,
						void *arg)
{
	r->disc_fn = fn;
	r->disc_arg = arg;
}

TRAWL_EXPORT void trawl_reader_discarded_totals(const struct trawl_reader *r,
						uint64_t *events, uint64_t *packets)
{
	if (events)
		*events = r->disc_events;
	if (packets)
		*packets = r->disc_packets;
}

TRAWL_EXPORT int trawl_reader_time_range(struct trawl_reader *r,
					 int64_t *begin_ns, int64_t *end_ns)
{
	bool any = false;
	uint32_t t, i;

	rd_err_clear(&r->err);
	if (r->live)
		return rd_reader_not_live(r, "trawl_reader_time_range");
	for (t = 0; t < r->ntraces; t++) {
		for (i = 0; i < r->traces[t].nstreams; i++) {
			const struct rd_stream *s = &r->traces[t].streams[i];
			int64_t b, e;
			int ret;

			if (!s->size || !s->sc || !s->sc->clock ||
			    !fc_struct_member(s->sc->packet_context, "timestamp_begin") ||
			    !fc_struct_member(s->sc->packet_context, "timestamp_end"))
				continue;	/* packets without times */
			ret = rd_stream_time_range(s, &b, &e, &r->err);
			if (ret)
				return ret;
			if (!any || b < *begin_ns)
				*begin_ns = b;
			if (!any || e > *end_ns)
				*end_ns = e;
			any = true;
		}
	}
	return any ? 0 : -ENODATA;
}
