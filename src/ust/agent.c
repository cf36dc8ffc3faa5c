/* SPDX-License-Identifier: MIT */
/*
 * agent.c - the registration thread of libtrawl-ust.
 *
 * The library's constructor starts one thread and returns (a provider's
 * constructor may then wait a little for the daemons: "Early events"
 * below; never for a daemon that is not running). The thread keeps a connection to up to two session daemons,
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
 * child once that is done (the early-events wait below; LTTng-UST's fork
 * waits the same way), so the child's first events are recorded or counted.
 * No lock is held across fork (pthread_atfork), so the child never
 * deadlocks.
 *
 * Early events. A program that emits events at the top of main() and exits
 * would lose them if its start-up did not wait for its daemons, so a
 * provider's constructor (trawl_ust_provider_register(), registry.c) waits
 * - trawl_ust_agent_wait_registered() - until every daemon the agent
 * connected to has sent REGISTRATION_DONE (wire.h) for a registration that
 * includes that provider: its channels are mapped, its events enabled and
 * its sessions started before main() runs. The wait is in the provider's
 * constructor, not in the library's: the library's runs first, before the
 * program's providers exist, and a registration without them would be
 * useless. It is bounded by TRAWL_UST_REGISTER_TIMEOUT ms (default 3000, as
 * LTTng-UST; 0 = no wait). A daemon later than that (64 programs starting
 * at once on a loaded host took up to 2 s each to set up; a stalled daemon
 * takes any time) does not make the events the program then records vanish
 * unseen: they are counted, by kind, until the daemon's setup is complete,
 * and the counts go to the lost events of the channels the setup makes
 * them record into (the tally, slots.c); a program that exits first waits
 * for that in its providers' destructors (trawl_ust_agent_wait_tallies()),
 * as long again at most, and one that exits before that hands its counts
 * to the daemon (TALLY, wire.h: trawl_ust_agent_report_tally()), which
 * charges them to the channels that would have recorded them.
 * A program its daemon drops (it missed a deadline: ust-conn.c) while a
 * session records it has the same tally from the moment its agent sees the
 * connection gone (conn_close()) until its next registration is set up:
 * the events it records meanwhile go to the discarded events of the
 * channels that setup gives (the same per-user buffers, or the same
 * per-process trace: the daemon keeps a living process's), or to the
 * daemon in a TALLY if it exits first; none if the daemon is gone (the
 * connection fails: nothing it would trace was lost).
 * TRAWL_UST_REGISTER_TIMEOUT=0 (no wait) keeps LTTng-UST's meaning: no
 * tally either, the events before the setup are not traced (counting them
 * would turn every tracepoint on meanwhile: tracepoint_enabled() true in a
 * program no session traces). With no daemon it does not wait:
 * the waiter first looks for the daemons' socket files (none: it returns at
 * once, whether or not the agent thread has run yet); for a socket that
 * exists, the agent tries connect() first thing, before it lets the
 * constructors settle, and a refused connection ends the wait (~1 ms on a
 * busy host: the thread's start-up). With a daemon and a session the wait
 * is about 4 ms: 1 ms of settling, then registration and the daemon's
 * setup (bench/ust/run.sh). Each later provider's constructor waits for
 * its addition (EVENTS_ADDED answered), not for a new registration.
 *
 * Waiting state: per connection "tried" (the agent has tried connecting at
 * least once), "absent" (its last try failed, or the connection dropped) and
 * "done_gen" (the registry generation whose registration the daemon has
 * confirmed), under reg_lock, with reg_cond broadcast on every change.
 * reg_lock is never held with trawl_ust_lock or across I/O, and the waiter
 * holds nothing else while it waits, so the agent can always progress; the
 * deadline makes even an agent stuck elsewhere (a provider registered from
 * dlopen, under the loader's lock) cost at most the timeout, not a deadlock.
 * A fork child resets that state: it only ever waits for its own agent.
 */
#define _GNU_SOURCE
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
#define CMD_TIMEOUT_MS 3000

