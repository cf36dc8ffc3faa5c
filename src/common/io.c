/* SPDX-License-Identifier: MIT */
/* Whole reads and writes (io.h, and common.h's trawl_write_all()), and mkdir -p. */
#include "common/common.h"
#include "common/io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

int trawl_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int trawl_io_wait(int fd, short events, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = events};
	int r;

	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r ? 0 : -ETIMEDOUT;
}

int trawl_io_send_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int trawl_io_recv_all(int fd, void *buf, size_t len, int timeout_ms)
{
	char *p = buf;

	while (len) {
		ssize_t n;
		int r = timeout_ms < 0 ? 0 : trawl_io_wait(fd, POLLIN, timeout_ms);

		if (r < 0)
			return r;
		n = read(fd, p, len);
		if (n < 0) {
			/* After a poll, EAGAIN is a spurious wake-up; without one
			 * it is the fd's own deadline (SO_RCVTIMEO) or O_NONBLOCK. */
			if (errno == EINTR || (errno == EAGAIN && timeout_ms >= 0))
				continue;
			return -errno;
		}
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int trawl_mkdir_p(const char *path, unsigned mode)
{
	size_t i, n = strlen(path);
	char *buf = strdup(path);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, (mode_t)mode) && errno != EEXIST) {
			ret = -errno;
			break;
		}
		buf[i] = path[i];
	}
	free(buf);
	return ret;
}
