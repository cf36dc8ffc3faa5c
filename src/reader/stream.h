/* SPDX-License-Identifier: MIT */
/*
 * Decoding one stream file: packets one after the other, events inside a
 * packet. A stream file is mmap'd whole; only the pages touched are read,
 * so memory stays bounded by what the kernel keeps cached, whatever the
 * trace size. Positions inside a packet are in bits from the packet start
 * (CTF alignment is relative to the packet).
 *
 * Decoding is split in two so that the merge can order events before
 * paying for their fields: rd_stream_next() decodes the event header only
 * (id and timestamp), rd_stream_body() the contexts and payload, and may
 * print them as babeltrace2's text output does (struct rd_text).
 */
#ifndef TRAWL_READER_STREAM_H
#define TRAWL_READER_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "reader/internal.h"

/* An output buffer; grows as needed, the caller flushes between events. */
struct rd_text {
	char *buf;
	size_t len, cap;
	bool names;		/* print field names (payload, contexts) */
	bool oom;
};

/* Grows @t to hold @n more bytes; false (and t->oom set) when out of memory. */
bool rd_text_grow(struct rd_text *t, size_t n);
static inline bool rd_text_reserve(struct rd_text *t, size_t n)
{
	return trawl_likely(t->cap - t->len >= n) || rd_text_grow(t, n);
}
static inline void rd_text_put(struct rd_text *t, const char *s, size_t n)
{
	char *d;

	if (trawl_unlikely(t->cap - t->len < n) && !rd_text_grow(t, n))
		return;
	d = t->buf + t->len;
	/* short copies inline: the libc call costs more than the copy */
	if (n <= 16) {
		if (n >= 8) {
			uint64_t a, b;

			memcpy(&a, s, 8);
			memcpy(&b, s + n - 8, 8);
			memcpy(d, &a, 8);
			memcpy(d + n - 8, &b, 8);
		} else if (n >= 4) {
			uint32_t a, b;

			memcpy(&a, s, 4);
			memcpy(&b, s + n - 4, 4);
			memcpy(d, &a, 4);
			memcpy(d + n - 4, &b, 4);
		} else if (n >= 2) {
			uint16_t a, b;

			memcpy(&a, s, 2);
			memcpy(&b, s + n - 2, 2);
			memcpy(d, &a, 2);
			memcpy(d + n - 2, &b, 2);
		} else if (n) {
			d[0] = s[0];
		}
	} else {
		memcpy(d, s, n);
	}
	t->len += n;
}
#define rd_text_lit(t, s) rd_text_put((t), (s), sizeof(s) - 1)
void rd_text_str(struct rd_text *t, const char *s);
void rd_text_escaped(struct rd_text *t, const char *s, size_t n);

/* ---- decimal numbers, two digits per step ---- */

static const char rd_digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

static inline unsigned rd_count_digits32(uint32_t v)
{
	if (v < 100000)
		return v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : 5;
	return v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 :
	       v < 1000000000 ? 9 : 10;
}

static inline unsigned rd_count_digits(uint64_t v)
{
	unsigned n = 0;

	while (v > UINT32_MAX) {
		v /= 10000;
		n += 4;
	}
	return n + rd_count_digits32((uint32_t)v);
}

/*
 * Writes the @n decimal digits of @v ending at @end (exclusive), two at a
 * time, in 32-bit arithmetic as soon as the value fits.
 */
static inline void rd_write_digits(char *end, uint64_t v, unsigned n)
{
	uint32_t w;

	while (v > UINT32_MAX) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, rd_digits2 + r * 2, 2);
		n -= 2;
	}
	w = (uint32_t)v;
	/* four digits per step: two independent halves, shorter dependency chain */
	while (n >= 4) {
		uint32_t q = w / 10000, r = w - q * 10000;

		end -= 4;
		memcpy(end, rd_digits2 + (r / 100) * 2, 2);
		memcpy(end + 2, rd_digits2 + (r % 100) * 2, 2);
		w = q;
		n -= 4;
	}
	if (n >= 2) {
		uint32_t r = w % 100;

		w /= 100;
		end -= 2;
		memcpy(end, rd_digits2 + r * 2, 2);
		n -= 2;
	}
	if (n)
		end[-1] = (char)('0' + w % 10);
}

static inline void rd_text_u64(struct rd_text *t, uint64_t v)
{
	unsigned n = rd_count_digits(v);

	if (!rd_text_reserve(t, 20))
		return;
	rd_write_digits(t->buf + t->len + n, v, n);
	t->len += n;
}

static inline void rd_text_i64(struct rd_text *t, int64_t v)
{
	if (v < 0) {
		rd_text_lit(t, "-");
		rd_text_u64(t, 0 - (uint64_t)v);
	} else {
		rd_text_u64(t, (uint64_t)v);
	}
}

static inline void rd_text_u64_pad(struct rd_text *t, uint64_t v, int width)
{
	unsigned n = rd_count_digits(v);

	if ((int)n < width)
		n = (unsigned)width;
	if (n > 20)
		n = 20;
	if (!rd_text_reserve(t, 20))
		return;
	rd_write_digits(t->buf + t->len + n, v, n);
	t->len += n;
}


struct rd_trace;
struct rd_stream;

/* Array loops being decoded by a plan (plan.c), innermost last. */
#define MAX_LOOPS 8
struct plan_loop {
	uint64_t i, n;
};