struct trawl_ust_conn {
	int fd;
	int root;
	int pending_fd; /* connected, not yet registered (agent start) */
	/* Under reg_lock (see the top comment): */
	int tried, absent;
	uint64_t done_gen;
	uint64_t generation; /* registry generation sent */
	/* The daemon's REGISTRATION_DONE came for this connection, and said
	 * it takes EVENTS_ADDED; an addition awaits its REGISTRATION_DONE. */
	int done_once, takes_added, adding;
	struct trawl_ust_event_desc **events; /* the daemon's event indices */
	uint32_t nr_events;
	struct trawl_ust_chan *chans;
	/* The daemon was late (trawl_ust_agent_wait_registered() gave up):
	 * events are counted until its setup of registry generation
	 * tally_gen is complete (slots.c). Under trawl_ust_lock. */
	struct trawl_ust_tally *tally;
	uint64_t tally_gen;
	/* Whole messages to the daemon: the agent's and a destructor's TALLY
	 * (a leaf lock: taken with no other held). fd changes under it. */
	pthread_mutex_t send_lock;
	int reg_sent; /* under reg_lock: this fd's registration went whole */
	/* The registration's progress, for a waiter at exit (reg_wait_sent()):
	 * steps taken (connect, each message sent), and whether the agent
	 * waits on the daemon (in connect(), or for room in the socket).
	 * Relaxed: the waiter only looks whether they move. */
	uint32_t reg_progress;
	int reg_waiting;
	/* The tally's memfd (wire.h TALLY_SHM), made at the connection's first
	 * tally: its head, mapped for ever (a probe may count into it), and
	 * its fd, under trawl_ust_lock; reg_whole and tshm_sent are under
	 * send_lock: the registration went whole on fd, and the memfd too. */
	struct trawl_wire_tally_head *tshm;
	int tshm_fd;
	uint32_t tshm_nr_max; /* its entries (tally_shm_entries()) */
	int reg_whole, tshm_sent;
	/* This connection's notification ring (wire.h NOTIFIER), or NULL;
	 * under trawl_ust_lock, published in trawl_ust_notifies[] too. */
	struct trawl_ust_notify *notify;
};

struct trawl_ust_notify *trawl_ust_notifies[TRAWL_UST_MAX_NOTIFY];

static struct trawl_ust_conn conns[2] = {
	{ .fd = -1, .root = 0, .pending_fd = -1, .send_lock = PTHREAD_MUTEX_INITIALIZER, .tshm_fd = -1 },
	{ .fd = -1, .root = 1, .pending_fd = -1, .send_lock = PTHREAD_MUTEX_INITIALIZER, .tshm_fd = -1 }
};
static int wake_fd = -1;
static char procname[17]; /* the process's name (its main thread's), for REGISTER */
static int started;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reg_cond; /* CLOCK_MONOTONIC; made in atfork_setup() */
static int agent_running; /* under reg_lock */

#define REGISTER_TIMEOUT_MS 3000 /* as LTTng-UST's LTTNG_UST_REGISTER_TIMEOUT */

/* Publishes a connection's registration state to waiters. @done_gen 0
 * leaves it unchanged unless @reset. */
static void reg_publish(struct trawl_ust_conn *c, int absent, uint64_t done_gen, int reset)
{
	pthread_mutex_lock(&reg_lock);
	c->tried = 1;
	c->absent = absent;
	if (done_gen || reset)
		c->done_gen = done_gen;
	pthread_cond_broadcast(&reg_cond);
	pthread_mutex_unlock(&reg_lock);
}

static long register_timeout_ms(void)
{
	const char *e = getenv("TRAWL_UST_REGISTER_TIMEOUT");
	char *end;
	long v;

	if (!e || !*e)
		return REGISTER_TIMEOUT_MS;
	v = strtol(e, &end, 10);
	if (*end || v < 0)
		return REGISTER_TIMEOUT_MS;
	return v > 60000 ? 60000 : v;
}

/* The daemon's apps.sock for @c in @sa: 0, or -errno (-EEXIST: the root
 * connection would be the user's). */
static int conn_sock_path(const struct trawl_ust_conn *c, struct sockaddr_un *sa)
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

/* No socket file: no daemon, and no need to wait for the agent to find out
 * (it may not have run yet: thread start-up costs 50-500 µs on a busy host). */
static int conn_surely_absent(const struct trawl_ust_conn *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	return conn_sock_path(c, &sa) || (access(sa.sun_path, F_OK) && errno == ENOENT);
}

static void tally_late(uint64_t gen, const int *absent);
static void tally_shm_send(struct trawl_ust_conn *c, int wait);

