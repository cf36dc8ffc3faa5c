/* SPDX-License-Identifier: MIT */
/*
 * agent.c - the registration thread of libtrawl-ust.
 *
 * The library's constructor starts one thread and returns (a provider's
 * constructor may then wait a little for the daemons: "Early events"
 * in agent-wait.c; never for a daemon that is not running). The thread keeps a connection to up to two session daemons,
 * the user's and root's ("apps.sock" in trawl_runtime_dir(), see
 * src/common), retrying every 200 ms while one is missing - so an app
 * started before its daemon is traced once the daemon appears. On a
 * connection it sends REGISTER and every event description (wire.h), then
 * answers the daemon's commands one at a time.
 *
 * Providers that appear after a connection registered (the next
 * constructor of a program with several, a dlopen()ed one) are added on the
 * same connection: the thread sends EVENTS_ADDED with the new events only
 * (wire.h), the daemon enables what its rules want and answers with
 * REGISTRATION_DONE. The daemon stays one app (one per-PID trace folder,
 * channels kept). One addition is unanswered at a time; a provider that
 * registers meanwhile goes in the next. The thread falls back to dropping
 * the connection and registering again from scratch when the daemon did not
 * say it takes additions (an older daemon: TRAWL_WIRE_DONE_TAKES_ADDED).
 * A provider that goes away (dlclose) leaves its events with the daemon
 * (they cannot fire any more; the app's channels and the other providers'
 * events go on undisturbed): the connection forgets their descriptions,
 * which were unmapped with the provider, and refuses an ENABLE naming one
 * (cmd_enable() checks under the lock that the provider is still there).
 * Loaded again, they come back as new events (new indices).
 *
 * fork(): the child keeps the parent's mappings but none of its
 * connections: every channel is dropped (tracing off), the lock is reset and
 * a new thread registers the child as a new app, and fork() returns in the
 * child once that is done (the early-events wait, agent-wait.c; LTTng-UST's fork
 * waits the same way), so the child's first events are recorded or counted.
 * No lock is held across fork (pthread_atfork), so the child never
 * deadlocks.
 *
 * Early events and the tallies of a late daemon: agent-wait.c; the
 * daemon's commands (channels, enables, start and stop): agent-cmd.c.
 */
#define _GNU_SOURCE
#include "ust/agent-internal.h"
#include "ust/ust.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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
#include <trawl/ust-helpers.h>

#define RETRY_MS 200

struct trawl_ust_notify *trawl_ust_notifies[TRAWL_UST_MAX_NOTIFY];

struct trawl_ust_conn trawl_ust_agent_conns[2] = {
	{ .fd = -1, .root = 0, .pending_fd = -1, .send_lock = PTHREAD_MUTEX_INITIALIZER, .tshm_fd = -1 },
	{ .fd = -1, .root = 1, .pending_fd = -1, .send_lock = PTHREAD_MUTEX_INITIALIZER, .tshm_fd = -1 }
};
static int wake_fd = -1;
char trawl_ust_agent_procname[17]; /* the process's name (its main thread's), for REGISTER */
static int started;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* The daemon's apps.sock for @c in @sa: 0, or -errno (-EEXIST: the root
 * connection would be the user's). */
