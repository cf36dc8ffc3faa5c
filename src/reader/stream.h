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
#include "reader/text.h"

struct rd_trace;
struct rd_stream;
struct plan;

/* ---- the decoder's caches (cache.c) -------------------------------------- */

/* Keys of an event's body plans: what is printed, and how (plan.c). */
#define RD_BODY_PRINT 1u
#define RD_BODY_CTX_NAMES 2u
#define RD_BODY_PAYLOAD_NAMES 4u
#define RD_BODY_SCOPE_NAMES 8u
#define RD_BODY_SEP_FIRST 16u
#define RD_BODY_KEYS 32u

/*
 * A body that nothing reads (decode only) made of fixed-size runs and
 * strings, byte-aligned: skip @skip[i] bits, then step over a string when
 * @string[i]. rd_stream_next() steps over it without the interpreter.
 */
#define RD_BODY_FAST_STEPS 8
struct rd_body_fast {
	bool ok;
	uint8_t nsteps;
	bool string[RD_BODY_FAST_STEPS];
	uint32_t skip[RD_BODY_FAST_STEPS];	/* bits, multiples of 8 */
};

/*
 * The event header most traces use (LTTng's "compact" and "large" ones): a
 * byte-aligned unsigned id tagging a variant whose most frequent option is
 * one byte-aligned timestamp, or one timestamp packed with the id in whole
 * bytes. plan.c recognizes it in the header's plan and
 * rd_stream_next() then decodes it in a few loads instead of a run of the
 * plan interpreter; ids outside [lo, lo + span] (the extended option) and
 * packet ends take the interpreter.
 */
struct rd_hdr_fast {
	bool ok;		/* an id, then a timestamp, in whole bytes */
	/*
	 * Or (ok false) a packed header (LTTng's compact one: a 5-bit id, then
	 * a 27-bit timestamp), little-endian: one load of id_bytes holds both,
	 * the id in its low id_bits bits, the timestamp (ts_mask) above. A flag
	 * of its own, tested after ok: the byte-aligned decoding costs not one
	 * instruction more for it.
	 */
	bool packed;
	uint8_t id_bits;
	/*
	 * A packed header's other option, when it is LTTng's extended one
	 * (tag ext_tag, then at byte ext_off a 32-bit id and a 64-bit
	 * timestamp, byte-aligned): decoded here too, not by the plan (a
	 * kernel trace's classes past the 31st have only this one).
	 */
	bool ext;
	uint8_t ext_off;
	uint64_t ext_tag;
	uint8_t id_bytes, ts_bytes;	/* 1, 2, 4 or 8 */
	int32_t id_slot;		/* -1, or where the id is stored */
	uint64_t lo, span;		/* ids lo..lo+span take the timestamp-only option */
	uint32_t bits;			/* 8 * (id_bytes + ts_bytes) */
	uint64_t ts_mask;		/* timestamp bits; 0: 64 bits (no wrap) */
};

struct rd_flat_layout;

/* What the decoder derived from one event class. */
struct rd_dec_event {
	const struct event_class *ec;	/* the model's (not owned) */
	struct plan *plans[RD_BODY_KEYS];	/* body plans by key, on first use */
	struct rd_body_fast body_fast;	/* set with plans[0] */
	/* where its members are when its body has a fixed layout (flat.c) */
	struct rd_flat_layout *flat_layout;	/* owned; NULL: none (or not yet) */
	bool flat_tried;			/* flat_layout was worked out */
};

/* ... from one stream class. */
struct rd_dec_sc {
	const struct stream_class *sc;	/* the model's (not owned) */
	struct plan *pc_plans[3];	/* packet context: decode, print, with names */
	/* what every event header needs, in one place */
	bool has_header;		/* sc->event_header is not NULL */
	const struct clock_class *clock;	/* sc->clock */
	struct plan *header_plan;	/* event header, decode only (NULL: field.c) */
	struct rd_hdr_fast hdr_fast;
	struct rd_dec_event *events;	/* owned, parallel to sc->events */
	/* ids below nby_id (at most 65536 of them): one load; others: a search */
	struct rd_dec_event **by_id;	/* owned */
	uint64_t nby_id;
};

/*
 * The decoder's caches for one trace class, which it only reads: plans are
 * compiled on first use, so this is built in O(classes) when a trace opens.
 */
struct rd_dec {
	const struct trace_class *tc;	/* not owned */
	struct plan *ph_plans[3];	/* packet header */
	struct rd_dec_sc *scs;		/* owned, parallel to tc->streams */
};

