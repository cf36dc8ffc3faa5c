/* SPDX-License-Identifier: MIT */
/*
 * relayd.h - trawl-relayd's parts, shared by its files.
 *
 *   main.c     options, listening sockets, the poll loop, daemonizing
 *   session.c  sessions (one folder each) and the streaming connections:
 *              reads messages (proto.c decodes them) and writes the files
 *   chunk.c    a trace chunk's ARCHIVE, REMOVE, CLOSE and CLEAR on a
 *              session folder (session-internal.h: what they share)
 *   proto.c    the streaming protocol's decoder (relayd/proto.h)
 *   url.c      tcp://, net:// URLs (relayd/url.h)
 *   live.c     the live viewer server (relayd/live.h), when built
 */
#ifndef TRAWL_RELAYD_H
#define TRAWL_RELAYD_H

#include <stdint.h>

struct relay_live;

/* Logging to stderr (or nowhere when daemonized): one line, no newline needed. */
void relayd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* main.c: the output folder @output, made if missing and checked; its fd or -1 (logged). */
int relayd_output_open(const char *output);

/* session.c */
struct relay_conn;

/*
 * Sets where sessions go (@output: the base folder, absolute; @output_fd: it
 * open), how they are grouped (@by_session: --group-output-by-session, see
 * proto.h's HELLO) and the live server (may be NULL).
 */
void relay_sessions_init(int output_fd, const char *output, int by_session,
			 struct relay_live *live);
/* @allowed 0: a CHUNK clear is refused (-EPERM, said by the next PING's
 * reply), as LTTng's relayd with LTTNG_RELAYD_DISALLOW_CLEAR; default 1. */
void relay_sessions_allow_clear(int allowed);
/* Takes ownership of @fd, a connected streaming peer named @peer. NULL: ENOMEM (fd closed). */
struct relay_conn *relay_conn_create(int fd, const char *peer);
/* The connection's socket, for polling. */
int relay_conn_fd(const struct relay_conn *c);
/*
 * Reads what the peer sent and acts on each whole message. Returns 0 to
 * keep the connection, or a negative errno when it is to be destroyed (the
 * peer closed, or sent a bad message: logged).
 */
int relay_conn_readable(struct relay_conn *c);
/*
 * 1 (logged) if the peer connected long ago and still named no session: the
 * caller destroys it, so idle peers cannot hold every connection slot.
 */
int relay_conn_expired(const struct relay_conn *c);
/* Closes the connection's files and socket, drops its session reference, frees. */
void relay_conn_destroy(struct relay_conn *c);

#endif /* TRAWL_RELAYD_H */
