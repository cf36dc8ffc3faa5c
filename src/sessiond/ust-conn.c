/* SPDX-License-Identifier: MIT */
/*
 * ust-conn.c - traced apps' connections to apps.sock: who may connect,
 * reading them without ever waiting, their deadlines, their replies, and
 * dropping the ones that misbehave.
 *
 * Root's apps.sock is open to every user (their apps register with it for
 * root's sessions), so each connection is held to what peers.c allows an
 * untrusted uid (sd_limits: connections per uid and in all, bytes of
 * descriptions per app and per uid) and to deadlines (ustctl.h): a whole
 * registration within app_register_ms of the connect, any message begun
 * within the same, and an answer to each command within app_reply_ms. An
 * app that misses one is dropped and counted (its uid's record, and each
 * session that traced it: `trawl status` says so), with a log line that is
 * rate limited per uid like every line a peer causes.
 *
 * A connection is on `conns` until its registration is complete (or
 * refused: then it stays there, answered and untraced), then on `apps`.
 * While a command waits for apps (nested rounds, loop.c), a registration
 * or an addition that completes is only marked; its set-up (app_setup())
 * runs at the top level, in apps_on_top(): a session being stopped must
 * not start a new app behind the command's back.
 */
#include "sessiond/ust-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static struct ust_app *conns;   /* registering, or refused */
static uint32_t untrusted_conns; /* connections of untrusted uids, both lists */
static int work_pending;         /* apps_on_top() has something to do */
static uint64_t next_app_id;
static int closing_all;          /* apps_close_all(): no trace is charged any more */

static void app_expired(int fd, void *arg);

/* What the app's fd is polled for, and by when it must have done its part. */
static void app_arm(struct ust_app *a)
{
	int fd = trawl_ustctl_app_fd(a->h);

	sd_watch_events(fd, (short)(POLLIN | (trawl_ustctl_app_want_output(a->h) ? POLLOUT : 0)));
	sd_watch_deadline(fd, trawl_ustctl_app_deadline(a->h), app_expired);
}

static void unlink_app(struct ust_app *a)
{
	struct ust_app **pp;

	for (pp = a->registered ? &apps : &conns; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			return;
		}
	}
}

/*
 * Dropped apps whose tally memfd is kept (h NULL), newest first. A program
 * the daemon drops (a deadline) goes on counting into its memfd until its
 * agent notices the connection is gone (slots.c: the tally ends then): what
 * it counts meanwhile is read at the next stop (apps_tally_settle()). Each
 * holds its memfd as one connection of its uid (within the uid's caps, as
 * when it came), until then.
 */
static struct ust_app *lingering;

/* Closes @a's kept memfd and frees it (app_gone() did the rest). */
static void tally_linger_end(struct ust_app *a)
{
	trawl_ustctl_tally_shm_close(&a->shm);
	a->owner->app_conns--;
	if (!a->trusted)
		untrusted_conns--;
	sd_uid_put(a->owner);
	free(a->charged);
	free(a);
}

/*
 * What @a counted before its setup and handed to nobody (its tally memfd,
 * wire.h TALLY_SHM): a program killed (SIGKILL) before it could send its
 * TALLY, or dropped (a deadline) while it counted. Charged as a TALLY is,
 * once it is gone: nothing else can take those counts any more. 1 if @a
 * was dropped and its memfd is kept (what it counts next is charged at the
 * next stop), else 0 (closed).
 */
static int app_tally_left(struct ust_app *a)
{
	struct trawl_ustctl_tally_entry *e;
	uint64_t overflow;
	uint32_t nr;
	int ret;

	if (!a->tally_shm || closing_all || trawl_ustctl_app_tally_shm_take(a->h, &a->shm))
		return 0;
	ret = trawl_ustctl_tally_shm_read(&a->shm, &e, &nr, &overflow);
	if (ret)
		sd_log_peer(a->uid, TRAWL_LOG_WARN, "app %d (uid %d): its tally's memfd: %s",
			    (int)a->pid, (int)a->uid, strerror(-ret));
	if (nr || overflow)
		app_tally(a, e, nr, overflow);
	if (!a->dead || ret) {
		free(e);
		trawl_ustctl_tally_shm_close(&a->shm);
		return 0;
	}
	a->charged = e;
	a->nr_charged = nr;
	a->overflow_charged = overflow;
	return 1;
}

