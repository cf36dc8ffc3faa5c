/* SPDX-License-Identifier: MIT */
/*
 * EVENTS_ADDED (src/ustabi/wire.h) as the daemon's side of ustctl reads it,
 * with the app played by bytes written in advance on a socketpair, so the
 * interleavings are exact rather than timed:
 *
 *   1. the app adds an event unasked, and the daemon reads it when the fd is
 *      readable (trawl_ustctl_app_recv_added());
 *   2. the app adds one while the daemon waits for a reply: it is read
 *      before the reply, the caller's eventfd is told, the command succeeds;
 *   3. REGISTRATION_DONE says how many events the daemon has;
 *   4. a bad first index, or anything else unasked, is refused (-EPROTO).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/check.h"
#include "fake_app.h"
#include "common/io.h"
#include "ustctl/ustctl.h"
#include "ustabi/wire.h"

static void put_added(int fd, uint32_t first, uint32_t nr)
{
	struct trawl_wire_events_added a;

	memset(&a, 0, sizeof(a));
	trawl_wire_hdr_init(&a.hdr, TRAWL_WIRE_EVENTS_ADDED, sizeof(a));
	a.first_index = first;
	a.nr_events = nr;
	fake_app_put(fd, &a, sizeof(a));
}

static void put_reply(int fd, uint32_t seq, int32_t ret)
{
	struct trawl_wire_reply r;

	memset(&r, 0, sizeof(r));
	trawl_wire_hdr_init(&r.hdr, TRAWL_WIRE_REPLY, sizeof(r));
	r.hdr.seq = seq;
	r.ret = ret;
	fake_app_put(fd, &r, sizeof(r));
}

/* Reads the command the daemon sent (the fake app's view). */
static void get_cmd(int fd, struct trawl_wire_cmd *cmd)
{
	if (trawl_io_recv_all(fd, cmd, sizeof(*cmd), 5000))
		abort();
}

int main(void)
{
	struct trawl_ustctl_app *app;
	struct trawl_wire_cmd cmd;
	uint32_t first = 99;
	uint64_t v = 0;
	int sv[2], efd;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 1;
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd < 0)
		return 1;
	fake_app_register(sv[1], 1, "added");
	fake_app_event(sv[1], "p:one");
	CHECK(trawl_ustctl_app_accept(sv[0], &app) == 0);
	if (check_fails)
		return 1;
	trawl_ustctl_app_set_notify_fd(app, efd);
	CHECK(trawl_ustctl_app_take_added(app, &first) == 0);

	/* 1. Unasked, read when readable. */
	put_added(sv[1], 1, 2);
	fake_app_event(sv[1], "q:two");
	fake_app_event(sv[1], "q:three");
	CHECK(trawl_ustctl_app_recv_added(app) == 0);
	CHECK(trawl_ustctl_app_event_count(app) == 3);
	CHECK(trawl_ustctl_app_take_added(app, &first) == 2 && first == 1);
	CHECK(trawl_ustctl_app_take_added(app, &first) == 0);
	CHECK(!strcmp(trawl_ustctl_app_event(app, 2)->name, "q:three"));
	CHECK(read(efd, &v, sizeof(v)) == sizeof(v) && v == 1);

	/* 3. REGISTRATION_DONE carries the flag and the daemon's count. */
	put_reply(sv[1], 1, 0);
	CHECK(trawl_ustctl_app_registration_done_flags(app, TRAWL_USTCTL_DONE_TAKES_ADDED) == 0);
	get_cmd(sv[1], &cmd);
	CHECK(cmd.cmd == TRAWL_WIRE_CMD_REGISTRATION_DONE && cmd.flags == TRAWL_USTCTL_DONE_TAKES_ADDED &&
	      cmd.event_index == 3 && cmd.hdr.seq == 1);

	/* 2. An addition the app sent before it read the daemon's command. */
	put_added(sv[1], 3, 1);
	fake_app_event(sv[1], "r:four");
	put_reply(sv[1], 2, 0);
	CHECK(trawl_ustctl_app_flush(app, 7) == 0);
	get_cmd(sv[1], &cmd);
	CHECK(cmd.cmd == TRAWL_WIRE_CMD_FLUSH && cmd.chan_handle == 7);
	CHECK(trawl_ustctl_app_event_count(app) == 4);
	CHECK(read(efd, &v, sizeof(v)) == sizeof(v) && v == 1);
	CHECK(trawl_ustctl_app_take_added(app, &first) == 1 && first == 3);
	/* The old entry point still says nothing of additions. */
	put_reply(sv[1], 3, 0);
	CHECK(trawl_ustctl_app_registration_done(app) == 0);
	get_cmd(sv[1], &cmd);
	CHECK(cmd.flags == 0);

	/* 4. A first index other than the daemon's count; then a stray reply. */
	put_added(sv[1], 3, 1);
	CHECK(trawl_ustctl_app_recv_added(app) == -EPROTO);
	trawl_ustctl_app_destroy(app);
	close(sv[1]);

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 1;
	fake_app_register(sv[1], 0, "added");
	CHECK(trawl_ustctl_app_accept(sv[0], &app) == 0);
	if (check_fails)
		return 1;
	put_reply(sv[1], 1, 0);
	CHECK(trawl_ustctl_app_recv_added(app) == -EPROTO);
	trawl_ustctl_app_destroy(app);
	close(sv[1]);
	close(efd);
	if (check_fails)
		return 1;
	printf("ustctl events-added: ok\n");
	return 0;
}
