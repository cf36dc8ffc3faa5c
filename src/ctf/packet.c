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
#include <unistd.h>

#define HEAD_SIZE sizeof(struct trawl_ctf_packet_start)

/*
 * Fields are read and written through these with @swap a constant (see
 * trawl_ctf_packet_prepare()): the packet in the host's byte order, the
 * consumers' case on every packet they write, then costs no conversion and
 * no branch per field.
 */
static inline __attribute__((always_inline)) uint64_t rd64(uint64_t v, int swap)
{
	return swap ? __builtin_bswap64(v) : v;
}

static inline __attribute__((always_inline)) uint32_t rd32(uint32_t v, int swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

/* The checks of packet.h on the private copy @h; @avail: bytes at the packet. */
static inline __attribute__((always_inline)) int
head_check(const struct trawl_ctf_packet_start *h, size_t avail,
	   const struct trawl_ctf_packet_expect *exp, int swap)
{
	uint64_t content = rd64(h->context.content_size, swap);

	if (rd32(h->header.magic, swap) != TRAWL_CTF_MAGIC)
		return -EINVAL;
	if (exp->uuid && memcmp(h->header.uuid, exp->uuid, sizeof(h->header.uuid)))
		return -EINVAL;
	if (exp->stream_id >= 0 && rd32(h->header.stream_id, swap) != (uint64_t)exp->stream_id)
		return -EINVAL;
	if (content < (uint64_t)HEAD_SIZE * 8 || content > (uint64_t)avail * 8)
		return -EINVAL;
	if (exp->closed && (rd64(h->context.packet_size, swap) < content ||
			    rd64(h->context.timestamp_end, swap) <
				    rd64(h->context.timestamp_begin, swap)))
		return -EINVAL;
	return 0;
}

const uint8_t trawl_ctf_packet_zeros[65536];

/* The padding after @bytes of content: to the page size (packet.h). */
static uint64_t padding(uint64_t bytes)
{
	static uint64_t page;
	uint64_t pg = __atomic_load_n(&page, __ATOMIC_RELAXED);

	if (!pg) {
		long ps = sysconf(_SC_PAGESIZE);

		pg = ps >= 4096 && (size_t)ps <= sizeof(trawl_ctf_packet_zeros) && !(ps & (ps - 1))
			     ? (uint64_t)ps
			     : 4096;
		__atomic_store_n(&page, pg, __ATOMIC_RELAXED);
	}
	return (pg - bytes % pg) % pg;
}

static inline __attribute__((always_inline)) int
prepare(struct trawl_ctf_packet *p, const void *pkt, size_t avail,
	const struct trawl_ctf_packet_expect *exp, uint64_t instance_id, uint64_t offset, int swap)
{
	const struct trawl_ctf_packet_context *c = &p->head.context;

	/* avail * 8 must not wrap in head_check() */
	if (!pkt || avail < HEAD_SIZE || avail > (SIZE_MAX >> 4))
		return -EINVAL;
	memcpy(&p->head, pkt, HEAD_SIZE); /* once: @pkt may change under us */
	if (head_check(&p->head, avail, exp, swap))
		return -EINVAL;
	p->bytes = (rd64(c->content_size, swap) + 7) / 8;
	p->size = p->bytes + (exp->unpadded ? 0 : padding(p->bytes));
	p->head.context.packet_size = rd64(p->size * 8, swap);
	p->head.header.stream_instance_id = rd64(instance_id, swap);
	p->entry = (struct trawl_ctf_index_entry){
		.offset = htobe64(offset),
		.packet_size = htobe64(p->size * 8),
		.content_size = htobe64(rd64(c->content_size, swap)),
		.timestamp_begin = htobe64(rd64(c->timestamp_begin, swap)),
		.timestamp_end = htobe64(rd64(c->timestamp_end, swap)),
		.events_discarded = htobe64(rd64(c->events_discarded, swap)),
		.stream_id = htobe64(rd32(p->head.header.stream_id, swap)),
		.stream_instance_id = htobe64(instance_id),
		.packet_seq_num = htobe64(rd64(c->packet_seq_num, swap)),
	};
	return 0;
}

int trawl_ctf_packet_prepare(struct trawl_ctf_packet *p, const void *pkt, size_t avail,
			     const struct trawl_ctf_packet_expect *exp, uint64_t instance_id,
			     uint64_t offset)
{
	if (!exp->big_endian == !trawl_ctf_host_big_endian())
		return prepare(p, pkt, avail, exp, instance_id, offset, 0);
	return prepare(p, pkt, avail, exp, instance_id, offset, 1);
}

void trawl_ctf_packet_add_discarded(struct trawl_ctf_packet *p, uint64_t n, int big_endian)
{
	int swap = !big_endian != !trawl_ctf_host_big_endian();
	uint64_t v;

	if (!n)
		return;
	v = rd64(p->head.context.events_discarded, swap) + n;
	p->head.context.events_discarded = rd64(v, swap);
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
