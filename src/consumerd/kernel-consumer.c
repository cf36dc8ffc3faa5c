/* SPDX-License-Identifier: MIT */
/*
 * The kernel consumer: one process per kernel session, spawned by the root
 * session daemon (`trawl-consumerd --kernel ...`, or `trawl-ktrace` in tests),
 * that moves every CPU's ftrace pages of the session's instances into one CTF
 * trace (DIR/metadata, DIR/<channel>_<cpu>, DIR/index/<channel>_<cpu>.idx):
 * the metadata model is src/ctf's, the files go through the consumers'
 * output seam (consumerd/output.h), to a local folder or to trawl-relayd.
 * Streaming live (a relay destination with a live timer), partial pages are
 * read and their packets closed every live period, so viewers see events
 * within about that time; a lost relayd is logged, and the consumer goes on
 * emptying the kernel's buffers until told to stop.
 *
 * Reading: one thread polls every CPU's trace_pipe_raw (non-blocking) and
 * the control socket, then drains each CPU. While tracing runs, only full
 * sub-buffers are taken, by splice() into a pipe and one read() from it:
 * splice refuses (EAGAIN) the page the kernel is still writing. At a flush
 * or at the end, read()s of a whole sub-buffer also take that partial page,
 * so draining at stop loses nothing. Either way each page is copied once
 * into our memory, where the converter needs it anyway.
 *
 * Why not read() all the time: a read() of trace_pipe_raw hands over the
 * page being written however little it holds, and copies a whole sub-buffer
 * (512 KiB by default) to us for it. Measured on an idle 2-CPU machine with
 * `--syscall read,write`: the consumer read partial pages holding 144 bytes
 * (its own previous read's two events: see notrace.c) ~18,700 times a
 * second. With the consumer hidden from the trace but still reading
 * partial pages, ~100 partial reads a second (2 CPUs x 50 rounds), 6 MB/s
 * of copying for ~1 KB/s of events; with splice an idle round is one
 * failed splice per CPU and no copy. Discard mode's "dropped events" are
 * read (one pread of a kept-open stats file) only after a round that took
 * pages: the kernel drops only when a buffer is full, and a full buffer
 * always has pages to take.
 *
 * Each channel is one CTF stream class (id = channel index); each CPU of a
 * channel one stream. Event classes are added to the metadata file when the
 * converter first meets them, so a `--all` session declares only the events
 * that happened (the first 31 seen, usually the busiest, get compact headers).
 *
 * Lost events: every event that the kernel was asked to record and that
 * is not in the trace is counted in its stream's events_discarded, so that
 * babeltrace2 reports it ("Tracer discarded N events"):
 *   - overwrite mode: pages carry a missed-events flag and count (convert.c);
 *   - discard mode: the kernel counts drops only in per_cpu/cpuN/stats
 *     ("dropped events"), which we poll after each drain that took pages;
 *   - both modes: "commit overrun" in the same file, events the kernel
 *     threw away when its writer wrapped onto a page not yet committed
 *     (an interrupt storm): on no page, only there;
 *   - records we read but cannot convert (an event we cannot name or
 *     describe, a torn page: convert.c), and perf's PERF_RECORD_LOST.
 * The increase goes into the next packet's events_discarded. The last two
 * are ours alone (the kernel's stats do not know them): each 'K' answer
 * carries their sum so that the session can add them to what it reads
 * from the stats (trawl_kernel_session_lost()).
 *
 * Control (a socket or pipe, --ctl-fd): 'F' = drain everything now, write
 * the metadata and indexes, answer 'K', or 'W' and one line when the trace
 * could not be written whole (a full disk, relayd gone: what and how much
 * was lost, trawl_output_broken()); 'Q' or end of file = same, then exit,
 * answering nothing; 'S' = the state dump again, 'M' = the metadata file
 * rewritten whole (regenerate statedump / metadata), each answered 'K'.
 * The 'K' or 'W' is followed at once by a u64 (native
 * order: the session runs on this machine), the events lost in this process
 * (see above), before the 'W''s line.
 * --once (snapshots): one buffer's worth of pages per CPU, then exit.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "consumerd/consumerd.h"
#include "consumerd/output.h"
#include "ctf/ctf.h"
#include "ctf/layout.h"
#include "kernel/kernctl.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

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
};

/* ---- metadata ----------------------------------------------------------- */

/* Appends what the metadata model gained since the last call to the metadata file. */
static int meta_append(struct kconsumer *k)
{
	size_t len = 0;
	char *text = trawl_ctf_trace_metadata_new(k->trace, &len);
	struct iovec v = {text, len};
	int ret;

	if (!text)
		return -errno;
	ret = len ? trawl_output_file_append(k->out, k->meta_h, &v, 1) : 0;
	free(text);
	return ret;
}

/*
 * `regenerate metadata`: what is recorded so far is drained (its event
 * classes join the model), then the metadata file is replaced by the whole
 * model's text. The model only ever grows, so the new text declares every
 * event already written.
 */
static int drain_all(struct kconsumer *k, int final);

static int meta_rewrite(struct kconsumer *k)
{
	size_t len = 0;
	char *text;
	int ret = drain_all(k, 1);

	if (ret < 0)
		return ret;
	ret = meta_append(k); /* the model's "new" mark moves past everything */
	if (ret < 0)
		return ret;
	text = trawl_ctf_trace_metadata(k->trace, &len);
	if (!text)
		return -errno;
	ret = trawl_output_file_replace(k->out, k->meta_h, text, len);
	free(text);
	if (!ret)
		trawl_output_sync(k->out);
	return ret;
}

static struct trawl_ctf_type *int_type(unsigned bits, int is_signed, unsigned base)
{
	struct trawl_ctf_type *t = trawl_ctf_type_integer_create(bits, is_signed, 8);

	if (t && base != 10)
		trawl_ctf_type_integer_set_base(t, base);
	return t;
}

