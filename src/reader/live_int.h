/* SPDX-License-Identifier: MIT */
/*
 * A live reader's state (live.c: the merge; live_sess.c: sessions, traces
 * and streams as the relay daemon tells of them).
 *
 * Ownership: struct rd_live owns its sessions, traces and streams (arrays of
 * pointers, each item allocated alone so that the reader's pointers into
 * them, such as r->cur and each rd_stream's trace, never move). A trace
 * owns every trace class and decoder its metadata ever made: a stream goes
 * on decoding its current packet with the ones it began it with.
 */
#ifndef TRAWL_READER_LIVE_INT_H
#define TRAWL_READER_LIVE_INT_H

#include "reader/live_net.h"
#include "reader/reader_int.h"

/* An older metadata's trace class and decoder, kept for the streams' sake. */
struct lv_gen {
	struct trace_class *tc;	/* owned */
	struct rd_dec *dec;	/* owned */
	struct lv_gen *next;
};

struct lv_session {
	uint64_t id;
	bool closed;		/* GET_NEW_STREAMS said HUP */
	bool need_streams;	/* a reply flagged NEW_STREAM */
	uint32_t nstreams;	/* data streams not at their end */
};

struct lv_trace {
	struct rd_trace t;	/* t.tc and t.dec: the latest metadata's (NULL: none yet) */
	struct lv_session *sess;
	uint64_t id;		/* ctf_trace_id */
	uint64_t md_id;
	bool has_md;		/* its metadata stream was announced */
	bool md_needed;
	bool md_closed;		/* the relay daemon no longer has its metadata */
	char *md_raw;		/* owned: every metadata byte received */
	size_t md_len;
	size_t md_parsed;	/* md_raw bytes t.tc was made of */
	uint64_t parsed_total;	/* bytes parsed over all generations */
	struct lv_gen *old;	/* owned */
};

enum lv_state {
	LV_NEED_INDEX,		/* ask for its next index */
	LV_NEED_PACKET,		/* has an index (ix), needs that packet */
	LV_EVENT,		/* s holds a decoded event header */
	LV_QUIET,		/* no data up to quiet_ns (an inactivity beacon) */
	LV_EOF,
};

struct lv_stream {
	struct rd_stream s;	/* open once its first packet came */
	bool opened;
	struct lv_trace *trace;
	uint64_t id;		/* viewer stream id */
	enum lv_state state;
	struct lv_index ix;	/* LV_NEED_PACKET: the packet's index */
	uint64_t quiet_cycles, last_quiet_cycles;
	bool quiet_shown;	/* last_quiet_cycles was merged past */
	int64_t quiet_ns;
	uint8_t *pkt;		/* owned: the current packet's bytes */
	uint32_t pkt_cap;
	char name[40];		/* "stream-ID", babeltrace2's name for it */
};

struct rd_live {
	struct lv_conn c;
	struct lv_url url;
	struct lv_session **sess;
	size_t nsess;
	struct lv_trace **traces;
	size_t ntraces;
	struct lv_stream **streams;
	size_t nstreams;
	int64_t last_ns;	/* time of the last event or beacon merged past */
	bool have_last;
	int64_t off_s, off_ns;	/* clock offset for new trace classes */
	bool failed;		/* an error was returned: the end */
	unsigned int wait_ms;	/* between polls of a relay daemon with nothing new */
};

/*
 * live_sess.c. Each returns 0 or a negative errno (message in r->err).
 * lv_attach_all: finds and attaches to the URL's sessions at open time.
 * lv_update: one round of questions to the relay daemon: new streams and
 * metadata where needed, then an index (and its packet) for every stream
 * without one. *@blocked: streams that had nothing new to say.
 */
int lv_attach_all(struct trawl_reader *r);

/*
 * live.c: a live reader over @fd, connected to a relay daemon already
 * (owned from now on), following @session of @hostname, polling every
 * @wait_ms when there is nothing new (for the fuzz target: 0).
 */
int rd_live_open_fd(int fd, const char *hostname, const char *session, unsigned int wait_ms,
		    struct trawl_reader **out);
int lv_update(struct trawl_reader *r, unsigned int *blocked);

#endif /* TRAWL_READER_LIVE_INT_H */
