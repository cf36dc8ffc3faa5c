/* SPDX-License-Identifier: MIT */
#include "common/fdmsg.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

union fdmsg_ctl {
	struct cmsghdr h;
	char buf[CMSG_SPACE(sizeof(int))];
};

int trawl_fdmsg_send(int sock, const struct iovec *iov, int iovcnt, int fd)
{
	struct msghdr m = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt};
	union fdmsg_ctl c;
	ssize_t n;

	if (fd >= 0) {
		memset(&c, 0, sizeof(c));
		m.msg_control = c.buf;
		m.msg_controllen = sizeof(c.buf);
		c.h.cmsg_level = SOL_SOCKET;
		c.h.cmsg_type = SCM_RIGHTS;
		c.h.cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(&c.h), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &m, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}

/* Takes the fds @m carried: the first into *@fd; 1 if there was more (closed). */
static int fds_take(struct msghdr *m, int *fd)
{
	struct cmsghdr *h;
	int extra = 0;

	for (h = CMSG_FIRSTHDR(m); h; h = CMSG_NXTHDR(m, h)) {
		size_t i, k;

		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			int got;

			memcpy(&got, CMSG_DATA(h) + i * sizeof(int), sizeof(int));
			if (*fd < 0) {
				*fd = got;
			} else {
				close(got);
				extra = 1;
			}
		}
	}
	return extra;
}

ssize_t trawl_fdmsg_recv(int sock, struct iovec *iov, int iovcnt, int timeout_ms, int *fd)
{
	struct pollfd p = {.fd = sock, .events = POLLIN};
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)iovcnt};
	union fdmsg_ctl c;
	ssize_t n;
	int r;

	*fd = -1;
	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return -ETIMEDOUT;
	if (r < 0)
		return -errno;
	m.msg_control = c.buf;
	m.msg_controllen = sizeof(c.buf);
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (fds_take(&m, fd) || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EPROTO;
	}
	return n;
}
