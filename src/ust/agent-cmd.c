/* SPDX-License-Identifier: MIT */
/*
 * agent-cmd.c - the session daemon's commands to an app, as libtrawl-ust's
 * agent thread (agent.c) reads them one at a time from a connection:
 * CHANNEL (the ring buffers mapped), NOTIFIER (the trigger ring), ENABLE
 * and DISABLE (an event's slot), START and STOP, FLUSH, RELEASE and
 * REGISTRATION_DONE, each answered with a REPLY (ustabi/wire.h). The
 * channels a connection holds live here too: a dropped one stays mapped
 * for the process's lifetime (a thread may still be writing into it).
 * Every command but REGISTRATION_DONE runs under trawl_ust_lock.
 */
#define _GNU_SOURCE
#include "ust/agent-internal.h"
#include "ust/ust.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "common/fdmsg.h"
#include "common/io.h"
#include "ustabi/notify.h"
#include "ustabi/wire.h"

#define CMD_TIMEOUT_MS 3000

/* ---- channels ---- */

static struct trawl_ust_chan *find_chan(struct trawl_ust_conn *c, uint32_t handle)
{
	struct trawl_ust_chan *ch;

	for (ch = c->chans; ch; ch = ch->next)
		if (ch->handle == handle)
			return ch;
	return NULL;
}

/* Whether a channel of session @handle records now (it was started). */
static int session_active(struct trawl_ust_conn *c, uint32_t handle)
{
	struct trawl_ust_chan *ch;

	for (ch = c->chans; ch; ch = ch->next)
		if (ch->session_handle == handle && __atomic_load_n(&ch->active, __ATOMIC_RELAXED))
			return 1;
	return 0;
}

/* Channels no longer used: kept (mapped, and reachable from here) for the
 * process's lifetime, because a thread may still be writing into one it
 * loaded from a slot just before the channel was dropped. */
static struct trawl_ust_chan *graveyard;

/* Makes a channel unreachable from the fast path; its memory stays mapped
 * (see ust.h). Called with the lock held; @ch must be off its list. */
void trawl_ust_agent_chan_drop(struct trawl_ust_chan *ch)
{
	__atomic_store_n(&ch->active, 0, __ATOMIC_RELAXED);
	trawl_ust_registry_clear_slots(ch);
	ch->next = graveyard;
	graveyard = ch;
}

/* Unpublishes @c's ring. Its mapping and eventfd stay (a probe may have
 * loaded the ring, or hold a channel pointing at it): at most one of each
 * per connection to a daemon, kept for the process's lifetime. */
void trawl_ust_agent_notify_forget(struct trawl_ust_conn *c)
{
	int i = (int)(c - trawl_ust_agent_conns);

	if (i >= 0 && i < TRAWL_UST_MAX_NOTIFY)
		__atomic_store_n(&trawl_ust_notifies[i], NULL, __ATOMIC_RELEASE);
	c->notify = NULL;
}

/* @buf, @len: the whole command (its application contexts after the
 * counters: wire.c checked them). */