static struct trawl_ctf_type *text_type(uint64_t n)
{
	struct trawl_ctf_type *t = trawl_ctf_type_integer_create(8, 0, 8);

	if (!t)
		return NULL;
	trawl_ctf_type_integer_set_utf8(t);
	return trawl_ctf_type_array_create(t, n);
}

/* The event context struct of a channel's contexts (NULL without contexts). */
static struct trawl_ctf_type *context_type(const struct kchan *ch, int *err)
{
	static const char *const names[] = {
		[TRAWL_KCTX_PID] = "pid", [TRAWL_KCTX_TID] = "tid",
		[TRAWL_KCTX_PROCNAME] = "procname", [TRAWL_KCTX_PRIO] = "prio",
		[TRAWL_KCTX_PPID] = "ppid", [TRAWL_KCTX_VPID] = "vpid", [TRAWL_KCTX_VTID] = "vtid",
		[TRAWL_KCTX_NICE] = "nice",
	};
	struct trawl_ctf_type *st;
	char field[80];
	int i;

	*err = 0;
	if (!ch->nctx)
		return NULL;
	st = trawl_ctf_type_struct_create(8);
	for (i = 0; st && i < ch->nctx; i++) {
		int k = ch->ctx[i];
		struct trawl_ctf_type *f = k >= TRAWL_KCTX_PERF	      ? int_type(64, 0, 10)
					   : k == TRAWL_KCTX_PROCNAME ? text_type(16)
								      : int_type(32, 1, 10);

		if (k >= TRAWL_KCTX_PERF)
			trawl_kernel_perf_field_name(ch->perf_ctx[k - TRAWL_KCTX_PERF], field,
						     sizeof(field));
		else
			snprintf(field, sizeof(field), "%s", names[k]);
		if (!f || trawl_ctf_type_struct_add(st, field, f) < 0) {
			trawl_ctf_type_destroy(st);
			st = NULL;
		}
	}
	if (!st)
		*err = -ENOMEM;
	return st;
}

/*
 * src/ctf refuses TSDL keywords as names (tracepoints have fields called
 * "align" or "callsite"): those get one more leading '_'.
 */
static int add_field(struct trawl_ctf_type *st, const char *name, struct trawl_ctf_type *t)
{
	char alt[80];

	if (trawl_ctf_identifier_valid(name))
		return trawl_ctf_type_struct_add(st, name, t);
	snprintf(alt, sizeof(alt), "_%s", name);
	return trawl_ctf_type_struct_add(st, alt, t);
}

/* The payload struct of a tracefs event, field for field as convert.c writes it. */
static struct trawl_ctf_type *payload_type(const struct trawl_kernel_event *ev)
{
	struct trawl_ctf_type *st = trawl_ctf_type_struct_create(8);
	int i, ret = 0;

	for (i = 0; st && i < ev->nfields && !ret; i++) {
		const struct trawl_kernel_field *f = &ev->fields[i];
		struct trawl_ctf_type *t = NULL;
		char len_name[80];

		switch (f->kind) {
		case TRAWL_KF_INT:
		case TRAWL_KF_HEX:
			t = int_type(f->ctf_size * 8u, f->is_signed, f->kind == TRAWL_KF_HEX ? 16 : 10);
			if (t && f->big_endian)
				trawl_ctf_type_integer_set_byte_order(t, TRAWL_CTF_BO_BE);
			break;
		case TRAWL_KF_TEXT:
			t = text_type(f->count);
			break;
		case TRAWL_KF_ARRAY:
			t = int_type(f->ctf_size * 8u, f->is_signed, 10);
			t = t ? trawl_ctf_type_array_create(t, f->count) : NULL;
			break;
		case TRAWL_KF_STRING:
			t = trawl_ctf_type_string_create();
			break;
		case TRAWL_KF_BYTES:
			/* as LTTng: the length field "_<name>_length", then the bytes */
			snprintf(len_name, sizeof(len_name), "_%s_length", f->name);
			ret = trawl_ctf_type_struct_add(st, len_name, int_type(32, 0, 10));
			t = int_type(8, 0, 16);
			t = t ? trawl_ctf_type_sequence_create(t, len_name) : NULL;
			break;
		case TRAWL_KF_SEQ_I32:
			/* as LTTng's ctf_sequence(pid_t, vtids, ..., u8, ...) */
			snprintf(len_name, sizeof(len_name), "_%s_length", f->name);
			ret = trawl_ctf_type_struct_add(st, len_name, int_type(8, 0, 10));
			t = int_type(32, 1, 10);
			t = t ? trawl_ctf_type_sequence_create(t, len_name) : NULL;
			break;
		}
		if (!ret)
			ret = t ? add_field(st, f->name, t) : -ENOMEM;
	}
	if (ret < 0) {
		trawl_ctf_type_destroy(st);
		st = NULL;
	}
	return st;
}

static int meta_setup(struct kconsumer *k)
{
	struct utsname u;
	char host[256] = "";
	int i, ret;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	if (trawl_ctf_trace_env_add_string(k->trace, "hostname", host) < 0 ||
	    trawl_ctf_trace_env_add_string(k->trace, "domain", "kernel") < 0 ||
	    trawl_ctf_trace_env_add_string(k->trace, "sysname", u.sysname) < 0 ||
	    trawl_ctf_trace_env_add_string(k->trace, "kernel_release", u.release) < 0 ||
	    /*
	     * As LTTng's kernel traces say (the user-space side says lttng-ust):
	     * babeltrace2 then takes the clock's origin as the Unix epoch for
	     * both domains and merges them, and Trace Compass recognises a
	     * kernel trace.
	     */
	    trawl_ctf_trace_env_add_string(k->trace, "tracer_name", "lttng-modules") < 0 ||
	    trawl_ctf_trace_env_add_int(k->trace, "tracer_major", 2) < 0 ||
	    trawl_ctf_trace_env_add_int(k->trace, "tracer_minor", 13) < 0 ||
	    trawl_ctf_trace_env_add_int(k->trace, "tracer_patchlevel", 0) < 0 ||
	    trawl_ctf_trace_env_add_string(k->trace, "trace_buffering_scheme", "global") < 0)
		return -ENOMEM;
	/* CLOCK_MONOTONIC with ctf's offset estimator, as user-space traces: one view interleaves both */
	ret = trawl_ctf_trace_add_monotonic_clock(k->trace);
	if (ret < 0)
		return ret;
	for (i = 0; i < k->nch; i++) {
		struct trawl_ctf_type *ctx = context_type(&k->ch[i], &ret);

		if (ret < 0)
			return ret;
		ret = trawl_ctf_trace_add_stream_class(k->trace, k->ch[i].id, TRAWL_CTF_HEADER_COMPACT,
						       ctx, "monotonic");
		if (ret < 0)
			return ret;
	}
	return meta_append(k);
}

