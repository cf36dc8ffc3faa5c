/* SPDX-License-Identifier: MIT */
/*
 * ringbuffer.h - the lock-free ring buffer shared by traced apps (producers)
 * and the consumer, in one memfd per stream (one stream per CPU).
 *
 * Memory layout of a stream's memfd:
 *
 *   +------------------------------+  0
 *   | struct trawl_rb_ctrl         |  positions, counters
 *   | struct trawl_rb_meta[n]      |  per-sub-buffer commit count + packet facts
 *   +------------------------------+  ctrl_size (page aligned)
 *   | sub-buffer 0 (S bytes)       |  each sub-buffer is a CTF packet: 84 bytes of
 *   | sub-buffer 1                 |  header+context (written by the consumer),
 *   | ...                          |  then events, then padding
 *   | sub-buffer n-1               |
 *   +------------------------------+  ctrl_size + n * S
 *
 * Positions. Producers see the buffer as an endless byte stream; a position
 * is a byte offset in it, kept modulo 2^36 (64 GiB; n * S is at most 2^32,
 * so a position's sub-buffer index and offset are exact). Sub-buffer k of
 * the stream (its packet_seq_num) lives in slot k % n.
 *
 * The reserve word (ctrl->reserve, 64 bits) packs two things that must change
 * together:  bits 0..35 the write position, bits 36..63 bits 27..54 of the
 * timestamp of the last event reserved ("ts_high"). An event gets a compact
 * 4-byte header (5-bit id, low 27 bits of its timestamp) only when its
 * timestamp has the same ts_high as the event just before it in the stream,
 * so a CTF reader, which rebuilds a 27-bit timestamp from the previous one,
 * gets it exactly. Keeping both in one word makes "who is previous" and "what
 * was its time" one atomic fact: no window where another thread's event slips
 * in between the check and the reservation.
 *
 * Reserve (any producer thread, any process sharing the buffer):
 *   1. load the reserve word; read the clock (after the load, so that a
 *      successful CAS means no event was reserved since the clock was read:
 *      timestamps grow with positions; trawl_rb_reserve_try() says when a
 *      writer may read it unordered: its own event was the last);
 *   2. compute where the event goes: after the previous one, or, if it does
 *      not fit, at the start of the next sub-buffer (after its 84-byte packet
 *      start) - a "switch";
 *   3. in discard mode, if the switch enters a sub-buffer the consumer has not
 *      released yet, drop the event: count it in ctrl->lost_full and return;
 *   4. CAS the reserve word; on failure go back to 1.
 * Then the winner does the bookkeeping of a switch: closes the old sub-buffer
 * (meta.content_end, meta.ts_end, meta.discarded, and commits the padding to
 * its end) and opens the new one (meta.ts_begin, commits the 84 header bytes).
 *
 * Commit: every byte of a sub-buffer is committed exactly once per use - the
 * header by the opener, each event by its writer, the padding by the closer -
 * by adding to one of the slot's two counts with release order: any writer
 * to meta[slot].commit, with a lock-prefixed add; a writer that runs on the
 * stream's own CPU may instead add to meta[slot].commit_cpu with a plain
 * add, inside an rseq critical section that checks the CPU (libtrawl-ust:
 * src/ust/fastpath.c, why that is exact). The slot's count is their sum
 * (trawl_rb_committed()), cumulative over the slot's uses, so use g of a
 * slot is complete exactly when the sum == (g + 1) * S. No one resets
 * them: that is what makes it safe for many writers and a consumer to look
 * at them without a lock. Read one after the other, the two loads give at
 * most the bytes committed by the time of the second, and no byte of use
 * g + 1 is committed before use g is complete (the consumer releases the
 * slot, or a switcher saw it complete: trawl_rb_slot_free()), so a sum of
 * exactly (g + 1) * S still means use g is complete.
 *
 * Consumer (one thread): waits for commit == (g + 1) * S with acquire order
 * (pairs with every writer's release add: all their bytes and meta stores are
 * visible), writes the packet header and context from meta, hands out the
 * packet, and on release stores ctrl->consumed with release order (pairs with
 * the producers' acquire load in step 3: the consumer's reads of the slot
 * happen before any producer writes it again).
 *
 * Wake-ups (version 3). The consumer sleeps rather than polls: before it
 * sleeps it arms each stream (ctrl->wake_armed = 1), then looks once more
 * for a closed packet it has not taken (trawl_rb_reader_arm()); a producer
 * that closes a packet (trawl_rb_switch_out(), once per sub-buffer, never
 * per event) and finds the stream armed takes it back to 0 and writes the
 * channel's eventfd (trawl_rb.wake_fd), which the consumer polls. Both
 * sides exchange the flag (acquire-release, so the two exchanges are
 * ordered and the later one sees what came before the earlier): either the
 * producer reads 1 and wakes the consumer, or the consumer's look at the
 * reserve word after its exchange sees the switch; a packet closed while
 * the consumer goes to sleep is never left unsaid. A producer without
 * the eventfd (a library older than layout 3, wake_fd -1) never writes it:
 * the session daemon counts such writers in ctrl->wake_legacy when it gives
 * them the stream, and the consumer polls their channels instead.
 *
 * Overwrite mode skips step 3: the producers lap the consumer. The consumer
 * then copies a packet out and checks afterwards that the reserve position
 * has not come back to the slot (seqlock style); packets lost this way are
 * gaps in packet_seq_num.
 *
 * The consumer trusts nothing in this memory: sizes come from its own
 * attributes, meta values are range-checked before use.
 *
 * Who writes what:
 *   ctrl->reserve      producers (CAS), consumer's flush (CAS)
 *   ctrl->consumed     consumer only
 *   ctrl->wake_armed   consumer (1), a producer closing a packet (0)
 *   ctrl->wake_legacy  the session daemon (writers given the stream that
 *                      cannot wake the consumer), a producer that found its
 *                      eventfd closed (trawl_rb_wake())
 *   ctrl->lost_*       producers (atomic add); lost_tally (and as much of
 *                      lost_full) a program's tally (src/ust/slots.c) and the
 *                      session daemon's charge of one (ustctl's
 *                      trawl_ustctl_channel_add_discarded())
 *   meta[].commit      producers and flush (atomic add)
 *   meta[].commit_cpu  producers on the stream's CPU (plain add under rseq)
 *   meta[].ts_begin    the opener of the slot's current use
 *   meta[].ts_end, content_end, discarded   the closer of the slot's current use
 */
