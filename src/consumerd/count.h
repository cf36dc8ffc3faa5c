/* SPDX-License-Identifier: MIT */
/*
 * count.h - how many events a user-space packet holds, for a packet that
 * could not be written (a full disk): the user-space consumer does not know
 * its events' layouts, the trace's metadata does.
 */
#ifndef TRAWL_CONSUMERD_COUNT_H
#define TRAWL_CONSUMERD_COUNT_H

#include <stddef.h>
#include <stdint.h>

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

#endif /* TRAWL_CONSUMERD_COUNT_H */
