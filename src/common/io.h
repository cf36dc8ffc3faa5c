/* SPDX-License-Identifier: MIT */
/*
 * io.h - whole reads and writes on fds that may be slow or hostile peers
 * (sockets, pipes), with a deadline per wait. trawl_write_all() (common.h)
 * is the plain loop for files.
 */
#ifndef TRAWL_COMMON_IO_H
#define TRAWL_COMMON_IO_H

#include <stddef.h>

/*
 * Waits up to @timeout_ms (-1: no limit) for @events (POLLIN, POLLOUT) on
 * @fd. 0 when ready (or the peer hung up: the next read or write says so),
 * -ETIMEDOUT, or a negative errno. EINTR is retried.
 */
int trawl_io_wait(int fd, short events, int timeout_ms);

/*
 * Sends all @len bytes on socket @fd (MSG_NOSIGNAL: a closed peer is
 * -EPIPE, never SIGPIPE, which a traced program may not expect). Blocks as
 * the socket does. 0 or a negative errno.
 */
int trawl_io_send_all(int fd, const void *buf, size_t len);

/*
 * Reads exactly @len bytes from @fd (a socket or a pipe), waiting at most
 * @timeout_ms each time nothing is there (-ETIMEDOUT). With @timeout_ms
 * -1 it reads as the fd does: blocking, or bounded by the socket's
 * SO_RCVTIMEO (-EAGAIN). 0, -ECONNRESET when the peer closed first, or a
 * negative errno.
 */
int trawl_io_recv_all(int fd, void *buf, size_t len, int timeout_ms);

#endif /* TRAWL_COMMON_IO_H */