/* The converter met a new event: append its class to the metadata. */
static int declare_event(struct trawl_kernel_event *ev, void *arg)
{
	struct kchan *ch = arg;
	struct trawl_ctf_event_class_desc d = {
		.name = ev->ctf_name, .id = (uint32_t)ev->ctf_id, .stream_id = ch->id, .loglevel = -1,
	};
	struct trawl_ctf_type *payload = payload_type(ev);
	int ret;

	ret = payload ? trawl_ctf_trace_add_event_class(ch->k->trace, &d, payload) : -ENOMEM;
	if (ret == 0)
		ret = meta_append(ch->k);
	if (ret < 0)
		fprintf(stderr, "trawl-consumerd --kernel: cannot describe event %s:%s (%s): "
			"its records are left out\n", ev->system, ev->name, strerror(-ret));
	return ret;
}

/* ---- streams ------------------------------------------------------------ */

static int emit_packet(struct trawl_kernel_stream *s, const uint8_t *pkt, size_t len, void *arg)
{
	struct kcpu *c = arg;
	/* the converter emits a packet before it adds the next event: these are its events */
	int64_t n = trawl_output_stream_packet(c->out, pkt, len, (int64_t)(s->events - c->events_out));

	c->events_out = s->events;
	/* 0: lost to a full disk or a gone relayd, counted by the output (output.h) */
	return n < 0 ? (int)n : 0;
}

static void bpf_drain_cb(void *arg)
{
	trawl_kernel_bpf_drain(arg);
}

/*
 * The BPF programs that complete what channels record (bpf.c): attached
 * when an instance has the event enabled. Checked at setup and again with
 * the hidden set, every second, for events enabled while tracing.
 */
static void bpf_update(struct kconsumer *k)
{
	const char *inst[MAX_CHANNELS];
	char rel[512], buf[8];
	int i;

	if (!k->bpf)
		return;
	for (i = 0; i < k->nch; i++)
		inst[i] = k->ch[i].instance;
	if (trawl_kernel_syscall_bpf_update(k->bpf, inst, k->nch, &k->sc_state) < 0)
		fprintf(stderr, "trawl-consumerd --kernel: cannot attach the syscall BPF programs: "
			"string arguments are left empty\n");
	for (i = 0; i < k->nch; i++) {
		snprintf(rel, sizeof(rel), "%s/events/sched/sched_process_fork/enable", k->ch[i].instance);
		if (trawl_kernel_read_file(rel, buf, sizeof(buf)) > 0 && buf[0] != '0' &&
		    trawl_kernel_bpf_attach_fork(k->bpf) < 0)
			fprintf(stderr, "trawl-consumerd --kernel: cannot attach the sched_process_fork "
				"BPF program: its process ids come from /proc\n");
	}
}

static int count_cpus(const char *instance)
{
	char rel[512], path[768];
	int n = 0;

	for (;;) {
		snprintf(rel, sizeof(rel), "%s/per_cpu/cpu%d", instance, n);
		if (trawl_kernel_path(path, sizeof(path), rel) < 0 || access(path, F_OK) < 0)
			break;
		n++;
	}
	return n;
}

