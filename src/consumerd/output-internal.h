/* SPDX-License-Identifier: MIT */
/*
 * output-internal.h - what output.c and output-loss.c share: the output's
 * and its streams' state, and the loss bookkeeping's entry points. Not for
 * the consumers (they use output.h).
 */
#ifndef TRAWL_CONSUMERD_OUTPUT_INTERNAL_H
#define TRAWL_CONSUMERD_OUTPUT_INTERNAL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "ctf/layout.h"

#define TRAWL_OUTPUT_PING_BYTES (256u << 10)
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
};

/* relay: a packet sent and not yet confirmed written by relayd */
struct unacked {
	uint64_t end;    /* sent data bytes once it was sent */
	int64_t events;  /* -1: unknown */
};

struct trawl_output {
	int relay;
	char dir[PATH_MAX]; /* local: the trace folder; relay: the path in the session folder */
	struct trawl_opener *opener; /* local: creates the files (opener.h), owned */
	char err[512];      /* local: why the last file could not be opened */
	int sock;           /* relay: owned */
	char peer[300];     /* relay: "HOST:PORT" */
	int broken;         /* relay: 0, or the errno that ended streaming */
	uint32_t live_timer_us; /* relay, live: from the destination */
	uint32_t pings;     /* relay: PINGs sent whose reply is not read */
	int failed;         /* local: 0, or the errno of the write that ended writing */
	int relay_failed;   /* relay: relayd could not write (its errno is in broken) */
	/* What never reached the destination's disk (trawl_output_broken() says it). */
	uint64_t lost_packets, lost_bytes, lost_events;
	uint64_t lost_unknown; /* lost packets whose events are not counted (yet) */
	/* relay: data bytes sent, and confirmed written by relayd (PING replies) */
	uint64_t sent_bytes, acked_bytes, ping_at;
	struct unacked *q;  /* owned: packets sent, not yet confirmed, oldest first */
	size_t q_head, q_len, q_cap;
	struct ofile *files; /* owned, by handle */
	uint32_t nr_files;
	int reserve;        /* local: room held for trawl_output_seal() (".reserve.tmp"), -1: none */
	struct trawl_output_stream *streams; /* open streams (not owned), for the seal */
};

struct trawl_output_stream {
	struct trawl_output *o;
	int data, index;   /* handles */
	uint64_t instance_id;
	uint64_t offset;   /* bytes in the stream file */
	struct trawl_output_stream *next; /* in o->streams */
	/* lost since the last seal: their count, events, the first and last one's start */
	uint64_t lost_packets, lost_events;
	struct trawl_ctf_packet_start lost_first, lost_head;
};

/* output.c: appends @iov to local file @f, all or nothing (cut back on failure). 0 or -errno. */
int trawl_output_local_append(struct ofile *f, const struct iovec *iov, int cnt);
/* output.c: writes a packet to a local stream even once writing failed. Bytes or -errno. */
int64_t trawl_output_stream_packet_forced(struct trawl_output_stream *st, const void *pkt,
					  size_t len);

/* output-loss.c */
void trawl_output_lost_add(struct trawl_output *o, uint64_t packets, uint64_t bytes,
			   int64_t events);
void trawl_output_acked(struct trawl_output *o, uint64_t written);
int trawl_output_unacked_push(struct trawl_output *o, int64_t events);
void trawl_output_unacked_lose(struct trawl_output *o);
void trawl_output_lost_text(const struct trawl_output *o, char *buf, size_t len);

#endif /* TRAWL_CONSUMERD_OUTPUT_INTERNAL_H */