/* @d: @ms from now on CLOCK_MONOTONIC (reg_cond's clock). */
static void deadline_in(struct timespec *d, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, d);
	d->tv_sec += ms / 1000;
	d->tv_nsec += (ms % 1000) * 1000000L;
	if (d->tv_nsec >= 1000000000L) {
		d->tv_sec++;
		d->tv_nsec -= 1000000000L;
	}
}

void trawl_ust_agent_wait_registered(void)
{
	uint64_t gen = __atomic_load_n(&trawl_ust_registry_generation, __ATOMIC_RELAXED);
	long ms = register_timeout_ms();
	struct timespec deadline;
	int i, pending = 0, absent[2];

	if (ms == 0)
		return; /* no wait, no tally (top comment) */
	for (i = 0; i < 2; i++)
		absent[i] = conn_surely_absent(&conns[i]);
	if (absent[0] && absent[1])
		return;
	deadline_in(&deadline, ms);
	pthread_mutex_lock(&reg_lock);
	while (agent_running) {
		for (pending = 0, i = 0; i < 2; i++)
			if (!absent[i] && (!conns[i].tried || (!conns[i].absent && conns[i].done_gen < gen)))
				pending = 1;
		if (!pending || pthread_cond_timedwait(&reg_cond, &reg_lock, &deadline) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&reg_lock);
	if (pending)
		tally_late(gen, absent);
}

static void tally_done(struct trawl_ust_conn *c, int apply);

/*
 * The daemons that have not set us up by now count our events until they
 * have (slots.c). @gen: the registry generation they are to confirm.
 * @absent: no socket file for that one. A connection not tried yet counts
 * too (a daemon may answer it); if it then fails, the agent ends its tally
 * - or this does, seeing it failed already.
 */
static void tally_late(uint64_t gen, const int *absent)
{
	int i, lates[2], gone[2], done[2];

	/* Each lock alone (top comment): the state first, then the slots. */
	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < 2; i++)
		lates[i] = agent_running && !absent[i] &&
			   (!conns[i].tried || (!conns[i].absent && conns[i].done_gen < gen));
	pthread_mutex_unlock(&reg_lock);
	pthread_mutex_lock(&trawl_ust_lock);
	for (i = 0; i < 2; i++) {
		struct trawl_ust_conn *c = &conns[i];
		int late = lates[i];

		if (late && !c->tally) {
			c->tally_gen = gen;
			/* Atomic: wait_tallies() reads it without this lock. */
			__atomic_store_n(&c->tally, trawl_ust_tally_start(c), __ATOMIC_RELAXED);
		} else if (late && c->tally_gen < gen) {
			c->tally_gen = gen;
		}
	}
	pthread_mutex_unlock(&trawl_ust_lock);
	/* A connection that failed, or was set up, meanwhile: the agent
	 * published it before ending the tally, which may have been before
	 * this one began (a setup then applied: its events record, and must
	 * not be counted too). */
	pthread_mutex_lock(&reg_lock);
	for (i = 0; i < 2; i++) {
		gone[i] = lates[i] && conns[i].tried && conns[i].absent;
		done[i] = lates[i] && !gone[i] && conns[i].done_gen >= gen;
	}
	pthread_mutex_unlock(&reg_lock);
	for (i = 0; i < 2; i++) {
		if (gone[i] || done[i])
			tally_done(&conns[i], done[i]);
		else if (lates[i])
			tally_shm_send(&conns[i], 1);
	}
}

void trawl_ust_agent_provider_added(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct trawl_ust_conn *c = &conns[i];

		if (!c->tally)
			continue;
		trawl_ust_tally_add(c->tally);
		c->tally_gen = __atomic_load_n(&trawl_ust_registry_generation, __ATOMIC_RELAXED);
	}
}

/* A tally memfd's entries: TRAWL_WIRE_MAX_TALLY_SHM, or fewer with
 * TRAWL_UST_TALLY_SHM_ENTRIES=N (1 .. that), a test's knob: the kinds past
 * the table count in the process's memory and in the head's overflow
 * bucket (wire.h), which a program with more kinds than the table needs
 * (security-tally-shm-overflow). */
