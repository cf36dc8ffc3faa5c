/* SPDX-License-Identifier: MIT */
/*
 * fdmsg.c - one sendmsg()/recvmsg() pair with SCM_RIGHTS for every part
 * (fdmsg.h); the two framings differ only in what follows the first
 * recvmsg().
 */
#include "common/fdmsg.h"
#include "common/io.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

union fdmsg_ctl {
	struct cmsghdr h;
	char buf[CMSG_SPACE(TRAWL_FDMSG_MAX_FDS * sizeof(int))];
};

ssize_t trawl_fdmsg_sendmsg(int sock, const struct iovec *iov, int iovcnt, const int *fds, uint32_t nr,
			    int flags)
{
	struct msghdr m = {.msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt};
	union fdmsg_ctl c;
	ssize_t n;

	if (nr > TRAWL_FDMSG_MAX_FDS)
		return -EINVAL;
	if (nr) {
		memset(&c, 0, sizeof(c));
		m.msg_control = c.buf;
		m.msg_controllen = CMSG_SPACE(nr * sizeof(int));
		c.h.cmsg_level = SOL_SOCKET;
		c.h.cmsg_type = SCM_RIGHTS;
		c.h.cmsg_len = CMSG_LEN(nr * sizeof(int));
		memcpy(CMSG_DATA(&c.h), fds, nr * sizeof(int));
	}
	do
		n = sendmsg(sock, &m, flags | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

/*
 * Takes the fds @m carried into @fds (room for @max), *@nr of them.
 * Returns 0, or -EPROTO when there were more or the kernel cut them
 * (MSG_CTRUNC): then all are closed and *@nr is 0.
 */
static int fds_take(struct msghdr *m, int *fds, uint32_t max, uint32_t *nr)
{
	struct cmsghdr *h;
	uint32_t got = 0, i;
	int bad = !!(m->msg_flags & MSG_CTRUNC);

	for (h = CMSG_FIRSTHDR(m); h; h = CMSG_NXTHDR(m, h)) {
		size_t j, k;

		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		k = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (j = 0; j < k; j++) {
			int fd;

			memcpy(&fd, CMSG_DATA(h) + j * sizeof(int), sizeof(int));
			if (got < max) {
				fds[got++] = fd;
			} else {
				close(fd);
				bad = 1;
			}
		}
	}
	if (bad) {
		for (i = 0; i < got; i++)
			close(fds[i]);
		got = 0;
	}
	*nr = got;
	return bad ? -EPROTO : 0;
}

/* One recvmsg() with room for @max fds. Bytes read, or a negative errno. */
static ssize_t fds_recvmsg(int sock, struct iovec *iov, int iovcnt, int *fds, uint32_t max, uint32_t *nr,
			   int *bad)
{
	struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)iovcnt};
	union fdmsg_ctl c;
	ssize_t n;

	*nr = 0;
	m.msg_control = c.buf;
	m.msg_controllen = sizeof(c.buf);
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	*bad = fds_take(&m, fds, max, nr) < 0 || (m.msg_flags & MSG_TRUNC);
	return n;
}

int trawl_fdmsg_send(int sock, const struct iovec *iov, int iovcnt, int fd)
{
	ssize_t n = trawl_fdmsg_sendmsg(sock, iov, iovcnt, &fd, fd >= 0, 0);

	return n < 0 ? (int)n : 0;
}

ssize_t trawl_fdmsg_recv(int sock, struct iovec *iov, int iovcnt, int timeout_ms, int *fd)
{
	uint32_t nr;
	ssize_t n;
	int r, bad;

	*fd = -1;
	r = trawl_io_wait(sock, POLLIN, timeout_ms);
	if (r < 0)
		return r;
	n = fds_recvmsg(sock, iov, iovcnt, fd, 1, &nr, &bad);
	if (n < 0)
		return n;
	if (bad) {
		if (nr)
			close(*fd);
		*fd = -1;
		return -EPROTO;
	}
	if (!nr)
		*fd = -1;
	return n;
}

ssize_t trawl_fdmsg_send_fds(int sock, const void *data, size_t len, const int *fds, uint32_t nr_fds)
{
	struct iovec v = {(void *)data, len};
	ssize_t n;
	int ret;

	if (!len || nr_fds > TRAWL_FDMSG_MAX_FDS)
		return -EINVAL;
	n = trawl_fdmsg_sendmsg(sock, &v, 1, fds, nr_fds, 0);
	if (n < 0)
		return n;
	/* The fds went with the first byte; the rest goes plainly. */
	if ((size_t)n < len) {
		ret = trawl_io_send_all(sock, (const char *)data + n, len - (size_t)n);
		if (ret)
			return ret;
	}
	return (ssize_t)len;
}

ssize_t trawl_fdmsg_recv_fds(int sock, void *data, size_t len, int *fds, uint32_t max_fds,
			     uint32_t *nr_fds, int timeout_ms)
{
	struct iovec v = {data, len};
	uint32_t i;
	ssize_t n;
	int ret, bad;

	*nr_fds = 0;
	if (max_fds > TRAWL_FDMSG_MAX_FDS)
		max_fds = TRAWL_FDMSG_MAX_FDS;
	n = fds_recvmsg(sock, &v, 1, fds, max_fds, nr_fds, &bad);
	if (n <= 0)
		return n;
	if ((size_t)n < len) {
		ret = trawl_io_recv_all(sock, (char *)data + n, len - (size_t)n, timeout_ms);
		if (ret) {
			for (i = 0; i < *nr_fds; i++)
				close(fds[i]);
			*nr_fds = 0;
			return ret;
		}
	}
	return bad ? -EPROTO : (ssize_t)len;
}
