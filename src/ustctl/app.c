/* SPDX-License-Identifier: MIT */
/*
 * app.c - the daemon's side of one traced app's connection (ustctl.h):
 * reading what the app sends, as it comes, and commands with their
 * replies.
 *
 * The peer is untrusted (root's apps.sock takes every user's apps), so
 * nothing here waits on it in the daemon's loop, and nothing it sends can
 * make the daemon hold more than the limits the caller gave:
 *
 * Input. Bytes are read when the socket has them (never blocking) into one
 * buffer, grown only as far as the message in progress and as the budget
 * allows, and freed when nothing partial is left: an idle connection holds
 * no buffer. Whole messages are then checked (wire.c's decoders) and
 * applied. What the app sends unasked is a *unit*: its registration
 * (REGISTER, then one EVENT per event) or an addition (EVENTS_ADDED, then
 * its EVENTs). A unit, and any message begun, must arrive whole within
 * lim.unit_ms, however slowly the bytes trickle: a slow-loris peer is
 * dropped at that deadline, not kept alive by each byte.
 *
 * Limits. A unit that would take the app past lim.max_events events, or has
 * an event of more than lim.max_fields fields, or would make its
 * descriptions (as decoded, with the input buffer) pass lim.max_bytes or
 * the budget it shares with other apps (lim.shared_bytes: the daemon's
 * per-uid one) is *refused*: the rest of the unit is read and dropped
 * without being kept, what it had added is freed, and the caller answers
 * with trawl_ustctl_app_refuse(): REGISTRATION_DONE flagged
 * TRAWL_WIRE_DONE_REFUSED, which the app takes for "registered, not
 * traced" (the flag lacks DONE_TAKES_ADDED: an app registers anew on a new
 * connection when its providers change, rather than looping).
 *
 * Output. A command is queued (its fds dup'ed until the socket took them)
 * and sent as the socket takes it; consecutive commands without fds go in
 * one sendmsg(). The app answers in order: each command queued waits in
 * the pending list with the time it was queued, and the app must answer
 * the oldest within lim.reply_ms or be dropped (trawl_ustctl_app_deadline()).
 * A blocking app (trawl_ustctl_app_accept(): tests, tools) does the same
 * with poll() in each call.
 *
 * The input is app-input.c's; the handle, the budget, deadlines, the
 * output and blocking use are here.
 */
#define _GNU_SOURCE
#include "common/array.h"
#include "ustctl/app-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "common/fdmsg.h"

#define OUT_MAX_DEFAULT (4u << 20)
#define IOV_BATCH 64

uint64_t trawl_ustctl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- the budget ---- */

int trawl_ustctl_app_charge(struct trawl_ustctl_app *app, uint64_t n)
{
	if (app->lim.max_bytes && app->bytes + n > app->lim.max_bytes)
		return -EDQUOT;
	if (app->lim.shared_bytes && *app->lim.shared_bytes + n > app->lim.shared_max)
		return -EDQUOT;
	app->bytes += n;
	if (app->lim.shared_bytes)
		*app->lim.shared_bytes += n;
	return 0;
}

void trawl_ustctl_app_uncharge(struct trawl_ustctl_app *app, uint64_t n)
{
	app->bytes -= n;
	if (app->lim.shared_bytes)
		*app->lim.shared_bytes -= n;
}

/* What a decoded event holds (wire.c's one block, and its slot). */
uint64_t trawl_ustctl_event_bytes(const struct trawl_ustctl_event *ev)
{
	uint64_t n = sizeof(*ev) + sizeof(ev) + (uint64_t)ev->nr_fields * sizeof(*ev->fields);
	uint32_t i;

	for (i = 0; i < ev->nr_fields; i++)
		n += (uint64_t)ev->fields[i].nr_enum_entries * sizeof(struct trawl_ustctl_enum_entry);
	return n;
}

static void set_limits(struct trawl_ustctl_app *app, const struct trawl_ustctl_app_limits *lim)
{
	if (lim)
		app->lim = *lim;
	if (!app->lim.max_events || app->lim.max_events > TRAWL_WIRE_MAX_EVENTS)
		app->lim.max_events = TRAWL_WIRE_MAX_EVENTS;
	if (!app->lim.max_fields || app->lim.max_fields > TRAWL_WIRE_MAX_FIELDS)
		app->lim.max_fields = TRAWL_WIRE_MAX_FIELDS;
	if (!app->lim.reply_ms)
		app->lim.reply_ms = TRAWL_USTCTL_TIMEOUT_MS;
	if (!app->lim.unit_ms)
		app->lim.unit_ms = TRAWL_USTCTL_TIMEOUT_MS;
	if (!app->lim.max_output)
		app->lim.max_output = OUT_MAX_DEFAULT;
}