static uint32_t tally_shm_entries(void)
{
	const char *v = getenv("TRAWL_UST_TALLY_SHM_ENTRIES");
	char *end;
	unsigned long n;

	if (!v || !*v)
		return TRAWL_WIRE_MAX_TALLY_SHM;
	n = strtoul(v, &end, 10);
	return *end || !n || n > TRAWL_WIRE_MAX_TALLY_SHM ? TRAWL_WIRE_MAX_TALLY_SHM : (uint32_t)n;
}

/* @c's connection is gone (or never was): its memfd's counts are the
 * daemon's, read when the connection closed (or nobody's); the next
 * connection gets a memfd of its own. The mapping stays (a probe may
 * count into it). trawl_ust_lock held. */
static void tally_shm_detach(struct trawl_ust_conn *c)
{
	if (c->tshm_fd >= 0)
		close(c->tshm_fd);
	c->tshm_fd = -1;
	c->tshm = NULL;
}

struct trawl_wire_tally_entry *trawl_ust_agent_tally_room(struct trawl_ust_conn *c, uint32_t k)
{
	if (!c->tshm) {
		/* Sparse: the pages the entries in use take, no more. */
		int fd = memfd_create("trawl-tally", MFD_CLOEXEC);
		uint32_t nr_max = tally_shm_entries();
		size_t size = sizeof(struct trawl_wire_tally_head) +
			      (size_t)nr_max * sizeof(struct trawl_wire_tally_entry);
		void *p = MAP_FAILED;

		if (fd >= 0 && !ftruncate(fd, (off_t)size))
			p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			if (fd >= 0)
				close(fd);
			return NULL;
		}
		c->tshm = p;
		c->tshm_fd = fd;
		c->tshm_nr_max = nr_max;
		c->tshm->magic = TRAWL_WIRE_TALLY_SHM_MAGIC;
	}
	if (k > c->tshm_nr_max - c->tshm->nr)
		return NULL;
	return (struct trawl_wire_tally_entry *)(c->tshm + 1) + c->tshm->nr;
}

uint64_t *trawl_ust_agent_tally_overflow(struct trawl_ust_conn *c)
{
	return c->tshm ? &c->tshm->overflow : NULL;
}

void trawl_ust_agent_tally_publish(struct trawl_ust_conn *c, uint32_t k)
{
	/* Release: the daemon reads the entries below nr written. */
	__atomic_store_n(&c->tshm->nr, c->tshm->nr + k, __ATOMIC_RELEASE);
}

/* The daemon's setup of @c is complete up to its generation: its tally
 * ends, the setup taking effect. Called with no lock held. */
static void tally_done(struct trawl_ust_conn *c, int apply)
{
	struct trawl_ust_tally *t;

	pthread_mutex_lock(&trawl_ust_lock);
	t = c->tally;
	if (t && (!apply || c->generation >= c->tally_gen)) {
		__atomic_store_n(&c->tally, NULL, __ATOMIC_RELAXED);
		trawl_ust_tally_finish(t, apply);
	}
	if (!apply)
		tally_shm_detach(c);
	pthread_mutex_unlock(&trawl_ust_lock);
	/* Wakes a provider's destructor waiting for the counts to be in. */
	pthread_mutex_lock(&reg_lock);
	pthread_cond_broadcast(&reg_cond);
	pthread_mutex_unlock(&reg_lock);
}

void trawl_ust_agent_wait_tallies(void)
{
	long ms = register_timeout_ms();
	struct timespec deadline;
	int i, late;

	deadline_in(&deadline, ms);
	pthread_mutex_lock(&reg_lock);
	for (;;) {
		/* Racy read of tally (trawl_ust_lock's): a stale answer only
		 * costs one more round, the broadcast comes after the change. */
		for (late = 0, i = 0; i < 2; i++)
			late |= __atomic_load_n(&conns[i].tally, __ATOMIC_RELAXED) != NULL &&
				!conns[i].absent;
		if (!late || !agent_running ||
		    pthread_cond_timedwait(&reg_cond, &reg_lock, &deadline) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&reg_lock);
}

/* Waits until @fd takes more bytes, or @deadline (CLOCK_MONOTONIC) passes: 0, -ETIMEDOUT or -errno. */
static int wait_writable(int fd, const struct timespec *deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	struct timespec now;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000L + (deadline->tv_nsec - now.tv_nsec) / 1000000L;
	if (ms <= 0)
		return -ETIMEDOUT;
	if (poll(&pfd, 1, (int)ms) < 0 && errno != EINTR)
		return -errno;
	return 0;
}

/* Sends @len bytes whole by @deadline (CLOCK_MONOTONIC), never blocking
 * past it: 0 or -errno. */
static int send_by(int fd, const void *buf, size_t len, const struct timespec *deadline)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int w = wait_writable(fd, deadline);

			if (w)
				return w;
			continue;
		}
		return n < 0 ? -errno : -EIO;
	}
	return 0;
}

