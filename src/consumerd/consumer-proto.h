/* SPDX-License-Identifier: MIT */
/*
 * consumer-proto.h - the session daemon's commands to a user-space
 * trawl-consumerd, over the socketpair it was started with (--ust --fd N).
 *
 * One consumer serves every session of one owner (uid); commands name the
 * session they are about in session_key (the daemon's session id; 0 for all).
 * Strictly one command, one reply, in order. Each command is a header,
 * carrying any fds (SCM_RIGHTS, sent with trawl_fdmsg_send_fds(), common/fdmsg.h), then
 * `size` bytes of payload. The consumer checks every field: it runs as the
 * session's owner and trusts its daemon, but a broken message must fail
 * cleanly rather than write anywhere.
 *
 *   ADD_TRACE    trace_key (unique in the consumer), payload: struct trawl_cons_add_trace
 *                whose path is a folder or a relay destination (consumerd/output.h),
 *                or the net://... URL of a snapshot session's relayd, or
 *                "none:" then the trace's folder (a session with no output,
 *                --no-output): then the trace has no files (only SNAPSHOT
 *                writes it)
 *                With TRAWL_CONS_F_RESUME (on ADD_TRACE and ADD_CHANNEL), the
 *                consumer takes over from one that died: the trace's files
 *                are kept and appended to, and each stream's reading carries
 *                on where the dead consumer's stopped (trawl_ustctl_stream_resume())
 *   METADATA     trace_key, payload: the complete TSDL text (replaces the file)
 *   ADD_CHANNEL  trace_key, channel_key, payload: struct trawl_cons_add_channel,
 *                fds: the channel's stream memfds, in cpu order, then with
 *                TRAWL_CONS_F_WAKE the eventfd its apps write when they close
 *                a packet while the consumer sleeps (ringbuffer.h, "Wake-ups":
 *                the consumer sleeps on it instead of polling the channel)
 *   FLUSH        final flush and drain of every stream of the session; the
 *                reply comes once everything is written
 *   SNAPSHOT     payload: struct trawl_cons_add_trace (the snapshot folder, or
 *                a relay destination: relayd's confirmation awaited):
 *                copies the session's traces' current packets there (its
 *                max_packets newest of each stream, when not 0)
 *   QUIT         the consumer drains everything and exits
 *   REMOVE_SESSION  flush the session's streams, then close and forget them
 *   STATUS       nothing to do: the reply carries the session's counters and
 *                problem line (a trace whose streaming to trawl-relayd stopped)
 *                Every reply carries them, and each channel's (reply.chans, by
 *                channel_key: the daemon's channel index + 1, 1..255)
 *   START        resume polling the session's streams (after a FLUSH, which pauses the
 *                timers of the channels it flushed: a stopped session costs
 *                no wake-ups)
 *   REMOVE_TRACE trace_key: flush the trace's streams, write everything, close
 *                and forget them (a per-process trace whose app exited); the
 *                session's counters keep what it counted
 *   CLEAR        LTTng's `clear`: what the session's ring buffers hold is
 *                discarded, and every file its traces wrote is deleted (the
 *                folders stay: the session daemon removes them); its traces
 *                get new files at the next START (the daemon sends one at
 *                once to a started session). Snapshot-mode traces keep
 *                theirs. A trace streamed to relayd has relayd remove
 *                them (output.h's trawl_output_destroy_remove())
 *   ROTATE       payload: struct trawl_cons_rotate. LTTng's `rotate`: each
 *                trace of the session under old_root is flushed and written
 *                whole there (the trace chunk ends), its files closed, and
 *                it goes on under new_root (same path below it): at once if
 *                the session is started, else at its next START. A packet
 *                is in exactly one chunk. A trace streamed to relayd
 *                (old_root, new_root: relay destinations, output.h) has
 *                relayd move the chunk that ended to archive/SUFFIX
 *                (SUFFIX: the trace's path below old_root) before it goes
 *                on (output.h's trawl_output_archive())
 */
#ifndef TRAWL_CONSUMER_PROTO_H
#define TRAWL_CONSUMER_PROTO_H

#include <stdint.h>

#include "ustctl/ustctl.h"

#define TRAWL_CONS_MAGIC 0x534e4f43u /* "CONS" */
/* 7: add_channel.tracefile_size, tracefile_count. 8: reply.chans */
#define TRAWL_CONS_VERSION 14u /* 9: trawl_cons_rotate.archive; net:// traces, relay snapshots; 10: none: traces;
				  11: the channels' buffer usage in every reply (monitor samples);
				  12: trawl_cons_reply.events_tallied;
				  13: trawl_cons_reply.msg of TRAWL_CONS_MSG_LEN 512 (was 256);
				  14: add_channel.flags TRAWL_CONS_F_WAKE */
