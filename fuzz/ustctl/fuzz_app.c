/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the daemon's reader of an app's connection
 * (src/ustctl/app.c): arbitrary bytes, arriving in arbitrary pieces, as
 * an app would send them on apps.sock, through trawl_ustctl_app_input()
 * with small limits, answering what it hands back as the session daemon
 * does (refusals, a few commands whose replies the bytes may hold). It
 * must never crash, never hold more than its limits say, and give every
 * byte back to the shared budget when the app goes.
 *
 * Input: byte 0 = how many bytes go in each write (1 + b % 64, or the
 * rest at once when b >= 192), byte 1 = commands queued once registered
 * (b % 4); the rest is the app's side of the stream (TALLYs included).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ustctl/app-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* app-cmd.c's one call into ustctl.c (a channel given to an app older than
 * the wake-ups): this harness gives apps no channel, so ustctl.c (ring
 * buffers, shm) stays out of the target and this stands in for it. */
int trawl_ustctl_channel_mark_legacy(const struct trawl_ustctl_channel *chan)
{
	(void)chan;
	return 0;
}

/* One readiness, as the daemon's loop serves it: one read, then what it
 * completed. 0, or -1 once the app is to be dropped. */
static int serve(struct trawl_ustctl_app *app, uint64_t *shared, const struct trawl_ustctl_app_limits *lim,
		 unsigned cmds)
{
	struct trawl_ustctl_app_news news;
	int ret, may_read = 1;

	for (;;) {
		ret = trawl_ustctl_app_input(app, may_read, &news);
		may_read = 0;
		if (trawl_ustctl_app_bytes(app) > lim->max_bytes || *shared > lim->shared_max)
			abort();
		if (ret <= 0)
			return ret < 0 ? -1 : 0;
		switch (news.kind) {
		case TRAWL_USTCTL_NEWS_REGISTERED:
			while (cmds--)
				trawl_ustctl_app_start(app, cmds);
			trawl_ustctl_app_registration_done_flags(app, TRAWL_USTCTL_DONE_TAKES_ADDED);
			break;
		case TRAWL_USTCTL_NEWS_REFUSED:
			trawl_ustctl_app_refuse(app);
			break;
		case TRAWL_USTCTL_NEWS_ADDED: {
			uint32_t first, n = trawl_ustctl_app_take_added(app, &first), i;

			for (i = 0; i < n; i++)
				if (!trawl_ustctl_app_event(app, first + i))
					abort();
			trawl_ustctl_app_registration_done_flags(app, TRAWL_USTCTL_DONE_TAKES_ADDED);
			break;
		}
		case TRAWL_USTCTL_NEWS_REPLY:
			if (news.ret > 0 || news.ret < -4095)
				abort();
			break;
		case TRAWL_USTCTL_NEWS_TALLY: {
			uint64_t sum = 0;
			uint32_t i;

			/* What app_tally() (the daemon) reads: every entry. */
			if (!news.tally || !news.nr_tally || news.nr_tally > TRAWL_WIRE_MAX_TALLY)
				abort();
			for (i = 0; i < news.nr_tally; i++) {
				if (!news.tally[i].count || news.tally[i].count > TRAWL_WIRE_MAX_TALLY_COUNT ||
				    strnlen(news.tally[i].name, sizeof(news.tally[i].name)) >= sizeof(news.tally[i].name))
					abort();
				sum += news.tally[i].count; /* <= 2^58: no wrap */
			}
			if (sum < news.nr_tally)
				abort();
			break;
		}
		case TRAWL_USTCTL_NEWS_TALLY_SHM: {
			/* What the daemon reads once the app is gone: each entry checked. */
			struct trawl_ustctl_tally_entry *left = NULL;
			struct trawl_ustctl_tally_shm shm;
			uint64_t overflow = 0;
			uint32_t nr = 0, i;

			if (!trawl_ustctl_app_tally_shm_take(app, &shm) &&
			    trawl_ustctl_tally_shm_read(&shm, &left, &nr, &overflow) == 0) {
				if (overflow > TRAWL_WIRE_MAX_TALLY_COUNT || nr > shm.limit)
					abort();
				for (i = 0; i < nr; i++)
					if (left[i].count > TRAWL_WIRE_MAX_TALLY_COUNT ||
					    strnlen(left[i].name, sizeof(left[i].name)) >= sizeof(left[i].name))
						abort();
			}
			trawl_ustctl_tally_shm_close(&shm);
			free(left);
			break;
		}
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t shared = 0;
	struct trawl_ustctl_app_limits lim = {
		.max_events = 64,
		.max_fields = 16,
		.max_bytes = 256 << 10,
		.shared_bytes = &shared,
		.shared_max = 384 << 10,
	};
	struct trawl_ustctl_app *app;
	size_t piece, off;
	int sv[2];

	if (size < 2 || size > (150 << 10))
		return 0;
	piece = data[0] >= 192 ? size : 1u + data[0] % 64u;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	if (trawl_ustctl_app_open(sv[0], &lim, &app)) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	/* Piece by piece, the reader resuming each time. */
	for (off = 2; off < size; off += piece) {
		size_t n = size - off < piece ? size - off : piece;

		/* Never waits: a reader that stopped (the app is to be dropped)
		 * would leave the socket full. */
		if (send(sv[1], data + off, n, MSG_DONTWAIT) != (ssize_t)n ||
		    serve(app, &shared, &lim, data[1] % 4u))
			break;
	}
	close(sv[1]);
	/* What is left, up to the end of the stream (an error at the latest). */
	for (off = 0; off < 100000 && !serve(app, &shared, &lim, 0); off++)
		;
	trawl_ustctl_app_destroy(app);
	if (shared)
		abort(); /* the budget leaks */
	return 0;
}
