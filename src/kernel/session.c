/* SPDX-License-Identifier: MIT */
/*
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
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

void trawl_kernel_session_set_snapshot(struct trawl_kernel_session *s, int snapshot)
{
	s->snapshot = snapshot;
}

int trawl_kernel_session_create(const char *name, const char *output, uid_t uid, gid_t gid,
				struct trawl_kernel_session **out)
{
	struct trawl_kernel_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	if (trawl_path_fmt(s->name, sizeof(s->name), "%s", name) ||
	    trawl_path_fmt(s->output, sizeof(s->output), "%s", output)) {
		free(s);
		return -ENAMETOOLONG;
	}
	s->uid = uid;
	s->gid = gid;
	s->ctl_fd = -1;
	*out = s;
	return 0;
}

int trawl_kernel_session_add_channel(struct trawl_kernel_session *s, const char *channel,
				     const struct trawl_kernel_channel_attr *attr, char *err,
				     size_t errlen)
{
	struct kchannel *c;
	int ret;

	if (!trawl_kernel_tracefs_dir()) {
		trawl_msg_fmt(err, errlen,
			      "kernel tracing unavailable: tracefs is not mounted and "
			      "mounting it failed (%s)",
			      strerror(errno));
		return -ENODEV;
	}
	if (s->nch == SESSION_MAX_CHANNELS) {
		trawl_msg_fmt(err, errlen, "too many kernel channels (at most %d)",
			      SESSION_MAX_CHANNELS);
		return -E2BIG;
	}
	if (s->consumer) {
		trawl_msg_fmt(err, errlen,
			      "kernel channels cannot be added after the session started");
		return -EBUSY;
	}
	if (strlen(channel) >= sizeof(c->name)) {
		trawl_msg_fmt(err, errlen, "kernel channel name too long (at most %d bytes)",
			      SESSION_NAME_LEN - 1);
		return -ENAMETOOLONG;
	}
	c = &s->ch[s->nch];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", channel);
	/* (a u64 and a u32 in decimal fit their buffers: never cut) */
	if (attr && attr->tracefile_size &&
	    (trawl_path_fmt(c->tf_size, sizeof(c->tf_size), "%llu",
			    (unsigned long long)attr->tracefile_size) ||
	     trawl_path_fmt(c->tf_count, sizeof(c->tf_count), "%u", attr->tracefile_count))) {
		memset(c, 0, sizeof(*c));
		return -EINVAL;
	}
	ret = trawl_kernel_instance_create(s->name, channel, attr, &c->inst);
	if (ret < 0) {
		trawl_msg_fmt(err, errlen,
			      "cannot create the tracefs instance of kernel channel %s: %s",
			      channel, strerror(-ret));
		return ret;
	}
	s->nch++;
	return 0;
}

static struct kchannel *find_channel(struct trawl_kernel_session *s, const char *channel)
{
	int i;

	for (i = 0; i < s->nch; i++)
		if (!strcmp(s->ch[i].name, channel))
			return &s->ch[i];
	return NULL;
}

struct trawl_kernel_instance *trawl_kernel_session_instance(struct trawl_kernel_session *s,
							    const char *channel)
{
	struct kchannel *c = find_channel(s, channel);

	return c ? c->inst : NULL;
}

