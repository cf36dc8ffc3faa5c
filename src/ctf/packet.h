/* SPDX-License-Identifier: MIT */
/*
 * packet.h - a packet built elsewhere made ready for a stream file: the one
 * "packet -> data + index entry" step of every writer of trawl's traces.
 *
 * A packet comes from a ring buffer's sub-buffer (memory a traced program
 * can write), from the kernel converter, or from the tests' event encoder
 * (tests/lib/ctf_stream.h). trawl_ctf_packet_prepare() checks its header and context,
 * copies them once (the caller then writes only that copy, so a program
 * scribbling on the memory meanwhile cannot make the written header differ
 * from the checked one), rewrites packet_size to the content rounded up to
 * the page size (the padding is zeros: LTTng 2.13's consumers write a
 * packet padded so, and its tracefile-limits scripts check the files'
 * sizes) and stream_instance_id to the stream file's, and makes the
 * packet's index entry. The caller writes, in this order:
 *
 *	p.head                   sizeof(p.head) bytes
 *	pkt + sizeof(p.head)     p.bytes - sizeof(p.head) bytes
 *	trawl_ctf_packet_zeros   p.size - p.bytes bytes (less than a page)
 *
 * to the stream file at @offset, and then p.entry to its index. Users: the
 * consumers' outputs (consumerd/output-stream.c: local files and trawl-relayd),
 * and the tests' trawl_ctf_stream (tests/lib/ctf_stream.h), which the golden
 * babeltrace2 tests of tests/ctf drive. Fuzzed by fuzz/ctf (fuzz-ctf-packet-check) and, through
 * the consumers' output, fuzz/consumerd (fuzz-cons-packet).
 */
#ifndef TRAWL_CTF_PACKET_H
#define TRAWL_CTF_PACKET_H

#include <stddef.h>
#include <stdint.h>

#include "ctf/layout.h"

/* What a packet must say for its stream file. */
struct trawl_ctf_packet_expect {
	int big_endian;      /* the trace's byte order (the consumers: the host's) */
	const uint8_t *uuid; /* the 16 bytes of the trace's uuid, or NULL: not checked */
	int64_t stream_id;   /* the stream class, or -1: not checked */
	/*
	 * 1: also packet_size >= content_size and timestamp_end >=
	 * timestamp_begin, what a packet closed by a CTF writer says. The
	 * consumers leave it 0: their producers' packet_size is the sub-buffer's
	 * and is rewritten anyway, and their times are written as they are.
	 */
	int closed;
	/*
	 * 1: no padding, packet_size is the content rounded up to a byte (a
	 * consumer's seal after a failure: a full disk may take its few bytes
	 * and not a page).
	 */
	int unpadded;
};

/* Zeros to pad packets with: at least any p.size - p.bytes. */
extern const uint8_t trawl_ctf_packet_zeros[65536];

/* A packet ready to write (see the top of this file). Owns nothing. */
struct trawl_ctf_packet {
	struct trawl_ctf_packet_start head; /* in the trace's byte order, rewritten */
	struct trawl_ctf_index_entry entry; /* big-endian, as index files are */
	uint64_t bytes;                     /* content bytes, head included */
	uint64_t size;                      /* bytes on disk: bytes and the padding */
};

/**
 * trawl_ctf_packet_prepare - check a packet and make what is written of it
 * @p: receives the header to write, the index entry and the size
 * @pkt: the packet: trawl's header and context (layout.h), then events; may
 *       be memory another process writes (its start is read once)
 * @avail: bytes readable at @pkt; the content must fit in them
 * @exp: what the header must say
 * @instance_id: the stream file's instance id (written in header and entry)
 * @offset: where the packet starts in the stream file, in bytes
 *
 * Checks the magic, the content size (at least the header and context, at
 * most @avail bytes) and what @exp asks. Returns 0, or -EINVAL for a packet
 * that does not pass (then @p is undefined and nothing is to be written).
 */
int trawl_ctf_packet_prepare(struct trawl_ctf_packet *p, const void *pkt, size_t avail,
			     const struct trawl_ctf_packet_expect *exp, uint64_t instance_id,
			     uint64_t offset);

/*
 * Adds @n to the events_discarded of a prepared packet's header and index
 * entry: events lost with packets before it that readers learn from it (the
 * consumers' carry after a gap). @big_endian: as given to prepare.
 */
void trawl_ctf_packet_add_discarded(struct trawl_ctf_packet *p, uint64_t n, int big_endian);

/* The 16-byte header every index file starts with (index format 1.1). */
void trawl_ctf_index_header_init(struct trawl_ctf_index_header *ih);

/* 1 if the host is big-endian: the byte order of the consumers' packets. */
static inline int trawl_ctf_host_big_endian(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

#endif /* TRAWL_CTF_PACKET_H */