static int chan_open(struct kconsumer *k, struct kchan *ch)
{
	char rel[512], path[768], buf[64];
	int i, ret;

	ch->k = k;
	ret = trawl_kernel_events_create(ch->instance, &ch->events);
	if (ret < 0)
		return ret;
	trawl_kernel_converter_init(&ch->conv, ch->events, trawl_ctf_trace_uuid(k->trace));
	memcpy(ch->conv.ctx, ch->ctx, sizeof(ch->ctx));
	ch->conv.nctx = ch->nctx;
	ch->conv.stream_id = ch->id;
	ch->conv.declare = declare_event;
	ch->conv.arg = ch;
	ch->conv.hidden = &k->hidden;
	if (ch->statedump && (ret = trawl_kernel_statedump_register(ch->events)) < 0)
		return ret;
	ch->conv.forks = k->forks;
	ch->conv.scaux = k->scaux;
	ch->conv.bpf_drain = k->bpf ? bpf_drain_cb : NULL;
	ch->conv.bpf_arg = k->bpf;
	snprintf(rel, sizeof(rel), "%s/buffer_subbuf_size_kb", ch->instance);
	ch->page_size = 4096;
	if (trawl_kernel_read_file(rel, buf, sizeof(buf)) > 0 && atoi(buf) >= 4)
		ch->page_size = (size_t)atoi(buf) * 1024;
	snprintf(rel, sizeof(rel), "%s/buffer_size_kb", ch->instance);
	ch->buffer_pages = 1024;
	if (trawl_kernel_read_file(rel, buf, sizeof(buf)) > 0 && atoll(buf) > 0)
		ch->buffer_pages = (uint64_t)atoll(buf) * 1024 / ch->page_size + 2;
	snprintf(rel, sizeof(rel), "%s/options/overwrite", ch->instance);
	if (trawl_kernel_read_file(rel, buf, sizeof(buf)) > 0)
		ch->overwrite = buf[0] == '1';
	ch->ncpus = count_cpus(ch->instance);
	if (ch->ncpus <= 0 || ch->ncpus > MAX_CPUS)
		return -ENOENT;
	ch->cpus = calloc((size_t)ch->ncpus, sizeof(*ch->cpus));
	if (!ch->cpus)
		return -ENOMEM;
	if (ch->page_size > k->page_cap) {
		free(k->page);
		k->page = malloc(ch->page_size);
		if (!k->page)
			return -ENOMEM;
		k->page_cap = ch->page_size;
	}
	for (i = 0; i < ch->ncpus; i++) {
		struct kcpu *c = &ch->cpus[i];

		c->ch = ch;
		c->fd = -1;
		c->stats_fd = -1;
		if (ch->nperf)
			goto streams; /* the perf groups are opened below, once for all CPUs */
		snprintf(rel, sizeof(rel), "%s/per_cpu/cpu%d/stats", ch->instance, i);
		if (trawl_kernel_path(path, sizeof(path), rel) == 0)
			c->stats_fd = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(rel, sizeof(rel), "%s/per_cpu/cpu%d/trace_pipe_raw", ch->instance, i);
		ret = trawl_kernel_path(path, sizeof(path), rel);
		if (ret < 0)
			return ret;
		c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->fd < 0)
			return -errno;
streams:
		snprintf(rel, sizeof(rel), "%s_%d", ch->name, i);
		c->out = trawl_output_stream_open(k->out, rel, (uint64_t)ch->id << 32 | (uint32_t)i);
		if (!c->out)
			return -errno;
		ret = trawl_kernel_stream_init(&c->stream, &ch->conv, (uint32_t)i, 1u << 20,
					       emit_packet, c);
		if (ret < 0)
			return ret;
	}
	if (ch->nperf)
		return trawl_kernel_perf_create(ch->instance, ch->perf_ctx, ch->nperf, ch->ncpus,
						ch->buffer_pages * ch->page_size, getpid(), &ch->perf,
						k->err, sizeof(k->err));
	return 0;
}

static void chan_close(struct kchan *ch)
{
	int i;

	for (i = 0; ch->cpus && i < ch->ncpus; i++) {
		struct kcpu *c = &ch->cpus[i];

		if (c->fd >= 0)
			close(c->fd);
		if (c->stats_fd >= 0)
			close(c->stats_fd);
		trawl_output_stream_close(c->out);
		trawl_kernel_stream_fini(&c->stream);
	}
	free(ch->cpus);
	trawl_kernel_perf_destroy(ch->perf);
	trawl_kernel_converter_fini(&ch->conv);
	trawl_kernel_events_destroy(ch->events);
}

/* The increase of counter @name ("dropped events") in @stats since *@last, into the stream. */
static void stats_take(struct kcpu *c, const char *stats, const char *name, uint64_t *last)
{
	const char *p = strstr(stats, name);
	uint64_t v;

	if (!p)
		return;
	v = strtoull(p + strlen(name) + 1, NULL, 10); /* after the colon */
	if (v > *last)
		trawl_kernel_stream_add_lost(&c->stream, v - *last);
	*last = v;
}

/*
 * The CPU's losses that only per_cpu/cpuN/stats records: "dropped events"
 * (discard mode) and "commit overrun" (both modes).
 */
static void poll_stats(struct kcpu *c)
{
	char buf[1024];
	ssize_t n;

	/* the kernel formats the file anew at each read from offset 0 */
	if (c->stats_fd < 0 || (n = pread(c->stats_fd, buf, sizeof(buf) - 1, 0)) <= 0)
		return;
	buf[n] = '\0';
	if (!c->ch->overwrite)
		stats_take(c, buf, "dropped events", &c->dropped);
	stats_take(c, buf, "commit overrun", &c->commit_overrun);
}

/*
 * One full sub-buffer by splice() into our pipe, then read() into k->page.
 * Returns its length, or -1 with errno (EAGAIN: no full page yet).
 */
static ssize_t splice_page(struct kconsumer *k, struct kcpu *c)
{
	size_t want = c->ch->page_size, got = 0;
	ssize_t n;

	n = splice(c->fd, NULL, k->pipe[1], NULL, want, SPLICE_F_NONBLOCK);
	if (n <= 0)
		return n;
	while (got < (size_t)n) {
		ssize_t r = read(k->pipe[0], k->page + got, (size_t)n - got);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1; /* cannot happen: the pipe holds n bytes */
		}
		got += (size_t)r;
	}
	return n;
}

/*
 * Reads and converts the CPU's pages: with @partial, every page including the
 * one being written (read()); else only full pages (splice(), when we have a
 * pipe). Returns pages read or a negative errno.
 */
static int drain_cpu(struct kconsumer *k, struct kcpu *c, int final, int partial)
{
	int pages = 0, ret;

	if (c->ch->perf) {
		/* records, not pages: 256 pages' worth of a busy CPU is ~64 K samples */
		ret = trawl_kernel_perf_drain(c->ch->perf, (int)(c - c->ch->cpus), &c->stream,
					      final ? 0 : 65536);
		return ret < 0 ? ret : (ret + 255) / 256;
	}
	for (;;) {
		ssize_t n = partial || k->pipe[0] < 0 ? read(c->fd, k->page, c->ch->page_size)
						    : splice_page(k, c);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			if (!partial && (errno == EINVAL || errno == ENOSYS)) {
				/* no splice on this file: read() from now on */
				close(k->pipe[0]);
				close(k->pipe[1]);
				k->pipe[0] = k->pipe[1] = -1;
				continue;
			}
			return -errno;
		}
		if (n == 0)
			break;
		ret = trawl_kernel_stream_convert_page(&c->stream, k->page, (size_t)n);
		if (ret < 0)
			return ret;
		k->bytes += (size_t)n;
		pages++;
		if (!final && pages >= 256)
			break; /* let the other CPUs have their turn */
		if (k->once && (uint64_t)pages >= c->ch->buffer_pages)
			break; /* a snapshot: do not chase the writer */
	}
	if (pages || final)
		poll_stats(c);
	return pages;
}

