/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: libtrawl-reader's lttng-live client (src/reader/live*.c)
 * against a relay daemon that says whatever the input says. The input is
 * the whole byte stream the "relay daemon" sends, in order, over a socket
 * pair; a thread writes it and then reads (and drops) the client's
 * requests. The client connects, lists, attaches to session "s" of host
 * "h", then reads events, as babeltrace2's text lines, until the input
 * runs out (the connection closes: an error) or it ends. Nothing may
 * crash, leak, hang or read out of bounds, whatever the bytes.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "reader/live_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct relay {
	int fd;
	const uint8_t *data;
	size_t size;
};

static void *relay_main(void *arg)
{
	struct relay *rl = arg;
	char sink[4096];
	size_t off = 0;

	while (off < rl->size) {
		/* MSG_NOSIGNAL: the client closes its end when it gives up
		 * (an error), and a plain write() would then raise SIGPIPE. */
		ssize_t n = send(rl->fd, rl->data + off, rl->size - off, MSG_NOSIGNAL);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	shutdown(rl->fd, SHUT_WR);
	while (read(rl->fd, sink, sizeof(sink)) > 0)
		;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct relay rl = { .data = data, .size = size };
	struct trawl_reader *r = NULL;
	struct trawl_reader_buf line = { 0 };
	pthread_t th;
	int sv[2], n = 0;

	if (size > (1u << 20) || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	rl.fd = sv[1];
	if (pthread_create(&th, NULL, relay_main, &rl)) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	if (rd_live_open_fd(sv[0], "h", "s", 0, &r) == 0) {
		while (n++ < 100000 && trawl_reader_next(r) > 0) {
			line.len = 0;
			if (trawl_reader_event_append_line(r, &line))
				break;
		}
	}
	/* closes the client's end: the relay thread's read ends */
	trawl_reader_destroy(r);
	pthread_join(th, NULL);
	close(sv[1]);
	free(line.data);
	return 0;
}
