/* SPDX-License-Identifier: MIT */
/*
 * A kernel session's consumer process: started with the session's
 * channels on its command line, spoken to on a socketpair (the protocol:
 * the top of session-internal.h), reaped within a bounded wait.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"
#include "kernel/session-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* The u64 after a 'K' or 'W': the consumer's own losses so far (see the top). */
static int read_lost(struct trawl_kernel_session *s)
{
	uint64_t lost;

	/* written with the letter in one write(): already here */
	if (recv(s->ctl_fd, &lost, sizeof(lost), MSG_DONTWAIT | MSG_WAITALL) != sizeof(lost))
		return -EPROTO;
	s->consumer_lost = lost;
	return 0;
}

/* Waits for one byte from the consumer; 0 if it is @want. */
int ksession_consumer_wait(struct trawl_kernel_session *s, char want, int ms)
{
	struct pollfd p = { .fd = s->ctl_fd, .events = POLLIN };
	char c;
	int ret;

	ret = poll(&p, 1, ms);
	if (ret == 0)
		return -ETIMEDOUT;
	if (ret < 0)
		return -errno;
	if (read(s->ctl_fd, &c, 1) != 1)
		return -EPIPE;
	if (c != want)
		return -EPROTO;
	return want == 'K' ? read_lost(s) : 0;
}

/*
 * A flush's answer: 'K', or 'W' and one line (kept in s->problem: packets
 * lost to a full disk or a gone relayd), then -EIO.
 */
int ksession_consumer_wait_flushed(struct trawl_kernel_session *s)
{
	struct pollfd p = { .fd = s->ctl_fd, .events = POLLIN };
	size_t n = 0;
	char c;
	int ret;

	ret = poll(&p, 1, CONSUMER_TIMEOUT_MS);
	if (ret <= 0)
		return ret == 0 ? -ETIMEDOUT : -errno;
	if (read(s->ctl_fd, &c, 1) != 1)
		return -EPIPE;
	if (c != 'K' && c != 'W')
		return -EPROTO;
	ret = read_lost(s);
	if (ret < 0 || c == 'K')
		return ret;
	/* the line follows at once: the consumer wrote it in one write() */
	while (read(s->ctl_fd, &c, 1) == 1 && c != '\n')
		if (n + 1 < sizeof(s->problem))
			s->problem[n++] = c;
	s->problem[n] = '\0';
	return -EIO;
}

/*
 * Reads the consumer's 'R' (@failed 0: its socket is readable), or says
 * why none came; a consumer that could not open its buffers sends 'E' and
 * one line saying why instead, which goes into @err.
 */
int ksession_consumer_ready_read(struct trawl_kernel_session *s, int failed, const char *consumer,
				 char *err, size_t errlen)
{
	char line[TRAWL_KERNEL_ERR_LEN + 2];
	size_t n = 0;
	int ret = failed;

	if (!ret && read(s->ctl_fd, line, 1) == 1) {
		if (line[0] == 'R')
			return 0;
		if (line[0] == 'E') {
			while (n + 1 < sizeof(line) && read(s->ctl_fd, line + n, 1) == 1 && line[n] != '\n')
				n++;
			line[n] = '\0';
			trawl_msg_fmt(err, errlen, "%s", line);
			return -EIO;
		}
		ret = -EPROTO;
	} else if (!ret) {
		ret = -EPIPE;
	}
	trawl_msg_fmt(err, errlen, "the kernel consumer (%s) did not start: %s", consumer,
		      strerror(-ret));
	return ret;
}