int trawl_kernel_session_add_context(struct trawl_kernel_session *s, const char *channel,
				     const char *ctx, char *err, size_t errlen)
{
	struct kchannel *c = find_channel(s, channel);
	size_t n;

	if (!c) {
		trawl_msg_fmt(err, errlen, "no kernel channel %s", channel);
		return -ENOENT;
	}
	if (!strncmp(ctx, "perf:", 5)) {
		int ret = trawl_kernel_perf_counter_check(ctx, err, errlen);

		if (ret < 0)
			return ret;
		if (s->snapshot || c->inst->overwrite) {
			trawl_msg_fmt(
				err, errlen,
				"kernel context \"%s\": perf counter contexts need a "
				"discard-mode channel (not overwrite mode, not a snapshot session)",
				ctx);
			return -EOPNOTSUPP;
		}
		if (c->nperf == TRAWL_KCTX_PERF_MAX) {
			trawl_msg_fmt(err, errlen,
				      "kernel context \"%s\": at most %d perf counters per channel",
				      ctx, TRAWL_KCTX_PERF_MAX);
			return -E2BIG;
		}
	} else if (trawl_kernel_ctx_parse(ctx) < 0) {
		trawl_msg_fmt(err, errlen,
			      "kernel context \"%s\" is not supported (pid, tid, procname, "
			      "prio, nice, ppid, vpid, vtid, cgroup_ns, ipc_ns, mnt_ns, net_ns, "
			      "pid_ns, time_ns, user_ns, uts_ns are)",
			      ctx);
		return -EOPNOTSUPP;
	}
	n = strlen(c->ctx);
	if (n + strlen(ctx) + 2 > sizeof(c->ctx))
		return -E2BIG;
	snprintf(c->ctx + n, sizeof(c->ctx) - n, "%s%s", n ? "," : "", ctx);
	if (!strncmp(ctx, "perf:", 5))
		c->nperf++;
	return 0;
}

/* The u64 after a 'K' or 'W': the consumer's own losses so far (see the top). */
static int read_lost(struct trawl_kernel_session *s)
{
	uint64_t lost;

	/* written with the letter in one write(): already here */
	if (recv(s->ctl_fd, &lost, sizeof(lost), MSG_DONTWAIT | MSG_WAITALL) != sizeof(lost))
		return -EPROTO;
	s->consumer_lost = lost;
	return 0;
}

/* Waits for one byte from the consumer; 0 if it is @want. */
static int consumer_wait_ms(struct trawl_kernel_session *s, char want, int ms)
{
	struct pollfd p = { .fd = s->ctl_fd, .events = POLLIN };
	char c;
	int ret;

	ret = poll(&p, 1, ms);
	if (ret == 0)
		return -ETIMEDOUT;
	if (ret < 0)
		return -errno;
	if (read(s->ctl_fd, &c, 1) != 1)
		return -EPIPE;
	if (c != want)
		return -EPROTO;
	return want == 'K' ? read_lost(s) : 0;
}

/*
 * A flush's answer: 'K', or 'W' and one line (kept in s->problem: packets
 * lost to a full disk or a gone relayd), then -EIO.
 */
static int consumer_wait_flushed(struct trawl_kernel_session *s)
{
	struct pollfd p = { .fd = s->ctl_fd, .events = POLLIN };
	size_t n = 0;
	char c;
	int ret;

	ret = poll(&p, 1, CONSUMER_TIMEOUT_MS);
	if (ret <= 0)
		return ret == 0 ? -ETIMEDOUT : -errno;
	if (read(s->ctl_fd, &c, 1) != 1)
		return -EPIPE;
	if (c != 'K' && c != 'W')
		return -EPROTO;
	ret = read_lost(s);
	if (ret < 0 || c == 'K')
		return ret;
	/* the line follows at once: the consumer wrote it in one write() */
	while (read(s->ctl_fd, &c, 1) == 1 && c != '\n')
		if (n + 1 < sizeof(s->problem))
			s->problem[n++] = c;
	s->problem[n] = '\0';
	return -EIO;
}

int trawl_kernel_session_channel_fixed(struct trawl_kernel_session *s, const char *channel)
{
	struct kchannel *c = find_channel(s, channel);

	return c && c->nperf && s->consumer;
}

static int has_perf(const struct trawl_kernel_session *s)
{
	int i;

	for (i = 0; i < s->nch; i++)
		if (s->ch[i].nperf)
			return 1;
	return 0;
}

/*
 * Reads the consumer's 'R' (@failed 0: its socket is readable), or says
 * why none came; a consumer that could not open its buffers sends 'E' and
 * one line saying why instead, which goes into @err.
 */
