/* SPDX-License-Identifier: MIT */
/*
 * crash.c - the packets of a dead stream's buffer file (crash.h). Runs on a
 * private copy: no writer is left, nothing here is atomic.
 *
 * Which packets: the reserve word gives the position where the writers
 * stopped, hence the packet being written (or, at a sub-buffer boundary,
 * the one just closed) modulo 2^36 / S; the commit count of its slot gives
 * its generation (as trawl_rb_reader_resume() does), hence its absolute
 * number L. Packets L - n + 1 .. L are in distinct slots; each is whole
 * when its slot's cumulative commit count is exactly (generation + 1) * S.
 * The open packet L ends where its commits end.
 */
#include "ringbuffer/crash.h"

#include <errno.h>
#include <string.h>

#include "ringbuffer/ringbuffer.h"

/* A slot's commit count: the sum of its two (ringbuffer.h; commit_cpu is
 * 0 in a version 1 file). Modulo 2^64, as the writers added. */
static uint64_t committed(const struct trawl_rb_meta *m)
{
	return m->commit + m->commit_cpu;
}

/* The absolute number of the packet at position @pos (as resume does). */
static uint64_t packet_number(const struct trawl_rb_ctrl *c, uint64_t pos, uint32_t shift, uint32_t n)
{
	uint32_t nshift = trawl_rb_log2(n);
	uint64_t qmask = (TRAWL_RB_POS_MASK >> shift) >> nshift;
	uint64_t cur = pos >> shift, slot = cur & (n - 1);
	uint64_t g = committed(&c->meta[slot]) >> shift, gen;

	if (((g + 1) & qmask) == ((cur >> nshift) & qmask))
		gen = g + 1;
	else if (g && ((g - 1) & qmask) == ((cur >> nshift) & qmask))
		gen = g - 1;
	else
		gen = g;
	return (gen << nshift) + slot;
}

/*
 * The end time of the open packet: its events' times are not known without
 * their layouts, but the reserve word holds bits 27..54 of the last one's
 * ("ts_high"), so the end of that 2^27-tick window is no earlier than it and
 * less than 2^27 ticks later. The upper bits come from the packet's begin.
 */
static uint64_t open_packet_end(uint64_t word, uint64_t ts_begin)
{
	const uint64_t win = UINT64_C(1) << TRAWL_RB_TS_SHIFT;
	uint64_t tsh = word >> TRAWL_RB_POS_BITS, base = ts_begin >> TRAWL_RB_TS_SHIFT;
	uint64_t high = base + ((tsh - base) & TRAWL_RB_TSH_MASK);

	if (high > UINT64_MAX / win - 1)
		return ts_begin;
	return high * win + (win - 1);
}

struct walk {
	struct trawl_rb_ctrl *c;
	char *data;
	uint64_t S;
	uint32_t n, shift;
	uint64_t discarded; /* the highest count given so far */
};

/* Fills packet @q's header and context in its slot, @content bytes long. */
static void fill(struct walk *w, uint64_t q, uint64_t content, uint64_t ts_begin, uint64_t ts_end,
		 uint64_t discarded)
{
	struct trawl_ctf_packet_start ps;
	char *base = w->data + ((q & (w->n - 1)) << w->shift);

	if (discarded < w->discarded)
		discarded = w->discarded; /* never goes down (readers take differences) */
	w->discarded = discarded;
	memset(&ps, 0, sizeof(ps));
	ps.header.magic = TRAWL_CTF_MAGIC;
	memcpy(ps.header.uuid, w->c->uuid, sizeof(ps.header.uuid));
	ps.header.stream_id = w->c->stream_id;
	ps.header.stream_instance_id = w->c->cpu;
	ps.context.timestamp_begin = ts_begin;
	ps.context.timestamp_end = ts_end < ts_begin ? ts_begin : ts_end;
	ps.context.content_size = content * 8;
	ps.context.packet_size = content * 8;
	ps.context.packet_seq_num = q;
	ps.context.events_discarded = discarded;
	ps.context.cpu_id = w->c->cpu;
	memcpy(base, &ps, sizeof(ps));
}

int trawl_rb_crash_packets(void *buf, size_t len, int (*emit)(void *arg, const void *pkt, size_t size),
			   void *arg, struct trawl_rb_crash_stats *st)
{
	struct trawl_rb_crash_stats dummy;
	struct walk w;
	uint64_t word, pos, off, last, first, k, lost;
	int ret;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (len < sizeof(struct trawl_rb_ctrl))
		return -EINVAL;
	w.c = buf;
	if (w.c->magic != TRAWL_RB_MAGIC || (w.c->version < 1 || w.c->version > TRAWL_RB_VERSION) || w.c->overwrite > 1 ||
	    trawl_rb_check_attr(w.c->subbuf_size, w.c->num_subbuf))
		return -EINVAL;
	/* Sizes checked (n * S <= 2^32): these cannot overflow. */
	if ((uint64_t)len != trawl_rb_shm_size(w.c->subbuf_size, w.c->num_subbuf))
		return -EINVAL;
	w.S = w.c->subbuf_size;
	w.n = w.c->num_subbuf;
	w.shift = trawl_rb_log2(w.S);
	w.data = (char *)buf + trawl_rb_ctrl_size(w.n);
	w.discarded = 0;
	st->subbuf_size = w.S;
	st->num_subbuf = w.n;
	st->overwrite = w.c->overwrite;

	word = w.c->reserve;
	pos = word & TRAWL_RB_POS_MASK;
	off = pos & (w.S - 1);
	last = packet_number(w.c, pos, w.shift, w.n);
	if (off == 0) {
		if (last == 0)
			return 0; /* (a reserve word of 0: nothing was ever cut) */
		last--;   /* at a boundary: the packet before is the last one */
	}
	first = last >= w.n - 1 ? last - (w.n - 1) : 0;
	lost = w.c->lost_full + w.c->lost_big;
	if (lost < w.c->lost_full)
		lost = UINT64_MAX;
	/* Counted, not compared: a lying commit count can put @last anywhere,
	 * UINT64_MAX included (q <= last would then never end). */
	for (k = 0; k <= last - first; k++) {
		uint64_t q = first + k;
		struct trawl_rb_meta *m = &w.c->meta[q & (w.n - 1)];
		uint64_t want = (q >> trawl_rb_log2(w.n)) * w.S, content, ts_end, discarded;
		int open = q == last && off != 0;
		uint64_t commit = committed(m);

		if (!open) {
			if (commit != want + w.S) {
				st->skipped++;
				continue;
			}
			content = m->content_end;
			ts_end = m->ts_end;
			discarded = m->discarded;
		} else {
			/* The commits of the writers that were still running: all
			 * of the reserved bytes, or (a writer killed in the middle of
			 * an event) what was committed, in order for one writer. */
			if (commit < want || commit - want > w.S) {
				st->skipped++;
				continue;
			}
			content = commit - want;
			if (content > off)
				content = off;
			ts_end = open_packet_end(word, m->ts_begin);
			discarded = lost;
		}
		if (content < TRAWL_RB_PACKET_START || content > w.S) {
			st->skipped++;
			continue;
		}
		fill(&w, q, content, m->ts_begin, ts_end, discarded);
		st->packets++;
		st->partial += (uint64_t)open;
		ret = emit ? emit(arg, w.data + ((q & (w.n - 1)) << w.shift), content) : 0;
		if (ret)
			return ret;
	}
	return 0;
}
