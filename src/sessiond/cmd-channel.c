/* SPDX-License-Identifier: MIT */
/*
 * cmd-channel.c - channel and event-rule commands, and the list of events a
 * domain offers (add-context: cmd-context.c).
 *
 * The rules every domain shares are enforced here, before a domain is
 * called: a channel is created once and only before the session first
 * starts; an event without --channel goes to "channel0", created with the
 * domain's defaults on first use (as LTTng does); the same rule is never
 * enabled twice.
 */
#include "common/common.h"
#include "sessiond/sessiond.h"
#ifdef TRAWL_HAVE_UST_DOMAIN
#include "filter/filter.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_CHANNEL "channel0"

void sd_channel_free(struct sd_channel *c)
{
	while (c->events) {
		struct sd_event *e = c->events;

		c->events = e->next;
		free(e);
	}
	while (c->contexts) {
		struct sd_context *x = c->contexts;

		c->contexts = x->next;
		free(x);
	}
	free(c);
}

struct sd_domain *sd_domain_get(struct sd_session *s, uint32_t domain, struct sd_reply *r)
{
	struct trawl_domain_session_info info;
	struct trawl_domain_err err = {""};
	struct sd_domain *d;
	int ret;

	if (domain == 0 || domain >= SD_NR_DOMAINS) {
		sd_fail(r, -EINVAL, TRAWL_CTL_WIRE_IS_AGENT(domain)
					    ? "the %s domain has no channels or contexts of its own"
					    : "no domain given: use --kernel or --userspace",
			sd_domain_name(domain));
		return NULL;
	}
	d = &s->dom[domain];
	if (d->ds)
		return d;
	if (!sd.domains[domain] || sd.domain_ret[domain]) {
		sd_fail(r, sd.domain_ret[domain] == -EOPNOTSUPP && domain == TRAWL_CTL_DOMAIN_KERNEL &&
					   !sd.root_daemon ? -EACCES : sd.domain_ret[domain],
			"%s", sd.domain_err[domain]);
		return NULL;
	}
	info.name = s->name;
	info.id = s->id;
	info.output = s->relay[0] ? s->relay : s->output;
	info.uid = s->uid;
	info.gid = s->gid;
	/* a --no-output session's buffers are not consumed either: snapshots take them */
	info.snapshot = s->snapshot || !s->output[0];
	info.live = s->live;
	info.created = s->created;
	info.shm_path = s->shm_path;
	info.trackers = &d->trackers;
	ret = sd.domains[domain]->session_create(&info, &d->ds, &err);
	if (ret) {
		sd_fail(r, ret, "%s tracing unavailable: %s", sd_domain_name(domain),
			err.msg[0] ? err.msg : strerror(-ret));
		d->ds = NULL;
		return NULL;
	}
	d->ops = sd.domains[domain];
	return d;
}

struct sd_channel *sd_channel_find(struct sd_domain *d, const char *name)
{
	struct sd_channel *c;