static void bpf_update_cb(void *arg)
{
	bpf_update(arg);
}

/*
 * trawl's own threads (notrace.c) and the BPF programs channels need, taken
 * again every second: by the refresher thread once it runs (refresh.c says
 * why), here before that (the first, before tracing starts) and without it.
 */
static void refresh(struct kconsumer *k)
{
	struct timespec now;
	uint64_t ns, now_ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	/* a buffer overflows when this gap outlasts it: the stats say how long it got */
	if (k->round_at && ns - k->round_at > k->max_gap_ns)
		k->max_gap_ns = ns - k->round_at;
	k->round_at = ns;
	if (k->refresher) {
		trawl_kernel_refresher_take(k->refresher, &k->hidden);
		return;
	}
	if (k->hidden_at && ns - k->hidden_at < 1000000000u)
		return;
	trawl_kernel_hidden_collect(&k->hidden);
	k->hidden_at = ns;
	bpf_update(k);
	clock_gettime(CLOCK_MONOTONIC, &now);
	now_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	if (now_ns - ns > k->max_refresh_ns)
		k->max_refresh_ns = now_ns - ns;
}

static int drain_all(struct kconsumer *k, int final)
{
	int i, j, ret, total = 0;

	refresh(k);
	/* BPF's records before the ftrace pages they complete */
	if (k->bpf)
		trawl_kernel_bpf_drain(k->bpf);

	for (i = 0; i < k->nch; i++) {
		for (j = 0; j < k->ch[i].ncpus; j++) {
			ret = drain_cpu(k, &k->ch[i].cpus[j], final, final || k->once);
			if (ret < 0)
				return ret;
			total += ret;
			if (final) {
				ret = trawl_kernel_stream_flush(&k->ch[i].cpus[j].stream);
				if (ret < 0)
					return ret;
			}
		}
	}
	return total;
}

