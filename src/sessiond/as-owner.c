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
#include <sys/wait.h>
#include <unistd.h>

/* Children killed or over that were not reaped yet (reaped each loop round).
 * A child killed while a FUSE file system holds it stays until that file
 * system answers: never waited for (before, past 64 of them, the oldest was,
 * in the loop: a member holding 64 children held the daemon). */
static pid_t *unreaped;
static size_t nr_unreaped, cap_unreaped;

static void reap_some(void)
{
	size_t i = 0;

	while (i < nr_unreaped) {
		pid_t r = waitpid(unreaped[i], NULL, WNOHANG);

		if (r == 0) {
			i++;
			continue;
		}
		unreaped[i] = unreaped[--nr_unreaped];
	}
}

void sd_owner_reap(void)
{
	if (nr_unreaped)
		reap_some();
}

/* Reaps @pid now if it is gone, else later (sd_owner_reap(), each loop round). */
static void reap(pid_t pid)
{
	if (waitpid(pid, NULL, WNOHANG) != 0)
		return;
	if (nr_unreaped == cap_unreaped) {
		size_t cap = cap_unreaped ? cap_unreaped * 2 : 64;
		pid_t *u = cap <= 65536 ? realloc(unreaped, cap * sizeof(*u)) : NULL;

		if (!u)
			return; /* (a zombie until the daemon exits) */
		unreaped = u;
		cap_unreaped = cap;
	}
	unreaped[nr_unreaped++] = pid;
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

int sd_owner_begin(struct sd_owner_job *j, uid_t uid, gid_t gid, int (*fn)(void *), void *arg)
{
	struct trawl_ids ids;
	uint32_t i;
	int p[2];
	pid_t pid;

	j->over = 0;
	j->ret = 0;
	j->pid = 0;
	j->fd = -1;
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
		m.ret = trawl_ids_assume(&ids);
		if (!m.ret)
			m.ret = fn(arg);
		_exit(trawl_fdmsg_send(p[1], &iov, 1, -1) ? 1 : 0);
	}
	close(p[1]);
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

	if (j->over || !j->pid)
		return;
	j->done = NULL; /* (the caller goes on itself) */
	job_over(j, -ETIMEDOUT);
	j->done = done;
}

const char *sd_owner_strerror(int ret)
{
	static char buf[160];

	if (ret != -ETIMEDOUT)
		return trawl_fs_strerror(ret);
	trawl_msg_fmt(buf, sizeof(buf),
		      "no answer as its owner within owner-ms (%u ms): its file system, or the "
		      "owner, holds it",
		      sd_limits.owner_ms);
	return buf;
}
