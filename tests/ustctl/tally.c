/* SPDX-License-Identifier: MIT */
/*
 * TALLY (src/ustabi/wire.h) as the daemon's side of ustctl reads it, the
 * app played by bytes written in advance on a socketpair:
 *
 *   1. after a registration, a TALLY's entries come as news, in order;
 *   2. a TALLY before the registration, one with a count of 0, a reserved
 *      field set or a name without ':' is refused (-EPROTO);
 *   3. past its events and one more message's entries, an app's TALLYs
 *      are read and ignored;
 *   4. trawl_ustctl_channel_add_discarded() is what a consumer reads as
 *      the stream's discarded events, and stops at 2^48.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/check.h"
#include "fake_app.h"
#include "ustctl/ustctl.h"
#include "ustabi/wire.h"

/* A TALLY of @nr entries "p:eN" counting N + 1, the first's count @c0. */
static void put_tally(int fd, uint32_t nr, uint64_t c0, uint32_t reserved)
{
	struct trawl_wire_tally t;
	uint32_t i;

	memset(&t, 0, sizeof(t));
	trawl_wire_hdr_init(&t.hdr, TRAWL_WIRE_TALLY,
			    (uint32_t)(sizeof(t) + nr * sizeof(struct trawl_wire_tally_entry)));
	t.nr_entries = nr;
	fake_app_put(fd, &t, sizeof(t));
	for (i = 0; i < nr; i++) {
		struct trawl_wire_tally_entry e;

		memset(&e, 0, sizeof(e));
		snprintf(e.name, sizeof(e.name), "p:e%u", i);
		e.loglevel = 13;
		e.count = i ? i + 1 : c0;
		e.reserved = reserved;
		fake_app_put(fd, &e, sizeof(e));
	}
}

/* Reads what is there; the last news in @n. 1 (news), 0 (none), -errno. */
static int drain_n(struct trawl_ustctl_app *app, struct trawl_ustctl_app_news *n, int *nr_news, int tries)
{
	int ret, may_read = 1, last = 0;

	*nr_news = 0;
	for (int i = 0; i < tries; i++) {
		while ((ret = trawl_ustctl_app_input(app, may_read, n)) > 0) {
			may_read = 0;
			last = 1;
			++*nr_news;
			if (n->kind == TRAWL_USTCTL_NEWS_TALLY)
				return 1; /* entries valid until the next input */
		}
		if (ret < 0)
			return ret;
		may_read = 1;
		usleep(1000);
	}
	return last;
}

/* Up to 10 s for news (what the app sent is there by then). */
static int drain(struct trawl_ustctl_app *app, struct trawl_ustctl_app_news *n, int *nr_news)
{
	return drain_n(app, n, nr_news, 10000);
}

static struct trawl_ustctl_app *open_app(int sv[2])
{
	struct trawl_ustctl_app *app;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) || trawl_ustctl_app_open(sv[0], NULL, &app))
		abort();
	return app;
}

int main(void)
{
	struct trawl_ustctl_app_news n;
	struct trawl_ustctl_app *app;
	int sv[2], k, i;

	/* 1. */
	app = open_app(sv);
	fake_app_register(sv[1], 2, "tally");
	fake_app_event(sv[1], "p:e0");
	fake_app_event(sv[1], "p:e1");
	put_tally(sv[1], 2, 20, 0);
	CHECK(drain(app, &n, &k) == 1);
	CHECK(n.kind == TRAWL_USTCTL_NEWS_TALLY && n.nr_tally == 2);
	if (n.kind == TRAWL_USTCTL_NEWS_TALLY && n.nr_tally == 2) {
		CHECK(!strcmp(n.tally[0].name, "p:e0") && n.tally[0].count == 20 && n.tally[0].loglevel == 13);
		CHECK(!strcmp(n.tally[1].name, "p:e1") && n.tally[1].count == 2);
	}
	/* 3. 2 events + 1,024: what is left of the bound is 1,024 - 0. */
	{
		/* Larger than a socket's buffer: written by a child as read. */
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			put_tally(sv[1], TRAWL_WIRE_MAX_TALLY, 1, 0);
			put_tally(sv[1], 1, 5, 0);
			_exit(0);
		}
		CHECK(drain(app, &n, &k) == 1 && n.nr_tally == TRAWL_WIRE_MAX_TALLY);
		CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st));
		CHECK(drain_n(app, &n, &k, 50) == 0 && k == 0); /* ignored, not refused */
	}
	trawl_ustctl_app_destroy(app);
	close(sv[1]);

	/* 2. */
	for (k = 0; k < 4; k++) {
		app = open_app(sv);
		if (k) {
			fake_app_register(sv[1], 1, "tally");
			fake_app_event(sv[1], "p:e0");
		}
		if (k == 3) {
			struct trawl_wire_tally t;
			struct trawl_wire_tally_entry e;

			memset(&t, 0, sizeof(t));
			memset(&e, 0, sizeof(e));
			trawl_wire_hdr_init(&t.hdr, TRAWL_WIRE_TALLY, sizeof(t) + sizeof(e));
			t.nr_entries = 1;
			strcpy(e.name, "nocolon");
			e.count = 1;
			fake_app_put(sv[1], &t, sizeof(t));
			fake_app_put(sv[1], &e, sizeof(e));
		} else {
			put_tally(sv[1], 1, k == 1 ? 0 : 1, k == 2 ? 7 : 0);
		}
		CHECK(drain(app, &n, &i) == -EPROTO);
		trawl_ustctl_app_destroy(app);
		close(sv[1]);
	}

	/* 4. */
	{
		struct trawl_ustctl_channel_attr attr = {
			.subbuf_size = 4096, .num_subbuf = 2, .nr_streams = 1,
		};
		struct trawl_ustctl_stream_counters c;
		struct trawl_ustctl_channel *ch;
		struct trawl_ustctl_stream *st;
		int fd;

		CHECK(trawl_ustctl_channel_create(&attr, &ch) == 0);
		CHECK(trawl_ustctl_channel_add_discarded(ch, 5) == 0);
		CHECK(trawl_ustctl_channel_add_discarded(ch, 0) == 0);
		fd = dup(trawl_ustctl_channel_stream_fd(ch, 0));
		CHECK(trawl_ustctl_stream_map(fd, &attr, 0, 0, &st) == 0);
		CHECK(trawl_ustctl_stream_counters(st, &c) == 0 && c.events_discarded == 5);
		CHECK(trawl_ustctl_channel_add_discarded(ch, 1ull << 50) == 0);
		CHECK(trawl_ustctl_stream_counters(st, &c) == 0 && c.events_discarded == 1ull << 48);
		trawl_ustctl_stream_unmap(st);
		trawl_ustctl_channel_destroy(ch);
	}
	if (check_fails)
		return 1;
	printf("ok\n");
	return 0;
}