/* As send_by(), @fd going with the first byte (SCM_RIGHTS). */
static int send_fds_by(int sock, const void *buf, size_t len, int fd, const struct timespec *deadline)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	for (;;) {
		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = sizeof(cbuf.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		n = sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int w = wait_writable(sock, deadline);

			if (w)
				return w;
			continue;
		}
		return n < 0 ? -errno : -EIO;
	}
	return (size_t)n < len ? send_by(sock, (const char *)buf + n, len - (size_t)n, deadline) : 0;
}

/*
 * A TALLY waits for the registration to have gone whole, which the agent
 * thread sends. On a loaded host that can take seconds: 64 programs
 * starting at once in an ASan build, with a build beside them, left 55 of
 * 384 programs' agents still connecting or sending after a fixed 1 s wait,
 * and their counts went with them, uncounted (loss-churn-exit under ASan);
 * a wait renewed at each message sent still lost 5 (agents not scheduled
 * for a second between two messages). So the wait ends early only when
 * the agent waits on the daemon (in connect(), or for room in the socket:
 * a daemon that stopped accepting or reading) and nothing moved for
 * REPORT_WAIT_MS, as the fixed wait did; an agent that is merely slow is
 * waited for up to REPORT_WAIT_MAX_MS.
 */
#define REPORT_WAIT_MS 1000
#define REPORT_WAIT_MAX_MS 10000

/* Whether the agent made no step during the last wait while it waits on
 * the daemon (@seen: the steps counted before; updated). */
static int agent_stuck(struct trawl_ust_conn *c, uint32_t *seen)
{
	uint32_t now = __atomic_load_n(&c->reg_progress, __ATOMIC_RELAXED);
	int stuck = now == *seen && __atomic_load_n(&c->reg_waiting, __ATOMIC_RELAXED);

	*seen = now;
	return stuck;
}

static int ts_after(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* @c's send_lock, which the agent holds while it sends (the same rule as
 * reg_wait_sent()). 0 (locked) or -ETIMEDOUT. */
static int send_lock_wait(struct trawl_ust_conn *c)
{
	struct timespec until, step;
	uint32_t seen = __atomic_load_n(&c->reg_progress, __ATOMIC_RELAXED);

	deadline_in(&until, REPORT_WAIT_MAX_MS);
	for (;;) {
		deadline_in(&step, REPORT_WAIT_MS);
		if (ts_after(&step, &until))
			step = until;
		if (pthread_mutex_clocklock(&c->send_lock, CLOCK_MONOTONIC, &step) == 0)
			return 0;
		if (agent_stuck(c, &seen) || !ts_after(&until, &step))
			return -ETIMEDOUT;
	}
}

static int reg_wait_sent(struct trawl_ust_conn *c)
{
	struct timespec until, step;
	uint32_t seen = __atomic_load_n(&c->reg_progress, __ATOMIC_RELAXED);
	int sent;

	deadline_in(&until, REPORT_WAIT_MAX_MS);
	deadline_in(&step, REPORT_WAIT_MS);
	pthread_mutex_lock(&reg_lock);
	while (agent_running && !(c->tried && c->absent) && !c->reg_sent) {
		if (pthread_cond_timedwait(&reg_cond, &reg_lock, &step) != ETIMEDOUT)
			continue;
		if (agent_stuck(c, &seen) || !ts_after(&until, &step))
			break; /* waiting on a daemon that did not move either; or too long */
		deadline_in(&step, REPORT_WAIT_MS);
		if (ts_after(&step, &until))
			step = until;
	}
	sent = c->reg_sent && !c->absent;
	pthread_mutex_unlock(&reg_lock);
	return sent;
}