static int consumer_ready_read(struct trawl_kernel_session *s, int failed, const char *consumer,
			       char *err, size_t errlen)
{
	char line[TRAWL_KERNEL_ERR_LEN + 2];
	size_t n = 0;
	int ret = failed;

	if (!ret && read(s->ctl_fd, line, 1) == 1) {
		if (line[0] == 'R')
			return 0;
		if (line[0] == 'E') {
			while (n + 1 < sizeof(line) && read(s->ctl_fd, line + n, 1) == 1 && line[n] != '\n')
				n++;
			line[n] = '\0';
			trawl_msg_fmt(err, errlen, "%s", line);
			return -EIO;
		}
		ret = -EPROTO;
	} else if (!ret) {
		ret = -EPIPE;
	}
	trawl_msg_fmt(err, errlen, "the kernel consumer (%s) did not start: %s", consumer,
		      strerror(-ret));
	return ret;
}

static int consumer_spawn(struct trawl_kernel_session *s, const char *consumer, const char *output,
			  int once)
{
	char *argv[14 + 11 * SESSION_MAX_CHANNELS + 2 * TRAWL_KERNEL_TRACKER_ATTRS];
	char uid[32], gid[32];
	int sv[2], spec[2] = {-1, -1}, a = 0, i;
	size_t len = strlen(output);
	pid_t pid;

	/*
	 * A relay destination holds the session's token, which lets a peer of
	 * trawl-relayd take up the session's files (relayd/session.c): it goes
	 * through a pipe (fd 4), not the command line every local user can read.
	 * It fits the pipe (PATH_MAX < 64 KiB), so the write cannot block.
	 */
	if (!strncmp(output, "relay:", 6)) {
		if (pipe2(spec, O_CLOEXEC) < 0)
			return -errno;
		if (write(spec[1], output, len) != (ssize_t)len) {
			close(spec[0]);
			close(spec[1]);
			return -EIO;
		}
		close(spec[1]);
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		if (spec[0] >= 0)
			close(spec[0]);
		return -errno;
	}
	snprintf(uid, sizeof(uid), "%u", (unsigned)s->uid);
	snprintf(gid, sizeof(gid), "%u", (unsigned)s->gid);
	argv[a++] = (char *)consumer;
	argv[a++] = "--kernel";
	argv[a++] = "--ctl-fd=3";
	argv[a++] = spec[0] >= 0 ? "--output-fd" : "--output";
	argv[a++] = spec[0] >= 0 ? "4" : (char *)output;
	/* the trace's owner, who creates its files (consumerd/opener.h) */
	argv[a++] = "--uid";
	argv[a++] = uid;
	argv[a++] = "--gid";
	argv[a++] = gid;
	if (once)
		argv[a++] = "--once";
	for (i = 0; i < TRAWL_KERNEL_TRACKER_ATTRS; i++) {
		if (s->tracker[i]) {
			argv[a++] = "--tracker";
			argv[a++] = s->tracker[i];
		}
	}
	for (i = 0; i < s->nch; i++) {
		argv[a++] = "--channel";
		argv[a++] = s->ch[i].name;
		argv[a++] = "--instance";
		argv[a++] = s->ch[i].inst->name;
		if (s->ch[i].ctx[0]) {
			argv[a++] = "--context";
			argv[a++] = s->ch[i].ctx;
		}
		if (s->ch[i].inst->statedump && !once)
			argv[a++] = "--statedump";
		if (s->ch[i].tf_size[0] && !once) {
			argv[a++] = "--tracefile-size";
			argv[a++] = s->ch[i].tf_size;
			argv[a++] = "--tracefile-count";
			argv[a++] = s->ch[i].tf_count;
		}
	}
	argv[a] = NULL;
	pid = fork();
	if (pid < 0) {
		i = -errno;
		close(sv[0]);
		close(sv[1]);
		if (spec[0] >= 0)
			close(spec[0]);
		return i;
	}
	if (pid == 0) {
		/* Copies above 4 first: dup2() onto the fd itself keeps its
		 * close-on-exec, and fd 3 may be the pipe's read end. */
		int ctl = fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
		int in = spec[0] >= 0 ? fcntl(spec[0], F_DUPFD_CLOEXEC, 10) : -1;

		if (ctl < 0 || dup2(ctl, 3) < 0 || (spec[0] >= 0 && (in < 0 || dup2(in, 4) < 0)))
			_exit(127);
		execv(consumer, argv);
		_exit(127);
	}
	close(sv[1]);
	if (spec[0] >= 0)
		close(spec[0]);
	s->consumer = pid;
	s->ctl_fd = sv[0];
	return 0;
}

