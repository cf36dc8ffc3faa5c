/* SPDX-License-Identifier: MIT */
/*
 * kernel-drain.c - moving the CPUs' pages into packets: full sub-buffers
 * by splice(), partial ones by read() (kernel-consumer.c says why), the
 * losses only the stats file counts, the live flushes and their beacons,
 * and `regenerate statedump`.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "consumerd/kernel-consumer-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
int kcons_drain_cpu(struct kconsumer *k, struct kcpu *c, int final, int partial)
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

int kcons_drain_all(struct kconsumer *k, int final)
{
	int i, j, ret, total = 0;

	kcons_refresh(k);
	/* BPF's records before the ftrace pages they complete */
	if (k->bpf)
		trawl_kernel_bpf_drain(k->bpf);

	for (i = 0; i < k->nch; i++) {
		for (j = 0; j < k->ch[i].ncpus; j++) {
			ret = kcons_drain_cpu(k, &k->ch[i].cpus[j], final, final || k->once);
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

int kcons_perf_enable_all(struct kconsumer *k, int on)
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
int kcons_perf_flush_lost_all(struct kconsumer *k)
{
	int i, n = 0;

	for (i = 0; i < k->nch; i++)
		if (k->ch[i].perf && trawl_kernel_perf_flush_lost(k->ch[i].perf) > 0)
			n++;
	return n;
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
 * its event when we read the page (see kcons_live_flush()). Writers do that with
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
int kcons_live_flush(struct kconsumer *k)
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

			ret = kcons_drain_cpu(k, &k->ch[i].cpus[j], 0, 1);
			if (ret < 0)
				return ret;
			/* 256 pages: kcons_drain_cpu() stopped before the end (let others have their turn) */
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
	kcons_drain_all(arg, 0);
}

/*
 * `regenerate statedump`: CPU 0's pages are read to the end first, so the
 * dump's time is after everything of that stream converted so far.
 */
int kcons_statedump_again(struct kconsumer *k)
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
	for (i = 0; i < k->nch; i++)
		if (!trawl_path_fmt(rel, sizeof(rel), "%s/set_event_notrace_pid", k->ch[i].instance))
			trawl_kernel_write_file(rel, pid, 1);
	for (i = 0; i < k->nch && ret >= 0; i++) {
		if (!k->ch[i].statedump || k->ch[i].perf)
			continue;
		ret = kcons_drain_cpu(k, &k->ch[i].cpus[0], 1, 1);
		if (ret >= 0)
			trawl_kernel_statedump_write(&k->ch[i].cpus[0].stream, statedump_pause, k);
	}
	for (i = 0; i < k->nch; i++)
		if (!trawl_path_fmt(rel, sizeof(rel), "%s/set_event_notrace_pid", k->ch[i].instance))
			trawl_kernel_write_file(rel, "", 0);
	return ret < 0 ? ret : 0;
}
