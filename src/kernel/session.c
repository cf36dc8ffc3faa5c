/* SPDX-License-Identifier: MIT */
/*
 * A kernel session: its channels (tracefs instances), their contexts, the
 * trackers, and what its buffers lost or hold. Its consumer process is in
 * session-consumer.c, starting and stopping in session-run.c; the design
 * is at the top of session-internal.h.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"
#include "kernel/session-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int trawl_kernel_session_channel_fixed(struct trawl_kernel_session *s, const char *channel)
{
	struct kchannel *c = find_channel(s, channel);

	return c && c->nperf && s->consumer;
}

const char *trawl_kernel_session_problem(const struct trawl_kernel_session *s)
{
	return s->problem;
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
		ret = ksession_consumer_wait(s, 'K', CONSUMER_TIMEOUT_MS);
	if (ret < 0)
		trawl_msg_fmt(err, errlen, "the kernel consumer did not take the trackers in: %s",
			      strerror(-ret));
	return ret;
}
