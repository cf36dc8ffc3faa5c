/* SPDX-License-Identifier: MIT */
/*
 * output-internal.h - what output.c, output-stream.c, output-relay.c and
 * output-loss.c share: the output's and its streams' state, and the loss
 * bookkeeping's entry points. Not for the consumers (they use output.h).
 */
#ifndef TRAWL_CONSUMERD_OUTPUT_INTERNAL_H
#define TRAWL_CONSUMERD_OUTPUT_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "consumerd/output.h"
#include "ctf/layout.h"
#include "relayd/proto.h"
#include "relayd/url.h"

#define TRAWL_OUTPUT_PING_BYTES (256u << 10)
/*
 * relay: packets sent and not yet confirmed are kept (to send again after a
 * reconnection) up to this many bytes; past it, the consumer waits for
 * relayd's confirmations (TRAWL_OUTPUT_SEND_TIMEOUT_MS at most).
 */
#define TRAWL_OUTPUT_KEEP_BYTES (4u << 20)
/* relay: reconnection attempts, backing off from the first to the last */
#define TRAWL_OUTPUT_RETRY_FIRST_MS 50
#define TRAWL_OUTPUT_RETRY_MAX_MS 2000
#define TRAWL_OUTPUT_RECONNECT_TIMEOUT_MS 1000
#define TRAWL_OUTPUT_SYNC_RETRY_MS 2000 /* a sync (a stop) waits for relayd to come back */
/*
 * Room a local trace holds back per stream for its seal: one empty packet
 * and index entry, which in the worst case take a new block in each of the
 * two files (4 KiB pages on tmpfs, 4 KiB blocks on ext4).
 */
#define TRAWL_OUTPUT_RESERVE_BYTES (8u << 10)

struct ofile {
	int fd; /* local: the file; relay: 0 when open; -1: free slot */
	char *rel; /* owned: the path in the trace folder */
	uint64_t size; /* local: bytes the file holds (a failed append is cut back to it) */
	/* relay: what a reconnection needs to take the file up again (output-relay.c) */
	uint32_t kind;    /* enum trawl_output_kind */
	uint64_t sent;    /* bytes sent to it */
	uint64_t acked;   /* bytes relayd confirmed writing: a RESUME keeps these */
	char *copy;       /* owned: METADATA: its whole text; else what was appended
			   * outside packets (the index header) */
	size_t copy_len, copy_cap;
	uint32_t pending; /* kept packets (struct unacked) writing to it */
	int closed;       /* closed, held until its pending packets are confirmed */
};

/* relay: a packet sent and not yet confirmed written by relayd, kept to send again */
struct unacked {
	uint64_t end;    /* sent data bytes (over all connections) once it was sent */
	int64_t events;  /* -1: unknown */
	struct trawl_output_stream *st; /* NULL once closed */
	uint32_t data_h, index_h;
	uint64_t data_end, index_end; /* the two files' sizes once it was sent */
	void *pkt;       /* owned: the packet as sent (header and context first) */
	size_t len;
	uint64_t carry;  /* added to its events_discarded (output.c) */
	struct trawl_ctf_index_entry e;
};