/*
 * Sends @c's memfd to the daemon (TALLY_SHM, once a connection), after the
 * registration: from then on a SIGKILL, or the daemon dropping us, leaves
 * the counts where the daemon reads them. @wait: for the registration to
 * go (as a TALLY does), else the agent sends it after the registration.
 * Called with no lock held.
 */
static void tally_shm_send(struct trawl_ust_conn *c, int wait)
{
	struct trawl_wire_tally_shm m;
	struct timespec deadline;
	uint32_t nr_max;
	int fd, ret;

	pthread_mutex_lock(&trawl_ust_lock);
	fd = c->tshm ? fcntl(c->tshm_fd, F_DUPFD_CLOEXEC, 0) : -1;
	nr_max = c->tshm_nr_max;
	pthread_mutex_unlock(&trawl_ust_lock);
	if (fd < 0)
		return;
	if ((wait && !reg_wait_sent(c)) || (wait ? send_lock_wait(c) : pthread_mutex_lock(&c->send_lock))) {
		close(fd);
		return;
	}
	if (c->fd >= 0 && c->reg_whole && !c->tshm_sent) {
		memset(&m, 0, sizeof(m));
		trawl_wire_hdr_init(&m.hdr, TRAWL_WIRE_TALLY_SHM, sizeof(m));
		m.nr_max = nr_max;
		deadline_in(&deadline, REPORT_WAIT_MS);
		ret = send_fds_by(c->fd, &m, sizeof(m), fd, &deadline);
		/* Sent, or not whole: either way not again on this fd (a
		 * part would garble the stream; the agent sees it break). */
		c->tshm_sent = 1;
		(void)ret;
	}
	pthread_mutex_unlock(&c->send_lock);
	close(fd);
}