#ifndef TRAWL_RINGBUFFER_H
#define TRAWL_RINGBUFFER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "ctf/layout.h"

#define TRAWL_RB_MAGIC 0x74524231u /* "tRB1" */
/* 2: meta[].commit_cpu (1: it is 0, the commit count is meta[].commit alone).
 * 3: ctrl->wake_armed and wake_legacy (the consumer's wake-ups; 0 before). */
#define TRAWL_RB_VERSION 3u
#define TRAWL_RB_POS_BITS 36u
#define TRAWL_RB_POS_MASK ((UINT64_C(1) << TRAWL_RB_POS_BITS) - 1)
#define TRAWL_RB_TS_SHIFT TRAWL_CTF_COMPACT_TS_BITS /* 27 */
#define TRAWL_RB_TSH_MASK ((UINT64_C(1) << (64 - TRAWL_RB_POS_BITS)) - 1)
#define TRAWL_RB_PACKET_START ((uint64_t)sizeof(struct trawl_ctf_packet_start)) /* 84 */
#define TRAWL_RB_MIN_SUBBUF 4096u
#define TRAWL_RB_MAX_BUF (UINT64_C(1) << 32) /* n * S at most */

/* Per-sub-buffer facts, one cache line. */
struct trawl_rb_meta {
	uint64_t commit;      /* cumulative bytes committed in this slot */
	uint64_t ts_begin;    /* ns: packet's timestamp_begin */
	uint64_t ts_end;      /* ns: packet's timestamp_end */
	uint64_t content_end; /* bytes used in the slot, packet start included */
	uint64_t discarded;   /* ctrl->lost_* total when the packet was closed */
	uint64_t commit_cpu;  /* cumulative bytes committed on the stream's CPU (version 2) */
	uint64_t pad[2];
};

struct trawl_rb_ctrl {
	uint32_t magic;
	uint32_t version;
	uint64_t subbuf_size; /* informational: nobody trusts these four */
	uint32_t num_subbuf;
	uint32_t overwrite;
	uint32_t cpu;
	/* For a reader of the file after everybody died (`trawl crash`, on a
	 * --shm-path buffer): the trace's uuid, the stream class and the
	 * clock (enum trawl_rb_clock). Informational too. */
	uint32_t stream_id;
	uint32_t clock;
	uint8_t uuid[16];
	uint32_t pad0[3];
	/* Own cache lines: the hottest word, and the consumer's. */
	uint64_t reserve __attribute__((aligned(64)));
	uint64_t consumed __attribute__((aligned(64))); /* position (mod 2^36) */
	/* In the line producers read at each switch anyway (version 3, top
	 * comment): 1 while the consumer sleeps on the stream; and the
	 * writers given the stream that cannot wake it (0: none). */
	uint32_t wake_armed;
	uint32_t wake_legacy;
	/* The reader's: the highest events_discarded it gave out by its last
	 * put (trawl_rb_reader_put()), so that a reader taking over from a
	 * dead one never gives out less (trawl_rb_reader_resume()); 0 in a
	 * buffer whose reader never put a packet, or that an older reader
	 * read. Producers never look at it. */
	uint64_t consumed_discarded;
	uint64_t lost_full __attribute__((aligned(64)));
	uint64_t lost_big;
	/*
	 * The part of lost_full that events a program recorded while no
	 * session daemon had it set up (dropped by its daemon, or set up late)
	 * make: a tally's counts, added to both. Only said apart (`trawl
	 * stop` gives their cause); 0 in a file an older program wrote, where
	 * they are all in lost_full. Read through trawl_rb_lost_tally().
	 */
	uint64_t lost_tally;
	struct trawl_rb_meta meta[] __attribute__((aligned(64)));
};

