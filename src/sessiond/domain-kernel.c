/* SPDX-License-Identifier: MIT */
/*
 * The kernel domain of the root session daemon, over src/kernel.
 *
 * A session's kernel part is a trawl_kernel_session: one tracefs instance per
 * channel, and at the first start one consumer process (`trawl-consumerd
 * --kernel ...`, dispatched to trawl_kernel_consumer_main()) writing
 * <output>/kernel/. Everything runs in the daemon's main thread; the consumer
 * is a process of its own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "common/common.h"
#include "kernel/kernel.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char consumerd_path[4096];

/* What the session waits for its consumer for, in the loop (kd_wait_begin()). */
enum kd_wait {
	KD_IDLE,
	KD_STOPPING,  /* a stop's drain */
	KD_FINISHING, /* a release: the consumer exits */
	KD_METADATA,  /* regenerate */
	KD_STATEDUMP,
	KD_SWITCHING, /* clear, rotate: the consumer finishes the chunk and exits */
	KD_STARTING,  /* start (a clear's or rotation's too): its buffers opened */
	KD_SNAPSHOT,  /* snapshot record: the one-shot consumer */
	KD_REMOVING,  /* clear: the trace's folder removed by a child as the owner (s->job) */
};

#define KD_JOB 0x7fffffff /* kd_wait_next(): the next answer is the owner job's */

struct trawl_domain_session {
	struct trawl_kernel_session *ks; /* owned */
	char output[4096];
	uid_t uid; /* the session's owner: clear deletes files as them */
	gid_t gid;
	int snapshot;
	int started;
	/* A command waiting for the consumer, watched in the loop
	 * (kd_wait_begin()): its fd, and once over, its result and line.
	 * Clear and rotate go on from the switch to a start of the next
	 * consumer (a started session), each step awaited the same way. */
	enum kd_wait wait;
	int wait_fd, wait_over, wait_ret;
	char wait_err[TRAWL_KERNEL_ERR_LEN];
	int sw_clear;                    /* KD_SWITCHING: a clear (else a rotation) */
	char sw_out[4096];               /* KD_SWITCHING of a rotation: the chunk's folder */
	struct sd_owner_job job;         /* KD_REMOVING */
	const struct trawl_domain_trackers *trackers; /* the daemon's (domain.h) */
};

static int kd_init(const struct trawl_domain_env *env, struct trawl_domain_err *err)
{
	if (!trawl_kernel_tracefs_dir()) {
		trawl_domain_err_set(err, "kernel tracing unavailable: tracefs is not mounted and "
				     "mounting it failed (%s)", strerror(errno));
		return -ENODEV;
	}
	if (env->consumerd) {
		if (trawl_path_fmt(consumerd_path, sizeof(consumerd_path), "%s", env->consumerd)) {
			trawl_domain_err_set(err, "trawl-consumerd's path is too long: %s",
					     env->consumerd);
			return -ENAMETOOLONG;
		}
	} else if (trawl_find_program("trawl-consumerd", consumerd_path, sizeof(consumerd_path)) <
		   0)
		consumerd_path[0] = '\0';
	/* Instances and probes of daemons that died without cleaning up. */
	trawl_kernel_cleanup_dead();
	return 0;
}

static void kd_job_done(struct sd_owner_job *j, void *arg);

static int kd_session_create(const struct trawl_domain_session_info *info,
			     struct trawl_domain_session **out, struct trawl_domain_err *err)
{
	struct trawl_domain_session *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	s->wait_fd = -1;
	s->job.fd = -1;
	s->job.done = kd_job_done;
	s->job.arg = s;
	s->uid = info->uid;
	s->gid = info->gid;
	s->snapshot = info->snapshot;
	s->trackers = info->trackers;
	ret = trawl_path_fmt(s->output, sizeof(s->output), "%s/kernel",
			     info->output ? info->output : ".");
	if (!ret)
		ret = trawl_kernel_session_create(info->name, s->output, info->uid, info->gid,
						  &s->ks);
	if (ret < 0) {
		free(s);
		return ret;
	}
	trawl_kernel_session_set_snapshot(s->ks, info->snapshot);
	*out = s;
	return 0;
}

