/* SPDX-License-Identifier: MIT */
/*
 * ust-consumer-internal.h - what the user-space consumer's files share: its
 * streams, channels and traces, and the guarded accesses to a stream's
 * mapping. Not for other parts (the consumer's interface is consumerd.h).
 *
 *   ust-consumer.c  the control loop, draining, timers, metadata
 *   ust-cmd.c       the daemon's commands: traces and channels added and
 *                   removed, FLUSH, and the counters each reply carries
 *   ust-snapshot.c  SNAPSHOT: the streams' current packets copied out
 *   ust-chunk.c     CLEAR and ROTATE: a trace's files end, and begin again
 *   ust-stream.c    each access to a stream's mapping with SIGBUS caught
 *                   (bus.h): a --shm-path buffer file truncated under us
 *                   abandons that stream, not the consumer
 */
#ifndef TRAWL_CONSUMERD_UST_CONSUMER_INTERNAL_H
#define TRAWL_CONSUMERD_UST_CONSUMER_INTERNAL_H

#include "consumerd/consumer-proto.h"
#include "consumerd/count.h"
#include "consumerd/output.h"
#include "ustctl/ustctl.h"

#include <stddef.h>
#include <stdint.h>

struct cstream {
	struct trawl_ustctl_stream *rb;   /* owned */
	struct trawl_output_stream *out;  /* owned: <channel>_<cpu> and its index */
	uint64_t instance_id;
	uint64_t live_produced; /* live: bytes its writers had reserved at the last cut */
	uint64_t next_seq;     /* the packet_seq_num expected next (seq_known) */
	int seq_known;         /* 0: no packet read yet (nor a resumed file's end known) */
	uint64_t lost_packets; /* gaps in packet_seq_num: overwritten before read */
	/* Its buffer may shrink (a --shm-path file, bus.h): packets are copied
	 * into bounce first. broken: it did (a SIGBUS), the stream is never
	 * read again; discarded: its count when last read, tallied: the part
	 * of it a program's tally made (ringbuffer.h, lost_tally). */
	int shrinkable, broken;
	/* A consumer started in a dead one's place could not take the
	 * stream's files back (streamed: relayd's files cannot be resumed):
	 * its packets are taken and counted lost (ctrace's untaken_*) until
	 * a rotation gives it files of its own. */
	int untaken;
	void *bounce;
	uint64_t discarded, tallied;
	uint64_t in_buffer; /* bytes its buffer held when last read (monitor sample) */
};

struct cchannel {
	struct cchannel *next;
	uint64_t key, trace_key, session;
	struct ctrace *trace; /* its trace (freed after its channels: cmd_remove_trace()) */
	struct trawl_cons_add_channel info;
	uint32_t nr;
	struct cstream *streams; /* owned, nr of them */
	uint64_t next_read_ns, next_switch_ns;
	uint64_t last_switch_ns; /* live: when the switch timer (or an early cut) last ran */
	int paused; /* flushed by a stop: no timers until START */
	int wake_fd; /* the eventfd its apps write when they close a packet while
			we sleep (ringbuffer.h, "Wake-ups"), or -1: polled */
	int woken;   /* its eventfd was written since its last read */
	uint64_t taken;        /* packets taken from its streams so far */
	uint64_t wake_mute_ns; /* its eventfd is not polled before then: it woke
				  us for nothing (an app may write it at will) */
	int beacons; /* live (its trace streams to a live relayd), discard mode:
			the switch timer cuts empty packets on quiet streams */
};

struct ctrace {
	struct ctrace *next;
	uint64_t key, session;
	char path[TRAWL_CONS_PATH_LEN]; /* a folder, or a relay destination (output.h) */
	struct trawl_output *out;       /* owned; NULL while detached: cleared or rotated while
					   stopped, its files are made again at START (trace_attach()) */
	int meta_h;                     /* the metadata file's handle in out, -1: not open */
	char *metadata; /* owned: the last text received */
	size_t metadata_len;
	void *mpk;          /* owned: the metadata file's bytes, packets (metadata_pack()) */
	size_t mpk_len;
	size_t mpk_text;    /* bytes of text they hold */
	/* lost packets this metadata could not count yet (count.h), settled
	 * before the streams they name close (trace_uncounted_settle()) */
	struct trawl_cons_uncounted uncounted;
	uint32_t broken;        /* streams abandoned on a SIGBUS (stream_broke()) */
	char broken_chan[256];  /* the first one's channel */
	int broken_others;      /* and another channel's too */
	uint32_t untaken;       /* streams not taken back (cstream's untaken) */
	char untaken_chan[256]; /* the first one's channel */
	uint64_t untaken_packets, untaken_events; /* what they lost since */
	int untaken_unknown;    /* a packet whose events could not be counted */
};

/* An operation on one stream, run by ucons_stream_guarded(). */
struct stream_op {
	struct cchannel *c;
	struct cstream *cs;
	int (*fn)(struct stream_op *op);
	void *arg;
	int flag;
};

/* ust-consumer.c: every channel and trace, newest first; the session and
 * line of the last set-up error (what a reply says when nothing else). */