int ksession_consumer_spawn(struct trawl_kernel_session *s, const char *consumer,
			    const char *output, int once)
{
	char *argv[14 + 11 * SESSION_MAX_CHANNELS + 2 * TRAWL_KERNEL_TRACKER_ATTRS];
	char uid[32], gid[32];
	int sv[2], spec[2] = {-1, -1}, a = 0, i;
	size_t len = strlen(output);
	pid_t pid;

	/*
	 * A relay destination holds the session's token, which lets a peer of
	 * trawl-relayd take up the session's files (relayd/session.c): it goes
	 * through a pipe (fd 4), not the command line every local user can read.
	 * It fits the pipe (PATH_MAX < 64 KiB), so the write cannot block.
	 */
	if (!strncmp(output, "relay:", 6)) {
		if (pipe2(spec, O_CLOEXEC) < 0)
			return -errno;
		if (write(spec[1], output, len) != (ssize_t)len) {
			close(spec[0]);
			close(spec[1]);
			return -EIO;
		}
		close(spec[1]);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		if (spec[0] >= 0)
			close(spec[0]);
		return -errno;
	}
	snprintf(uid, sizeof(uid), "%u", (unsigned)s->uid);
	snprintf(gid, sizeof(gid), "%u", (unsigned)s->gid);
	argv[a++] = (char *)consumer;
	argv[a++] = "--kernel";
	argv[a++] = "--ctl-fd=3";
	argv[a++] = spec[0] >= 0 ? "--output-fd" : "--output";
	argv[a++] = spec[0] >= 0 ? "4" : (char *)output;
	/* the trace's owner, who creates its files (consumerd/opener.h) */
	argv[a++] = "--uid";
	argv[a++] = uid;
	argv[a++] = "--gid";
	argv[a++] = gid;
	if (once)
		argv[a++] = "--once";
	for (i = 0; i < TRAWL_KERNEL_TRACKER_ATTRS; i++) {
		if (s->tracker[i]) {
			argv[a++] = "--tracker";
			argv[a++] = s->tracker[i];
		}
	}
	for (i = 0; i < s->nch; i++) {
		argv[a++] = "--channel";
		argv[a++] = s->ch[i].name;
		argv[a++] = "--instance";
		argv[a++] = s->ch[i].inst->name;
		if (s->ch[i].ctx[0]) {
			argv[a++] = "--context";
			argv[a++] = s->ch[i].ctx;
		}
		if (s->ch[i].inst->statedump && !once)
			argv[a++] = "--statedump";
		if (s->ch[i].tf_size[0] && !once) {
			argv[a++] = "--tracefile-size";
			argv[a++] = s->ch[i].tf_size;
			argv[a++] = "--tracefile-count";
			argv[a++] = s->ch[i].tf_count;
		}
	}
	argv[a] = NULL;
	pid = fork();
	if (pid < 0) {
		i = -errno;
		close(sv[0]);
		close(sv[1]);
		if (spec[0] >= 0)
			close(spec[0]);
		return i;
	}
	if (pid == 0) {
		/* Copies above 4 first: dup2() onto the fd itself keeps its
		 * close-on-exec, and fd 3 may be the pipe's read end. */
		int ctl = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
		int in = spec[0] >= 0 ? fcntl(spec[0], F_DUPFD_CLOEXEC, 10) : -1;

		if (ctl < 0 || dup2(ctl, 3) < 0 || (spec[0] >= 0 && (in < 0 || dup2(in, 4) < 0)))
			_exit(127);
		execv(consumer, argv);
		_exit(127);
	}
	close(sv[1]);
	if (spec[0] >= 0)
		close(spec[0]);
	s->consumer = pid;
	s->ctl_fd = sv[0];
	return 0;
}

/* A consumer that said it is done (or was killed) is gone within this (ms). */
#define CONSUMER_REAP_MS 2000

/* 1 once @pid is reaped (*@ru its usage), 0 if it is still there after
 * @ms, -1 if it is not ours to reap. */
static int reap_within(pid_t pid, struct rusage *ru, int ms)
{
	int status, i;

	for (i = 0; i <= ms / 10; i++) {
		pid_t r = wait4(pid, &status, WNOHANG, ru);

		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			return -1;
		usleep(10000);
	}
	return 0;
}

/*
 * Reaps the consumer: it exits once it said it is done (its socket
 * closed), or once killed (@kill_it). The caller's thread is the root
 * daemon's only one: the wait is bounded (CONSUMER_REAP_MS), past which
 * the consumer is killed; one that SIGKILL does not end at once (a wait of
 * the kernel's not yet over) is left, not waited for: a zombie until the
 * daemon exits, rather than every user's commands held meanwhile.
 */
void ksession_consumer_reap(struct trawl_kernel_session *s, int kill_it)
{
	struct rusage ru;
	int r;

	if (!s->consumer)
		return;
	if (kill_it)
		kill(s->consumer, SIGKILL);
	r = reap_within(s->consumer, &ru, CONSUMER_REAP_MS);
	if (r == 0 && !kill_it) {
		kill(s->consumer, SIGKILL);
		r = reap_within(s->consumer, &ru, CONSUMER_REAP_MS);
	}
	if (r == 1)
		s->consumer_cpu_ns += (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
				      (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
	s->consumer = 0;
	s->reaped_lost += s->consumer_lost;
	s->consumer_lost = 0;
	if (s->ctl_fd >= 0)
		close(s->ctl_fd);
	s->ctl_fd = -1;
}

/* Waits for @fd (the consumer's socket) to be readable, at most the consumer's timeout. */
int ksession_ctl_wait(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ret = poll(&p, 1, CONSUMER_TIMEOUT_MS);

	return ret > 0 ? 0 : ret == 0 ? -ETIMEDOUT : -errno;
}

int trawl_kernel_session_consumer_timeout_ms(void)
{
	return CONSUMER_TIMEOUT_MS;
}

int trawl_kernel_session_consumer_alive(struct trawl_kernel_session *s)
{
	int status;

	if (!s->consumer)
		return 1;
	return waitpid(s->consumer, &status, WNOHANG) == 0;
}
