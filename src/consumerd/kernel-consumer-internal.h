/* SPDX-License-Identifier: MIT */
/*
 * kernel-consumer-internal.h - what the kernel consumer's files share: its
 * state (a consumer, its channels, their CPUs) and the entry points of each
 * job. Not for other parts (the consumer's interface is consumerd.h).
 *
 *   kernel-consumer.c  setup, the control loop, the answers to the daemon
 *   kernel-args.c      the command line
 *   kernel-meta.c      the trace's metadata (stream and event classes)
 *   kernel-chan.c      a channel's streams: files, converter, CPUs opened
 *   kernel-drain.c     reading the CPUs' pages into packets, live flushes,
 *                      the state dump again
 *   kernel-refresh.c   trawl's own threads and the BPF programs, kept current
 *
 * Threading: all of it runs on the draining thread, but for
 * kcons_bpf_update_cb(), which the refresher thread calls (refresh.c).
 */
#ifndef TRAWL_CONSUMERD_KERNEL_CONSUMER_INTERNAL_H
#define TRAWL_CONSUMERD_KERNEL_CONSUMER_INTERNAL_H

#include "consumerd/output.h"
#include "ctf/ctf.h"
#include "kernel/kernctl.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define MAX_CHANNELS 16
#define MAX_CPUS 1024

struct kconsumer;
struct kchan;

struct kcpu {
	int fd;            /* trace_pipe_raw, non-blocking */
	int stats_fd;      /* per_cpu/cpuN/stats, -1: not open */
	struct trawl_output_stream *out; /* stream file and index, owned */
	uint64_t dropped;  /* last "dropped events" read from stats (discard mode) */
	uint64_t commit_overrun; /* last "commit overrun" read from stats */
	uint64_t events_out; /* stream.events when the last packet was handed out */
	struct trawl_kernel_stream stream;
	struct kchan *ch;
};

struct kchan {
	struct kconsumer *k;            /* the consumer holding this channel */
	char name[256];
	char instance[192];             /* "instances/<name>" */
	int overwrite;
	int ctx[TRAWL_KCTX_SLOTS];
	int nctx;
	char perf_ctx[TRAWL_KCTX_PERF_MAX][64]; /* "perf:cpu:X" contexts, in order */
	int nperf;
	struct trawl_kernel_perf *perf; /* owned; non-NULL: recorded through perf (perf.c) */
	uint32_t id;                    /* stream class id */
	int statedump;                  /* --statedump: LTTng's state dump goes in CPU 0's stream */
	uint64_t tracefile_size;	/* --tracefile-size: 0, or bytes per stream file */
	uint32_t tracefile_count;	/* --tracefile-count: 0, or files kept per stream */
	struct trawl_kernel_events *events;
	struct trawl_kernel_converter conv;
	struct kcpu *cpus;
	int ncpus;
	size_t page_size;
	uint64_t buffer_pages;          /* pages per CPU buffer (--once reads at most that) */
};

struct kconsumer {
	char dir[4096];    /* a folder, or a relay destination (consumerd/output.h) */
	struct trawl_output *out; /* owned */
	int meta_h;        /* the metadata file in out */
	uint64_t live_ns;  /* streaming live: period of partial-packet flushes, else 0 */
	uint64_t live_next_ns; /* CLOCK_MONOTONIC time of the next one */
	int beacons;       /* live: cut beacons on CPUs read to the end (live_flush()) */
	struct trawl_ctf_trace *trace; /* metadata model (src/ctf), owned */
	uid_t uid;
	gid_t gid;
	struct kchan ch[MAX_CHANNELS];
	int nch;
	uint8_t *page;
	size_t page_cap;
	uint64_t bytes;
	int once;          /* --once: one buffer's worth per CPU, then exit */
	int pipe[2];       /* splice target for full pages, -1: splice unavailable */
	char err[TRAWL_KERNEL_ERR_LEN]; /* why setup failed, for the spawner ("E<line>") */
	struct trawl_kernel_hidden hidden; /* trawl's own threads, dropped (notrace.c) */
	uint64_t hidden_at;  /* CLOCK_MONOTONIC ns of the last collect */
	uint64_t round_at;   /* CLOCK_MONOTONIC ns of the last drain's start */
	uint64_t max_gap_ns; /* longest time between two drains (TRAWL_KERNEL_STATS) */
	uint64_t max_refresh_ns; /* longest refresh() on the draining thread */
	struct trawl_kernel_refresher *refresher; /* owned, NULL: refresh() does the work */
	struct trawl_kernel_forks *forks; /* owned: BPF's fork records (fork.c) */
	struct trawl_kernel_scaux *scaux; /* owned: BPF's syscall records (scaux.c) */
	struct trawl_kernel_sc_bpf sc_state; /* what the BPF syscall maps hold (syscalls.c) */
	struct trawl_kernel_bpf *bpf;     /* owned, NULL without BPF (bpf.c) */
	struct trawl_kernel_trackers *trackers; /* owned: LTTng's trackers (tracker.c) */
	char *tracker_spec;  /* owned: --tracker lines, for trawl_kernel_trackers_set() */
	size_t tracker_len;
	uint32_t tracker_attrs; /* trackers that restricted so far: the ids they need are kept */
};

/* kernel-args.c: fills @k and *@ctl_fd from the command line. 0 or -errno. */
int kcons_parse_args(struct kconsumer *k, int argc, char **argv, int *ctl_fd);

/* kernel-meta.c */
int kcons_meta_setup(struct kconsumer *k);
int kcons_declare_event(struct trawl_kernel_event *ev, void *arg);
int kcons_meta_rewrite(struct kconsumer *k);

/* kernel-chan.c */
int kcons_chan_open(struct kconsumer *k, struct kchan *ch);
void kcons_chan_close(struct kchan *ch);
void kcons_bpf_drain_cb(void *arg);

/* kernel-consumer.c: the trackers' needs met (BPF, /proc) once they change. */
void kcons_trackers_apply(struct kconsumer *k);

/* kernel-refresh.c */
void kcons_refresh(struct kconsumer *k);
void kcons_bpf_update_cb(void *arg);

/* kernel-drain.c */
int kcons_drain_cpu(struct kconsumer *k, struct kcpu *c, int final, int partial);
int kcons_drain_all(struct kconsumer *k, int final);
int kcons_perf_enable_all(struct kconsumer *k, int on);
int kcons_perf_flush_lost_all(struct kconsumer *k);
int kcons_live_flush(struct kconsumer *k);
int kcons_statedump_again(struct kconsumer *k);

#endif /* TRAWL_CONSUMERD_KERNEL_CONSUMER_INTERNAL_H */