static void kd_wait_end(struct trawl_domain_session *s, int failed);
static int kd_wait_ms(enum kd_wait what);
static void kd_job_done(struct sd_owner_job *j, void *arg);

/* Waits here for @fd, at most @what's bound: 0 once readable, else -ETIMEDOUT. */
static int kd_poll(int fd, enum kd_wait what)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, kd_wait_ms(what)) > 0 ? 0 : -ETIMEDOUT;
}

/* A command still waiting for the consumer is waited for here, as long as ever
 * (the daemon exits), and forgotten. */
static void kd_wait_here(struct trawl_domain_session *s)
{
	while (s->wait != KD_IDLE && !s->wait_over) {
		int fd = s->wait_fd, failed;

		if (s->wait == KD_REMOVING) {
			sd_owner_cancel(&s->job); /* (killed: it is not waited for) */
			kd_wait_end(s, 0);
			continue;
		}
		failed = kd_poll(fd, s->wait);
		sd_watch_del(fd);
		kd_wait_end(s, failed);
	}
	s->wait = KD_IDLE;
}

static void kd_session_destroy(struct trawl_domain_session *s)
{
	if (!s)
		return;
	kd_wait_here(s);
	trawl_kernel_session_destroy(s->ks);
	free(s);
}

static int kd_channel_create(struct trawl_domain_session *s,
			     const struct trawl_domain_channel_attr *attr,
			     struct trawl_domain_err *err)
{
	struct trawl_kernel_channel_attr ka = {
		.subbuf_size = attr->subbuf_size,
		.buffer_size = attr->subbuf_size * attr->num_subbuf,
		.overwrite = attr->overwrite != 0,
		.tracefile_size = attr->tracefile_size,
		.tracefile_count = attr->tracefile_count,
	};
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int ret;

	/* ftrace sub-buffers are 4 KiB .. 512 KiB; a larger wish keeps the total size. */
	if (ka.subbuf_size > 512 * 1024)
		ka.subbuf_size = 512 * 1024;
	ret = trawl_kernel_session_add_channel(s->ks, attr->name, &ka, e, sizeof(e));
	if (ret < 0)
		trawl_domain_err_set(err, "%s", e);
	return ret;
}

static int kd_channel_enable(struct trawl_domain_session *s, const char *channel, int enable,
			     struct trawl_domain_err *err)
{
	struct trawl_kernel_instance *inst = trawl_kernel_session_instance(s->ks, channel);

	if (!inst) {
		trawl_domain_err_set(err, "no kernel channel %s", channel);
		return -ENOENT;
	}
	if (!s->started)
		return 0;
	return trawl_kernel_instance_set_tracing(inst, enable);
}

/* ---- a user-space probe's file, read as the client off the loop ---- */

struct sd_uprobe_located {
	struct trawl_kernel_uprobe_sites *sites; /* MAP_SHARED: the child writes it */
	size_t size;                             /* its bytes */
	int fd;                                  /* the file the child opened, handed over; -1 */
	int ret;                                 /* the child's result */
	char target[TRAWL_CTL_TARGET_MAX];
};

struct sd_uprobe_located *sd_uprobe_located_create(void)
{
	struct sd_uprobe_located *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->fd = -1;
	l->size = trawl_kernel_uprobe_sites_size();
	l->sites = mmap(NULL, l->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l->sites == MAP_FAILED) {
		free(l);
		return NULL;
	}
	return l;
}

void sd_uprobe_located_destroy(struct sd_uprobe_located *l)
{
	if (!l)
		return;
	if (l->fd >= 0)
		close(l->fd);
	munmap(l->sites, l->size);
	free(l);
}

/* In the child, as the client: the file opened and read, handed over. */
static int locate_as_client(void *arg)
{
	struct sd_uprobe_located *l = arg;
	int fd, ret;

	ret = trawl_kernel_uprobe_locate(l->target, l->sites, &fd);
	if (ret < 0)
		return ret;
	return sd_owner_hand(0, fd);
}

int sd_uprobe_locate_begin(struct sd_owner_job *j, struct sd_uprobe_located *l, const char *target,
			   uid_t uid, gid_t gid)
{
	if (trawl_path_fmt(l->target, sizeof(l->target), "%s", target))
		return -ENAMETOOLONG;
	j->fds = &l->fd;
	j->max_fds = 1;
	return sd_owner_begin(j, uid, gid, locate_as_client, l);
}

