/* SPDX-License-Identifier: MIT */
/*
 * daemon.h - going to the background with a ready pipe, for the daemons
 * (trawl-sessiond, trawl-relayd) started from a shell or by libtrawl-ctl.
 *
 * The process that asked for --daemonize must not exit before the daemon
 * can serve: a caller that connects as soon as it returns would find no
 * socket, and one whose daemon failed would not learn it. So the first
 * process waits on a pipe for one byte from the daemon (its grandchild:
 * forked twice around setsid(), so that it is no session leader and is
 * reparented) and exits with it: 0 once the daemon said it is ready, 1 when
 * it said it failed or died first. (trawl-consumerd is no daemon: its
 * spawner waits for its 'R' on the control fd instead.)
 */
#ifndef TRAWL_COMMON_DAEMON_H
#define TRAWL_COMMON_DAEMON_H

/**
 * trawl_daemon_start - fork into the background, keeping the caller waiting
 * @ready_fd: receives the pipe's write end, for trawl_daemon_ready()
 *
 * Returns 0 in the daemon, or a negative errno in the calling process when
 * the pipe or the first fork failed (nothing forked then). The calling
 * process otherwise never returns (see above). Only the daemon's
 * standard fds are kept as they were: redirect them as the daemon needs.
 */
int trawl_daemon_start(int *ready_fd);

/*
 * trawl_daemon_ready - tells the waiting process the daemon is ready (@ok
 * 1: it exits 0) or failed (@ok 0: it exits 1), once: closes *@ready_fd and
 * sets it to -1. A no-op when *@ready_fd is -1 (not daemonized, or told
 * already). 0, or a negative errno when the byte could not be written.
 */
int trawl_daemon_ready(int *ready_fd, int ok);

#endif /* TRAWL_COMMON_DAEMON_H */
