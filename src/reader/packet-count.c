/* SPDX-License-Identifier: MIT */
/*
 * packet-count.c - trawl_reader_packet_count_events() (<trawl/reader.h>):
 * one packet decoded alone over a trace made in memory of the metadata and
 * that packet, with the decoder trawl view uses (fuzzed on hostile packets
 * by fuzz/reader/ and fuzz/consumerd/). The metadata is parsed again for
 * each call: its callers (the consumer, for a packet it could not write)
 * are rare and pay what writing the packet would have cost.
 */
#include <trawl/reader.h>

#include "reader/stream.h"
#include "reader/trace.h"

#include <errno.h>

int trawl_reader_packet_count_events(const char *metadata, size_t len, const void *packet,
				     size_t size, uint64_t *count)
{
	struct rd_body_fmt fmt = {0};
	struct rd_err err = {0};
	struct rd_trace t;
	uint64_t n = 0;
	int ret;

	if (!metadata || !packet || !count)
		return -EINVAL;
	if (rd_trace_open_mem(&t, metadata, len, packet, size, &err)) {
		rd_trace_close(&t);
		return -EINVAL;
	}
	while ((ret = rd_stream_next(&t.streams[0], NULL, &err)) > 0) {
		if (rd_stream_body(&t.streams[0], NULL, &fmt, &err)) {
			ret = -1;
			break;
		}
		n++;
	}
	rd_trace_close(&t);
	if (ret < 0)
		return -EINVAL;
	*count = n;
	return 0;
}
