/* SPDX-License-Identifier: MIT */
/*
 * live-internal.h - in-memory state of the live server, shared by live.c
 * (the server: threads, admission, sessions), live-viewer.c (one viewer's
 * requests) and live-trace.c (files on disk).
 *
 * Ownership: the server (struct relay_live) owns its sessions through
 * references: the server's list holds one while the session is open, each
 * viewer attached to it holds one; the last put frees it. A session owns
 * its traces and streams (and their fds and buffers) for its whole life.
 */
#ifndef TRAWL_RELAYD_LIVE_INTERNAL_H
#define TRAWL_RELAYD_LIVE_INTERNAL_H

#include "relayd/live-proto.h"
#include "relayd/live.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

/* One trace folder: a metadata file and the streams beside it. */
struct live_trace {
	uint64_t id;           /* ctf_trace_id told to viewers */
	uint64_t md_stream_id; /* viewer stream id of its metadata */
	char *dir;             /* owned: absolute path */
	char *rel;             /* owned: path relative to the session root */
	char *md;              /* owned: the metadata file's first md_read bytes */
	uint64_t md_read;
	size_t md_cap;
	struct live_tsdl_scan scan; /* scan.usable: bytes viewers may have */
	int md_too_big;
	/* local: its clock is this boot's, a linear map of our CLOCK_MONOTONIC:
	 * at 1 GHz the same values (trawl's monotonic clock), else (the TSC of
	 * user-space traces, sessiond/ust-clock.c) value = (mono - base_ns) x
	 * freq / 1e9, from its declared offset (live_trace_to_ns()). */
	int clock_known, clock_local;
	uint64_t clock_freq; /* 0: 1 GHz, the values are CLOCK_MONOTONIC's */
	int64_t clock_base_ns;
	uint64_t found_ns; /* our CLOCK_MONOTONIC at the scan before the one that found
			      its metadata file: it was created after that */
	int kernel;        /* a kernel trace (its folder is named kernel) */
	uint64_t late_ns;  /* under the session lock: latest packet seen, ns late */
	size_t nr_streams; /* its data streams found (live_stream's of this trace) */
};

/*
 * One file of a stream, with its index: a stream is one file, or several
 * one after the other (segments) when its file is replaced while the
 * session runs (a clear removes it and the writer makes it again; a split
 * stream's count goes round) or when it is split in files
 * (--tracefile-size: <channel>_<cpu>_<n>, each file's first packet of the
 * same CTF stream). LTTng's relayd moves its viewer streams to the next
 * files the same way, their ids kept: babeltrace2 refuses a second stream
 * of one CTF stream instance in a trace. A viewer reads a stream as one:
 * its entries numbered across the segments,
 * their data offsets moved by each segment's base. A segment is whole
 * (written in full, in memory for good) before it is published (the
 * release store of the one before's next); once a later one follows, its
 * nr and size are final (set before that store). Its fds stay open until
 * the session is freed: viewers read without the session lock.
 */
struct live_seg {
	struct live_seg *next; /* atomic: the next segment, NULL while this is the last */
	int data_fd, idx_fd;   /* owned */
	dev_t dev;             /* both files' (one folder) */
	ino_t data_ino, idx_ino;
	char *name;            /* owned: its file's name */
	uint64_t first;        /* the stream's number of its first entry */
	uint64_t base;         /* the stream's data offset of its first byte */
	uint64_t nr, size;     /* once a later segment follows: its entries, its bytes */
};

/* A stream: its segments (live_seg). */
struct live_stream {
	uint64_t id; /* viewer stream id */
	struct live_trace *trace;
	char *name;       /* owned: its first file's name, <channel>_<cpu>[_<n>] */
	struct live_seg *segs; /* owned: the first; never changes */
	struct live_seg *last; /* under the session lock: the newest */
	unsigned nr_segs;      /* under the session lock */
	uint32_t entry_len;
	uint64_t found_ns; /* as live_trace's */
	/* Under the session lock: */
	int class_known;
	uint64_t class_id; /* CTF stream class id, from its index entries */
	int beacons;       /* its writer cuts empty packets when quiet (live-quiet.c) */
};

/*
 * A stream's newest beacon (relayd/proto.h's BEACON), by its index file:
 * the session's streams are found on disk by the viewers' scans, the
 * beacons come from the streaming connections, which know files only.
 */
struct live_beacon {
	dev_t dev;
	ino_t ino;
	uint64_t idx_size; /* bytes of the index file written before it */
	uint64_t ts_end;   /* the stream's clock */
};
#define LIVE_BEACONS_MAX 4096u /* per session; past it the oldest file's goes */

struct live_session {
	struct relay_live *rl;
	uint64_t id;
	char name[LIVE_NAME_MAX];
	char hostname[LIVE_HOST_NAME_MAX];
	char *root; /* owned */
	uint32_t live_timer_us;
	int closed; /* atomic: set (release) once no more data will come */
	/* Under rl->lock: */
	unsigned refs, clients;
	struct live_session *next;
	/* Under lock: */
	pthread_mutex_t lock;
	struct live_trace **traces; /* owned */
	struct live_stream **streams; /* owned */
	size_t nr_traces, nr_streams;
	uint64_t last_scan_ns; /* our CLOCK_MONOTONIC when the last scan began */
	uint64_t prev_scan_ns; /* ... and the one before (the first: itself) */
	int scanned;
	struct live_beacon *beacons; /* owned, nr_beacons (under lock) */
	size_t nr_beacons, beacons_next;
};