struct trawl_output {
	int relay;
	char dir[PATH_MAX]; /* local: the trace folder; relay: the path in the session folder */
	struct trawl_opener *opener; /* local: creates the files (opener.h), owned */
	char err[512];      /* local: why the last file could not be opened */
	int sock;           /* relay: owned; -1 while disconnected */
	char peer[300];     /* relay: "HOST:PORT" */
	struct trawl_relay_hello hello; /* relay: said again at each reconnection */
	struct trawl_relay_url url;
	int broken;         /* relay: 0, or the errno that ended streaming for good */
	int sealing;        /* relay: writing the seal after relayd failed (SEAL sent) */
	int down;           /* relay: 0, or the errno that cut the connection (reconnecting) */
	uint32_t interruptions; /* relay: connections lost */
	int last_down;      /* relay: the errno of the last one */
	uint64_t retry_at_ms, backoff_ms, down_at_ms; /* relay: CLOCK_MONOTONIC */
	uint64_t conn_base; /* relay: acked_bytes when this connection began */
	uint32_t live_timer_us; /* relay, live: from the destination */
	uint32_t pings;     /* relay: PINGs sent whose reply is not read */
	uint8_t reply[sizeof(struct trawl_relay_reply)]; /* relay: a reply read in part */
	size_t reply_len;
	uint64_t deadline_ms; /* relay: 0, or when every wait ends (trawl_output_deadline()) */
	int failed;         /* local: 0, or the errno of the write that ended writing */
	int relay_failed;   /* relay: relayd could not write (its errno is in broken) */
	/* What never reached the destination's disk (trawl_output_broken() says it). */
	uint64_t lost_packets, lost_bytes, lost_events;
	uint64_t lost_unknown; /* lost packets whose events are not counted (yet) */
	uint64_t lost_unconfirmed; /* relay: of the lost, sent but never confirmed (relayd may hold them) */
	/*
	 * Of the lost, those that were their stream's first: an empty packet
	 * takes the place of each (trawl_output_stream_first()), so readers
	 * count one lost packet fewer for each such stream, not its events.
	 */
	uint64_t lost_placed;
	trawl_output_count_fn count; /* NULL, or counts a kept packet's events (output.h) */
	void *count_arg;             /* not owned: count()'s */
	/* relay: data bytes sent, and confirmed written by relayd (PING replies) */
	uint64_t sent_bytes, acked_bytes, ping_at;
	uint64_t ping_ms;   /* relay: CLOCK_MONOTONIC of the last PING sent */
	struct unacked *q;  /* owned (and their pkt): packets sent, not yet confirmed, oldest first */
	size_t q_head, q_len, q_cap;
	struct ofile *files; /* owned, by handle */
	uint32_t nr_files;
	int reserve;        /* local: room held for trawl_output_seal() (".reserve.tmp"), -1: none */
	uint64_t meta_room; /* local: bytes of the reserve held for a metadata update */
	struct trawl_output_stream *streams; /* open streams (not owned), for the seal */
	char **made;        /* local, owned: every file opened (rel), for trawl_output_destroy_remove() */
	uint32_t nr_made;
};

struct trawl_output_stream {
	struct trawl_output *o;
	int data, index;   /* handles */
	uint64_t instance_id;
	uint64_t offset;   /* bytes in the stream file */
	struct trawl_output_stream *next; /* in o->streams */
	/*
	 * lost since the last packet written (or seal): their count, events,
	 * the first and last one's start; the next packet written shows the
	 * gap (its packet_seq_num) and counts their events
	 */
	uint64_t lost_packets, lost_events;
	struct trawl_ctf_packet_start lost_first, lost_head;
	/* events of all its lost packets: added to each later packet's events_discarded */
	uint64_t carry;
	/*
	 * local, split in files (trace file limits): the stream's name without
	 * the file's number (owned), the most bytes a file holds, how many are
	 * kept (0: all), the number of the file written, and the bytes of the
	 * files closed before it (offset is the current file's)
	 */
	char *base;
	uint64_t file_size;
	uint32_t file_count;
	uint64_t file_index;
	uint64_t closed_bytes;
	/*
	 * Live beacons sent as BEACONs (output-stream.c, stream_beacon()):
	 * packets written or sent (0: none yet), the ring buffer's
	 * events_discarded in the last of them, and how many of the stream's
	 * packets went as BEACONs: each later packet_seq_num is that much
	 * lower, so readers see no gap where they were
	 */
	uint64_t packets;
	uint64_t last_discarded;
	uint64_t beacons;
};

/* stream_packet() flags */
#define TRAWL_OUTPUT_PKT_FORCED 0x1  /* local: written even once writing failed */
#define TRAWL_OUTPUT_PKT_NOCARRY 0x2 /* its events_discarded is as given */

