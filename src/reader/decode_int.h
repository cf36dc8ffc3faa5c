/* SPDX-License-Identifier: MIT */
/*
 * Shared by the decoders: the per-call decode context, bounds-checked bit
 * reads, and the side effects of integers (slots, clock, meanings). Two
 * decoders use them: field.c walks field class trees (the reference, and
 * the fallback for deep nesting), plan.c runs the flat decode plans that
 * the hot path uses.
 */
#ifndef TRAWL_READER_DECODE_INT_H
#define TRAWL_READER_DECODE_INT_H

#include <inttypes.h>
#include <string.h>

#include "reader/stream.h"

int rd_derr(struct dctx *d, const char *what);

static inline uint64_t align_up(uint64_t pos, uint32_t align)
{
	return (pos + align - 1) & ~((uint64_t)align - 1);
}

static inline uint64_t read_bits(const uint8_t *p, uint64_t pos, uint32_t size,
				 bool be)
{
	const uint8_t *b = p + (pos >> 3);
	unsigned shift = pos & 7;
	unsigned nbytes = (shift + size + 7) >> 3;
	unsigned __int128 acc = 0;
	unsigned i;
	uint64_t mask = size == 64 ? ~0ULL : (1ULL << size) - 1;

	if (!shift && !(size & 7)) {
		uint64_t v = 0;

		switch (size) {
		case 8:
			return b[0];
		case 16: {
			uint16_t x;

			memcpy(&x, b, 2);
			return be ? __builtin_bswap16(x) : x;
		}
		case 32: {
			uint32_t x;

			memcpy(&x, b, 4);
			return be ? __builtin_bswap32(x) : x;
		}
		case 64:
			memcpy(&v, b, 8);
			return be ? __builtin_bswap64(v) : v;
		default:
			break;
		}
	}
	if (be) {
		for (i = 0; i < nbytes; i++)
			acc = acc << 8 | b[i];
		return (uint64_t)(acc >> (nbytes * 8 - shift - size)) & mask;
	}
	for (i = nbytes; i-- > 0;)
		acc = acc << 8 | b[i];
	return (uint64_t)(acc >> shift) & mask;
}

static inline int need(struct dctx *d, uint64_t bits)
{
	struct rd_stream *s = d->s;

	if (s->pos > d->end || bits > d->end - s->pos)
		return rd_derr(d, "field extends past the end of the packet content");
	return 0;
}

static inline int do_align(struct dctx *d, uint32_t align)
{
	struct rd_stream *s = d->s;
	uint64_t p = align_up(s->pos, align);

	if (p > d->end)
		return rd_derr(d, "alignment padding extends past the end of the packet content");
	s->pos = p;
	return 0;
}

static inline void clock_update(struct rd_stream *s, const struct fc *fc, uint64_t v)
{
	if (fc->size >= 64) {
		s->clock = v;
	} else {
		uint64_t mask = (1ULL << fc->size) - 1;
		uint64_t low = s->clock & mask;
		uint64_t nv = (s->clock & ~mask) | v;

		if (v < low)
			nv += mask + 1;
		s->clock = nv;
	}
}

static inline void int_side_effects(struct rd_stream *s, const struct fc *fc,
				    uint64_t v)
{
	if (fc->slot >= 0)
		s->slots[fc->slot] = v;
	if (fc->map)
		clock_update(s, fc, v);
	switch (fc->meaning) {
	case M_NONE:
		break;
	case M_EVENT_ID:
		s->cur_event_id = v;
		break;
	case M_TS_BEGIN:
		s->has_ts_begin = true;
		s->ts_begin = v;
		break;
	case M_TS_END:
		s->has_ts_end = true;
		s->ts_end = v;
		break;
	case M_CONTENT_SIZE:
		s->content_bits = v;
		break;
	case M_PACKET_SIZE:
		s->pkt_bits = v;
		break;
	case M_DISCARDED:
		s->has_disc = true;
		s->disc = v;
		break;
	case M_SEQ_NUM:
		s->has_seq = true;
		s->seq = v;
		break;
	default:
		break;
	}
}

int rd_decode_fc(struct dctx *d, const struct fc *fc, struct rd_text *t);

/*
 * plan.c: decode plans, compiled on first use and cached by the decoder
 * (struct rd_dec): scope roots in a cache of three (mode 0 decode, 1 print,
 * 2 print with names), bodies in the event's rd_dec_event by key of
 * RD_BODY_* bits. NULL when a plan cannot be built (out of memory, huge
 * metadata, TRAWL_READER_NO_PLAN): use field.c then.
 */
void rd_plan_destroy(struct plan *pl);
struct plan *rd_plan_scope(struct plan **cache, const struct fc *root, int mode);
struct plan *rd_plan_body_compile(struct rd_dec_event *dev, unsigned key);
static inline struct plan *rd_plan_body(struct rd_dec_event *dev, unsigned key)
{
	return trawl_likely(dev->plans[key]) ? dev->plans[key] :
						rd_plan_body_compile(dev, key);
}
int rd_plan_exec(struct dctx *d, const struct plan *pl, struct rd_text *t);
int rd_plan_exec_header(struct dctx *d, const struct plan *pl);
/* Fills @hf (hf->ok false when the header plan @pl has another shape). */
void rd_plan_hdr_fast_init(const struct plan *pl, struct rd_hdr_fast *hf);
int rd_plan_exec_hdr_impl(struct dctx *d, const struct plan *pl,
			  struct rd_text *t);
/* Runs the scope plan of @root (cached in @cache), or field.c when there is none. */
int rd_plan_run(struct dctx *d, struct plan **cache, const struct fc *root,
		struct rd_text *t);

#endif /* TRAWL_READER_DECODE_INT_H */