void sd_uprobe_located_set(struct sd_uprobe_located *l, int ret)
{
	l->ret = ret;
}

int sd_uprobe_located_get(const struct sd_uprobe_located *l, int *fd,
			  const struct trawl_kernel_uprobe_sites **sites)
{
	*sites = l->sites;
	*fd = l->fd >= 0 ? fcntl(l->fd, F_DUPFD_CLOEXEC, 0) : -1;
	return l->fd >= 0 && *fd < 0 ? -errno : l->ret;
}

static int kd_event(struct trawl_domain_session *s, const char *channel,
		    const struct trawl_domain_event_rule *rule, int enable,
		    struct trawl_domain_err *err)
{
	struct trawl_kernel_instance *inst = trawl_kernel_session_instance(s->ks, channel);
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int ret;

	if (!inst) {
		trawl_domain_err_set(err, "no kernel channel %s", channel);
		return -ENOENT;
	}
	if (trawl_kernel_session_channel_fixed(s->ks, channel)) {
		trawl_domain_err_set(err, "kernel channel %s records perf counters: its events were "
				     "fixed when the session first started", channel);
		return -EBUSY;
	}
	switch (rule->kind) {
	case TRAWL_CTL_EVENT_TRACEPOINT:
	case TRAWL_CTL_EVENT_SYSCALL:
		/* An event records when any of its rules matches (rules.c). */
		ret = trawl_kernel_instance_rule(inst, rule->name, rule->filter,
						 rule->kind == TRAWL_CTL_EVENT_SYSCALL, enable, e,
						 sizeof(e));
		break;
	case TRAWL_CTL_EVENT_PROBE:
	case TRAWL_CTL_EVENT_FUNCTION:
	case TRAWL_CTL_EVENT_USERSPACE_PROBE:
		if (!enable) {
			ret = trawl_kernel_probe_disable(inst, rule->name, e, sizeof(e));
			break;
		}
		if (!rule->target) {
			trawl_msg_fmt(e, sizeof(e), "probe %s: no location given", rule->name);
			ret = -EINVAL;
		} else if (rule->kind == TRAWL_CTL_EVENT_PROBE) {
			ret = trawl_kernel_probe_add(inst, rule->name, rule->target, 0, e, sizeof(e));
		} else if (rule->kind == TRAWL_CTL_EVENT_FUNCTION) {
			ret = trawl_kernel_function_add(inst, rule->name, rule->target, e, sizeof(e));
		} else if (rule->located) {
			/* read by a child as the client already (the loop did not
			 * wait): its file, a copy of ours (taken by the call) */
			const struct trawl_kernel_uprobe_sites *sites;
			int fd, lret = sd_uprobe_located_get(rule->located, &fd, &sites);

			ret = trawl_kernel_uprobe_add_located(inst, rule->name, rule->target, 6,
							      rule->uid, lret, fd, sites, e,
							      sizeof(e));
		} else {
			/* the first six integer arguments, as the x86-64 ABI passes them */
			ret = trawl_kernel_uprobe_add(inst, rule->name, rule->target, 6, rule->uid,
						      rule->gid, e, sizeof(e));
		}
		break;
	default:
		trawl_msg_fmt(e, sizeof(e), "unknown kernel event kind %d", (int)rule->kind);
		ret = -EINVAL;
	}
	if (ret < 0) {
		trawl_domain_err_set(err, "%s", e[0] ? e : strerror(-ret));
		return ret;
	}
	return 0;
}

static int kd_event_enable(struct trawl_domain_session *s, const char *channel,
			   const struct trawl_domain_event_rule *rule, struct trawl_domain_err *err)
{
	return kd_event(s, channel, rule, 1, err);
}

static int kd_event_disable(struct trawl_domain_session *s, const char *channel,
			    const struct trawl_domain_event_rule *rule, struct trawl_domain_err *err)
{
	return kd_event(s, channel, rule, 0, err);
}

static int kd_context_add(struct trawl_domain_session *s, const char *channel,
			  const struct trawl_domain_context *ctx, struct trawl_domain_err *err)
{
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int ret;

	ret = trawl_kernel_session_add_context(s->ks, channel, ctx->name, e, sizeof(e));
	if (ret < 0)
		trawl_domain_err_set(err, "%s", e);
	return ret;
}