/* ---- the handle ---- */

static struct trawl_ustctl_app *app_new(int fd, const struct trawl_ustctl_app_limits *lim, int async)
{
	struct trawl_ustctl_app *app = calloc(1, sizeof(*app));

	if (!app)
		return NULL;
	app->fd = fd;
	app->async = async;
	app->notify_fd = -1;
	app->rx_fd = app->tally_fd = -1;
	app->out_tail = &app->out;
	set_limits(app, lim);
	/* The registration is the first unit: its clock runs from the accept. */
	app->unit = UNIT_REGISTER;
	app->unit_start_ms = trawl_ustctl_now_ms();
	return app;
}

int trawl_ustctl_app_open(int fd, const struct trawl_ustctl_app_limits *lim, struct trawl_ustctl_app **out)
{
	struct trawl_ustctl_app *app = app_new(fd, lim, 1);

	if (!app)
		return -ENOMEM;
	*out = app;
	return 0;
}

void trawl_ustctl_app_free_events_from(struct trawl_ustctl_app *app, uint32_t first)
{
	while (app->nr_events > first) {
		struct trawl_ustctl_event *ev = app->events[--app->nr_events];

		trawl_ustctl_app_uncharge(app, trawl_ustctl_event_bytes(ev));
		free(ev);
	}
}

void trawl_ustctl_app_tally_free(struct trawl_ustctl_app *app)
{
	if (app->tally)
		trawl_ustctl_app_uncharge(app, (uint64_t)app->nr_tally * sizeof(*app->tally));
	free(app->tally);
	app->tally = NULL;
	app->nr_tally = 0;
}

void trawl_ustctl_app_in_free(struct trawl_ustctl_app *app)
{
	trawl_ustctl_app_uncharge(app, app->in_cap);
	free(app->in);
	app->in = NULL;
	app->in_cap = app->in_len = app->in_off = 0;
}

void trawl_ustctl_app_destroy(struct trawl_ustctl_app *app)
{
	uint32_t i;

	if (!app)
		return;
	if (app->fd >= 0)
		close(app->fd);
	if (app->rx_fd >= 0)
		close(app->rx_fd);
	if (app->tally_fd >= 0)
		close(app->tally_fd);
	trawl_ustctl_app_free_events_from(app, 0);
	free(app->events);
	trawl_ustctl_app_tally_free(app);
	trawl_ustctl_app_in_free(app);
	while (app->out) {
		struct out_msg *m = app->out;

		app->out = m->next;
		for (i = 0; m->fds && i < m->nr_fds; i++)
			close(m->fds[i]);
		free(m->fds);
		free(m);
	}
	free(app->pend);
	free(app);
}

const struct trawl_ustctl_app_info *trawl_ustctl_app_info(const struct trawl_ustctl_app *app)
{
	return &app->info;
}

int trawl_ustctl_app_fd(const struct trawl_ustctl_app *app)
{
	return app->fd;
}

uint32_t trawl_ustctl_app_event_count(const struct trawl_ustctl_app *app)
{
	return app->nr_events;
}

const struct trawl_ustctl_event *trawl_ustctl_app_event(const struct trawl_ustctl_app *app, uint32_t index)
{
	return index < app->nr_events ? app->events[index] : NULL;
}

uint32_t trawl_ustctl_app_claimed(const struct trawl_ustctl_app *app)
{
	return app->claimed;
}

void trawl_ustctl_app_addition_answered(struct trawl_ustctl_app *app)
{
	app->addition_open = 0;
}

uint64_t trawl_ustctl_app_bytes(const struct trawl_ustctl_app *app)
{
	return app->bytes;
}

uint32_t trawl_ustctl_app_pending(const struct trawl_ustctl_app *app)
{
	return app->pend_nr;
}

int trawl_ustctl_app_want_output(const struct trawl_ustctl_app *app)
{
	return app->out != NULL;
}

uint32_t trawl_ustctl_app_take_added(struct trawl_ustctl_app *app, uint32_t *first)
{
	if (!app->added)
		return 0;
	app->added = 0;
	*first = app->added_first;
	return app->nr_events - app->added_first;
}

void trawl_ustctl_app_set_notify_fd(struct trawl_ustctl_app *app, int fd)
{
	app->notify_fd = fd;
}

/* ---- deadlines ---- */

static uint64_t earliest(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : TRAWL_MIN(a, b);
}

uint64_t trawl_ustctl_app_deadline(const struct trawl_ustctl_app *app)
{
	uint64_t d = 0;

	if (app->unit != UNIT_NONE)
		d = earliest(d, app->unit_start_ms + app->lim.unit_ms);
	if (app->partial_since_ms)
		d = earliest(d, app->partial_since_ms + app->lim.unit_ms);
	if (app->pend_nr)
		d = earliest(d, app->pend[app->pend_head].queued_ms + app->lim.reply_ms);
	return d;
}

