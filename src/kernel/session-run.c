/* SPDX-License-Identifier: MIT */
/*
 * A kernel session's runs: start, stop, snapshot, regenerate, switch (a
 * rotation or clear) and finish. Each is in halves for the root daemon's
 * one thread: _send returns the consumer's socket when an answer is due
 * (0 when none is), and _recv reads it once readable; the call without a
 * suffix does both, waiting.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"
#include "kernel/session-internal.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int has_perf(const struct trawl_kernel_session *s)
{
	int i;

	for (i = 0; i < s->nch; i++)
		if (s->ch[i].nperf)
			return 1;
	return 0;
}

static int set_tracing(struct trawl_kernel_session *s, int on)
{
	int i, ret, first = 0;

	for (i = 0; i < s->nch; i++) {
		/* a perf channel's instance only holds its configuration: it never records */
		if (on && s->ch[i].nperf)
			continue;
		ret = trawl_kernel_instance_set_tracing(s->ch[i].inst, on);
		if (ret < 0 && !first)
			first = ret;
	}
	return first;
}

/*
 * The consumer has read a perf channel's events and filters from its
 * instance and opened them through perf: the instance's own copies would
 * only cost every hit a call into ftrace that finds tracing off.
 */
static void perf_instances_quiet(struct trawl_kernel_session *s)
{
	int i;

	for (i = 0; i < s->nch; i++)
		if (s->ch[i].nperf)
			trawl_kernel_instance_write(s->ch[i].inst, "events/enable", "0");
}

/* Started once the consumer is ready (or none is needed): tracing on, perf told. */
static int start_tracing(struct trawl_kernel_session *s, char *err, size_t errlen)
{
	int ret = set_tracing(s, 1);

	if (ret < 0) {
		trawl_msg_fmt(err, errlen, "cannot turn kernel tracing on: %s", strerror(-ret));
		return ret;
	}
	if (s->consumer && has_perf(s)) {
		/* 'E' starts the perf channels: its 'K' is awaited (_recv) */
		if (send(s->ctl_fd, "E", 1, MSG_NOSIGNAL) != 1)
			return trawl_kernel_session_start_recv(s, -EPIPE, err, errlen);
		s->stage = STAGE_PERF;
		return s->ctl_fd;
	}
	return 0;
}

int trawl_kernel_session_start_send(struct trawl_kernel_session *s, const char *consumer,
				    char *err, size_t errlen)
{
	int ret;

	s->stage = STAGE_NONE;
	if (!s->nch) {
		trawl_msg_fmt(err, errlen, "the session has no kernel channel");
		return -ENOENT;
	}
	if (!s->consumer && !s->snapshot) {
		ret = ksession_consumer_spawn(s, consumer, s->output, 0);
		if (ret < 0) {
			trawl_msg_fmt(err, errlen, "cannot start the kernel consumer %s: %s",
				      consumer, strerror(-ret));
			return ret;
		}
		s->consumer_prog = consumer;
		s->stage = STAGE_READY;
		return s->ctl_fd;
	}
	return start_tracing(s, err, errlen);
}

int trawl_kernel_session_start_recv(struct trawl_kernel_session *s, int failed, char *err,
				    size_t errlen)
{
	int stage = s->stage, ret;

	s->stage = STAGE_NONE;
	if (stage == STAGE_READY) {
		ret = ksession_consumer_ready_read(s, failed, s->consumer_prog, err, errlen);
		if (ret < 0) {
			ksession_consumer_reap(s, 1);
			return ret;
		}
		perf_instances_quiet(s);
		return start_tracing(s, err, errlen);
	}
	ret = failed ? failed : ksession_consumer_wait(s, 'K', 0);
	if (ret < 0)
		trawl_msg_fmt(err, errlen,
			      "the kernel consumer could not start its perf events: %s",
			      strerror(-ret));
	return ret;
}

int trawl_kernel_session_start(struct trawl_kernel_session *s, const char *consumer, char *err,
			       size_t errlen)
{
	int fd = trawl_kernel_session_start_send(s, consumer, err, errlen);

	while (fd > 0)
		fd = trawl_kernel_session_start_recv(s, ksession_ctl_wait(fd), err, errlen);
	return fd;
}

/*
 * A dump reads every process's /proc files: measured 0.3 s on an idle
 * 2-CPU machine with 250 threads, over 30 s on the same machine loaded
 * by parallel builds and tests.
 */
#define STATEDUMP_TIMEOUT_MS 300000

