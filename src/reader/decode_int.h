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

#include <errno.h>
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

/*
 * One field's bytes, bounds-checked, with the integer's side effects: the
 * steps the tree walkers (field.c prints, values.c lists) share. The plan
 * interpreter has its own, specialised copies (plan_exec.h).
 */
static inline int rd_decode_int(struct dctx *d, const struct fc *fc, uint64_t *out)
{
	struct rd_stream *s = d->s;
	uint64_t v;

	if (fc->align > 1 && do_align(d, fc->align))
		return -EINVAL;
	if (need(d, fc->size))
		return -EINVAL;
	v = read_bits(d->pkt, s->pos, fc->size, fc->big_endian);
	s->pos += fc->size;
	if (fc->is_signed && fc->size < 64 && (v >> (fc->size - 1)) & 1)
		v |= ~0ULL << fc->size;
	if (fc->slot >= 0 || fc->map || fc->meaning)
		int_side_effects(s, fc, v);
	*out = v;
	return 0;
}

static inline int rd_decode_float(struct dctx *d, const struct fc *fc, double *out)
{
	struct rd_stream *s = d->s;
	uint64_t v;

	if (do_align(d, fc->align) || need(d, fc->size))
		return -EINVAL;
	v = read_bits(d->pkt, s->pos, fc->size, fc->big_endian);
	s->pos += fc->size;
	if (fc->size == 32) {
		float f;
		uint32_t u = (uint32_t)v;

		memcpy(&f, &u, 4);
		*out = (double)f;
	} else {
		memcpy(out, &v, 8);
	}
	return 0;
}

/* A NUL-terminated string: its bytes (@len of them before the NUL). */
static inline int rd_decode_string(struct dctx *d, const char **str, size_t *len)
{
	struct rd_stream *s = d->s;
	const uint8_t *start, *nul;

	if (do_align(d, 8))
		return -EINVAL;
	start = d->pkt + s->pos / 8;
	nul = memchr(start, 0, (d->end - s->pos) / 8);
	if (!nul)
		return rd_derr(d, "string is not terminated before the end of the packet content");
	*str = (const char *)start;
	*len = (size_t)(nul - start);
	s->pos += (uint64_t)(nul - start + 1) * 8;
	return 0;
}

/* A text array of @n bytes, shown cut at its first NUL (@len bytes). */
static inline int rd_decode_text_array(struct dctx *d, uint64_t n, const char **str,
				       size_t *len)
{
	struct rd_stream *s = d->s;
	const uint8_t *start;
	const void *nul;

	if (do_align(d, 8))
		return -EINVAL;
	if (n > (d->end - s->pos) / 8)
		return rd_derr(d, "text array extends past the end of the packet content");
	start = d->pkt + s->pos / 8;
	nul = memchr(start, 0, n);
	*str = (const char *)start;
	*len = nul ? (size_t)((const uint8_t *)nul - start) : n;
	s->pos += n * 8;
	return 0;
}

/*
 * The NUL ending the string at @start, of which @avail bytes may be read,
 * or NULL. Most strings are short: eight bytes at a time (SWAR, never past
 * @avail) for the first 64, memchr for the rest.
 */
static inline const uint8_t *rd_find_nul(const uint8_t *start, uint64_t avail)
{
	uint64_t k, lim = avail < 64 ? avail : 64;

	for (k = 0; k + 8 <= lim; k += 8) {
		uint64_t x, z;

		memcpy(&x, start + k, 8);
		z = (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;
		if (z)
			return start + k + (__builtin_ctzll(z) >> 3);
	}
	for (; k < lim; k++)
		if (!start[k])
			return start + k;
	return avail > 64 ? memchr(start + 64, 0, avail - 64) : NULL;
}

/*
 * Runs body plan @pl printing into @t (not NULL): plan_text.c's runner
 * when the plan is of its kind, else rd_plan_exec().
 */
int rd_plan_exec_text(struct dctx *d, const struct plan *pl, struct rd_text *t);

/*
 * rd_stream_body_key() printing into @t (not NULL), inline for the text
 * line: the body's plan run here, anything else (no plan) there.
 */
static inline int rd_stream_body_text(struct rd_stream *s, struct rd_text *t, unsigned key,
				      struct rd_err *err)
{
	struct dctx *d = &s->evd;
	const struct plan *pl = s->dev->plans[key];

	if (trawl_unlikely(!pl || !s->body_pending))
		return rd_stream_body_key(s, t, key, err);
	s->body_pos = s->pos;
	s->body_pending = false;
	d->err = err;
	if (rd_plan_exec_text(d, pl, t))
		return -EINVAL;
	if (trawl_unlikely(s->pos == s->ev_pos))
		return rd_derr(d, "event has zero size");
	return 0;
}

/* The option variant @fc selects by its tag's last value. */
int rd_variant_option(struct dctx *d, const struct fc *fc, uint32_t *option);
/* The error when no option has the tag's value (cold). */
__attribute__((cold)) int rd_variant_error(struct dctx *d, uint64_t tag);
/*
 * Elements of an empty structure take no bits: up to this many of them
 * are allowed in an array whatever the packet's size left.
 */
#define RD_MAX_EMPTY_ELEMS (1u << 20)
/* @fc takes no bits (structures and arrays of nothing). */
bool rd_fc_is_empty(const struct fc *fc);
/*
 * The length of array or sequence @fc, checked against what is left of the
 * packet (aligned first): every element takes a bit at least, unless it is
 * empty (then up to a bound).
 */
int rd_array_length(struct dctx *d, const struct fc *fc, uint64_t *n);

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