static int cmd_channel(struct trawl_ust_conn *c, const struct trawl_wire_cmd *cmd,
		       const struct trawl_wire_counter *counters, int *fds, uint32_t nr_fds,
		       const char *buf, size_t len)
{
	uint8_t slots[TRAWL_USTCTL_MAX_COUNTERS];
	struct trawl_ust_app_ctx *app_ctx = NULL;
	struct trawl_ust_chan *ch;
	uint32_t i, wake = !!(cmd->flags & TRAWL_WIRE_CHAN_WAKE), nr_app;
	const char *app_names;
	int ret;

	if (cmd->nr_streams == 0 || cmd->nr_streams + wake != nr_fds || cmd->overwrite > 1 ||
	    (cmd->flags & ~(TRAWL_WIRE_CHAN_BLOCKING | TRAWL_WIRE_CHAN_WAKE | TRAWL_WIRE_CHAN_APP_CTX)) ||
	    (cmd->contexts & ~TRAWL_USTCTL_CTX_ALL) || cmd->nr_counters > TRAWL_USTCTL_MAX_COUNTERS)
		return -EINVAL;
	/* The clock the daemon made the trace's: ours (a plugin's) exactly
	 * when we have one, the TSC only where there is one. */
	if ((cmd->clock == TRAWL_RB_CLOCK_APP) != (trawl_ust_clock_read != NULL) || cmd->clock > TRAWL_RB_CLOCK_MAX
#if !defined(__x86_64__)
	    || cmd->clock == TRAWL_RB_CLOCK_TSC
#endif
	)
		return -EINVAL;
	/* Counters are opened by each thread at its first event (context.c);
	 * here they only get their slot in the process's table. */
	for (i = 0; i < cmd->nr_counters; i++) {
		ret = trawl_ust_perf_slot(counters[i].type, counters[i].config);
		if (ret < 0)
			return ret;
		slots[i] = (uint8_t)ret;
	}
	if (trawl_rb_check_attr(cmd->subbuf_size, cmd->num_subbuf))
		return -EINVAL;
	if (find_chan(c, cmd->chan_handle))
		return -EEXIST;
	nr_fds = cmd->nr_streams;
	nr_app = trawl_wire_app_ctx(buf, len, &app_names);
	if (nr_app && !(app_ctx = trawl_ust_app_ctx_create(app_names, nr_app)))
		return -ENOMEM;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		goto err_app;
	ch->rbs = calloc(nr_fds, sizeof(*ch->rbs));
	if (!ch->rbs) {
		free(ch);
		goto err_app;
	}
	ch->app_ctx = app_ctx;
	/* Our own copy of the consumer's eventfd (the command's fds are
	 * closed after it), kept for the process's lifetime as the mappings
	 * are (trawl_ust_agent_chan_drop()): a thread may still close a packet of a dropped
	 * channel, and must not write into another file given its number. */
	ch->wake_fd = wake ? fcntl(fds[nr_fds], F_DUPFD_CLOEXEC, 3) : -1;
	if (wake && ch->wake_fd < 0) {
		/* The consumer would sleep on a channel we cannot wake it for. */
		ret = -errno;
		free(ch->rbs);
		free(ch);
		trawl_ust_app_ctx_destroy(app_ctx);
		return ret;
	}
	if ((cmd->flags & TRAWL_WIRE_CHAN_BLOCKING) && cmd->event_id && !cmd->overwrite &&
	    trawl_ust_allow_blocking())
		ch->blocking_ms = cmd->event_id;
	for (i = 0; i < nr_fds; i++) {
		ret = trawl_rb_map(&ch->rbs[i], fds[i], cmd->subbuf_size, cmd->num_subbuf, cmd->overwrite, i);
		if (ret)
			goto err_map;
		ch->rbs[i].wait_full = ch->blocking_ms != 0;
		ret = ch->wake_fd >= 0 ? trawl_rb_set_wake_fd(&ch->rbs[i], ch->wake_fd) : 0;
		if (ret) {
			trawl_rb_unmap(&ch->rbs[i]);
			goto err_map;
		}
		ch->rbs[i].clock = cmd->clock;
		if (cmd->clock == TRAWL_RB_CLOCK_APP)
			ch->rbs[i].read_clock = trawl_ust_clock_read;
	}
	ch->contexts = cmd->contexts;
	ch->nr_counters = cmd->nr_counters;
	memcpy(ch->counter_slot, slots, cmd->nr_counters);
	ch->context_size = trawl_ustctl_context_size(cmd->contexts) + 8 * cmd->nr_counters;
	ch->handle = cmd->chan_handle;
	ch->session_handle = cmd->session_handle;
	ch->nr_streams = nr_fds;
	ch->conn = c;
	ch->next = c->chans;
	c->chans = ch;
	return 0;
err_map:
	while (i--)
		trawl_rb_unmap(&ch->rbs[i]);
	if (ch->wake_fd >= 0)
		close(ch->wake_fd);
	free(ch->rbs);
	free(ch);
	trawl_ust_app_ctx_destroy(app_ctx);
	return ret;
err_app:
	trawl_ust_app_ctx_destroy(app_ctx);
	return -ENOMEM;
}

/* The connection's ring from NOTIFIER's two fds (memfd, eventfd): mapped
 * for the process's lifetime, the eventfd kept open as long. */
