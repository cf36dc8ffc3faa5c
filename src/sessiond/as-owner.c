/* SPDX-License-Identifier: MIT */
/*
 * as-owner.c - file system work done as a session's owner, without the
 * loop waiting for it.
 *
 * The root daemon makes, moves and removes a session's folders in a child
 * that took the owner's ids (common/ids.h): their trace folder, snapshot
 * folders, a rotation's archive, what a clear removes. The folder is the
 * owner's to choose, and may be on a file system that does not answer (a
 * FUSE file system they mounted, a stopped NFS server): a child walking it
 * can wait for ever. So the daemon does not wait for the child: its result
 * comes through a socket the loop watches, within owner-ms, past which the
 * child is killed (it may be reaped later: a kill takes effect once the
 * file system's wait ends, which FUSE and NFS waits do at SIGKILL) and the
 * command is told in one line. The session it works for is busy meanwhile.
 *
 * The child answers on a SOCK_SEQPACKET socket: one message per file it
 * hands over (sd_owner_hand(): a slot number and the fd, SCM_RIGHTS),
 * then its result (slot -1). So a job may make files as the owner and the
 * daemon use them through the fds alone (ust-shm.c's buffer files), and
 * the loop reads each message as it comes: none is waited for.
 */
#include "common/fdmsg.h"
#include "common/fs.h"
#include "common/ids.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * Every child of a uid other than root counts against that uid until it is
 * reaped, not only until its job is over: a child killed while a FUSE file
 * system holds it stays a process of the daemon until that file system
 * answers the kill. A member with many sessions (create -o on their FUSE
 * mount, enable-event --userspace-probe on an ELF it holds, add-trigger)
 * once held a child of the root daemon per request. Now at most
 * SD_OWNER_JOBS_PER_UID at once; past it, a command is refused at once
 * (-EUSERS: the client is told and may try again), and the work that must
 * not be refused waits in the queue below (job->queue: a rotation's archive
 * of a chunk the consumers already left, the last chunk's archive at a
 * destroy, an app's buffer files and their removal: refusing those would
 * lose a chunk or leave a rotation half done). Root is not capped; the
 * daemon's own user runs its jobs in place (no child).
 *
 * Each child stays in kids[] from its fork until waitpid() takes it. Once
 * its job is over, a child not gone yet is waited for through its pidfd (a
 * loop watch, nested rounds too): the loop may otherwise sleep with a job
 * queued behind it. Reaping only children whose job is over keeps
 * waitpid() off a running child, whose result is still in its socket.
 */
struct kid {
	pid_t pid;
	uid_t uid;
	int pidfd;   /* -1: none (pidfd_open failed: reaped each loop round) */
	int over;    /* its job is over: reap it once it is gone */
	int watched; /* pidfd in the loop */
};
static struct kid *kids;
static size_t nr_kids, cap_kids;
static struct sd_owner_job *queue_head, *queue_tail;

static uint32_t kids_of(uid_t uid)
{
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < nr_kids; i++)
		n += kids[i].uid == uid;
	return n;
}

static int capped(uid_t uid)
{
	return uid != 0 && kids_of(uid) >= SD_OWNER_JOBS_PER_UID;
}

/* Room for one more child (before its fork: a child is never untracked). */
static int kids_grow(void)
{
	size_t cap;
	struct kid *k;

	if (nr_kids < cap_kids)
		return 0;
	cap = cap_kids ? cap_kids * 2 : 64;
	k = realloc(kids, cap * sizeof(*k));
	if (!k)
		return -ENOMEM;
	kids = k;
	cap_kids = cap;
	return 0;
}

static void kid_drop(size_t i)
{
	if (kids[i].watched)
		sd_watch_del(kids[i].pidfd);
	if (kids[i].pidfd >= 0)
		close(kids[i].pidfd);
	kids[i] = kids[--nr_kids];
}