_Static_assert(__builtin_offsetof(struct trawl_rb_ctrl, reserve) == 64,
	       "the control page's first line keeps its layout (crash.h reads old files)");
_Static_assert(__builtin_offsetof(struct trawl_rb_ctrl, lost_full) == 192,
	       "consumed_discarded lives in the consumer's line: the lost counters stay where they were");
_Static_assert(__builtin_offsetof(struct trawl_rb_ctrl, meta) == 256,
	       "lost_tally lives in the lost counters' line: the sub-buffers' facts stay where they were");

/*
 * The clock of a stream's timestamps (meta ts_begin/ts_end and each event
 * header). Chosen by the session daemon for the trace (and so for every
 * stream of it) when it creates the buffers; each process sharing them learns
 * it from a trusted side (its attributes), never from this memory.
 *   MONOTONIC  CLOCK_MONOTONIC in ns: any process reads it.
 *   APP        the traced app's own clock (an LTTng-UST clock plugin,
 *              <trawl/ust-clock.h>): only the app can read it. The app sets
 *              trawl_rb.read_clock; the consumer and the session daemon,
 *              which cannot, never stamp a packet with their time (see
 *              trawl_rb_flush()).
 */
enum trawl_rb_clock {
	TRAWL_RB_CLOCK_MONOTONIC = 0,
	TRAWL_RB_CLOCK_APP = 1,
	TRAWL_RB_CLOCK_TSC = 2, /* x86-64's invariant TSC, in cycles: any process reads it */
};
#define TRAWL_RB_CLOCK_MAX TRAWL_RB_CLOCK_TSC

/* A mapped stream, as a producer or the consumer sees it (private memory). */
struct trawl_rb {
	struct trawl_rb_ctrl *ctrl;
	char *data;           /* sub-buffer 0 */
	void *map;
	size_t map_size;
	uint64_t subbuf_size; /* S, trusted (from the creator's attributes) */
	uint32_t subbuf_shift;
	uint32_t num_subbuf;  /* n */
	uint64_t buf_mask;    /* n * S - 1: a position's byte in the data area is pos & buf_mask */
	uint64_t serial;      /* this mapping's number in the process, from 1 (trawl_rb_map()) */
	uint32_t overwrite;
	uint32_t cpu;
	uint32_t clock;                /* enum trawl_rb_clock: MONOTONIC after trawl_rb_map() */
	uint32_t wait_full;            /* 1: a full buffer (discard mode) is the caller's to
					  wait on: trawl_rb_reserve() says TRAWL_RB_FULL and
					  counts nothing (0 after trawl_rb_map()) */
	uint64_t (*read_clock)(void); /* the APP clock, in the app only; NULL elsewhere */
	uint32_t commit_cpu;           /* 1: the buffer's readers add meta[].commit_cpu
					  (a version 2 control page, trawl_rb_map()) */
	/* A producer's: the channel's eventfd it writes when it closes a
	 * packet while the consumer sleeps (top comment), -1: none (after
	 * trawl_rb_map()); wake_dev, wake_ino: what fstat() said of it then. */
	int wake_fd;
	uint64_t wake_dev, wake_ino;
};

/* trawl_rb_reserve(): the buffer is full (only with rb->wait_full). */
#define TRAWL_RB_FULL (-2)

/* An event being written: trawl_rb_reserve() fills it, the caller writes
 * @len payload bytes at @p, then calls trawl_rb_commit(). */
struct trawl_rb_ctx {
	char *p;
	struct trawl_rb_meta *meta;
	uint64_t len; /* header + payload bytes to commit */
};

/* ---- sizes, creation, mapping (ringbuffer.c) ---- */

/* Checks S and n; returns 0 or -EINVAL. */
int trawl_rb_check_attr(uint64_t subbuf_size, uint32_t num_subbuf);
/* Bytes of the control area (page aligned) and of the whole memfd. */
size_t trawl_rb_ctrl_size(uint32_t num_subbuf);
size_t trawl_rb_shm_size(uint64_t subbuf_size, uint32_t num_subbuf);

/* What a stream's control page says of the trace it belongs to, for a
 * reader that has nothing else (`trawl crash`). */
struct trawl_rb_ident {
	uint8_t uuid[16];
	uint32_t stream_id;
};

/* Sets up the control page of @fd, a regular file of exactly
 * trawl_rb_shm_size() bytes (not taken), its first packet already cut,
 * empty (ringbuffer.c says why), at the time of @clock (enum
 * trawl_rb_clock) now, or 0 for a clock only the app reads; @id (or NULL)
 * is written there too. 0 or a negative errno. */