static int notify_map(struct trawl_ust_conn *c, const struct trawl_wire_cmd *cmd, int *fds)
{
	struct trawl_ust_notify *n;
	uint64_t size;
	struct stat st;
	void *map;
	int i = (int)(c - trawl_ust_agent_conns), efd;

	if (cmd->num_subbuf < TRAWL_NOTIFY_MIN_SLOTS || cmd->num_subbuf > TRAWL_NOTIFY_MAX_SLOTS ||
	    cmd->subbuf_size < TRAWL_NOTIFY_MIN_SLOT || cmd->subbuf_size > TRAWL_NOTIFY_MAX_SLOT ||
	    cmd->subbuf_size % 8 || i < 0 || i >= TRAWL_UST_MAX_NOTIFY)
		return -EINVAL;
	size = trawl_notify_size(cmd->num_subbuf, (uint32_t)cmd->subbuf_size);
	if (fstat(fds[0], &st) || (uint64_t)st.st_size != size)
		return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	if (map == MAP_FAILED) {
		free(n);
		return -errno;
	}
	efd = fcntl(fds[1], F_DUPFD_CLOEXEC, 3);
	if (efd < 0) {
		munmap(map, size);
		free(n);
		return -errno;
	}
	n->map = map;
	n->nr_slots = cmd->num_subbuf;
	n->slot_size = (uint32_t)cmd->subbuf_size;
	n->efd = efd;
	c->notify = n;
	/* Release: the ring's fields before a commit finds it. */
	__atomic_store_n(&trawl_ust_notifies[i], n, __ATOMIC_RELEASE);
	return 0;
}

/* NOTIFIER (wire.h): a channel that hands its events to the ring. @buf,
 * @len: the whole command (its application contexts: wire.c checked them). */
static int cmd_notifier(struct trawl_ust_conn *c, const struct trawl_wire_cmd *cmd, int *fds,
			uint32_t nr_fds, const char *buf, size_t len)
{
	struct trawl_ust_app_ctx *app_ctx = NULL;
	struct trawl_ust_chan *ch;
	const char *app_names;
	uint32_t nr_app;
	int ret;

	if (nr_fds != (c->notify ? 0u : 2u) || (cmd->contexts & ~TRAWL_USTCTL_CTX_ALL) ||
	    (cmd->flags & ~TRAWL_WIRE_CHAN_APP_CTX) || cmd->event_id > TRAWL_NOTIFY_COUNTERS)
		return -EINVAL;
	if (find_chan(c, cmd->chan_handle))
		return -EEXIST;
	if (!c->notify && (ret = notify_map(c, cmd, fds)))
		return ret;
	/* Their values follow the context fields in each record (fastpath.c's
	 * reserve_app() writes them, as for a channel's). */
	nr_app = trawl_wire_app_ctx(buf, len, &app_names);
	if (nr_app && !(app_ctx = trawl_ust_app_ctx_create(app_names, nr_app)))
		return -ENOMEM;
	ch = calloc(1, sizeof(*ch));
	if (!ch) {
		trawl_ust_app_ctx_destroy(app_ctx);
		return -ENOMEM;
	}
	ch->app_ctx = app_ctx;
	ch->handle = cmd->chan_handle;
	ch->session_handle = cmd->session_handle;
	ch->notify = c->notify;
	if (cmd->event_id) /* (1..TRAWL_NOTIFY_COUNTERS, checked above) */
		ch->notify_dropped = &((struct trawl_notify_head *)c->notify->map)
					      ->dropped_by[cmd->event_id - 1];
	/* Written before each record's payload ($ctx.NAME captures). */
	ch->contexts = cmd->contexts;
	ch->context_size = trawl_ustctl_context_size(cmd->contexts);
	ch->conn = c;
	ch->active = 1;
	ch->next = c->chans;
	c->chans = ch;
	return 0;
}

/* @filters, @filters_len: the ENABLE's filter texts (wire.h), or none. */
static int cmd_enable(struct trawl_ust_conn *c, const struct trawl_wire_cmd *cmd, int enable,
		      const char *filters, size_t filters_len)
{
	struct trawl_ust_chan *ch = find_chan(c, cmd->chan_handle);
	struct trawl_ust_event_desc *ev;
	uint32_t filter = 0;
	int ret;

	if (!ch || cmd->event_index >= c->nr_events)
		return -ENOENT;
	ev = c->events[cmd->event_index];
	/* A provider unloaded since the agent last looked (dlclose): its
	 * description may be unmapped already. The lock orders this with
	 * trawl_ust_provider_unregister(). */
	if (!ev || !trawl_ust_registry_has_event(ev))
		return -ENOENT;
	if (enable && filters_len) {
		ret = trawl_ust_filter_get(ev, filters, filters_len, &filter);
		if (ret)
			return ret;
	}
	/* A late daemon's setup waits in the tally's shadow (slots.c); an
	 * event it does not count (set up already) is changed at once. */
	if (c->tally && trawl_ust_tally_covers(c->tally, ev))
		return trawl_ust_tally_set(c->tally, ev, ch, cmd->event_id, filter, enable);
	return trawl_ust_slots_set(ev, ch, cmd->event_id, filter, enable);
}