static int kd_start(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int ret;

	if (!consumerd_path[0]) {
		trawl_domain_err_set(err, "cannot find trawl-consumerd");
		return -ENOENT;
	}
	ret = trawl_kernel_session_start(s->ks, consumerd_path, e, sizeof(e));
	if (ret < 0) {
		trawl_domain_err_set(err, "%s", e);
		return ret;
	}
	s->started = 1;
	return 0;
}

static int kd_stop(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int ret;

	kd_wait_here(s);
	s->started = 0;
	ret = trawl_kernel_session_stop(s->ks, e, sizeof(e));
	if (ret < 0)
		trawl_domain_err_set(err, "%s", e);
	return ret;
}

/* The bound of @what's answer (ms). */
static int kd_wait_ms(enum kd_wait what)
{
	if (what == KD_METADATA || what == KD_STATEDUMP)
		return trawl_kernel_session_regenerate_timeout_ms(what == KD_STATEDUMP);
	return trawl_kernel_session_consumer_timeout_ms();
}

/*
 * The next consumer of a started session, after a clear or a rotation (or
 * at a start): the fd of its answer, or 0 (started) or an error, with the
 * line in wait_err.
 */
static int kd_start_next(struct trawl_domain_session *s)
{
	int fd;

	s->wait = KD_STARTING;
	fd = trawl_kernel_session_start_send(s->ks, consumerd_path, s->wait_err,
					     sizeof(s->wait_err));
	if (!fd)
		s->started = 1;
	return fd;
}

/*
 * The consumer answered (@failed 0) what the session waits for, or missed
 * its deadline (@failed -ETIMEDOUT: killed, as the blocking calls would).
 * Returns the fd of the next answer to wait for (the command goes on: a
 * clear's or rotation's next consumer, a start's perf channels, a
 * snapshot's end), or 0 once the command is over (its result in wait_ret).
 */
static int kd_wait_next(struct trawl_domain_session *s, int failed)
{
	char *e = s->wait_err;
	size_t elen = sizeof(s->wait_err);
	int ret = 0;

	switch (s->wait) {
	case KD_STOPPING:
		ret = trawl_kernel_session_stop_recv(s->ks, failed, e, elen);
		break;
	case KD_METADATA:
	case KD_STATEDUMP:
		ret = trawl_kernel_session_regenerate_recv(s->ks, s->wait == KD_STATEDUMP, failed,
							   e, elen);
		break;
	case KD_FINISHING:
		trawl_kernel_session_finish_recv(s->ks, failed);
		break;
	case KD_SWITCHING:
		ret = trawl_kernel_session_switch_recv(s->ks, failed, s->sw_clear,
						       s->sw_clear ? NULL : s->sw_out, e, elen);
		if (!ret && !s->sw_clear)
			memcpy(s->output, s->sw_out, sizeof(s->output));
		/* (a snapshot session writes only snapshots: nothing of its own to delete) */
		if (!ret && s->sw_clear && !s->snapshot && strncmp(s->output, "relay:", 6)) {
			s->wait = KD_REMOVING;
			/* (a clear half done: waits past the owner's cap, as-owner.c) */
			s->job.queue = 1;
			ret = sd_remove_folder_begin(&s->job, s->uid, s->gid, s->output);
			if (ret == -EINPROGRESS)
				return KD_JOB;
			s->job.over = 1;
			s->job.ret = ret;
			return kd_wait_next(s, 0);
		}
		if (!ret && s->started)
			ret = kd_start_next(s);
		break;
	case KD_REMOVING:
		ret = s->job.ret;
		if (ret)
			trawl_msg_fmt(e, elen, "cannot remove %s: %s", s->output,
				      sd_owner_strerror(ret));
		else if (s->started)
			ret = kd_start_next(s);
		break;
	case KD_STARTING:
		ret = trawl_kernel_session_start_recv(s->ks, failed, e, elen);
		if (!ret)
			s->started = 1;
		break;
	case KD_SNAPSHOT:
		ret = trawl_kernel_session_snapshot_recv(s->ks, failed, e, elen);
		break;
	case KD_IDLE:
		break;
	}
	if (ret > 0)
		return ret;
	s->wait_ret = ret;
	return 0;
}

