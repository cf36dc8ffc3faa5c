/* SPDX-License-Identifier: MIT */
/*
 * The packet and event decoder. See stream.h for the shape.
 *
 * Integers: a byte-aligned 8/16/32/64-bit integer is one unaligned load
 * (plus a byte swap when the field's byte order is not the host's); any
 * other integer reads at most 9 bytes into a 128-bit accumulator and
 * shifts. CTF bit order follows the byte order: little-endian fields fill
 * from the least significant bit of each byte, big-endian ones from the
 * most significant.
 *
 * Every read is checked against the packet's content size first, so a
 * corrupt length or size can only produce an error, never a read outside
 * the mapping.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/common.h"
#include "reader/decode_fast.h"
#include "reader/decode_int.h"

#define RELEASE_STEP (4u << 20)
#define RELEASE_PAGE 4096u
#define PREFETCH_AHEAD 512u

int rd_derr(struct dctx *d, const char *what)
{
	struct rd_stream *s = d->s;

	rd_err_set(d->err, "%s: offset %" PRIu64 ": %s", s->path,
		   s->pkt_off + s->pos / 8, what);
	return -EINVAL;
}

/* The body decoded by field.c, when no plan could be built. */
static int body_by_tree(struct dctx *d, struct rd_text *t,
			const struct rd_body_fmt *fmt)
{
	static const char *const scope_names[3] = {
		"stream.event.context = ", "event.context = ", "event.fields = ",
	};
	struct rd_stream *s = d->s;
	const struct fc *scopes[3] = { s->sc->event_context, s->dev->ec->context,
				       s->dev->ec->payload };
	bool sep = fmt && fmt->sep_first;
	int i;

	for (i = 0; i < 3; i++) {
		const struct fc *fc = scopes[i];

		if (!fc)
			continue;
		if (t && fc->shown) {
			if (sep)
				rd_text_lit(t, ", ");
			sep = true;
			if (fmt && fmt->scope_names)
				rd_text_str(t, scope_names[i]);
			t->names = fmt ? (i < 2 ? fmt->ctx_names : fmt->payload_names) :
					 true;
			if (rd_decode_fc(d, fc, t))
				return -EINVAL;
		} else if (rd_decode_fc(d, fc, NULL)) {
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- packets --------------------------------------------------------- */

static int rd_stream_cycles_to_ns_int(const struct rd_stream *s,
				      uint64_t cycles, int64_t *ns)
{
	bool ovf;

	*ns = clock_ns_from_origin(s->sc->clock, cycles, &ovf);
	return ovf ? -ERANGE : 0;
}

/*
 * Memory stays bounded whatever the trace size: pages of the mapping that
 * are behind the current packet are handed back every 16 MiB (they are
 * page cache; reading them again would just fault them back in).
 */
static void release_behind(struct rd_stream *s)
{
	uint64_t start = s->released & ~(uint64_t)(RELEASE_PAGE - 1);
	uint64_t end = s->pkt_off & ~(uint64_t)(RELEASE_PAGE - 1);

	if (s->pkt_off < s->released) {	/* moved back (seek) */
		s->released = end;
		return;
	}
	if (end - start < RELEASE_STEP || s->borrowed)
		return;
	madvise((void *)(s->base + start), end - start, MADV_DONTNEED);
	s->released = end;
}

/*
 * What a packet's context says was lost since the packet before it, as
 * babeltrace2 reports it: events (the running events_discarded count went
 * up) and packets (a gap in packet_seq_num).
 */
static void report_discarded(struct rd_stream *s, const struct rd_stream_cb *cb)
{
	if (s->prev_valid) {
		if (s->has_disc && s->disc > s->prev_disc)
			cb->discarded(cb->arg, s, false, s->disc - s->prev_disc,
				      s->has_ts_end, s->prev_ts_end, s->ts_end);
		if (s->has_seq && s->seq > s->prev_seq + 1)
			cb->discarded(cb->arg, s, true, s->seq - s->prev_seq - 1,
				      s->has_ts_begin, s->prev_ts_end, s->ts_begin);
	} else if (s->has_disc && s->disc && !s->seeked) {
		/*
		 * The first packet of a stream already counts discarded
		 * events: babeltrace2 says they may have been discarded
		 * before or within it (count unknown, this packet's times).
		 */
		if (s->has_ts_begin && s->has_ts_end)
			cb->discarded(cb->arg, s, false, RD_COUNT_UNKNOWN, true,
				      s->ts_begin, s->ts_end);
		else
			cb->discarded(cb->arg, s, false, s->disc, false, 0, 0);
	}
}

/* The packet header and context at s->pkt, the first @end bits there. */
static int packet_head(struct rd_stream *s, struct rd_err *err, uint64_t end)
{
	const struct trace_class *tc = s->dec->tc;
	const struct stream_class *sc = s->sc;
	struct dctx d = { .s = s, .err = err, .pkt = s->pkt, .end = end };

	s->pos = 0;
	s->pkt_bits = UINT64_MAX;
	s->content_bits = UINT64_MAX;
	s->has_ts_begin = s->has_ts_end = s->has_disc = s->has_seq = false;
	s->cur_event_id = UINT64_MAX;
	if (tc->packet_header &&
	    rd_plan_run(&d, s->dec->ph_plans, tc->packet_header, NULL))
		return -EINVAL;
	if (!sc)
		return rd_derr(&d, "no stream class for this stream");
	s->pc_pos = s->pos;
	if (sc->packet_context &&
	    rd_plan_run(&d, s->dsc->pc_plans, sc->packet_context, NULL))
		return -EINVAL;
	return 0;
}

/*
 * Where the packet at s->pkt_off is read from (s->pkt), its header and
 * context decoded: the stream's window when it can take it
 * (stream_read.c), else the mapping. @whole: the events will be read too
 * (a peek needs the header and context only).
 */
static int packet_locate(struct rd_stream *s, struct rd_err *err, bool whole)
{
	uint64_t remaining = s->size - s->pkt_off, avail = remaining, need;
	const uint8_t *p;
	int set = err ? err->set : 1;

	if (whole && s->read_mode != RD_READ_MAP) {
		if (rd_stream_win_head(s, s->pkt_off, &avail, &p, err))
			return -EIO;
		if (p) {
			s->pkt = p;
			if (!packet_head(s, err, avail * 8)) {
				need = s->pkt_bits == UINT64_MAX ? remaining : s->pkt_bits / 8;
				if (need > remaining)	/* packet_begin() says so */
					return 0;
				avail = remaining;
				if (rd_stream_win_get(s, s->pkt_off, need, &avail, &p, err))
					return -EIO;
				if (p) {
					s->pkt = p;
					return 0;
				}
				s->pkt = s->base + s->pkt_off;
				release_behind(s);
				return 0;
			}
			if (avail == remaining)
				return -EINVAL;
			/* cut by the window's end: again from the mapping */
			if (!set)
				err->set = 0;	/* (that error was ours) */
		}
	}
	s->pkt = s->base + s->pkt_off;
	release_behind(s);
	return packet_head(s, err, remaining * 8) ? -EINVAL : 0;
}

/* Decodes the packet header and context at s->next_pkt_off. */
static int packet_begin(struct rd_stream *s, const struct rd_stream_cb *cb,
			struct rd_err *err, bool whole)
{
	uint64_t remaining_bits;
	int ret;

	s->pkt_off = s->next_pkt_off;
	remaining_bits = (s->size - s->pkt_off) * 8;
	ret = packet_locate(s, err, whole);
	if (ret)
		return ret;
	if (s->pkt_bits == UINT64_MAX)
		s->pkt_bits = remaining_bits;
	if (s->content_bits == UINT64_MAX)
		s->content_bits = s->pkt_bits;
	if (s->pkt_bits > remaining_bits) {
		rd_err_set(err, "%s: offset %" PRIu64 ": packet size (%" PRIu64
			   " bits) exceeds the file size", s->path, s->pkt_off,
			   s->pkt_bits);
		return -EINVAL;
	}
	if (s->content_bits > s->pkt_bits || s->pos > s->content_bits) {
		rd_err_set(err, "%s: offset %" PRIu64 ": invalid packet content size (%" PRIu64
			   " bits, packet %" PRIu64 " bits, header %" PRIu64 " bits)",
			   s->path, s->pkt_off, s->content_bits, s->pkt_bits, s->pos);
		return -EINVAL;
	}
	if (s->pkt_bits % 8 || (s->pkt_bits == 0)) {
		rd_err_set(err, "%s: offset %" PRIu64 ": packet size %" PRIu64
			   " bits is not a positive multiple of 8", s->path,
			   s->pkt_off, s->pkt_bits);
		return -EINVAL;
	}
	s->next_pkt_off = s->pkt_off + s->pkt_bits / 8;
	if (s->has_ts_begin)
		s->clock = s->ts_begin;
	if (cb && cb->discarded)
		report_discarded(s, cb);
	s->seeked = false;
	s->prev_valid = true;
	if (s->has_disc)
		s->prev_disc = s->disc;
	if (s->has_seq)
		s->prev_seq = s->seq;
	if (s->has_ts_end)
		s->prev_ts_end = s->ts_end;
	s->in_packet = true;
	s->pkt_count++;
	return 0;
}

/* A compact timestamp of @mask bits (0: 64) into the stream clock (CTF: went down, wrapped). */
static inline void hdr_clock(struct rd_stream *s, uint64_t ts, uint64_t mask)
{
	if (!mask) {
		s->clock = ts;
	} else {
		uint64_t nv = (s->clock & ~mask) | ts;

		if (ts < (s->clock & mask))
			nv += mask + 1;
		s->clock = nv;
	}
}

/*
 * The common event header (struct rd_hdr_fast) without the interpreter:
 * true when decoded, false to let the plan decode it (and report errors).
 * Loads are native: the plan set no byte swap for these fields.
 */
static inline bool hdr_fast(struct rd_stream *s, const struct rd_hdr_fast *hf)
{
	uint64_t pos = s->pos, end = s->content_bits, id, ts, bits;
	const uint8_t *p;

	bits = hf->bits;
	if ((pos & 7) || pos > end || bits > end - pos)
		return false;
	p = s->pkt + (pos >> 3);
	id = load_le(p, hf->id_bytes);
	if (id - hf->lo > hf->span)
		return false;
	ts = load_le(p + hf->id_bytes, hf->ts_bytes);
	if (hf->id_slot >= 0)
		s->slots[hf->id_slot] = id;
	s->cur_event_id = id;
	hdr_clock(s, ts, hf->ts_mask);
	s->pos = pos + bits;
	return true;
}

/* The same for a packed header (hf->packed): the id's bits, then the timestamp's. */
static inline bool hdr_fast_packed(struct rd_stream *s, const struct rd_hdr_fast *hf)
{
	uint64_t pos = s->pos, end = s->content_bits, id, ts, x, bits;

	bits = hf->bits;
	if ((pos & 7) || pos > end || bits > end - pos)
		return false;
	x = load_le(s->pkt + (pos >> 3), hf->id_bytes);
	id = x & ((1ULL << hf->id_bits) - 1);
	if (hf->id_slot >= 0)
		s->slots[hf->id_slot] = id;	/* the tag: the extended option's too */
	if (trawl_unlikely(id - hf->lo > hf->span)) {
		uint32_t eid;
		const uint8_t *p;

		bits = 8u * hf->ext_off + 96;
		if (!hf->ext || id != hf->ext_tag || bits > end - pos)
			return false;	/* (the plan stores the tag again) */
		p = s->pkt + (pos >> 3) + hf->ext_off;
		memcpy(&eid, p, 4);
		memcpy(&ts, p + 4, 8);
		s->cur_event_id = eid;
		s->clock = ts;
		s->pos = pos + bits;
		return true;
	}
	ts = (x >> hf->id_bits) & hf->ts_mask;
	s->cur_event_id = id;
	hdr_clock(s, ts, hf->ts_mask);
	s->pos = pos + bits;
	return true;
}

/* The same on @s: false (position unchanged) when it does not fit. */
static inline bool body_fast(struct rd_stream *s, const struct rd_body_fast *bf)
{
	uint64_t pos = body_fast_end(s->pkt, s->pos, s->content_bits, bf);

	if (pos == UINT64_MAX)
		return false;
	s->pos = pos;
	return true;
}

/*
 * The event header when it is not byte-aligned's common shape: packed
 * (out of line, so that the byte-aligned one's inline path is what it was
 * without it), else its own plan, else the tree.
 */
static __attribute__((noinline)) int decode_header_other(struct rd_stream *s, struct dctx *d)
{
	const struct rd_dec_sc *dsc = s->dsc;

	if (trawl_likely(dsc->hdr_fast.packed) && hdr_fast_packed(s, &dsc->hdr_fast))
		return 0;
	return trawl_likely(dsc->header_plan) ?
		       rd_plan_exec_hdr_impl(d, dsc->header_plan, NULL) :
		       rd_decode_fc(d, dsc->sc->event_header, NULL);
}

/* The event header: its common shape inline, or decode_header_other(). */
static inline int decode_header(struct rd_stream *s, struct dctx *d)
{
	const struct rd_dec_sc *dsc = s->dsc;

	if (trawl_likely(dsc->hdr_fast.ok) && hdr_fast(s, &dsc->hdr_fast))
		return 0;
	return decode_header_other(s, d);
}

/* The event's time in ns from the origin, from s->clock. */
static inline int event_time(struct rd_stream *s, struct dctx *d)
{
	const struct clock_class *cc = s->dsc->clock;
	bool ovf;

	if (!cc) {
		s->ev_ns = 0;
		return 0;
	}
	if (trawl_likely(cc->freq == 1000000000ULL))
		ovf = s->clock > (uint64_t)INT64_MAX ||
		      __builtin_add_overflow(cc->base_offset_ns, (int64_t)s->clock,
					     &s->ev_ns);
	else
		s->ev_ns = clock_ns_from_origin(cc, s->clock, &ovf);
	if (trawl_unlikely(ovf)) {
		s->pos = s->ev_pos;
		return rd_derr(d, "timestamp out of range");
	}
	return 0;
}

/* decode-only: the body right away, no second call per event */
static inline int eager_body(struct rd_stream *s, struct dctx *d)
{
	struct rd_dec_event *dev = s->dev;
	const struct plan *pl;

	/* body_fast is known once plans[0] is compiled (it is at the first event) */
	if (trawl_likely(dev->body_fast.ok) && body_fast(s, &dev->body_fast))
		goto done;
	pl = rd_plan_body(dev, 0);
	if (dev->body_fast.ok && body_fast(s, &dev->body_fast))
		goto done;
	if (trawl_likely(pl) ? rd_plan_exec(d, pl, NULL) : body_by_tree(d, NULL, NULL))
		return -EINVAL;
done:
	if (trawl_unlikely(s->pos == s->ev_pos))
		return rd_derr(d, "event has zero size");
	return 1;
}

int rd_stream_next(struct rd_stream *s, const struct rd_stream_cb *cb,
		   struct rd_err *err)
{
	struct dctx *d = &s->evd;
	uint64_t id;

	for (;;) {
		if (s->in_packet && s->pos < s->content_bits)
			break;
		s->in_packet = false;
		if (s->next_pkt_off >= s->size) {
			rd_stream_win_fini(s);	/* its descriptor and memory for others */
			return 0;
		}
		if (packet_begin(s, cb, err, true))
			return -EINVAL;
	}
	d->s = s;
	d->err = err;
	d->depth = 0;
	d->pkt = s->pkt;
	d->end = s->content_bits;
	s->ev_pos = s->pos;
	s->cur_event_id = UINT64_MAX;
	/* events are read in order: ask for the cache lines a few events ahead */
	if ((s->pos >> 3) + PREFETCH_AHEAD < (s->content_bits >> 3))
		__builtin_prefetch(s->pkt + (s->pos >> 3) + PREFETCH_AHEAD);
	if (s->dsc->has_header && decode_header(s, d))
		return -EINVAL;
	id = s->cur_event_id == UINT64_MAX ? 0 : s->cur_event_id;
	s->dev = rd_dec_event_of(s->dsc, id);
	if (trawl_unlikely(!s->dev)) {
		char msg[96];

		trawl_msg_fmt(msg, sizeof(msg), "unknown event class id %" PRIu64, id);
		s->pos = s->ev_pos;
		return rd_derr(d, msg);
	}
	s->ev_cycles = s->clock;
	if (event_time(s, d))
		return -EINVAL;
	s->events++;
	if (s->eager_body)
		return eager_body(s, d);
	s->body_pending = true;
	return 1;
}

static unsigned body_key(const struct rd_text *t, const struct rd_body_fmt *fmt)
{
	unsigned key = 0;

	if (t) {
		key = RD_BODY_PRINT;
		if (!fmt || fmt->ctx_names)
			key |= RD_BODY_CTX_NAMES;
		if (!fmt || fmt->payload_names)
			key |= RD_BODY_PAYLOAD_NAMES;
		if (fmt && fmt->scope_names)
			key |= RD_BODY_SCOPE_NAMES;
		if (fmt && fmt->sep_first)
			key |= RD_BODY_SEP_FIRST;
	}
	return key;
}

/* The tree walker's body, in the format RD_BODY_* bits @key say. */
static int body_by_tree_key(struct dctx *d, struct rd_text *t, unsigned key)
{
	struct rd_body_fmt fmt = {
		.sep_first = key & RD_BODY_SEP_FIRST,
		.scope_names = key & RD_BODY_SCOPE_NAMES,
		.ctx_names = key & RD_BODY_CTX_NAMES,
		.payload_names = key & RD_BODY_PAYLOAD_NAMES,
	};

	return body_by_tree(d, t, &fmt);
}

int rd_stream_body_key(struct rd_stream *s, struct rd_text *t, unsigned key,
		       struct rd_err *err)
{
	struct dctx *d = &s->evd;
	const struct plan *pl;

	if (s->body_pending)	/* first time: the body starts here */
		s->body_pos = s->pos;
	else			/* decoded before: again, from its start */
		s->pos = s->body_pos;
	s->body_pending = false;
	d->err = err;
	pl = rd_plan_body(s->dev, key);
	if (trawl_likely(pl)) {
		if (t ? rd_plan_exec_text(d, pl, t) : rd_plan_exec(d, pl, NULL))
			return -EINVAL;
	} else if (body_by_tree_key(d, t, key)) {
		return -EINVAL;
	}
	if (trawl_unlikely(s->pos == s->ev_pos))
		return rd_derr(d, "event has zero size");
	return 0;
}

int rd_stream_body(struct rd_stream *s, struct rd_text *t,
		   const struct rd_body_fmt *fmt, struct rd_err *err)
{
	return rd_stream_body_key(s, t, body_key(t, fmt), err);
}

int rd_stream_pc_text_make(struct rd_stream *s, bool names, struct rd_err *err)
{
	uint64_t pos = s->pos, clock = s->clock;
	struct dctx d = { .s = s, .err = err, .pkt = s->pkt };
	int ret;

	s->pc_text.len = 0;
	s->pc_text.names = names;
	s->pc_text_pkt = s->pkt_count;
	s->pc_text_names = names;
	if (!s->sc->packet_context || !s->sc->packet_context->shown)
		return 0;
	/*
	 * The packet context again, as packet_begin() decoded it: every value
	 * it stores is what that stored; the clock and the position are put
	 * back. It ended before the content's end (s->pkt may hold no more
	 * than the packet).
	 */
	d.end = s->content_bits;
	s->pos = s->pc_pos;
	ret = rd_plan_run(&d, s->dsc->pc_plans, s->sc->packet_context, &s->pc_text);
	s->pos = pos;
	s->clock = clock;
	if (ret || s->pc_text.oom) {
		s->pc_text_pkt = 0;
		return ret ? -EINVAL : -ENOMEM;
	}
	return 0;
}

int rd_stream_seek_packet(struct rd_stream *s, uint64_t byte_off,
			  struct rd_err *err)
{
	if (byte_off > s->size) {
		rd_err_set(err, "%s: seek beyond the end of the file", s->path);
		return -EINVAL;
	}
	s->in_packet = false;
	s->next_pkt_off = byte_off;
	s->prev_valid = false;
	s->body_pending = false;
	return 0;
}

int rd_stream_packet_peek(struct rd_stream *s, struct rd_err *err)
{
	int ret = packet_begin(s, NULL, err, false);

	s->in_packet = false;
	return ret;
}

int rd_stream_probe_init(struct rd_stream *probe, const struct rd_stream *s)
{
	*probe = *s;
	probe->borrowed = true;
	/* packet contexts through the mapping: the window stays @s's */
	probe->read_mode = RD_READ_MAP;
	probe->fd = -1;
	probe->win = NULL;
	probe->win_cap = probe->win_len = 0;
	probe->pc_text = (struct rd_text){ 0 };
	probe->pc_text_pkt = 0;
	probe->in_packet = false;
	probe->next_pkt_off = 0;
	probe->prev_valid = false;
	probe->slots = calloc(s->dec->tc->nslots ? s->dec->tc->nslots : 1,
			      sizeof(uint64_t));
	return probe->slots ? 0 : -ENOMEM;
}

void rd_stream_probe_fini(struct rd_stream *probe)
{
	free(probe->slots);
	probe->slots = NULL;
}

int rd_stream_begin_ns(const struct rd_stream *s, int64_t *ns, struct rd_err *err)
{
	struct rd_stream p;
	int ret;

	*ns = INT64_MIN;
	if (!s->size)
		return 0;
	ret = rd_stream_probe_init(&p, s);
	if (!ret)
		ret = packet_begin(&p, NULL, err, false);
	if (!ret && p.has_ts_begin && p.sc->clock &&
	    rd_stream_cycles_to_ns_int(&p, p.ts_begin, ns))
		*ns = INT64_MIN;
	rd_stream_probe_fini(&p);
	return ret;
}

int rd_stream_time_range(const struct rd_stream *s, int64_t *begin,
			 int64_t *end, struct rd_err *err)
{
	bool have_b = false, have_e = false;
	uint64_t b = 0, e = 0;
	struct rd_stream p;
	int ret;

	ret = rd_stream_probe_init(&p, s);
	while (!ret && p.next_pkt_off < p.size) {
		ret = packet_begin(&p, NULL, err, false);
		if (ret)
			break;
		if (!have_b && p.has_ts_begin) {
			b = p.ts_begin;
			have_b = true;
		}
		if (p.has_ts_end) {
			e = p.ts_end;
			have_e = true;
		}
	}
	rd_stream_probe_fini(&p);
	if (ret)
		return ret;
	if (!have_b || !have_e || !s->sc || !s->sc->clock) {
		rd_err_set(err, "%s: packets have no beginning and end times", s->path);
		return -EINVAL;
	}
	if (rd_stream_cycles_to_ns_int(s, b, begin) ||
	    rd_stream_cycles_to_ns_int(s, e, end)) {
		rd_err_set(err, "%s: packet time out of range", s->path);
		return -ERANGE;
	}
	return 0;
}