void trawl_ust_agent_report_tally(const struct trawl_ust_provider *p)
{
	struct trawl_ust_event_desc *const *evs = p ? p->events : NULL;
	struct timespec deadline;
	int i;

	for (i = 0; i < 2; i++) {
		struct trawl_ust_conn *c = &conns[i];
		struct trawl_wire_tally_entry *e;
		uint32_t n = 0, k;
		int ret = 0;

		if (!__atomic_load_n(&c->tally, __ATOMIC_RELAXED))
			continue;
		/* The daemon must know the app first: its registration went. */
		if (!reg_wait_sent(c))
			continue; /* no daemon to tell: the counts go with us */
		pthread_mutex_lock(&trawl_ust_lock);
		e = c->tally ? calloc(trawl_ust_tally_size(c->tally) + 1, sizeof(*e)) : NULL;
		if (e)
			n = trawl_ust_tally_take(c->tally, evs, e);
		pthread_mutex_unlock(&trawl_ust_lock);
		/* Whole messages on the agent's connection, between its own. */
		if (n && send_lock_wait(c) == 0) {
			deadline_in(&deadline, REPORT_WAIT_MS);
			for (k = 0; k < n && !ret && c->fd >= 0; k += TRAWL_WIRE_MAX_TALLY) {
				uint32_t m = n - k < TRAWL_WIRE_MAX_TALLY ? n - k : TRAWL_WIRE_MAX_TALLY;
				struct trawl_wire_tally t;

				memset(&t, 0, sizeof(t));
				trawl_wire_hdr_init(&t.hdr, TRAWL_WIRE_TALLY,
						    (uint32_t)(sizeof(t) + m * sizeof(*e)));
				t.nr_entries = m;
				ret = send_by(c->fd, &t, sizeof(t), &deadline);
				if (!ret)
					ret = send_by(c->fd, e + k, m * sizeof(*e), &deadline);
			}
			pthread_mutex_unlock(&c->send_lock);
		}
		free(e);
	}
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
		for (ch = conns[k].chans; ch; ch = ch->next)
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
static void chan_drop(struct trawl_ust_chan *ch)
{
	__atomic_store_n(&ch->active, 0, __ATOMIC_RELAXED);
	trawl_ust_registry_clear_slots(ch);
	ch->next = graveyard;
	graveyard = ch;
}

/* Unpublishes @c's ring. Its mapping and eventfd stay (a probe may have
 * loaded the ring, or hold a channel pointing at it): at most one of each
 * per connection to a daemon, kept for the process's lifetime. */
static void notify_forget(struct trawl_ust_conn *c)
{
	int i = (int)(c - conns);

	if (i >= 0 && i < TRAWL_UST_MAX_NOTIFY)
		__atomic_store_n(&trawl_ust_notifies[i], NULL, __ATOMIC_RELEASE);
	c->notify = NULL;
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

	tally_done(c, 0); /* no setup to count for any more */
	pthread_mutex_lock(&trawl_ust_lock);
	/* The drop window (top comment): a program its daemon set up and
	 * records counts its events from now until the registration that
	 * follows is set up, in place of these channels. Not with
	 * TRAWL_UST_REGISTER_TIMEOUT=0 (no tally at all), nor for a program
	 * no session records (its tracepoints stay off), nor again for a
	 * connection closed before its setup (a registration refused at once,
	 * 5 times a second: each tally keeps its arrays and memfd mapped). */
	if (conn_records(c) && register_timeout_ms() && !c->tally) {
		c->tally_gen = __atomic_load_n(&trawl_ust_registry_generation, __ATOMIC_RELAXED);
		__atomic_store_n(&c->tally, trawl_ust_tally_start_replacing(c), __ATOMIC_RELAXED);
	}
	while ((ch = c->chans)) {
		c->chans = ch->next;
		chan_drop(ch);
	}
	notify_forget(c);
	trawl_ust_registry_update_states();
	pthread_mutex_unlock(&trawl_ust_lock);
	pthread_mutex_lock(&reg_lock);
	c->reg_sent = 0;
	pthread_mutex_unlock(&reg_lock);
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

static int reg_send(struct trawl_ust_conn *c, int fd, const void *buf, size_t len);

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
	 * are (chan_drop()): a thread may still close a packet of a dropped
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
	int i = (int)(c - conns), efd;

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

/* NOTIFIER (wire.h): a channel that hands its events to the ring. */
static int cmd_notifier(struct trawl_ust_conn *c, const struct trawl_wire_cmd *cmd, int *fds,
			uint32_t nr_fds)
{
	struct trawl_ust_chan *ch;
	int ret;

	if (nr_fds != (c->notify ? 0u : 2u) || (cmd->contexts & ~TRAWL_USTCTL_CTX_ALL))
		return -EINVAL;
	if (find_chan(c, cmd->chan_handle))
		return -EEXIST;
	if (!c->notify && (ret = notify_map(c, cmd, fds)))
		return ret;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return -ENOMEM;
	ch->handle = cmd->chan_handle;
	ch->session_handle = cmd->session_handle;
	ch->notify = c->notify;
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
		return cmd_notifier(c, cmd, fds, nr_fds);
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
		return 0; /* done after the reply (serve_one()) */
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
			chan_drop(ch);
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
static int serve_one(struct trawl_ust_conn *c)
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
			reg_publish(c, 0, c->generation, 0);
			tally_done(c, 1);
		}
	} else {
		int en = cmd.cmd == TRAWL_WIRE_CMD_ENABLE, ch = cmd.cmd == TRAWL_WIRE_CMD_CHANNEL;

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
	ret = reg_send(c, c->fd, &reply, sizeof(reply));
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

		trawl_ust_statedump(&sref, procname);
	}
	if (!ret)
		ret = drop; /* then the caller registers again */
out:
	free(big);
	for (i = 0; i < nr_fds; i++)
		close(fds[i]);
	return ret;
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
static int reg_send(struct trawl_ust_conn *c, int fd, const void *buf, size_t len)
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
	ret = reg_send(c, fd, w, size);
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
	memcpy(r->procname, procname, sizeof(r->procname));
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

	ret = conn_sock_path(c, &sa);
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
		reg_publish(c, 1, 0, 1);
		tally_done(c, 0); /* no daemon: nothing it would trace was lost */
		return fd;
	}
	__atomic_add_fetch(&c->reg_progress, 1, __ATOMIC_RELAXED);
	reg_publish(c, 0, 0, 1);
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
	ret = reg_send(c, fd, &reg, reg_size);
	/* Event descriptions are immutable once registered; the array holds
	 * pointers taken under the lock. */
	for (i = 0; !ret && i < c->nr_events; i++)
		ret = send_event(c, fd, c->events[i], loglevels[i]);
	c->reg_whole = !ret;
	pthread_mutex_unlock(&c->send_lock);
	free(loglevels);
	if (ret) {
		reg_publish(c, 1, 0, 1);
		conn_close(c);
		return ret;
	}
	pthread_mutex_lock(&reg_lock);
	c->reg_sent = 1;
	pthread_cond_broadcast(&reg_cond);
	pthread_mutex_unlock(&reg_lock);
	/* A tally that began before the registration went: its memfd now. */
	tally_shm_send(c, 0);
	return ret;
