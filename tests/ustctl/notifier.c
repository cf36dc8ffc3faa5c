/* SPDX-License-Identifier: MIT */
/*
 * NOTIFIER's application contexts (src/ustabi/wire.h, ABI minor 13) as the
 * daemon's side of ustctl sends them, with the app played by bytes written
 * in advance on a socketpair:
 *
 *   1. an app of minor 12 is sent none: asked for some, the call refuses
 *      (-EPROTONOSUPPORT) and sends nothing; a NOTIFIER without them goes
 *      as before (no flag, no bytes after the command);
 *   2. an app of minor 13 gets the names after the command, which the
 *      app's decoder takes (trawl_wire_cmd_decode(), trawl_wire_app_ctx()),
 *      and the notifier's drop counter in event_id (minor 14);
 *   3. a bad name, or more than the most, or a drop counter past the
 *      ring head's, is refused before anything goes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../lib/check.h"
#include "fake_app.h"
#include "common/io.h"
#include "ustctl/ustctl.h"
#include "ustabi/notify.h"
#include "ustabi/wire.h"

static void put_reply(int fd, uint32_t seq, int32_t ret)
{
	struct trawl_wire_reply r;

	memset(&r, 0, sizeof(r));
	trawl_wire_hdr_init(&r.hdr, TRAWL_WIRE_REPLY, sizeof(r));
	r.hdr.seq = seq;
	r.ret = ret;
	fake_app_put(fd, &r, sizeof(r));
}

/* The next whole message the daemon sent, into @buf (@cap bytes): its size. */
static size_t get_msg(int fd, char *buf, size_t cap)
{
	struct trawl_wire_hdr h;

	if (trawl_io_recv_all(fd, &h, sizeof(h), 5000) || h.size < sizeof(h) || h.size > cap)
		abort();
	memcpy(buf, &h, sizeof(h));
	if (trawl_io_recv_all(fd, buf + sizeof(h), h.size - sizeof(h), 5000))
		abort();
	return h.size;
}

/* Nothing waiting on @fd. */
static int nothing_sent(int fd)
{
	char c;

	return recv(fd, &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN;
}

static struct trawl_ustctl_app *app_of(int *sv, uint32_t minor)
{
	struct trawl_ustctl_app *app = NULL;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	fake_app_register_minor(sv[1], 1, "notifier", minor);
	fake_app_event(sv[1], "p:one");
	if (trawl_ustctl_app_accept(sv[0], &app))
		abort();
	return app;
}

int main(void)
{
	static const char names[TRAWL_USTCTL_MAX_APP_CTX + 1][TRAWL_USTCTL_APP_CTX_NAME_MAX] = {
		"$app.trawl:int", "$app.late:k"};
	static char many[TRAWL_USTCTL_MAX_APP_CTX + 1][TRAWL_USTCTL_APP_CTX_NAME_MAX];
	static const char bad[1][TRAWL_USTCTL_APP_CTX_NAME_MAX] = {"$app.nocolon"};
	struct trawl_wire_counter counters[TRAWL_USTCTL_MAX_COUNTERS];
	char buf[TRAWL_WIRE_CMD_MAX];
	struct trawl_ustctl_app *app;
	struct trawl_wire_cmd cmd;
	const char *got;
	size_t len;
	int sv[2];
	uint32_t i;

	/* 1. Minor 12. */
	app = app_of(sv, 12);
	CHECK(trawl_ustctl_app_send_notifier(app, 0x80000001u, -1, -1, 64, 4096, 0, names, 1, 0) ==
	      -EPROTONOSUPPORT);
	CHECK(nothing_sent(sv[1]));
	put_reply(sv[1], 1, 0);
	CHECK(trawl_ustctl_app_send_notifier(app, 0x80000001u, -1, -1, 64, 4096, 0, NULL, 0, 0) == 0);
	len = get_msg(sv[1], buf, sizeof(buf));
	memcpy(&cmd, buf, sizeof(cmd));
	CHECK(len == sizeof(cmd) && cmd.cmd == TRAWL_WIRE_CMD_NOTIFIER && cmd.flags == 0);
	trawl_ustctl_app_destroy(app);
	close(sv[1]);

	/* 2. Minor 13. */
	app = app_of(sv, 13);
	put_reply(sv[1], 1, 0);
	CHECK(trawl_ustctl_app_send_notifier(app, 0x80000002u, -1, -1, 64, 4096, 0, names, 2, 7) == 0);
	len = get_msg(sv[1], buf, sizeof(buf));
	CHECK(trawl_wire_cmd_decode(buf, len, &cmd, counters) == 0);
	CHECK(cmd.cmd == TRAWL_WIRE_CMD_NOTIFIER && cmd.flags == TRAWL_WIRE_CHAN_APP_CTX &&
	      cmd.chan_handle == 0x80000002u && cmd.nr_counters == 0);
	/* its drop counter (ABI minor 14: ustabi/notify.h dropped_by[6]) */
	CHECK(cmd.event_id == 7);
	CHECK(trawl_wire_app_ctx(buf, len, &got) == 2 && !strcmp(got, names[0]) &&
	      !strcmp(got + strlen(got) + 1, names[1]));
	CHECK(len == sizeof(cmd) + strlen(names[0]) + strlen(names[1]) + 2);

	/* 3. Refused before anything goes. */
	CHECK(trawl_ustctl_app_send_notifier(app, 0x80000003u, -1, -1, 64, 4096, 0, bad, 1, 0) ==
	      -EINVAL);
	for (i = 0; i <= TRAWL_USTCTL_MAX_APP_CTX; i++)
		snprintf(many[i], sizeof(many[i]), "$app.p:k%u", (unsigned)i);
	CHECK(trawl_ustctl_app_send_notifier(app, 0x80000003u, -1, -1, 64, 4096, 0,
					     (const char(*)[TRAWL_USTCTL_APP_CTX_NAME_MAX])many,
					     TRAWL_USTCTL_MAX_APP_CTX + 1, 0) == -EINVAL);
	CHECK(nothing_sent(sv[1]));
	/* a drop counter past the ring head's */
	CHECK(trawl_ustctl_app_send_notifier(app, 0x80000003u, -1, -1, 64, 4096, 0, NULL, 0,
					     TRAWL_NOTIFY_COUNTERS + 1) == -EINVAL);
	CHECK(nothing_sent(sv[1]));
	trawl_ustctl_app_destroy(app);
	close(sv[1]);
	return CHECK_EXIT();
}