int trawl_ust_agent_sock_path(const struct trawl_ust_conn *c, struct sockaddr_un *sa)
{
	char dir[sizeof(sa->sun_path)];

	if (trawl_runtime_dir(dir, sizeof(dir), c->root))
		return -ENOENT;
	if (c->root) {
		char mine[sizeof(sa->sun_path)];

		/* Root whose own daemon is root's: one connection is enough. */
		if (!trawl_runtime_dir(mine, sizeof(mine), 0) && !strcmp(mine, dir))
			return -EEXIST;
	}
	if (snprintf(sa->sun_path, sizeof(sa->sun_path), "%s/apps.sock", dir) >= (int)sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	return 0;
}

/* With our own clock (clock.c) nobody else can close our packets
 * (ringbuffer.h): at exit, those of every channel, so the trace ends with
 * their events at the times we read. A stream another app of the user
 * still writes is only cut short. Try-lock: the agent thread may hold the
 * lock forever in a process that exits from another thread; the consumer's
 * final flush then closes what is left. */
static void flush_own_clock(void)
{
	struct trawl_ust_chan *ch;
	uint32_t i, k;

	if (!trawl_ust_clock_read || pthread_mutex_trylock(&trawl_ust_lock))
		return;
	for (k = 0; k < 2; k++)
		for (ch = trawl_ust_agent_conns[k].chans; ch; ch = ch->next)
			for (i = 0; i < ch->nr_streams; i++)
				trawl_rb_flush(&ch->rbs[i], 0);
	pthread_mutex_unlock(&trawl_ust_lock);
}

/* The library's last destructor: the counts of events no provider's
 * destructor took (the library's own providers', never unregistered). */
static void __attribute__((destructor)) trawl_ust_fini(void)
{
	if (started)
		trawl_ust_agent_report_tally(NULL);
	flush_own_clock();
}

void trawl_ust_agent_wake(void)
{
	uint64_t one = 1;

	if (wake_fd >= 0 && write(wake_fd, &one, sizeof(one)) < 0) {
		/* The counter is full: the thread is awake anyway. */
	}
}

/* Whether a session of @c's daemon records this program now: a started
 * channel with buffers. trawl_ust_lock held. */
static int conn_records(const struct trawl_ust_conn *c)
{
	const struct trawl_ust_chan *ch;

	for (ch = c->chans; ch; ch = ch->next)
		if (ch->nr_streams && __atomic_load_n(&ch->active, __ATOMIC_RELAXED))
			return 1;
	return 0;
}

static void conn_close(struct trawl_ust_conn *c)
{
	struct trawl_ust_chan *ch;

	trawl_ust_agent_tally_done(c, 0); /* no setup to count for any more */
	pthread_mutex_lock(&trawl_ust_lock);
	/* The drop window (agent-wait.c's top comment): a program its daemon set up and
	 * records counts its events from now until the registration that
	 * follows is set up, in place of these channels. Not with
	 * TRAWL_UST_REGISTER_TIMEOUT=0 (no tally at all), nor for a program
	 * no session records (its tracepoints stay off), nor again for a
	 * connection closed before its setup (a registration refused at once,
	 * 5 times a second: each tally keeps its arrays and memfd mapped). */
	if (conn_records(c) && trawl_ust_agent_register_timeout_ms() && !c->tally) {
		c->tally_gen = __atomic_load_n(&trawl_ust_registry_generation, __ATOMIC_RELAXED);
		__atomic_store_n(&c->tally, trawl_ust_tally_start_replacing(c), __ATOMIC_RELAXED);
	}
	while ((ch = c->chans)) {
		c->chans = ch->next;
		trawl_ust_agent_chan_drop(ch);
	}
	trawl_ust_agent_notify_forget(c);
	trawl_ust_registry_update_states();
	pthread_mutex_unlock(&trawl_ust_lock);
	pthread_mutex_lock(&trawl_ust_agent_reg_lock);
	c->reg_sent = 0;
	pthread_mutex_unlock(&trawl_ust_agent_reg_lock);
	pthread_mutex_lock(&c->send_lock);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->reg_whole = c->tshm_sent = 0;
	pthread_mutex_unlock(&c->send_lock);
	free(c->events);
	c->events = NULL;
	c->nr_events = 0;
	c->done_once = c->takes_added = c->adding = 0;
}


/* ---- registration ---- */

static void fill_field(struct trawl_wire_field *w, const struct trawl_ust_field_desc *f, uint32_t *enum_next)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", f->name);
	w->type = f->type;
	w->size_bits = f->size_bits;
	w->is_signed = f->is_signed;
	w->base = f->base;
	w->byte_order = f->big_endian ? TRAWL_USTCTL_BYTE_ORDER_BE : TRAWL_USTCTL_BYTE_ORDER_NATIVE;
	w->is_text = f->is_text;
	w->length = f->length;
	if (f->length_name)
		snprintf(w->length_name, sizeof(w->length_name), "%s", f->length_name);
	if (f->enum_desc) {
		snprintf(w->enum_name, sizeof(w->enum_name), "%s", f->enum_desc->name);
		w->enum_first = *enum_next;
		w->enum_count = f->enum_desc->nr_entries;
		*enum_next += f->enum_desc->nr_entries;
	}
}

