/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for `trawl crash`'s parser (src/ringbuffer/crash.c): a
 * --shm-path buffer file is its owner's (and any traced app's) to write, so
 * every byte of it is hostile. Two shapes of input (the first byte's low
 * bit picks):
 *  - the whole file as is (a real file is a seed);
 *  - the bytes laid over the control page and meta of a valid 4 x 4 KiB
 *    buffer, so that the fuzzer works on the words the walk trusts least
 *    (positions, commit counts, content ends) with the sizes right.
 * Each packet given out must lie inside the file: checked here.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ringbuffer/crash.h"
#include "ringbuffer/ringbuffer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct span {
	const char *buf;
	size_t len;
};

static int check_packet(void *arg, const void *pkt, size_t size)
{
	const struct span *s = arg;
	const char *p = pkt;

	if (p < s->buf || (size_t)(p - s->buf) > s->len || size > s->len - (size_t)(p - s->buf) ||
	    size < TRAWL_RB_PACKET_START)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct span s;
	char *buf;
	size_t len;

	if (!size)
		return 0;
	if (data[0] & 1) {
		len = size - 1;
		buf = malloc(len ? len : 1);
		if (!buf)
			return 0;
		memcpy(buf, data + 1, len);
	} else {
		int fd = trawl_rb_shm_create(4096, 4, data[0] >> 1 & 1, 0, TRAWL_RB_CLOCK_MONOTONIC, NULL);
		size_t n = size - 1;

		if (fd < 0)
			return 0;
		len = trawl_rb_shm_size(4096, 4);
		buf = calloc(1, len);
		if (!buf || pread(fd, buf, len, 0) != (ssize_t)len) {
			close(fd);
			free(buf);
			return 0;
		}
		close(fd);
		if (n > trawl_rb_ctrl_size(4))
			n = trawl_rb_ctrl_size(4);
		/* past the magic and sizes (kept valid), over everything else */
		if (n > 32)
			n -= 32;
		else
			n = 0;
		memcpy(buf + 32, data + 1, n);
	}
	s.buf = buf;
	s.len = len;
	trawl_rb_crash_packets(buf, len, check_packet, &s, NULL);
	free(buf);
	return 0;
}