static int perf_enable_all(struct kconsumer *k, int on)
{
	int i, ret;

	for (i = 0; i < k->nch; i++) {
		if (!k->ch[i].perf)
			continue;
		ret = trawl_kernel_perf_enable(k->ch[i].perf, on);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* After the final drain of stopped perf channels: their rings' last losses (perf.c). */
static int perf_flush_lost_all(struct kconsumer *k)
{
	int i, n = 0;

	for (i = 0; i < k->nch; i++)
		if (k->ch[i].perf && trawl_kernel_perf_flush_lost(k->ch[i].perf) > 0)
			n++;
	return n;
}

static int parse_args(struct kconsumer *k, int argc, char **argv, int *ctl_fd)
{
	static const struct option opts[] = {
		{ "kernel", no_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "channel", required_argument, NULL, 'c' },
		{ "instance", required_argument, NULL, 'i' },
		{ "context", required_argument, NULL, 'x' },
		{ "ctl-fd", required_argument, NULL, 'f' },
		{ "uid", required_argument, NULL, 'u' },
		{ "gid", required_argument, NULL, 'g' },
		{ "once", no_argument, NULL, '1' },
		{ "statedump", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct kchan *cur = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'k':
			break;
		case 'o':
			if (strlen(optarg) >= sizeof(k->dir))
				return -ENAMETOOLONG;
			snprintf(k->dir, sizeof(k->dir), "%s", optarg);
			break;
		case 'c':
			if (k->nch == MAX_CHANNELS)
				return -E2BIG;
			cur = &k->ch[k->nch];
			cur->id = (uint32_t)k->nch++;
			if (strlen(optarg) >= sizeof(cur->name))
				return -ENAMETOOLONG;
			snprintf(cur->name, sizeof(cur->name), "%s", optarg);
			break;
		case 'i':
			if (!cur)
				return -EINVAL;
			snprintf(cur->instance, sizeof(cur->instance), "instances/%s", optarg);
			break;
		case 'x': {
			char *list = strdup(optarg), *tok, *save = NULL;

			if (!cur || !list) {
				free(list);
				return -EINVAL;
			}
			for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				int v = trawl_kernel_ctx_parse(tok);

				if (v < 0 && !strncmp(tok, "perf:cpu:", 9) &&
				    cur->nperf < TRAWL_KCTX_PERF_MAX) {
					snprintf(cur->perf_ctx[cur->nperf], sizeof(cur->perf_ctx[0]), "%s",
						 tok);
					v = TRAWL_KCTX_PERF + cur->nperf++;
				}
				if (v < 0 || cur->nctx >= TRAWL_KCTX_SLOTS) {
					free(list);
					return -EINVAL;
				}
				cur->ctx[cur->nctx++] = v;
			}
			free(list);
			break;
		}
		case 'f':
			*ctl_fd = atoi(optarg);
			break;
		case 'u':
			k->uid = (uid_t)strtoul(optarg, NULL, 10);
			break;
		case 'g':
			k->gid = (gid_t)strtoul(optarg, NULL, 10);
			break;
		case '1':
			k->once = 1;
			break;
		case 's':
			if (!cur)
				return -EINVAL;
			cur->statedump = 1;
			break;
		default:
			return -EINVAL;
		}
	}
	if (!k->dir[0] || !k->nch)
		return -EINVAL;
	for (c = 0; c < k->nch; c++)
		if (!k->ch[c].instance[0])
			return -EINVAL;
	return 0;
}

static int consumer_setup(struct kconsumer *k)
{
	char err[256];
	int i, ret;

	ret = trawl_output_create(k->dir, k->uid, k->gid, &k->out, err, sizeof(err));
	if (ret < 0) {
		snprintf(k->err, sizeof(k->err), "%s", err); /* for the spawner: the user sees it */
		return ret;
	}
	k->live_ns = (uint64_t)trawl_output_live_timer_us(k->out) * 1000;
	/* TRAWL_KERNEL_BEACONS=off: none (bench/relayd/live.sh --kernel measures without) */
	k->beacons = !getenv("TRAWL_KERNEL_BEACONS") || strcmp(getenv("TRAWL_KERNEL_BEACONS"), "off");
	k->trace = trawl_ctf_trace_create(0);
	if (!k->trace)
		return -ENOMEM;
	/* Stream classes first: the stream files are opened against them. */
	k->meta_h = trawl_output_file_open(k->out, "metadata", TRAWL_OUTPUT_METADATA);
	if (k->meta_h < 0)
		return k->meta_h;
	ret = meta_setup(k);
	if (ret < 0)
		return ret;
	ret = trawl_kernel_forks_create(&k->forks);
	if (ret == 0)
		ret = trawl_kernel_scaux_create(&k->scaux);
	if (ret < 0)
		return ret;
	if (trawl_kernel_bpf_create(k->forks, k->scaux, &k->bpf, err, sizeof(err)) < 0)
		fprintf(stderr, "trawl-consumerd --kernel: %s (process ids of forks come from /proc, "
			"syscall strings are left empty)\n", err);
	for (i = 0; i < k->nch; i++) {
		ret = chan_open(k, &k->ch[i]);
		if (ret < 0)
			return ret;
	}
	refresh(k); /* before 'R': tracing starts after it (not again in its first rounds) */
	/* before 'R' too: the dump precedes every traced event of CPU 0 (statedump.c) */
	for (i = 0; i < k->nch; i++)
		if (k->ch[i].statedump && !k->once)
			trawl_kernel_statedump_write(&k->ch[i].cpus[0].stream, NULL, NULL);
	/*
	 * Without a pipe, steady-state drains fall back to read().
	 * TRAWL_KERNEL_READ=read forces that (to measure one against the other).
	 */
	if ((getenv("TRAWL_KERNEL_READ") && !strcmp(getenv("TRAWL_KERNEL_READ"), "read")) ||
	    pipe2(k->pipe, O_CLOEXEC) < 0) {
		k->pipe[0] = k->pipe[1] = -1;
	} else if (fcntl(k->pipe[1], F_SETPIPE_SZ, (int)k->page_cap) < (int)k->page_cap) {
		/*
		 * splice() cuts its length to the pipe's free space (64 KiB by
		 * default) and trace_pipe_raw then refuses anything shorter
		 * than a sub-buffer (EINVAL): the pipe must hold one.
		 */
		close(k->pipe[0]);
		close(k->pipe[1]);
		k->pipe[0] = k->pipe[1] = -1;
	}
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * How far behind the time read before a CPU's drain its beacon is put, in
 * ns: a writer that read the clock before our drain but had not committed
 * its event when we read the page (see live_flush()). Writers do that with
 * preemption off, in microseconds, unless their (virtual) CPU is stalled;
 * the trace clock (ktime_get_mono_fast_ns) may also lag clock_gettime() by
 * a little. An event later than that is clamped to the beacon's time by
 * the converter (its stream's clock never goes back), so the trace stays
 * ordered whatever happens; the guard keeps that a rarity.
 */
#define BEACON_GUARD_NS 5000000u

/*
 * Streaming live: every live period, the pages still being written are
 * read too and every CPU's packet closed, so viewers get events within
 * about a period even when the kernel's sub-buffers fill slowly; and each
 * CPU read to the end gets a beacon (an empty packet, as the user-space
 * consumer cuts: consumerd/output.h) telling the live server up to when
 * it is known quiet, so viewers need not wait a derived margin.
 *
 * Why a CPU read to the end is quiet up to the time T read before the
 * drain: trace_pipe_raw's read() takes the kernel's reader page however
 * little it holds (ring_buffer_read_page() with full == 0 swaps the reader
 * page with the one being written, or copies its committed events when
 * they share a page), and we read until EAGAIN, i.e. until the buffer held
 * nothing committed. An event of this CPU stamped before T was therefore
 * read, unless its writer was between reading the clock and committing
 * when we read (BEACON_GUARD_NS). A CPU's events are stamped in order on
 * the trace clock, `mono`, which is our CLOCK_MONOTONIC. perf channels
 * (perf.c) have no such guarantee here and get no beacons.
 */
static int live_flush(struct kconsumer *k)
{
	uint64_t now = mono_ns();
	int i, j, ret;

	if (now < k->live_next_ns)
		return 0;
	k->live_next_ns = now + k->live_ns;
	for (i = 0; i < k->nch; i++) {
		for (j = 0; j < k->ch[i].ncpus; j++) {
			struct trawl_kernel_stream *s = &k->ch[i].cpus[j].stream;
			/* T: before the read that is to find the buffer empty */
			uint64_t t = mono_ns();

			ret = drain_cpu(k, &k->ch[i].cpus[j], 0, 1);
			if (ret < 0)
				return ret;
			/* 256 pages: drain_cpu() stopped before the end (let others have their turn) */
			if (k->beacons && !k->ch[i].perf && ret < 256 && t > BEACON_GUARD_NS)
				ret = trawl_kernel_stream_beacon(s, t - BEACON_GUARD_NS);
			else
				ret = trawl_kernel_stream_flush(s);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* Between a dump's processes: the buffers are drained as a round would (statedump.c). */
static void statedump_pause(void *arg)
{
	drain_all(arg, 0);
}

/*
 * `regenerate statedump`: CPU 0's pages are read to the end first, so the
 * dump's time is after everything of that stream converted so far.
 */
static int statedump_again(struct kconsumer *k)
{
	char rel[512], pid[24];
	int i, ret = 0;

	/*
	 * The dump reads ~20,000 /proc files: the kernel must not record this
	 * consumer's own syscalls meanwhile (measured: 35 MB of them in one
	 * dump of a session tracing openat/read/close, and events lost).
	 * set_event_notrace_pid costs every event a pid check (notrace.c), so
	 * it is set only for the dump.
	 */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	for (i = 0; i < k->nch; i++) {
		snprintf(rel, sizeof(rel), "%s/set_event_notrace_pid", k->ch[i].instance);
		trawl_kernel_write_file(rel, pid, 1);
	}
	for (i = 0; i < k->nch && ret >= 0; i++) {
		if (!k->ch[i].statedump || k->ch[i].perf)
			continue;
		ret = drain_cpu(k, &k->ch[i].cpus[0], 1, 1);
		if (ret >= 0)
			trawl_kernel_statedump_write(&k->ch[i].cpus[0].stream, statedump_pause, k);
	}
	for (i = 0; i < k->nch; i++) {
		snprintf(rel, sizeof(rel), "%s/set_event_notrace_pid", k->ch[i].instance);
		trawl_kernel_write_file(rel, "", 0);
	}
	return ret < 0 ? ret : 0;
}

/*
 * Events lost in this process, which the kernel's stats do not count: records
 * not converted, and a perf channel's every loss (its instance records nothing).
 */
static uint64_t own_lost(const struct kconsumer *k)
{
	uint64_t n = 0;
	int i, j;

	for (i = 0; i < k->nch; i++)
		for (j = 0; j < k->ch[i].ncpus; j++)
			n += k->ch[i].perf ? k->ch[i].cpus[j].stream.discarded
					   : k->ch[i].cpus[j].stream.unconverted;
	return n;
}

/*
 * 'K', or after a flush ('F', 'D') of a trace that lost packets, 'W', then
 * own_lost() (see the top of the file), then W's line saying what was lost;
 * in one write(). 0 or a negative errno.
 */
static int flush_answer(struct kconsumer *k, int out_fd, char cmd)
{
	char msg[1 + sizeof(uint64_t) + TRAWL_KERNEL_ERR_LEN + 2];
	char *line = msg + 1 + sizeof(uint64_t);
	uint64_t lost = own_lost(k);
	size_t n = 1 + sizeof(lost);

	msg[0] = 'K';
	memcpy(msg + 1, &lost, sizeof(lost));
	if ((cmd == 'F' || cmd == 'D') &&
	    trawl_output_broken(k->out, line, TRAWL_KERNEL_ERR_LEN + 1)) {
		msg[0] = 'W';
		n += strlen(line);
		msg[n++] = '\n';
	}
	return trawl_write_all(out_fd, msg, n);
}

/*
 * The consumer's loop: poll every CPU's buffer and the control socket, drain,
 * answer flushes. Returns 0 when told to quit (or at the end of --once), or a
 * negative errno.
 */
static int consumer_run(struct kconsumer *k, int ctl_fd)
{
	int out_fd = ctl_fd == 0 ? 1 : ctl_fd;
	int npfd = 1, i, j, ret = 0, quit = 0, busy = 0;
	struct pollfd *pfd;

	for (i = 0; i < k->nch; i++)
		npfd += k->ch[i].ncpus;
	pfd = calloc((size_t)npfd, sizeof(*pfd));
	if (!pfd)
		return -ENOMEM;
	pfd[0].fd = ctl_fd;
	pfd[0].events = POLLIN;
	for (i = 0, npfd = 1; i < k->nch; i++) {
		for (j = 0; j < k->ch[i].ncpus; j++, npfd++) {
			pfd[npfd].fd = k->ch[i].perf ? trawl_kernel_perf_poll_fd(k->ch[i].perf, j)
						     : k->ch[i].cpus[j].fd;
			pfd[npfd].events = POLLIN;
		}
	}
	/* Tell the spawner we are ready: it may start tracing now. */
	if (trawl_write_all(out_fd, "R", 1) < 0) {
		free(pfd);
		return -EPIPE;
	}
	if (k->once) {
		ret = drain_all(k, 1);
		quit = 1;
	} else {
		/*
		 * The refresher publishes its first set of trawl's threads only
		 * after a period, and refresh() then only takes sets: without
		 * these, records converted in the first second (a sub-buffer
		 * filled early) kept trawl's own events, the refresher's tracefs
		 * reads among them (kernel-notrace, 1 run in a clean-clone CI).
		 * Collected once before the thread starts (notrace.c resolves
		 * its parent's executable on the first call, unlocked) and once
		 * after, so that the refresher's own thread is in the set.
		 */
		trawl_kernel_hidden_collect(&k->hidden);
		ret = trawl_kernel_refresher_create(bpf_update_cb, k, &k->refresher);
		if (ret < 0) {
			fprintf(stderr, "trawl-consumerd --kernel: no refresher thread (%s): the draining "
				"thread takes trawl's processes and the BPF state itself\n", strerror(-ret));
			ret = 0;
		} else {
			trawl_kernel_hidden_collect(&k->hidden);
		}
	}
	while (!quit) {
		/*
		 * trace_pipe_raw is meant to wake pollers when buffer_percent of
		 * a CPU's buffer is full, but we measured the wake-ups arriving
		 * too late: with the 100 ms timeout alone, 2 M getppid() calls
		 * (47 MB/s of ftrace data) overflowed a 4 MiB buffer by 10-30 K
		 * events; a 20 ms timeout lost none, and a 5 ms one cost 50 %
		 * more consumer CPU for nothing. After a busy round we come
		 * back sooner.
		 */
		ret = poll(pfd, (nfds_t)npfd, busy ? 5 : 20);
		if (ret < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		if (pfd[0].revents) {
			char cmd = 'Q';

			if (read(ctl_fd, &cmd, 1) <= 0)
				cmd = 'Q'; /* the daemon is gone: write everything and exit */
			if (cmd == 'M') {
				ret = meta_rewrite(k);
				if (ret < 0)
					break;
				quit = flush_answer(k, out_fd, cmd) < 0;
				continue;
			}
			if (cmd == 'S') {
				ret = statedump_again(k);
				if (ret < 0)
					break;
				quit = flush_answer(k, out_fd, cmd) < 0;
				continue;
			}
			/* 'E'/'D': tracing starts/stops (perf channels only: ftrace has tracing_on) */
			if (cmd == 'E' || cmd == 'D' || cmd == 'Q') {
				ret = perf_enable_all(k, cmd == 'E');
				if (ret < 0)
					break;
			}
			ret = drain_all(k, 1);
			if (ret >= 0 && (cmd == 'D' || cmd == 'Q') && perf_flush_lost_all(k) > 0)
				ret = drain_all(k, 1);
			if (ret < 0)
				break;
			trawl_output_sync(k->out); /* streamed: on relayd's disk too */
			trawl_output_seal(k->out); /* a full disk: the trace says what it lost */
			quit = cmd == 'Q' || flush_answer(k, out_fd, cmd) < 0;
			continue;
		}
		ret = drain_all(k, 0);
		if (ret < 0)
			break;
		busy = ret >= 64;
		if (k->live_ns && (ret = live_flush(k)) < 0)
			break;
	}
	/* before the BPF object, sc_state and the channels it reads go */
	trawl_kernel_refresher_destroy(k->refresher);
	k->refresher = NULL;
	free(pfd);
	return ret < 0 ? ret : 0;
}

static void print_stats(const struct kconsumer *k)
{
	uint64_t events = 0, bytes = 0, lost = 0, unconverted = 0, hidden = 0;
	int i, j;

	for (i = 0; i < k->nch; i++) {
		for (j = 0; j < k->ch[i].ncpus; j++) {
			events += k->ch[i].cpus[j].stream.events;
			bytes += trawl_output_stream_bytes(k->ch[i].cpus[j].out);
			lost += k->ch[i].cpus[j].stream.discarded;
			unconverted += k->ch[i].cpus[j].stream.unconverted;
			hidden += k->ch[i].cpus[j].stream.hidden;
		}
	}
	bytes -= TRAWL_MIN(bytes, trawl_output_bytes_unlanded(k->out));
	/* lost: the trace's events_discarded (unconverted included); hidden: trawl's own, left out */
	fprintf(stderr, "trawl-consumerd --kernel: stats events=%llu bytes=%llu lost=%llu raw=%llu "
		"unconverted=%llu hidden=%llu max_gap_ms=%.1f max_refresh_ms=%.1f\n",
		(unsigned long long)events, (unsigned long long)bytes, (unsigned long long)lost,
		(unsigned long long)k->bytes, (unsigned long long)unconverted,
		(unsigned long long)hidden, (double)k->max_gap_ns / 1e6,
		(double)k->max_refresh_ns / 1e6);
}

int trawl_kernel_consumer_main(int argc, char **argv)
{
	struct kconsumer *k;
	int ctl_fd = 0, i, ret;

	k = calloc(1, sizeof(*k));
	if (!k)
		return 1;
	k->uid = (uid_t)-1;
	k->gid = (gid_t)-1;
	k->meta_h = -1;
	k->pipe[0] = k->pipe[1] = -1;
	ret = parse_args(k, argc, argv, &ctl_fd);
	if (ret < 0) {
		fprintf(stderr, "trawl-consumerd --kernel: usage: --output DIR (--channel NAME "
			"--instance INSTANCE [--context pid,tid,...])... [--ctl-fd N] [--once]\n");
		free(k);
		return 2;
	}
	ret = consumer_setup(k);
	if (ret < 0) {
		char line[TRAWL_KERNEL_ERR_LEN + 2];
		int n;

		if (!k->err[0] && k->out && trawl_output_error(k->out)[0])
			snprintf(k->err, sizeof(k->err), "%s", trawl_output_error(k->out));
		if (!k->err[0])
			snprintf(k->err, sizeof(k->err), "cannot set up %.160s: %s", k->dir,
				 strerror(-ret));
		fprintf(stderr, "trawl-consumerd --kernel: %s\n", k->err);
		/* instead of 'R': 'E' and the reason, for the spawner to show */
		n = snprintf(line, sizeof(line), "E%s\n", k->err);
		trawl_write_all(ctl_fd == 0 ? 1 : ctl_fd, line, (size_t)TRAWL_MIN(n, (int)sizeof(line) - 1));
		goto out;
	}
	/*
	 * A consumer that falls behind loses events: run ahead of ordinary
	 * tasks (root only; harmless if refused). Measured: with --all on a
	 * busy 2-core machine, a 60 ms stall of the consumer overflowed 4 MiB.
	 */
	if (geteuid() == 0 && setpriority(PRIO_PROCESS, 0, -10) < 0) {
		/* keep the default priority */
	}
	/* A daemon that died must not kill us with SIGPIPE before the data is written. */
	signal(SIGPIPE, SIG_IGN);
	ret = consumer_run(k, ctl_fd);
	if (ret < 0)
		fprintf(stderr, "trawl-consumerd --kernel: %s\n", strerror(-ret));
	if (ret >= 0 && trawl_output_broken(k->out, k->err, sizeof(k->err))) {
		/* trawl-ktrace's caller learns it from the status; the daemon had 'W' */
		fprintf(stderr, "trawl-consumerd --kernel: %s\n", k->err);
		ret = -trawl_output_errno(k->out);
	}
	if (getenv("TRAWL_KERNEL_STATS"))
		print_stats(k);
out:
	for (i = 0; i < k->nch; i++)
		chan_close(&k->ch[i]);
	trawl_output_destroy(k->out);
	trawl_ctf_trace_destroy(k->trace);
	if (k->pipe[0] >= 0) {
		close(k->pipe[0]);
		close(k->pipe[1]);
	}
	trawl_kernel_hidden_free(&k->hidden);
	trawl_kernel_bpf_destroy(k->bpf);
	trawl_kernel_forks_destroy(k->forks);
	trawl_kernel_scaux_destroy(k->scaux);
	free(k->page);
	free(k);
	return ret < 0 ? 1 : 0;
}