static void reap_some(void)
{
	size_t i = 0;

	while (i < nr_kids) {
		if (!kids[i].over || waitpid(kids[i].pid, NULL, WNOHANG) == 0) {
			i++;
			continue;
		}
		kid_drop(i);
	}
}

static void start_queued(void);

static void kid_gone(int fd, short revents, void *arg)
{
	(void)fd;
	(void)revents;
	(void)arg;
	reap_some();
	start_queued();
}

void sd_owner_reap(void)
{
	reap_some();
	start_queued();
}

/* @pid's job is over: reaped now if it is gone, else once it is. */
static void reap(pid_t pid)
{
	size_t i;

	for (i = 0; i < nr_kids && kids[i].pid != pid; i++)
		;
	if (i == nr_kids) {
		waitpid(pid, NULL, WNOHANG); /* (not tracked: cannot be) */
		return;
	}
	kids[i].over = 1;
	if (waitpid(pid, NULL, WNOHANG) != 0) {
		kid_drop(i);
		return;
	}
	if (kids[i].pidfd >= 0 && !sd_watch_add(kids[i].pidfd, kid_gone, NULL)) {
		sd_watch_nested(kids[i].pidfd, 1);
		kids[i].watched = 1;
	}
}

/* What the child sends: a file (@slot >= 0, with its fd) or its result. */
struct job_msg {
	int32_t slot; /* -1: the job's result */
	int32_t ret;
};

/* sd_owner_run(): the job is waited for here (within owner-ms). */
static int force_wait;

/* In the child: its socket (-1 in the daemon). The job run in place. */
static int child_sock = -1;
static struct sd_owner_job *in_place;

/* A file handed over for @slot: kept in j->fds[@slot], or closed. */
static void job_take_fd(struct sd_owner_job *j, int32_t slot, int fd)
{
	if (slot < 0 || (uint32_t)slot >= j->max_fds || j->fds[slot] >= 0) {
		close(fd);
		return;
	}
	j->fds[slot] = fd;
}

int sd_owner_hand(uint32_t slot, int fd)
{
	struct job_msg m = {(int32_t)slot, 0};
	struct iovec iov = {&m, sizeof(m)};
	int ret;

	if (slot > INT32_MAX) {
		close(fd);
		return -EINVAL;
	}
	if (child_sock < 0) {
		if (in_place)
			job_take_fd(in_place, (int32_t)slot, fd);
		else
			close(fd);
		return 0;
	}
	ret = trawl_fdmsg_send(child_sock, &iov, 1, fd);
	close(fd);
	return ret;
}

/* The job's files handed over so far, closed (a job that failed). */
static void job_close_fds(struct sd_owner_job *j)
{
	uint32_t i;

	for (i = 0; i < j->max_fds; i++) {
		if (j->fds[i] >= 0)
			close(j->fds[i]);
		j->fds[i] = -1;
	}
}

static void job_over(struct sd_owner_job *j, int ret)
{
	sd_watch_del(j->fd);
	close(j->fd);
	j->fd = -1;
	if (ret == -ETIMEDOUT)
		kill(j->pid, SIGKILL);
	reap(j->pid);
	j->pid = 0;
	j->ret = ret;
	j->over = 1;
	if (ret < 0)
		job_close_fds(j);
	if (j->done)
		j->done(j, j->arg);
}

/*
 * Reads what the child sent on @fd so far (never waits): the files it
 * handed over go to the job. 1 with *@ret its result once it is in (or
 * -EIO: it closed without one, or sent what is not a message of ours),
 * else 0.
 */
static int job_read(struct sd_owner_job *j, int fd, int *ret)
{
	int i;

	for (i = 0; i < 1024; i++) {
		struct job_msg m;
		struct iovec iov = {&m, sizeof(m)};
		int mfd;
		ssize_t n = trawl_fdmsg_recv(fd, &iov, 1, 0, &mfd);

		if (n == -ETIMEDOUT || n == -EAGAIN || n == -EINTR)
			return 0;
		if (n != (ssize_t)sizeof(m)) {
			if (mfd >= 0)
				close(mfd);
			*ret = -EIO;
			return 1;
		}
		if (m.slot < 0) {
			if (mfd >= 0)
				close(mfd);
			*ret = m.ret;
			return 1;
		}
		if (mfd >= 0)
			job_take_fd(j, m.slot, mfd);
	}
	return 0; /* (more: the next round) */
}