static int cmd_apply(struct trawl_ust_conn *c, const struct trawl_wire_cmd *cmd,
		     const struct trawl_wire_counter *counters, int *fds, uint32_t nr_fds,
		     const char *extra, size_t extra_len)
{
	struct trawl_ust_chan *ch, **pp;
	int ret = 0;
	uint32_t i;

	switch (cmd->cmd) {
	case TRAWL_WIRE_CMD_CHANNEL:
		/* (@extra: what follows the fixed part, as for ENABLE) */
		return cmd_channel(c, cmd, counters, fds, nr_fds, extra - sizeof(*cmd),
				   extra_len + sizeof(*cmd));
	case TRAWL_WIRE_CMD_NOTIFIER:
		return cmd_notifier(c, cmd, fds, nr_fds, extra - sizeof(*cmd),
				    extra_len + sizeof(*cmd));
	case TRAWL_WIRE_CMD_ENABLE:
	case TRAWL_WIRE_CMD_DISABLE:
		ret = cmd_enable(c, cmd, cmd->cmd == TRAWL_WIRE_CMD_ENABLE, extra, extra_len);
		break;
	case TRAWL_WIRE_CMD_START:
	case TRAWL_WIRE_CMD_STOP:
		for (ch = c->chans; ch; ch = ch->next) {
			if (ch->session_handle != cmd->session_handle)
				continue;
			__atomic_store_n(&ch->active, cmd->cmd == TRAWL_WIRE_CMD_START, __ATOMIC_RELAXED);
			/* Our own clock: only we can close our packets (ringbuffer.h). */
			if (cmd->cmd == TRAWL_WIRE_CMD_STOP && trawl_ust_clock_read)
				for (i = 0; i < ch->nr_streams; i++)
					trawl_rb_flush(&ch->rbs[i], 0);
		}
		break;
	case TRAWL_WIRE_CMD_REGENERATE_STATEDUMP:
		return 0; /* done after the reply (trawl_ust_agent_serve_one()) */
	case TRAWL_WIRE_CMD_FLUSH:
		ch = find_chan(c, cmd->chan_handle);
		if (!ch)
			return -ENOENT;
		for (i = 0; i < ch->nr_streams; i++)
			trawl_rb_flush(&ch->rbs[i], 0);
		return 0;
	case TRAWL_WIRE_CMD_RELEASE:
		for (pp = &c->chans; *pp; pp = &(*pp)->next) {
			if ((*pp)->handle != cmd->chan_handle)
				continue;
			ch = *pp;
			*pp = ch->next;
			if (c->tally)
				trawl_ust_tally_drop_chan(c->tally, ch);
			trawl_ust_agent_chan_drop(ch);
			break;
		}
		break;
	default:
		return -EINVAL;
	}
	trawl_ust_registry_update_states();
	return ret;
}

