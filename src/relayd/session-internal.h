/* SPDX-License-Identifier: MIT */
/*
 * session-internal.h - relayd's sessions and connections as session.c
 * (messages, files, sessions) and chunk.c (a trace chunk's ARCHIVE,
 * REMOVE, CLOSE and CLEAR) share them; see session.c's top comment.
 */
#ifndef TRAWL_RELAYD_SESSION_INTERNAL_H
#define TRAWL_RELAYD_SESSION_INTERNAL_H

#include "relayd/proto.h"
#include "relayd/relayd.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct rsession {
	struct rsession *next;
	uint64_t id;
	uint64_t token;
	char name[TRAWL_RELAY_NAME_LEN];
	char hostname[TRAWL_RELAY_NAME_LEN];
	char path[PATH_MAX];  /* the trace folder */
	int dir;              /* the trace folder (O_PATH), owned */
	int reserve;          /* room held back for SEALs (unlinked); -1: none; owned */
	int refs;             /* connections streaming it */
	struct relay_conn *conns; /* those connections (their s_next), not owned */
	int live;             /* registered with the live server */
};

struct rfile {
	int fd;    /* -1: handle not open */
	uint32_t kind;
	char *rel; /* owned: path in the session folder (REPLACE writes beside it) */
	uint64_t size; /* bytes written to it (a failed write is cut back to it) */
};

struct relay_conn {
	int fd; /* owned */
	int deaf; /* did not take a reply: dropped after the message at hand */
	time_t accepted; /* CLOCK_MONOTONIC seconds */
	char peer[64];
	struct rsession *s; /* a reference, after HELLO */
	struct relay_conn *s_next; /* the next connection of s */
	uint8_t *buf;       /* owned: received bytes not yet acted on */
	size_t start, len, cap;
	struct rfile *files; /* owned, by handle */
	uint32_t nr_files;
	int failed;          /* 0, or the errno of the write that ended this connection's writing */
	uint64_t data_written; /* APPEND bytes written to stream (DATA) files: PING replies say it */
	int chunk_err;         /* 0, or the -errno of the last CHUNK: the next PING says it */
};

/* session.c: folder @name below @at, opened to read (no link followed), or -errno. */
int relay_folder_open(int at, const char *name);

/*
 * chunk.c: the messages of proto.h on a trace chunk, in the session folder
 * of @c (or @s), walked without following links (common/fs.h). Each
 * returns 0 or a negative errno (the caller says it to the consumer).
 */
/* ARCHIVE: folder @m->path moves to @m->to (its parents made, nothing replaced). */
int relay_chunk_archive(struct relay_conn *c, const struct trawl_relay_msg *m);
/* REMOVE: everything below folder @m->path goes; the folder stays. */
int relay_chunk_remove(struct relay_conn *c, const struct trawl_relay_msg *m);
/* CHUNK close: what is left of chunk @m->path goes into its archive
 * @m->to, then the next chunk's folder @m->next is made. */
int relay_chunk_close(struct rsession *s, const struct trawl_relay_msg *m);
/* CHUNK clear: the chunk's per-process trace folders that no connection
 * writes in go, then its ust/pid/ and ust/ if empty. */
int relay_chunk_clear(struct rsession *s, const struct trawl_relay_msg *m);

#endif /* TRAWL_RELAYD_SESSION_INTERNAL_H */