static const char *cmd_name(uint32_t kind)
{
	static const char *const names[] = {"?", "CHANNEL", "ENABLE", "DISABLE", "START", "STOP",
					    "FLUSH", "RELEASE", "REGISTRATION_DONE"};

	return kind < TRAWL_ARRAY_SIZE(names) ? names[kind] : "?";
}

int trawl_ustctl_app_expired(const struct trawl_ustctl_app *app, uint64_t now, char *why, size_t len)
{
	uint64_t d = trawl_ustctl_app_deadline(app);

	if (!d || now < d)
		return 0;
	if (app->pend_nr && app->pend[app->pend_head].queued_ms + app->lim.reply_ms <= now)
		trawl_msg_fmt(why, len, "no answer to %s within %u ms",
			      cmd_name(app->pend[app->pend_head].kind), app->lim.reply_ms);
	else if (app->unit == UNIT_REGISTER)
		trawl_msg_fmt(why, len, "registration not complete within %u ms", app->lim.unit_ms);
	else if (app->unit == UNIT_ADDED)
		trawl_msg_fmt(why, len, "events added not complete within %u ms", app->lim.unit_ms);
	else
		trawl_msg_fmt(why, len, "a message not complete within %u ms", app->lim.unit_ms);
	return 1;
}

/* ---- output ---- */

static int pending_push(struct trawl_ustctl_app *app, const struct trawl_wire_cmd *cmd)
{
	struct pending_cmd *p;

	if (app->pend_nr == app->pend_cap) {
		uint32_t cap = app->pend_cap ? app->pend_cap * 2 : 16, i;

		p = malloc(cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		for (i = 0; i < app->pend_nr; i++)
			p[i] = app->pend[(app->pend_head + i) % app->pend_cap];
		free(app->pend);
		app->pend = p;
		app->pend_cap = cap;
		app->pend_head = 0;
	}
	p = &app->pend[(app->pend_head + app->pend_nr) % app->pend_cap];
	*p = (struct pending_cmd){
		.seq = cmd->hdr.seq,
		.kind = cmd->cmd,
		.session_handle = cmd->session_handle,
		.chan_handle = cmd->chan_handle,
		.event_index = cmd->event_index,
		.queued_ms = trawl_ustctl_now_ms(),
	};
	app->pend_nr++;
	return 0;
}

static void out_pop(struct trawl_ustctl_app *app)
{
	struct out_msg *m = app->out;

	app->out = m->next;
	if (!app->out)
		app->out_tail = &app->out;
	app->out_bytes -= m->len;
	free(m);
}

static void close_fds(struct out_msg *m)
{
	uint32_t i;

	for (i = 0; m->fds && i < m->nr_fds; i++)
		close(m->fds[i]);
	free(m->fds);
	m->fds = NULL;
}

/* One sendmsg(): the head message with its fds, or a run of messages without. */
static int send_some(struct trawl_ustctl_app *app)
{
	struct iovec iov[IOV_BATCH];
	struct out_msg *m = app->out;
	size_t n = 0;
	ssize_t sent;

	if (m->fds) {
		iov[n++] = (struct iovec){m->data + m->off, m->len - m->off};
	} else {
		/* Never a message with fds in the run: its fds go with its first byte. */
		for (; m && !m->fds && n < IOV_BATCH; m = m->next, n++)
			iov[n] = (struct iovec){m->data + m->off, m->len - m->off};
	}
	sent = trawl_fdmsg_sendmsg(app->fd, iov, (int)n, app->out->fds, app->out->fds ? app->out->nr_fds : 0,
				   MSG_DONTWAIT);
	if (sent < 0)
		return sent == -EWOULDBLOCK ? -EAGAIN : (int)sent;
	if (app->out->fds)
		close_fds(app->out);
	while (sent > 0) {
		size_t left = app->out->len - app->out->off;

		if ((size_t)sent < left) {
			app->out->off += (size_t)sent;
			break;
		}
		sent -= (ssize_t)left;
		out_pop(app);
	}
	return 0;
}

int trawl_ustctl_app_output(struct trawl_ustctl_app *app)
{
	int ret;

	if (app->fd < 0)
		return -EPIPE;
	while (app->out) {
		ret = send_some(app);
		if (ret)
			return ret == -EAGAIN ? 0 : ret;
	}
	return 0;
}

static int out_push(struct trawl_ustctl_app *app, const struct trawl_wire_cmd *cmd, const void *extra,
		    size_t extra_len, const int *fds, uint32_t nr_fds)
{
	size_t len = sizeof(*cmd) + extra_len;
	struct out_msg *m;
	uint32_t i;

	if (app->out_bytes + len > app->lim.max_output)
		return -ENOBUFS;
	m = malloc(sizeof(*m) + len);
	if (!m)
		return -ENOMEM;
	*m = (struct out_msg){.len = len, .nr_fds = nr_fds};
	memcpy(m->data, cmd, sizeof(*cmd));
	if (extra_len)
		memcpy(m->data + sizeof(*cmd), extra, extra_len);
	if (nr_fds) {
		m->fds = malloc(nr_fds * sizeof(int));
		for (i = 0; m->fds && i < nr_fds; i++) {
			m->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 0);
			if (m->fds[i] < 0) {
				m->nr_fds = i;
				close_fds(m);
				free(m);
				return -EMFILE;
			}
		}
		if (!m->fds) {
			free(m);
			return -ENOMEM;
		}
	}
	*app->out_tail = m;
	app->out_tail = &m->next;
	app->out_bytes += len;
	return 0;
}

