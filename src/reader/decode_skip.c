/* SPDX-License-Identifier: MIT */
/*
 * Decode-only in batches: rd_stream_skip_eager() steps over a run of
 * events of the current packet in one loop, for streams whose events
 * nobody reads (see stream.h). Whatever it cannot take the same way
 * rd_stream_next() would is left to rd_stream_next().
 */
#include <stdbool.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "common/common.h"
#include "reader/decode_fast.h"
#include "reader/decode_int.h"

/*
 * The body shape rd_stream_skip_eager() steps over without a loop: @pre
 * bits, a string when @str, @post bits (a rd_body_fast of one step, or of
 * two whose second has no string). False: another shape.
 */
struct skip_shape {
	uint64_t pre, post;
	bool str;
};

static bool skip_shape_of(const struct rd_body_fast *bf, struct skip_shape *sh)
{
	if (bf->nsteps < 1 || bf->nsteps > 2 || (bf->nsteps == 2 && bf->string[1]))
		return false;
	sh->pre = bf->skip[0];
	sh->str = bf->string[0];
	sh->post = bf->nsteps == 2 ? bf->skip[1] : 0;
	return true;
}

/*
 * What a string's length was at the event before (a guess for the next
 * one): the 16-byte compare's mask of zero bytes has @bit as its lowest
 * bit under @mask, and the string then takes @bits. None: a mask that no
 * compare matches (@mask 0, @bit 1).
 */
struct skip_guess {
	unsigned mask, bit;
	uint64_t bits;
};

static inline void skip_guess_set(struct skip_guess *gs, uint64_t bytes)
{
	if (bytes >= 1 && bytes <= 16) {
		gs->bit = 1u << (bytes - 1);
		gs->mask = (gs->bit << 1) - 1;
		gs->bits = 8 * bytes;
	} else {
		gs->mask = 0;
		gs->bit = 1;
		gs->bits = 0;
	}
}

#ifdef __SSE2__
#define SKIP_LANE 1
#else
#define SKIP_LANE 0
#endif

/*
 * The body of shape @sh from bit @b, which the caller knows is in the
 * content up to where a string under 16 bytes would end it: the bit
 * position after it, or UINT64_MAX (a longer string without its NUL).
 */
static inline __attribute__((always_inline)) uint64_t
lane_body_end(const uint8_t *pkt, uint64_t b, uint64_t end, const struct skip_shape *sh,
	      struct skip_guess *gs)
{
	b += sh->pre;
#ifdef __SSE2__
	if (sh->str) {
		const uint8_t *q = pkt + (b >> 3);
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()));

		if (trawl_likely((m & gs->mask) == gs->bit)) {
			b += gs->bits;
		} else if (m) {
			skip_guess_set(gs, (uint64_t)__builtin_ctz(m) + 1);
			b += gs->bits;
		} else {	/* 16 bytes or more */
			uint64_t e = string_end(q, b, (end - b) >> 3);

			if (e == UINT64_MAX)
				return UINT64_MAX;
			skip_guess_set(gs, (e - b) / 8);
			b = e;
			if (sh->post > end - b)
				return UINT64_MAX;
		}
	}
#else
	(void)pkt;
	(void)end;
	(void)gs;
#endif
	return b + sh->post;
}

/*
 * The loop of rd_stream_skip_eager(), for one header shape: @id_bytes and
 * @ts_bytes (byte-aligned), or @packed (one load of @id_bytes), constants
 * where it is inlined, so that each shape's loop loads its header without
 * a branch on its sizes. Returns how many events it took; the last one
 * starts at *@ev_pos.
 */
