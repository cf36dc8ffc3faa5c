/* SPDX-License-Identifier: MIT */
/*
 * The lttng-live client's connection to a relay daemon: one TCP socket and
 * the protocol's request/reply exchanges over it, each reply checked by
 * live_wire.c before anything of it is used. Blocking I/O with a deadline
 * per reply: a relay daemon that stops answering mid-reply is an error, not
 * a hang.
 *
 * Errors are negative errno values with the message in the caller's
 * struct rd_err: -ECONNREFUSED/-EHOSTUNREACH (nothing to connect to),
 * -ECONNRESET (the relay daemon closed the connection), -ETIMEDOUT,
 * -EBADMSG/-EMSGSIZE (a reply that breaks the protocol or a limit),
 * -ENOMEM.
 */
#ifndef TRAWL_READER_LIVE_NET_H
#define TRAWL_READER_LIVE_NET_H

#include "reader/internal.h"
#include "reader/live_wire.h"

struct lv_conn {
	int fd;			/* owned; -1: closed */
	char where[300];	/* "HOST:PORT", for messages */
	struct rd_err *err;	/* borrowed: where errors are said */
	uint64_t bytes_in;	/* received, for statistics */
};

/* Connects to @u's relay daemon and speaks CONNECT and CREATE_SESSION. */
int lv_conn_open(struct lv_conn *c, const struct lv_url *u, struct rd_err *err);
/* Same over @fd, connected already (owned from now on, also on failure). */
int lv_conn_adopt(struct lv_conn *c, int fd, const char *where, struct rd_err *err);
void lv_conn_close(struct lv_conn *c);

/* LIST_SESSIONS: *@out (caller frees) holds *@n sessions. */
int lv_list(struct lv_conn *c, struct lv_session_info **out, size_t *n);

/*
 * ATTACH_SESSION (@attach) or GET_NEW_STREAMS for session @sid: the reply's
 * *@status and its streams in *@out (caller frees; NULL when none).
 */
int lv_streams(struct lv_conn *c, int attach, uint64_t sid, uint32_t *status,
	       struct lv_stream_info **out, uint32_t *n);

/* GET_NEXT_INDEX of stream @id. */
int lv_next_index(struct lv_conn *c, uint64_t id, struct lv_index *ix);

/*
 * GET_PACKET: up to @len bytes at @offset of stream @id into @buf; *@status,
 * *@flags, and *@got bytes received (OK only).
 */
int lv_get_packet(struct lv_conn *c, uint64_t id, uint64_t offset, uint32_t len, void *buf,
		  uint32_t *status, uint32_t *flags, uint32_t *got);

/*
 * GET_METADATA of metadata stream @id: the new bytes are appended to *@buf
 * (grown with realloc, at most LV_MAX_METADATA in all; *@len bytes used).
 * *@status: the reply's.
 */
int lv_get_metadata(struct lv_conn *c, uint64_t id, char **buf, size_t *len, uint32_t *status);

/* DETACH_SESSION (the reply's status is not looked at: we leave anyway). */
int lv_detach(struct lv_conn *c, uint64_t sid);

#endif /* TRAWL_READER_LIVE_NET_H */