static void kd_wait_ready(int fd, short revents, void *arg);
static void kd_wait_expired(int fd, void *arg);

/* Watches @fd (the consumer's socket) for what s->wait says, within its bound. */
static int kd_watch(struct trawl_domain_session *s, int fd)
{
	if (sd_watch_add(fd, kd_wait_ready, s))
		return -ENOMEM;
	sd_watch_deadline(fd, sd_now_ms() + (uint64_t)kd_wait_ms(s->wait), kd_wait_expired);
	s->wait_fd = fd;
	return 0;
}

/* Moves the wait on from an answer (or its absence): watched again, or over. */
static void kd_wait_end(struct trawl_domain_session *s, int failed)
{
	int fd;

	s->wait_fd = -1;
	while ((fd = kd_wait_next(s, failed)) > 0) {
		if (fd == KD_JOB)
			return; /* kd_job_done() goes on */
		if (!kd_watch(s, fd))
			return;
		failed = kd_poll(fd, s->wait); /* cannot watch it: waited for here */
	}
	s->wait_over = 1;
}

/* The owner job of a clear is over (as-owner.c calls it). */
static void kd_job_done(struct sd_owner_job *j, void *arg)
{
	(void)j;
	kd_wait_end(arg, 0);
}

static void kd_wait_ready(int fd, short revents, void *arg)
{
	(void)revents;
	sd_watch_del(fd);
	kd_wait_end(arg, 0);
}

static void kd_wait_expired(int fd, void *arg)
{
	sd_watch_del(fd);
	kd_wait_end(arg, -ETIMEDOUT);
}

/*
 * Begins waiting for @what: @fd from the command's _send (> 0: its answer
 * is awaited in the loop, -EINPROGRESS; 0: nothing to wait for, the next
 * step runs now). Returns -EINPROGRESS, or the command's result (@err its
 * line) when it waited for nothing.
 */
static int kd_wait_begin(struct trawl_domain_session *s, enum kd_wait what, int fd,
			 struct trawl_domain_err *err)
{
	s->wait = what;
	s->wait_over = 0;
	s->wait_ret = 0;
	s->wait_err[0] = '\0';
	if (fd > 0 && !kd_watch(s, fd))
		return -EINPROGRESS;
	s->wait_fd = -1;
	if (fd > 0) {
		kd_wait_end(s, kd_poll(fd, what)); /* cannot watch it: waited for here */
	} else {
		kd_wait_end(s, 0);
	}
	if (!s->wait_over)
		return -EINPROGRESS; /* (a next step is watched) */
	fd = s->wait_ret;
	if (fd < 0)
		trawl_domain_err_set(err, "%s", s->wait_err);
	s->wait = KD_IDLE;
	return fd;
}

/* A command that waits for the consumer needs it free (the session's op is one). */
static int kd_busy(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	if (s->wait == KD_IDLE)
		return 0;
	trawl_domain_err_set(err, "the kernel consumer is still finishing a command");
	return -EBUSY;
}

/* start, the consumer's answers awaited by the loop (domain.h) */
static int kd_start_async(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int fd;

	if (!consumerd_path[0]) {
		trawl_domain_err_set(err, "cannot find trawl-consumerd");
		return -ENOENT;
	}
	if (kd_busy(s, err))
		return -EBUSY;
	fd = trawl_kernel_session_start_send(s->ks, consumerd_path, e, sizeof(e));
	if (fd < 0) {
		trawl_domain_err_set(err, "%s", e);
		return fd;
	}
	if (!fd) {
		s->started = 1;
		return 0;
	}
	return kd_wait_begin(s, KD_STARTING, fd, err);
}

static int kd_stop_async(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int fd;

	if (kd_busy(s, err))
		return -EBUSY;
	s->started = 0;
	fd = trawl_kernel_session_stop_send(s->ks, e, sizeof(e));
	if (fd > 0)
		return kd_wait_begin(s, KD_STOPPING, fd, err);
	if (fd < 0)
		trawl_domain_err_set(err, "%s", e);
	return fd;
}

