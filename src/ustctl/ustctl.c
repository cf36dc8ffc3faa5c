/* SPDX-License-Identifier: MIT */
/*
 * ustctl.c - the daemon's side of the app protocol and of the ring buffers
 * (contract in ustctl.h, wire format in wire.h, buffer algorithm in
 * src/ringbuffer/ringbuffer.h).
 */
#define _GNU_SOURCE
#include "ustctl/ustctl.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/common.h"
#include "ringbuffer/ringbuffer.h"
#include "ustctl/wire.h"

struct trawl_ustctl_app {
	int fd;
	uint32_t seq;
	struct trawl_ustctl_app_info info;
	uint32_t nr_events;
	struct trawl_ustctl_event **events; /* each one malloc'd block */
	/* Events added (EVENTS_ADDED) and not yet taken by the caller:
	 * [added_first, nr_events). */
	uint32_t added_first;
	int added;
	int notify_fd; /* the caller's eventfd, or -1 (not owned) */
};

struct trawl_ustctl_channel {
	struct trawl_ustctl_channel_attr attr;
	int *fds;
};

struct trawl_ustctl_stream {
	struct trawl_rb_reader r;
	int fd;
	uint64_t packets_read;
	uint64_t skip_below; /* resumed: packets below this seq are on disk already */
};

/* ---- app side ---- */

/* Reads @nr EVENT messages from @fd onto @app's events. 0 or -errno (the
 * events read so far stay: the caller drops the app). */
static int recv_events(struct trawl_ustctl_app *app, int fd, uint32_t nr)
{
	uint32_t i;
	size_t len;
	void *msg;
	int ret;

	/* Grown as events arrive: a claimed count costs nothing until sent. */
	for (i = 0; i < nr; i++) {
		struct trawl_ustctl_event **ne, *ev;

		ret = trawl_wire_recv_msg(fd, &msg, &len, TRAWL_USTCTL_TIMEOUT_MS);
		if (ret)
			return ret;
		ret = trawl_wire_event_decode(msg, len, &ev);
		free(msg);
		if (ret)
			return ret;
		ne = realloc(app->events, (app->nr_events + 1) * sizeof(*ne));
		if (!ne) {
			free(ev);
			return -ENOMEM;
		}
		app->events = ne;
		app->events[app->nr_events++] = ev;
	}
	return 0;
}

int trawl_ustctl_app_accept(int fd, struct trawl_ustctl_app **out)
{
	struct trawl_ustctl_app *app;
	uint32_t nr;
	size_t len;
	void *msg;
	int ret;

	app = calloc(1, sizeof(*app));
	if (!app)
		return -ENOMEM;
	app->notify_fd = -1;
	ret = trawl_wire_recv_msg(fd, &msg, &len, TRAWL_USTCTL_TIMEOUT_MS);
	if (ret)
		goto err;
	ret = trawl_wire_register_decode(msg, len, &app->info, &nr);
	free(msg);
	if (ret)
		goto err;
	ret = recv_events(app, fd, nr);
	if (ret)
		goto err;
	app->fd = fd;
	*out = app;
	return 0;
err:
	app->fd = -1;
	trawl_ustctl_app_destroy(app);
	return ret;
}

