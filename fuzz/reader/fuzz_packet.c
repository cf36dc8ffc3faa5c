/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the packet and event decoder, with text output. The
 * input is "METADATA TEXT \0 STREAM BYTES": the metadata is parsed first
 * (invalid metadata ends the run early), then every event of the stream is
 * decoded and printed as trawl view would, until the end or an error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reader/decode_int.h"
#include "reader/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	struct rd_trace t;
	struct rd_err err = { 0 };
	struct rd_text text = { 0 };
	struct rd_body_fmt fmt = { .sep_first = true, .ctx_names = true,
				   .payload_names = true };
	uint8_t *stream;
	size_t mlen, slen;
	int ret, n = 0;

	if (!nul || size > (4u << 20))
		return 0;
	mlen = (size_t)(nul - data);
	slen = size - mlen - 1;
	/* a copy of exactly the stream's size, so ASan sees any overread */
	stream = malloc(slen ? slen : 1);
	if (!stream)
		return 0;
	memcpy(stream, nul + 1, slen);
	ret = rd_trace_open_mem(&t, (const char *)data, mlen, stream, slen, &err);
	if (ret == 0) {
		struct rd_stream *s = &t.streams[0];

		while (rd_stream_next(s, NULL, &err) > 0 && n++ < 100000) {
			text.len = 0;
			text.names = true;
			if (rd_stream_body(s, (n & 1) ? &text : NULL, &fmt, &err))
				break;
		}
	}
	rd_trace_close(&t);
	free(text.buf);
	free(stream);
	return 0;
}
