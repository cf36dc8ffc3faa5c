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
 * The body shape the loop steps over without a loop of its own: @pre
 * bytes, a string when @str, @post bytes (a rd_body_fast of one step, or
 * of two whose second has no string). False: another shape.
 */
struct skip_shape {
	uint64_t pre, post;	/* bytes */
	bool str;
};

static bool skip_shape_of(const struct rd_body_fast *bf, struct skip_shape *sh)
{
	if (bf->nsteps < 1 || bf->nsteps > 2 || (bf->nsteps == 2 && bf->string[1]))
		return false;
	sh->pre = bf->skip[0] / 8;	/* (whole bytes: rd_body_fast) */
	sh->str = bf->string[0];
	sh->post = bf->nsteps == 2 ? bf->skip[1] / 8 : 0;
	return true;
}

/*
 * What a string's length was at the event before (a guess for the next
 * one): the 16-byte compare's mask of zero bytes has @bit as its lowest
 * bit under @mask, and the string then takes @bytes. None: a mask that no
 * compare matches (@mask 0, @bit 1).
 */
struct skip_guess {
	unsigned mask, bit;
	uint64_t bytes;
};

static inline void skip_guess_set(struct skip_guess *gs, uint64_t bytes)
{
	if (bytes >= 1 && bytes <= 16) {
		gs->bit = 1u << (bytes - 1);
		gs->mask = (gs->bit << 1) - 1;
		gs->bytes = bytes;
	} else {
		gs->mask = 0;
		gs->bit = 1;
		gs->bytes = 0;
	}
}

#ifdef __SSE2__
#define SKIP_LANE 1



#else
#define SKIP_LANE 0
#endif

/*
 * The body of shape @sh at byte @b, which the caller knows is in the
 * content (@end bytes) up to where a string under 16 bytes would end it:
 * the byte after it, or UINT64_MAX (a longer string without its NUL).
 */
static inline __attribute__((always_inline)) uint64_t
lane_body_end(const uint8_t *pkt, uint64_t b, uint64_t end, const struct skip_shape *sh,
	      struct skip_guess *gs)
{
	b += sh->pre;
#ifdef __SSE2__
	if (sh->str) {
		const uint8_t *q = pkt + b;
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()));

		if (trawl_likely((m & gs->mask) == gs->bit)) {
			b += gs->bytes;
		} else if (m) {
			skip_guess_set(gs, (uint64_t)__builtin_ctz(m) + 1);
			b += gs->bytes;
		} else {	/* 16 bytes or more */
			uint64_t e = string_end(q, 8 * b, end - b);

			if (e == UINT64_MAX)
				return UINT64_MAX;
			skip_guess_set(gs, e / 8 - b);
			b = e / 8;
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
 * The clock values (cycles) of a 1 GHz clock offset by @base ns whose
 * events the loop may take before @bound (ns from the origin): [0, limit).
 * An event's time is base + cycles; rd_stream_next() finds it out of range
 * when cycles or base + cycles is past INT64_MAX, and another stream's
 * event may come first from @bound on. base + cycles grows with cycles,
 * so one comparison of the cycles says all three.
 */
static uint64_t skip_cycles_limit(int64_t base, int64_t bound)
{
	__int128 lim = (__int128)bound - base;

	if (lim <= 0)
		return 0;
	if (lim > (__int128)INT64_MAX + 1)
		return (uint64_t)INT64_MAX + 1;
	return (uint64_t)lim;
}

/*
 * What the lane's run (lane_run()) needs of the loop: the event at byte
 * @o is of class @cur_id, and its body's string (when it has one) the
 * length of the one before (@gs).
 */
struct lane_state {
	uint64_t o, clock, n, ev;
};

/*
 * The run of events that skip_loop() would take without a branch of its
 * own: same class as the one before, a string as long as the one before,
 * each event starting at or before @lane_end, earlier than @climit. All of
 * them are @step bytes long, so the run keeps only a pointer, a count and
 * the clock (the last event taken starts @step before where it stops):
 * 26 instructions an event on the bench trace (valgrind) where the
 * general path took 45, and its values fit x86-64's registers. It stops
 * before the first event that is not such (nothing of it taken), for the
 * general path to take it or stop: whatever it takes, the general path
 * would have taken the same way, with the same checks.
 */
static inline __attribute__((always_inline)) void
lane_run(struct lane_state *ls, const uint8_t *pkt, uint64_t max, uint64_t lane_end,
	 uint64_t step, uint64_t str_off, bool str, const struct skip_guess *gs,
	 uint64_t cur_id, uint64_t wrap, uint64_t climit, bool packed, unsigned id_bytes,
	 unsigned ts_bytes, unsigned id_bits, uint64_t ts_mask)
{
	const uint8_t *p = pkt + ls->o, *last = pkt + lane_end;
	uint64_t left = max - ls->n, clock = ls->clock, done = 0, span;

	/* the last event to start at: @left events at most (each one byte
	 * or more: only when fewer than the lane's bytes) */
	if (left <= lane_end - ls->o &&
	    !__builtin_mul_overflow(left - 1, step, &span) && span < lane_end - ls->o)
		last = p + span;
	for (; p <= last; done++, p += step) {
		uint64_t i, ts, c;

		if (!packed) {
			i = load_le(p, id_bytes);
			ts = load_le(p + id_bytes, ts_bytes);
		} else {
			uint64_t x = load_le(p, id_bytes);

			i = x & ((1ULL << id_bits) - 1);
			ts = (x >> id_bits) & ts_mask;
		}
		if (trawl_unlikely(i != cur_id))
			break;
		c = clock + ((ts - clock) & wrap);
		if (trawl_unlikely(c >= climit))
			break;
#ifdef __SSE2__
		if (str) {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + str_off));
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()));

			if (trawl_unlikely((m & gs->mask) != gs->bit))
				break;
		}
