/* SPDX-License-Identifier: MIT */
/*
 * session-internal.h - what the kernel session's files share; private to
 * src/kernel:
 *   session.c           the session object: its channels, contexts and
 *                       trackers, its losses and buffer usage
 *   session-consumer.c  its consumer process: started, spoken to, reaped
 *   session-run.c       start, stop, snapshot, regenerate, switch, finish,
 *                       each in halves (_send, then _recv once the
 *                       consumer's socket is readable)
 *
 * A kernel session: channels (tracefs instances) plus one consumer process.
 *
 * The consumer is a separate process (not a thread of the root daemon) so
 * that the conversion work is accounted to it, it can be niced or pinned,
 * and a crash in page conversion (untrusted data) cannot take the daemon
 * down. It talks to us on a socketpair: it sends 'R' once every buffer is
 * open; we send 'F' (flush) and wait for 'K' (or 'W' and a line: the trace
 * lost packets to a full disk or a gone relayd); 'Q' makes it drain and exit.
 * Each 'K' or 'W' is followed at once by a u64, the events the consumer itself
 * lost (records it could not convert, perf's lost samples), which the
 * kernel's stats do not know.
 */
#ifndef TRAWL_KERNEL_SESSION_INTERNAL_H
#define TRAWL_KERNEL_SESSION_INTERNAL_H

#include "kernel/internal.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SESSION_MAX_CHANNELS 16
#define CONSUMER_TIMEOUT_MS 30000

enum { STAGE_NONE, STAGE_READY, STAGE_PERF, STAGE_SNAP_READY, STAGE_SNAP_END };

#define SESSION_NAME_LEN 256 /* as the control protocol's names (TRAWL_CTL_NAME_LEN) */

struct kchannel {
	char name[SESSION_NAME_LEN];
	char ctx[512];                        /* "pid,tid,perf:cpu:X,..." */
	int nperf;                            /* perf:cpu contexts: recorded through perf */
	struct trawl_kernel_instance *inst;   /* owned */
	char tf_size[24], tf_count[16];	      /* trace file limits, "" for none */
};

struct trawl_kernel_session {
	char name[SESSION_NAME_LEN];
	char output[4096];
	uid_t uid;
	gid_t gid;
	struct kchannel ch[SESSION_MAX_CHANNELS];
	int nch;
	pid_t consumer;      /* 0: none */
	uint64_t consumer_cpu_ns; /* user + system time of the reaped consumer */
	uint64_t consumer_lost;   /* the running consumer's own losses, as of its last 'K' */
	uint64_t reaped_lost;     /* the same of consumers already reaped */
	int ctl_fd;          /* our end of the socketpair, -1: none */
	int snapshot;        /* no continuous consumer: see trawl_kernel_session_snapshot() */
	/* A start or snapshot in halves: what the next _recv reads (STAGE_*),
	 * and the consumer's program, for messages. */
	int stage;
	const char *consumer_prog;
	char problem[TRAWL_KERNEL_ERR_LEN]; /* the consumer's last 'W' line, "" if none */
	/* The trackers: "ATTR:V,V,..." per tracker that does not include all
	 * (tracker.c), each a --tracker of every consumer started; owned. */
	char *tracker[TRAWL_KERNEL_TRACKER_ATTRS];
	char *tracker_spec; /* the same lines joined, for a running consumer ('T'); owned */
};

/* session-consumer.c: the consumer process and its socket (see the top). */

/* Starts @consumer for @s writing to @output (@once: a snapshot's, which
 * exits once its trace is written); s->consumer and s->ctl_fd are then set. */
int ksession_consumer_spawn(struct trawl_kernel_session *s, const char *consumer,
			    const char *output, int once);
/* Waits at most @ms for one byte from the consumer; 0 if it is @want. */
int ksession_consumer_wait(struct trawl_kernel_session *s, char want, int ms);
/* A flush's answer: 0 for 'K'; -EIO for 'W' (its line in s->problem). */
int ksession_consumer_wait_flushed(struct trawl_kernel_session *s);
/* Reads the consumer's 'R' once its socket is readable, or says in @err why none came. */
int ksession_consumer_ready_read(struct trawl_kernel_session *s, int failed, const char *consumer,
				 char *err, size_t errlen);
/* Reaps the consumer (killed first with @kill_it), within a bounded wait. */
void ksession_consumer_reap(struct trawl_kernel_session *s, int kill_it);
/* Waits for @fd (the consumer's socket) to be readable, at most CONSUMER_TIMEOUT_MS:
 * 0, -ETIMEDOUT or a poll() error. */
int ksession_ctl_wait(int fd);

#endif /* TRAWL_KERNEL_SESSION_INTERNAL_H */
