/* SPDX-License-Identifier: MIT */
/*
 * packet.c - the check of a packet built elsewhere, and its index entry
 * (packet.h). The header and context are byte-aligned 32- and 64-bit
 * fields (layout.h), so each is read and rewritten whole, in the packet's
 * byte order, from the one private copy.
 */
#include "ctf/packet.h"

#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>

#define HEAD_SIZE sizeof(struct trawl_ctf_packet_start)

static uint64_t to64(uint64_t v, int be)
{
	return be ? be64toh(v) : le64toh(v);
}

static uint64_t from64(uint64_t v, int be)
{
	return be ? htobe64(v) : htole64(v);
}

static uint32_t to32(uint32_t v, int be)
{
	return be ? be32toh(v) : le32toh(v);
}

/* The checks of packet.h on the private copy @h; @avail: bytes at the packet. */
static int head_check(const struct trawl_ctf_packet_start *h, size_t avail,
		      const struct trawl_ctf_packet_expect *exp)
{
	int be = exp->big_endian;
	uint64_t content = to64(h->context.content_size, be);

	if (to32(h->header.magic, be) != TRAWL_CTF_MAGIC)
		return -EINVAL;
	if (exp->uuid && memcmp(h->header.uuid, exp->uuid, sizeof(h->header.uuid)))
		return -EINVAL;
	if (exp->stream_id >= 0 && to32(h->header.stream_id, be) != (uint64_t)exp->stream_id)
		return -EINVAL;
	if (content < (uint64_t)HEAD_SIZE * 8 || content > (uint64_t)avail * 8)
		return -EINVAL;
	if (exp->closed && (to64(h->context.packet_size, be) < content ||
			    to64(h->context.timestamp_end, be) < to64(h->context.timestamp_begin, be)))
		return -EINVAL;
	return 0;
}

int trawl_ctf_packet_prepare(struct trawl_ctf_packet *p, const void *pkt, size_t avail,
			     const struct trawl_ctf_packet_expect *exp, uint64_t instance_id,
			     uint64_t offset)
{
	const struct trawl_ctf_packet_context *c = &p->head.context;
	int be = exp->big_endian;

	/* avail * 8 must not wrap in head_check() */
	if (!pkt || avail < HEAD_SIZE || avail > (SIZE_MAX >> 4))
		return -EINVAL;
	memcpy(&p->head, pkt, HEAD_SIZE); /* once: @pkt may change under us */
	if (head_check(&p->head, avail, exp))
		return -EINVAL;
	p->bytes = (to64(c->content_size, be) + 7) / 8;
	p->head.context.packet_size = from64(p->bytes * 8, be);
	p->head.header.stream_instance_id = from64(instance_id, be);
	p->entry = (struct trawl_ctf_index_entry){
		.offset = htobe64(offset),
		.packet_size = htobe64(p->bytes * 8),
		.content_size = htobe64(to64(c->content_size, be)),
		.timestamp_begin = htobe64(to64(c->timestamp_begin, be)),
		.timestamp_end = htobe64(to64(c->timestamp_end, be)),
		.events_discarded = htobe64(to64(c->events_discarded, be)),
		.stream_id = htobe64(to32(p->head.header.stream_id, be)),
		.stream_instance_id = htobe64(instance_id),
		.packet_seq_num = htobe64(to64(c->packet_seq_num, be)),
	};
	return 0;
}

void trawl_ctf_packet_add_discarded(struct trawl_ctf_packet *p, uint64_t n, int big_endian)
{
	uint64_t v;

	if (!n)
		return;
	v = to64(p->head.context.events_discarded, big_endian) + n;
	p->head.context.events_discarded = from64(v, big_endian);
	p->entry.events_discarded = htobe64(v);
}

void trawl_ctf_index_header_init(struct trawl_ctf_index_header *ih)
{
	*ih = (struct trawl_ctf_index_header){
		.magic = htobe32(TRAWL_CTF_INDEX_MAGIC),
		.index_major = htobe32(1),
		.index_minor = htobe32(1),
		.packet_index_len = htobe32(sizeof(struct trawl_ctf_index_entry)),
	};
}
