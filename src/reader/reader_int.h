/* SPDX-License-Identifier: MIT */
/*
 * The reader object (layer 5, see internal.h): the traces found under the
 * input paths, a binary min-heap of their streams keyed by the next event's
 * time, what the caller asked for (time range, text options, callbacks),
 * and what it was lent (the current event's fields, its text).
 *
 * The public types are these internal ones under their public names:
 * struct trawl_reader_trace is a struct rd_trace, struct
 * trawl_reader_stream a struct rd_stream, struct trawl_reader_event_class a
 * struct event_class, struct trawl_reader_field a struct rd_value, struct
 * trawl_reader_selection a struct rd_flat_sel (flat.h). The
 * casts live here, one inline function each way.
 */
#ifndef TRAWL_READER_READER_INT_H
#define TRAWL_READER_READER_INT_H

#include <errno.h>

#include "trawl/reader.h"
#include "reader/trace.h"
#include "reader/flat.h"
#include "reader/values.h"

/* babeltrace2's pretty printer's state across lines (line.c). */
struct rd_line {
	struct trawl_reader_text_options o;
	bool names_payload, names_context, names_scope, names_header;
	/*
	 * The options of babeltrace2's default line ("[time] (+delta) "
	 * then fields without a named header): line_fast() may make it.
	 */
	bool fast;
	uint64_t last_ns, last_cycles;	/* UINT64_MAX until a line is made */
	bool neg_warned, localtime_warned;
	/* cached "HH:MM:SS." (or with the date) of the last second printed */
	int64_t cache_sec;
	bool cache_valid;
	/*
	 * The time (ns) the cached second starts at, when it was made for a
	 * time at or after 0 (cache_fast): a time less than a second after it
	 * takes the cache without a division.
	 */
	bool cache_fast;
	int64_t cache_base_ns;
	/*
	 * line_fast(): the first five of the nine digits after the second
	 * (its 10 us), kept from the line before: events microseconds
	 * apart share them, and the last four are two table lookups.
	 */
	uint32_t sub_hi;		/* UINT32_MAX: none */
	char sub_text[8];		/* its 5 digits, then 3 bytes of no use */
	char cache[48];
	size_t cache_len;
	/* what follows the time, for the last event class and trace seen */
	const struct event_class *tail_ec;
	const struct rd_trace *tail_trace;
	struct rd_text tail;
};

struct trawl_reader {
	struct rd_trace *traces;
	uint32_t ntraces;
	struct rd_stream **heap;	/* streams with a pending event */
	uint32_t nheap;
	struct rd_stream *cur;		/* stream of the current event */
	bool started;
	struct rd_err err;
	unsigned int flags;		/* TRAWL_READER_* */
	struct rd_stream_cb cb;		/* the streams' discarded-record reports */

	/* trawl_reader_set_time_range() and _set_stream_intersection() */
	bool ranged;			/* any of them: next() filters */
	int64_t begin_ns, end_ns;	/* INT64_MIN, INT64_MAX: none */
	int64_t *isect_begin, *isect_end;	/* per trace index, or NULL */

	/*
	 * Discarded records: found when a stream reads a packet ahead of the
	 * merge, handed to disc_fn in time order (range.c) from this queue,
	 * sorted by begin_ns.
	 */
	trawl_reader_discarded_fn disc_fn;
	void *disc_arg;
	uint64_t disc_events, disc_packets;
	struct trawl_reader_discarded *disc_queue;	/* owned */
	uint32_t ndisc, capdisc;

	/* text */
	struct rd_line line;
	struct rd_text text;		/* for trawl_reader_event_text() */
	bool text_valid;		/* text holds the current event's fields */
	trawl_reader_warning_fn warn_fn;
	void *warn_arg;

	/* the current event's fields (values.c) */
	struct rd_values pc_vals;	/* packet context, of pc_stream's pc_pkt */
	const struct rd_stream *pc_stream;
	uint64_t pc_pkt;
	struct rd_values body_vals;	/* contexts and payload, of the current event */
	bool body_vals_valid;
	struct rd_flat body_flat;	/* the same, flat (flat.c), for trawl_reader_event_int()... */
	bool body_flat_valid;

	/* a live reader (live.c): its connection, sessions, traces, streams */
	struct rd_live *live;		/* owned; NULL: traces on disk */
	trawl_reader_idle_fn idle_fn;
	void *idle_arg;
};