static int kd_release_async(struct trawl_domain_session *s)
{
	int fd;

	if (s->wait != KD_IDLE)
		return -EINPROGRESS; /* (the daemon waits for it; then session_destroy) */
	fd = trawl_kernel_session_finish_send(s->ks);
	if (fd > 0 && kd_wait_begin(s, KD_FINISHING, fd, NULL) == -EINPROGRESS)
		return -EINPROGRESS;
	return 0;
}

static int kd_async_done(struct trawl_domain_session *s, int *ret, struct trawl_domain_err *err)
{
	if (s->wait == KD_IDLE)
		return *ret = 0, 1;
	if (!s->wait_over)
		return 0;
	*ret = s->wait == KD_FINISHING ? 0 : s->wait_ret;
	if (*ret < 0)
		trawl_domain_err_set(err, "%s", s->wait_err);
	s->wait = KD_IDLE;
	return 1;
}

/* regenerate, the consumer's answer awaited by the loop (domain.h) */
static int kd_regenerate_async(struct trawl_domain_session *s, int statedump,
			       struct trawl_domain_err *err)
{
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int fd;

	if (kd_busy(s, err))
		return -EBUSY;
	fd = trawl_kernel_session_regenerate_send(s->ks, statedump, e, sizeof(e));
	if (fd > 0)
		return kd_wait_begin(s, statedump ? KD_STATEDUMP : KD_METADATA, fd, err);
	if (fd < 0)
		trawl_domain_err_set(err, "%s", e);
	return fd;
}

static int kd_regenerate_statedump(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int ret = trawl_kernel_session_regenerate_statedump(s->ks, e, sizeof(e));

	if (ret < 0)
		trawl_domain_err_set(err, "%s", e);
	return ret;
}

static int kd_regenerate_metadata(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int ret = trawl_kernel_session_regenerate_metadata(s->ks, e, sizeof(e));

	if (ret < 0)
		trawl_domain_err_set(err, "%s", e);
	return ret;
}

/*
 * clear: tracing off, the consumer finishes its files, which are deleted
 * (as the owner), what the buffers hold goes; a started session starts
 * again with a new consumer (LTTng stops and starts a session to clear it).
 * Each answer of the consumers is awaited in the loop (-EINPROGRESS, then
 * async_done()): a consumer slow to finish or to start (its opener, which
 * runs as the owner, stopped; a loaded machine) holds this session only.
 */
static int kd_clear(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int fd;

	if (kd_busy(s, err))
		return -EBUSY;
	fd = trawl_kernel_session_switch_send(s->ks, 1, e, sizeof(e));
	if (fd < 0) {
		trawl_domain_err_set(err, "%s", e);
		return fd;
	}
	s->sw_clear = 1;
	return kd_wait_begin(s, KD_SWITCHING, fd, err);
}

/*
 * rotate_ready (domain.h). TRAWL_SESSIOND_FAULT_KERNEL_BUSY=N (fault
 * injection, for tests: read at each rotation of a root daemon started with
 * it) makes the first N rotations find the consumer busy, a state a test
 * cannot reach on purpose (a command of the session still waiting for its
 * consumer: the session is busy too, so it comes only from a fault).
 */
static int kd_rotate_ready(struct trawl_domain_session *s, const char *chunk,
			   struct trawl_domain_err *err)
{
	static unsigned long faults_done;
	const char *fault = getenv("TRAWL_SESSIOND_FAULT_KERNEL_BUSY");
	char out[sizeof(s->sw_out)];

	if (fault && faults_done < strtoul(fault, NULL, 10)) {
		faults_done++;
		trawl_domain_err_set(err, "the kernel consumer is still finishing a command");
		return -EBUSY;
	}
	if (kd_busy(s, err))
		return -EBUSY;
	if (trawl_path_fmt(out, sizeof(out), "%s/kernel", chunk)) {
		trawl_domain_err_set(err, "trace chunk folder too long: %s", chunk);
		return -ENAMETOOLONG;
	}
	return 0;
}

/*
 * rotate: the consumer drains and finishes the chunk's files while tracing
 * goes on; the next one writes under @chunk (now if started, else at the
 * next start) and takes what was recorded meanwhile from the buffers. As
 * clear, awaited in the loop.
 */
static int kd_rotate(struct trawl_domain_session *s, const char *chunk, const char *archive,
		     struct trawl_domain_err *err)
{
	char e[TRAWL_KERNEL_ERR_LEN] = "";
	int fd;

