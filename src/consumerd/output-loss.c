/* SPDX-License-Identifier: MIT */
/*
 * output-loss.c - what never reached a trace's destination: packets a
 * broken output dropped, and over the network the packets relayd had not
 * confirmed writing when it failed or went; counted, and said in one line
 * (output.h: trawl_output_broken()).
 */
#include "consumerd/output.h"
#include "consumerd/output-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Counts @packets of @bytes holding @events (-1: not known) as lost. */
void trawl_output_lost_add(struct trawl_output *o, uint64_t packets, uint64_t bytes,
			   int64_t events)
{
	o->lost_packets += packets;
	o->lost_bytes += bytes;
	if (events < 0)
		o->lost_unknown += packets;
	else
		o->lost_events += (uint64_t)events;
}

void trawl_output_lost_events(struct trawl_output_stream *st, uint64_t events)
{
	struct trawl_output *o = st->o;

	if (o->lost_unknown)
		o->lost_unknown--;
	o->lost_events += events;
	st->lost_events += events;
}

/*
 * One stream's seal: an empty packet after the lost ones, numbered after
 * the last of them (readers report the gap as lost packets), carrying
 * events_discarded = that one's running count + the events the lost
 * packets held (readers report the difference as discarded events),
 * dated at the end of the last one.
 */
static int stream_seal(struct trawl_output_stream *st)
{
	struct trawl_ctf_packet_start p = st->lost_first;
	int64_t n;

	/*
	 * Readers take a stream's first packet's count as where it starts,
	 * not as losses: a stream that wrote nothing gets an empty packet
	 * first, in the first lost one's place (its number: that one is not
	 * reported as a lost packet, its events are), counting 0.
	 */
	if (!st->offset) {
		p.context.timestamp_end = p.context.timestamp_begin;
		p.context.content_size = p.context.packet_size = sizeof(p) * 8;
		p.context.events_discarded = 0;
		n = trawl_output_stream_packet_forced(st, &p, sizeof(p));
		if (n < 0)
			return (int)n;
	}
	p = st->lost_head;
	p.context.timestamp_begin = p.context.timestamp_end;
	p.context.content_size = p.context.packet_size = sizeof(p) * 8;
	p.context.packet_seq_num++;
	p.context.events_discarded += st->lost_events;
	n = trawl_output_stream_packet_forced(st, &p, sizeof(p));
	if (n < 0)
		return (int)n;
	st->lost_packets = st->lost_events = 0;
	return 0;
}

void trawl_output_seal(struct trawl_output *o)
{
	struct trawl_output_stream *st;
	int sealed = 0, left = 0;

	if (!o || o->relay || !o->failed)
		return;
	/* the room held back since the trace began: freed, for these packets */
	if (o->reserve >= 0 && ftruncate(o->reserve, 0) == 0) {
		/* kept open (empty): trawl_output_destroy() removes it */
	}
	for (st = o->streams; st; st = st->next) {
		if (!st->lost_packets)
			continue;
		if (stream_seal(st))
			left++;
		else
			sealed++;
	}
	if (sealed || left)
		fprintf(stderr, "trawl-consumerd[%d]: %s: %d stream%s say in the trace what they "
			"lost%s\n", (int)getpid(), o->dir, sealed, sealed == 1 ? "" : "s",
			left ? ", others had no room left to" : "");
}

/* relay: relayd says it wrote @written data bytes of ours: the packets they end landed. */
void trawl_output_acked(struct trawl_output *o, uint64_t written)
{
	while (o->q_len && o->q[o->q_head].end <= written) {
		o->acked_bytes = o->q[o->q_head].end;
		o->q_head++;
		o->q_len--;
	}
	if (!o->q_len)
		o->q_head = 0;
}

/* relay: a packet sent; 0 or -ENOMEM (then it is only never confirmed). */
int trawl_output_unacked_push(struct trawl_output *o, int64_t events)
{
	if (o->q_head && o->q_head + o->q_len == o->q_cap) {
		memmove(o->q, o->q + o->q_head, o->q_len * sizeof(*o->q));
		o->q_head = 0;
	}
	if (o->q_len == o->q_cap) {
		size_t n = o->q_cap ? o->q_cap * 2 : 64;
		struct unacked *nq = realloc(o->q, n * sizeof(*nq));

		if (!nq)
			return -ENOMEM;
		o->q = nq;
		o->q_cap = n;
	}
	o->q[o->q_head + o->q_len++] = (struct unacked){.end = o->sent_bytes, .events = events};
	return 0;
}

/* relay, broken: what relayd did not confirm is counted lost. */
void trawl_output_unacked_lose(struct trawl_output *o)
{
	uint64_t prev = o->acked_bytes;

	for (; o->q_len; o->q_head++, o->q_len--) {
		trawl_output_lost_add(o, 1, o->q[o->q_head].end - prev, o->q[o->q_head].events);
		prev = o->q[o->q_head].end;
	}
	o->q_head = 0;
}

/*
 * ", N packets (M events) lost"; "(B bytes)" when some packet's events are
 * not known (streamed user-space packets relayd did not confirm: they were
 * sent, their memory is gone), with the M counted if any.
 */
void trawl_output_lost_text(const struct trawl_output *o, char *buf, size_t len)
{
	if (!o->lost_packets)
		snprintf(buf, len, ", nothing lost");
	else if (o->lost_unknown && o->lost_events)
		snprintf(buf, len, ", %llu packet%s (%llu bytes, %llu events or more) lost",
			 (unsigned long long)o->lost_packets, o->lost_packets == 1 ? "" : "s",
			 (unsigned long long)o->lost_bytes, (unsigned long long)o->lost_events);
	else if (o->lost_unknown)
		snprintf(buf, len, ", %llu packet%s (%llu bytes) lost",
			 (unsigned long long)o->lost_packets, o->lost_packets == 1 ? "" : "s",
			 (unsigned long long)o->lost_bytes);
	else
		snprintf(buf, len, ", %llu packet%s (%llu event%s) lost",
			 (unsigned long long)o->lost_packets, o->lost_packets == 1 ? "" : "s",
			 (unsigned long long)o->lost_events, o->lost_events == 1 ? "" : "s");
}