int trawl_rb_shm_init(int fd, uint64_t subbuf_size, uint32_t num_subbuf, uint32_t overwrite, uint32_t cpu,
		      uint32_t clock, const struct trawl_rb_ident *id);
/* A sealed memfd of the right size, set up by trawl_rb_shm_init().
 * Returns the fd (the caller closes it) or a negative errno. */
int trawl_rb_shm_create(uint64_t subbuf_size, uint32_t num_subbuf, uint32_t overwrite, uint32_t cpu,
			uint32_t clock, const struct trawl_rb_ident *id);

/* Maps @fd (not taken: the caller may close it after) after checking its size
 * against the attributes. The clock is MONOTONIC (read_clock NULL): the
 * caller sets another after. Returns 0 or a negative errno. */
int trawl_rb_map(struct trawl_rb *rb, int fd, uint64_t subbuf_size, uint32_t num_subbuf, uint32_t overwrite,
		 uint32_t cpu);
void trawl_rb_unmap(struct trawl_rb *rb);
/*
 * A producer's @rb closes its packets with wake-ups to the consumer through
 * @fd, an eventfd (non-blocking) the caller keeps open for as long as @rb
 * may be written (top comment). Returns 0, or -EINVAL when @fd is not an
 * eventfd-like descriptor (then @rb keeps no wake-up: the consumer polls).
 */
int trawl_rb_set_wake_fd(struct trawl_rb *rb, int fd);
/*
 * The consumer wakes if it sleeps on @rb: when the stream is armed, it is
 * disarmed and the eventfd written. Never blocks (the eventfd is
 * non-blocking), async-signal-safe (errno kept), at most one write per
 * arming. Nothing when @rb has no wake_fd, or when that descriptor is no
 * longer the eventfd it was (a program that closed it: we write nothing
 * into whatever took its number).
 */
void trawl_rb_wake(struct trawl_rb *rb);

/* ---- producer side ---- */

/* floor(log2(@v)) (0 for 0 and 1): sub-buffer sizes and counts are powers of two. */
static inline uint32_t trawl_rb_log2(uint64_t v)
{
	return v > 1 ? 63u - (uint32_t)__builtin_clzll(v) : 0;
}

static inline uint64_t trawl_rb_clock_monotonic(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC through the vDSO: no syscall, the kernel's clock. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The TSC, ordered: LFENCE waits for every earlier instruction (the load of
 * the reserve word in trawl_rb_reserve()) before RDTSC reads, as the vDSO's
 * rdtsc_ordered() does; a bare RDTSC may read before that load and give an
 * event at a later position an earlier time. 0 where there is no TSC (the
 * session daemon never picks it there).
 */
static inline uint64_t trawl_rb_clock_tsc(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
#else
	return 0;
#endif
}

/* The TSC, not ordered after earlier loads: only where something else makes
 * an early read harmless (trawl_rb_reserve_try()). */
static inline uint64_t trawl_rb_clock_tsc_unordered(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#else
	return 0;
#endif
}

/* The time of @rb's clock now (a producer's; or any process's when the clock
 * is not APP: trawl_rb_flush() checks). */
static inline uint64_t trawl_rb_clock(const struct trawl_rb *rb)
{
	if (__builtin_expect(rb->clock == TRAWL_RB_CLOCK_TSC, 1))
		return trawl_rb_clock_tsc();
	if (__builtin_expect(rb->read_clock != NULL, 0))
		return rb->read_clock();
	return trawl_rb_clock_monotonic();
}

/* The slot's commit count: the sum of its two (top comment). Acquire:
 * pairs with every writer's release add to either. */
static inline uint64_t trawl_rb_committed(const struct trawl_rb_meta *m)
{
	uint64_t a = __atomic_load_n(&m->commit, __ATOMIC_ACQUIRE);

	return a + __atomic_load_n(&m->commit_cpu, __ATOMIC_ACQUIRE);
}

/*
 * Overwrite mode: whether every byte of the previous use of the slot starting
 * at @slot_pos was committed. That use is complete when the slot's cumulative
 * commit count equals use * S; positions are modulo 2^36, so both sides are
 * compared modulo 2^36 / n.
 */
static inline int trawl_rb_slot_free(struct trawl_rb *rb, uint64_t slot_pos)
{
	uint32_t nshift = (uint32_t)__builtin_ctz(rb->num_subbuf);
	uint64_t slot = (slot_pos >> rb->subbuf_shift) & (rb->num_subbuf - 1);
	uint64_t mask = TRAWL_RB_POS_MASK >> nshift;
	uint64_t commit = trawl_rb_committed(&rb->ctrl->meta[slot]);
	uint64_t want = ((slot_pos - (slot << rb->subbuf_shift)) & TRAWL_RB_POS_MASK) >> nshift;

	return (commit & mask) == (want & mask);
}