int trawl_kernel_session_regenerate_timeout_ms(int statedump)
{
	return statedump ? STATEDUMP_TIMEOUT_MS : CONSUMER_TIMEOUT_MS;
}

int trawl_kernel_session_regenerate_send(struct trawl_kernel_session *s, int statedump,
					 char *err, size_t errlen)
{
	if (!s->consumer) {
		trawl_msg_fmt(
			err, errlen,
			"the session's kernel consumer is not running (start the session first)");
		return -ESRCH;
	}
	if (send(s->ctl_fd, statedump ? "S" : "M", 1, MSG_NOSIGNAL) != 1)
		return trawl_kernel_session_regenerate_recv(s, statedump, -EPIPE, err, errlen);
	return s->ctl_fd;
}

int trawl_kernel_session_regenerate_recv(struct trawl_kernel_session *s, int statedump,
					 int failed, char *err, size_t errlen)
{
	int ret = failed ? failed : ksession_consumer_wait(s, 'K', 0);

	if (ret < 0)
		trawl_msg_fmt(err, errlen, statedump
				  ? "the kernel consumer did not write the state dump: %s"
				  : "the kernel consumer did not rewrite the metadata: %s",
			      strerror(-ret));
	return ret;
}

static int regenerate(struct trawl_kernel_session *s, int statedump, char *err, size_t errlen)
{
	struct pollfd p = {.events = POLLIN};
	int fd = trawl_kernel_session_regenerate_send(s, statedump, err, errlen), ret;

	if (fd <= 0)
		return fd;
	p.fd = fd;
	ret = poll(&p, 1, trawl_kernel_session_regenerate_timeout_ms(statedump));
	return trawl_kernel_session_regenerate_recv(s, statedump,
						    ret > 0 ? 0 : ret == 0 ? -ETIMEDOUT : -errno,
						    err, errlen);
}

int trawl_kernel_session_regenerate_statedump(struct trawl_kernel_session *s, char *err, size_t errlen)
{
	return regenerate(s, 1, err, errlen);
}

int trawl_kernel_session_regenerate_metadata(struct trawl_kernel_session *s, char *err, size_t errlen)
{
	return regenerate(s, 0, err, errlen);
}

int trawl_kernel_session_stop_send(struct trawl_kernel_session *s, char *err, size_t errlen)
{
	int ret;

	ret = set_tracing(s, 0);
	if (ret < 0) {
		trawl_msg_fmt(err, errlen, "cannot turn kernel tracing off: %s", strerror(-ret));
		return ret;
	}
	if (!s->consumer)
		return 0;
	/* 'D' stops the perf channels, then drains as 'F' does */
	if (send(s->ctl_fd, has_perf(s) ? "D" : "F", 1, MSG_NOSIGNAL) != 1)
		return trawl_kernel_session_stop_recv(s, -EPIPE, err, errlen);
	return s->ctl_fd;
}

int trawl_kernel_session_stop_recv(struct trawl_kernel_session *s, int failed, char *err,
				   size_t errlen)
{
	int ret = failed ? failed : ksession_consumer_wait_flushed(s);

	if (ret == -EIO) {
		trawl_msg_fmt(err, errlen, "%s", s->problem); /* the trace is not whole: say so */
		return ret;
	}
	if (ret < 0) {
		ret = -EPIPE;
		trawl_msg_fmt(err, errlen, "the kernel consumer died: the trace may be incomplete");
		ksession_consumer_reap(s, 1);
		return ret;
	}
	return 0;
}

int trawl_kernel_session_stop(struct trawl_kernel_session *s, char *err, size_t errlen)
{
	int fd = trawl_kernel_session_stop_send(s, err, errlen);

	if (fd <= 0)
		return fd;
	return trawl_kernel_session_stop_recv(s, ksession_ctl_wait(fd), err, errlen);
}

int trawl_kernel_session_snapshot_send(struct trawl_kernel_session *s, const char *consumer,
				       const char *dir, char *err, size_t errlen)
{
	int ret;

	if (s->consumer) {
		trawl_msg_fmt(err, errlen, "a kernel consumer is already running for this session");
		return -EBUSY;
	}
	ret = ksession_consumer_spawn(s, consumer, dir, 1);
	if (ret < 0) {
		trawl_msg_fmt(err, errlen, "cannot start the kernel consumer %s: %s", consumer,
			      strerror(-ret));
		return ret;
	}
	/* 'R' once its buffers are open, then end of file once the trace is written */
	s->stage = STAGE_SNAP_READY;
	return s->ctl_fd;
}

