/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for what the live server reads from outside: viewers'
 * commands and the trace files it serves. The first byte picks the surface:
 *
 *   0  the command decoder: a stream of commands (header, payload) decoded
 *      the way a viewer thread does;
 *   1  index files: a header and entries, checked against a data size;
 *   2  the metadata scanner, fed in chunks, and the clock block parser;
 *   3  a whole conversation: the bytes sent over TCP to a real server
 *      (relay_live_start) serving a small trace folder, replies drained.
 *
 * Seeds (seeds/) hold a normal viewer's conversation (attach, metadata,
 * index, packet) for surface 3, so the fuzzer starts from the happy path.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "relayd/live-proto.h"
#include "relayd/live.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static void fuzz_decoder(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (size - off >= sizeof(struct live_wire_cmd)) {
		struct live_request rq;
		uint32_t cmd;
		int len = live_cmd_payload_size(data + off, &cmd);

		off += sizeof(struct live_wire_cmd);
		if (len < 0)
			return;
		if ((size_t)len > LIVE_MAX_PAYLOAD || (size_t)len > size - off)
			return;
		if (live_request_decode(cmd, data + off, (size_t)len, &rq))
			abort(); /* a size the header check accepted must decode */
		off += (size_t)len;
	}
}

static void fuzz_index(const uint8_t *data, size_t size)
{
	struct live_index_entry e;
	uint64_t data_size;
	size_t off;
	int len;

	if (size < LIVE_INDEX_HEADER_SIZE + 8)
		return;
	memcpy(&data_size, data, 8);
	len = live_index_header_check(data + 8);
	if (len < 0)
		return;
	for (off = 8 + LIVE_INDEX_HEADER_SIZE; size - off >= (size_t)len; off += (size_t)len)
		if (live_index_entry_decode(data + off, data_size, &e) == 0 &&
		    (e.offset + e.packet_size / 8 > data_size || e.content_size > e.packet_size))
			abort();
}

static void fuzz_metadata(const uint8_t *data, size_t size)
{
	struct live_tsdl_scan s;
	uint8_t uuid[16];
	uint64_t freq;
	int64_t off_s, off;
	size_t at = 0;
	int has;

	live_tsdl_scan_init(&s);
	/* Chunk sizes from the data itself, so every split gets tried. */
	while (at < size) {
		at += 1 + (data[at] % 64);
		if (at > size)
			at = size;
		live_tsdl_scan_feed(&s, (const char *)data, at);
		if (s.usable > at)
			abort();
	}
	live_metadata_clock((const char *)data, size, uuid, &has, &freq);
	live_metadata_clock_offset((const char *)data, size, &off_s, &off);
}

/* ---- surface 3: a real server ---- */

static int port;

static void write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		abort();
	close(fd);
}

/* A trace folder with metadata, one stream of two 4 KiB packets and its index. */
static void make_trace(const char *root)
{
	static const char md[] = "/* CTF 1.8 */\ntrace { major = 1; minor = 8; byte_order = le; };\n"
				 "clock { name = \"monotonic\"; freq = 1000000000; };\n";
	uint32_t hdr[4] = {htobe32(0xC1F1DCC1u), htobe32(1), htobe32(1), htobe32(72)};
	uint64_t idx[2][9];
	char path[512], data[8192];
	int i;

	snprintf(path, sizeof(path), "%s/t", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/t/index", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/t/metadata", root);
	write_file(path, md, sizeof(md) - 1);
	memset(data, 0xa5, sizeof(data));
	snprintf(path, sizeof(path), "%s/t/ch_0", root);
	write_file(path, data, sizeof(data));
	for (i = 0; i < 2; i++) {
		idx[i][0] = htobe64((uint64_t)i * 4096);
		idx[i][1] = htobe64(4096 * 8);
		idx[i][2] = htobe64(4000 * 8);
		idx[i][3] = htobe64(1000 + (uint64_t)i * 100);
		idx[i][4] = htobe64(1099 + (uint64_t)i * 100);
		idx[i][5] = 0;
		idx[i][6] = 0;
		idx[i][7] = 0;
		idx[i][8] = htobe64((uint64_t)i);
	}
	snprintf(path, sizeof(path), "%s/t/index/ch_0.idx", root);
	{
		char buf[16 + sizeof(idx)];

		memcpy(buf, hdr, 16);
		memcpy(buf + 16, idx, sizeof(idx));
		write_file(path, buf, sizeof(buf));
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	char root[] = "/tmp/trawl-fuzz-live.XXXXXX";
	struct relay_live *rl;
	int fd;

	if (!mkdtemp(root))
		abort();
	make_trace(root);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		abort();
	port = ntohs(a.sin_port);
	rl = relay_live_start(fd);
	if (!rl || relay_live_session_add(rl, 1, "s", "host", root, 100000))
		abort();
	/* The server runs until the process ends: the folder is left for it. */
	return 0;
}

static void fuzz_server(const uint8_t *data, size_t size)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				.sin_port = htons((uint16_t)port)};
	struct timeval tv = {.tv_sec = 2};
	char buf[65536];
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
		size_t off = 0;

		while (off < size) {
			ssize_t n = send(fd, data + off, size - off, MSG_NOSIGNAL);

			if (n <= 0)
				break;
			off += (size_t)n;
		}
		shutdown(fd, SHUT_WR);
		while (recv(fd, buf, sizeof(buf), 0) > 0)
			;
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 4) {
	case 0:
		fuzz_decoder(data + 1, size - 1);
		break;
	case 1:
		fuzz_index(data + 1, size - 1);
		break;
	case 2:
		fuzz_metadata(data + 1, size - 1);
		break;
	default:
		fuzz_server(data + 1, size - 1);
		break;
	}
	return 0;
}
