/* SPDX-License-Identifier: MIT */
/*
 * fdmsg.h - one message carrying at most one fd, over a SOCK_SEQPACKET
 * socket: how a root process and the child it runs as a user (as-user.c,
 * consumerd/opener.c) hand back a file the child opened. A seqpacket
 * message arrives whole or not at all, so unlike the app ABI's stream
 * framing (trawl_ustctl_send_fds) there is no tail to read after it.
 */
#ifndef TRAWL_COMMON_FDMSG_H
#define TRAWL_COMMON_FDMSG_H

#include <sys/types.h>
#include <sys/uio.h>

/* Sends @iov (and @fd when >= 0) as one message. 0, or a negative errno. */
int trawl_fdmsg_send(int sock, const struct iovec *iov, int iovcnt, int fd);

/*
 * Waits up to @timeout_ms for one message into @iov. Returns its length
 * (0: the peer closed), -ETIMEDOUT, a negative errno, or -EPROTO when it
 * was longer than @iov or carried more than one fd (all of them closed).
 * *@fd gets the fd it carried, or -1.
 */
ssize_t trawl_fdmsg_recv(int sock, struct iovec *iov, int iovcnt, int timeout_ms, int *fd);

#endif /* TRAWL_COMMON_FDMSG_H */
