/* SPDX-License-Identifier: MIT */
/*
 * output-loss.c - what never reached a trace's destination: packets a
 * broken output dropped, and over the network the packets relayd had not
 * confirmed writing when it failed or went; counted, and said in one line
 * (output.h: trawl_output_broken()).
 */
#include "common/common.h"
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

void trawl_output_count_events(struct trawl_output *o, trawl_output_count_fn count, void *arg)
{
	o->count = count;
	o->count_arg = arg;
}

void trawl_output_lost_events(struct trawl_output_stream *st, uint64_t events)
{
	struct trawl_output *o = st->o;

	if (o->lost_unknown)
		o->lost_unknown--;
	o->lost_events += events;
	st->lost_events += events;
	st->carry += events; /* the next packet, or the seal, counts them */
}

int trawl_output_stream_first(struct trawl_output_stream *st)
{
	struct trawl_ctf_packet_start p = st->lost_first;
	int64_t n;

	/*
	 * Readers take a stream's first packet's count as where it starts,
	 * not as losses: a stream that wrote nothing gets an empty packet
	 * first, in the first lost one's place (its number: that one is not
	 * reported as a lost packet, its events are), counting 0.
	 */
	p.context.timestamp_end = p.context.timestamp_begin;
	p.context.content_size = p.context.packet_size = sizeof(p) * 8;
	p.context.events_discarded = 0;
	n = trawl_output_stream_packet_forced(st, &p, sizeof(p), TRAWL_OUTPUT_PKT_NOCARRY);
	if (n < 0)
		return (int)n;
	if (st->lost_packets)
		st->o->lost_placed++; /* readers see one lost packet fewer: the line says so */
	return 0;
}

/*
 * One stream's seal: an empty packet after the lost ones, numbered after
 * the last of them (readers report the gap as lost packets), carrying
 * events_discarded = that one's running count + the events the stream's
 * lost packets held (its carry, added by output.c: readers report the
 * difference as discarded events), dated at the end of the last one.
 */
int trawl_output_stream_seal(struct trawl_output_stream *st)
{
	struct trawl_ctf_packet_start p;
	int64_t n;
	int ret;

	if (!st->offset && (ret = trawl_output_stream_first(st)) < 0)
		return ret;
	p = st->lost_head;
	p.context.timestamp_begin = p.context.timestamp_end;
	p.context.content_size = p.context.packet_size = sizeof(p) * 8;
	p.context.packet_seq_num++;
	n = trawl_output_stream_packet_forced(st, &p, sizeof(p), 0);
	if (n < 0)
		return (int)n;
	st->lost_packets = st->lost_events = 0;
	return 0;
}

void trawl_output_streams_seal(struct trawl_output *o, int *sealed, int *left)
{
	struct trawl_output_stream *st;

	for (st = o->streams; st; st = st->next) {
		if (!st->lost_packets)
			continue;
		if (trawl_output_stream_seal(st))
			(*left)++;
		else
			(*sealed)++;
	}
}

void trawl_output_seal(struct trawl_output *o)
{
	int sealed = 0, left = 0;

	if (o && o->relay)
		trawl_output_relay_seal(o);
	if (!o || o->relay || !o->failed)
		return;
	/* the room held back since the trace began: freed, for these packets */
	if (o->reserve >= 0 && ftruncate(o->reserve, 0) == 0) {
		/* kept open (empty): trawl_output_destroy() removes it */
	}
	trawl_output_streams_seal(o, &sealed, &left);
	if (sealed || left)
		fprintf(stderr, "trawl-consumerd[%d]: %s: %d stream%s say in the trace what they "
			"lost%s\n", (int)getpid(), o->dir, sealed, sealed == 1 ? "" : "s",
			left ? ", others had no room left to" : "");
}

/*
 * ", N packets (M events) lost"; "(B bytes)" when some packet's events are
 * not known (a user-space packet that does not decode with its trace's
 * metadata), with the M counted if any. N is what readers of the trace
 * report lost: a stream's first lost packet has an empty packet in its
 * place (trawl_output_stream_first()), said apart, its events in M.
 */
void trawl_output_lost_text(const struct trawl_output *o, char *buf, size_t len)
{
	uint64_t placed = TRAWL_MIN(o->lost_placed, o->lost_packets);
	uint64_t shown = o->lost_packets - placed;
	size_t at;

	if (!o->lost_packets)
		trawl_msg_fmt(buf, len, ", nothing lost");
	else if (o->lost_unknown && o->lost_events)
		trawl_msg_fmt(buf, len, ", %llu packet%s (%llu bytes, %llu events or more) lost",
			      (unsigned long long)shown, shown == 1 ? "" : "s",
			      (unsigned long long)o->lost_bytes,
			      (unsigned long long)o->lost_events);
	else if (o->lost_unknown)
		trawl_msg_fmt(buf, len, ", %llu packet%s (%llu bytes) lost",
			      (unsigned long long)shown, shown == 1 ? "" : "s",
			      (unsigned long long)o->lost_bytes);
	else
		trawl_msg_fmt(buf, len, ", %llu packet%s (%llu event%s) lost",
			      (unsigned long long)shown, shown == 1 ? "" : "s",
			      (unsigned long long)o->lost_events, o->lost_events == 1 ? "" : "s");
	at = strlen(buf);
	if (placed && at < len)
		trawl_msg_fmt(buf + at, len - at,
			      " (%llu more %s %s first: an empty packet takes %s place)",
			      (unsigned long long)placed, placed == 1 ? "was its" : "were their",
			      placed == 1 ? "stream's" : "streams'",
			      placed == 1 ? "its" : "each one's");
	at = strlen(buf);
	if (o->lost_unconfirmed && at < len)
		trawl_msg_fmt(buf + at, len - at,
			      " (%llu sent, not confirmed: "
			      "trawl-relayd may hold them)",
			      (unsigned long long)o->lost_unconfirmed);
}