void apps_tally_settle(void)
{
	struct ust_app *a;

	while ((a = lingering)) {
		struct trawl_ustctl_tally_entry *e;
		uint64_t overflow, more;
		uint32_t nr, i, k = 0;

		lingering = a->next;
		if (!trawl_ustctl_tally_shm_read(&a->shm, &e, &nr, &overflow)) {
			/* What grew since the drop, entry by entry; a count
			 * that shrank (only the app's own writes can) is none. */
			for (i = 0; i < nr; i++) {
				uint64_t was = i < a->nr_charged ? a->charged[i].count : 0;

				if (e[i].count <= was)
					continue;
				e[k] = e[i];
				e[k++].count -= was;
			}
			more = overflow > a->overflow_charged ? overflow - a->overflow_charged : 0;
			if (k || more)
				app_tally(a, e, k, more);
			free(e);
		}
		tally_linger_end(a);
	}
}

int app_tally_lingers(pid_t pid)
{
	const struct ust_app *a;

	for (a = lingering; a; a = a->next)
		if (a->info.pid == pid)
			return 1;
	return 0;
}

/*
 * Per-process traces whose app closed its socket but had not exited yet,
 * or whose consumer had not drained them: trace_release_gone() is called
 * again until none waits, so the last program of a session has its trace
 * closed (and its --shm-path files removed, as LTTng's tools/crash test
 * expects) without waiting for another to go. Every GONE_RETRY_MS at
 * first (a program exits right after its socket closes), then every
 * GONE_SLOW_MS: a program that closed its socket and lives on (dropped,
 * it registers again) costs the daemon one wake-up a second, not ten.
 */
#define GONE_RETRY_MS 100
#define GONE_FAST_TRIES 20
#define GONE_SLOW_MS 1000
static int gone_fd = -1;
static unsigned gone_tries; /* since the last app went */

static void gone_check(void);

static void gone_ready(int fd, short revents, void *arg)
{
	uint64_t n;

	(void)revents;
	(void)arg;
	if (read(fd, &n, sizeof(n)) < 0 && errno == EAGAIN)
		return;
	gone_check();
}

static void gone_arm(int waiting)
{
	long ms = !waiting ? 0 : gone_tries++ < GONE_FAST_TRIES ? GONE_RETRY_MS : GONE_SLOW_MS;
	struct itimerspec its = {.it_value = {ms / 1000, ms % 1000 * 1000000L}}; /* 0: disarmed */

	if (!waiting && gone_fd < 0)
		return;
	if (gone_fd < 0) {
		gone_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (gone_fd < 0)
			return; /* (then the next app gone releases them) */
		if (sd_watch_add(gone_fd, gone_ready, NULL)) {
			close(gone_fd);
			gone_fd = -1;
			return;
		}
	}
	timerfd_settime(gone_fd, 0, &its, NULL);
}

static void gone_check(void)
{
	struct trawl_domain_session *s;
	int waiting = 0;

	for (s = sessions; s; s = s->next)
		waiting |= trace_release_gone(s);
	gone_arm(waiting);
}