int rd_dec_create(const struct trace_class *tc, struct rd_dec **out);
void rd_dec_destroy(struct rd_dec *dec);
/* The decoder's stream class for @sc, which belongs to dec->tc. */
struct rd_dec_sc *rd_dec_sc_of(struct rd_dec *dec, const struct stream_class *sc);
/* The event class @id of @dsc (NULL: none); the table first. */
struct rd_dec_event *rd_dec_event_search(const struct rd_dec_sc *dsc, uint64_t id);
static inline struct rd_dec_event *rd_dec_event_of(const struct rd_dec_sc *dsc,
						   uint64_t id)
{
	return trawl_likely(id < dsc->nby_id) ? dsc->by_id[id] :
						rd_dec_event_search(dsc, id);
}

/* ---- streams ------------------------------------------------------------- */

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

/*
 * What the windows of a trace's streams hold together (stream_read.c):
 * how many streams have one, and their bytes.
 */
struct rd_win_pool {
	uint32_t streams;
	uint64_t bytes;
};

struct rd_stream {
	struct rd_trace *trace;	/* the trace it belongs to (not owned; the reader's) */
	struct rd_dec *dec;	/* its decoder caches and trace class (not owned) */
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
	bool borrowed;		/* base is not this stream's to unmap or advise */
	/*
	 * Packets read() into a window instead (stream_read.c): @win (owned,
	 * @win_cap bytes) holds the file's bytes [win_off, win_off + win_len);
	 * @fd (owned) is open in RD_READ_WIN only. @file_dev and @file_ino name the file
	 * mapped, so that opening it again finds the same one.
	 */
	struct rd_win_pool *win_pool;	/* not owned (the trace's); NULL: no window */
	uint8_t read_mode;	/* enum rd_read_mode */
	int fd;
	uint8_t *win;
	uint64_t win_off, win_len, win_cap;
	uint64_t file_dev, file_ino;
	bool seeked;		/* next packet follows a seek: no discard report */
	uint64_t id;		/* data stream id (instance id, or file order) */
	bool has_instance_id;
	const struct stream_class *sc;
	struct rd_dec_sc *dsc;
	uint64_t *slots;	/* trace->tc->nslots values, owned */

	/* current packet */
	bool in_packet;
	uint64_t pkt_off;	/* byte offset of the packet in the file */
	const uint8_t *pkt;	/* base + pkt_off */
	uint64_t pkt_bits;	/* packet size in bits */
	uint64_t content_bits;	/* content size in bits */
	uint64_t pc_pos;	/* where the packet context starts, bits */
	uint64_t next_pkt_off;
	uint64_t pos;		/* bit position in the packet */
	uint64_t clock;		/* current clock value, cycles */
	uint64_t pkt_count;	/* packets begun (a packet's identity for caches) */

	/* packet context values that have a meaning */
	bool has_ts_begin, has_ts_end, has_disc, has_seq;
	uint64_t ts_begin, ts_end, disc, seq;
	uint64_t prev_disc, prev_seq, prev_ts_end;
	bool prev_valid;
	uint64_t cur_event_id;

	/* the packet context as text, made for the first line of each packet */
	struct rd_text pc_text;
	uint64_t pc_text_pkt;	/* pkt_count it was made for (0: none) */
	bool pc_text_names;	/* ... and with names or not */

	/* the event whose header was decoded last (its class: dev->ec) */
	struct rd_dec_event *dev;
	uint64_t ev_cycles;
	int64_t ev_ns;
	uint64_t ev_pos;	/* bit position of the event in the packet */
	uint64_t body_pos;	/* ... and of its body, once decoded (contexts, payload) */
	uint64_t events;	/* events decoded so far */
	/*
	 * The body is not decoded yet: rd_stream_next() steps over it first.
	 * Once it is, decoding it again (text, then fields) starts over at
	 * body_pos: decoding is a function of the bytes, so the slots, clock
	 * and position it leaves are the same each time.
	 */
	bool body_pending;
	bool eager_body;	/* decode the body with the header (no output wanted) */
	struct dctx evd;	/* the context events decode with (this packet) */
	struct plan_loop loops[MAX_LOOPS + 1];
};

enum rd_read_mode {
	RD_READ_MAP,	/* packets through the mapping (memory, probes, no file) */
	RD_READ_TRY,	/* a window at the next packet, if one can be had */
	RD_READ_WIN,	/* packets read into the window */
};

/*
 * Bytes [off, off + len) of @s's file in its window, read there if they
 * are not: *@p points at them, and *@avail (in: how many from @off are
 * wanted, at least @len, at most the file's rest) says how many are there.
 * *@p is NULL when the window cannot take them: read them through the
 * mapping. Returns 0, or -EIO with @err set when the file gives less than
 * it did at open. Valid until the next call on @s or rd_stream_win_fini().
 */
