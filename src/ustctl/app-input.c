/* SPDX-License-Identifier: MIT */
/*
 * app-input.c - what a traced app sends, read as it comes (app.c's top
 * comment: Input, Limits): its units (registration, additions) checked and
 * kept within the limits or refused, its tallies (TALLY, TALLY_SHM), and
 * the replies to the commands app.c sent.
 */
#define _GNU_SOURCE
#include "common/array.h"
#include "ustctl/app-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "common/fdmsg.h"

#define READ_CHUNK 4096u

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
	trawl_ustctl_app_free_events_from(app, app->unit == UNIT_REGISTER ? 0 : app->unit_first);
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
	n = trawl_ustctl_event_bytes(ev);
	if (trawl_ustctl_app_charge(app, n)) {
		refuse_unit(app, "its event descriptions take more than the %s allowed",
			    app->lim.shared_bytes && *app->lim.shared_bytes + n > app->lim.shared_max
				    ? "memory its user's apps may have"
				    : "memory one app may have");
		free(ev);
		return 0;
	}
	if (trawl_array_grow((void **)&app->events, &app->cap_events, (size_t)app->nr_events + 1,
			     sizeof(*app->events), 16)) {
		trawl_ustctl_app_uncharge(app, n);
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
	trawl_ustctl_app_tally_free(app);
	ret = trawl_ustctl_app_charge(app, (uint64_t)nr * sizeof(*e));
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
		app->unit_start_ms = trawl_ustctl_now_ms();
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
	if (trawl_ustctl_app_charge(app, cap - app->in_cap))
		return -EDQUOT;
	p = realloc(app->in, cap);
	if (!p) {
		trawl_ustctl_app_uncharge(app, cap - app->in_cap);
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
		trawl_ustctl_app_in_free(app);
		app->partial_since_ms = 0;
	} else if (!app->partial_since_ms) {
		app->partial_since_ms = trawl_ustctl_now_ms();
	}
}

int trawl_ustctl_app_input(struct trawl_ustctl_app *app, int may_read, struct trawl_ustctl_app_news *news)
{
	size_t want;
	int ret;

	if (app->fd < 0)
		return -EPIPE;
	trawl_ustctl_app_tally_free(app); /* the last one's entries were used */
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
