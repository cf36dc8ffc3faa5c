/* SPDX-License-Identifier: MIT */
/*
 * cmd-context.c - add-context: the context names each domain takes, and
 * contexts added to one channel or to every channel of a domain.
 *
 * Contexts are added before the session first starts. A context of the JUL
 * or log4j domain goes to the session's user-space channels (LTTng 2.13);
 * user space's perf:thread: counters are probed as the session's owner
 * first, in a child (ust-context.c). Channels are found or made by
 * cmd-channel.c's rules (sd_channel_for()).
 */
#include "common/common.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const common_contexts[] = {
	"pid",	 "tid",	   "vpid",    "vtid",	 "ppid",   "procname", "prio",	  "nice",
	"hostname", "cpu_id", "cgroup_ns", "ipc_ns", "mnt_ns", "net_ns", "pid_ns", "time_ns",
	"user_ns", "uts_ns"};
static const char *const ust_only_contexts[] = {"ip", "pthread_id"};
static const char *const perf_counters[] = {
	"cpu-clock", "task-clock", "page-fault", "page-faults", "faults", "major-faults",
	"minor-faults", "context-switches", "cs", "cpu-migrations", "migrations",
	"alignment-faults", "emulation-faults", "cpu-cycles", "cycles", "instructions",
	"cache-references", "cache-misses", "branch-instructions", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
};

static int in_list(const char *name, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(name, list[i]))
			return 1;
	return 0;
}

/* 0 if @name is a context @domain knows, else fills @r. */
static int context_check(const char *name, uint32_t domain, struct sd_reply *r)
{
	/* $app.PROVIDER:NAME: ust-context.c checks the name. */
	if (domain == TRAWL_CTL_DOMAIN_UST && !strncmp(name, "$app.", 5))
		return 0;
	/* User space checks its perf counters itself, probing them as the
	 * session's owner (sessiond/ust-context.c). */
	if (domain == TRAWL_CTL_DOMAIN_UST && !strncmp(name, "perf:", 5))
		return 0;
	/* So does the kernel backend (kernel/perf.c), which knows every name
	 * LTTng accepts and says which counters this machine lacks. */
	if (domain == TRAWL_CTL_DOMAIN_KERNEL && !strncmp(name, "perf:cpu:", 9))
		return 0;
	if (in_list(name, common_contexts, TRAWL_ARRAY_SIZE(common_contexts)))
		return 0;
	if (in_list(name, ust_only_contexts, TRAWL_ARRAY_SIZE(ust_only_contexts)))
		return domain == TRAWL_CTL_DOMAIN_UST
			       ? 0
			       : sd_fail(r, -EINVAL, "context '%s' is for user space only", name);
	if (!strncmp(name, "perf:thread:", 12) &&
	    in_list(name + 12, perf_counters, TRAWL_ARRAY_SIZE(perf_counters)))
		return sd_fail(r, -EINVAL, "perf:thread: counters are for user space; "
					   "use perf:cpu:%s with --kernel", name + 12);
	return sd_fail(r, -EINVAL, "unknown context '%s'", name);
}

/* Adds context @ctx to channel @c of @d: 0, or -errno with @err its line. */
static int context_add_one(struct sd_domain *d, struct sd_channel *c,
			   const struct trawl_domain_context *ctx, struct trawl_domain_err *err)
{
	struct trawl_domain_err derr = {""};
	struct sd_context *x, **tail;
	int ret;

	for (tail = &c->contexts; *tail; tail = &(*tail)->next) {
		if (!strcmp((*tail)->name, ctx->name)) {
			trawl_domain_err_set(err, "context '%s' is already in channel '%s'",
					     ctx->name, c->attr.name);
			return -EEXIST;
		}
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		trawl_domain_err_set(err, "out of memory");
		return -ENOMEM;
	}
	snprintf(x->name, sizeof(x->name), "%s", ctx->name);
	ret = d->ops->context_add(d->ds, c->attr.name, ctx, &derr);
	if (ret) {
		free(x);
		trawl_domain_err_set(err, "cannot add context '%s': %s", ctx->name,
				     derr.msg[0] ? derr.msg : strerror(-ret));
		return ret;
	}
	*tail = x;
	return 0;
}

/* Adds @ctx to channel @channel of @d ("": to every channel). 0 or -errno, @err its line. */
static int context_add(struct sd_session *s, struct sd_domain *d, const char *channel,
		       const struct trawl_domain_context *ctx, struct trawl_domain_err *err)
{
	struct sd_channel *c;
	int ret;

	if (channel[0]) {
		c = sd_channel_find(d, channel);
		if (!c) {
			trawl_domain_err_set(err, "no channel named '%s' in session '%s'", channel,
					     s->name);
			return -ENOENT;
		}
		return context_add_one(d, c, ctx, err);
	}
	for (c = d->channels; c; c = c->next)
		if ((ret = context_add_one(d, c, ctx, err)))
			return ret;
	return 0;
}

/*
 * add-context -u perf:thread:NAME in the root daemon: the counter is probed
 * as the session's owner by a child (ust-context.c), which the owner can
 * stop; the loop does not wait for it. An op (sd_op_domains()): the probe
 * before the domains (awaited in the loop, within owner-ms, the session
 * busy meanwhile), then the context added in the domain with its result.
 */