	for (c = d->channels; c; c = c->next)
		if (!strcmp(c->attr.name, name))
			return c;
	return NULL;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

static void channel_defaults(const struct sd_session *s, uint32_t domain,
			     struct trawl_domain_channel_attr *a)
{
	/*
	 * 4 MiB per CPU in both domains: 4 x 1 MiB for the kernel, 8 x 512 KiB
	 * for user space (LTTng's per-user default is 4 x 512 KiB, 2 MiB). Why
	 * 4 MiB: an app tracing flat out (~22 M events/s, 640 MB/s) filled
	 * 4 x 512 KiB between two consumer rounds (135,167 of 10 M events
	 * discarded, bench/ust); it writes ~3x the bytes per second of an
	 * LTTng-UST app, so it needs ~3x the room for the same time.
	 *
	 * Why 8 sub-buffers of 512 KiB rather than 4 of 1 MiB for user space:
	 * the consumer is woken when the first packet closes, and must drain
	 * before the app laps it, so the app's room after the wake-up is
	 * (n - 1) / n of the buffer: 3.5 MiB instead of 3, at the same memory.
	 * On a busy 2-core machine (a CPU hog on each core, other work beside:
	 * load 11-15), 20 runs each of 10 M events, 1 and 2 threads, the
	 * variants alternating: 4 x 1 MiB lost events in 9 runs (817 k in all),
	 * 8 x 512 KiB in 4 (45 k), 16 x 256 KiB in 6 (131 k: no better at that
	 * noise, for twice the packets), LTTng's default in 14 (3.0 M). A
	 * packet the consumer holds also keeps 1/8 of the buffer from the app
	 * instead of 1/4. The cost: up to twice the consumer's wake-ups per GB
	 * when it keeps up (as LTTng's, whose packets are 512 KiB too). More
	 * memory was measured too (8 x 1 MiB dropped none in 8 of
	 * 10 runs at load 3-8) but not taken: on a 64-CPU machine it would hold
	 * 512 MiB a user and session, four times LTTng's 2 MiB a CPU, for apps
	 * that rarely trace that fast; the remedy for those is bigger buffers
	 * or --blocking-timeout. A page is taken when an app first writes it: a
	 * CPU that never traced holds only its control page.
	 */
	a->subbuf_size = domain == TRAWL_CTL_DOMAIN_UST ? 512u << 10 : 1u << 20;
	a->num_subbuf = domain == TRAWL_CTL_DOMAIN_UST ? 8 : 4;
	a->overwrite = s->snapshot ? 1 : 0;
	/* User space: none, as LTTng's ("inactive"): the apps wake the
	 * consumer when they close a packet (ringbuffer.h, "Wake-ups"); it
	 * polls every 1 ms only the channels of apps that cannot. A read timer
	 * given makes the consumer poll at that period instead. */
	a->read_timer_us = domain == TRAWL_CTL_DOMAIN_UST ? 0 : 200000;
	/* Live: partial packets are closed every live timer period, for viewers to see. */
	a->switch_timer_us = s->live_timer_us;
	a->buffers = domain == TRAWL_CTL_DOMAIN_UST ? TRAWL_CTL_BUFFERS_PER_UID
						    : TRAWL_CTL_BUFFERS_GLOBAL;
	/* LTTng's: the kernel splices, but a snapshot session's channels map */
	a->output = domain == TRAWL_CTL_DOMAIN_KERNEL && !s->snapshot ? TRAWL_CTL_OUTPUT_SPLICE
								      : TRAWL_CTL_OUTPUT_MMAP;
	a->monitor_timer_us = TRAWL_CTL_MONITOR_DEFAULT_US;
}

/* The buffering scheme @req asks for, if @domain has it; else fills @r. */
static int buffers_check(uint32_t domain, uint32_t buffers, struct sd_reply *r)
{
	if (buffers == TRAWL_CTL_BUFFERS_DEFAULT)
		return 0;
	if (domain == TRAWL_CTL_DOMAIN_KERNEL && buffers != TRAWL_CTL_BUFFERS_GLOBAL)
		return sd_fail(r, -EINVAL, "--buffers-uid/--buffers-pid apply to user space only");
	if (domain == TRAWL_CTL_DOMAIN_UST && buffers == TRAWL_CTL_BUFFERS_GLOBAL)
		return sd_fail(r, -EINVAL, "--buffers-global applies to the kernel only");
	return 0;
}

struct sd_channel *sd_channel_create(struct sd_session *s, struct sd_domain *d, uint32_t domain,
				     const struct trawl_ctl_wire_req *req, const char *name,
				     struct sd_reply *r)
{
	struct trawl_domain_err err = {""};
	struct sd_channel *c, **tail;
	int ret;