/* A decoding context: the stream, its current packet, where errors go. */
struct dctx {
	struct rd_stream *s;
	struct rd_err *err;
	const uint8_t *pkt;
	uint64_t end;		/* content end, bits */
	int depth;
};

struct rd_stream {
	struct rd_trace *trace;
	char *path;
	/*
	 * The data stream's name in warnings: babeltrace2 names a stream
	 * continued over several files (same trace UUID, stream class and
	 * stream_instance_id) after its earliest file. Borrowed: this
	 * stream's path, or the chain head's.
	 */
	const char *stream_name;
	/*
	 * The file continuing this data stream after this one ends, later in
	 * time (not owned; NULL: none). @continued: this file is not the
	 * first of its data stream, so it joins the merge only when the one
	 * before it ends.
	 */
	struct rd_stream *next_file;
	bool continued;
	const uint8_t *base;	/* mmap of the whole file */
	uint64_t size;		/* bytes */
	uint64_t released;	/* pages before this offset were given back */
	bool borrowed;		/* base is the caller's buffer, not a mapping */
	bool seeked;		/* next packet follows a seek: no discard report */
	uint64_t id;		/* data stream id (instance id, or file order) */
	bool has_instance_id;
	struct stream_class *sc;
	uint64_t *slots;	/* trace->tc->nslots values */

	/* current packet */
	bool in_packet;
	uint64_t pkt_off;	/* byte offset of the packet in the file */
	const uint8_t *pkt;	/* base + pkt_off */
	uint64_t pkt_bits;	/* packet size in bits */
	uint64_t content_bits;	/* content size in bits */
	uint64_t next_pkt_off;
	uint64_t pos;		/* bit position in the packet */
	uint64_t clock;		/* current clock value, cycles */
	uint64_t pkt_count;

	/* packet context values that have a meaning */
	bool has_ts_begin, has_ts_end, has_disc, has_seq;
	uint64_t ts_begin, ts_end, disc, seq;
	uint64_t prev_disc, prev_seq, prev_ts_end;
	bool prev_valid;
	uint64_t cur_event_id;

	/* printed packet context, cached per packet */
	struct rd_text pc_text;

	/* the event whose header was decoded last */
	struct event_class *ec;
	uint64_t ev_cycles;
	int64_t ev_ns;
	uint64_t ev_pos;	/* bit position of the event in the packet */
	uint64_t events;	/* events decoded so far */
	bool body_pending;	/* header decoded, body not yet */
	bool eager_body;	/* decode the body with the header (no output wanted) */
	struct dctx evd;	/* the context events decode with (this packet) */
	struct plan_loop loops[MAX_LOOPS + 1];

	/* discarded records reported at packet starts */
	uint64_t disc_events_total, disc_packets_total;
};

/* A discarded count babeltrace2 does not know (first packet of a stream). */
#define RD_COUNT_UNKNOWN UINT64_MAX

struct rd_stream_cb {
	/*
	 * Called when a packet shows discarded events or packets; may be
	 * NULL. @count may be RD_COUNT_UNKNOWN: "may have discarded".
	 */
	void (*discarded)(void *arg, struct rd_stream *s, bool packets,
			  uint64_t count, bool have_range, uint64_t begin_cycles,
			  uint64_t end_cycles);
	void *arg;
};

/* Opens @path (borrowed) for @trace. Returns 0 or a negative errno. */
int rd_stream_open(struct rd_stream *s, struct rd_trace *trace,
		   const char *path, uint64_t file_index, struct rd_err *err);
void rd_stream_close(struct rd_stream *s);
/* Same over a caller's buffer (borrowed; must outlive the stream). */
int rd_stream_open_buf(struct rd_stream *s, struct rd_trace *trace,
		       const char *name, const void *buf, uint64_t size,
		       struct rd_err *err);

/*
 * Decodes the next event header. Returns 1 with s->ec/ev_cycles set, 0 at
 * the end of the stream, or a negative errno with @err set.
 */
int rd_stream_next(struct rd_stream *s, const struct rd_stream_cb *cb,
		   struct rd_err *err);

/* How rd_stream_body() prints (babeltrace2's pretty options). */
struct rd_body_fmt {
	bool sep_first;		/* ", " before the first scope printed */
	bool scope_names;	/* "event.fields = " before each scope */
	bool ctx_names;		/* field names in contexts */
	bool payload_names;	/* field names in the payload */
};

/*
 * Decodes the current event's contexts and payload; prints the shown
 * scopes into @t (NULL: decode only) as babeltrace2 does.
 */
int rd_stream_body(struct rd_stream *s, struct rd_text *t,
		   const struct rd_body_fmt *fmt, struct rd_err *err);

/*
 * The stream's time range: first packet's begin time, last packet's end
 * time, in ns from origin (reads packet headers only). Call before reading.
 */
int rd_stream_time_range(struct rd_stream *s, int64_t *begin, int64_t *end,
			 struct rd_err *err);

/*
 * The first packet's begin time in ns from origin (INT64_MIN when it has
 * none); rewinds the stream. Call before reading.
 */
int rd_stream_begin_ns(struct rd_stream *s, int64_t *ns, struct rd_err *err);

/* Decodes the packet at the next offset (header and context only) and moves past it. */
int rd_stream_packet_peek(struct rd_stream *s, struct rd_err *err);

/* The next packet read will be the one at byte offset @byte_off. */
int rd_stream_seek_packet(struct rd_stream *s, uint64_t byte_off,
			  struct rd_err *err);

#endif /* TRAWL_READER_STREAM_H */