/* trawl_io_send_all() that says when it waits for room in the socket
 * (@c->reg_waiting) and counts each message sent (@c->reg_progress). */
int trawl_ust_agent_reg_send(struct trawl_ust_conn *c, int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = {.fd = fd, .events = POLLOUT};

			__atomic_store_n(&c->reg_waiting, 1, __ATOMIC_RELAXED);
			n = poll(&pfd, 1, -1);
			__atomic_store_n(&c->reg_waiting, 0, __ATOMIC_RELAXED);
			if (n < 0 && errno != EINTR)
				return -errno;
			continue;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	__atomic_add_fetch(&c->reg_progress, 1, __ATOMIC_RELAXED);
	return 0;
}

static int send_event(struct trawl_ust_conn *c, int fd, const struct trawl_ust_event_desc *ev,
		      int loglevel)
{
	struct trawl_wire_event *w;
	struct trawl_wire_field *wf;
	struct trawl_wire_enum_entry *we;
	uint32_t i, j, nr_enum = 0, nr = 0, e = 0;
	size_t size;
	int ret;

	/* Fields for filters only (ctf_*_nowrite) are not recorded: the
	 * daemon never hears of them. */
	for (i = 0; i < ev->nr_fields; i++) {
		if (ev->fields[i].type & TRAWL_UST_FIELD_NOWRITE)
			continue;
		nr++;
		if (ev->fields[i].enum_desc)
			nr_enum += ev->fields[i].enum_desc->nr_entries;
	}
	size = sizeof(*w) + nr * sizeof(*wf) + nr_enum * sizeof(*we);
	w = calloc(1, size);
	if (!w)
		return -ENOMEM;
	trawl_wire_hdr_init(&w->hdr, TRAWL_WIRE_EVENT, (uint32_t)size);
	snprintf(w->name, sizeof(w->name), "%s", ev->name);
	w->loglevel = loglevel;
	w->nr_fields = nr;
	w->nr_enum_entries = nr_enum;
	wf = (struct trawl_wire_field *)(w + 1);
	we = (struct trawl_wire_enum_entry *)(wf + nr);
	for (i = 0, j = 0; i < ev->nr_fields; i++) {
		const struct trawl_ust_enum_desc *ed = ev->fields[i].enum_desc;
		uint32_t first = e, k;
		int64_t next = 0;

		if (ev->fields[i].type & TRAWL_UST_FIELD_NOWRITE)
			continue;
		fill_field(&wf[j++], &ev->fields[i], &e);
		for (k = 0; ed && k < ed->nr_entries; k++) {
			const struct trawl_ust_enum_entry_desc *d = &ed->entries[k];

			/* ctf_enum_auto: one more than the previous end. */
			we[first + k].start = d->is_auto ? next : d->start;
			we[first + k].end = d->is_auto ? next : d->end;
			next = we[first + k].end + 1;
			snprintf(we[first + k].label, sizeof(we[first + k].label), "%s", d->label);
		}
	}
	ret = trawl_ust_agent_reg_send(c, fd, w, size);
	free(w);
	return ret;
}

/* REGISTER, and the app's clock after it when a plugin gives one (wire.h). */
struct register_msg {
	struct trawl_wire_register r;
	struct trawl_wire_clock clock;
};