extern struct cchannel *ucons_channels;
extern struct ctrace *ucons_traces;
extern uint64_t ucons_last_error_session;
extern char ucons_last_error[TRAWL_CONS_MSG_LEN];

/* ust-consumer.c: logs "<what> <name>: <strerror(err)>". */
void ucons_log(const char *what, const char *name, int err);
/* ust-consumer.c: the events of packet @pkt (@len bytes) of @t, by its
 * metadata (@arg: @t); -1 when that cannot tell. */
int64_t ucons_trace_packet_events(void *arg, const void *pkt, size_t len);
/* ust-consumer.c: writes @t's metadata (packed) as the metadata file of @o, handle *@h. */
int ucons_metadata_write(struct ctrace *t, struct trawl_output *o, int *h);
/* ust-consumer.c: @t's lost packets not counted yet: counted with its last metadata, or said. */
void ucons_trace_uncounted_settle(struct ctrace *t);
/* ust-consumer.c: writes packet @p of @t and its index entry to @out. 0 or -errno. */
int ucons_packet_write(struct ctrace *t, struct trawl_output_stream *out,
		       const struct trawl_ustctl_packet *p);
/* ust-consumer.c: packet @seq of @cs was taken (gaps before it: lost packets). */
void ucons_stream_seq_seen(struct cstream *cs, uint64_t seq);
/* ust-consumer.c: takes every ready packet of op->cs (an op for
 * ucons_stream_guarded()). 0 or a negative errno from a write. */
int ucons_op_drain(struct stream_op *op);
/* ust-consumer.c: ucons_op_drain() on @cs, guarded. */
int ucons_stream_drain(struct cchannel *c, struct cstream *cs);
/* ust-consumer.c: the trace of key @key, or NULL. */
struct ctrace *ucons_trace_find(uint64_t key);
/* ust-consumer.c: closes the last packet of every stream of @c and writes it. */
void ucons_channel_flush_final(struct cchannel *c);
/* ust-consumer.c: @t's streams not taken back and what they lost, in one
 * line, into @msg (may be NULL). */
void ucons_trace_untaken_msg(const struct ctrace *t, char *msg, size_t len);
/* ust-cmd.c: reads and runs one command of the session daemon on @sock:
 * 0, 1 to quit, or a negative errno when its message itself is bad. */
int ucons_handle_command(int sock);
/* ust-cmd.c: FLUSH (a stop) of @session (0: all): everything recorded
 * goes out; what ucons_session_failure() says. */
int ucons_cmd_flush(uint64_t session);
/* ust-cmd.c: 1 if a trace at @path writes nothing but snapshots. */
int ucons_trace_snapshot_only(const char *path);
/* ust-cmd.c: the first write or streaming failure of @session's
 * traces as a negative errno, its line in @msg (may be NULL); else 0. */
int ucons_session_failure(uint64_t session, char *msg, size_t len);
/* ust-snapshot.c: SNAPSHOT. 0 or a negative errno. */
int ucons_cmd_snapshot(const struct trawl_cons_hdr *h, const void *payload);
/* ust-chunk.c: CLEAR of @session (0: all). */
int ucons_cmd_clear(uint64_t session);
/* ust-chunk.c: ROTATE; its line in @msg. */
int ucons_cmd_rotate(const struct trawl_cons_hdr *h, const void *payload, char *msg, size_t len);
/* ust-chunk.c: @t's files made again (detached while stopped). 0 or -errno. */
int ucons_trace_attach(struct ctrace *t);

/* @fn on @cs with a SIGBUS caught (then @cs is broken for good: logged,
 * and its session's stop says so): @fn's return, or -EFAULT (broken, now
 * or before). */
int ucons_stream_guarded(struct cchannel *c, struct cstream *cs, int (*fn)(struct stream_op *),
			 void *arg, int flag);
/* @cs abandoned for good, its buffer file found shrunk (@how: "shrank
 * under the consumer ..."): logged, and its session's stop says so. */
void ucons_stream_abandon(struct cchannel *c, struct cstream *cs, const char *how);
/* Guarded trawl_ustctl_stream_flush(), _flush_live(), _resume(). */
int ucons_stream_flush(struct cchannel *c, struct cstream *cs, int final);
int ucons_stream_flush_live(struct cchannel *c, struct cstream *cs);
int ucons_stream_resume(struct cchannel *c, struct cstream *cs, uint64_t next_seq);
/* @cs's events discarded: read now, or as last read (a broken stream);
 * cs->tallied then holds the part of them a tally made. */
uint64_t ucons_stream_discarded(struct cchannel *c, struct cstream *cs);
/* Bytes @cs's writers have reserved so far (a position that only grows);
 * UINT64_MAX when the stream is broken. */
uint64_t ucons_stream_produced(struct cchannel *c, struct cstream *cs);
/* @t's abandoned streams in one line, into @msg (may be NULL). */
void ucons_trace_broken_msg(const struct ctrace *t, char *msg, size_t len);

#endif /* TRAWL_CONSUMERD_UST_CONSUMER_INTERNAL_H */