/* Slow path of a reservation: the switch bookkeeping (ringbuffer.c); the
 * closer of a packet wakes the consumer if it sleeps (trawl_rb_wake()). */
void trawl_rb_switch_out(struct trawl_rb *rb, uint64_t old_pos, uint64_t ts);
void trawl_rb_switch_in(struct trawl_rb *rb, uint64_t slot_pos, uint64_t ts);

/* Writes an event header (layout.h) of @hlen bytes at @p; returns its end. */
static inline char *trawl_rb_write_header(char *p, uint32_t id, uint64_t ts, uint64_t hlen)
{
	if (hlen == TRAWL_CTF_COMPACT_HEADER_SIZE) {
		/* Little-endian word: 5-bit id low, 27-bit timestamp high. */
		uint32_t h = (uint32_t)((ts & ((1u << TRAWL_CTF_COMPACT_TS_BITS) - 1)) << 5) | id;

		memcpy(p, &h, 4);
	} else {
		p[0] = (char)TRAWL_CTF_EXTENDED_ID;
		memcpy(p + 1, &id, 4);
		memcpy(p + 5, &ts, 8);
	}
	return p + hlen;
}

/*
 * trawl_rb_reserve - reserve room for one event and write its header
 * @id: the event id (compact header when <= 30)
 * @payload: payload bytes
 *
 * Returns 0 with @ctx filled (the caller must write the payload at ctx->p
 * and call trawl_rb_commit()), or -1 when the event was dropped (buffer full
 * in discard mode, or too large for a sub-buffer); the drop is counted.
 * With rb->wait_full, a full buffer in discard mode returns TRAWL_RB_FULL
 * instead, counting nothing: the caller may wait for the consumer and try
 * again, and counts the event with trawl_rb_count_full() if it gives up.
 * Never blocks, never allocates; lock-free.
 */