/* Fills @m; returns the message's size in bytes. */
static size_t fill_register(struct register_msg *m, uint32_t nr_events)
{
	struct trawl_wire_register *r = &m->r;
	int clock = trawl_ust_clock_wire(&m->clock);
	size_t size = sizeof(*r) + (clock ? sizeof(m->clock) : 0);

	memset(r, 0, sizeof(*r));
	trawl_wire_hdr_init(&r->hdr, TRAWL_WIRE_REGISTER, (uint32_t)size);
	r->flags = clock ? TRAWL_WIRE_REG_CLOCK : 0;
	r->pid = (uint32_t)getpid();
	r->ppid = (uint32_t)getppid();
	r->uid = (uint32_t)getuid();
	r->gid = (uint32_t)getgid();
	r->bits_per_long = (uint32_t)(sizeof(long) * 8);
	r->abi_major = TRAWL_UST_WIRE_ABI_MAJOR;
	r->abi_minor = TRAWL_UST_WIRE_ABI_MINOR;
	r->nr_events = nr_events;
	/* The main thread's name, taken when the process (or fork child)
	 * started: this thread has its own name. */
	memcpy(r->procname, trawl_ust_agent_procname, sizeof(r->procname));
	r->procname[15] = '\0';
	return size;
}

/* Connects to the daemon's apps.sock: the fd (owned by the caller), or
 * -errno (-ENOENT, -ECONNREFUSED: no daemon; -EEXIST: the root connection
 * would be the user's). */