void app_gone(struct ust_app *a)
{
	struct trawl_domain_session *s;
	struct sd_uid *owner = a->owner;
	int linger;

	if (a->registered)
		sd_log_peer(a->uid, TRAWL_LOG_INFO, "app %d (%s, uid %d) unregistered",
			    (int)a->info.pid, a->info.procname, (int)a->uid);
	linger = app_tally_left(a);
	unlink_app(a);
	if (linger) {
		/* Listed first: its per-process trace stays (app_tally_lingers()). */
		a->next = lingering;
		lingering = a;
	}
	for (s = sessions; s; s = s->next)
		app_sess_free(s, a);
	gone_tries = 0;
	gone_check();
	ust_notify_app_gone(a);
	sd_watch_del(trawl_ustctl_app_fd(a->h));
	trawl_ustctl_app_destroy(a->h); /* gives back the bytes it held */
	a->h = NULL;
	owner->app_conns -= 1u + (a->tally_shm != 0 && !linger) + a->notify_fd;
	if (!a->trusted)
		untrusted_conns -= 1u + (a->tally_shm != 0 && !linger) + a->notify_fd;
	a->notify_fd = 0;
	if (linger)
		return; /* its uid's reference goes with the memfd */
	sd_uid_put(owner);
	free(a);
}

/* Drops @a (it broke a rule: @why), counting it against its uid and sessions. */
static void app_drop(struct ust_app *a, const char *why)
{
	struct trawl_domain_session *s;

	a->owner->dropped++;
	for (s = sessions; s; s = s->next)
		s->apps_dropped += app_sess_of(s, a) != NULL;
	sd_log_peer(a->uid, TRAWL_LOG_WARN, "app %d (%s, uid %d) dropped: %s", (int)a->pid,
		    a->registered ? a->info.procname : "registering", (int)a->uid, why);
	a->dead = 1; /* alive, it may count on: its memfd is kept (app_tally_left()) */
	app_gone(a);
}

int app_charge_fd(struct ust_app *a)
{
	if (!a->trusted && (a->owner->app_conns >= sd_limits.app_conns_per_uid ||
			    untrusted_conns >= sd_limits.app_conns))
		return -EMFILE;
	a->owner->app_conns++;
	if (!a->trusted)
		untrusted_conns++;
	return 0;
}

void app_fail(struct ust_app *a, int err)
{
	/* Inside a loop over apps or sessions: dropped at the top level. */
	if (!a->dead)
		sd_log_peer(a->uid, TRAWL_LOG_WARN, "app %d (uid %d): %s: dropping it", (int)a->pid,
			    (int)a->uid, err == -ENOBUFS ? "does not take its commands"
							 : strerror(-err));
	a->dead = 1;
	work_pending = 1;
}

static void app_expired(int fd, void *arg)
{
	struct ust_app *a = arg;
	char why[160];

	if (trawl_ustctl_app_expired(a->h, sd_now_ms(), why, sizeof(why)))
		app_drop(a, why);
	else
		app_arm(a);
}

/* The process's name as the kernel knows it (its main thread's), rather than
 * what the app claims (which may be the name of the thread registering). */
static void proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64], name[TRAWL_USTCTL_PROCNAME_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return;
	name[n] = '\0';
	name[strcspn(name, "\n/")] = '\0';
	/* The process sets its comm (PR_SET_NAME) to any bytes: it is shown to
	 * root (the log, the trace folder's name). */
	trawl_str_printable(name);
	if (name[0] && len) {
		size_t k = strnlen(name, len - 1);

		memcpy(buf, name, k);
		buf[k] = '\0';
	}
}

/* @pid's process ID in its own PID namespace: the last field of NSpid in
 * /proc/PID/status (the kernel's word), else @claimed. */
static uint32_t proc_vpid(pid_t pid, uint32_t claimed)
{
	char path[64], buf[2048], *line, *last;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return claimed;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return claimed;
	buf[n] = '\0';
	line = strstr(buf, "\nNSpid:");
	if (!line)
		return claimed;
	line[strcspn(line + 1, "\n") + 1] = '\0';
	last = strrchr(line, '\t');
	return last && last[1] ? (uint32_t)strtoul(last + 1, NULL, 10) : claimed;
}