/* Per viewer and stream. */
struct vstream {
	int announced;
	uint64_t next;     /* next index entry to send */
	uint64_t last_end; /* timestamp_end of the last entry sent */
	uint64_t beacon;   /* last inactivity time sent */
	int waiting;       /* the last reply said: nothing new */
	uint64_t floor;    /* what the viewer may have shown when it was told of the
			      stream (announce_floor() in live-viewer.c), our CLOCK_MONOTONIC's
			      ns; 0: nothing */
};

/* Per viewer and trace. */
struct vtrace {
	int announced;
	uint64_t md_sent; /* metadata bytes sent */
};

/* A viewer's attachment to a session (it holds a reference). */
struct vattach {
	struct live_session *s;
	struct vstream *vs; /* owned, nr_vs: index = the session's stream index */
	struct vtrace *vt;  /* owned, nr_vt */
	size_t nr_vs, nr_vt;
};

#define MAX_ATTACH 16u /* sessions one viewer may attach to */

struct viewer {
	struct relay_live *rl;
	int fd;        /* owned; closed by whoever joins the thread */
	struct sockaddr_storage host; /* its address, port zeroed */
	pthread_t thread;
	int done;      /* under rl->lock: the thread has ended */
	int connected; /* CONNECT done */
	int created;   /* CREATE_SESSION done */
	struct vattach at[MAX_ATTACH];
	size_t nr_at;
	char *buf; /* owned: reply buffer */
	size_t buf_cap;
	struct viewer *next;
};

struct relay_live {
	int listen_fd; /* owned */
	int wake[2];   /* owned: pipe, wakes the acceptor */
	pthread_t acceptor;
	pthread_mutex_t lock;
	struct live_session *sessions; /* open sessions, each holds a ref */
	struct viewer *viewers;
	unsigned nr_viewers;
	uint64_t next_id;
	int stopping;
	int full_logged; /* acceptor only: "too many viewers" said once */
};

uint64_t live_next_id(struct relay_live *rl);
/* Drops a reference to @s (rl->lock not held); the last frees it. */
void live_session_put(struct relay_live *rl, struct live_session *s);
/* Copies @src into @dst, cut to fit @size bytes with its NUL. */
void live_put_str(char *dst, size_t size, const char *src);
/* A viewer's thread (live-viewer.c): answers @arg's (struct viewer's)
 * requests until it leaves, then marks it done and wakes the acceptor. */
void *live_viewer_main(void *arg);
uint64_t live_now_ns(void);
/* A value of @t's clock as our CLOCK_MONOTONIC ns and back (@t local). */
uint64_t live_trace_to_ns(const struct live_trace *t, uint64_t v);
uint64_t live_trace_from_ns(const struct live_trace *t, uint64_t ns);

/* Finds new traces and streams, and metadata growth; rate-limited unless
 * @force. Session lock held. */
void live_session_scan(struct live_session *s, int force);

/* Whole entries in @st's index file now. 0 or -errno. */
int live_stream_entries(const struct live_stream *st, uint64_t *count);

/* Reads entry @k of @st's index; as live_index_entry_decode(), its offset
 * the stream's (across its segments). */
int live_stream_entry(const struct live_stream *st, uint64_t k, struct live_index_entry *e);

/* Reads up to @len bytes of @st's data at the stream's @offset (within one
 * segment): bytes read (@buf NULL: the bytes there are to read, up to
 * @len), or -errno (-ERANGE: past what is written). */
ssize_t live_stream_read(const struct live_stream *st, uint64_t offset, void *buf, size_t len);

/* ---- quiet times (live-quiet.c); session lock held for all ---- */

/* The CTF stream class of @st, or of a stream of the same channel (0: none known). */
uint64_t live_stream_class(const struct live_session *s, const struct live_stream *st);

/* Learns how late @t's packets come, from entry @e a viewer was waiting for. */
void live_note_lateness(struct live_trace *t, const struct live_index_entry *e);

/* When the oldest recent trace still without metadata appeared (UINT64_MAX: none). */
uint64_t live_pending_since(const struct live_session *s, uint64_t now);

/*
 * The beacon of @st's newest file (relay_live_beacon()): 1 with its time in
 * @ts_end and in @entries the stream's entries written before it (a viewer
 * that had fewer must not be told it), else 0. Session lock held.
 */
int live_stream_beacon(const struct live_session *s, const struct live_stream *st,
		       uint64_t *entries, uint64_t *ts_end);

/* The time up to which stream @idx of @a's session is quiet; 0 if none yet. */
uint64_t live_quiet_time(const struct vattach *a, size_t idx);

/* Frees @s and everything it owns (its last reference is gone). */
void live_session_free(struct live_session *s);

#endif /* TRAWL_RELAYD_LIVE_INTERNAL_H */