int trawl_kernel_session_snapshot_recv(struct trawl_kernel_session *s, int failed, char *err,
				       size_t errlen)
{
	int stage = s->stage, ret = failed;
	char c;

	s->stage = STAGE_NONE;
	if (!ret && stage == STAGE_SNAP_READY) {
		ret = ksession_consumer_wait(s, 'R', 0);
		if (!ret) {
			s->stage = STAGE_SNAP_END;
			return s->ctl_fd;
		}
	} else if (!ret && read(s->ctl_fd, &c, 1) != 0) {
		ret = -EPROTO;
	}
	ksession_consumer_reap(s, ret < 0);
	if (ret < 0)
		trawl_msg_fmt(err, errlen, "the kernel snapshot consumer failed: %s",
			      strerror(-ret));
	return ret;
}

int trawl_kernel_session_snapshot(struct trawl_kernel_session *s, const char *consumer,
				  const char *dir, char *err, size_t errlen)
{
	int fd = trawl_kernel_session_snapshot_send(s, consumer, dir, err, errlen);

	while (fd > 0)
		fd = trawl_kernel_session_snapshot_recv(s, ksession_ctl_wait(fd), err, errlen);
	return fd;
}

/*
 * 'Q' to the consumer, if one runs: it drains everything (partial pages
 * too), writes, and exits, closing its end of the socket: the fd to wait
 * on, returned; 0 when none runs or it could not be told (then reaped).
 */
static int consumer_quit_send(struct trawl_kernel_session *s)
{
	if (!s->consumer)
		return 0;
	if (send(s->ctl_fd, "Q", 1, MSG_NOSIGNAL) != 1) {
		ksession_consumer_reap(s, 1);
		return 0;
	}
	return s->ctl_fd;
}

int trawl_kernel_session_finish_send(struct trawl_kernel_session *s)
{
	set_tracing(s, 0);
	return consumer_quit_send(s);
}

void trawl_kernel_session_finish_recv(struct trawl_kernel_session *s, int failed)
{
	ksession_consumer_reap(s, failed != 0);
}

int trawl_kernel_session_switch_send(struct trawl_kernel_session *s, int tracing_off, char *err,
				     size_t errlen)
{
	int ret;

	if (tracing_off && (ret = set_tracing(s, 0)) < 0) {
		trawl_msg_fmt(err, errlen, "cannot turn kernel tracing off: %s", strerror(-ret));
		return ret;
	}
	/* tracing may go on: what comes meanwhile waits in the kernel's buffers */
	return consumer_quit_send(s);
}

int trawl_kernel_session_switch_recv(struct trawl_kernel_session *s, int failed,
				     int tracing_off, const char *output, char *err,
				     size_t errlen)
{
	int i, ret = failed;

	if (s->consumer) {
		ksession_consumer_reap(s, ret != 0);
		if (ret)
			trawl_msg_fmt(err, errlen, "the kernel consumer did not finish the "
						   "trace chunk: %s", strerror(-ret));
	}
	if (output && trawl_path_fmt(s->output, sizeof(s->output), "%s", output)) {
		trawl_msg_fmt(err, errlen, "trace folder too long: %s", output);
		return -ENAMETOOLONG;
	}
	if (tracing_off) {
		/* clear: what the buffers still hold goes (opened with O_TRUNC) */
		for (i = 0; i < s->nch; i++) {
			char rel[512];

			if (s->ch[i].nperf ||
			    trawl_path_fmt(rel, sizeof(rel), "%s/trace", s->ch[i].inst->path))
				continue;
			trawl_kernel_write_file(rel, "", 0);
		}
	}
	return ret < 0 ? ret : 0;
}

int trawl_kernel_session_switch(struct trawl_kernel_session *s, int tracing_off,
				const char *output, char *err, size_t errlen)
{
	int fd = trawl_kernel_session_switch_send(s, tracing_off, err, errlen);

	if (fd < 0)
		return fd;
	return trawl_kernel_session_switch_recv(s, fd > 0 ? ksession_ctl_wait(fd) : 0, tracing_off,
						output, err, errlen);
}

void trawl_kernel_session_consumer_finish(struct trawl_kernel_session *s)
{
	int fd = trawl_kernel_session_finish_send(s);

	if (fd > 0)
		trawl_kernel_session_finish_recv(s, ksession_ctl_wait(fd));
}