/* ---- blocking use (trawl_ustctl_app_accept()'s handles) ---- */

/* Waits up to @ms for @fd to be ready for @events. 0, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	uint64_t now = trawl_ustctl_now_ms();
	int r;

	if (now >= deadline)
		return -ETIMEDOUT;
	r = poll(&pfd, 1, (int)(deadline - now));
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	return r == 0 ? -ETIMEDOUT : 0;
}

/*
 * Reads until news of @kind comes (a REPLY: the one to the last command),
 * by @deadline. The app's additions read meanwhile are kept and said on
 * the notify fd (ustctl.h). 1 with @news, or -errno.
 */
static int wait_news(struct trawl_ustctl_app *app, enum trawl_ustctl_news_kind kind, uint64_t deadline,
		     struct trawl_ustctl_app_news *news)
{
	int ret;

	for (;;) {
		ret = trawl_ustctl_app_input(app, 1, news);
		if (ret < 0)
			return ret;
		if (ret == 1 && news->kind == kind)
			return 1;
		if (ret == 1 && news->kind == TRAWL_USTCTL_NEWS_REFUSED)
			return -E2BIG;
		if (ret == 1)
			continue; /* an addition while a command waits for its reply */
		ret = wait_fd(app->fd, POLLIN, deadline);
		if (ret)
			return ret;
	}
}

int trawl_ustctl_app_call(struct trawl_ustctl_app *app, struct trawl_wire_cmd *cmd, const void *extra,
			  size_t extra_len, const int *fds, uint32_t nr_fds)
{
	struct trawl_ustctl_app_news news;
	uint64_t deadline;
	int ret;

	if (app->fd < 0)
		return -EPIPE;
	/* Counters after a CHANNEL are small; an ENABLE's filters are bounded. */
	if (extra_len > TRAWL_WIRE_MAX_FILTERS)
		return -EINVAL;
	trawl_wire_hdr_init(&cmd->hdr, TRAWL_WIRE_CMD, (uint32_t)(sizeof(*cmd) + extra_len));
	cmd->hdr.seq = ++app->seq;
	ret = out_push(app, cmd, extra, extra_len, fds, nr_fds);
	if (!ret)
		ret = pending_push(app, cmd);
	if (ret)
		return ret;
	ret = trawl_ustctl_app_output(app);
	if (app->async || ret)
		return ret;
	deadline = trawl_ustctl_now_ms() + app->lim.reply_ms;
	while (app->out) {
		ret = wait_fd(app->fd, POLLOUT, deadline);
		if (!ret)
			ret = trawl_ustctl_app_output(app);
		if (ret)
			return ret;
	}
	ret = wait_news(app, TRAWL_USTCTL_NEWS_REPLY, deadline, &news);
	return ret < 0 ? ret : news.ret;
}

int trawl_ustctl_app_accept(int fd, struct trawl_ustctl_app **out)
{
	struct trawl_ustctl_app_news news;
	struct trawl_ustctl_app *app = app_new(fd, NULL, 0);
	int ret;

	if (!app)
		return -ENOMEM;
	ret = wait_news(app, TRAWL_USTCTL_NEWS_REGISTERED, app->unit_start_ms + app->lim.unit_ms, &news);
	if (ret < 0) {
		app->fd = -1; /* the caller's still */
		trawl_ustctl_app_destroy(app);
		return ret;
	}
	*out = app;
	return 0;
}

int trawl_ustctl_app_recv_added(struct trawl_ustctl_app *app)
{
	struct trawl_ustctl_app_news news;
	int ret = wait_news(app, TRAWL_USTCTL_NEWS_ADDED, trawl_ustctl_now_ms() + app->lim.unit_ms, &news);

	return ret < 0 ? ret : 0;
}