static inline int trawl_rb_reserve(struct trawl_rb *rb, uint32_t id, uint64_t payload, struct trawl_rb_ctx *ctx)
{
	struct trawl_rb_ctrl *c = rb->ctrl;
	const uint64_t S = rb->subbuf_size;
	uint64_t old, pos, off, begin, ts, tsh, hlen, len, word;
	int sw_in, sw_out;

	/* Acquire (here and on CAS failure): the clock is read after the load
	 * of the word, and the CAS below fails if any event was reserved in
	 * between, so a later position never holds an earlier timestamp. The
	 * acquire keeps the clock's reads (vDSO data, then an ordered rdtsc)
	 * from moving above the load. Free on x86. */
	old = __atomic_load_n(&c->reserve, __ATOMIC_ACQUIRE);
	for (;;) {
		ts = trawl_rb_clock(rb);
		tsh = (ts >> TRAWL_RB_TS_SHIFT) & TRAWL_RB_TSH_MASK;
		pos = old & TRAWL_RB_POS_MASK;
		off = pos & (S - 1);
		sw_out = sw_in = 0;
		/* Compact when the reader can rebuild the time from the previous
		 * event (same ts_high), or from timestamp_begin in a new packet. */
		hlen = (id <= TRAWL_CTF_COMPACT_ID_MAX && tsh == old >> TRAWL_RB_POS_BITS)
			       ? TRAWL_CTF_COMPACT_HEADER_SIZE
			       : TRAWL_CTF_EXTENDED_HEADER_SIZE;
		len = hlen + payload;
		if (off == 0 || off + len >= S) {
			/* A new packet: its first event is rebuilt from
			 * timestamp_begin == ts, so compact is exact. */
			hlen = id <= TRAWL_CTF_COMPACT_ID_MAX ? TRAWL_CTF_COMPACT_HEADER_SIZE
							      : TRAWL_CTF_EXTENDED_HEADER_SIZE;
			len = hlen + payload;
			if (__builtin_expect(len >= S - TRAWL_RB_PACKET_START, 0)) {
				/* Relaxed: a counter, read by the closer of a packet. */
				__atomic_fetch_add(&c->lost_big, 1, __ATOMIC_RELAXED);
				return -1;
			}
			sw_out = off != 0;
			sw_in = 1;
			begin = (pos - off + (off ? S : 0)) & TRAWL_RB_POS_MASK;
			if (!rb->overwrite) {
				/* Acquire: pairs with the consumer's release store
				 * of consumed; its reads of this slot are done
				 * before we write it. */
				uint64_t cons = __atomic_load_n(&c->consumed, __ATOMIC_ACQUIRE);

				if (((begin - cons) & TRAWL_RB_POS_MASK) >=
				    (uint64_t)rb->num_subbuf << rb->subbuf_shift) {
					if (rb->wait_full)
						return TRAWL_RB_FULL;
					__atomic_fetch_add(&c->lost_full, 1, __ATOMIC_RELAXED);
					return -1;
				}
			} else if (!trawl_rb_slot_free(rb, begin)) {
				/* A writer of the slot's previous use is still
				 * writing (preempted): entering would let its late
				 * bytes land in our packet. Drop, as LTTng does. */
				__atomic_fetch_add(&c->lost_full, 1, __ATOMIC_RELAXED);
				return -1;
			}
			begin += TRAWL_RB_PACKET_START;
		} else {
			begin = pos;
		}
		word = tsh << TRAWL_RB_POS_BITS | ((begin + len) & TRAWL_RB_POS_MASK);
		/* Acquire on failure, for the clock read of the next try (see
		 * above). Acquire-release on success: the word is how what a
		 * switcher learned (the consumer released the slot: its acquire
		 * of consumed, or the previous use fully committed) reaches the
		 * threads reserving after it, which then write the slot and its
		 * meta; every later CAS is in this release sequence. Found by
		 * TSan; free on x86. The event's bytes themselves are published
		 * by the commit's release add. */
		if (__atomic_compare_exchange_n(&c->reserve, &old, word, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
	}
	if (__builtin_expect(sw_in, 0)) {
		if (sw_out)
			trawl_rb_switch_out(rb, pos, ts);
		trawl_rb_switch_in(rb, begin - TRAWL_RB_PACKET_START, ts);
	}
	{
		uint64_t slot = (begin >> rb->subbuf_shift) & (rb->num_subbuf - 1);
		char *p = rb->data + (slot << rb->subbuf_shift) + (begin & (S - 1));

		ctx->p = trawl_rb_write_header(p, id, ts, hlen);
		ctx->meta = &c->meta[slot];
		ctx->len = len;
	}
	return 0;
}

/*
 * What a writer remembers of the last event it reserved through
 * trawl_rb_reserve_try(), in its own memory (libtrawl-ust: one per
 * thread): the stream (its trawl_rb's serial), the reserve word its CAS
 * stored, and the event's timestamp. It stays true for as long as the
 * stream's word is that one: positions only grow (a word comes back only
 * after 2^36 bytes, with the same ts_high, within 2^27 cycles: never), so
 * while the word is unchanged, no event was reserved after that one.
 */
struct trawl_rb_last {
	uint64_t serial; /* 0: nothing remembered */
	uint64_t word;
	uint64_t ts;
};

/* trawl_rb_reserve_try(): not the common case, nothing done. */
#define TRAWL_RB_TRY_SLOW 1

/*
 * trawl_rb_reserve_try - the common case of trawl_rb_reserve(), inline
 * @last: the writer's memory of its last event (see above), or NULL
 *
 * The common case: the stream's clock is the TSC or CLOCK_MONOTONIC (not
 * an app's own clock) and the event fits in the packet in progress (no
 * switch). Then a reservation is one load of the reserve word, a clock
 * read, one CAS and the header; it is the computation of
 * trawl_rb_reserve()'s loop for begin == pos, in the same order, with the
 * same memory orders (see there why each is needed). Returns 0 with @ctx
 * filled as trawl_rb_reserve() fills it, or TRAWL_RB_TRY_SLOW for any other
 * case and for a CAS lost to another writer: then the caller calls
 * trawl_rb_reserve(), which starts over from a fresh load of the word
 * (nothing this attempt did is visible until its CAS succeeds, so giving up
 * before is free). Two functions rather than one that calls the other: the
 * caller keeps @ctx in registers on its fast path.
 *
 * The clock read, unordered when the last event of the stream is the
 * writer's own. An event's timestamp must be at least that of the event
 * before it in the stream (the reader rebuilds compact timestamps from the
 * previous one) and at most the clock at its CAS (so that the next writer,
 * whose clock read comes after its load of our word, is not earlier).
 * trawl_rb_reserve() gets both by ordering its clock read after its load of
 * the word (LFENCE before RDTSC): a writer on another CPU whose CAS lands
 * while our load waits for the cache line must not be older than us. That
 * LFENCE cost 13 of the 22 ns that the load, the clock, the CAS and the
 * commit take together on the dev VM (Zen, min of 200 x 100,000 loops:
 * 9.5 ns without it): it waits for every earlier instruction, the chain of
 * loads that finds the stream included, and nothing overlaps it. When
 * @last says the word loaded is the one this writer's previous event
 * stored, and the CAS below confirms nobody reserved since, the event
 * before ours is that previous one, whose time @last holds: the TSC read
 * unordered, raised to that time if it is below, is at least the previous
 * event's, and is at most the clock at our CAS, which cannot execute before
 * the read it depends on (its new word holds ts_high). With @last NULL, or
 * another stream's, or an older word (someone else reserved since: another
 * thread, a signal handler's event, the consumer's flush), the read is
 * ordered as in trawl_rb_reserve().
 *
 * @last is updated after a successful CAS here (not by trawl_rb_reserve():
 * a stale memory only costs the LFENCE once). Whoever shares one @last must
 * not interleave its use: libtrawl-ust's per-thread one is used by the
 * outermost event of its thread only, not by a signal handler's event that
 * interrupted one (src/ust/fastpath.c).
 *
 * The CAS keeps its lock prefix: the reserve word is also written by
 * writers on other CPUs (a thread migrated since it picked the stream, a
 * modulo stream when the buffers have fewer streams than the machine CPUs,
 * a process without rseq) and by the consumer's flush, from another
 * process. No user-space means (rseq restarts only the threads of one CPU,
 * membarrier's only those of one process) makes a plain store safe against
 * those.
 */
static inline __attribute__((always_inline)) int trawl_rb_reserve_try(struct trawl_rb *rb, uint32_t id,
								     uint64_t payload, struct trawl_rb_ctx *ctx,
								     struct trawl_rb_last *last)
{
	struct trawl_rb_ctrl *c = rb->ctrl;
	const uint64_t S = rb->subbuf_size;
	uint64_t old, pos, ts, tsh, hlen, len, word, at;
	char *p;

	if (__builtin_expect(rb->clock == TRAWL_RB_CLOCK_TSC, 1)) {
		/* Acquire: as in trawl_rb_reserve(). */
		old = __atomic_load_n(&c->reserve, __ATOMIC_ACQUIRE);
		if (last && last->serial == rb->serial && last->word == old) {
			ts = trawl_rb_clock_tsc_unordered();
			if (__builtin_expect(ts < last->ts, 0))
				ts = last->ts;
		} else {
			ts = trawl_rb_clock_tsc();
		}
	} else if (rb->clock == TRAWL_RB_CLOCK_MONOTONIC) {
		/* Acquire: as in trawl_rb_reserve() (the vDSO's own reads are
		 * ordered: the hardware counter after its data). Nothing to
		 * remember in @last: this read is always ordered. */
		old = __atomic_load_n(&c->reserve, __ATOMIC_ACQUIRE);
		ts = trawl_rb_clock_monotonic();
		last = NULL;
	} else {
		return TRAWL_RB_TRY_SLOW;
	}
	tsh = (ts >> TRAWL_RB_TS_SHIFT) & TRAWL_RB_TSH_MASK;
	pos = old & TRAWL_RB_POS_MASK;
	hlen = (id <= TRAWL_CTF_COMPACT_ID_MAX && tsh == old >> TRAWL_RB_POS_BITS) ? TRAWL_CTF_COMPACT_HEADER_SIZE
										: TRAWL_CTF_EXTENDED_HEADER_SIZE;
	len = hlen + payload;
	/*
	 * No switch: trawl_rb_reserve()'s off != 0 && off + len < S (off =
	 * pos & (S - 1)), that is pos - 1 and pos + len in the same
	 * sub-buffer, their bits from log2(S) up equal. (pos 0: pos - 1 wraps
	 * to all ones, never equal; pos + len stays below 2^64.) Then the
	 * event ends inside this sub-buffer, so pos + len is below the next
	 * multiple of S, at most 2^36: no wrap to mask.
	 */
	at = pos + len;
	word = tsh << TRAWL_RB_POS_BITS | at;
	/* Acquire-release on success, acquire on failure: trawl_rb_reserve()'s
	 * CAS, whose release sequence this one is part of. */
	if (__builtin_expect(((pos - 1) ^ at) >= S, 0) ||
	    __builtin_expect(!__atomic_compare_exchange_n(&c->reserve, &old, word, 0, __ATOMIC_ACQ_REL,
							   __ATOMIC_ACQUIRE),
			     0))
		return TRAWL_RB_TRY_SLOW;
	if (last) {
		last->serial = rb->serial;
		last->word = word;
		last->ts = ts;
	}
	/* The slot: the sub-buffer of pos within the n * S bytes. */
	at = pos & rb->buf_mask;
	p = rb->data + at;
	ctx->p = trawl_rb_write_header(p, id, ts, hlen);
	ctx->meta = &c->meta[at >> rb->subbuf_shift];
	ctx->len = len;
	return 0;
}

/* An event dropped after TRAWL_RB_FULL (the buffer stayed full). */
static inline void trawl_rb_count_full(struct trawl_rb *rb)
{
	__atomic_fetch_add(&rb->ctrl->lost_full, 1, __ATOMIC_RELAXED);
}

/* Publishes the event: pairs with the consumer's acquire load of the count. */
static inline void trawl_rb_commit(struct trawl_rb_ctx *ctx)
{
	__atomic_fetch_add(&ctx->meta->commit, ctx->len, __ATOMIC_RELEASE);
}

/*
 * Closes the current partial packet (from a producer or the consumer).
 * @empty_ok: when the stream is at a packet boundary (no event reserved
 * since the last packet was closed), produce an empty packet: the final
 * flush's, so the last discarded count gets written, and a live session's
 * timer's, so the trace says the stream is quiet up to now ("beacon"). An
 * empty packet has content_end = TRAWL_RB_PACKET_START, ts_begin == ts_end
 * = the clock read before the CAS that cut it (so no later event of the
 * stream is older: a reservation that read its clock earlier fails its CAS
 * and reads it again), and discarded = the running count.
 * Returns 0, or -EAGAIN when the next sub-buffer is not free (discard
 * mode), or -EBUSY when the reserve word kept changing (1000 tries).
 *
 * A process that cannot read the stream's clock (APP clock, read_clock
 * NULL: the consumer) cuts nothing here, and returns 0: the app closes its
 * own packets (when it stops and when it exits, src/ust/agent.c), so
 * timers, live beacons and snapshots leave an APP-clock stream's packet in
 * progress alone. trawl_rb_reader_flush_final() still closes what is left
 * (ringbuffer.c: with which times).
 */
int trawl_rb_flush(struct trawl_rb *rb, int empty_ok);

/* ---- consumer side (one thread per stream) ---- */

struct trawl_rb_reader {
	struct trawl_rb rb;
	uint64_t count;       /* packets consumed so far = next packet_seq_num */
	uint64_t forced;      /* bytes of a packet forced complete by a final flush, or 0 */
	int holding;          /* a packet is out (get without put) */
	char *copy;           /* overwrite mode: private copy of one sub-buffer */
	uint64_t corrupt;
	uint64_t discarded;   /* the highest events_discarded given out so far */
	uint8_t uuid[16];
	uint32_t stream_id;
	uint64_t stream_instance_id;
	int keep;             /* 1: puts do not hand packets back to the writers
				 (a snapshot that leaves the buffer as it was) */
	/* An empty packet's header and context, given out from here rather
	 * than written in its slot: a stream whose CPU never traced then never
	 * has a page of its sub-buffers allocated (trawl_rb_reader_get()). */
	uint8_t empty[TRAWL_RB_PACKET_START];
};

struct trawl_rb_packet {
	const void *data;     /* content_size bytes, the header filled in */
	uint64_t packet_size;
	uint64_t content_size;
	uint64_t ts_begin;
	uint64_t ts_end;
	uint64_t discarded;
	uint64_t seq;
};

int trawl_rb_reader_init(struct trawl_rb_reader *r);
void trawl_rb_reader_fini(struct trawl_rb_reader *r);
/* 0, -EAGAIN (nothing ready), -EPROTO (corrupt packet skipped). */
int trawl_rb_reader_get(struct trawl_rb_reader *r, struct trawl_rb_packet *pkt);
int trawl_rb_reader_put(struct trawl_rb_reader *r);
/*
 * trawl_rb_reader_resume - a reader taking over a stream whose reader died
 * (a consumer killed while the apps kept writing: the memfd outlives it)
 *
 * Sets r->count, the next packet to take, from what the dead reader left
 * in shared memory: ctrl->consumed (stored at each put) gives it modulo
 * 2^36 / S packets; the producers' position and the commit count of its
 * slot (cumulative over the slot's uses, 64 bits) give the absolute
 * generation, so packet_seq_num and the commit checks carry on exactly as
 * if the reader had never died, however far the stream is; and
 * ctrl->consumed_discarded, the highest events_discarded it gave out, so
 * that the count given out never goes down across the two readers either. Call right
 * after trawl_rb_reader_init(). Returns the new r->count. Nothing read here
 * is trusted: a scribbled control page only makes the count wrong, which
 * the reader then sees as corrupt packets.
 */
uint64_t trawl_rb_reader_resume(struct trawl_rb_reader *r);
/*
 * trawl_rb_reader_arm - before the consumer sleeps on @r's stream
 *
 * Arms the stream (its next closed packet wakes the consumer, top comment),
 * then looks: returns TRAWL_RB_ARM_PENDING when a packet it has not taken
 * is closed (ready, or its writers still committing: then no wake-up will
 * come for it, the consumer polls again soon), and TRAWL_RB_ARM_LEGACY when
 * writers that cannot wake it were given the stream (ctrl->wake_legacy:
 * the consumer polls it); 0: it may sleep until woken.
 */
#define TRAWL_RB_ARM_PENDING 1
#define TRAWL_RB_ARM_LEGACY 2
int trawl_rb_reader_arm(struct trawl_rb_reader *r);
/* Final flush: close the partial packet, wait up to @wait_ms for writers
 * still committing, then force what is committed. */
int trawl_rb_reader_flush_final(struct trawl_rb_reader *r, int wait_ms);
uint64_t trawl_rb_lost(const struct trawl_rb *rb);
/* The part of trawl_rb_lost() a tally counted (ctrl->lost_tally, at most lost_full). */
uint64_t trawl_rb_lost_tally(const struct trawl_rb *rb);

#endif /* TRAWL_RINGBUFFER_H */