/* 1 if @pid is in another user namespace than the daemon. */
static int proc_other_userns(pid_t pid)
{
	struct stat self, other;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	if (stat(path, &other) || stat("/proc/self/ns/user", &self))
		return 0;
	return self.st_dev != other.st_dev || self.st_ino != other.st_ino;
}

/*
 * The IDs the trackers match (LTTng's VPID, VUID, VGID: as the app sees
 * itself). An app could claim any: it would then be traced by a session
 * tracking another process or user (root's sessions trace every user's
 * apps). So the kernel's word is taken wherever it has one: the PID from
 * NSpid, and, in the daemon's own user namespace, the uid and gid of
 * SO_PEERCRED. Only an app in a user namespace of its own is believed about
 * its IDs there (it is what it says inside its namespace).
 */
static void app_virtual_ids(struct ust_app *a, const struct trawl_ustctl_app_info *claim)
{
	a->vpid = proc_vpid(a->pid, (uint32_t)claim->pid);
	if (proc_other_userns(a->pid)) {
		a->vuid = (uint32_t)claim->uid;
		a->vgid = (uint32_t)claim->gid;
	} else {
		a->vuid = (uint32_t)a->uid;
		a->vgid = (uint32_t)a->gid;
	}
}

/* The registration is complete: @a joins `apps`, is set up for the active
 * sessions that trace it, and told its set-up is done. */
static void app_registered(struct ust_app *a)
{
	struct trawl_domain_session *s;
	uint32_t first;
	int ret;

	a->reg_pending = 0;
	trawl_ustctl_app_take_added(a->h, &first); /* an early addition: set up below */
	unlink_app(a);
	a->registered = 1;
	a->next = apps;
	apps = a;
	sd_log_peer(a->uid, TRAWL_LOG_INFO, "app %d (%s, uid %d) registered with %u events",
		    (int)a->pid, a->info.procname, (int)a->uid, trawl_ustctl_app_event_count(a->h));
	for (s = sessions; s && !a->dead; s = s->next) {
		struct trawl_domain_err err = {""};

		if (s->active && sess_traces_app(s, a) && (ret = app_setup(s, a, &err)))
			sd_log_peer(a->uid, TRAWL_LOG_WARN, "session %s: setting up app %d: %s",
				    s->name, (int)a->pid, err.msg[0] ? err.msg : strerror(-ret));
	}
	ust_notify_app_sync(a);
	/* The app's start-up waits for this (its early events). Its later
	 * providers come on this connection (EVENTS_ADDED). */
	app_registration_done(a);
}

static void app_took_registration(struct ust_app *a)
{
	const struct trawl_ustctl_app_info *info = trawl_ustctl_app_info(a->h);
	time_t now = time(NULL);
	struct tm tm;

	a->info = *info;
	app_virtual_ids(a, info);
	/* The kernel's word over the app's: its pid (SO_PEERCRED) and its
	 * process's name (its main thread's). */
	a->info.pid = a->pid;
	proc_comm(a->pid, a->info.procname, sizeof(a->info.procname));
	localtime_r(&now, &tm);
	strftime(a->stamp, sizeof(a->stamp), "%Y%m%d-%H%M%S", &tm);
	if (sd_loop_nested()) {
		a->reg_pending = 1;
		work_pending = 1;
		return;
	}
	app_registered(a);
}

/* A reply: only failures matter (the command was applied as sent). */
static void app_reply(struct ust_app *a, const struct trawl_ustctl_app_news *n)
{
	if (!n->ret || n->cmd == TRAWL_USTCTL_CMD_REGISTRATION_DONE ||
	    n->cmd == TRAWL_USTCTL_CMD_RELEASE || n->cmd == TRAWL_USTCTL_CMD_DISABLE)
		return; /* an app older than REGISTRATION_DONE answers -EINVAL: harmless */
	if (n->cmd == TRAWL_USTCTL_CMD_ENABLE) {
		app_enable_failed(a, n->chan_handle, n->event_index, n->ret);
		return;
	}
	sd_log_peer(a->uid, TRAWL_LOG_WARN, "app %d (uid %d): command %u: %s", (int)a->pid,
		    (int)a->uid, n->cmd, strerror(-n->ret));
}