int rd_stream_win_get(struct rd_stream *s, uint64_t off, uint64_t len,
		      uint64_t *avail, const uint8_t **p, struct rd_err *err);
/*
 * The same for a packet's header and context, whose size is not known yet:
 * what the window has from @off on when that is a page or more (or the
 * file's rest), else a window read from @off.
 */
int rd_stream_win_head(struct rd_stream *s, uint64_t off, uint64_t *avail,
		       const uint8_t **p, struct rd_err *err);
/* Closes @s's window and descriptor (its next packet may open them again). */
void rd_stream_win_fini(struct rd_stream *s);

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

/*
 * Opens @path (borrowed) as a stream of @trace, decoded with @dec (both
 * must outlive the stream). Returns 0 or a negative errno.
 */
int rd_stream_open(struct rd_stream *s, struct rd_trace *trace,
		   struct rd_dec *dec, const char *path, uint64_t file_index,
		   struct rd_err *err);
void rd_stream_close(struct rd_stream *s);
/*
 * Decodes the next packets of @s with @dec, a newer decoder of the same
 * trace (live metadata grew). Only between packets. 0, -ENOMEM or -EINVAL.
 */
int rd_stream_rebind(struct rd_stream *s, struct rd_dec *dec, struct rd_err *err);
/* Same over a caller's buffer (borrowed; must outlive the stream). */
int rd_stream_open_buf(struct rd_stream *s, struct rd_trace *trace,
		       struct rd_dec *dec, const char *name, const void *buf,
		       uint64_t size, struct rd_err *err);

/*
 * Decodes the next event header. Returns 1 with s->dev/ev_cycles set, 0 at
 * the end of the stream, or a negative errno with @err set.
 */
int rd_stream_next(struct rd_stream *s, const struct rd_stream_cb *cb,
		   struct rd_err *err);

/*
 * Decodes up to @max events of the current packet (headers and bodies) of
 * a stream whose bodies are decoded with their headers (eager_body), as
 * that many rd_stream_next() calls would, while each takes the decoder's
 * fast paths and is earlier than @bound (ns from the origin: the earliest
 * event of the other streams merged with it); leaves the last one
 * current. Returns how many (0: none, rd_stream_next() takes the next one:
 * packet end, other shapes, errors, @bound reached).
 */
uint64_t rd_stream_skip_eager(struct rd_stream *s, uint64_t max, int64_t bound);

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
/* The same, printing into @t (not NULL) the format of RD_BODY_* bits @key. */
int rd_stream_body_key(struct rd_stream *s, struct rd_text *t, unsigned key,
		       struct rd_err *err);

/*
 * The packet context of the current packet as babeltrace2 prints it (with
 * field names or not), into s->pc_text: made once per packet, from the
 * packet's bytes again (the stream's position and clock are kept).
 */
int rd_stream_pc_text_make(struct rd_stream *s, bool names, struct rd_err *err);
static inline int rd_stream_pc_text(struct rd_stream *s, bool names,
				    struct rd_err *err)
{
	if (trawl_likely(s->pc_text_pkt == s->pkt_count && s->pc_text_names == names))
		return 0;
	return rd_stream_pc_text_make(s, names, err);
}

/*
 * A second cursor over @s's file (its mapping borrowed), for reading
 * packet contexts without moving @s: @probe must be finished with
 * rd_stream_probe_fini() before @s is closed.
 */
int rd_stream_probe_init(struct rd_stream *probe, const struct rd_stream *s);
void rd_stream_probe_fini(struct rd_stream *probe);

/*
 * The stream's time range: first packet's begin time, last packet's end
 * time, in ns from origin (reads packet contexts only, with a probe: @s
 * does not move).
 */
int rd_stream_time_range(const struct rd_stream *s, int64_t *begin,
			 int64_t *end, struct rd_err *err);

/* The first packet's begin time in ns from origin (INT64_MIN when it has none). */
int rd_stream_begin_ns(const struct rd_stream *s, int64_t *ns, struct rd_err *err);

/* Decodes the packet at the next offset (header and context only) and moves past it. */
int rd_stream_packet_peek(struct rd_stream *s, struct rd_err *err);

/* The next packet read will be the one at byte offset @byte_off. */
int rd_stream_seek_packet(struct rd_stream *s, uint64_t byte_off,
			  struct rd_err *err);

#endif /* TRAWL_READER_STREAM_H */
