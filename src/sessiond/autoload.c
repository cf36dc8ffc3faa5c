/* SPDX-License-Identifier: MIT */
/*
 * autoload.c - the sessions a daemon makes when it starts: those of
 * --load PATH, else of LTTng's autoload folders (config.h).
 *
 * A child process loads them as a client of this daemon, through its
 * socket, with the commands' own requests: the daemon checks each as it
 * checks any client's, and the child, being the daemon's user, reads only
 * what that user may read (root's daemon reads root's folders and the
 * path root gave it). The daemon's loop is running meanwhile (the child's
 * requests need it); it tells the process that started it that it is
 * ready only once the child is done, so the first command a user runs
 * after starting a daemon sees the loaded sessions.
 */
#include "common/common.h"
#include "common/daemon.h"
#include "config/config.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static struct {
	pid_t pid;
	int *ready_fd; /* main()'s, told once the child is done */
	size_t len;
	char line[TRAWL_CTL_PATH_MAX + 256]; /* the child's error line */
} al = {.pid = -1};

static void child(const char *path, int fd)
{
	struct trawl_ctl *ctl;
	char err[sizeof(al.line)];
	int ret;

	/* The daemon's signal mask is inherited: a child that must die can. */
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	ret = trawl_ctl_connect(&ctl, TRAWL_CTL_CONNECT_NO_SPAWN | TRAWL_CTL_CONNECT_USER);
	if (ret) {
		dprintf(fd, "cannot connect to the daemon: %s", strerror(-ret));
		_exit(1);
	}
	ret = trawl_config_autoload(ctl, path, err, sizeof(err));
	trawl_ctl_disconnect(ctl);
	if (ret)
		dprintf(fd, "%s", err[0] ? err : strerror(-ret));
	_exit(ret ? 1 : 0);
}

static void child_done(int fd, short revents, void *arg)
{
	ssize_t n = read(fd, al.line + al.len, sizeof(al.line) - 1 - al.len);
	int status = 0;

	(void)revents;
	(void)arg;
	if (n > 0) {
		al.len += (size_t)n;
		if (al.len < sizeof(al.line) - 1)
			return;
	} else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		return;
	}
	/* EOF (or a full line): the child has exited or is exiting. */
	sd_watch_del(fd);
	close(fd);
	al.line[al.len] = '\0';
	while (waitpid(al.pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		sd_log("sessions loaded");
	else
		sd_warn("loading sessions failed: %s", al.line[0] ? al.line : "the loader died");
	al.pid = -1;
	trawl_daemon_ready(al.ready_fd, 1);
}

int sd_autoload_start(const char *path, int *ready_fd)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	al.pid = fork();
	if (al.pid < 0) {
		int ret = -errno;

		close(p[0]);
		close(p[1]);
		return ret;
	}
	if (al.pid == 0) {
		close(p[0]);
		child(path, p[1]);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	al.ready_fd = ready_fd;
	if (sd_watch_add(p[0], child_done, NULL)) {
		close(p[0]);
		return -ENOMEM; /* the child loads on; the daemon says it is ready now */
	}
	return 0;
}
