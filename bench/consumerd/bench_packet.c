/* SPDX-License-Identifier: MIT */
/*
 * bench-cons-packet: the consumers' packet path alone, for callgrind.
 *
 *   bench-cons-packet DIR [PACKETS]      (default 20000)
 *
 * Hands PACKETS sub-buffers (64 KiB, 48 KiB of content: a packet header
 * and context as a ring buffer's reader writes them, then event bytes) to
 * trawl_output_stream_packet() of a local output in DIR (a tmpfs, so that
 * the disk is not what is measured): the check, the header rewrite, the
 * index entry and the two writes of each packet. Prints the packets and
 * bytes written. run.sh counts its instructions per packet with
 * `valgrind --tool=callgrind --toggle-collect=trawl_output_stream_packet`,
 * a figure the machine's load does not move.
 */
#include "consumerd/output.h"
#include "ctf/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUBBUF (64u << 10)
#define CONTENT (48u << 10)

int main(int argc, char **argv)
{
	struct trawl_ctf_packet_start *head;
	struct trawl_output_stream *st;
	struct trawl_output *o;
	unsigned long i, n = argc > 2 ? strtoul(argv[2], NULL, 10) : 20000;
	uint64_t bytes = 0;
	char err[512] = "";
	uint8_t *sub;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-cons-packet DIR [PACKETS]\n");
		return 2;
	}
	sub = calloc(1, SUBBUF);
	if (!sub || trawl_output_create(argv[1], (uid_t)-1, (gid_t)-1, &o, err, sizeof(err))) {
		fprintf(stderr, "bench-cons-packet: %s: %s\n", argv[1], err);
		return 1;
	}
	st = trawl_output_stream_open(o, "channel0_0", 1);
	if (!st) {
		fprintf(stderr, "bench-cons-packet: cannot open a stream in %s\n", argv[1]);
		return 1;
	}
	memset(sub + sizeof(*head), 0x5a, CONTENT - sizeof(*head));
	head = (struct trawl_ctf_packet_start *)sub;
	head->header.magic = TRAWL_CTF_MAGIC;
	head->context.content_size = (uint64_t)CONTENT * 8;
	head->context.packet_size = (uint64_t)SUBBUF * 8;
	for (i = 0; i < n; i++) {
		int64_t w;

		head->context.timestamp_begin = i * 1000;
		head->context.timestamp_end = i * 1000 + 999;
		head->context.packet_seq_num = i;
		w = trawl_output_stream_packet(st, sub, SUBBUF, -1);
		if (w <= 0) {
			fprintf(stderr, "bench-cons-packet: packet %lu: %lld\n", i, (long long)w);
			return 1;
		}
		bytes += (uint64_t)w;
	}
	trawl_output_stream_close(st);
	trawl_output_destroy(o);
	free(sub);
	printf("packets=%lu bytes=%llu\n", n, (unsigned long long)bytes);
	return 0;
}