static void app_news(struct ust_app *a, const struct trawl_ustctl_app_news *n)
{
	int ret;

	switch (n->kind) {
	case TRAWL_USTCTL_NEWS_REGISTERED:
		app_took_registration(a);
		break;
	case TRAWL_USTCTL_NEWS_REFUSED:
		a->owner->refused++;
		sd_log_peer(a->uid, TRAWL_LOG_WARN, "app %d (uid %d): %s refused: %s", (int)a->pid,
			    (int)a->uid, n->registration ? "registration" : "events added", n->why);
		ret = trawl_ustctl_app_refuse(a->h);
		if (ret)
			app_fail(a, ret);
		break;
	case TRAWL_USTCTL_NEWS_ADDED:
		if (sd_loop_nested() || a->reg_pending || !a->registered) {
			a->added_pending = 1;
			work_pending = 1;
		} else {
			app_events_added(a);
		}
		break;
	case TRAWL_USTCTL_NEWS_REPLY:
		app_reply(a, n);
		break;
	case TRAWL_USTCTL_NEWS_TALLY:
		app_tally(a, n->tally, n->nr_tally, 0);
		break;
	case TRAWL_USTCTL_NEWS_TALLY_SHM:
		/* One more fd: held as a connection is (an untrusted uid's
		 * within its caps, else not kept: its counts go by TALLY). */
		if (!a->trusted && (a->owner->app_conns >= sd_limits.app_conns_per_uid ||
				    untrusted_conns >= sd_limits.app_conns)) {
			sd_log_peer(a->uid, TRAWL_LOG_WARN, "app %d (uid %d): its tally's memfd not "
				    "kept: its uid, or all untrusted ones, hold the most connections",
				    (int)a->pid, (int)a->uid);
			trawl_ustctl_app_tally_shm_drop(a->h);
			break;
		}
		a->tally_shm = 1;
		a->owner->app_conns++;
		if (!a->trusted)
			untrusted_conns++;
		break;
	}
}

/*
 * What @a sent and was not read yet, read now (at most @max_reads reads,
 * each of what the socket holds): the last words of a program that exited
 * (its TALLY comes after its registration, and a command that failed
 * because it is gone must not lose them), and everything before a stop.
 * 0, or -1 once @a was freed (it left, or broke the protocol).
 */