/* Reads one command (and the fds sent with it); answers it. */
int trawl_ust_agent_serve_one(struct trawl_ust_conn *c)
{
	int fds[TRAWL_USTCTL_MAX_STREAMS];
	struct trawl_wire_counter counters[TRAWL_USTCTL_MAX_COUNTERS];
	union {
		char buf[TRAWL_WIRE_CMD_MAX];
		struct trawl_wire_hdr hdr;
	} in;
	struct trawl_wire_reply reply;
	struct trawl_wire_cmd cmd;
	uint32_t nr_fds = 0, i, kind;
	char *buf = in.buf, *big = NULL;
	ssize_t n;
	int ret, drop = 0, fds_cut = 0, was_active = 0;

	/* The fixed part first (its header says how much follows), with the
	 * fds the command carries; fds cut short (our fd table is full) fail
	 * this command, read whole, not the connection. */
	n = trawl_fdmsg_recv_fds(c->fd, in.buf, sizeof(cmd), fds, TRAWL_USTCTL_MAX_STREAMS, &nr_fds,
				 CMD_TIMEOUT_MS);
	if (n == -EPROTO)
		fds_cut = 1;
	else if (n <= 0)
		return n == 0 ? -ECONNRESET : (int)n;
	/* Untrusted size: bounded by our buffer before anything is read,
	 * except for an ENABLE's filters (wire.h), which get their own. */
	memcpy(&kind, in.buf + offsetof(struct trawl_wire_cmd, cmd), sizeof(kind));
	if (in.hdr.size < sizeof(cmd) ||
	    (in.hdr.size > sizeof(in.buf) &&
	     (kind != TRAWL_WIRE_CMD_ENABLE || in.hdr.size - sizeof(cmd) > TRAWL_WIRE_MAX_FILTERS))) {
		ret = -EPROTO;
		goto out;
	}
	if (in.hdr.size > sizeof(in.buf)) {
		big = malloc(in.hdr.size);
		if (!big) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(big, in.buf, sizeof(cmd));
		buf = big;
	}
	if (in.hdr.size > sizeof(cmd)) {
		ret = trawl_io_recv_all(c->fd, buf + sizeof(cmd), in.hdr.size - sizeof(cmd), CMD_TIMEOUT_MS);
		if (ret)
			goto out;
	}
	if (trawl_wire_cmd_decode(buf, in.hdr.size, &cmd, counters)) {
		ret = -EPROTO;
		goto out;
	}
	if (fds_cut) {
		ret = -EMFILE; /* answered: the daemon counts the channel as refused */
	} else if (cmd.cmd == TRAWL_WIRE_CMD_REGISTRATION_DONE) {
		/* The daemon's setup of this registration (or addition) is
		 * applied (its commands came before, in order): release the
		 * waiters. A daemon taking additions says how many events it
		 * has: anything but ours is a daemon we misunderstand. */
		ret = 0;
		c->takes_added = !!(cmd.flags & TRAWL_WIRE_DONE_TAKES_ADDED);
		if (c->takes_added && cmd.event_index != c->nr_events)
			drop = ret = -EPROTO;
		c->done_once = 1;
		c->adding = 0;
		if (!ret) {
			trawl_ust_agent_reg_publish(c, 0, c->generation, 0);
			trawl_ust_agent_tally_done(c, 1);
		}
	} else {
		int en = cmd.cmd == TRAWL_WIRE_CMD_ENABLE,
		    ch = cmd.cmd == TRAWL_WIRE_CMD_CHANNEL || cmd.cmd == TRAWL_WIRE_CMD_NOTIFIER;

		pthread_mutex_lock(&trawl_ust_lock);
		if (cmd.cmd == TRAWL_WIRE_CMD_START)
			was_active = session_active(c, cmd.session_handle);
		ret = cmd_apply(c, &cmd, counters, fds, nr_fds, en || ch ? buf + sizeof(cmd) : NULL,
				en || ch ? in.hdr.size - sizeof(cmd) : 0);
		pthread_mutex_unlock(&trawl_ust_lock);
	}
	memset(&reply, 0, sizeof(reply));
	trawl_wire_hdr_init(&reply.hdr, TRAWL_WIRE_REPLY, sizeof(reply));
	reply.hdr.seq = cmd.hdr.seq;
	reply.ret = ret;
	pthread_mutex_lock(&c->send_lock);
	ret = trawl_ust_agent_reg_send(c, c->fd, &reply, sizeof(reply));
	pthread_mutex_unlock(&c->send_lock);
	if (!ret && !reply.ret &&
	    ((cmd.cmd == TRAWL_WIRE_CMD_START && !was_active) ||
	     cmd.cmd == TRAWL_WIRE_CMD_REGENERATE_STATEDUMP)) {
		/* After the reply, so that the daemon goes on meanwhile; before
		 * the next command (statedump.c). A START for a session that
		 * records already only turns on a channel the app got since (a
		 * provider it added, a rule enabled later): no state dump again,
		 * as LTTng-UST records it once per start of the session. */
		struct trawl_ust_session_ref sref = { c, cmd.session_handle };

		trawl_ust_statedump(&sref, trawl_ust_agent_procname);
	}
	if (!ret)
		ret = drop; /* then the caller registers again */
out:
	free(big);
	for (i = 0; i < nr_fds; i++)
		close(fds[i]);
	return ret;
}
