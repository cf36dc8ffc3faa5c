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
 * comes through a pipe the loop watches, within owner-ms, past which the
 * child is killed (it may be reaped later: a kill takes effect once the
 * file system's wait ends, which FUSE and NFS waits do at SIGKILL) and the
 * command is told in one line. The session it works for is busy meanwhile.
 */
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
#include <sys/wait.h>
#include <unistd.h>

/* Children killed or over that were not reaped yet (reaped at the next job). */
static pid_t unreaped[64];
static size_t nr_unreaped;

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
	if (nr_unreaped == TRAWL_ARRAY_SIZE(unreaped)) {
		/* (64 children held past SIGKILL: wait for the oldest) */
		waitpid(unreaped[0], NULL, 0);
		unreaped[0] = pid;
		return;
	}
	unreaped[nr_unreaped++] = pid;
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
	if (j->done)
		j->done(j, j->arg);
}

static void job_ready(int fd, short revents, void *arg)
{
	struct sd_owner_job *j = arg;
	int32_t ret;
	ssize_t n;

	(void)revents;
	n = read(fd, &ret, sizeof(ret));
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	job_over(j, n == (ssize_t)sizeof(ret) ? ret : -EIO);
}

static void job_expired(int fd, void *arg)
{
	(void)fd;
	job_over(arg, -ETIMEDOUT);
}

int sd_owner_begin(struct sd_owner_job *j, uid_t uid, gid_t gid, int (*fn)(void *), void *arg)
{
	struct trawl_ids ids;
	int p[2];
	pid_t pid;

	j->over = 0;
	j->ret = 0;
	j->pid = 0;
	j->fd = -1;
	reap_some();
	trawl_ids_lookup(uid, gid, &ids);
	if (trawl_ids_is_self(&ids) || sd.quit)
		return trawl_ids_run(&ids, fn, arg); /* (a user's daemon: its own folders) */
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		int32_t ret;

		close(p[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ret = trawl_ids_assume(&ids);
		if (!ret)
			ret = fn(arg);
		_exit(write(p[1], &ret, sizeof(ret)) == (ssize_t)sizeof(ret) ? 0 : 1);
	}
	close(p[1]);
	if (sd_watch_add(p[0], job_ready, j)) {
		/* cannot watch it: waited for here, within the bound */
		int32_t ret = -ETIMEDOUT;
		uint64_t until = sd_now_ms() + sd_limits.owner_ms;

		while (sd_now_ms() < until && read(p[0], &ret, sizeof(ret)) < 0 &&
		       (errno == EAGAIN || errno == EINTR))
			usleep(10000);
		close(p[0]);
		if (ret == -ETIMEDOUT)
			kill(pid, SIGKILL);
		reap(pid);
		return ret;
	}
	sd_watch_deadline(p[0], sd_now_ms() + sd_limits.owner_ms, job_expired);
	j->pid = pid;
	j->fd = p[0];
	return -EINPROGRESS;
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