static void job_ready(int fd, short revents, void *arg)
{
	struct sd_owner_job *j = arg;
	int ret;

	(void)revents;
	if (job_read(j, fd, &ret))
		job_over(j, ret);
}

static void job_expired(int fd, void *arg)
{
	(void)fd;
	job_over(arg, -ETIMEDOUT);
}

/* The child for @j, forked: -EINPROGRESS (awaited in the loop), or its
 * result (it could not be watched: waited for here, within owner-ms). */
static int job_start(struct sd_owner_job *j, const struct trawl_ids *ids, int (*fn)(void *),
		     void *arg)
{
	int p[2], pidfd;
	pid_t pid;

	if (kids_grow())
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, p) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		struct job_msg m = {-1, 0};
		struct iovec iov = {&m, sizeof(m)};
		int fl;

		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* (blocking: the loop reads it when it can; a full socket waits) */
		fl = fcntl(p[1], F_GETFL);
		if (fl >= 0)
			fcntl(p[1], F_SETFL, fl & ~O_NONBLOCK);
		child_sock = p[1];
		m.ret = trawl_ids_assume(ids);
		if (!m.ret)
			m.ret = fn(arg);
		_exit(trawl_fdmsg_send(p[1], &iov, 1, -1) ? 1 : 0);
	}
	close(p[1]);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd >= 0)
		fcntl(pidfd, F_SETFD, FD_CLOEXEC);
	kids[nr_kids++] = (struct kid){.pid = pid, .uid = ids->uid, .pidfd = pidfd};
	if (sd.quit || force_wait || sd_watch_add(p[0], job_ready, j)) {
		/* the daemon exits (the loop runs no more), or the child cannot
		 * be watched: waited for here, within the bound */
		int ret = -ETIMEDOUT;
		uint64_t until = sd_now_ms() + sd_limits.owner_ms;

		while (sd_now_ms() < until && !job_read(j, p[0], &ret))
			usleep(10000);
		close(p[0]);
		if (ret == -ETIMEDOUT)
			kill(pid, SIGKILL);
		reap(pid);
		if (ret < 0)
			job_close_fds(j);
		return ret;
	}
	sd_watch_deadline(p[0], sd_now_ms() + sd_limits.owner_ms, job_expired);
	j->pid = pid;
	j->fd = p[0];
	return -EINPROGRESS;
}

static void queue_unlink(struct sd_owner_job *j)
{
	struct sd_owner_job **pp, *prev = NULL;

	for (pp = &queue_head; *pp; prev = *pp, pp = &(*pp)->next) {
		if (*pp != j)
			continue;
		*pp = j->next;
		if (queue_tail == j)
			queue_tail = prev;
		break;
	}
	j->next = NULL;
	j->queued = 0;
}

/*
 * Starts the queued jobs whose uid has room, oldest first (top level only:
 * a job's @done may begin other work, which a nested round must not). A
 * @done may queue or cancel jobs: the queue is looked at afresh after each.
 */
static void start_queued(void)
{
	unsigned int n;

	for (n = 0; n < 4096 && queue_head && !sd_loop_nested() && !sd.quit; n++) {
		struct sd_owner_job *j;
		struct trawl_ids ids;
		int ret;

		for (j = queue_head; j && capped(j->uid); j = j->next)
			;
		if (!j)
			return;
		queue_unlink(j);
		trawl_ids_lookup(j->uid, j->gid, &ids);
		ret = job_start(j, &ids, j->fn, j->fn_arg);
		if (ret == -EINPROGRESS)
			continue;
		j->ret = ret;
		j->over = 1;
		if (j->done)
			j->done(j, j->arg);
	}
}