#else
		(void)str_off;
		(void)gs;
		if (str)
			break;
#endif
		clock = c;
	}
	if (done) {
		ls->o += done * step;
		ls->ev = ls->o - step;
		ls->n += done;
		ls->clock = clock;
	}
}

/*
 * The loop of rd_stream_skip_eager(), for one header shape: @id_bytes and
 * @ts_bytes (byte-aligned), or @packed (one load of @id_bytes), constants
 * where it is inlined, so that each shape's loop loads its header without
 * a branch on its sizes. Returns how many events it took; the last one
 * starts at *@ev_pos (bits).
 *
 * Every step is whole bytes, so the loop counts in bytes (@o), with no
 * shift per event. Where the widest event of the current class (its
 * string 16 bytes) still fits the content (o <= lane_end), its header and
 * body are read without a bounds check of their own; nearer the end of
 * the packet (or without SSE2) each step is checked. The clock is
 * extended as the CTF rule for a timestamp of fewer bits says (it went
 * down: it wrapped), in one subtraction and mask: clock + ((ts - clock) &
 * mask) is (clock & ~mask) | ts, plus mask + 1 when ts < (clock & mask).
 */
static inline __attribute__((always_inline)) uint64_t
skip_loop(struct rd_stream *s, uint64_t max, int64_t bound, bool packed, unsigned id_bytes,
	  unsigned ts_bytes, uint64_t *ev_pos_out)
{
	const struct rd_dec_sc *dsc = s->dsc;
	const struct rd_hdr_fast *hf = &dsc->hdr_fast;
	const struct clock_class *cc = dsc->clock;
	const bool direct = cc && cc->freq == 1000000000ULL;
	/* no clock: every event at 0 ns; another frequency: converted below */
	const uint64_t climit = direct ? skip_cycles_limit(cc->base_offset_ns, bound) :
				!cc && bound > 0 ? UINT64_MAX : 0;
	const uint64_t hdr = hf->bits / 8, ts_mask = hf->ts_mask;
	const uint64_t wrap = ts_mask ? ts_mask : UINT64_MAX;
	const unsigned id_bits = hf->id_bits;
	const uint8_t *pkt = s->pkt;
	uint64_t o = s->pos / 8, end = s->content_bits / 8, clock = s->clock;
	uint64_t n = 0, ev = 0, cur_id = 0;
	const struct rd_dec_event *cur = NULL;
	struct skip_shape sh = { 0 };
	struct skip_guess gs;
	int64_t lane_end = -1;	/* bytes: the lane below up to here */

	skip_guess_set(&gs, 0);
	while (n < max) {
		uint64_t c, i, ts, b;
		const uint8_t *p;

		if (cur && (int64_t)o <= lane_end && (!sh.str || gs.mask)) {
			struct lane_state ls = { .o = o, .clock = clock, .n = n, .ev = ev };

			lane_run(&ls, pkt, max, (uint64_t)lane_end,
				 hdr + sh.pre + (sh.str ? gs.bytes : 0) + sh.post, hdr + sh.pre,
				 sh.str, &gs, cur_id, wrap, climit, packed, id_bytes, ts_bytes,
				 id_bits, ts_mask);
			o = ls.o;
			clock = ls.clock;
			n = ls.n;
			ev = ls.ev;
			if (n >= max)
				break;
		}
		if ((int64_t)o > lane_end && hdr > end - o)
			break;
		p = pkt + o;
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
			uint64_t lane;

			if (i - hf->lo > hf->span || i >= dsc->nby_id)
				break;
			e = dsc->by_id[i];
			if (!e || !e->body_fast.ok)
				break;
			cur = e;
			cur_id = i;
			/* what an event of the class takes at most, its string 16
			 * bytes (without SSE2: no lane, every step checked) */
			lane_end = -1;
			if (SKIP_LANE && skip_shape_of(&e->body_fast, &sh)) {
				lane = hdr + sh.pre + (sh.str ? 16 : 0) + sh.post;
				if (lane <= end && end - lane <= INT64_MAX)
					lane_end = (int64_t)(end - lane);
			}
			skip_guess_set(&gs, 0);
		}
		c = clock + ((ts - clock) & wrap);
		if (trawl_unlikely(c >= climit)) {
			bool ovf;

			if (direct || !cc)
				break;
			if (clock_ns_from_origin(cc, c, &ovf) >= bound || ovf)
				break;
		}
		if (trawl_likely((int64_t)o <= lane_end)) {
			b = lane_body_end(pkt, o + hdr, end, &sh, &gs);
		} else {
			b = body_fast_end(pkt, 8 * (o + hdr), s->content_bits, &cur->body_fast);
			b = b == UINT64_MAX ? b : b / 8;
		}
		if (b == UINT64_MAX)
			break;
		ev = o;
		o = b;
		clock = c;
		n++;
	}
	if (n) {
		s->pos = 8 * o;
		s->clock = clock;
	}
	*ev_pos_out = 8 * ev;
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
	const struct rd_hdr_fast *hf;
	uint64_t n, ev_pos, id, x;
	bool ovf = false;

	/* (no stream class yet, e.g. a packet cut before its header: dsc NULL) */
	if (!s->in_packet || !dsc || !s->eager_body || s->body_pending || !dsc->has_header)
		return 0;
	hf = &dsc->hdr_fast;
	if (!(hf->ok || hf->packed) || (s->pos & 7))
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
