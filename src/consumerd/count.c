/* SPDX-License-Identifier: MIT */
/*
 * count.c - counts a lost packet's events with the reader's public
 * trawl_reader_packet_count_events() (the decoder trawl view uses), on a
 * copy of the packet made to say what it would have said on disk; and
 * keeps the packets the trace's metadata cannot count yet (count.h).
 *
 * Only packets that could not be written come here: the metadata is parsed
 * again for each, which costs about what writing the packet would have.
 */
#include "consumerd/count.h"
#include "common/log.h"
#include "consumerd/output.h"
#include "ctf/layout.h"

#include <trawl/reader.h>

#include <stdlib.h>
#include <string.h>

/* A lost packet kept uncounted: its stream and its content. */
struct trawl_cons_uncounted_pkt {
	struct trawl_cons_uncounted_pkt *next;
	struct trawl_output_stream *st; /* not owned: open until the list is settled */
	size_t content;                 /* bytes at copy */
	uint8_t copy[];
};

/* The events of @copy, @content bytes the caller owns (its packet_size is rewritten). */
static int64_t count_owned(const char *metadata, size_t len, uint8_t *copy, size_t content)
{
	struct trawl_ctf_packet_start *head = (struct trawl_ctf_packet_start *)copy;
	uint64_t n = 0;
	int ret;

	if (!metadata || content < sizeof(*head))
		return -1;
	/* its content only (the padding written after it is not read: ctf/packet.h) */
	if (head->context.content_size > (uint64_t)content * 8)
		return -1;
	head->context.packet_size = head->context.content_size;
	content = (size_t)((head->context.content_size + 7) / 8);
	ret = trawl_reader_packet_count_events(metadata, len, copy, content, &n);
	return ret || n > INT64_MAX ? -1 : (int64_t)n;
}

int64_t trawl_cons_packet_events(const char *metadata, size_t len, const void *pkt,
				 size_t content)
{
	uint8_t *copy;
	int64_t n;

	if (!metadata || content < sizeof(struct trawl_ctf_packet_start))
		return -1;
	copy = malloc(content);
	if (!copy)
		return -1;
	/* a copy: the program may write the shared memory while we decode */
	memcpy(copy, pkt, content);
	n = count_owned(metadata, len, copy, content);
	free(copy);
	return n;
}

void trawl_cons_lost_count(struct trawl_cons_uncounted *u, const char *metadata, size_t len,
			   struct trawl_output_stream *st, const void *pkt, size_t content)
{
	struct trawl_cons_uncounted_pkt *k;
	int64_t n;

	if (content < sizeof(struct trawl_ctf_packet_start))
		return; /* not a packet: prepare refused it before any write */
	if (!u->tail)
		u->tail = &u->head;
	/* no room to keep it: counted now, or never */
	if (content > TRAWL_CONS_UNCOUNTED_MAX - u->bytes || !(k = malloc(sizeof(*k) + content))) {
		n = trawl_cons_packet_events(metadata, len, pkt, content);
		if (n >= 0)
			trawl_output_lost_events(st, (uint64_t)n);
		else
			trawl_log(TRAWL_LOG_WARN, "a lost packet of %zu bytes does not decode with the "
				  "trace's metadata, and it cannot wait for newer metadata (%llu bytes "
				  "of others wait already): its events are not counted", content,
				  (unsigned long long)u->bytes);
		return;
	}
	/* a copy: the program may write the shared memory while we decode */
	memcpy(k->copy, pkt, content);
	k->st = st;
	k->content = content;
	k->next = NULL;
	n = count_owned(metadata, len, k->copy, content);
	if (n >= 0) {
		trawl_output_lost_events(st, (uint64_t)n);
		free(k);
		return;
	}
	*u->tail = k;
	u->tail = &k->next;
	u->bytes += content;
	u->packets++;
}

void trawl_cons_uncounted_retry(struct trawl_cons_uncounted *u, const char *metadata, size_t len)
{
	struct trawl_cons_uncounted_pkt **kp = &u->head, *k;
	int64_t n;

	if (!metadata)
		return;
	while ((k = *kp)) {
		n = count_owned(metadata, len, k->copy, k->content);
		if (n < 0) {
			kp = &k->next;
			continue;
		}
		trawl_output_lost_events(k->st, (uint64_t)n);
		*kp = k->next;
		u->bytes -= k->content;
		u->packets--;
		free(k);
	}
	u->tail = kp; /* the last one's link */
}

void trawl_cons_uncounted_settle(struct trawl_cons_uncounted *u, const char *metadata,
				 size_t len, const char *where)
{
	if (!u->head)
		return;
	trawl_cons_uncounted_retry(u, metadata, len);
	if (u->head)
		trawl_log(TRAWL_LOG_WARN, "%s: %u lost packet%s (%llu bytes) do%s not decode with the "
			  "trace's metadata: %s events are not counted (the loss says \"or more\")",
			  where, u->packets, u->packets == 1 ? "" : "s",
			  (unsigned long long)u->bytes, u->packets == 1 ? "es" : "",
			  u->packets == 1 ? "its" : "their");
	trawl_cons_uncounted_free(u);
}

void trawl_cons_uncounted_free(struct trawl_cons_uncounted *u)
{
	struct trawl_cons_uncounted_pkt *k;

	while ((k = u->head)) {
		u->head = k->next;
		free(k);
	}
	*u = (struct trawl_cons_uncounted){.tail = &u->head};
}
