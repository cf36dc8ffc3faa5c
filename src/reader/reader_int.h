/* SPDX-License-Identifier: MIT */
/*
 * The reader object: the traces found under the input paths and a binary
 * min-heap of their streams keyed by the next event's time. `trawl view`
 * uses this internal view of it (it is part of the same project) to print
 * without copying.
 */
#ifndef TRAWL_READER_READER_INT_H
#define TRAWL_READER_READER_INT_H

#include "trawl/reader.h"
#include "reader/trace.h"

struct trawl_reader {
	struct rd_trace *traces;
	uint32_t ntraces;
	struct rd_stream **heap;	/* streams with a pending event */
	uint32_t nheap;
	struct rd_stream *cur;		/* stream of the current event */
	bool started;
	struct rd_err err;
	struct rd_text text;		/* for trawl_reader_event_text() */
	bool text_valid;		/* text holds the current event's fields */
	struct rd_stream_cb cb;
	/* discarded records, for summaries */
	uint64_t disc_events, disc_packets;
};

/*
 * @s has no event left: decodes the next event header of the files that
 * continue its data stream (s->next_file, ...). Returns 1 with *@sp the file
 * holding that event, 0 at the data stream's end, or a negative errno.
 */
int rd_reader_stream_continue(struct trawl_reader *r, struct rd_stream **sp);

/* Adds @s, whose next event header is decoded, to the merge heap. */
void rd_reader_heap_push(struct trawl_reader *r, struct rd_stream *s);

/*
 * No output wanted (trawl view --decode-only): bodies are decoded with
 * their headers; trawl_reader_event_text() then fails with -EALREADY.
 */
void rd_reader_set_decode_only(struct trawl_reader *r);

/* Sets the callback told about discarded events/packets (before next()). */
void rd_reader_set_discarded_cb(struct trawl_reader *r,
				const struct rd_stream_cb *cb);

/*
 * Clock of a stream, for printing: ns from origin of a cycle value, like
 * babeltrace2 (may overflow: returns -ERANGE).
 */
int rd_stream_cycles_to_ns(const struct rd_stream *s, uint64_t cycles,
			   int64_t *ns);

#endif /* TRAWL_READER_READER_INT_H */
