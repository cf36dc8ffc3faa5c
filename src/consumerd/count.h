/* SPDX-License-Identifier: MIT */
/*
 * count.h - how many events a user-space packet holds, for a packet that
 * could not be written (a full disk): the user-space consumer does not know
 * its events' layouts, the trace's metadata does.
 *
 * The metadata that describes a packet's events can reach the consumer
 * after the packet: the session daemon gives a program an event's id and
 * the consumer the metadata naming it on two sockets, and the consumer
 * drains its buffers before it reads its next command. A lost packet its
 * trace's metadata cannot count yet is kept (a copy) on the trace's list of
 * uncounted packets and counted when newer metadata comes; the list is
 * settled, counted or said uncountable in the log, before its streams close
 * and before a stop seals the trace (the daemon sends every METADATA before
 * the FLUSH of a stop, on the one socket, so the stop's count is exact).
 */
#ifndef TRAWL_CONSUMERD_COUNT_H
#define TRAWL_CONSUMERD_COUNT_H

#include <stddef.h>
#include <stdint.h>

struct trawl_output_stream;

/**
 * trawl_cons_packet_events - counts the events of one packet
 * @metadata, @len: the trace's TSDL text
 * @pkt: the packet (trawl's header and context, then events): memory a
 *       traced program writes, copied once and decoded as hostile input
 * @content: its content bytes
 *
 * Returns the number of events, or -1 when the packet does not decode to
 * its end with this metadata (then its events are not known).
 */
int64_t trawl_cons_packet_events(const char *metadata, size_t len, const void *pkt,
				 size_t content);

/* At most this many bytes of a trace's lost packets are kept uncounted:
 * past it, a packet's events are not known (the loss line says "or more"). */
#define TRAWL_CONS_UNCOUNTED_MAX (64u << 20)

struct trawl_cons_uncounted_pkt;

/* A trace's lost packets waiting for metadata that counts them. Zeroed: empty. */
struct trawl_cons_uncounted {
	struct trawl_cons_uncounted_pkt *head; /* owned, oldest first */
	struct trawl_cons_uncounted_pkt **tail;
	uint64_t bytes;   /* content bytes kept */
	uint32_t packets; /* packets kept */
};

/**
 * trawl_cons_lost_count - count the events of a packet @st just lost
 * @u: its trace's uncounted packets
 * @metadata, @len: the trace's metadata as the consumer has it now (may be NULL)
 * @st: the stream that lost it (trawl_output_stream_packet() returned 0);
 *      it must stay open until @u is settled (trawl_cons_uncounted_settle())
 * @pkt, @content: the packet and its content bytes (copied if kept)
 *
 * Counts them now (trawl_output_lost_events()) if the metadata can, else
 * keeps a copy in @u for newer metadata; a packet that does not fit in
 * TRAWL_CONS_UNCOUNTED_MAX stays uncounted, and the log says so.
 */
void trawl_cons_lost_count(struct trawl_cons_uncounted *u, const char *metadata, size_t len,
			   struct trawl_output_stream *st, const void *pkt, size_t content);

/*
 * Counts with newer metadata what @u keeps: the packets it now decodes are
 * counted on their streams and dropped from @u.
 */
void trawl_cons_uncounted_retry(struct trawl_cons_uncounted *u, const char *metadata, size_t len);

/*
 * Settles @u before its streams close or its trace is sealed: retries with
 * @metadata (the trace's last), then logs in one line what still does not
 * decode (@where names the trace) and forgets it (those packets' events
 * stay unknown: the loss line says "or more"). @u is empty after.
 */
void trawl_cons_uncounted_settle(struct trawl_cons_uncounted *u, const char *metadata,
				 size_t len, const char *where);

/* Frees what @u keeps without counting it (its streams may be gone). */
void trawl_cons_uncounted_free(struct trawl_cons_uncounted *u);

#endif /* TRAWL_CONSUMERD_COUNT_H */