	if (s->started_once) {
		sd_fail(r, -EBUSY, "cannot add channel '%s': session '%s' has already been started",
			name, s->name);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		sd_fail(r, -ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(c->attr.name, sizeof(c->attr.name), "%s", name);
	channel_defaults(s, domain, &c->attr);
	if (req) {
		if (req->subbuf_size)
			c->attr.subbuf_size = req->subbuf_size;
		if (req->num_subbuf)
			c->attr.num_subbuf = req->num_subbuf;
		if (req->overwrite)
			c->attr.overwrite = req->overwrite == TRAWL_CTL_MODE_OVERWRITE;
		if (req->switch_timer_us)
			c->attr.switch_timer_us = req->switch_timer_us;
		if (req->read_timer_us)
			c->attr.read_timer_us = req->read_timer_us;
		if (req->monitor_timer_us)
			c->attr.monitor_timer_us = req->monitor_timer_us == TRAWL_CTL_WIRE_MONITOR_OFF
							   ? 0 : req->monitor_timer_us;
		if (buffers_check(domain, req->buffers, r)) {
			free(c);
			return NULL;
		}
		if (req->buffers)
			c->attr.buffers = (enum trawl_ctl_buffers)req->buffers;
		c->attr.tracefile_size = req->tracefile_size;
		/* LTTng's: a count without a size does nothing */
		c->attr.tracefile_count = req->tracefile_size ? req->tracefile_count : 0;
		c->attr.blocking_timeout_us = req->blocking_timeout_us;
		/* LTTng 2.13's rules: user space maps its buffers only; a kernel
		 * channel of a snapshot session maps whatever is asked */
		if (req->chan_output == TRAWL_CTL_OUTPUT_SPLICE && domain == TRAWL_CTL_DOMAIN_UST) {
			sd_fail(r, -EOPNOTSUPP, "cannot create channel '%s': user-space channels "
						"use mmap output only (--output splice is for the "
						"kernel)", name);
			free(c);
			return NULL;
		}
		if (req->chan_output && !s->snapshot)
			c->attr.output = (enum trawl_ctl_output)req->chan_output;
	}
	/* streamed: the consumer splits its files on relayd (OPEN), as LTTng's
	 * relayd does; live viewers read a stream's files one after the other
	 * (relayd/live-internal.h) */
	/* LTTng 2.13's rules: a writer waits for room only in a user-space
	 * channel (the kernel's never waits), and in discard mode. An
	 * overwrite channel with a timeout is accepted, as LTTng's daemon
	 * does (a snapshot session's channels default to overwrite, and
	 * LTTng's ust/blocking test enables one with --blocking-timeout): its
	 * writers never wait (agent.c), and the client refuses an explicit
	 * --overwrite with a timeout as LTTng's does. */
	if (c->attr.blocking_timeout_us && domain != TRAWL_CTL_DOMAIN_UST) {
		sd_fail(r, -EINVAL, "--blocking-timeout applies to user space only");
		free(c);
		return NULL;
	}
	if (!is_pow2(c->attr.subbuf_size) || c->attr.subbuf_size < 4096 ||
	    c->attr.subbuf_size > (1ull << 32)) {
		sd_fail(r, -EINVAL, "bad sub-buffer size %llu: a power of two from 4 KiB to 4 GiB",
			(unsigned long long)c->attr.subbuf_size);
		free(c);
		return NULL;
	}
	if (!is_pow2(c->attr.num_subbuf) || c->attr.num_subbuf < 2 ||
	    c->attr.num_subbuf > (1u << 20)) {
		sd_fail(r, -EINVAL, "bad number of sub-buffers %u: a power of two, at least 2",
			c->attr.num_subbuf);
		free(c);
		return NULL;
	}
	/* LTTng's client raises a smaller size to the sub-buffer size: a file holds a packet */
	if (c->attr.tracefile_size && c->attr.tracefile_size < c->attr.subbuf_size)
		c->attr.tracefile_size = c->attr.subbuf_size;
	/* and trawl's kernel packets reach 8 KiB (kernel/convert.c) */
	if (c->attr.tracefile_size && domain == TRAWL_CTL_DOMAIN_KERNEL &&
	    c->attr.tracefile_size < 8192)
		c->attr.tracefile_size = 8192;
	ret = d->ops->channel_create(d->ds, &c->attr, &err);
	if (ret) {
		sd_fail(r, ret, "cannot create channel '%s': %s", name,
			err.msg[0] ? err.msg : strerror(-ret));
		free(c);
		return NULL;
	}
	c->enabled = 1;
	for (tail = &d->channels; *tail; tail = &(*tail)->next)
		;
	*tail = c;
	return c;
}

void sd_cmd_enable_channel(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			   struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	struct trawl_domain_err err = {""};
	struct sd_domain *d;
	struct sd_channel *c;
	int ret;

	if (!s || !(d = sd_domain_get(s, req->domain, r)))
		return;
	if (!req->channel[0])
		return (void)sd_fail(r, -EINVAL, "no channel name given");
	c = sd_channel_find(d, req->channel);
	if (!c) {
		sd_channel_create(s, d, req->domain, req, req->channel, r);
		return;
	}
	if (c->enabled)
		return (void)sd_fail(r, -EEXIST, "channel '%s' is already enabled", c->attr.name);
	ret = d->ops->channel_enable(d->ds, c->attr.name, 1, &err);
	if (ret)
		return (void)sd_fail(r, ret, "cannot enable channel '%s': %s", c->attr.name,
				     err.msg[0] ? err.msg : strerror(-ret));
	c->enabled = 1;
}

void sd_cmd_disable_channel(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			    struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	struct trawl_domain_err err = {""};
	struct sd_domain *d;
	struct sd_channel *c;
	int ret;

	if (!s || !(d = sd_domain_get(s, req->domain, r)))
		return;
	c = sd_channel_find(d, req->channel);
	if (!c)
		return (void)sd_fail(r, -ENOENT, "no channel named '%s' in session '%s'",
				     req->channel, s->name);
	if (!c->enabled)
		return (void)sd_fail(r, -EEXIST, "channel '%s' is already disabled", c->attr.name);
	ret = d->ops->channel_enable(d->ds, c->attr.name, 0, &err);
	if (ret)
		return (void)sd_fail(r, ret, "cannot disable channel '%s': %s", c->attr.name,
				     err.msg[0] ? err.msg : strerror(-ret));
	c->enabled = 0;
}

/* The channel named in @req, or the default one (created on demand). */
struct sd_channel *sd_channel_for(struct sd_session *s, struct sd_domain *d,
				  const struct trawl_ctl_wire_req *req, struct sd_reply *r)
{
	const char *name = req->channel[0] ? req->channel : DEFAULT_CHANNEL;
	struct sd_channel *c = sd_channel_find(d, name);

	if (c)
		return c;
	if (req->channel[0]) {
		sd_fail(r, -ENOENT, "no channel named '%s' in session '%s'", name, s->name);
		return NULL;
	}
	return sd_channel_create(s, d, req->domain, NULL, name, r);
}

/*
 * An event rule's exclusions (enable-event --exclude), as LTTng 2.13 takes
 * them: user-space tracepoint rules only, whose name is a '*' pattern; each
 * exclusion a name or pattern of at most 255 bytes (LTTng cuts longer ones
 * with a warning; trawl refuses them). 0, or -1 with @r filled.
 */
static int exclusions_check(const struct trawl_ctl_wire_req *req, struct sd_reply *r)
{
	const char *x = req->exclusions, *end;

	if (req->domain != TRAWL_CTL_DOMAIN_UST) {
		sd_fail(r, -EINVAL, "event name exclusions are not yet implemented for kernel "
				    "events");
		return -1;
	}
	if (!strchr(req->name, '*')) {
		sd_fail(r, -EINVAL, "event %s: exclusions can only be used with a globbing "
				    "pattern", req->name);
		return -1;
	}
	for (;; x = end + 1) {
		end = strchr(x, ',');
		if (!end)
			end = x + strlen(x);
		if (end == x || end - x >= TRAWL_CTL_NAME_MAX) {
			sd_fail(r, -EINVAL, "event %s: an exclusion is empty or longer than %d "
					    "bytes", req->name, TRAWL_CTL_NAME_MAX - 1);
			return -1;
		}
		if (!*end)
			return 0;
	}
}

static int same_rule(const struct sd_event *e, const struct trawl_ctl_wire_req *req)
{
	return e->kind == (enum trawl_ctl_event_kind)req->event_kind &&
	       !strcmp(e->name, req->name) && !strcmp(e->filter, req->filter) &&
	       !strcmp(e->target, req->target) && !strcmp(e->exclusions, req->exclusions) &&
	       e->loglevel_type == (enum trawl_ctl_loglevel_type)req->loglevel_type &&
	       (req->loglevel_type == TRAWL_CTL_LOGLEVEL_ALL || e->loglevel == req->loglevel);
}

static void rule_of(const struct sd_event *e, const struct sd_peer *p,
		    struct trawl_domain_event_rule *rule)
{
	rule->uid = p->uid;
	rule->gid = p->gid;
	rule->kind = e->kind;
	rule->name = e->name;
	rule->target = e->target[0] ? e->target : NULL;
	rule->filter = e->filter[0] ? e->filter : NULL;
	rule->exclusions = e->exclusions[0] ? e->exclusions : NULL;
	rule->loglevel_type = e->loglevel_type;
	rule->loglevel = e->loglevel;
}

/*
 * Enables the rule @req names in channel @c of domain @d (the rule made if
 * new): 0, or a negative errno with @line the client's line. @located: a
 * user-space probe's file, read already (below), else NULL.
 */
static int event_enable_in(struct sd_domain *d, struct sd_channel *c,
			   const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			   const struct sd_uprobe_located *located, struct trawl_domain_err *line)
{
	struct trawl_domain_err err = {""};
	struct trawl_domain_event_rule rule;
	struct sd_event *e, **tail;
	int ret;

	for (tail = &c->events; *tail; tail = &(*tail)->next) {
		if (!same_rule(*tail, req))
			continue;
		if ((*tail)->enabled) {
			trawl_domain_err_set(line, "event '%s' is already enabled in channel '%s'",
					     req->name, c->attr.name);
			return -EEXIST;
		}
		rule_of(*tail, p, &rule);
		rule.located = located;
		ret = d->ops->event_enable(d->ds, c->attr.name, &rule, &err);
		if (ret) {
			trawl_domain_err_set(line, "cannot enable event '%s': %s", req->name,
					     err.msg[0] ? err.msg : strerror(-ret));
			return ret;
		}
		(*tail)->enabled = 1;
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		trawl_domain_err_set(line, "out of memory");
		return -ENOMEM;
	}
	e->kind = (enum trawl_ctl_event_kind)req->event_kind;
	snprintf(e->name, sizeof(e->name), "%s", req->name);
	snprintf(e->target, sizeof(e->target), "%s", req->target);
	snprintf(e->filter, sizeof(e->filter), "%s", req->filter);
	snprintf(e->exclusions, sizeof(e->exclusions), "%s", req->exclusions);
	e->loglevel_type = (enum trawl_ctl_loglevel_type)req->loglevel_type;
	e->loglevel = req->loglevel;
	rule_of(e, p, &rule);
	rule.located = located;
	ret = d->ops->event_enable(d->ds, c->attr.name, &rule, &err);
	if (ret) {
		free(e);
		trawl_domain_err_set(line, "cannot enable event '%s': %s", req->name,
				     err.msg[0] ? err.msg : strerror(-ret));
		return ret;
	}
	e->enabled = 1;
	*tail = e;
	return 0;
}

#ifdef TRAWL_HAVE_KERNEL_DOMAIN
/*
 * enable-event -k --userspace-probe in the root daemon: the probe's file is
 * opened, and its ELF read, by a child as the client (domain-kernel.c),
 * which their file system (FUSE, NFS) or they themselves (kill -STOP) may
 * hold: an op (sd_op_domains()), the child before the domains (awaited in
 * the loop, within owner-ms, the session busy meanwhile), then the rule
 * enabled in the kernel domain with what the child found.
 */
struct uprobe_job {
	struct trawl_ctl_wire_req req; /* the request, as it came */
	struct sd_peer peer;
	struct sd_channel *c; /* (the session is busy: it stays) */
	struct sd_uprobe_located *loc; /* owned */
};

static int uprobe_before(struct sd_session *s, void *arg, struct sd_owner_job *job, char *what,
			 size_t len)
{
	struct uprobe_job *j = arg;
	int ret;

	(void)s;
	trawl_msg_fmt(what, len, "cannot enable event '%s': reading %s as uid %d", j->req.name,
		      j->req.target, (int)j->peer.uid);
	ret = sd_uprobe_locate_begin(job, j->loc, j->req.target, j->peer.uid, j->peer.gid);
	/* (-EUSERS: the client's cap of children, as-owner.c: refused, the
	 * command's line names it) */
	if (ret == -EINPROGRESS || ret == -ENAMETOOLONG || ret == -EUSERS)
		return ret;
	sd_uprobe_located_set(j->loc, ret); /* (ran in place: the domain says why) */
	return 0;
}

static int uprobe_job_done(void *arg, int stage, int ret)
{
	struct uprobe_job *j = arg;

	(void)stage;
	/* the child's own failure (no such file, no such symbol) is the
	 * domain's line; no answer within owner-ms is the command's */
	if (ret == -ETIMEDOUT || ret == -EIO)
		return ret;
	sd_uprobe_located_set(j->loc, ret);
	return 0;
}

static int uprobe_step(struct sd_session *s, int i, void *arg, struct trawl_domain_err *err)
{
	struct uprobe_job *j = arg;

	if ((uint32_t)i != TRAWL_CTL_DOMAIN_KERNEL)
		return 0;
	return event_enable_in(&s->dom[i], j->c, &j->req, &j->peer, j->loc, err);
}

static void uprobe_end(struct sd_session *s, int i, int ret, const struct trawl_domain_err *err,
		       void *arg, struct sd_reply *r)
{
	struct uprobe_job *j = arg;

	(void)s;
	(void)i;
	sd_uprobe_located_destroy(j->loc);
	j->loc = NULL;
	if (ret)
		sd_fail(r, ret, "%s", err->msg[0] ? err->msg : strerror(-ret));
}

static const struct sd_domains_cmd uprobe_cmd = {
	.what = "an enable-event",
	.step = uprobe_step,
	.end = uprobe_end,
	.before = uprobe_before,
	.job_done = uprobe_job_done,
};

/* 1 if the request's user-space probe is read off the loop (uprobe_cmd). */
static int uprobe_off_loop(struct sd_session *s, struct sd_channel *c,
			   const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			   struct sd_reply *r)
{
	struct uprobe_job *j;
	struct sd_event *e;

	if (req->domain != TRAWL_CTL_DOMAIN_KERNEL ||
	    req->event_kind != TRAWL_CTL_EVENT_USERSPACE_PROBE)
		return 0;
	for (e = c->events; e; e = e->next)
		if (same_rule(e, req) && e->enabled)
			return 0; /* (refused at once: already enabled) */
	j = calloc(1, sizeof(*j));
	if (j)
		j->loc = sd_uprobe_located_create();
	if (!j || !j->loc) {
		free(j);
		sd_fail(r, -ENOMEM, "out of memory");
		return 1;
	}
	j->req = *req;
	j->peer = *p;
	j->c = c;
	sd_op_domains(s, &uprobe_cmd, j, 0, r);
	return 1;
}
#endif

int sd_agent_ust_rule(struct sd_session *s, const char *channel, const char *tracepoint,
		      const char *filter, int enable, const struct sd_peer *p, struct sd_reply *r)
{
	struct trawl_ctl_wire_req req;
	struct trawl_domain_err line = {""};
	struct trawl_domain_event_rule rule;
	struct sd_domain *d = sd_domain_get(s, TRAWL_CTL_DOMAIN_UST, r);
	struct sd_channel *c;
	struct sd_event *e;
	int ret;

	if (!d)
		return -1;
	memset(&req, 0, sizeof(req));
	req.domain = TRAWL_CTL_DOMAIN_UST;
	req.event_kind = TRAWL_CTL_EVENT_TRACEPOINT;
	if (trawl_path_fmt(req.name, sizeof(req.name), "%s", tracepoint) ||
	    trawl_path_fmt(req.filter, sizeof(req.filter), "%s", filter)) {
		sd_fail(r, -ENAMETOOLONG, "the filter of rule %s is too long", tracepoint);
		return -1;
	}
	c = sd_channel_find(d, channel);
	if (!c && !enable)
		return 0;
	if (!c && !(c = sd_channel_create(s, d, TRAWL_CTL_DOMAIN_UST, NULL, channel, r)))
		return -1;
	if (enable) {
		ret = event_enable_in(d, c, &req, p, NULL, &line);
		if (ret && ret != -EEXIST) {
			sd_fail(r, ret, "%s", line.msg);
			return -1;
		}
	}
	for (e = c->events; e; e = e->next) {
		if (!same_rule(e, &req))
			continue;
		e->hidden = 1;
		if (enable || !e->enabled)
			return 0;
		rule_of(e, p, &rule);
		ret = d->ops->event_disable(d->ds, c->attr.name, &rule, &line);
		if (ret) {
			sd_fail(r, ret, "cannot disable event '%s': %s", e->name,
				line.msg[0] ? line.msg : strerror(-ret));
			return -1;
		}
		e->enabled = 0;
		return 0;
	}
	return 0;
}

void sd_cmd_enable_event(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			 struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	struct trawl_domain_err line = {""};
	struct sd_domain *d;
	struct sd_channel *c;
	int ret;

	/* Root lists every session's rules: no escape sequence of a user's
	 * reaches root's terminal (kernel names and filters pass grammars of
	 * their own, with their own lines). */
	if (s && req->domain != TRAWL_CTL_DOMAIN_KERNEL &&
	    (sd_text_refused(r, "cannot enable event", "event name", req->name) ||
	     sd_text_refused(r, "cannot enable event", "filter", req->filter)))
		return;
	if (s && sd_text_refused(r, "cannot enable event", "event name exclusion", req->exclusions))
		return;
	if (s && TRAWL_CTL_WIRE_IS_AGENT(req->domain))
		return sd_agent_enable_event(s, req, p, r);
	if (!s || !(d = sd_domain_get(s, req->domain, r)))
		return;
	if (!req->name[0])
		return (void)sd_fail(r, -EINVAL, "no event name given");
	if (req->event_kind >= TRAWL_CTL_EVENT_PROBE && !req->target[0])
		return (void)sd_fail(r, -EINVAL, "a probe needs a location");
	/* As LTTng's kernel tracer: a probe's records are not filtered (the
	 * filter would be dropped silently) */
	if (req->event_kind >= TRAWL_CTL_EVENT_PROBE && req->filter[0])
		return (void)sd_fail(r, -EINVAL, "cannot enable event '%s': filter expressions "
				     "are not supported for probe, function and user-space "
				     "probe events", req->name);
	if (req->domain == TRAWL_CTL_DOMAIN_UST && req->event_kind != TRAWL_CTL_EVENT_TRACEPOINT)
		return (void)sd_fail(r, -EINVAL, "user space has tracepoints only "
						 "(probes and syscalls are kernel events)");
	if (req->exclusions[0] && exclusions_check(req, r))
		return;
#ifdef TRAWL_HAVE_UST_DOMAIN
	/* A bad user-space filter changes nothing (not even channel0). */
	if (req->domain == TRAWL_CTL_DOMAIN_UST && req->filter[0]) {
		struct trawl_filter_error ferr;
		struct trawl_filter *f;

		ret = trawl_filter_parse(req->filter, &f, &ferr);
		if (ret)
			return (void)sd_fail(r, ret, "cannot enable event '%s': %s", req->name,
					     ret == -EINVAL ? ferr.msg : strerror(-ret));
		trawl_filter_destroy(f);
	}
#endif
	c = sd_channel_for(s, d, req, r);
	if (!c)
		return;
#ifdef TRAWL_HAVE_KERNEL_DOMAIN
	if (uprobe_off_loop(s, c, req, p, r))
		return;
#endif
	ret = event_enable_in(d, c, req, p, NULL, &line);
	if (ret)
		sd_fail(r, ret, "%s", line.msg);
}

void sd_cmd_disable_event(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			  struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	struct trawl_domain_event_rule rule;
	struct sd_domain *d;
	struct sd_channel *c;
	struct sd_event *e;
	int all = !strcmp(req->name, "*"), found = 0;

	if (s && TRAWL_CTL_WIRE_IS_AGENT(req->domain))
		return sd_agent_disable_event(s, req, p, r);
	if (!s || !(d = sd_domain_get(s, req->domain, r)))
		return;
	c = sd_channel_find(d, req->channel[0] ? req->channel : DEFAULT_CHANNEL);
	if (!c)
		return (void)sd_fail(r, -ENOENT, "no channel named '%s' in session '%s'",
				     req->channel[0] ? req->channel : DEFAULT_CHANNEL, s->name);
	for (e = c->events; e; e = e->next) {
		struct trawl_domain_err err = {""};
		int ret;

		if (!all && (strcmp(e->name, req->name) ||
			     e->kind != (enum trawl_ctl_event_kind)req->event_kind))
			continue;
		/* Already disabled is done, as LTTng 2.13 says (its
		 * event_ust_disable_tracepoint()): only a name never enabled
		 * is an error. */
		if (!e->enabled) {
			found += !all;
			continue;
		}
		rule_of(e, p, &rule);
		ret = d->ops->event_disable(d->ds, c->attr.name, &rule, &err);
		if (ret)
			return (void)sd_fail(r, ret, "cannot disable event '%s': %s", e->name,
					     err.msg[0] ? err.msg : strerror(-ret));
		e->enabled = 0;
		found++;
	}
	if (!found)
		sd_fail(r, -ENOENT, "no enabled event '%s' in channel '%s'", req->name, c->attr.name);
}

struct list_ctx {
	struct sd_reply *r;
	uint32_t domain;
	int fields;
};

static int list_cb(void *arg, const struct trawl_domain_event_desc *desc)
{
	struct list_ctx *lc = arg;
	struct trawl_ctl_wire_available body = {
		.domain = lc->domain,
		.kind = (uint32_t)desc->kind,
		.loglevel = desc->loglevel,
		.pid = (int32_t)desc->pid,
	};
	const char *strs[3] = {desc->name};
	size_t i;
	int ret = sd_reply_rec(lc->r, TRAWL_CTL_ITEM_AVAILABLE, &body, strs);

	for (i = 0; !ret && lc->fields && i < desc->nr_fields; i++) {
		struct trawl_ctl_wire_field fb = {.domain = lc->domain};

		strs[0] = desc->name;
		strs[1] = desc->fields[i].name;
		strs[2] = desc->fields[i].type;
		ret = sd_reply_rec(lc->r, TRAWL_CTL_ITEM_FIELD, &fb, strs);
	}
	return ret;
}

void sd_cmd_list_available(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			   struct sd_reply *r)
{
	const struct trawl_domain_ops *ops;
	struct trawl_domain_err err = {""};
	struct list_ctx lc = {r, req->domain, !!(req->flags & TRAWL_CTL_F_FIELDS)};
	int ret;

	/* an agent domain's loggers: of the agents registered */
	if (TRAWL_CTL_WIRE_IS_AGENT(req->domain))
		return sd_agent_list(req->domain, p, r);
	if (req->domain == 0 || req->domain >= SD_NR_DOMAINS)
		return (void)sd_fail(r, -EINVAL, "no domain given");
	ops = sd.domains[req->domain];
	if (!ops || sd.domain_ret[req->domain])
		return (void)sd_fail(r, req->domain == TRAWL_CTL_DOMAIN_KERNEL && !sd.root_daemon
						? -EACCES : sd.domain_ret[req->domain],
				     "%s", sd.domain_err[req->domain]);
	if (!ops->list_events)
		return;
	ret = ops->list_events((enum trawl_ctl_event_kind)req->event_kind, lc.fields, list_cb,
			       &lc, &err);
	if (ret && !r->status)
		sd_fail(r, ret, "cannot list %s events: %s", sd_domain_name(req->domain),
			err.msg[0] ? err.msg : strerror(-ret));
}
