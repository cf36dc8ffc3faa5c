/* SPDX-License-Identifier: MIT */
/*
 * agent-wait.c - libtrawl-ust's wait for its daemons at start-up, and what
 * a late daemon's app counts meanwhile (the agent thread: agent.c).
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

#define REGISTER_TIMEOUT_MS 3000 /* as LTTng-UST's LTTNG_UST_REGISTER_TIMEOUT */

pthread_mutex_t trawl_ust_agent_reg_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t trawl_ust_agent_reg_cond; /* CLOCK_MONOTONIC; made in agent.c's atfork_setup() */
int trawl_ust_agent_running; /* under reg_lock */

/* Publishes a connection's registration state to waiters. @done_gen 0
 * leaves it unchanged unless @reset. */
void trawl_ust_agent_reg_publish(struct trawl_ust_conn *c, int absent, uint64_t done_gen, int reset)
{
	pthread_mutex_lock(&trawl_ust_agent_reg_lock);
	c->tried = 1;
	c->absent = absent;
	if (done_gen || reset)
		c->done_gen = done_gen;
	pthread_cond_broadcast(&trawl_ust_agent_reg_cond);
	pthread_mutex_unlock(&trawl_ust_agent_reg_lock);
}

long trawl_ust_agent_register_timeout_ms(void)
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

/* No socket file: no daemon, and no need to wait for the agent to find out
 * (it may not have run yet: thread start-up costs 50-500 µs on a busy host). */
static int conn_surely_absent(const struct trawl_ust_conn *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	return trawl_ust_agent_sock_path(c, &sa) || (access(sa.sun_path, F_OK) && errno == ENOENT);
}

static void tally_late(uint64_t gen, const int *absent);

/* @d: @ms from now on CLOCK_MONOTONIC (trawl_ust_agent_reg_cond's clock). */
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
	long ms = trawl_ust_agent_register_timeout_ms();
	struct timespec deadline;
	int i, pending = 0, absent[2];

	if (ms == 0)
		return; /* no wait, no tally (top comment) */
	for (i = 0; i < 2; i++)
		absent[i] = conn_surely_absent(&trawl_ust_agent_conns[i]);
	if (absent[0] && absent[1])
		return;
	deadline_in(&deadline, ms);
	pthread_mutex_lock(&trawl_ust_agent_reg_lock);
	while (trawl_ust_agent_running) {
		for (pending = 0, i = 0; i < 2; i++)
			if (!absent[i] && (!trawl_ust_agent_conns[i].tried || (!trawl_ust_agent_conns[i].absent && trawl_ust_agent_conns[i].done_gen < gen)))
				pending = 1;
		if (!pending || pthread_cond_timedwait(&trawl_ust_agent_reg_cond, &trawl_ust_agent_reg_lock, &deadline) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&trawl_ust_agent_reg_lock);
	if (pending)
		tally_late(gen, absent);
}


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
	pthread_mutex_lock(&trawl_ust_agent_reg_lock);
	for (i = 0; i < 2; i++)
		lates[i] = trawl_ust_agent_running && !absent[i] &&
			   (!trawl_ust_agent_conns[i].tried || (!trawl_ust_agent_conns[i].absent && trawl_ust_agent_conns[i].done_gen < gen));
	pthread_mutex_unlock(&trawl_ust_agent_reg_lock);
	pthread_mutex_lock(&trawl_ust_lock);
	for (i = 0; i < 2; i++) {
		struct trawl_ust_conn *c = &trawl_ust_agent_conns[i];
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
	pthread_mutex_lock(&trawl_ust_agent_reg_lock);
	for (i = 0; i < 2; i++) {
		gone[i] = lates[i] && trawl_ust_agent_conns[i].tried && trawl_ust_agent_conns[i].absent;
		done[i] = lates[i] && !gone[i] && trawl_ust_agent_conns[i].done_gen >= gen;
	}
	pthread_mutex_unlock(&trawl_ust_agent_reg_lock);
	for (i = 0; i < 2; i++) {
		if (gone[i] || done[i])
			trawl_ust_agent_tally_done(&trawl_ust_agent_conns[i], done[i]);
		else if (lates[i])
			trawl_ust_agent_tally_shm_send(&trawl_ust_agent_conns[i], 1);
	}
}

void trawl_ust_agent_provider_added(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct trawl_ust_conn *c = &trawl_ust_agent_conns[i];

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
void trawl_ust_agent_tally_shm_detach(struct trawl_ust_conn *c)
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
void trawl_ust_agent_tally_done(struct trawl_ust_conn *c, int apply)
{
	struct trawl_ust_tally *t;

	pthread_mutex_lock(&trawl_ust_lock);
	t = c->tally;
	if (t && (!apply || c->generation >= c->tally_gen)) {
		__atomic_store_n(&c->tally, NULL, __ATOMIC_RELAXED);
		trawl_ust_tally_finish(t, apply);
	}
	if (!apply)
		trawl_ust_agent_tally_shm_detach(c);
	pthread_mutex_unlock(&trawl_ust_lock);
	/* Wakes a provider's destructor waiting for the counts to be in. */
	pthread_mutex_lock(&trawl_ust_agent_reg_lock);
	pthread_cond_broadcast(&trawl_ust_agent_reg_cond);
	pthread_mutex_unlock(&trawl_ust_agent_reg_lock);
}

void trawl_ust_agent_wait_tallies(void)
{
	long ms = trawl_ust_agent_register_timeout_ms();
	struct timespec deadline;
	int i, late;

	deadline_in(&deadline, ms);
	pthread_mutex_lock(&trawl_ust_agent_reg_lock);
	for (;;) {
		/* Racy read of tally (trawl_ust_lock's): a stale answer only
		 * costs one more round, the broadcast comes after the change. */
		for (late = 0, i = 0; i < 2; i++)
			late |= __atomic_load_n(&trawl_ust_agent_conns[i].tally, __ATOMIC_RELAXED) != NULL &&
				!trawl_ust_agent_conns[i].absent;
		if (!late || !trawl_ust_agent_running ||
		    pthread_cond_timedwait(&trawl_ust_agent_reg_cond, &trawl_ust_agent_reg_lock, &deadline) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&trawl_ust_agent_reg_lock);
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
	pthread_mutex_lock(&trawl_ust_agent_reg_lock);
	while (trawl_ust_agent_running && !(c->tried && c->absent) && !c->reg_sent) {
		if (pthread_cond_timedwait(&trawl_ust_agent_reg_cond, &trawl_ust_agent_reg_lock, &step) != ETIMEDOUT)
			continue;
		if (agent_stuck(c, &seen) || !ts_after(&until, &step))
			break; /* waiting on a daemon that did not move either; or too long */
		deadline_in(&step, REPORT_WAIT_MS);
		if (ts_after(&step, &until))
			step = until;
	}
	sent = c->reg_sent && !c->absent;
	pthread_mutex_unlock(&trawl_ust_agent_reg_lock);
	return sent;
}

/*
 * Sends @c's memfd to the daemon (TALLY_SHM, once a connection), after the
 * registration: from then on a SIGKILL, or the daemon dropping us, leaves
 * the counts where the daemon reads them. @wait: for the registration to
 * go (as a TALLY does), else the agent sends it after the registration.
 * Called with no lock held.
 */
void trawl_ust_agent_tally_shm_send(struct trawl_ust_conn *c, int wait)
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
		struct trawl_ust_conn *c = &trawl_ust_agent_conns[i];
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
