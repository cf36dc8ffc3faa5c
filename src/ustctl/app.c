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

#define READ_CHUNK 4096u
#define OUT_MAX_DEFAULT (4u << 20)
#define IOV_BATCH 64

struct out_msg {
	struct out_msg *next;
	size_t len, off;
	int *fds; /* owned (dup'ed), sent with the first byte; NULL once sent */
	uint32_t nr_fds;
	char data[];
};

struct pending_cmd {
	uint32_t seq, kind, session_handle, chan_handle, event_index;
	uint64_t queued_ms;
};

enum unit { UNIT_NONE, UNIT_REGISTER, UNIT_ADDED };

struct trawl_ustctl_app {
	int fd;
	int async;
	uint32_t seq;
	struct trawl_ustctl_app_info info;
	uint32_t nr_events;
	uint32_t claimed; /* events the app counts (refused additions included) */
	struct trawl_ustctl_event **events; /* each one malloc'd block */
	size_t cap_events;
	/* Events added and not taken yet: [added_first, nr_events). */
	uint32_t added_first;
	int added;
	int notify_fd; /* the caller's eventfd, or -1 (not owned) */
	struct trawl_ustctl_app_limits lim;
	uint64_t bytes; /* charged to lim.max_bytes (and lim.shared_bytes) */
	/* Input (top comment). */
	enum unit unit;
	int registered, refused, refusing, addition_open;
	uint32_t unit_left, unit_first;
	uint64_t unit_start_ms, partial_since_ms;
	char why[128];
	char *in;
	size_t in_cap, in_len, in_off;
	/* The last TALLY's entries (ustctl.h: valid until the next input). */
	struct trawl_ustctl_tally_entry *tally;
	uint32_t nr_tally;
	uint64_t tally_entries; /* every TALLY's, on this connection */
	/* TALLY_SHM (wire.h): an fd received and not yet taken by its message
	 * (at most one), and the memfd taken (at most one a connection). */
	int rx_fd, tally_fd;
	uint32_t tally_nr_max;
	size_t discard_left; /* bytes of the message being dropped still to come */
	/* Output. */
	struct out_msg *out, **out_tail;
	uint64_t out_bytes;
	struct pending_cmd *pend;
	uint32_t pend_head, pend_nr, pend_cap;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- the budget ---- */

static int charge(struct trawl_ustctl_app *app, uint64_t n)
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

static void uncharge(struct trawl_ustctl_app *app, uint64_t n)
{
	app->bytes -= n;
	if (app->lim.shared_bytes)
		*app->lim.shared_bytes -= n;
}

/* What a decoded event holds (wire.c's one block, and its slot). */
static uint64_t event_bytes(const struct trawl_ustctl_event *ev)
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
	app->unit_start_ms = now_ms();
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

static void free_events_from(struct trawl_ustctl_app *app, uint32_t first)
{
	while (app->nr_events > first) {
		struct trawl_ustctl_event *ev = app->events[--app->nr_events];

		uncharge(app, event_bytes(ev));
		free(ev);
	}
}

static void tally_free(struct trawl_ustctl_app *app)
{
	if (app->tally)
		uncharge(app, (uint64_t)app->nr_tally * sizeof(*app->tally));
	free(app->tally);
	app->tally = NULL;
	app->nr_tally = 0;
}

static void in_free(struct trawl_ustctl_app *app)
{
	uncharge(app, app->in_cap);
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
	free_events_from(app, 0);
	free(app->events);
	tally_free(app);
	in_free(app);
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

/* ---- input ---- */

/* The unit goes over a limit: the rest of it is dropped (top comment). */
static void refuse_unit(struct trawl_ustctl_app *app, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void refuse_unit(struct trawl_ustctl_app *app, const char *fmt, ...)
{
	va_list ap;

	if (app->refusing)
		return;
	app->refusing = 1;
	va_start(ap, fmt);
	vsnprintf(app->why, sizeof(app->why), fmt, ap);
	va_end(ap);
	free_events_from(app, app->unit == UNIT_REGISTER ? 0 : app->unit_first);
}

/* The unit's last message came: what it amounts to, in @news. */
static int unit_done(struct trawl_ustctl_app *app, struct trawl_ustctl_app_news *news)
{
	enum unit u = app->unit;

	app->unit = UNIT_NONE;
	memset(news, 0, sizeof(*news));
	if (app->refusing) {
		app->refusing = 0;
		app->refused |= u == UNIT_REGISTER;
		news->kind = TRAWL_USTCTL_NEWS_REFUSED;
		news->registration = u == UNIT_REGISTER;
		trawl_msg_fmt(news->why, sizeof(news->why), "%s", app->why);
		app->addition_open = u == UNIT_ADDED;
		return 1;
	}
	if (u == UNIT_REGISTER) {
		news->kind = TRAWL_USTCTL_NEWS_REGISTERED;
		return 1;
	}
	if (!app->added)
		app->added_first = app->unit_first;
	app->added = 1;
	app->addition_open = 1;
	if (app->notify_fd >= 0) {
		uint64_t one = 1;

		if (write(app->notify_fd, &one, sizeof(one)) < 0) {
			/* A full counter: the caller will look anyway. */
		}
	}
	news->kind = TRAWL_USTCTL_NEWS_ADDED;
	return 1;
}

static int take_event(struct trawl_ustctl_app *app, const void *msg, size_t len)
{
	struct trawl_ustctl_event *ev;
	uint64_t n;

	if (trawl_wire_event_decode(msg, len, &ev))
		return -EPROTO;
	if (ev->nr_fields > app->lim.max_fields) {
		refuse_unit(app, "event %s has %u fields, more than the %u allowed", ev->name,
			    ev->nr_fields, app->lim.max_fields);
		free(ev);
		return 0;
	}
	n = event_bytes(ev);
	if (charge(app, n)) {
		refuse_unit(app, "its event descriptions take more than the %s allowed",
			    app->lim.shared_bytes && *app->lim.shared_bytes + n > app->lim.shared_max
				    ? "memory its user's apps may have"
				    : "memory one app may have");
		free(ev);
		return 0;
	}
	if (trawl_array_grow((void **)&app->events, &app->cap_events, (size_t)app->nr_events + 1,
			     sizeof(*app->events), 16)) {
		uncharge(app, n);
		free(ev);
		return -ENOMEM;
	}
	app->events[app->nr_events++] = ev;
	return 0;
}

static int take_register(struct trawl_ustctl_app *app, const void *msg, size_t len)
{
	uint32_t nr;

	if (trawl_wire_register_decode(msg, len, &app->info, &nr))
		return -EPROTO;
	app->registered = 1;
	app->claimed = nr;
	app->unit_left = nr;
	app->unit_first = 0;
	if (nr > app->lim.max_events)
		refuse_unit(app, "it has %u events, more than the %u allowed", nr, app->lim.max_events);
	return 0;
}

static int take_added(struct trawl_ustctl_app *app, const void *msg, size_t len)
{
	uint32_t nr;

	if (app->addition_open || app->refused ||
	    trawl_wire_events_added_decode(msg, len, app->claimed, &nr))
		return -EPROTO;
	app->unit = UNIT_ADDED;
	app->unit_first = app->nr_events;
	app->unit_left = nr;
	app->claimed += nr;
	if (app->nr_events + (uint64_t)nr > app->lim.max_events)
		refuse_unit(app, "it would have %llu events, more than the %u allowed",
			    (unsigned long long)app->nr_events + nr, app->lim.max_events);
	return 0;
}

/* A TALLY: its entries, for the caller (none when the app was refused:
 * this daemon traces nothing of it). */
static int take_tally(struct trawl_ustctl_app *app, const void *msg, size_t len,
		      struct trawl_ustctl_app_news *news)
{
	struct trawl_ustctl_tally_entry *e;
	uint32_t nr;
	int ret;

	ret = trawl_wire_tally_decode(msg, len, &e, &nr);
	if (ret)
		return ret;
	/* A refused app is not traced here; and each of an app's events is
	 * said once a setup, about: entries past its events and one more
	 * message's are not worth the daemon's time (the cost of a TALLY is
	 * that of setting up as many events). */
	if (app->refused || app->tally_entries + nr > (uint64_t)app->claimed + TRAWL_WIRE_MAX_TALLY) {
		free(e);
		return 0;
	}
	app->tally_entries += nr;
	tally_free(app);
	ret = charge(app, (uint64_t)nr * sizeof(*e));
	if (ret) {
		free(e);
		return ret;
	}
	app->tally = e;
	app->nr_tally = nr;
	memset(news, 0, sizeof(*news));
	news->kind = TRAWL_USTCTL_NEWS_TALLY;
	news->tally = e;
	news->nr_tally = nr;
	return 1;
}

/* Whether @fd is a memfd (or another shmem file: F_GET_SEALS answers for
 * those only) of at least @size bytes: read with pread(), it never blocks
 * (not a FIFO, a socket, nor a file of a FUSE mount the app serves). */
static int tally_fd_ok(int fd, uint64_t size)
{
	struct stat st;

	return fcntl(fd, F_GET_SEALS) >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	       (uint64_t)st.st_size >= size;
}

/* TALLY_SHM: the memfd that came with it (the fd received, not yet
 * taken), kept until the connection goes (trawl_ustctl_app_tally_shm_take()).
 * 1 with @news (the caller may count the fd, or drop it), 0, or -EPROTO
 * (no fd came, a second one, or not a memfd of nr_max entries). */
static int take_tally_shm(struct trawl_ustctl_app *app, const void *msg, size_t len,
			  struct trawl_ustctl_app_news *news)
{
	struct trawl_wire_tally_shm t;
	int fd = app->rx_fd;

	if (len != sizeof(t))
		return -EPROTO;
	memcpy(&t, msg, sizeof(t));
	if (trawl_wire_hdr_check(&t.hdr, TRAWL_WIRE_TALLY_SHM, len) || !t.nr_max ||
	    t.nr_max > TRAWL_WIRE_MAX_TALLY_SHM || t.reserved[0] || t.reserved[1] || t.reserved[2] ||
	    fd < 0 || app->tally_fd >= 0 ||
	    !tally_fd_ok(fd, sizeof(struct trawl_wire_tally_head) +
				     (uint64_t)t.nr_max * sizeof(struct trawl_wire_tally_entry)))
		return -EPROTO;
	app->rx_fd = -1;
	if (app->refused) {
		close(fd); /* not traced here: nothing to count */
		return 0;
	}
	app->tally_fd = fd;
	app->tally_nr_max = t.nr_max;
	memset(news, 0, sizeof(*news));
	news->kind = TRAWL_USTCTL_NEWS_TALLY_SHM;
	return 1;
}

void trawl_ustctl_app_tally_shm_drop(struct trawl_ustctl_app *app)
{
	if (app->tally_fd >= 0)
		close(app->tally_fd);
	app->tally_fd = -1;
}

int trawl_ustctl_app_tally_shm_take(struct trawl_ustctl_app *app, struct trawl_ustctl_tally_shm *shm)
{
	shm->fd = -1;
	if (app->tally_fd < 0 || app->refused)
		return -ENOENT;
	shm->fd = app->tally_fd;
	shm->nr_max = app->tally_nr_max;
	/* As a TALLY's: entries past the app's events are not worth reading. */
	shm->limit = (uint32_t)TRAWL_MIN((uint64_t)app->tally_nr_max,
					 (uint64_t)app->claimed + TRAWL_WIRE_MAX_TALLY);
	app->tally_fd = -1;
	return 0;
}

void trawl_ustctl_tally_shm_close(struct trawl_ustctl_tally_shm *shm)
{
	if (shm->fd >= 0)
		close(shm->fd);
	shm->fd = -1;
}

int trawl_ustctl_tally_shm_read(const struct trawl_ustctl_tally_shm *shm,
				struct trawl_ustctl_tally_entry **out, uint32_t *nr, uint64_t *overflow)
{
	struct trawl_wire_tally_head head;
	struct trawl_wire_tally_entry *w;
	struct trawl_ustctl_tally_entry *e;
	uint32_t n, i;
	size_t bytes;
	ssize_t got;

	*out = NULL;
	*nr = 0;
	*overflow = 0;
	if (shm->fd < 0)
		return 0;
	if (pread(shm->fd, &head, sizeof(head), 0) != (ssize_t)sizeof(head))
		return -EIO;
	if (head.magic != TRAWL_WIRE_TALLY_SHM_MAGIC)
		return -EPROTO;
	/* The app's word, bounded as one entry's count is. */
	*overflow = TRAWL_MIN(head.overflow, (uint64_t)TRAWL_WIRE_MAX_TALLY_COUNT);
	n = TRAWL_MIN(head.nr, shm->limit);
	if (!n)
		return 0;
	bytes = (size_t)n * sizeof(*w);
	w = malloc(bytes);
	e = calloc(n, sizeof(*e));
	if (!w || !e) {
		free(w);
		free(e);
		return -ENOMEM;
	}
	got = pread(shm->fd, w, bytes, sizeof(head));
	n = got > 0 ? (uint32_t)((size_t)got / sizeof(*w)) : 0;
	for (i = 0; i < n; i++) {
		struct trawl_wire_tally_entry *x = &w[i];

		/* Each checked as a TALLY's; one that is not stays 0 (the app
		 * wrote it, or is writing it: it is not worth the rest). */
		if (!x->count || !memchr(x->name, '\0', sizeof(x->name)))
			continue;
		memcpy(e[i].name, x->name, sizeof(e[i].name));
		if (!trawl_wire_tally_entry_ok(e[i].name, x->loglevel, x->reserved, x->count)) {
			memset(&e[i], 0, sizeof(e[i]));
			continue;
		}
		e[i].loglevel = x->loglevel;
		e[i].count = x->count;
	}
	free(w);
	if (!n) {
		free(e);
		return 0;
	}
	*out = e;
	*nr = n;
	return 0;
}

static int take_reply(struct trawl_ustctl_app *app, const void *msg, size_t len,
		      struct trawl_ustctl_app_news *news)
{
	struct trawl_wire_reply r;
	struct pending_cmd *p;

	if (len != sizeof(r) || !app->pend_nr)
		return -EPROTO;
	p = &app->pend[app->pend_head];
	memcpy(&r, msg, sizeof(r));
	/* The app's answer is a negative errno or 0; anything else is a lie. */
	if (trawl_wire_hdr_check(&r.hdr, TRAWL_WIRE_REPLY, len) || r.hdr.seq != p->seq || r.ret > 0 ||
	    r.ret < -4095)
		return -EPROTO;
	memset(news, 0, sizeof(*news));
	news->kind = TRAWL_USTCTL_NEWS_REPLY;
	news->cmd = p->kind;
	news->session_handle = p->session_handle;
	news->chan_handle = p->chan_handle;
	news->event_index = p->event_index;
	news->ret = r.ret;
	app->pend_head = (app->pend_head + 1) % app->pend_cap;
	app->pend_nr--;
	return 1;
}

/*
 * Which message may come now, checked on its header alone: the type the
 * state expects, and a size that type can have. 0 or -EPROTO.
 */
static int hdr_allowed(const struct trawl_ustctl_app *app, const struct trawl_wire_hdr *h)
{
	if (h->magic != TRAWL_WIRE_MAGIC || h->version != TRAWL_WIRE_VERSION ||
	    h->size < sizeof(*h) || h->size > TRAWL_WIRE_MAX_MSG)
		return -EPROTO;
	if (app->unit == UNIT_REGISTER && !app->registered)
		return h->type == TRAWL_WIRE_REGISTER &&
				       (h->size == sizeof(struct trawl_wire_register) ||
					h->size == sizeof(struct trawl_wire_register) + sizeof(struct trawl_wire_clock))
			       ? 0 : -EPROTO;
	if (app->unit != UNIT_NONE)
		return h->type == TRAWL_WIRE_EVENT && h->size >= sizeof(struct trawl_wire_event)
			       ? 0 : -EPROTO;
	if (h->type == TRAWL_WIRE_REPLY)
		return h->size == sizeof(struct trawl_wire_reply) ? 0 : -EPROTO;
	if (h->type == TRAWL_WIRE_EVENTS_ADDED)
		return h->size == sizeof(struct trawl_wire_events_added) ? 0 : -EPROTO;
	if (h->type == TRAWL_WIRE_TALLY_SHM)
		return h->size == sizeof(struct trawl_wire_tally_shm) ? 0 : -EPROTO;
	if (h->type == TRAWL_WIRE_TALLY)
		return h->size > sizeof(struct trawl_wire_tally) &&
			       h->size <= sizeof(struct trawl_wire_tally) +
						  TRAWL_WIRE_MAX_TALLY * sizeof(struct trawl_wire_tally_entry)
			       ? 0 : -EPROTO;
	return -EPROTO;
}

/* A whole message of type @type: applied; 1 with @news, 0, or -errno. */
static int take_msg(struct trawl_ustctl_app *app, const struct trawl_wire_hdr *h, const void *msg,
		    int dropped, struct trawl_ustctl_app_news *news)
{
	int ret = 0;

	switch (h->type) {
	case TRAWL_WIRE_REGISTER:
		ret = take_register(app, msg, h->size);
		break;
	case TRAWL_WIRE_EVENT:
		if (!dropped)
			ret = take_event(app, msg, h->size);
		app->unit_left--;
		break;
	case TRAWL_WIRE_EVENTS_ADDED:
		app->unit_start_ms = now_ms();
		ret = take_added(app, msg, h->size);
		break;
	case TRAWL_WIRE_REPLY:
		return take_reply(app, msg, h->size, news);
	case TRAWL_WIRE_TALLY:
		return take_tally(app, msg, h->size, news);
	case TRAWL_WIRE_TALLY_SHM:
		return take_tally_shm(app, msg, h->size, news);
	}
	if (ret)
		return ret;
	if (app->unit != UNIT_NONE && app->registered && !app->unit_left)
		return unit_done(app, news);
	return 0;
}

/* Room for @need bytes after in_len (moving what is left to the front). */
static int in_reserve(struct trawl_ustctl_app *app, size_t need)
{
	size_t cap;
	char *p;

	if (app->in_off) {
		memmove(app->in, app->in + app->in_off, app->in_len - app->in_off);
		app->in_len -= app->in_off;
		app->in_off = 0;
	}
	if (app->in_cap - app->in_len >= need)
		return 0;
	cap = TRAWL_MAX(app->in_len + need, (size_t)READ_CHUNK);
	if (charge(app, cap - app->in_cap))
		return -EDQUOT;
	p = realloc(app->in, cap);
	if (!p) {
		uncharge(app, cap - app->in_cap);
		return -ENOMEM;
	}
	app->in = p;
	app->in_cap = cap;
	return 0;
}

/*
 * Takes the next whole message out of the buffer: 1 with @news, 0 when
 * more bytes are needed (*@want: how many at least), or -errno.
 */
static int parse_one(struct trawl_ustctl_app *app, struct trawl_ustctl_app_news *news, size_t *want)
{
	for (;;) {
		size_t avail = app->in_len - app->in_off;
		struct trawl_wire_hdr h;
		int ret;

		*want = READ_CHUNK;
		if (app->discard_left) {
			size_t k = TRAWL_MIN(avail, app->discard_left);

			app->in_off += k;
			app->discard_left -= k;
			if (app->discard_left)
				return 0;
			continue; /* its take_msg() ran when it began */
		}
		if (avail < sizeof(h)) {
			*want = sizeof(h) - avail;
			return 0;
		}
		memcpy(&h, app->in + app->in_off, sizeof(h));
		if (hdr_allowed(app, &h))
			return -EPROTO;
		if (app->refusing && h.type == TRAWL_WIRE_EVENT) {
			/* Counted, never kept: read past it as it comes. */
			app->discard_left = h.size;
			ret = take_msg(app, &h, NULL, 1, news);
			if (ret)
				return ret;
			continue;
		}
		if (avail < h.size) {
			*want = h.size - avail;
			ret = in_reserve(app, *want);
			if (ret == -EDQUOT && h.type == TRAWL_WIRE_EVENT) {
				refuse_unit(app, "an event description of %u bytes does not fit in "
						 "the memory left to it", h.size);
				continue;
			}
			return ret;
		}
		app->in_off += h.size;
		ret = take_msg(app, &h, app->in + app->in_off - h.size, 0, news);
		if (ret)
			return ret;
	}
}

/* The fds that came with the bytes read (SCM_RIGHTS): one is kept for the
 * TALLY_SHM among those bytes; more, or cut short, is -EPROTO. */
static int take_rx_fds(struct trawl_ustctl_app *app, struct msghdr *mh)
{
	struct cmsghdr *cm;
	int ret = mh->msg_flags & MSG_CTRUNC ? -EPROTO : 0;

	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		size_t i, n;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (app->rx_fd < 0 && !ret) {
				app->rx_fd = fd;
			} else {
				close(fd);
				ret = -EPROTO;
			}
		}
	}
	return ret;
}

/* One recv() into the buffer. 0, -EAGAIN (nothing there) or -errno. */
static int read_some(struct trawl_ustctl_app *app, size_t want)
{
	union {
		char buf[CMSG_SPACE(4 * sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct msghdr mh;
	struct iovec iov;
	ssize_t n;
	int ret;

	size_t need = TRAWL_MAX(want, (size_t)1);

	if (app->in_off == app->in_len)
		app->in_len = app->in_off = 0; /* nothing kept: reuse the buffer */
	if (app->in_cap - app->in_len < need) {
		ret = in_reserve(app, need);
		if (ret)
			return ret;
	}
	iov.iov_base = app->in + app->in_len;
	iov.iov_len = app->in_cap - app->in_len;
	do {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = sizeof(cbuf.buf);
		n = recvmsg(app->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	ret = take_rx_fds(app, &mh);
	if (ret)
		return ret;
	if (n == 0)
		return -ECONNRESET;
	app->in_len += (size_t)n;
	return 0;
}

/* Nothing partial left: the buffer goes (an idle app holds none). */
static void in_settle(struct trawl_ustctl_app *app)
{
	if (app->in_off == app->in_len && !app->discard_left) {
		in_free(app);
		app->partial_since_ms = 0;
	} else if (!app->partial_since_ms) {
		app->partial_since_ms = now_ms();
	}
}

int trawl_ustctl_app_input(struct trawl_ustctl_app *app, int may_read, struct trawl_ustctl_app_news *news)
{
	size_t want;
	int ret;

	if (app->fd < 0)
		return -EPIPE;
	tally_free(app); /* the last one's entries were used */
	ret = parse_one(app, news, &want);
	if (ret == 0 && may_read) {
		ret = read_some(app, want);
		if (ret == 0)
			ret = parse_one(app, news, &want);
		else if (ret == -EAGAIN)
			ret = 0;
	}
	/* Every byte read was taken, and an fd that came with them was not:
	 * it came with no TALLY_SHM (fds come with the bytes sent with them). */
	if (ret == 0 && app->rx_fd >= 0 && app->in_off == app->in_len && !app->discard_left)
		ret = -EPROTO;
	in_settle(app);
	return ret;
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
		.queued_ms = now_ms(),
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
	uint64_t now = now_ms();
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
	deadline = now_ms() + app->lim.reply_ms;
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
	int ret = wait_news(app, TRAWL_USTCTL_NEWS_ADDED, now_ms() + app->lim.unit_ms, &news);

	return ret < 0 ? ret : 0;
}
