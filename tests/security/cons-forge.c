/* SPDX-License-Identifier: MIT */
/*
 * cons-forge.c - what a session's owner can make their user-space consumer
 * say to the root session daemon (security-cons-line). The consumer runs as
 * the owner, so the owner may take its socket to the daemon (pidfd_getfd(),
 * as ptrace would let them), stop it, and answer the daemon's commands
 * themselves, with any line in the reply's msg.
 *
 * usage: cons-forge PID SECONDS STATUS LINE CMD
 *   Takes fd 3 of consumer PID (its socket to the daemon), stops it
 *   (SIGSTOP), and answers each command the daemon sends with a reply of
 *   STATUS (0 or a negative errno) whose msg is LINE, until it answered
 *   one of number CMD (consumer-proto.h), at most SECONDS; then lets the
 *   consumer go on (SIGCONT). Prints each command answered, exits 0 if it
 *   answered CMD.
 */
#define _GNU_SOURCE
#include "consumerd/consumer-proto.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads @len bytes of the stream, closing any fd passed with them. 0 or -1. */
static int read_all(int fd, void *buf, size_t len, long long until)
{
	size_t got = 0;

	while (got < len) {
		char cbuf[CMSG_SPACE(sizeof(int) * 64)];
		struct iovec v = {(char *)buf + got, len - got};
		struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = cbuf,
				   .msg_controllen = sizeof(cbuf)};
		struct pollfd p = {fd, POLLIN, 0};
		struct cmsghdr *c;
		ssize_t n;

		if (now_ms() >= until || poll(&p, 1, 100) < 0)
			return -1;
		if (!(p.revents & POLLIN))
			continue;
		n = recvmsg(fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)
			return -1;
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
				size_t k, nr = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				int fds[64];

				memcpy(fds, CMSG_DATA(c), nr * sizeof(int));
				for (k = 0; k < nr; k++)
					close(fds[k]);
			}
		}
		got += (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct trawl_cons_reply r;
	struct trawl_cons_hdr h;
	long long until;
	int pidfd, fd, answered = 0, done = 0;
	unsigned cmd;
	pid_t pid;
	char *payload;

	if (argc != 6) {
		fprintf(stderr, "usage: cons-forge PID SECONDS STATUS LINE CMD\n");
		return 2;
	}
	cmd = (unsigned)atoi(argv[5]);
	pid = (pid_t)atoi(argv[1]);
	until = now_ms() + atoll(argv[2]) * 1000;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	fd = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, 3, 0);
	if (fd < 0) {
		fprintf(stderr, "cons-forge: fd 3 of %d: %s\n", (int)pid, strerror(errno));
		return 1;
	}
	if (kill(pid, SIGSTOP)) {
		fprintf(stderr, "cons-forge: stop %d: %s\n", (int)pid, strerror(errno));
		return 1;
	}
	r.magic = TRAWL_CONS_MAGIC;
	r.status = atoi(argv[3]);
	snprintf(r.msg, sizeof(r.msg), "%s", argv[4]);
	while (!done && read_all(fd, &h, sizeof(h), until) == 0) {
		if (h.magic != TRAWL_CONS_MAGIC || h.size > (64u << 20))
			break;
		payload = malloc(h.size + 1);
		if (!payload || read_all(fd, payload, h.size, until)) {
			free(payload);
			break;
		}
		free(payload);
		if (send(fd, &r, sizeof(r), MSG_NOSIGNAL) != (ssize_t)sizeof(r))
			break;
		answered++;
		done = h.cmd == cmd;
		printf("answered command %u\n", (unsigned)h.cmd);
		fflush(stdout);
	}
	kill(pid, SIGCONT);
	printf("answered %d\n", answered);
	return done ? 0 : 1;
}