void trawl_ustctl_app_destroy(struct trawl_ustctl_app *app)
{
	uint32_t i;

	if (!app)
		return;
	if (app->fd >= 0)
		close(app->fd);
	for (i = 0; i < app->nr_events; i++)
		free(app->events[i]);
	free(app->events);
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

/* The rest of an EVENTS_ADDED whose header @h was read, and its events. */
static int recv_added_rest(struct trawl_ustctl_app *app, const struct trawl_wire_hdr *h)
{
	struct trawl_wire_events_added a;
	uint32_t nr, first = app->nr_events;
	int ret;

	if (h->size != sizeof(a))
		return -EPROTO;
	memcpy(&a.hdr, h, sizeof(*h));
	ret = trawl_wire_recv_all(app->fd, (char *)&a + sizeof(*h), sizeof(a) - sizeof(*h),
				  TRAWL_USTCTL_TIMEOUT_MS);
	if (ret)
		return ret;
	if (trawl_wire_events_added_decode(&a, sizeof(a), app->nr_events, &nr))
		return -EPROTO;
	ret = recv_events(app, app->fd, nr);
	if (ret)
		return ret;
	if (!app->added)
		app->added_first = first;
	app->added = 1;
	if (app->notify_fd >= 0) {
		uint64_t one = 1;

		if (write(app->notify_fd, &one, sizeof(one)) < 0) {
			/* A full counter: the caller will look anyway. */
		}
	}
	return 0;
}

int trawl_ustctl_app_recv_added(struct trawl_ustctl_app *app)
{
	struct trawl_wire_hdr h;
	int ret;

	ret = trawl_wire_recv_all(app->fd, &h, sizeof(h), TRAWL_USTCTL_TIMEOUT_MS);
	if (ret)
		return ret;
	if (h.magic != TRAWL_WIRE_MAGIC || h.type != TRAWL_WIRE_EVENTS_ADDED)
		return -EPROTO;
	return recv_added_rest(app, &h);
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

/* Reads the reply to the command numbered @seq: 0, or -errno. An
 * EVENTS_ADDED the app sent before it read the command is read first (the
 * caller hears of it through its notify fd). */
static int recv_reply(struct trawl_ustctl_app *app, uint32_t seq, struct trawl_wire_reply *reply)
{
	int ret;

	for (;;) {
		ret = trawl_wire_recv_all(app->fd, &reply->hdr, sizeof(reply->hdr), TRAWL_USTCTL_TIMEOUT_MS);
		if (ret)
			return ret;
		if (reply->hdr.magic != TRAWL_WIRE_MAGIC || reply->hdr.type != TRAWL_WIRE_EVENTS_ADDED)
			break;
		ret = recv_added_rest(app, &reply->hdr);
		if (ret)
			return ret;
	}
	ret = trawl_wire_recv_all(app->fd, (char *)reply + sizeof(reply->hdr), sizeof(*reply) - sizeof(reply->hdr),
				  TRAWL_USTCTL_TIMEOUT_MS);
	if (ret)
		return ret;
	if (trawl_wire_hdr_check(&reply->hdr, TRAWL_WIRE_REPLY, sizeof(*reply)) || reply->hdr.seq != seq)
		return -EPROTO;
	return 0;
}

/* Sends @cmd followed by @extra_len bytes of @extra (with @fds) and waits
 * for the app's reply. */
static int app_call_extra(struct trawl_ustctl_app *app, struct trawl_wire_cmd *cmd, const void *extra,
			  size_t extra_len, const int *fds, uint32_t nr_fds)
{
	char small[TRAWL_WIRE_CMD_MAX], *buf = small;
	struct trawl_wire_reply reply;
	ssize_t n;
	int ret;

	/* Counters after a CHANNEL fit in the stack buffer; an ENABLE's
	 * filters may not. */
	if (extra_len > TRAWL_WIRE_MAX_FILTERS)
		return -EINVAL;
	if (sizeof(*cmd) + extra_len > sizeof(small)) {
		buf = malloc(sizeof(*cmd) + extra_len);
		if (!buf)
			return -ENOMEM;
	}
	trawl_wire_hdr_init(&cmd->hdr, TRAWL_WIRE_CMD, (uint32_t)(sizeof(*cmd) + extra_len));
	cmd->hdr.seq = ++app->seq;
	memcpy(buf, cmd, sizeof(*cmd));
	if (extra_len)
		memcpy(buf + sizeof(*cmd), extra, extra_len);
	n = trawl_ustctl_send_fds(app->fd, buf, sizeof(*cmd) + extra_len, fds, nr_fds);
	if (buf != small)
		free(buf);
	if (n < 0)
		return (int)n;
	ret = recv_reply(app, cmd->hdr.seq, &reply);
	if (ret)
		return ret;
	/* The app's answer is a negative errno or 0; anything else is a lie. */
	if (reply.ret > 0 || reply.ret < -4095)
		return -EPROTO;
	return reply.ret;
}

/* Sends @cmd (with @fds) and waits for the app's reply. */
static int app_call(struct trawl_ustctl_app *app, struct trawl_wire_cmd *cmd, const int *fds, uint32_t nr_fds)
{
	return app_call_extra(app, cmd, NULL, 0, fds, nr_fds);
}

static void cmd_init(struct trawl_wire_cmd *cmd, uint32_t kind)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->cmd = kind;
}

int trawl_ustctl_app_send_channel(struct trawl_ustctl_app *app, const struct trawl_ustctl_channel *chan,
				  uint32_t session_handle, uint32_t chan_handle)
{
	return trawl_ustctl_app_send_channel_ctx(app, chan, session_handle, chan_handle, 0);
}

int trawl_ustctl_app_send_channel_ctx(struct trawl_ustctl_app *app, const struct trawl_ustctl_channel *chan,
				      uint32_t session_handle, uint32_t chan_handle, uint32_t contexts)
{
	struct trawl_ustctl_contexts ctx = { .bits = contexts };

	return trawl_ustctl_app_send_channel_ctxs(app, chan, session_handle, chan_handle, &ctx);
}

int trawl_ustctl_app_send_channel_ctxs(struct trawl_ustctl_app *app, const struct trawl_ustctl_channel *chan,
				       uint32_t session_handle, uint32_t chan_handle,
				       const struct trawl_ustctl_contexts *ctx)
{
	struct trawl_wire_counter counters[TRAWL_USTCTL_MAX_COUNTERS];
	struct trawl_wire_cmd cmd;
	uint32_t i;

	if ((ctx->bits & ~TRAWL_USTCTL_CTX_ALL) || ctx->nr_counters > TRAWL_USTCTL_MAX_COUNTERS)
		return -EINVAL;
	/* An app of ABI minor 0 would take the counters for garbage and
	 * refuse prio/nice: say why instead. */
	if (app->info.abi_minor < 1 &&
	    (ctx->nr_counters || (ctx->bits & (TRAWL_USTCTL_CTX_PRIO | TRAWL_USTCTL_CTX_NICE))))
		return -EPROTONOSUPPORT;
	cmd_init(&cmd, TRAWL_WIRE_CMD_CHANNEL);
	cmd.contexts = ctx->bits;
	cmd.nr_counters = ctx->nr_counters;
	cmd.session_handle = session_handle;
	cmd.chan_handle = chan_handle;
	cmd.nr_streams = chan->attr.nr_streams;
	cmd.num_subbuf = chan->attr.num_subbuf;
	cmd.overwrite = chan->attr.overwrite;
	cmd.subbuf_size = chan->attr.subbuf_size;
	memset(counters, 0, sizeof(counters));
	for (i = 0; i < ctx->nr_counters; i++) {
		counters[i].type = ctx->counters[i].type;
		counters[i].config = ctx->counters[i].config;
	}
	return app_call_extra(app, &cmd, counters, ctx->nr_counters * sizeof(counters[0]), chan->fds,
			      chan->attr.nr_streams);
}

int trawl_ustctl_app_enable_event(struct trawl_ustctl_app *app, uint32_t chan_handle, uint32_t event_index,
				  uint32_t event_id)
{
	struct trawl_wire_cmd cmd;

	if (event_index >= app->nr_events)
		return -ENOENT;
	cmd_init(&cmd, TRAWL_WIRE_CMD_ENABLE);
	cmd.chan_handle = chan_handle;
	cmd.event_index = event_index;
	cmd.event_id = event_id;
	return app_call(app, &cmd, NULL, 0);
}

int trawl_ustctl_app_enable_event_filter(struct trawl_ustctl_app *app, uint32_t chan_handle,
					 uint32_t event_index, uint32_t event_id, const char *filters,
					 size_t filters_len)
{
	struct trawl_wire_cmd cmd;

	if (event_index >= app->nr_events)
		return -ENOENT;
	if (filters_len && filters[filters_len - 1] != '\0')
		return -EINVAL;
	cmd_init(&cmd, TRAWL_WIRE_CMD_ENABLE);
	cmd.chan_handle = chan_handle;
	cmd.event_index = event_index;
	cmd.event_id = event_id;
	return app_call_extra(app, &cmd, filters, filters_len, NULL, 0);
}

int trawl_ustctl_app_disable_event(struct trawl_ustctl_app *app, uint32_t chan_handle, uint32_t event_index)
{
	struct trawl_wire_cmd cmd;

	if (event_index >= app->nr_events)
		return -ENOENT;
	cmd_init(&cmd, TRAWL_WIRE_CMD_DISABLE);
	cmd.chan_handle = chan_handle;
	cmd.event_index = event_index;
	return app_call(app, &cmd, NULL, 0);
}

static int session_cmd(struct trawl_ustctl_app *app, uint32_t kind, uint32_t session_handle)
{
	struct trawl_wire_cmd cmd;

	cmd_init(&cmd, kind);
	cmd.session_handle = session_handle;
	return app_call(app, &cmd, NULL, 0);
}

int trawl_ustctl_app_start(struct trawl_ustctl_app *app, uint32_t session_handle)
{
	return session_cmd(app, TRAWL_WIRE_CMD_START, session_handle);
}

int trawl_ustctl_app_stop(struct trawl_ustctl_app *app, uint32_t session_handle)
{
	return session_cmd(app, TRAWL_WIRE_CMD_STOP, session_handle);
}

static int chan_cmd(struct trawl_ustctl_app *app, uint32_t kind, uint32_t chan_handle)
{
	struct trawl_wire_cmd cmd;

	cmd_init(&cmd, kind);
	cmd.chan_handle = chan_handle;
	return app_call(app, &cmd, NULL, 0);
}

int trawl_ustctl_app_flush(struct trawl_ustctl_app *app, uint32_t chan_handle)
{
	return chan_cmd(app, TRAWL_WIRE_CMD_FLUSH, chan_handle);
}

int trawl_ustctl_app_release_channel(struct trawl_ustctl_app *app, uint32_t chan_handle)
{
	return chan_cmd(app, TRAWL_WIRE_CMD_RELEASE, chan_handle);
}

int trawl_ustctl_app_registration_done(struct trawl_ustctl_app *app)
{
	return trawl_ustctl_app_registration_done_flags(app, 0);
}

int trawl_ustctl_app_registration_done_flags(struct trawl_ustctl_app *app, uint32_t flags)
{
	struct trawl_wire_cmd cmd;

	cmd_init(&cmd, TRAWL_WIRE_CMD_REGISTRATION_DONE);
	cmd.flags = flags;
	cmd.event_index = app->nr_events;
	return app_call(app, &cmd, NULL, 0);
}

/* ---- fds over a socket ---- */

ssize_t trawl_ustctl_send_fds(int sock, const void *data, size_t len, const int *fds, uint32_t nr_fds)
{
	union {
		char buf[CMSG_SPACE(TRAWL_USTCTL_MAX_STREAMS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { (void *)data, len };
	struct msghdr msg = { 0 };
	ssize_t n;
	int ret;

	if (nr_fds > TRAWL_USTCTL_MAX_STREAMS || !len)
		return -EINVAL;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (nr_fds) {
		struct cmsghdr *cm;

		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = CMSG_SPACE(nr_fds * sizeof(int));
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nr_fds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nr_fds * sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	/* The fds went with the first byte; send the rest plainly. */
	if ((size_t)n < len) {
		ret = trawl_wire_send_all(sock, (const char *)data + n, len - (size_t)n);
		if (ret)
			return ret;
	}
	return (ssize_t)len;
}

ssize_t trawl_ustctl_recv_fds(int sock, void *data, size_t len, int *fds, uint32_t max_fds, uint32_t *nr_fds)
{
	union {
		char buf[CMSG_SPACE(TRAWL_USTCTL_MAX_STREAMS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { data, len };
	struct msghdr msg = { 0 };
	struct cmsghdr *cm;
	uint32_t got = 0, i;
	ssize_t n;
	int bad = 0;

	*nr_fds = 0;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		uint32_t k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (uint32_t)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (got < max_fds)
				fds[got++] = fd;
			else
				close(fd), bad = 1;
		}
	}
	if (msg.msg_flags & MSG_CTRUNC)
		bad = 1;
	if (n > 0 && (size_t)n < len) {
		int ret = trawl_wire_recv_all(sock, (char *)data + n, len - (size_t)n, TRAWL_USTCTL_TIMEOUT_MS);

		if (ret)
			bad = 1;
		else
			n = (ssize_t)len;
	}
	if (bad) {
		for (i = 0; i < got; i++)
			close(fds[i]);
		return -EPROTO;
	}
	*nr_fds = got;
	return n;
}

/* ---- channels ---- */

uint32_t trawl_ustctl_possible_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (n < 1)
		return 1;
	return n > TRAWL_USTCTL_MAX_STREAMS ? TRAWL_USTCTL_MAX_STREAMS : (uint32_t)n;
}

int trawl_ustctl_channel_create(const struct trawl_ustctl_channel_attr *attr, struct trawl_ustctl_channel **out)
{
	struct trawl_ustctl_channel *chan;
	uint32_t i;
	int ret;

	if (!attr->nr_streams || attr->nr_streams > TRAWL_USTCTL_MAX_STREAMS || attr->overwrite > 1 ||
	    trawl_rb_check_attr(attr->subbuf_size, attr->num_subbuf))
		return -EINVAL;
	chan = calloc(1, sizeof(*chan));
	if (!chan)
		return -ENOMEM;
	chan->attr = *attr;
	chan->fds = malloc(attr->nr_streams * sizeof(int));
	if (!chan->fds) {
		free(chan);
		return -ENOMEM;
	}
	for (i = 0; i < attr->nr_streams; i++) {
		ret = trawl_rb_shm_create(attr->subbuf_size, attr->num_subbuf, attr->overwrite, i);
		if (ret < 0)
			goto err;
		chan->fds[i] = ret;
	}
	*out = chan;
	return 0;
err:
	while (i--)
		close(chan->fds[i]);
	free(chan->fds);
	free(chan);
	return ret;
}

void trawl_ustctl_channel_destroy(struct trawl_ustctl_channel *chan)
{
	uint32_t i;

	if (!chan)
		return;
	for (i = 0; i < chan->attr.nr_streams; i++)
		close(chan->fds[i]);
	free(chan->fds);
	free(chan);
}

const struct trawl_ustctl_channel_attr *trawl_ustctl_channel_attr(const struct trawl_ustctl_channel *chan)
{
	return &chan->attr;
}

int trawl_ustctl_channel_stream_fd(const struct trawl_ustctl_channel *chan, uint32_t cpu)
{
	return cpu < chan->attr.nr_streams ? chan->fds[cpu] : -EINVAL;
}

/* ---- consumer side ---- */

int trawl_ustctl_stream_map(int fd, const struct trawl_ustctl_channel_attr *attr, uint32_t cpu,
			    uint64_t stream_instance_id, struct trawl_ustctl_stream **out)
{
	struct trawl_ustctl_stream *s;
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	ret = trawl_rb_map(&s->r.rb, fd, attr->subbuf_size, attr->num_subbuf, attr->overwrite, cpu);
	if (ret)
		goto err;
	ret = trawl_rb_reader_init(&s->r);
	if (ret)
		goto err_map;
	memcpy(s->r.uuid, attr->uuid, 16);
	s->r.stream_id = attr->stream_id;
	s->r.stream_instance_id = stream_instance_id;
	s->fd = fd;
	*out = s;
	return 0;
err_map:
	trawl_rb_unmap(&s->r.rb);
err:
	free(s);
	return ret;
}

void trawl_ustctl_stream_unmap(struct trawl_ustctl_stream *s)
{
	if (!s)
		return;
	trawl_rb_reader_fini(&s->r);
	trawl_rb_unmap(&s->r.rb);
	close(s->fd);
	free(s);
}

int trawl_ustctl_stream_resume(struct trawl_ustctl_stream *s, uint64_t next_seq)
{
	uint64_t count = trawl_rb_reader_resume(&s->r);

	if (next_seq == UINT64_MAX || next_seq == count)
		return 0;
	if (next_seq == count + 1) {
		/* Written, then the consumer died before giving it back. */
		s->skip_below = next_seq;
		return 0;
	}
	return -ESTALE;
}

int trawl_ustctl_stream_get_packet(struct trawl_ustctl_stream *s, struct trawl_ustctl_packet *pkt)
{
	struct trawl_rb_packet p;
	int ret = trawl_rb_reader_get(&s->r, &p);

	while (!ret && p.seq < s->skip_below) {
		trawl_rb_reader_put(&s->r);
		ret = trawl_rb_reader_get(&s->r, &p);
	}
	if (ret)
		return ret;
	pkt->data = p.data;
	pkt->packet_size = p.packet_size;
	pkt->content_size = p.content_size;
	pkt->timestamp_begin = p.ts_begin;
	pkt->timestamp_end = p.ts_end;
	pkt->events_discarded = p.discarded;
	pkt->packet_seq_num = p.seq;
	return 0;
}

int trawl_ustctl_stream_put_packet(struct trawl_ustctl_stream *s)
{
	int ret = trawl_rb_reader_put(&s->r);

	if (!ret)
		s->packets_read++;
	return ret;
}

int trawl_ustctl_stream_flush(struct trawl_ustctl_stream *s, int final)
{
	if (final)
		return trawl_rb_reader_flush_final(&s->r, 10);
	return trawl_rb_flush(&s->r.rb, 0);
}

int trawl_ustctl_stream_flush_live(struct trawl_ustctl_stream *s)
{
	/* Overwrite mode would lose a sub-buffer of data to each empty packet. */
	return trawl_rb_flush(&s->r.rb, !s->r.rb.overwrite);
}

int trawl_ustctl_stream_counters(const struct trawl_ustctl_stream *s, struct trawl_ustctl_stream_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->events_discarded = trawl_rb_lost(&s->r.rb);
	c->packets_read = s->packets_read;
	c->packets_corrupt = s->r.corrupt;
	c->bytes_produced = __atomic_load_n(&s->r.rb.ctrl->reserve, __ATOMIC_RELAXED) & TRAWL_RB_POS_MASK;
	return 0;
}
