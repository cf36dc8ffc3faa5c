/* SPDX-License-Identifier: MIT */
/*
 * live-quiet.c - the time up to which a quiet stream is known to hold no
 * more data, which the live server tells viewers (INACTIVE, see live.c's
 * design comment), and what it learns to keep that time safe: how late a
 * trace's packets reach the disk, which streams and traces are new.
 *
 * Two sources, best first:
 *   - Beacons. In a live session the user-space consumer cuts an empty
 *     packet (header and context only, timestamp_begin == timestamp_end)
 *     on every stream that had no event during a live period. A packet's
 *     end is a bound for the stream's next events (the ring buffer reads
 *     the clock before the reservation that closes it), so once a stream
 *     has shown a beacon, its end is the exact answer, whatever the
 *     consumer's and the network's delays.
 *     The kernel consumer cuts them too, on each CPU it read to the end at
 *     a live tick (kernel/consumer.c, live_flush()).
 *     A stream's first one is its first packet, on disk; the next ones
 *     come as BEACONs (relayd/proto.h), the packet's end only, nothing on
 *     disk, as LTTng's live beacons (relay_live_beacon()). One such is told
 *     a viewer that had every entry written before it, and only up to what
 *     the viewer may be told of the other streams: not past a stream or
 *     trace it was not told of yet (live.c scans first).
 *   - A derived time, for streams without beacons (channels not in a live
 *     session or in overwrite mode, kernel perf channels): one live period
 *     plus a margin behind "now".
 *     For a beacon stream it is only a fallback, twice as far behind, so a
 *     viewer is not held for ever by a consumer that stopped cutting them
 *     (died, or its session stopped while another domain goes on).
 */
#include "relayd/live-internal.h"

#include "ctf/layout.h"

#include <string.h>

#define BEACON_MARGIN_NS 150000000u /* 150 ms */
/* The kernel consumer's packets were seen up to 3.7 periods late (first
 * event to on disk): its quiet streams get a wider margin. */
#define KERNEL_MARGIN_NS 500000000u
/* Over the latest lateness seen in a trace (live_note_lateness()). */
#define LATE_MARGIN_NS 100000000u
#define LATE_MAX_NS 30000000000u
#define DEFAULT_LIVE_TIMER_US 1000000u
/* A trace still without metadata holds others back this long at most. */
#define PENDING_TRACE_NS 2000000000u

/* The CTF stream class of @st, or of a stream of the same channel. Session lock held. */
uint64_t live_stream_class(const struct live_session *s, const struct live_stream *st)
{
	const char *us = strrchr(st->name, '_');
	size_t n = us ? (size_t)(us - st->name) : strlen(st->name), i;

	if (st->class_known)
		return st->class_id;
	for (i = 0; i < s->nr_streams; i++) {
		const struct live_stream *o = s->streams[i];

		if (o->trace == st->trace && o->class_known && !strncmp(o->name, st->name, n) &&
		    (o->name[n] == '_' || !o->name[n]))
			return o->class_id;
	}
	return 0;
}

/*
 * Learns how late a trace's packets reach the disk: a packet a viewer was
 * waiting for (its last answer about the stream was "nothing new"), read as
 * the newest entry, was written about now, so now minus its first event's
 * time is how late it came. Beacons then keep that far (plus a margin)
 * behind. Only for traces on our clock. Session lock held.
 */
void live_note_lateness(struct live_trace *t, const struct live_index_entry *e)
{
	uint64_t now = live_now_ns(), begin;

	if (!t->clock_local)
		return;
	begin = live_trace_to_ns(t, e->ts_begin);
	if (now <= begin)
		return;
	if (now - begin > t->late_ns)
		t->late_ns = now - begin < LATE_MAX_NS ? now - begin : LATE_MAX_NS;
}

/*
 * Local time at which the first trace or stream the viewer was not told of
 * appeared (UINT64_MAX: none). A new stream's events are no older than its
 * trace's folder, so no stream may be declared quiet past that time minus
 * the lag until the viewer has it: babeltrace2 learns of new streams only
 * with its next packet index, and would refuse the new stream's older
 * events. A trace still without metadata counts for PENDING_TRACE_NS only:
 * one that never gets any must not hold the others back for ever.
 * Session lock held.
 */
static uint64_t unannounced_since(const struct vattach *a, uint64_t now)
{
	const struct live_session *s = a->s;
	uint64_t t = UINT64_MAX;
	size_t i;

	for (i = 0; i < s->nr_traces; i++) {
		const struct live_trace *tr = s->traces[i];

		if (i < a->nr_vt && a->vt[i].announced)
			continue;
		if (!tr->scan.usable && now - tr->found_ns > PENDING_TRACE_NS)
			continue;
		if (tr->found_ns < t)
			t = tr->found_ns;
	}
	/* (a stream waits for its trace's metadata: live.c, trace_ready()) */
	for (i = 0; i < s->nr_streams; i++) {
		const struct live_stream *st = s->streams[i];

		if (i < a->nr_vs && a->vs[i].announced)
			continue;
		if (!st->trace->scan.usable && now - st->trace->found_ns > PENDING_TRACE_NS)
			continue;
		if (st->found_ns < t)
			t = st->found_ns;
	}
	return t;
}

/*
 * Local time at which the oldest trace still without metadata appeared
 * (UINT64_MAX: none, or only ones older than PENDING_TRACE_NS). Its streams
 * cannot be announced yet, so packets of other streams that end after it
 * are held back: shown first, they would put the new trace's first events
 * in the viewer's past. Session lock held.
 */
