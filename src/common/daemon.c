/* SPDX-License-Identifier: MIT */
/* daemon.c - the background with a ready pipe (daemon.h). */
#define _GNU_SOURCE
#include "common/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int trawl_daemon_start(int *ready_fd)
{
	int p[2];
	pid_t pid;
	char c = 1;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int err = errno;

		close(p[0]);
		close(p[1]);
		return -err;
	}
	if (pid > 0) {
		/* EOF, the daemon gone without a word, is a failure */
		close(p[1]);
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(c ? 1 : 0);
	}
	close(p[0]);
	setsid();
	/* Fork again so the daemon is not a session leader and is reparented. */
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid > 0)
		_exit(0); /* the first parent still waits on the pipe */
	*ready_fd = p[1];
	return 0;
}

int trawl_daemon_ready(int *ready_fd, int ok)
{
	char c = ok ? 0 : 1;
	ssize_t n;
	int ret = 0;

	if (*ready_fd < 0)
		return 0;
	do
		n = write(*ready_fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		ret = n < 0 ? -errno : -EIO;
	close(*ready_fd);
	*ready_fd = -1;
	return ret;
}