static inline const struct rd_trace *rd_trace_of(const struct trawl_reader_trace *t)
{
	return (const struct rd_trace *)(const void *)t;
}
static inline const struct trawl_reader_trace *rd_trace_pub(const struct rd_trace *t)
{
	return (const struct trawl_reader_trace *)(const void *)t;
}
static inline const struct rd_stream *rd_stream_of(const struct trawl_reader_stream *s)
{
	return (const struct rd_stream *)(const void *)s;
}
static inline const struct trawl_reader_stream *rd_stream_pub(const struct rd_stream *s)
{
	return (const struct trawl_reader_stream *)(const void *)s;
}
static inline const struct event_class *
rd_event_class_of(const struct trawl_reader_event_class *ec)
{
	return (const struct event_class *)(const void *)ec;
}
static inline const struct trawl_reader_event_class *
rd_event_class_pub(const struct event_class *ec)
{
	return (const struct trawl_reader_event_class *)(const void *)ec;
}

static inline const struct rd_flat_sel *rd_sel_of(const struct trawl_reader_selection *sel)
{
	return (const struct rd_flat_sel *)(const void *)sel;
}
static inline struct trawl_reader_selection *rd_sel_pub(struct rd_flat_sel *sel)
{
	return (struct trawl_reader_selection *)(void *)sel;
}

/* The current event moved: what was lent for it is no longer valid. */
static inline void rd_reader_event_changed(struct trawl_reader *r)
{
	r->text_valid = false;
	r->body_vals_valid = false;
	r->body_flat_valid = false;
}

/* discover.c: finds and opens the traces under @paths into @r. */
int rd_reader_discover(struct trawl_reader *r, const char *const *paths,
		       size_t npaths);

/* reader.c */
/*
 * @s has no event left: decodes the next event header of the files that
 * continue its data stream (s->next_file, ...). Returns 1 with *@sp the file
 * holding that event, 0 at the data stream's end, or a negative errno.
 */
int rd_reader_stream_continue(struct trawl_reader *r, struct rd_stream **sp);
/* <0 when @a's pending event comes before @b's (babeltrace2's muxer order). */
int rd_stream_cmp(const struct rd_stream *a, const struct rd_stream *b);
/* Adds @s, whose next event header is decoded, to the merge heap. */
void rd_reader_heap_push(struct trawl_reader *r, struct rd_stream *s);
/* -EOPNOTSUPP (with the message) on a live reader, for @what; else 0. */
int rd_reader_not_live(struct trawl_reader *r, const char *what);
/* -EBUSY (with the message) once reading started, for @what; else 0. */
int rd_reader_not_started(struct trawl_reader *r, const char *what);

/* live.c: trawl_reader_next() of a live reader; freeing its state. */
int rd_live_next(struct trawl_reader *r);
void rd_live_destroy(struct rd_live *l);
/* The clock offset of trawl_reader_set_clock_offset(), for traces to come. */
void rd_live_set_clock_offset(struct rd_live *l, int64_t seconds, int64_t ns);

/* range.c: the streams' discarded-record reports, trimmed to the range. */
void rd_reader_on_discarded(void *arg, struct rd_stream *s, bool packets,
			    uint64_t count, bool have_range, uint64_t b, uint64_t e);
/*
 * Hands the queued discarded records that come before @ns (all of them
 * with INT64_MAX) to the callback.
 */
void rd_reader_discarded_flush(struct trawl_reader *r, int64_t ns);
/* The current event is outside the range: 1 skip it, 2 stop; 0 keep. */
int rd_reader_range_check(const struct trawl_reader *r, const struct rd_stream *s);

/* line.c */
void rd_line_init(struct rd_line *l);
void rd_line_fini(struct rd_line *l);
/* Appends @ns as the lines show a time (may warn through @r). */
void rd_line_time(struct trawl_reader *r, struct rd_text *t, int64_t ns);

/*
 * Clock of a stream, for printing: ns from origin of a cycle value, like
 * babeltrace2 (may overflow: returns -ERANGE).
 */
int rd_stream_cycles_to_ns(const struct rd_stream *s, uint64_t cycles,
			   int64_t *ns);

/* The caller's buffer as an rd_text and back (nothing appended on error). */
static inline struct rd_text rd_text_from_buf(const struct trawl_reader_buf *b)
{
	return (struct rd_text){ .buf = b->data, .len = b->len, .cap = b->cap };
}
static inline int rd_text_to_buf(struct rd_text *t, struct trawl_reader_buf *b,
				 size_t mark)
{
	b->data = t->buf;
	b->cap = t->cap;
	if (t->oom) {
		b->len = mark;
		return -ENOMEM;
	}
	b->len = t->len;
	return 0;
}

#endif /* TRAWL_READER_READER_INT_H */