uint64_t live_pending_since(const struct live_session *s, uint64_t now)
{
	uint64_t t = UINT64_MAX;
	size_t i;

	for (i = 0; i < s->nr_traces; i++) {
		const struct live_trace *tr = s->traces[i];

		if (!tr->scan.usable && now - tr->found_ns <= PENDING_TRACE_NS && tr->found_ns < t)
			t = tr->found_ns;
	}
	return t;
}

/*
 * Whether @e is a beacon: an empty packet of a trawl stream
 * (layout.h's packet start and nothing else, cut at one instant).
 */
static int entry_is_beacon(const struct live_index_entry *e)
{
	return e->content_size == 8u * sizeof(struct trawl_ctf_packet_start) && e->ts_begin == e->ts_end;
}

/*
 * Notes whether stream @st's writer cuts beacons: its newest entry is one
 * (a quiet stream's newest entry is, within a period). The kernel consumer
 * also writes empty packets to report losses (at its last event's time):
 * those raise events_discarded over the packet before, and a stream's first
 * packet may be one, so a kernel stream counts only once an empty packet
 * carries the same count as the one before it. Once set, for the stream's
 * life. Session lock held.
 */
static void note_beacons(const struct live_session *s, struct live_stream *st)
{
	struct live_index_entry e, prev;
	uint64_t n, t;

	if (!st->beacons && live_stream_beacon(s, st, &n, &t))
		st->beacons = 1;
	if (st->beacons || live_stream_entries(st, &n) || !n)
		return;
	if (live_stream_entry(st, n - 1, &e) || !entry_is_beacon(&e))
		return;
	if (st->trace->kernel && (n < 2 || live_stream_entry(st, n - 2, &prev) || prev.discarded != e.discarded))
		return;
	st->beacons = 1;
}

/* The time up to which stream @idx is known to be quiet (see the top comment); 0 if none. */
uint64_t live_quiet_time(const struct vattach *a, size_t idx)
{
	struct live_session *s = a->s;
	struct live_stream *st = s->streams[idx];
	const struct vstream *vs = &a->vs[idx];
	uint64_t timer_ns = (uint64_t)(s->live_timer_us ? s->live_timer_us : DEFAULT_LIVE_TIMER_US) * 1000u;
	uint64_t lag = timer_ns + (st->trace->kernel ? KERNEL_MARGIN_NS : BEACON_MARGIN_NS), now = 0, b, since;
	uint64_t since_all = UINT64_MAX, bn, bt;
	struct live_index_entry e;
	size_t i;

	/*
	 * A stream that has no packet yet says nothing for a while: its writer
	 * cuts one at once (a live user-space channel's first beacon, cut
	 * after relayd made its files: consumerd/ust-consumer.c), and a time
	 * told now could only be the floor below, which may be past that
	 * packet (babeltrace2 then stops: "timestamp is less than ... last
	 * returned"; relayd-live-late-uid with relayd stopped 1 s while the
	 * app came: 2 of 10 runs, 636 ms back). A writer that never cuts one
	 * holds the viewer PENDING_TRACE_NS at most.
	 */
	if (!vs->next && !vs->last_end && !vs->beacon && live_now_ns() - st->found_ns < PENDING_TRACE_NS)
		return 0;
	if (st->trace->clock_local) {
		now = live_now_ns();
		since = unannounced_since(a, now);
		since_all = live_pending_since(s, now);
		if (since < since_all)
			since_all = since;
		if (since < now)
			now = since;
	} else {
		for (i = 0; i < s->nr_streams; i++) {
			uint64_t n;

			if (s->streams[i]->trace != st->trace || live_stream_entries(s->streams[i], &n) || !n)
				continue;
			if (live_stream_entry(s->streams[i], n - 1, &e) == 0 && e.ts_end > now)
				now = e.ts_end;
		}
	}
	if (st->trace->late_ns + LATE_MARGIN_NS > lag)
		lag = st->trace->late_ns + LATE_MARGIN_NS;
	/* Beacons: the stream's last packet end (vs->last_end, below) is the
	 * answer; the derived time only keeps a stalled writer from holding
	 * the viewer, far enough behind not to compete with beacons. */
	note_beacons(s, st);
	if (st->beacons)
		lag *= 2;
	b = now > lag ? now - lag : 0;
	b -= b % (timer_ns / 4 ? timer_ns / 4 : 1);
	/* now and lag were our CLOCK_MONOTONIC's: in the trace's values */
	if (st->trace->clock_local && b)
		b = live_trace_from_ns(st->trace, b);
	/* Streams told the same time would make babeltrace2 warn that it
	 * cannot order them: a few ns apart, they are not. */
	if (b)
		b += idx % 1024;
	b = b > vs->last_end ? b : vs->last_end;
	/* A BEACON (top comment), once the viewer had what was written before it. */
	if (live_stream_beacon(s, st, &bn, &bt) && vs->next >= bn && bt > b &&
	    (!st->trace->clock_local || live_trace_to_ns(st->trace, bt) < since_all))
		b = bt;
	/*
	 * A stream the viewer has had nothing about yet must not start behind
	 * what the viewer may have shown already (babeltrace2 2.0 crashes on a
	 * first inactivity message in its past), and should not be pushed
	 * further: its first packets may be on their way (a kernel stream's
	 * come late while user-space beacons are recent). What the viewer may
	 * have shown before it learnt of the stream is vs->floor (live.c):
	 * since then it has waited for this stream.
	 */
	if (!vs->last_end && !vs->beacon && st->trace->clock_local && b && vs->floor &&
	    b <= live_trace_from_ns(st->trace, vs->floor))
		b = live_trace_from_ns(st->trace, vs->floor) + 1 + idx % 1024; /* a few ns apart, as above */
	return b > vs->beacon ? b : vs->beacon;
}
