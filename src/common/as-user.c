/* SPDX-License-Identifier: MIT */
/*
 * Doing something as another user would, from a root process.
 *
 * The root daemon must not open a path a client names with its own rights:
 * root reads every file, follows every link and opens FIFOs that never
 * answer. Checking first (stat, access) and opening after is a race the
 * client wins by swapping the path in between. So the work is done by a
 * child process that holds only the user's credentials (uid, primary gid
 * and supplementary groups, non-dumpable so the user cannot ptrace it): the
 * kernel checks every open it makes as it would the user's. The child
 * hands back an fd over SCM_RIGHTS and a small fixed-size result; the
 * caller then works on the fd it got, whose file can no longer change
 * under it (e.g. through /proc/self/fd/N). Hostile input the child parses
 * (an ELF file a user chose) is parsed without root's rights, and a child
 * that hangs (a FUSE or NFS file that never answers) is killed after a
 * timeout, so the daemon's one thread is never held for long.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "common/fdmsg.h"
#include "common/ids.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* In the child: become the user, run @fn, send its result. Never returns. */
static void child(int sock, const struct trawl_ids *ids, trawl_as_user_fn fn, void *arg,
		  void *out, size_t outlen)
{
	struct iovec iov[2];
	int32_t ret;
	int fd = -1;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* for good, and not dumpable: the user must not ptrace us */
	if (trawl_ids_assume(ids) < 0)
		_exit(126);
	ret = fn(arg, out, &fd);
	iov[0] = (struct iovec){&ret, sizeof(ret)};
	iov[1] = (struct iovec){out, outlen};
	_exit(trawl_fdmsg_send(sock, iov, 2, fd) < 0 ? 125 : 0);
}

/* Reads the child's answer into @out and *@fd. 0, or a negative errno. */
static int answer(int sock, int timeout_ms, void *out, size_t outlen, int *fd, int32_t *ret)
{
	struct iovec iov[2] = { { ret, sizeof(*ret) }, { out, outlen } };
	ssize_t n = trawl_fdmsg_recv(sock, iov, 2, timeout_ms, fd);

	if (n < 0 && n != -EPROTO)
		return (int)n;
	if ((size_t)n != sizeof(*ret) + outlen) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EIO;
	}
	return 0;
}

int trawl_as_user(uid_t uid, gid_t gid, trawl_as_user_fn fn, void *arg, void *out, size_t outlen,
		  int *fd, int timeout_ms)
{
	struct trawl_ids *ids;
	int sv[2], ret, status;
	int32_t fret = -EIO;
	pid_t pid;

	*fd = -1;
	if (uid == geteuid() && gid == getegid())
		return fn(arg, out, fd);
	ids = malloc(sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	trawl_ids_lookup(uid, gid, ids);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		ret = -errno;
		free(ids);
		return ret;
	}
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		child(sv[1], ids, fn, arg, out, outlen);
	}
	free(ids);
	close(sv[1]);
	if (pid < 0) {
		ret = -errno;
		close(sv[0]);
		return ret;
	}
	ret = answer(sv[0], timeout_ms, out, outlen, fd, &fret);
	close(sv[0]);
	if (ret < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ret == 0 && fret < 0 && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return ret < 0 ? ret : fret;
}
