/* SPDX-License-Identifier: MIT */
/*
 * count.c - counts a lost packet's events with the reader's decoder (the
 * one trawl view uses, fuzzed in fuzz/reader/ on hostile packets), over a
 * trace made in memory of the metadata and that packet alone.
 *
 * Only packets that could not be written come here: the metadata is parsed
 * again for each, which costs about what writing the packet would have.
 */
#include "consumerd/count.h"
#include "ctf/layout.h"
#include "reader/trace.h"

#include <stdlib.h>
#include <string.h>

int64_t trawl_cons_packet_events(const char *metadata, size_t len, const void *pkt,
				 size_t content)
{
	struct rd_body_fmt fmt = {0};
	struct trawl_ctf_packet_start *head;
	struct rd_err err = {0};
	struct rd_trace t;
	int64_t n = 0;
	uint8_t *copy;
	int ret;

	if (!metadata || content < sizeof(*head))
		return -1;
	copy = malloc(content);
	if (!copy)
		return -1;
	/* a copy: the program may write the shared memory while we decode */
	memcpy(copy, pkt, content);
	head = (struct trawl_ctf_packet_start *)copy;
	/* as written: the packet is its content (consumerd/output.c) */
	if (head->context.content_size > (uint64_t)content * 8) {
		free(copy);
		return -1;
	}
	head->context.packet_size = head->context.content_size;
	if (rd_trace_open_mem(&t, metadata, len, copy, content, &err)) {
		rd_trace_close(&t);
		free(copy);
		return -1;
	}
	while ((ret = rd_stream_next(&t.streams[0], NULL, &err)) > 0) {
		if (rd_stream_body(&t.streams[0], NULL, &fmt, &err)) {
			ret = -1;
			break;
		}
		n++;
	}
	rd_trace_close(&t);
	free(copy);
	return ret < 0 ? -1 : n;
}