static int app_read_rest(struct ust_app *a, int max_reads)
{
	struct trawl_ustctl_app_news news;
	int i, ret;

	for (i = 0; i < max_reads; i++) {
		struct pollfd p = {.fd = trawl_ustctl_app_fd(a->h), .events = POLLIN};

		if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
			break;
		for (int may_read = 1; (ret = trawl_ustctl_app_input(a->h, may_read, &news)) > 0;
		     may_read = 0)
			app_news(a, &news);
		if (ret == -ECONNRESET || ret == -EPIPE) {
			app_gone(a);
			return -1;
		}
		if (ret < 0) {
			app_drop(a, ret == -EPROTO ? "malformed or out-of-turn message" : strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/* @a failed (a command could not go, or it was marked dead): its last
 * words, then it goes. */
static void app_fail_gone(struct ust_app *a)
{
	if (!app_read_rest(a, 256))
		app_gone(a);
}

static void app_io(int fd, short revents, void *arg)
{
	struct trawl_ustctl_app_news news;
	struct ust_app *a = arg;
	int ret = 0, may_read = 1;

	if (a->dead) {
		app_fail_gone(a);
		return;
	}
	if ((revents & POLLOUT) && (ret = trawl_ustctl_app_output(a->h))) {
		app_fail(a, ret);
		app_fail_gone(a);
		return;
	}
	if (revents & (POLLIN | POLLHUP | POLLERR)) {
		/* One read per readiness, then what it completed (ustctl.h). */
		while (!a->dead && (ret = trawl_ustctl_app_input(a->h, may_read, &news)) > 0) {
			may_read = 0;
			app_news(a, &news);
		}
		if (ret < 0) {
			if (ret == -ECONNRESET)
				app_gone(a); /* it left */
			else
				app_drop(a, ret == -EPROTO ? "malformed or out-of-turn message"
							    : strerror(-ret));
			return;
		}
		if (a->dead) {
			app_fail_gone(a);
			return;
		}
	}
	/* Replies may have let queued commands go. */
	ret = trawl_ustctl_app_output(a->h);
	if (ret) {
		app_fail(a, ret);
		app_fail_gone(a);
		return;
	}
	app_arm(a);
}

/* Whether @peer may hold one more connection (untrusted: the caps). */
static int conn_allowed(const struct sd_peer *peer, struct sd_uid *owner)
{
	const char *why;

	if (peer->trusted)
		return 1;
	if (owner->app_conns >= sd_limits.app_conns_per_uid)
		why = "its uid holds the most connections one uid may";
	else if (untrusted_conns >= sd_limits.app_conns)
		why = "other users hold the most connections they may";
	else
		return 1;
	owner->refused++;
	sd_log_peer(peer->uid, TRAWL_LOG_WARN, "apps.sock: refusing pid %d (uid %d): %s (%u)",
		    (int)peer->pid, (int)peer->uid, why, owner->app_conns);
	return 0;
}

static void conn_new(int cfd)
{
	struct trawl_ustctl_app_limits lim = {
		.max_events = sd_limits.app_events,
		.max_fields = sd_limits.app_fields,
		.max_bytes = sd_limits.app_bytes,
		.reply_ms = sd_limits.app_reply_ms,
		.unit_ms = sd_limits.app_register_ms,
	};
	struct sd_uid *owner;
	struct sd_peer peer;
	struct ust_app *a;

	if (sd_peer_get(cfd, &peer) || !(owner = sd_uid_get(peer.uid))) {
		close(cfd);
		return;
	}
	if (!conn_allowed(&peer, owner) || !(a = calloc(1, sizeof(*a)))) {
		close(cfd);
		sd_uid_put(owner);
		return;
	}
	if (!peer.trusted) {
		lim.shared_bytes = &owner->app_bytes;
		lim.shared_max = sd_limits.app_bytes_per_uid;
	}
	if (trawl_ustctl_app_open(cfd, &lim, &a->h) || sd_watch_add(cfd, app_io, a)) {
		trawl_ustctl_app_destroy(a->h); /* closes cfd */
		if (!a->h)
			close(cfd);
		free(a);
		sd_uid_put(owner);
		return;
	}
	a->id = ++next_app_id;
	a->uid = peer.uid;
	a->gid = peer.gid;
	a->pid = peer.pid;
	a->trusted = peer.trusted;
	a->owner = owner;
	owner->app_conns++;
	untrusted_conns += !peer.trusted;
	a->next = conns;
	conns = a;
	sd_watch_nested(cfd, 1);
	app_arm(a);
}

void apps_accept(int fd, short revents, void *arg)
{
	int i;

	/* A few per round: a flood of connections does not starve the rest. */
	for (i = 0; i < 16; i++) {
		int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

		if (cfd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				sd_log_peer(UINT32_MAX, TRAWL_LOG_ERROR, "apps.sock: cannot accept: %s",
					    strerror(errno));
			return;
		}
		conn_new(cfd);
	}
}

void apps_kick(void)
{
	work_pending = 1;
}

static int chans_pending; /* apps_chans_ready() is due */

void apps_chans_kick(void)
{
	chans_pending = 1;
	work_pending = 1;
}

/* The work nested rounds left (top comment), apps that failed, and the
 * deadlines of commands queued since. */
void apps_on_top(void)
{
	struct ust_app *a, *next;

	if (!work_pending)
		return;
	work_pending = 0;
	if (chans_pending) {
		chans_pending = 0;
		apps_chans_ready();
	}
	for (a = conns; a; a = next) {
		next = a->next;
		if (a->dead)
			app_fail_gone(a);
		else if (a->reg_pending)
			app_registered(a);
	}
	for (a = apps; a; a = next) {
		next = a->next;
		if (!a->dead && a->added_pending) {
			a->added_pending = 0;
			app_events_added(a);
		}
		if (a->dead)
			app_fail_gone(a);
		else
			app_arm(a);
	}
}

/*
 * A program that exited before its setup said what it counted (TALLY) on
 * its connection, maybe still waiting to be accepted: a stop must see it,
 * or the counts come after the session stopped and go nowhere. Bounded: at
 * most 4,096 connections taken, 64 reads each, and 2 s in all (a user
 * flooding apps.sock delays a stop by that, no more).
 */
void apps_drain(void)
{
	uint64_t until = sd_now_ms() + 2000;
	struct ust_app *a, *next;
	int i;

	if (sd_loop_nested())
		return;
	for (i = 0; i < 256 && apps_listen_fd >= 0; i++) {
		struct pollfd p = {.fd = apps_listen_fd, .events = POLLIN};

		if (poll(&p, 1, 0) <= 0 || sd_now_ms() >= until)
			break;
		apps_accept(apps_listen_fd, POLLIN, NULL);
	}
	/* Registering ones first: one that completes moves to `apps`. */
	for (a = conns; a && sd_now_ms() < until; a = next) {
		next = a->next;
		app_read_rest(a, 64);
	}
	for (a = apps; a && sd_now_ms() < until; a = next) {
		next = a->next;
		app_read_rest(a, 64);
	}
	apps_on_top();
}

void apps_close_all(void)
{
	closing_all = 1;
	while (apps)
		app_gone(apps);
	while (conns)
		app_gone(conns);
	while (lingering) {
		struct ust_app *a = lingering;

		lingering = a->next;
		tally_linger_end(a);
	}
}

/* Whether any app set up for @s still owes it an answer (a barrier's test). */
static int session_settled(void *arg)
{
	struct trawl_domain_session *s = arg;
	struct app_sess *as;

	for (as = s->apps; as; as = as->next)
		if (!as->app->dead && trawl_ustctl_app_pending(as->app->h))
			return 0;
	return 1;
}

/* Whether every live channel an app of @s waits for is ready (a barrier's test). */
static int session_chans_ready(void *arg)
{
	struct trawl_domain_session *s = arg;
	const struct ust_trace *t;
	const struct trace_chan *tc;

	for (t = s->traces; t; t = t->next)
		for (tc = t->chans; tc; tc = tc->next)
			if (!cons_chan_ready(s, tc))
				return 0;
	return 1;
}

void apps_barrier(struct trawl_domain_session *s)
{
	uint64_t until = sd_now_ms() + sd_limits.app_reply_ms + 1000;
	struct app_sess *as;

	/* Send what is queued now: the app acts on it while we wait. */
	for (as = s->apps; as; as = as->next)
		if (!as->app->dead)
			app_arm(as->app);
	/* Each app has its own deadline (ustctl.h); the bound is a backstop. */
	sd_loop_wait(session_settled, s, until);
	/*
	 * A live session's new channels reach the apps once the consumer has
	 * their streams on relayd (app_sync()): waited for here within the
	 * same bound, as the apps are, so that a responsive consumer's are
	 * recording when the command returns; what is not ready by then
	 * comes later (apps_chans_ready()), the loop not held.
	 */
	while (apps_chans_wait(s) && sd_now_ms() < until) {
		sd_loop_wait(session_chans_ready, s, until);
		if (!session_chans_ready(s))
			break;
		apps_chans_ready();
		for (as = s->apps; as; as = as->next)
			if (!as->app->dead)
				app_arm(as->app);
		sd_loop_wait(session_settled, s, until);
	}
}