/* A consumer that said it is done (or was killed) is gone within this (ms). */
#define CONSUMER_REAP_MS 2000

/* 1 once @pid is reaped (*@ru its usage), 0 if it is still there after
 * @ms, -1 if it is not ours to reap. */
static int reap_within(pid_t pid, struct rusage *ru, int ms)
{
	int status, i;

	for (i = 0; i <= ms / 10; i++) {
		pid_t r = wait4(pid, &status, WNOHANG, ru);

		if (r == pid)
			return 1;
		if (r < 0 && errno != EINTR)
			return -1;
		usleep(10000);
	}
	return 0;
}

/*
 * Reaps the consumer: it exits once it said it is done (its socket
 * closed), or once killed (@kill_it). The caller's thread is the root
 * daemon's only one: the wait is bounded (CONSUMER_REAP_MS), past which
 * the consumer is killed; one that SIGKILL does not end at once (a wait of
 * the kernel's not yet over) is left, not waited for: a zombie until the
 * daemon exits, rather than every user's commands held meanwhile.
 */
static void consumer_reap(struct trawl_kernel_session *s, int kill_it)
{
	struct rusage ru;
	int r;

	if (!s->consumer)
		return;
	if (kill_it)
		kill(s->consumer, SIGKILL);
	r = reap_within(s->consumer, &ru, CONSUMER_REAP_MS);
	if (r == 0 && !kill_it) {
		kill(s->consumer, SIGKILL);
		r = reap_within(s->consumer, &ru, CONSUMER_REAP_MS);
	}
	if (r == 1)
		s->consumer_cpu_ns += (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
				      (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
	s->consumer = 0;
	s->reaped_lost += s->consumer_lost;
	s->consumer_lost = 0;
	if (s->ctl_fd >= 0)
		close(s->ctl_fd);
	s->ctl_fd = -1;
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

static int ctl_wait(int fd);

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
		ret = consumer_spawn(s, consumer, s->output, 0);
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
		ret = consumer_ready_read(s, failed, s->consumer_prog, err, errlen);
		if (ret < 0) {
			consumer_reap(s, 1);
			return ret;
		}
		perf_instances_quiet(s);
		return start_tracing(s, err, errlen);
	}
	ret = failed ? failed : consumer_wait_ms(s, 'K', 0);
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
		fd = trawl_kernel_session_start_recv(s, ctl_wait(fd), err, errlen);
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
	int ret = failed ? failed : consumer_wait_ms(s, 'K', 0);

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
	int ret = failed ? failed : consumer_wait_flushed(s);

	if (ret == -EIO) {
		trawl_msg_fmt(err, errlen, "%s", s->problem); /* the trace is not whole: say so */
		return ret;
	}
	if (ret < 0) {
		ret = -EPIPE;
		trawl_msg_fmt(err, errlen, "the kernel consumer died: the trace may be incomplete");
		consumer_reap(s, 1);
		return ret;
	}
	return 0;
}

/* Waits for @fd (the consumer's socket) to be readable, at most the consumer's timeout. */
static int ctl_wait(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int ret = poll(&p, 1, CONSUMER_TIMEOUT_MS);

	return ret > 0 ? 0 : ret == 0 ? -ETIMEDOUT : -errno;
}

int trawl_kernel_session_stop(struct trawl_kernel_session *s, char *err, size_t errlen)
{
	int fd = trawl_kernel_session_stop_send(s, err, errlen);

	if (fd <= 0)
		return fd;
	return trawl_kernel_session_stop_recv(s, ctl_wait(fd), err, errlen);
}

int trawl_kernel_session_consumer_timeout_ms(void)
{
	return CONSUMER_TIMEOUT_MS;
}

const char *trawl_kernel_session_problem(const struct trawl_kernel_session *s)
{
	return s->problem;
}

int trawl_kernel_session_consumer_alive(struct trawl_kernel_session *s)
{
	int status;

	if (!s->consumer)
		return 1;
	return waitpid(s->consumer, &status, WNOHANG) == 0;
}

/* The value of "@name: N" in a stats file's text, 0 if absent. */
static uint64_t stats_value(const char *buf, const char *name)
{
	const char *p = strstr(buf, name);

	return p ? strtoull(p + strlen(name), NULL, 10) : 0;
}

/* Events channel @i's tracefs buffers lost so far, over its CPUs. */
static uint64_t channel_lost(const struct trawl_kernel_session *s, int i)
{
	uint64_t total = 0;
	int cpu;

	for (cpu = 0;; cpu++) {
		char rel[512], buf[1024];

		if (trawl_path_fmt(rel, sizeof(rel), "%s/per_cpu/cpu%d/stats", s->ch[i].inst->path,
				   cpu) ||
		    trawl_kernel_read_file(rel, buf, sizeof(buf)) <= 0)
			break;
		/* "overrun:" is the file's 2nd line, before "commit overrun:" */
		total += stats_value(buf, s->ch[i].inst->overwrite ? "overrun:" : "dropped events:");
		total += stats_value(buf, "commit overrun:");
	}
	return total;
}

uint64_t trawl_kernel_session_lost(struct trawl_kernel_session *s)
{
	uint64_t total = s->reaped_lost + s->consumer_lost;
	int i;

	for (i = 0; i < s->nch; i++)
		total += channel_lost(s, i);
	return total;
}

int trawl_kernel_session_channel_lost(struct trawl_kernel_session *s, const char *channel,
				      uint64_t *lost)
{
	int i;

	for (i = 0; i < s->nch; i++) {
		if (!strcmp(s->ch[i].name, channel)) {
			*lost = channel_lost(s, i);
			return 0;
		}
	}
	return -ENOENT;
}

int trawl_kernel_session_channel_usage(struct trawl_kernel_session *s, const char *channel,
				       uint64_t *high)
{
	int i, cpu, any = 0;

	for (i = 0; i < s->nch && strcmp(s->ch[i].name, channel); i++)
		;
	if (i == s->nch)
		return -ENOENT;
	*high = 0;
	for (cpu = 0;; cpu++) {
		char rel[512], buf[1024];
		uint64_t v;

		if (trawl_path_fmt(rel, sizeof(rel), "%s/per_cpu/cpu%d/stats", s->ch[i].inst->path,
				   cpu) ||
		    trawl_kernel_read_file(rel, buf, sizeof(buf)) <= 0)
			break;
		/* "bytes:" starts a line of its own (never the first) */
		v = stats_value(buf, "\nbytes:");
		*high = v > *high ? v : *high;
		any = 1;
	}
	return any ? 0 : -ENODATA;
}

int trawl_kernel_session_snapshot_send(struct trawl_kernel_session *s, const char *consumer,
				       const char *dir, char *err, size_t errlen)
{
	int ret;

	if (s->consumer) {
		trawl_msg_fmt(err, errlen, "a kernel consumer is already running for this session");
		return -EBUSY;
	}
	ret = consumer_spawn(s, consumer, dir, 1);
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
		ret = consumer_wait_ms(s, 'R', 0);
		if (!ret) {
			s->stage = STAGE_SNAP_END;
			return s->ctl_fd;
		}
	} else if (!ret && read(s->ctl_fd, &c, 1) != 0) {
		ret = -EPROTO;
	}
	consumer_reap(s, ret < 0);
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
		fd = trawl_kernel_session_snapshot_recv(s, ctl_wait(fd), err, errlen);
	return fd;
}

