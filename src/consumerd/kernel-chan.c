/* SPDX-License-Identifier: MIT */
/*
 * kernel-chan.c - a channel of the kernel consumer: its event tables and
 * converter, and per CPU its trace_pipe_raw, stats file and stream files.
 */
#include "common/common.h"
#include "consumerd/kernel-consumer-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int emit_packet(struct trawl_kernel_stream *s, const uint8_t *pkt, size_t len, void *arg)
{
	struct kcpu *c = arg;
	/* the converter emits a packet before it adds the next event: these are its events */
	int64_t n = trawl_output_stream_packet(c->out, pkt, len, (int64_t)(s->events - c->events_out));

	c->events_out = s->events;
	/* 0: lost to a full disk or a gone relayd, counted by the output (output.h) */
	return n < 0 ? (int)n : 0;
}

void kcons_bpf_drain_cb(void *arg)
{
	trawl_kernel_bpf_drain(arg);
}

static int count_cpus(const char *instance)
{
	char rel[512], path[768];
	int n = 0;

	for (;;) {
		if (trawl_path_fmt(rel, sizeof(rel), "%s/per_cpu/cpu%d", instance, n) ||
		    trawl_kernel_path(path, sizeof(path), rel) < 0 || access(path, F_OK) < 0)
			break;
		n++;
	}
	return n;
}

/* CPU @i of @ch: its trace_pipe_raw and stats (not for perf channels), its stream. */
static int cpu_open(struct kconsumer *k, struct kchan *ch, int i)
{
	struct kcpu *c = &ch->cpus[i];
	char rel[512], path[768];
	int ret;

	c->ch = ch;
	c->fd = -1;
	c->stats_fd = -1;
	if (!ch->nperf) { /* the perf groups are opened by the caller, once for all CPUs */
		if (!trawl_path_fmt(rel, sizeof(rel), "%s/per_cpu/cpu%d/stats", ch->instance, i) &&
		    trawl_kernel_path(path, sizeof(path), rel) == 0)
			c->stats_fd = open(path, O_RDONLY | O_CLOEXEC);
		ret = trawl_path_fmt(rel, sizeof(rel), "%s/per_cpu/cpu%d/trace_pipe_raw", ch->instance, i);
		if (ret == 0)
			ret = trawl_kernel_path(path, sizeof(path), rel);
		if (ret < 0)
			return ret;
		c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->fd < 0)
			return -errno;
	}
	ret = trawl_path_fmt(rel, sizeof(rel), "%s_%d", ch->name, i);
	if (ret)
		return ret;
	c->out = trawl_output_stream_open_split(k->out, rel, (uint64_t)ch->id << 32 | (uint32_t)i,
						ch->tracefile_size, ch->tracefile_count);
	if (!c->out)
		return -errno;
	/* packets of at most 1 MiB, and no larger than a trace file (each file holds whole ones) */
	return trawl_kernel_stream_init(&c->stream, &ch->conv, (uint32_t)i,
					ch->tracefile_size && ch->tracefile_size < (1u << 20)
						? (size_t)ch->tracefile_size
						: 1u << 20,
					emit_packet, c);
}

int kcons_chan_open(struct kconsumer *k, struct kchan *ch)
{
	char rel[512], buf[64];
	int i, ret;

	ch->k = k;
	ret = trawl_kernel_events_create(ch->instance, &ch->events);
	if (ret < 0)
		return ret;
	trawl_kernel_converter_init(&ch->conv, ch->events, trawl_ctf_trace_uuid(k->trace));
	memcpy(ch->conv.ctx, ch->ctx, sizeof(ch->ctx));
	ch->conv.nctx = ch->nctx;
	ch->conv.stream_id = ch->id;
	ch->conv.declare = kcons_declare_event;
	ch->conv.arg = ch;
	ch->conv.hidden = &k->hidden;
	if (ch->statedump && (ret = trawl_kernel_statedump_register(ch->events)) < 0)
		return ret;
	ch->conv.forks = k->forks;
	ch->conv.scaux = k->scaux;
	ch->conv.bpf_drain = k->bpf ? kcons_bpf_drain_cb : NULL;
	ch->conv.bpf_arg = k->bpf;
	ch->conv.trackers = k->tracker_attrs ? k->trackers : NULL;
	/* the instance name was checked to fit (kcons_parse_args()): these fit too */
	ch->page_size = 4096;
	if (!trawl_path_fmt(rel, sizeof(rel), "%s/buffer_subbuf_size_kb", ch->instance) &&
	    trawl_kernel_read_file(rel, buf, sizeof(buf)) > 0 && atoi(buf) >= 4)
		ch->page_size = (size_t)atoi(buf) * 1024;
	ch->buffer_pages = 1024;
	if (!trawl_path_fmt(rel, sizeof(rel), "%s/buffer_size_kb", ch->instance) &&
	    trawl_kernel_read_file(rel, buf, sizeof(buf)) > 0 && atoll(buf) > 0)
		ch->buffer_pages = (uint64_t)atoll(buf) * 1024 / ch->page_size + 2;
	if (!trawl_path_fmt(rel, sizeof(rel), "%s/options/overwrite", ch->instance) &&
	    trawl_kernel_read_file(rel, buf, sizeof(buf)) > 0)
		ch->overwrite = buf[0] == '1';
	ch->ncpus = count_cpus(ch->instance);
	if (ch->ncpus <= 0 || ch->ncpus > MAX_CPUS)
		return -ENOENT;
	ch->cpus = calloc((size_t)ch->ncpus, sizeof(*ch->cpus));
	if (!ch->cpus)
		return -ENOMEM;
	/* kcons_chan_close() after a CPU failed to open must not close fd 0 for the rest */
	for (i = 0; i < ch->ncpus; i++)
		ch->cpus[i].fd = ch->cpus[i].stats_fd = -1;
	if (ch->page_size > k->page_cap) {
		free(k->page);
		k->page = malloc(ch->page_size);
		if (!k->page)
			return -ENOMEM;
		k->page_cap = ch->page_size;
	}
	for (i = 0; i < ch->ncpus; i++) {
		ret = cpu_open(k, ch, i);
		if (ret < 0)
			return ret;
	}
	if (ch->nperf)
		return trawl_kernel_perf_create(ch->instance, ch->perf_ctx, ch->nperf, ch->ncpus,
						ch->buffer_pages * ch->page_size, getpid(), &ch->perf,
						k->err, sizeof(k->err));
	return 0;
}

void kcons_chan_close(struct kchan *ch)
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