static int conn_connect(const struct trawl_ust_conn *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ret;

	ret = trawl_ust_agent_sock_path(c, &sa);
	if (ret)
		return ret;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

/* Connects (or takes the connection made at the agent's start) and sends
 * the registration. 0, or -errno with the connection closed. */
static int conn_open(struct trawl_ust_conn *c)
{
	struct register_msg reg;
	size_t reg_size;
	int *loglevels = NULL;
	uint32_t i;
	int fd, ret;

	fd = c->pending_fd;
	c->pending_fd = -1;
	if (fd < 0) {
		__atomic_store_n(&c->reg_waiting, 1, __ATOMIC_RELAXED);
		fd = conn_connect(c);
		__atomic_store_n(&c->reg_waiting, 0, __ATOMIC_RELAXED);
	}
	if (fd < 0) {
		trawl_ust_agent_reg_publish(c, 1, 0, 1);
		trawl_ust_agent_tally_done(c, 0); /* no daemon: nothing it would trace was lost */
		return fd;
	}
	__atomic_add_fetch(&c->reg_progress, 1, __ATOMIC_RELAXED);
	trawl_ust_agent_reg_publish(c, 0, 0, 1);
	pthread_mutex_lock(&trawl_ust_lock);
	c->events = trawl_ust_registry_events(&c->nr_events);
	c->generation = trawl_ust_registry_generation;
	if (c->events)
		loglevels = calloc(c->nr_events + 1, sizeof(*loglevels));
	for (i = 0; loglevels && i < c->nr_events; i++)
		loglevels[i] = trawl_ust_registry_loglevel(c->events[i]);
	pthread_mutex_unlock(&trawl_ust_lock);
	if (!c->events || !loglevels) {
		ret = -ENOMEM;
		goto err;
	}
	reg_size = fill_register(&reg, c->nr_events);
	/* Whole, before any TALLY (a destructor's) may go. */
	pthread_mutex_lock(&c->send_lock);
	c->fd = fd;
	ret = trawl_ust_agent_reg_send(c, fd, &reg, reg_size);
	/* Event descriptions are immutable once registered; the array holds
	 * pointers taken under the lock. */
	for (i = 0; !ret && i < c->nr_events; i++)
		ret = send_event(c, fd, c->events[i], loglevels[i]);
	c->reg_whole = !ret;
	pthread_mutex_unlock(&c->send_lock);
	free(loglevels);
	if (ret) {
		trawl_ust_agent_reg_publish(c, 1, 0, 1);
		conn_close(c);
		return ret;
	}
	pthread_mutex_lock(&trawl_ust_agent_reg_lock);
	c->reg_sent = 1;
	pthread_cond_broadcast(&trawl_ust_agent_reg_cond);
	pthread_mutex_unlock(&trawl_ust_agent_reg_lock);
	/* A tally that began before the registration went: its memfd now. */
	trawl_ust_agent_tally_shm_send(c, 0);
	return ret;
err:
	free(loglevels);
	free(c->events);
	c->events = NULL;
	close(fd);
	trawl_ust_agent_reg_publish(c, 1, 0, 1);
	trawl_ust_agent_tally_done(c, 0);
	return ret;
}

static int has_event(struct trawl_ust_event_desc *const *evs, uint32_t nr, const struct trawl_ust_event_desc *ev)
{
	uint32_t i;

	for (i = 0; i < nr; i++)
		if (evs[i] == ev)
			return 1;
	return 0;
}

/*
 * Sends the events of the providers registered since @c's last
 * registration or addition (EVENTS_ADDED, wire.h), and forgets those of
 * providers that went away (their index stays taken, pointing at nothing).
 * 0 (also when there is nothing new), or -errno with the connection to be
 * closed.
 */
static int conn_add_events(struct trawl_ust_conn *c)
{
	struct trawl_ust_event_desc **all, **grown = NULL;
	struct trawl_wire_events_added msg;
	int *loglevels = NULL;
	uint32_t nr_all = 0, i, n = c->nr_events;
	int ret = 0;

	pthread_mutex_lock(&trawl_ust_lock);
	all = trawl_ust_registry_events(&nr_all);
	for (i = 0; all && i < c->nr_events; i++)
		if (c->events[i] && !has_event(all, nr_all, c->events[i]))
			c->events[i] = NULL; /* unloaded: cmd_enable() refuses it */
	if (all) {
		grown = realloc(c->events, ((size_t)c->nr_events + nr_all + 1) * sizeof(*grown));
		loglevels = calloc((size_t)c->nr_events + nr_all + 1, sizeof(*loglevels));
	}
	if (grown)
		c->events = grown;
	/* The new ones, in the registry's order, after the daemon's. */
	for (i = 0, n = c->nr_events; grown && loglevels && i < nr_all; i++) {
		if (has_event(c->events, c->nr_events, all[i]))
			continue;
		loglevels[n] = trawl_ust_registry_loglevel(all[i]);
		c->events[n++] = all[i];
	}
	if (!all || !grown || !loglevels)
		ret = -ENOMEM;
	else
		c->generation = trawl_ust_registry_generation;
	pthread_mutex_unlock(&trawl_ust_lock);
	free(all);
	if (ret)
		goto out;
	if (n == c->nr_events) {
		/* Nothing the daemon lacks: this generation is set up. */
		trawl_ust_agent_reg_publish(c, 0, c->generation, 0);
		trawl_ust_agent_tally_done(c, 1);
		goto out;
	}
	memset(&msg, 0, sizeof(msg));
	trawl_wire_hdr_init(&msg.hdr, TRAWL_WIRE_EVENTS_ADDED, sizeof(msg));
	msg.first_index = c->nr_events;
	msg.nr_events = n - c->nr_events;
	pthread_mutex_lock(&c->send_lock);
	ret = trawl_ust_agent_reg_send(c, c->fd, &msg, sizeof(msg));
	for (i = c->nr_events; !ret && i < n; i++)
		ret = send_event(c, c->fd, c->events[i], loglevels[i]);
	pthread_mutex_unlock(&c->send_lock);
	/* Indices the daemon now gives these events in commands. */
	c->nr_events = n;
	c->adding = !ret;
out:
	free(loglevels);
	return ret;
}

/*
 * The library's constructor runs before those of the program and of the
 * other libraries, which register the providers: let them finish (the
 * registry unchanged for 1 ms, at most 20 ms) before registering, rather
 * than registering twice, and the daemon making buffers twice.
 */
static void wait_for_constructors(void)
{
	struct timespec ms = { 0, 1000000 };
	uint64_t g;
	int i;

	for (i = 0; i < 20; i++) {
		g = __atomic_load_n(&trawl_ust_registry_generation, __ATOMIC_RELAXED);
		nanosleep(&ms, NULL);
		if (g && g == __atomic_load_n(&trawl_ust_registry_generation, __ATOMIC_RELAXED))
			break;
	}
}

static void *agent_main(void *arg)
{
	(void)arg;
	trawl_ust_never_wait();
	/* Try the daemons first: a constructor waiting for registration learns
	 * at once that there is none (agent-wait.c's top comment). */
	for (int i = 0; i < 2; i++) {
		__atomic_store_n(&trawl_ust_agent_conns[i].reg_waiting, 1, __ATOMIC_RELAXED);
		trawl_ust_agent_conns[i].pending_fd = conn_connect(&trawl_ust_agent_conns[i]);
		__atomic_store_n(&trawl_ust_agent_conns[i].reg_waiting, 0, __ATOMIC_RELAXED);
		if (trawl_ust_agent_conns[i].pending_fd < 0) {
			trawl_ust_agent_reg_publish(&trawl_ust_agent_conns[i], 1, 0, 1);
			trawl_ust_agent_tally_done(&trawl_ust_agent_conns[i], 0);
		}
	}
	wait_for_constructors();
	for (;;) {
		struct pollfd pfd[3];
		int n = 0, missing = 0, i, map[3];

		for (i = 0; i < 2; i++) {
			struct trawl_ust_conn *c = &trawl_ust_agent_conns[i];

			if (c->fd >= 0 && c->done_once && !c->adding &&
			    c->generation != __atomic_load_n(&trawl_ust_registry_generation, __ATOMIC_RELAXED)) {
				/* Providers came or went: add them on this
				 * connection, else register again (top comment). */
				if (!c->takes_added || conn_add_events(c))
					conn_close(c); /* then registers again */
			}
			if (c->fd < 0 && conn_open(c) && c->fd < 0)
				missing++;
			if (c->fd >= 0) {
				pfd[n].fd = c->fd;
				pfd[n].events = POLLIN;
				map[n++] = i;
			}
		}
		pfd[n].fd = wake_fd;
		pfd[n].events = POLLIN;
		map[n++] = -1;
		if (poll(pfd, (nfds_t)n, missing ? RETRY_MS : -1) <= 0)
			continue;
		for (i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (map[i] < 0) {
				uint64_t v;

				if (read(wake_fd, &v, sizeof(v)) < 0) {
					/* nothing to read: fine */
				}
				continue;
			}
			if (trawl_ust_agent_serve_one(&trawl_ust_agent_conns[map[i]])) {
				trawl_ust_agent_reg_publish(&trawl_ust_agent_conns[map[i]], 1, 0, 1);
				conn_close(&trawl_ust_agent_conns[map[i]]);
			}
		}
	}
	return NULL;
}

static void spawn_agent(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t th;

	wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	/* The app's signals are not ours to take. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* Running before it starts, so that a waiter never misses it. */
	pthread_mutex_lock(&trawl_ust_agent_reg_lock);
	trawl_ust_agent_running = 1;
	pthread_mutex_unlock(&trawl_ust_agent_reg_lock);
	if (pthread_create(&th, &attr, agent_main, NULL) == 0) {
		pthread_setname_np(th, "trawl-ust");
	} else {
		pthread_mutex_lock(&trawl_ust_agent_reg_lock);
		trawl_ust_agent_running = 0;
		pthread_cond_broadcast(&trawl_ust_agent_reg_cond);
		pthread_mutex_unlock(&trawl_ust_agent_reg_lock);
	}
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void reg_cond_init(void);

static void atfork_prepare(void)
{
	pthread_mutex_lock(&trawl_ust_lock);
	trawl_ust_context_before_fork();
}

static void atfork_parent(void)
{
	trawl_ust_context_after_fork_parent();
	pthread_mutex_unlock(&trawl_ust_lock);
}

static void atfork_child(void)
{
	int i;

	/* The parent's agent thread does not exist here. Reset the lock (we
	 * hold the child's copy), forget the parent's connections and
	 * channels, and register as a new app. */
	pthread_mutex_init(&trawl_ust_lock, NULL);
	/* The parent's waiting state is not ours (agent-wait.c's top comment). */
	pthread_mutex_init(&trawl_ust_agent_reg_lock, NULL);
	reg_cond_init();
	trawl_ust_agent_running = 0;
	trawl_ust_pid = (int32_t)getpid();
	trawl_ust_ppid = (int32_t)getppid();
	trawl_ust_context_after_fork_child();
	prctl(PR_GET_NAME, trawl_ust_agent_procname, 0, 0, 0);
	for (i = 0; i < 2; i++) {
		struct trawl_ust_chan *ch;

		while ((ch = trawl_ust_agent_conns[i].chans)) {
			trawl_ust_agent_conns[i].chans = ch->next;
			trawl_ust_agent_chan_drop(ch);
		}
		if (trawl_ust_agent_conns[i].fd >= 0)
			close(trawl_ust_agent_conns[i].fd);
		if (trawl_ust_agent_conns[i].pending_fd >= 0)
			close(trawl_ust_agent_conns[i].pending_fd);
		trawl_ust_agent_conns[i].fd = -1;
		trawl_ust_agent_conns[i].pending_fd = -1;
		pthread_mutex_init(&trawl_ust_agent_conns[i].send_lock, NULL);
		trawl_ust_agent_conns[i].reg_sent = 0;
		trawl_ust_agent_conns[i].reg_whole = trawl_ust_agent_conns[i].tshm_sent = 0;
		trawl_ust_agent_conns[i].tried = trawl_ust_agent_conns[i].absent = 0;
		trawl_ust_agent_conns[i].done_gen = 0;
		trawl_ust_agent_conns[i].done_once = trawl_ust_agent_conns[i].takes_added = trawl_ust_agent_conns[i].adding = 0;
		if (trawl_ust_agent_conns[i].tally) /* the parent's; its counts are not ours */
			trawl_ust_tally_finish(trawl_ust_agent_conns[i].tally, 0);
		trawl_ust_agent_conns[i].tally = NULL;
		trawl_ust_agent_tally_shm_detach(&trawl_ust_agent_conns[i]); /* the parent's too (shared with it) */
		trawl_ust_agent_notify_forget(&trawl_ust_agent_conns[i]);    /* the parent's ring: not ours to write */
		free(trawl_ust_agent_conns[i].events);
		trawl_ust_agent_conns[i].events = NULL;
		trawl_ust_agent_conns[i].nr_events = 0;
	}
	trawl_ust_registry_clear_slots(NULL);
	trawl_ust_registry_update_states();
	if (wake_fd >= 0)
		close(wake_fd);
	wake_fd = -1;
	if (started && !getenv("TRAWL_UST_NO_AGENT")) {
		spawn_agent();
		/* As a program's start-up (and LTTng-UST's fork): the child's
		 * first events go to its own buffers, or are counted. */
		trawl_ust_agent_wait_registered();
	}
}

static void reg_cond_init(void)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&trawl_ust_agent_reg_cond, &ca);
	pthread_condattr_destroy(&ca);
}