err:
	free(loglevels);
	free(c->events);
	c->events = NULL;
	close(fd);
	reg_publish(c, 1, 0, 1);
	tally_done(c, 0);
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
		reg_publish(c, 0, c->generation, 0);
		tally_done(c, 1);
		goto out;
	}
	memset(&msg, 0, sizeof(msg));
	trawl_wire_hdr_init(&msg.hdr, TRAWL_WIRE_EVENTS_ADDED, sizeof(msg));
	msg.first_index = c->nr_events;
	msg.nr_events = n - c->nr_events;
	pthread_mutex_lock(&c->send_lock);
	ret = reg_send(c, c->fd, &msg, sizeof(msg));
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
	 * at once that there is none (top comment). */
	for (int i = 0; i < 2; i++) {
		__atomic_store_n(&conns[i].reg_waiting, 1, __ATOMIC_RELAXED);
		conns[i].pending_fd = conn_connect(&conns[i]);
		__atomic_store_n(&conns[i].reg_waiting, 0, __ATOMIC_RELAXED);
		if (conns[i].pending_fd < 0) {
			reg_publish(&conns[i], 1, 0, 1);
			tally_done(&conns[i], 0);
		}
	}
	wait_for_constructors();
	for (;;) {
		struct pollfd pfd[3];
		int n = 0, missing = 0, i, map[3];

		for (i = 0; i < 2; i++) {
			struct trawl_ust_conn *c = &conns[i];

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
			if (serve_one(&conns[map[i]])) {
				reg_publish(&conns[map[i]], 1, 0, 1);
				conn_close(&conns[map[i]]);
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
	pthread_mutex_lock(&reg_lock);
	agent_running = 1;
	pthread_mutex_unlock(&reg_lock);
	if (pthread_create(&th, &attr, agent_main, NULL) == 0) {
		pthread_setname_np(th, "trawl-ust");
	} else {
		pthread_mutex_lock(&reg_lock);
		agent_running = 0;
		pthread_cond_broadcast(&reg_cond);
		pthread_mutex_unlock(&reg_lock);
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
	/* The parent's waiting state is not ours (top comment). */
	pthread_mutex_init(&reg_lock, NULL);
	reg_cond_init();
	agent_running = 0;
	trawl_ust_pid = (int32_t)getpid();
	trawl_ust_ppid = (int32_t)getppid();
	trawl_ust_context_after_fork_child();
	prctl(PR_GET_NAME, procname, 0, 0, 0);
	for (i = 0; i < 2; i++) {
		struct trawl_ust_chan *ch;

		while ((ch = conns[i].chans)) {
			conns[i].chans = ch->next;
			chan_drop(ch);
		}
		if (conns[i].fd >= 0)
			close(conns[i].fd);
		if (conns[i].pending_fd >= 0)
			close(conns[i].pending_fd);
		conns[i].fd = -1;
		conns[i].pending_fd = -1;
		pthread_mutex_init(&conns[i].send_lock, NULL);
		conns[i].reg_sent = 0;
		conns[i].reg_whole = conns[i].tshm_sent = 0;
		conns[i].tried = conns[i].absent = 0;
		conns[i].done_gen = 0;
		conns[i].done_once = conns[i].takes_added = conns[i].adding = 0;
		if (conns[i].tally) /* the parent's; its counts are not ours */
			trawl_ust_tally_finish(conns[i].tally, 0);
		conns[i].tally = NULL;
		tally_shm_detach(&conns[i]); /* the parent's too (shared with it) */
		notify_forget(&conns[i]);    /* the parent's ring: not ours to write */
		free(conns[i].events);
		conns[i].events = NULL;
		conns[i].nr_events = 0;
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
	pthread_cond_init(&reg_cond, &ca);
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
	prctl(PR_GET_NAME, procname, 0, 0, 0);
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