	if (archive[0]) {
		trawl_domain_err_set(err, "rotating the kernel domain of a session that streams to "
					  "trawl-relayd is not supported by trawl yet");
		return -EOPNOTSUPP;
	}
	if (kd_busy(s, err))
		return -EBUSY;
	if (trawl_path_fmt(s->sw_out, sizeof(s->sw_out), "%s/kernel", chunk)) {
		trawl_domain_err_set(err, "trace chunk folder too long: %s", chunk);
		return -ENAMETOOLONG;
	}
	fd = trawl_kernel_session_switch_send(s->ks, 0, e, sizeof(e));
	if (fd < 0) {
		trawl_domain_err_set(err, "%s", e);
		return fd;
	}
	s->sw_clear = 0;
	return kd_wait_begin(s, KD_SWITCHING, fd, err);
}

/* snapshot record: a one-shot consumer, its answers awaited in the loop */
static int kd_snapshot_record(struct trawl_domain_session *s, const char *dir,
			      uint64_t nr_packets, struct trawl_domain_err *err)
{
	char e[TRAWL_KERNEL_ERR_LEN] = "", out[4352];
	int fd;

	if (nr_packets) {
		/* (snapshot_one_more is NULL: the daemon refuses --max-size first) */
		trawl_domain_err_set(err, "kernel snapshots cannot be bounded by --max-size yet");
		return -EOPNOTSUPP;
	}

	if (!consumerd_path[0]) {
		trawl_domain_err_set(err, "cannot find trawl-consumerd");
		return -ENOENT;
	}
	if (kd_busy(s, err))
		return -EBUSY;
	if (trawl_path_fmt(out, sizeof(out), "%s/kernel", dir)) {
		trawl_domain_err_set(err, "snapshot folder too long: %s", dir);
		return -ENAMETOOLONG;
	}
	fd = trawl_kernel_session_snapshot_send(s->ks, consumerd_path, out, e, sizeof(e));
	if (fd < 0) {
		trawl_domain_err_set(err, "%s", e);
		return fd;
	}
	return kd_wait_begin(s, KD_SNAPSHOT, fd, err);
}

static int kd_list_events(enum trawl_ctl_event_kind kind, int with_fields,
			  trawl_domain_list_cb cb, void *arg, struct trawl_domain_err *err)
{
	struct trawl_kernel_list_item *items;
	int n, i, ret = 0;

	if (kind != TRAWL_CTL_EVENT_TRACEPOINT && kind != TRAWL_CTL_EVENT_SYSCALL) {
		trawl_domain_err_set(err, "only tracepoints and syscalls can be listed");
		return -EINVAL;
	}
	n = trawl_kernel_list(kind == TRAWL_CTL_EVENT_SYSCALL, with_fields, &items);
	if (n < 0) {
		trawl_domain_err_set(err, "cannot list kernel events: %s", strerror(-n));
		return n;
	}
	for (i = 0; i < n && !ret; i++) {
		struct trawl_domain_field_desc fields[128];
		struct trawl_domain_event_desc d = {
			.name = items[i].name, .kind = kind, .loglevel = -1,
		};
		char *line, *save = NULL;

		for (line = items[i].fields ? strtok_r(items[i].fields, "\n", &save) : NULL;
		     line && d.nr_fields < TRAWL_ARRAY_SIZE(fields);
		     line = strtok_r(NULL, "\n", &save)) {
			char *sp = strchr(line, ' ');

			if (!sp)
				continue;
			*sp = '\0';
			fields[d.nr_fields].name = line;
			fields[d.nr_fields].type = sp + 1;
			d.nr_fields++;
		}
		d.fields = fields;
		ret = cb(arg, &d);
	}
	trawl_kernel_list_free(items, n);
	return ret;
}

static int kd_status(struct trawl_domain_session *s, struct trawl_domain_status *st)
{
	memset(st, 0, sizeof(*st));
	st->consumer_alive = (uint32_t)trawl_kernel_session_consumer_alive(s->ks);
	st->events_discarded = trawl_kernel_session_lost(s->ks);
	if (s->started && !st->consumer_alive)
		trawl_msg_fmt(st->msg, sizeof(st->msg), "the kernel consumer died");
	else if (trawl_kernel_session_problem(s->ks)[0])
		trawl_msg_fmt(st->msg, sizeof(st->msg), "%s", trawl_kernel_session_problem(s->ks));
	return 0;
}

