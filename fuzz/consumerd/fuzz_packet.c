/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the consumer's packet path on memory a traced program
 * can write. Each input is a sub-buffer's bytes handed to
 * trawl_output_stream_packet() (consumerd/output.c, which checks it with
 * ctf/packet.h's trawl_ctf_packet_prepare()) on a real local output, in a
 * folder of its own under $TMPDIR. A packet either is refused (-EPROTO,
 * nothing written) or lands whole: the stream file holds exactly the bytes
 * reported (the content padded with zeros to the page size), with
 * packet_size rewritten to them, and the index one entry pointing at them.
 */
#include "consumerd/output.h"
#include "ctf/layout.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct trawl_output *out;
static unsigned uses;
static char dir[256];

/*
 * The output holds back 8 KiB for its seal per stream opened (output.c's
 * reserve): it is made anew every 256 inputs, so the folder stays small.
 */
static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	char err[256] = "";

	if (out && ++uses % 256)
		return;
	trawl_output_destroy(out);
	out = NULL;
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/fuzz-cons-packet.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			abort();
	}
	if (trawl_output_create(dir, (uid_t)-1, (gid_t)-1, &out, err, sizeof(err))) {
		fprintf(stderr, "fuzz-cons-packet: cannot set up %s: %s\n", dir, err);
		abort();
	}
}

static off_t file_size(const char *rel)
{
	char path[512];
	struct stat sb;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return stat(path, &sb) ? -1 : sb.st_size;
}

/* What landed for a packet of @n bytes: the file, its header, the entry. */
static void check_landed(int64_t n)
{
	struct trawl_ctf_packet_start head;
	struct trawl_ctf_index_entry e;
	char path[512];
	int fd;

	if (file_size("p_0") != n ||
	    file_size("index/p_0.idx") != (off_t)(sizeof(struct trawl_ctf_index_header) + sizeof(e)))
		__builtin_trap();
	snprintf(path, sizeof(path), "%s/p_0", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &head, sizeof(head), 0) != (ssize_t)sizeof(head))
		__builtin_trap();
	/* the padding after the content: zeros */
	{
		uint64_t at = (head.context.content_size + 7) / 8;
		uint8_t b;

		if (at > (uint64_t)n)
			__builtin_trap();
		for (; at < (uint64_t)n; at++)
			if (pread(fd, &b, 1, (off_t)at) != 1 || b)
				__builtin_trap();
	}
	close(fd);
	snprintf(path, sizeof(path), "%s/index/p_0.idx", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &e, sizeof(e), sizeof(struct trawl_ctf_index_header)) !=
			      (ssize_t)sizeof(e))
		__builtin_trap();
	close(fd);
	if (head.context.packet_size != (uint64_t)n * 8 || head.header.stream_instance_id != 9 ||
	    be64toh(e.offset) != 0 || be64toh(e.packet_size) != (uint64_t)n * 8 ||
	    be64toh(e.content_size) != head.context.content_size)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct trawl_output_stream *st;
	uint8_t *pkt;
	int64_t n;

	setup();
	/* exactly the sub-buffer's size, so ASan sees any overread */
	pkt = malloc(size ? size : 1);
	if (!pkt)
		return 0;
	memcpy(pkt, data, size);
	st = trawl_output_stream_open(out, "p_0", 9);
	if (!st)
		abort();
	n = trawl_output_stream_packet(st, pkt, size, -1);
	if (n == -EPROTO) {
		if (trawl_output_stream_bytes(st) || file_size("p_0") != 0)
			__builtin_trap();
	} else if (n <= 0 || (uint64_t)n % page || (uint64_t)n > (size + page - 1) / page * page ||
		   trawl_output_stream_bytes(st) != (uint64_t)n) {
		__builtin_trap();
	} else {
		check_landed(n);
	}
	trawl_output_stream_close(st);
	free(pkt);
	return 0;
}
