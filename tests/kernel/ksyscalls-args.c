/* SPDX-License-Identifier: MIT */
/*
 * `ksyscalls args`: the system calls whose arguments LTTng-modules decodes
 * (socket addresses, pollfd arrays, epoll events, fd sets, clone's flags),
 * made with known values through syscall() so that no libc wrapper turns
 * one call into another (glibc's poll() may be ppoll). Prints each value
 * the test then looks for in babeltrace2's text, as "key=value" lines.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int ksyscalls_args(void);

/* A listener on 127.0.0.1, a connect to it and the accept4 of that connection. */
static int sockets(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(9), .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	struct sockaddr_in peer;
	socklen_t len = sizeof(a), plen = sizeof(peer);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), c6, s;

	if (l < 0 || c < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) < 0)
		return -1;
	if (syscall(SYS_connect, c, &a, sizeof(a)) < 0)
		return -1;
	s = (int)syscall(SYS_accept4, l, &peer, &plen, SOCK_CLOEXEC);
	if (s < 0)
		return -1;
	printf("port=%d\npeer_port=%d\naddrlen=%d\n", ntohs(a.sin_port), ntohs(peer.sin_port), (int)plen);
	/* [::1]:9: refused, or no IPv6 here; its entry has the address either way */
	c6 = socket(AF_INET6, SOCK_STREAM, 0);
	if (c6 >= 0) {
		syscall(SYS_connect, c6, &a6, sizeof(a6));
		close(c6);
	}
	printf("v6=%d\n", c6 >= 0);
	close(s);
	close(c);
	close(l);
	return 0;
}

/* p[0] readable (a byte in it), p[1] writable, q[0] never ready. */
static int polls(void)
{
	int p[2], q[2], ep, n;
	struct pollfd fds[3];
	struct timespec ts = { 0, 0 };
	struct epoll_event ev = { .events = EPOLLIN }, out[4];
	fd_set rd, wr;
	struct timeval tv = { 0, 0 };

	if (pipe(p) < 0 || pipe(q) < 0 || write(p[1], "x", 1) != 1)
		return -1;
	fds[0] = (struct pollfd){ .fd = p[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = p[1], .events = POLLOUT };
	fds[2] = (struct pollfd){ .fd = q[0], .events = POLLIN | POLLPRI };
	printf("p0=%d\np1=%d\nq0=%d\n", p[0], p[1], q[0]);
	printf("poll_ret=%ld\n", syscall(SYS_poll, fds, 3, 0));
	printf("ppoll_ret=%ld\n", syscall(SYS_ppoll, fds, 3, &ts, NULL, 8));
	ep = epoll_create1(0);
	ev.data.u64 = 0xabcd00000000ull | (uint32_t)p[0];
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) < 0)
		return -1;
	printf("epfd=%d\nepoll_ret=%ld\n", ep, syscall(SYS_epoll_wait, ep, out, 4, 0));
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_SET(p[0], &rd);
	FD_SET(q[0], &rd);
	FD_SET(p[1], &wr);
	n = (q[0] > p[1] ? q[0] : p[1]) + 1;
	printf("select_n=%d\nselect_ret=%ld\n", n, syscall(SYS_select, n, &rd, &wr, NULL, &tv));
	close(ep);
	return 0;
}

int ksyscalls_args(void)
{
	unsigned long flags = SIGCHLD | CLONE_PARENT_SETTID;
	pid_t ptid = 0;
	long child;

	if (sockets() < 0 || polls() < 0)
		return 1;
	fflush(stdout);
	/* no new stack, no CLONE_VM: the child is a copy, as after fork() */
	child = syscall(SYS_clone, flags, 0, &ptid, NULL, 0);
	if (child == 0)
		syscall(SYS_exit_group, 0);
	if (child < 0 || waitpid((pid_t)child, NULL, 0) != child)
		return 1;
	printf("clone_flags=0x%lx\nchild=%ld\n", flags, child);
	return 0;
}
