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
 * rewritten whole (regenerate statedump / metadata), each answered 'K';
 * 'T', a u32 (native order) and that many bytes = the process trackers
 * from now on (tracker.c's lines), answered 'K' once in effect.
 * The 'K' or 'W' is followed at once by a u64 (native
 * order: the session runs on this machine), the events lost in this process
 * (see above), before the 'W''s line.
 * --once (snapshots): one buffer's worth of pages per CPU, then exit.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "common/log.h"
#include "consumerd/consumerd.h"
#include "consumerd/kernel-consumer-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int consumer_setup(struct kconsumer *k)
{
	char err[256];
	int i, ret;

	ret = trawl_output_create(k->dir, k->uid, k->gid, &k->out, err, sizeof(err));
	if (ret < 0) {
		trawl_msg_fmt(k->err, sizeof(k->err), "%s",
			      err); /* for the spawner: the user sees it */
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
	ret = kcons_meta_setup(k);
	if (ret < 0)
		return ret;
	ret = trawl_kernel_forks_create(&k->forks);
	if (ret == 0)
		ret = trawl_kernel_scaux_create(&k->scaux);
	if (ret < 0)
		return ret;
	if (trawl_kernel_bpf_create(k->forks, k->scaux, &k->bpf, err, sizeof(err)) < 0)
		trawl_log(TRAWL_LOG_WARN, "kernel consumer: %s (process ids of forks come from /proc, "
			"syscall strings are left empty)", err);
	ret = trawl_kernel_trackers_create(&k->trackers);
	if (ret < 0)
		return ret;
	if (k->bpf)
		trawl_kernel_trackers_set_drain(k->trackers, kcons_bpf_drain_cb, k->bpf);
	if (k->tracker_spec) {
		ret = trawl_kernel_trackers_set(k->trackers, k->tracker_spec, k->tracker_len, 0, err,
						sizeof(err));
		if (ret < 0) {
			trawl_msg_fmt(k->err, sizeof(k->err), "%s", err);
			return ret;
		}
		kcons_trackers_apply(k); /* before the channels: their converters take the trackers */
	}
	for (i = 0; i < k->nch; i++) {
		ret = kcons_chan_open(k, &k->ch[i]);
		if (ret < 0)
			return ret;
	}
	kcons_refresh(k); /* before 'R': tracing starts after it (not again in its first rounds) */
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

/* The control fd then every CPU's buffer (or perf ring), for poll(). Caller frees. */
static struct pollfd *pollfds_make(const struct kconsumer *k, int ctl_fd, int *npfd)
{
	struct pollfd *pfd;
	int i, j, n = 1;

	for (i = 0; i < k->nch; i++)
		n += k->ch[i].ncpus;
	pfd = calloc((size_t)n, sizeof(*pfd));
	if (!pfd)
		return NULL;
	pfd[0].fd = ctl_fd;
	pfd[0].events = POLLIN;
	for (i = 0, n = 1; i < k->nch; i++) {
		for (j = 0; j < k->ch[i].ncpus; j++, n++) {
			pfd[n].fd = k->ch[i].perf ? trawl_kernel_perf_poll_fd(k->ch[i].perf, j)
						  : k->ch[i].cpus[j].fd;
			pfd[n].events = POLLIN;
		}
	}
	*npfd = n;
	return pfd;
}

static void refresher_start(struct kconsumer *k)
{
	int ret;

	/*
	 * The refresher publishes its first set of trawl's threads only
	 * after a period, and kcons_refresh() then only takes sets: without
	 * these, records converted in the first second (a sub-buffer
	 * filled early) kept trawl's own events, the refresher's tracefs
	 * reads among them (kernel-notrace, 1 run in a clean-clone CI).
	 * Collected once before the thread starts (notrace.c resolves
	 * its parent's executable on the first call, unlocked) and once
	 * after, so that the refresher's own thread is in the set.
	 */
	trawl_kernel_hidden_collect(&k->hidden);
	ret = trawl_kernel_refresher_create(kcons_bpf_update_cb, k, &k->refresher);
	if (ret < 0)
		trawl_log(TRAWL_LOG_WARN, "kernel consumer: no refresher thread (%s): the draining "
			"thread takes trawl's processes and the BPF state itself", strerror(-ret));
	else
		trawl_kernel_hidden_collect(&k->hidden);
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Reads exactly @len bytes (the daemon wrote them at once). 0 or a negative errno. */
static int read_all(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		got += (size_t)n;
	}
	return 0;
}

void kcons_trackers_apply(struct kconsumer *k)
{
	const uint32_t creds = (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5); /* uid vuid gid vgid */
	uint32_t attrs = trawl_kernel_trackers_attrs(k->trackers), was = k->tracker_attrs;
	uint64_t now = mono_ns();
	int i;

	if (!attrs || attrs == was)
		return;
	k->tracker_attrs |= attrs;
	for (i = 0; i < k->nch; i++)
		k->ch[i].conv.trackers = k->trackers;
	/*
	 * The programs first, then /proc: a thread forked or changing its
	 * credentials meanwhile is told by BPF (tracker.c). The first look
	 * at /proc holds from the start; a later one (the credential program
	 * attached only now) from now on.
	 */
	if (k->bpf) {
		trawl_kernel_bpf_set_trackers(k->bpf, k->trackers);
		if (trawl_kernel_bpf_attach_fork(k->bpf) < 0)
			trawl_log(TRAWL_LOG_WARN, "kernel consumer: cannot attach the sched_process_fork "
				"BPF program: the trackers read new processes' ids from /proc");
		if ((attrs & creds) && trawl_kernel_bpf_attach_cred(k->bpf) < 0)
			trawl_log(TRAWL_LOG_WARN, "kernel consumer: cannot attach the credential BPF "
				"program: the user and group trackers read ids from /proc");
	}
	if (!was || ((attrs & creds) && !(was & creds)))
		trawl_kernel_trackers_prime(k->trackers, was ? now : 0);
}

/* 'T': the trackers' new sets, in effect for every record made from now on. */
static int control_trackers(struct kconsumer *k, int ctl_fd)
{
	uint64_t now = mono_ns();
	char err[TRAWL_KERNEL_ERR_LEN];
	uint32_t len;
	char *spec;
	int ret;

	if (read_all(ctl_fd, &len, sizeof(len)) < 0 || len > (1u << 20))
		return -EPROTO;
	spec = malloc(len + 1u);
	if (!spec)
		return -ENOMEM;
	ret = read_all(ctl_fd, spec, len);
	if (ret >= 0) {
		ret = trawl_kernel_trackers_set(k->trackers, spec, len, now, err, sizeof(err));
		if (ret == -EINVAL) {
			trawl_log(TRAWL_LOG_ERROR, "kernel consumer: %s", err); /* (the daemon checks them) */
			ret = 0;
		}
	}
	free(spec);
	if (ret >= 0)
		kcons_trackers_apply(k);
	return ret < 0 ? ret : 0;
}

/*
 * One command from the daemon (the top of the file says which). Sets
 * *@quit when the consumer is to exit. 0 or a negative errno.
 */
static int control(struct kconsumer *k, int ctl_fd, int out_fd, int *quit)
{
	char cmd = 'Q';
	int ret;

	if (read(ctl_fd, &cmd, 1) <= 0)
		cmd = 'Q'; /* the daemon is gone: write everything and exit */
	if (cmd == 'M') {
		ret = kcons_meta_rewrite(k);
		if (ret < 0)
			return ret;
		*quit = flush_answer(k, out_fd, cmd) < 0;
		return 0;
	}
	if (cmd == 'T') {
		ret = control_trackers(k, ctl_fd);
		if (ret < 0)
			return ret;
		*quit = flush_answer(k, out_fd, cmd) < 0;
		return 0;
	}
	if (cmd == 'S') {
		ret = kcons_statedump_again(k);
		if (ret < 0)
			return ret;
		*quit = flush_answer(k, out_fd, cmd) < 0;
		return 0;
	}
	/* 'E'/'D': tracing starts/stops (perf channels only: ftrace has tracing_on) */
	if (cmd == 'E' || cmd == 'D' || cmd == 'Q') {
		ret = kcons_perf_enable_all(k, cmd == 'E');
		if (ret < 0)
			return ret;
	}
	ret = kcons_drain_all(k, 1);
	if (ret >= 0 && (cmd == 'D' || cmd == 'Q') && kcons_perf_flush_lost_all(k) > 0)
		ret = kcons_drain_all(k, 1);
	if (ret < 0)
		return ret;
	trawl_output_sync(k->out); /* streamed: on relayd's disk too */
	trawl_output_seal(k->out); /* a full disk: the trace says what it lost */
	*quit = cmd == 'Q' || flush_answer(k, out_fd, cmd) < 0;
	return 0;
}

/*
 * The consumer's loop: poll every CPU's buffer and the control socket, drain,
 * answer flushes. Returns 0 when told to quit (or at the end of --once), or a
 * negative errno.
 */
static int consumer_run(struct kconsumer *k, int ctl_fd)
{
	int out_fd = ctl_fd == 0 ? 1 : ctl_fd;
	int npfd, ret = 0, quit = 0, busy = 0;
	struct pollfd *pfd = pollfds_make(k, ctl_fd, &npfd);

	if (!pfd)
		return -ENOMEM;
	/* Tell the spawner we are ready: it may start tracing now. */
	if (trawl_write_all(out_fd, "R", 1) < 0) {
		free(pfd);
		return -EPIPE;
	}
	if (k->once) {
		ret = kcons_drain_all(k, 1);
		quit = 1;
	} else {
		refresher_start(k);
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
		/*
		 * Each command and each round is bounded (output.h): a relayd
		 * taking our bytes slowly would otherwise keep the daemon, which
		 * waits for our answer with root's one thread, waiting too.
		 */
		if (pfd[0].revents) {
			trawl_output_deadline(k->out, TRAWL_OUTPUT_COMMAND_MS);
			ret = control(k, ctl_fd, out_fd, &quit);
			trawl_output_deadline(k->out, 0);
			if (ret < 0)
				break;
			continue;
		}
		trawl_output_deadline(k->out, TRAWL_OUTPUT_ROUND_MS);
		ret = kcons_drain_all(k, 0);
		busy = ret >= 64;
		if (ret >= 0 && k->live_ns)
			ret = kcons_live_flush(k);
		trawl_output_deadline(k->out, 0);
		if (ret < 0)
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
	uint64_t events = 0, bytes = 0, lost = 0, unconverted = 0, hidden = 0, untracked, unknown;
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
	trawl_kernel_trackers_counts(k->trackers, &untracked, &unknown);
	/* lost: the trace's events_discarded (unconverted included); hidden: trawl's own, left out */
	trawl_log(TRAWL_LOG_INFO, "kernel consumer: stats events=%llu bytes=%llu lost=%llu raw=%llu "
		"unconverted=%llu hidden=%llu untracked=%llu untracked_unknown=%llu "
		"max_gap_ms=%.1f max_refresh_ms=%.1f",
		(unsigned long long)events, (unsigned long long)bytes, (unsigned long long)lost,
		(unsigned long long)k->bytes, (unsigned long long)unconverted,
		(unsigned long long)hidden, (unsigned long long)untracked,
		(unsigned long long)unknown, (double)k->max_gap_ns / 1e6,
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
	ret = kcons_parse_args(k, argc, argv, &ctl_fd);
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
			trawl_msg_fmt(k->err, sizeof(k->err), "%s", trawl_output_error(k->out));
		if (!k->err[0])
			trawl_msg_fmt(k->err, sizeof(k->err), "cannot set up %.160s: %s", k->dir,
				      strerror(-ret));
		trawl_log(TRAWL_LOG_ERROR, "kernel consumer: %s", k->err);
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
		trawl_log(TRAWL_LOG_ERROR, "kernel consumer: %s", strerror(-ret));
	if (ret >= 0 && trawl_output_broken(k->out, k->err, sizeof(k->err))) {
		/* trawl-ktrace's caller learns it from the status; the daemon had 'W' */
		trawl_log(TRAWL_LOG_ERROR, "kernel consumer: %s", k->err);
		ret = -trawl_output_errno(k->out);
	}
	if (getenv("TRAWL_KERNEL_STATS"))
		print_stats(k);
out:
	for (i = 0; i < k->nch; i++)
		kcons_chan_close(&k->ch[i]);
	trawl_output_destroy(k->out);
	trawl_ctf_trace_destroy(k->trace);
	if (k->pipe[0] >= 0) {
		close(k->pipe[0]);
		close(k->pipe[1]);
	}
	trawl_kernel_hidden_free(&k->hidden);
	trawl_kernel_bpf_destroy(k->bpf);
	trawl_kernel_trackers_destroy(k->trackers);
	free(k->tracker_spec);
	trawl_kernel_forks_destroy(k->forks);
	trawl_kernel_scaux_destroy(k->scaux);
	free(k->page);
	free(k);
	return ret < 0 ? 1 : 0;
}