#define TRAWL_CONS_MAX_CHANNELS 255u /* channel keys 1..255 (a session's user-space channels) */
#define TRAWL_CONS_PATH_LEN 1024u
#define TRAWL_CONS_MAX_METADATA (64u << 20) /* bytes */
/* a consumer's line: its longest (a stream's loss, with what relayd may
 * hold) is under 300 bytes; the session daemon's words before it fit in
 * TRAWL_CTL_ERROR_MAX (1024) with a session name of TRAWL_CTL_NAME_MAX */
#define TRAWL_CONS_MSG_LEN 512u

enum trawl_cons_cmd {
	TRAWL_CONS_ADD_TRACE = 1,
	TRAWL_CONS_METADATA = 2,
	TRAWL_CONS_ADD_CHANNEL = 3,
	TRAWL_CONS_FLUSH = 4,
	TRAWL_CONS_SNAPSHOT = 5,
	TRAWL_CONS_QUIT = 6,
	TRAWL_CONS_START = 7,
	TRAWL_CONS_REMOVE_SESSION = 8,
	TRAWL_CONS_STATUS = 9,
	TRAWL_CONS_REMOVE_TRACE = 10,
	TRAWL_CONS_CLEAR = 11,
	TRAWL_CONS_ROTATE = 12,
};

struct trawl_cons_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t cmd;
	uint32_t size; /* payload bytes */
	uint32_t nr_fds;
	uint64_t session_key; /* the session the command is about; 0: all */
	uint64_t trace_key;
	uint64_t channel_key;
} __attribute__((packed));

/* add_trace.flags, add_channel.flags */
#define TRAWL_CONS_F_RESUME 0x1u
/* add_channel.flags: the wake-up eventfd follows the streams' fds */
#define TRAWL_CONS_F_WAKE 0x2u

struct trawl_cons_add_trace {
	char path[TRAWL_CONS_PATH_LEN]; /* absolute folder: .../ust/uid/1000/64-bit,
					   or relay:...,net://HOST:C:D/ust/uid/1000/64-bit */
	uint32_t flags;                 /* TRAWL_CONS_F_* */
	uint32_t max_packets;           /* SNAPSHOT: the newest packets of each
					   stream written, 0: all; else 0 */
} __attribute__((packed));

struct trawl_cons_rotate {
	char old_root[TRAWL_CONS_PATH_LEN]; /* the chunk that ends: absolute folder */
	char new_root[TRAWL_CONS_PATH_LEN]; /* the chunk that begins */
	char archive[256]; /* relay: "archives/BEGIN-END-ID", the chunk's archive on
			      relayd; "" for a local trace (the daemon moves it) */
} __attribute__((packed));

struct trawl_cons_add_channel {
	char name[256];                       /* file names: <name>_<cpu> */
	struct trawl_ustctl_channel_attr attr;
	uint64_t first_instance_id;           /* stream_instance_id of cpu 0; +cpu after */
	uint32_t switch_timer_us;             /* 0: off */
	uint32_t read_timer_us;               /* 0: the default (woken by the apps with
						 TRAWL_CONS_F_WAKE, else every 1 ms) */
	uint32_t snapshot_mode;               /* 1: never drained to the trace, only by SNAPSHOT */
	uint32_t flags;                       /* TRAWL_CONS_F_* */
	uint64_t tracefile_size;	      /* 0, or bytes per stream file: <name>_<cpu>_<n> */
	uint32_t tracefile_count;	      /* 0, or files kept per stream (n modulo it) */
	uint32_t reserved;
} __attribute__((packed));

struct trawl_cons_reply {
	uint32_t magic;
	int32_t status;            /* 0 or a negative errno */
	uint64_t events_discarded; /* over the session's streams (all if session_key is 0) */
	uint64_t events_tallied;   /* the part of events_discarded programs counted while no
				      session daemon had them set up (ringbuffer.h, lost_tally) */
	uint64_t bytes_written;    /* by the session's streams */
	char msg[TRAWL_CONS_MSG_LEN]; /* "" or the session's problem, one line */
	/* The session's channels' counters (all sessions' if session_key is 0),
	 * by channel_key - 1, over every trace (per-uid or per-process buffers)
	 * the channel has, removed traces included: LTTng's per-channel
	 * "Statistics:" of `list SESSION`. */
	struct trawl_cons_chan_counters {
		uint64_t events_discarded; /* discard mode: events dropped, buffer full */
		uint64_t lost_packets;     /* overwrite mode: packets overwritten unread
					      (gaps in packet_seq_num) */
		/* LTTng's monitor sample, taken as the reply is made: the bytes
		 * the fullest of the channel's nr_sampled stream buffers holds
		 * (LTTng's highest usage, which its buffer-usage conditions
		 * compare; 0 when none) */
		uint64_t usage_high;
		uint32_t nr_sampled;
		uint32_t reserved;
	} __attribute__((packed)) chans[TRAWL_CONS_MAX_CHANNELS];
} __attribute__((packed));

#endif /* TRAWL_CONSUMER_PROTO_H */