int sd_owner_begin(struct sd_owner_job *j, uid_t uid, gid_t gid, int (*fn)(void *), void *arg)
{
	struct trawl_ids ids;
	uint32_t i;

	if (j->queued)
		queue_unlink(j); /* (begun again before it started: the new call's) */
	j->over = 0;
	j->ret = 0;
	j->pid = 0;
	j->fd = -1;
	j->queued = 0;
	j->next = NULL;
	for (i = 0; i < j->max_fds; i++)
		j->fds[i] = -1;
	reap_some();
	trawl_ids_lookup(uid, gid, &ids);
	if (trawl_ids_is_self(&ids)) {
		/* (a user's daemon: its own folders) */
		int ret;

		in_place = j;
		ret = trawl_ids_run(&ids, fn, arg);
		in_place = NULL;
		if (ret < 0)
			job_close_fds(j);
		return ret;
	}
	/* (the daemon's exit waits for each job in turn: no cap then) */
	if (!sd.quit && !force_wait && capped(ids.uid)) {
		if (!j->queue)
			return -EUSERS;
		j->uid = uid;
		j->gid = gid;
		j->fn = fn;
		j->fn_arg = arg;
		j->queued = 1;
		if (queue_tail)
			queue_tail->next = j;
		else
			queue_head = j;
		queue_tail = j;
		sd_log("uid %u has %u jobs as the owner under way, the most at once: one more waits "
		       "for one of them to end", (unsigned)uid, SD_OWNER_JOBS_PER_UID);
		return -EINPROGRESS;
	}
	return job_start(j, &ids, fn, arg);
}

int sd_owner_run_queued(struct sd_owner_job *j)
{
	struct trawl_ids ids;
	int ret;

	if (!j->queued || !sd.quit)
		return 0;
	queue_unlink(j);
	trawl_ids_lookup(j->uid, j->gid, &ids);
	/* (sd.quit: no cap, and the child waited for here within owner-ms) */
	ret = job_start(j, &ids, j->fn, j->fn_arg);
	j->ret = ret;
	j->over = 1;
	if (j->done)
		j->done(j, j->arg);
	return 1;
}

int sd_owner_run(uid_t uid, gid_t gid, int (*fn)(void *), void *arg)
{
	struct sd_owner_job j = {.fd = -1};
	int ret;

	force_wait = 1;
	ret = sd_owner_begin(&j, uid, gid, fn, arg);
	force_wait = 0;
	return ret;
}

int sd_owner_done(struct sd_owner_job *j, int *ret)
{
	if (!j->over)
		return 0;
	*ret = j->ret;
	return 1;
}

void sd_owner_cancel(struct sd_owner_job *j)
{
	void (*done)(struct sd_owner_job *, void *) = j->done;

	if (j->queued) {
		/* (never started: no child to kill) */
		queue_unlink(j);
		j->ret = -ETIMEDOUT;
		j->over = 1;
		job_close_fds(j);
		return;
	}
	if (j->over || !j->pid)
		return;
	j->done = NULL; /* (the caller goes on itself) */
	job_over(j, -ETIMEDOUT);
	j->done = done;
}

const char *sd_owner_strerror(int ret)
{
	static char buf[200];

	if (ret == -EUSERS) {
		trawl_msg_fmt(buf, sizeof(buf),
			      "%u jobs of the root session daemon run as this user already, the most "
			      "at once per user (their file system may hold them): try again once "
			      "they end",
			      SD_OWNER_JOBS_PER_UID);
		return buf;
	}
	if (ret != -ETIMEDOUT)
		return trawl_fs_strerror(ret);
	trawl_msg_fmt(buf, sizeof(buf),
		      "no answer as its owner within owner-ms (%u ms): its file system, or the "
		      "owner, holds it",
		      sd_limits.owner_ms);
	return buf;
}