/* output.c: one reserve's worth more of disk room held back (a stream opened). */
void trawl_output_reserve_grow(struct trawl_output *o);
/* output.c: the open file of handle @h, or NULL. */
struct ofile *trawl_output_file_get(struct trawl_output *o, int h);
/* output.c: trawl_output_file_open(); @keep: an existing file opened as it
 * is (a resumed stream), else truncated. The handle or -errno. */
int trawl_output_file_open_as(struct trawl_output *o, const char *rel, enum trawl_output_kind kind,
			      int keep);
/* output.c: a local write to @f failed (@err): the trace's writing ends, logged once. */
void trawl_output_local_fail(struct trawl_output *o, const struct ofile *f, int err);
/* output.c: appends @iov to local file @f, all or nothing (cut back on failure). 0 or -errno. */
int trawl_output_local_append(struct ofile *f, const struct iovec *iov, int cnt);
/*
 * output-stream.c: writes a packet (a seal's) to a stream even once writing
 * failed (relay: after SEAL), with @flags (TRAWL_OUTPUT_PKT_*). Bytes or -errno.
 */
int64_t trawl_output_stream_packet_forced(struct trawl_output_stream *st, const void *pkt,
					  size_t len, int flags);
/* output-stream.c: a packet lost: counted for the output and for the stream's gap. */
void trawl_output_stream_lost(struct trawl_output_stream *st, const void *head, uint64_t bytes,
			      int64_t events);
/* output-loss.c: writes @st's gap now (packets lost, none written since). 0 or -errno. */
int trawl_output_stream_seal(struct trawl_output_stream *st);
/* output-loss.c: seals each of @o's streams that lost packets; counts those sealed and not. */
void trawl_output_streams_seal(struct trawl_output *o, int *sealed, int *left);
/* output-loss.c: a stream whose first packets were lost starts with an empty one. 0 or -errno. */
int trawl_output_stream_first(struct trawl_output_stream *st);

/* output-relay.c: the connection to relayd, and taking it up again when lost */
/* @reconnecting: relayd unreachable now is not a failure (trawl_output_create_reconnecting()) */
int trawl_output_relay_open(struct trawl_output *o, const char *spec, int reconnecting, char *err,
			    size_t err_len);
void trawl_output_relay_ready(struct trawl_output *o);
/* trawl_output_archive()'s ARCHIVE and its PING: 0 or -errno. */
int trawl_output_relay_archive(struct trawl_output *o, const char *to);
/* trawl_output_destroy_remove()'s REMOVE of the trace's folder and its PING: 0 or -errno. */
int trawl_output_relay_remove(struct trawl_output *o);
int trawl_output_relay_send(struct trawl_output *o, uint16_t cmd, uint32_t handle,
			    const struct iovec *iov, int cnt);
/* Sends (and keeps) a packet; @carry: what stream_packet() added to its events_discarded. */
int64_t trawl_output_relay_packet(struct trawl_output_stream *st, struct iovec *v,
				  const struct trawl_ctf_index_entry *e, uint64_t bytes,
				  int64_t events, uint64_t carry);
int trawl_output_relay_copy(struct ofile *f, const void *buf, size_t len, int replace);
void trawl_output_relay_check(struct trawl_output *o);
/*
 * Takes one reply of relayd's to a PING (@buf: its 16 bytes, hostile): the
 * packets it confirms are let go. 0, the reply's status while sealing, or
 * -errno (a write of relayd's failed, or a reply no relayd sends: broken).
 */
int trawl_output_relay_reply(struct trawl_output *o, const void *buf);
int trawl_output_relay_sync(struct trawl_output *o);
void trawl_output_relay_seal(struct trawl_output *o);
void trawl_output_relay_forget(struct trawl_output_stream *st);
void trawl_output_file_free(struct ofile *f);

/* output-loss.c */
void trawl_output_lost_add(struct trawl_output *o, uint64_t packets, uint64_t bytes,
			   int64_t events);
void trawl_output_lost_text(const struct trawl_output *o, char *buf, size_t len);

#endif /* TRAWL_CONSUMERD_OUTPUT_INTERNAL_H */
