/* SPDX-License-Identifier: MIT */
/*
 * fdmsg.h - messages carrying fds (SCM_RIGHTS) over a Unix socket: the one
 * implementation every part uses. Two framings:
 *
 *  - SOCK_SEQPACKET, one message and at most one fd (trawl_fdmsg_send(),
 *    trawl_fdmsg_recv()): how a root process and the child it runs as a user
 *    (as-user.c, consumerd/opener.c) hand back a file the child opened. A
 *    seqpacket message arrives whole or not at all: a longer one is refused.
 *  - SOCK_STREAM, a fixed-size message and up to TRAWL_FDMSG_MAX_FDS fds
 *    (trawl_fdmsg_send_fds(), trawl_fdmsg_recv_fds()): the app ABI's CHANNEL
 *    command (daemon -> app: src/ustctl, src/ust) and the session daemon's
 *    commands to the user-space consumer. The fds travel with the first
 *    byte; the rest of the message is read after it.
 *
 * The receiving side treats the peer as hostile: fds beyond what it asked
 * for, or cut by the kernel (MSG_CTRUNC: the receiver's fd table is full),
 * make the whole message fail with every fd it carried closed, never a
 * message with some of its fds missing.
 */
#ifndef TRAWL_COMMON_FDMSG_H
#define TRAWL_COMMON_FDMSG_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Most fds in one message (the kernel's SCM_MAX_FD is 253). */
#define TRAWL_FDMSG_MAX_FDS 253

/*
 * One sendmsg() of @iov with the @nr fds @fds (at most TRAWL_FDMSG_MAX_FDS;
 * the caller keeps its own) and @flags (MSG_DONTWAIT...; MSG_NOSIGNAL is
 * always added): for a sender that queues and resumes itself (ustctl's
 * non-blocking app output). Returns the bytes sent (the fds went with the
 * first), or a negative errno (-EAGAIN included).
 */
ssize_t trawl_fdmsg_sendmsg(int sock, const struct iovec *iov, int iovcnt, const int *fds, uint32_t nr,
			    int flags);

/* Sends @iov (and @fd when >= 0) as one message. 0, or a negative errno. */
int trawl_fdmsg_send(int sock, const struct iovec *iov, int iovcnt, int fd);

/*
 * Waits up to @timeout_ms for one message into @iov. Returns its length
 * (0: the peer closed), -ETIMEDOUT, a negative errno, or -EPROTO when it
 * was longer than @iov or carried more than one fd (all of them closed).
 * *@fd gets the fd it carried (the caller's to close), or -1.
 */
ssize_t trawl_fdmsg_recv(int sock, struct iovec *iov, int iovcnt, int timeout_ms, int *fd);

/*
 * Stream sockets: sends the @len bytes of @data (> 0), with the @nr_fds fds
 * @fds (at most TRAWL_FDMSG_MAX_FDS; the caller keeps its own) on the first
 * byte. Returns @len, or a negative errno (-EINVAL for no byte or too many
 * fds). Never raises SIGPIPE (-EPIPE instead).
 */
ssize_t trawl_fdmsg_send_fds(int sock, const void *data, size_t len, const int *fds, uint32_t nr_fds);

/*
 * Stream sockets: receives exactly @len bytes into @data and the fds sent
 * with them, up to @max_fds into @fds (the caller's to close); *@nr_fds says
 * how many. Waits up to @timeout_ms for each part after the first byte
 * (the first recvmsg() blocks as the socket does). Returns @len, 0 when the
 * peer closed before the first byte, -ETIMEDOUT or -ECONNRESET for a
 * message cut short, a negative errno, or -EPROTO when more than @max_fds
 * fds came or the kernel cut them (all closed, *@nr_fds 0): then the whole
 * message was still read, so the stream stays in step and the caller may
 * answer it.
 */
ssize_t trawl_fdmsg_recv_fds(int sock, void *data, size_t len, int *fds, uint32_t max_fds,
			     uint32_t *nr_fds, int timeout_ms);

#endif /* TRAWL_COMMON_FDMSG_H */