/*
 * LTTng's per-channel statistics: a discard-mode channel's events dropped;
 * overwrite mode's losses are events overwritten, not packets, in tracefs
 * (no packet count to give: 0).
 */
static int kd_channel_counters(struct trawl_domain_session *s, const char *channel,
			       uint64_t *discarded, uint64_t *lost_packets)
{
	*lost_packets = 0;
	return trawl_kernel_session_channel_lost(s->ks, channel, discarded);
}

/* A kernel channel's monitor sample, read from tracefs when asked (the
 * daemon reads its instances' stats itself: no consumer is needed, and a
 * snapshot session's buffers, which nothing drains, are sampled too). */
static int kd_channel_usage(struct trawl_domain_session *s, const char *channel, uint64_t *high)
{
	return trawl_kernel_session_channel_usage(s->ks, channel, high);
}

/*
 * The trackers, all six of LTTng's kernel ones, go to the session's
 * consumer, which applies them to each record as it converts it, by what
 * the task making it was at that time (src/kernel/tracker.c says why not
 * ftrace's own filters or set_event_pid). A running consumer has them
 * before this returns.
 */
static int kd_trackers_changed(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	static const char *const names[TRAWL_CTL_PROCESS_ATTR_COUNT] = {
		"pid", "vpid", "uid", "vuid", "gid", "vgid",
	};
	char e[TRAWL_KERNEL_ERR_LEN] = "", *spec, *o;
	size_t cap = 1;
	uint32_t a, i;
	int ret;

	_Static_assert(TRAWL_CTL_PROCESS_ATTR_COUNT == TRAWL_KERNEL_TRACKER_ATTRS,
		       "one consumer tracker per process attribute");
	if (kd_busy(s, err))
		return -EBUSY;
	for (a = 0; a < TRAWL_CTL_PROCESS_ATTR_COUNT; a++)
		cap += 8 + 11 * (size_t)s->trackers->attr[a].nr; /* "vpid:" + "4294967295," each */
	spec = o = malloc(cap);
	if (!spec)
		return -ENOMEM;
	for (a = 0; a < TRAWL_CTL_PROCESS_ATTR_COUNT; a++) {
		const struct trawl_domain_tracker *t = &s->trackers->attr[a];

		if (!t->restricted)
			continue;
		o += sprintf(o, "%s:", names[a]);
		for (i = 0; i < t->nr; i++)
			o += sprintf(o, "%s%u", i ? "," : "", t->values[i]);
		*o++ = '\n';
	}
	*o = '\0';
	ret = trawl_kernel_session_set_trackers(s->ks, spec, e, sizeof(e));
	free(spec);
	if (ret < 0)
		trawl_domain_err_set(err, "%s", e[0] ? e : strerror(-ret));
	return ret;
}

const struct trawl_domain_ops trawl_domain_kernel_ops = {
	.type = TRAWL_CTL_DOMAIN_KERNEL,
	.name = "kernel",
	.process_attrs = (1u << TRAWL_CTL_PROCESS_ATTR_COUNT) - 1, /* all of LTTng's six */
	.init = kd_init,
	.session_create = kd_session_create,
	.session_destroy = kd_session_destroy,
	.channel_create = kd_channel_create,
	.channel_enable = kd_channel_enable,
	.event_enable = kd_event_enable,
	.event_disable = kd_event_disable,
	.context_add = kd_context_add,
	.start = kd_start,
	.start_async = kd_start_async,
	.stop = kd_stop,
	.stop_async = kd_stop_async,
	.release_async = kd_release_async,
	.async_done = kd_async_done,
	.snapshot_record = kd_snapshot_record,
	.list_events = kd_list_events,
	.status = kd_status,
	.channel_counters = kd_channel_counters,
	.channel_usage = kd_channel_usage,
	.regenerate_statedump = kd_regenerate_statedump,
	.regenerate_metadata = kd_regenerate_metadata,
	.clear = kd_clear,
	.rotate = kd_rotate,
	.rotate_ready = kd_rotate_ready,
	.regenerate_async = kd_regenerate_async,
	.trackers_changed = kd_trackers_changed,
};