uint64_t trawl_kernel_session_consumer_cpu_ns(const struct trawl_kernel_session *s)
{
	return s->consumer_cpu_ns;
}

void trawl_kernel_session_destroy(struct trawl_kernel_session *s)
{
	int i;

	if (!s)
		return;
	trawl_kernel_session_consumer_finish(s);
	for (i = 0; i < s->nch; i++)
		trawl_kernel_instance_destroy(s->ch[i].inst);
	for (i = 0; i < TRAWL_KERNEL_TRACKER_ATTRS; i++)
		free(s->tracker[i]);
	free(s->tracker_spec);
	free(s);
}

int trawl_kernel_session_set_trackers(struct trawl_kernel_session *s, const char *spec, char *err,
				      size_t errlen)
{
	char *tr[TRAWL_KERNEL_TRACKER_ATTRS] = {NULL}, *copy = strdup(spec);
	const char *p = spec;
	uint32_t len = (uint32_t)strlen(spec);
	int i, n = 0, ret = 0;

	if (!copy)
		return -ENOMEM;
	while (*p && n < TRAWL_KERNEL_TRACKER_ATTRS) {
		size_t l = strcspn(p, "\n");

		if (l && !(tr[n++] = strndup(p, l)))
			ret = -ENOMEM;
		p += l + (p[l] == '\n');
	}
	if (*p)
		ret = -EINVAL; /* (the domain writes at most one line per tracker) */
	if (ret) {
		for (i = 0; i < n; i++)
			free(tr[i]);
		free(copy);
		trawl_msg_fmt(err, errlen, "cannot keep the trackers: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < TRAWL_KERNEL_TRACKER_ATTRS; i++) {
		free(s->tracker[i]);
		s->tracker[i] = tr[i];
	}
	free(s->tracker_spec);
	s->tracker_spec = copy;
	if (!s->consumer || s->ctl_fd < 0)
		return 0; /* the next consumer takes them at its start */
	/* 'T', the length and the lines in one write; 'K' once in effect */
	{
		char *msg = malloc(1 + sizeof(len) + len);

		if (!msg)
			return -ENOMEM;
		msg[0] = 'T';
		memcpy(msg + 1, &len, sizeof(len));
		memcpy(msg + 1 + sizeof(len), spec, len);
		ret = trawl_write_all(s->ctl_fd, msg, 1 + sizeof(len) + len);
		free(msg);
	}
	if (ret >= 0)
		ret = consumer_wait_ms(s, 'K', CONSUMER_TIMEOUT_MS);
	if (ret < 0)
		trawl_msg_fmt(err, errlen, "the kernel consumer did not take the trackers in: %s",
			      strerror(-ret));
	return ret;
}

int trawl_kernel_session_finish_send(struct trawl_kernel_session *s)
{
	set_tracing(s, 0);
	if (!s->consumer)
		return 0;
	if (send(s->ctl_fd, "Q", 1, MSG_NOSIGNAL) != 1) {
		consumer_reap(s, 1);
		return 0;
	}
	/* The consumer closes its end when it exits. */
	return s->ctl_fd;
}

void trawl_kernel_session_finish_recv(struct trawl_kernel_session *s, int failed)
{
	consumer_reap(s, failed != 0);
}

int trawl_kernel_session_switch_send(struct trawl_kernel_session *s, int tracing_off, char *err,
				     size_t errlen)
{
	int ret;

	if (tracing_off && (ret = set_tracing(s, 0)) < 0) {
		trawl_msg_fmt(err, errlen, "cannot turn kernel tracing off: %s", strerror(-ret));
		return ret;
	}
	if (!s->consumer)
		return 0;
	/* 'Q': drain everything (partial pages too), write, exit; tracing
	 * may go on: what comes meanwhile waits in the kernel's buffers */
	if (send(s->ctl_fd, "Q", 1, MSG_NOSIGNAL) != 1) {
		consumer_reap(s, 1);
		return 0;
	}
	/* the consumer closes its end when it exits */
	return s->ctl_fd;
}

int trawl_kernel_session_switch_recv(struct trawl_kernel_session *s, int failed,
				     int tracing_off, const char *output, char *err,
				     size_t errlen)
{
	int i, ret = failed;

	if (s->consumer) {
		consumer_reap(s, ret != 0);
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
	return trawl_kernel_session_switch_recv(s, fd > 0 ? ctl_wait(fd) : 0, tracing_off, output,
						err, errlen);
}

void trawl_kernel_session_consumer_finish(struct trawl_kernel_session *s)
{
	int fd = trawl_kernel_session_finish_send(s);

	if (fd > 0)
		trawl_kernel_session_finish_recv(s, ctl_wait(fd));
}