struct ctx_job {
	struct trawl_domain_context ctx; /* .name: name */
	char name[TRAWL_CTL_NAME_MAX];
	char channel[TRAWL_CTL_NAME_MAX]; /* "": every channel */
	uint32_t domain;
};

static int ctx_before(struct sd_session *s, void *arg, struct sd_owner_job *job, char *what,
		      size_t len)
{
	struct ctx_job *j = arg;
	int ret;

	trawl_msg_fmt(what, len, "cannot add context '%s': probing the counter as uid %d",
		      j->name, (int)s->uid);
	ret = ust_counter_probe_begin(job, j->name + 12, s->uid, s->gid, &j->ctx.probe_ret);
	if (!ret)
		j->ctx.probed = 1;
	return ret;
}

static int ctx_job_done(void *arg, int stage, int ret)
{
	struct ctx_job *j = arg;

	(void)stage;
	ret = ust_counter_probe_result(ret, &j->ctx.probe_ret);
	if (!ret)
		j->ctx.probed = 1;
	return ret;
}

static int ctx_step(struct sd_session *s, int i, void *arg, struct trawl_domain_err *err)
{
	struct ctx_job *j = arg;

	if ((uint32_t)i != j->domain)
		return 0;
	j->ctx.name = j->name;
	return context_add(s, &s->dom[i], j->channel, &j->ctx, err);
}

static void ctx_end(struct sd_session *s, int i, int ret, const struct trawl_domain_err *err,
		    void *arg, struct sd_reply *r)
{
	(void)s;
	(void)i;
	(void)arg;
	if (ret)
		sd_fail(r, ret, "%s", err->msg[0] ? err->msg : strerror(-ret));
}

static const struct sd_domains_cmd ctx_cmd = {
	.what = "an add-context",
	.step = ctx_step,
	.end = ctx_end,
	.before = ctx_before,
	.job_done = ctx_job_done,
};

void sd_cmd_add_context(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			struct sd_reply *r)
{
	struct trawl_domain_context ctx = {.name = req->name};
	struct trawl_domain_err err = {""};
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	struct sd_domain *d;
	struct sd_channel *c = NULL;
	uint32_t domain = req->domain;
	const char *agent_chan = NULL;
	struct ctx_job *j;
	int ret;

	if (!s)
		return;
	/*
	 * LTTng 2.13: a context of the JUL or log4j domain is one of the
	 * session's user-space channels (every one, or the domain's own,
	 * lttng_jul_channel / lttng_log4j_channel, made with the defaults when
	 * the session has no user-space channel yet); an application context
	 * is also given to the domain's agents (cmd-agent.c), which then hand
	 * its values to their tracepoint. LTTng's add-context has no
	 * --python: its Python agent has no application contexts.
	 */
	if (domain == TRAWL_CTL_DOMAIN_JUL || domain == TRAWL_CTL_DOMAIN_LOG4J) {
		agent_chan = sd_agent_channel(domain);
		if (req->channel[0] && strcmp(req->channel, agent_chan))
			return (void)sd_fail(r, -ENOENT, "no channel named '%s' in the %s domain (its "
							 "contexts go to %s)",
					     req->channel, sd_domain_name(domain), agent_chan);
		domain = TRAWL_CTL_DOMAIN_UST;
	} else if (domain == TRAWL_CTL_DOMAIN_PYTHON) {
		return (void)sd_fail(r, -EINVAL, "the python domain has no contexts (LTTng's Python "
						 "agent records no application contexts)");
	}
	if (!(d = sd_domain_get(s, domain, r)))
		return;
	if (context_check(req->name, domain, r))
		return;
	if (s->started_once)
		return (void)sd_fail(r, -EBUSY, "cannot add context '%s': session '%s' has already "
						"been started", req->name, s->name);
	if (agent_chan && (req->channel[0] || !d->channels)) {
		c = sd_channel_find(d, agent_chan);
		if (!c && req->channel[0])
			return (void)sd_fail(r, -ENOENT, "no channel named '%s' in session '%s'",
					     agent_chan, s->name);
		if (!c && !(c = sd_channel_create(s, d, domain, NULL, agent_chan, r)))
			return;
	} else if (req->channel[0] || !d->channels) {
		c = sd_channel_for(s, d, req, r);
		if (!c)
			return;
	}
	if (domain != TRAWL_CTL_DOMAIN_UST || strncmp(req->name, "perf:thread:", 12)) {
		ret = c ? context_add_one(d, c, &ctx, &err) : context_add(s, d, "", &ctx, &err);
		if (ret)
			sd_fail(r, ret, "%s", err.msg);
		else if (agent_chan && !strncmp(req->name, "$app.", 5))
			sd_agent_app_ctx_add(s, req->domain, req->name);
		return;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return (void)sd_fail(r, -ENOMEM, "out of memory");
	if (trawl_path_fmt(j->name, sizeof(j->name), "%s", req->name) ||
	    (c && trawl_path_fmt(j->channel, sizeof(j->channel), "%s", c->attr.name))) {
		free(j);
		return (void)sd_fail(r, -ENAMETOOLONG, "context or channel name too long");
	}
	j->domain = domain;
	sd_op_domains(s, &ctx_cmd, j, 0, r);
}