static inline __attribute__((always_inline)) uint64_t
skip_loop(struct rd_stream *s, uint64_t max, int64_t bound, bool packed, unsigned id_bytes,
	  unsigned ts_bytes, uint64_t *ev_pos_out)
{
	const struct rd_dec_sc *dsc = s->dsc;
	const struct rd_hdr_fast *hf = &dsc->hdr_fast;
	const struct clock_class *cc = dsc->clock;
	const bool direct = cc && cc->freq == 1000000000ULL;
	const int64_t base = direct ? cc->base_offset_ns : 0;
	const uint64_t bits = hf->bits, ts_mask = hf->ts_mask;
	const unsigned id_bits = hf->id_bits;
	const uint8_t *pkt = s->pkt;
	uint64_t pos = s->pos, end = s->content_bits, clock = s->clock;
	uint64_t n = 0, ev_pos = 0, cur_id = 0;
	const struct rd_dec_event *cur = NULL;
	struct skip_shape sh = { 0 };
	struct skip_guess gs;
	uint64_t lane = UINT64_MAX;	/* bits: the lane below when this much is left */

	skip_guess_set(&gs, 0);
	/* every step below is whole bytes: pos stays byte-aligned */
	while (n < max && pos < end) {
		uint64_t c, i, ts, b;
		const uint8_t *p;
		int64_t t;

		if (bits > end - pos)
			break;
		p = pkt + (pos >> 3);
		if (!packed) {
			i = load_le(p, id_bytes);
			ts = load_le(p + id_bytes, ts_bytes);
		} else {	/* the extended option: rd_stream_next() */
			uint64_t x = load_le(p, id_bytes);

			i = x & ((1ULL << id_bits) - 1);
			ts = (x >> id_bits) & ts_mask;
		}
		if (trawl_unlikely(!cur || i != cur_id)) {
			const struct rd_dec_event *e;

			if (i - hf->lo > hf->span || i >= dsc->nby_id)
				break;
			e = dsc->by_id[i];
			if (!e || !e->body_fast.ok)
				break;
			cur = e;
			cur_id = i;
			/* what an event of the class takes at most, its string 16
			 * bytes (without SSE2: no lane, every step checked) */
			lane = UINT64_MAX;
			if (SKIP_LANE && skip_shape_of(&e->body_fast, &sh))
				lane = bits + sh.pre + (sh.str ? 128 : 0) + sh.post;
			skip_guess_set(&gs, 0);
		}
		c = ts;
		if (ts_mask) {
			c = (clock & ~ts_mask) | ts;
			if (ts < (clock & ts_mask))
				c += ts_mask + 1;
		}
		t = 0;
		if (trawl_likely(direct)) {
			if (c > (uint64_t)INT64_MAX || __builtin_add_overflow(base, (int64_t)c, &t))
				break;
		} else if (cc) {
			bool ovf;

			t = clock_ns_from_origin(cc, c, &ovf);
			if (ovf)
				break;
		}
		if (t >= bound)	/* another stream's event may come first */
			break;
		b = pos + bits;
		/* near the packet's end (or without SSE2): each step checked */
		b = trawl_likely(lane <= end - pos) ? lane_body_end(pkt, b, end, &sh, &gs)
						    : body_fast_end(pkt, b, end, &cur->body_fast);
		if (b == UINT64_MAX)
			break;
		ev_pos = pos;
		pos = b;
		clock = c;
		n++;
	}
	if (n) {
		s->pos = pos;
		s->clock = clock;
	}
	*ev_pos_out = ev_pos;
	return n;
}

/*
 * Decodes up to @max events from s->pos on, in the current packet, all
 * earlier than @bound (ns from the origin); see stream.h. The position
 * and clock stay in registers, the stream is written once at the end
 * (skip_loop()). An event is taken only when every check
 * rd_stream_next() makes passes on the way its fast paths take; anything
 * else (packet end, another header option, a class whose body is not a
 * rd_body_fast, a bad event) stops the loop before that event, for
 * rd_stream_next(). The class of the event before is kept: a run of one
 * class (the common case) looks none up.
 *
 * A string the length of the one before it is checked with one 16-byte
 * compare (struct skip_guess), and the position after it is then the
 * position before plus a constant, not a function of the loaded bytes:
 * the branch is predicted and the processor starts on the next event
 * before the compare is done. Without this, each event waited for the one
 * before it (position, load, compare, count of zeros, position): 10 ns an
 * event on the bench trace, ~4 with it.
 */
uint64_t rd_stream_skip_eager(struct rd_stream *s, uint64_t max, int64_t bound)
{
	const struct rd_dec_sc *dsc = s->dsc;
	const struct rd_hdr_fast *hf = &dsc->hdr_fast;
	uint64_t n, ev_pos, id, x;
	bool ovf = false;

	if (!s->in_packet || !s->eager_body || s->body_pending || !dsc->has_header ||
	    !(hf->ok || hf->packed) || (s->pos & 7))
		return 0;
	/* LTTng's large header, its compact one, any other */
	if (hf->ok && hf->id_bytes == 2 && hf->ts_bytes == 4)
		n = skip_loop(s, max, bound, false, 2, 4, &ev_pos);
	else if (!hf->ok && hf->id_bytes == 4)
		n = skip_loop(s, max, bound, true, 4, 0, &ev_pos);
	else
		n = skip_loop(s, max, bound, !hf->ok, hf->id_bytes, hf->ts_bytes, &ev_pos);
	if (!n)
		return 0;
	/* the last one is the current event, as rd_stream_next() leaves it */
	x = load_le(s->pkt + (ev_pos >> 3), hf->id_bytes);
	id = hf->ok ? x : x & ((1ULL << hf->id_bits) - 1);
	if (hf->id_slot >= 0)
		s->slots[hf->id_slot] = id;
	s->cur_event_id = id;
	s->dev = dsc->by_id[id];
	s->ev_pos = ev_pos;
	s->ev_cycles = s->clock;
	s->ev_ns = 0;
	if (dsc->clock)
		s->ev_ns = clock_ns_from_origin(dsc->clock, s->clock, &ovf);
	s->events += n;
	return n;
}