static void atfork_setup(void)
{
	reg_cond_init();
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

void trawl_ust_agent_start(void)
{
	pthread_once(&atfork_once, atfork_setup);
	if (__atomic_exchange_n(&started, 1, __ATOMIC_ACQ_REL))
		return;
	if (getenv("TRAWL_UST_NO_AGENT"))
		return;
	spawn_agent();
}

int32_t trawl_ust_pid, trawl_ust_ppid;

static void __attribute__((constructor)) trawl_ust_init(void)
{
	prctl(PR_GET_NAME, trawl_ust_agent_procname, 0, 0, 0);
	trawl_ust_pid = (int32_t)getpid();
	trawl_ust_ppid = (int32_t)getppid();
	trawl_ust_clock_init();
	trawl_ust_getcpu_init();
	trawl_ust_statedump_init();
	trawl_ust_agent_start();
}

/* A fork the C library does not see (<trawl/ust-helpers.h>): the same
 * handlers as pthread_atfork()'s. */
TRAWL_EXPORT void trawl_ust_fork_prepare(void)
{
	pthread_once(&atfork_once, atfork_setup);
	atfork_prepare();
}

TRAWL_EXPORT void trawl_ust_fork_parent(void)
{
	atfork_parent();
}

TRAWL_EXPORT void trawl_ust_fork_child(void)
{
	atfork_child();
}

TRAWL_EXPORT void trawl_ust_fork_child_wait(void)
{
	trawl_ust_agent_start();
	trawl_ust_agent_wait_registered();
}
