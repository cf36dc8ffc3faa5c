/* SPDX-License-Identifier: MIT */
/*
 * crash.h - reading a stream's ring buffer file after everybody who wrote
 * or read it died (`trawl crash`, LTTng's lttng-crash): a --shm-path
 * session's buffers, SIGKILLed app and daemons included.
 *
 * The file is the buffer as mapped (ringbuffer.h): the control page, the
 * per-sub-buffer meta, the sub-buffers. What it still holds is the newest
 * num_subbuf packets at most: the one being written when the writers died
 * (cut where their commits end, as lttng-crash cuts it) and the whole
 * packets before it whose slot was not reused. Unlike lttng-crash, packets
 * the consumer already took are given too when their slot still holds them
 * (their data is intact; the trace on disk may hold them as well).
 *
 * The file is hostile input: its owner (and any app traced into it) could
 * write anything there. Nothing in it is used before it is checked; a file
 * that does not hold a buffer is refused with -EINVAL, and a packet whose
 * facts do not add up is skipped and counted, never read out of bounds.
 * fuzz/crash feeds it random files.
 */
#ifndef TRAWL_RINGBUFFER_CRASH_H
#define TRAWL_RINGBUFFER_CRASH_H

#include <stddef.h>
#include <stdint.h>

struct trawl_rb_crash_stats {
	uint64_t packets;      /* given to @emit */
	uint64_t partial;      /* of which the one being written (cut) */
	uint64_t skipped;      /* unreadable: incomplete or inconsistent */
	uint64_t subbuf_size;  /* the file's, once checked */
	uint32_t num_subbuf;
	uint32_t overwrite;
};

/*
 * trawl_rb_crash_packets - the packets a stream's buffer file holds
 * @buf: the whole file's bytes, a private copy (written to: each packet's
 *       header and context are filled in place)
 * @len: its size in bytes
 * @emit: (NULL: only counted) called for each packet, oldest first, with @pkt pointing at its
 *        @size bytes (header, context, events; no padding); a non-zero
 *        return stops the walk and is returned
 * @st: receives what was found (may be NULL)
 *
 * Returns 0, -EINVAL (not a trawl ring buffer file, or one whose sizes do
 * not match its length), or @emit's first non-zero return.
 */
int trawl_rb_crash_packets(void *buf, size_t len, int (*emit)(void *arg, const void *pkt, size_t size),
			   void *arg, struct trawl_rb_crash_stats *st);

#endif /* TRAWL_RINGBUFFER_CRASH_H */
