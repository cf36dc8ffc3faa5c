/* SPDX-License-Identifier: MIT */
/*
 * babeltrace2's warning for discarded events or packets, word for word:
 *
 *   WARNING: Tracer discarded 3 events between [22:13:20.510419021] and
 *   [22:13:20.512000000] in trace "host/ust" (UUID: ...) within stream
 *   "/path/chan_0" (stream class ID: 0, stream ID: 0).
 *
 * (one line), or "may have discarded events" when the count is not known.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "reader/reader_int.h"

static void put_uuid(struct rd_text *t, const struct trace_class *tc)
{
	char u[64];
	const uint8_t *x = tc->uuid;

	if (!tc->has_uuid) {
		rd_text_lit(t, "(no UUID) ");
		return;
	}
	snprintf(u, sizeof(u),
		 "(UUID: %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x) ",
		 x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10],
		 x[11], x[12], x[13], x[14], x[15]);
	rd_text_str(t, u);
}

TRAWL_EXPORT int trawl_reader_discarded_append_text(struct trawl_reader *r,
						    const struct trawl_reader_discarded *d,
						    struct trawl_reader_buf *buf)
{
	const struct rd_stream *s = rd_stream_of(d->stream);
	bool packets = d->kind == TRAWL_READER_DISCARDED_PACKETS;
	struct rd_text t = rd_text_from_buf(buf);

	if (d->approximate) {
		rd_text_lit(&t, "WARNING: Tracer may have discarded ");
		rd_text_str(&t, packets ? "packets" : "events");
	} else {
		rd_text_lit(&t, "WARNING: Tracer discarded ");
		rd_text_u64(&t, d->count);
		rd_text_str(&t, packets ? " packet" : " event");
		if (d->count != 1)
			rd_text_lit(&t, "s");
	}
	rd_text_lit(&t, " ");
	if (d->has_range) {
		/* always wall-clock time, even with --clock-cycles, as babeltrace2 */
		rd_text_lit(&t, "between [");
		rd_line_time(r, &t, d->begin_ns);
		rd_text_lit(&t, "] and [");
		rd_line_time(r, &t, d->end_ns);
		rd_text_lit(&t, "]");
	} else {
		rd_text_lit(&t, "(unknown time range)");
	}
	rd_text_lit(&t, " in trace \"");
	rd_text_str(&t, s->trace->name);
	rd_text_lit(&t, "\" ");
	put_uuid(&t, s->trace->tc);
	rd_text_lit(&t, "within stream \"");
	rd_text_str(&t, s->stream_name);
	rd_text_lit(&t, "\" (stream class ID: ");
	rd_text_u64(&t, s->sc->id);
	rd_text_lit(&t, ", stream ID: ");
	rd_text_u64(&t, s->id);
	rd_text_lit(&t, ").\n");
	return rd_text_to_buf(&t, buf, buf->len);
}
