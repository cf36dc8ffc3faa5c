/* SPDX-License-Identifier: MIT */
/*
 * cmd-list.c - the lists of sessions: `list`, and `list SESSION` and
 * `status`, whose counters are asked of the consumers and answered later.
 * What a client sees: sd_session_visible() (cmd-session.c).
 */
#include "common/common.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sd_session_rec(struct sd_reply *r, const struct sd_session *s)
{
	struct trawl_ctl_wire_session body = {
		.active = (uint32_t)s->active,
		.snapshot = (uint32_t)s->snapshot,
		.live_timer_us = s->live_timer_us,
		.uid = (uint32_t)s->uid,
	};
	const char *strs[] = {s->name, s->output, s->shm_path};

	sd_reply_rec(r, TRAWL_CTL_ITEM_SESSION, &body, strs);
}

void sd_cmd_list_sessions(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			  struct sd_reply *r)
{
	struct sd_session *s;

	for (s = sd.sessions; s; s = s->next)
		if (sd_session_visible(s, p))
			sd_session_rec(r, s);
}

static void list_channel(struct sd_reply *r, uint32_t domain, const struct sd_domain *d,
			 const struct sd_channel *c)
{
	struct trawl_ctl_wire_channel body = {
		.domain = domain,
		.enabled = (uint32_t)c->enabled,
		.subbuf_size = c->attr.subbuf_size,
		.num_subbuf = c->attr.num_subbuf,
		.overwrite = c->attr.overwrite,
		.switch_timer_us = c->attr.switch_timer_us,
		.read_timer_us = c->attr.read_timer_us,
		.buffers = (uint32_t)c->attr.buffers,
		.tracefile_count = c->attr.tracefile_count,
		.tracefile_size = c->attr.tracefile_size,
		.blocking_timeout_us = c->attr.blocking_timeout_us,
		.output = (uint32_t)c->attr.output,
		.monitor_timer_us = c->attr.monitor_timer_us,
	};
	const char *strs[TRAWL_CTL_REC_MAX_STRINGS] = {c->attr.name};
	const struct sd_context *x;
	const struct sd_event *e;
	uint64_t discarded = 0, lost = 0, resident, size;

	/* LTTng's "Statistics:" under each channel (a packed body: copied): as
	 * LTTng's daemon, the count of the channel's mode only, the other 0 */
	if (d->ds && d->ops->channel_counters &&
	    !d->ops->channel_counters(d->ds, c->attr.name, &discarded, &lost)) {
		body.discarded_events = c->attr.overwrite ? 0 : discarded;
		body.lost_packets = c->attr.overwrite ? lost : 0;
	}
	if (d->ds && d->ops->channel_memory &&
	    !d->ops->channel_memory(d->ds, c->attr.name, &resident, &size)) {
		body.memory_resident = resident;
		body.memory_size = size;
	}
	sd_reply_rec(r, TRAWL_CTL_ITEM_CHANNEL, &body, strs);
	for (x = c->contexts; x; x = x->next) {
		struct trawl_ctl_wire_context cb = {.domain = domain};

		strs[0] = c->attr.name;
		strs[1] = x->name;
		sd_reply_rec(r, TRAWL_CTL_ITEM_CONTEXT, &cb, strs);
	}
	for (e = c->events; e; e = e->next) {
		struct trawl_ctl_wire_event eb = {
			.domain = domain,
			.enabled = (uint32_t)e->enabled,
			.kind = (uint32_t)e->kind,
			.loglevel_type = (uint32_t)e->loglevel_type,
			.loglevel = e->loglevel,
		};

		if (e->hidden) /* an agent domain's (cmd-agent.c) */
			continue;

		strs[0] = c->attr.name;
		strs[1] = e->name;
		strs[2] = e->filter;
		strs[3] = e->target;
		strs[4] = e->exclusions;
		sd_reply_rec(r, TRAWL_CTL_ITEM_EVENT, &eb, strs);
	}
}

/* The records of `list SESSION` (and `status`): the counters as the domains have them. */
static void list_session(struct sd_reply *r, struct sd_session *s)
{
	int i;

	sd_session_rec(r, s);
	sd_rotation_recs(r, s);
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];
		struct trawl_domain_status st = {.consumer_alive = 1};
		struct trawl_ctl_wire_domain body = {.domain = (uint32_t)i};
		const char *strs[1] = {st.msg};
		const struct sd_channel *c;

		if (!d->ops)
			continue;
		/* (a domain's status never waits behind a stop's drain: domain.h) */
		if (d->ds && d->ops->status)
			d->ops->status(d->ds, &st);
		if (s->op) {
			char msg[sizeof(st.msg)], what[160];

			trawl_msg_fmt(msg, sizeof(msg), "%s", st.msg);
			sd_op_what(s, "the session", what, sizeof(what));
			trawl_msg_fmt(st.msg, sizeof(st.msg), "%s%s%.*s", what, msg[0] ? "; " : "",
				      (int)sizeof(msg) - 180, msg);
		}
		/* relayd lost: what the consumers could not say (nothing to send, kernel) */
		if (!st.msg[0])
			sd_relay_problem(s, st.msg, sizeof(st.msg));
		body.consumer_alive = !!st.consumer_alive;
		body.events_discarded = st.events_discarded;
		body.events_tallied = st.events_tallied;
		body.bytes_written = st.bytes_written;
		sd_reply_rec(r, TRAWL_CTL_ITEM_DOMAIN, &body, strs);
		sd_trackers_rec(r, (uint32_t)i, d);
		for (c = d->channels; c; c = c->next)
			list_channel(r, (uint32_t)i, d, c);
	}
	sd_agent_recs(r, s);
}

/*
 * `list SESSION` and `status` show counters only the consumers know (and
 * what streaming lost): they are asked, and the client answered once they
 * have answered, without the loop waiting for them (a consumer streaming
 * to a slow relayd answers between rounds of draining, seconds apart).
 * Nothing is asked while an op holds the session: its counters as of the
 * consumers' last answer then.
 */
struct sd_query {
	struct sd_query *next;
	struct sd_later later;
	uint64_t id; /* the session's */
	char name[TRAWL_CTL_NAME_MAX];
};

static struct sd_query *queries;

/* 1 while a domain of @s still waits for its consumer's counters. */
static int status_pending(struct sd_session *s)
{
	int i;

	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];

		if (d->ops && d->ds && d->ops->status_pending && d->ops->status_pending(d->ds))
			return 1;
	}
	return 0;
}

void sd_queries_on_top(void)
{
	struct sd_query **pp = &queries;

	while (*pp) {
		struct sd_query *q = *pp;
		struct sd_reply r = {0};
		struct sd_session *s;

		for (s = sd.sessions; s && s->id != q->id; s = s->next)
			;
		if (s && !s->op && status_pending(s)) {
			pp = &q->next;
			continue;
		}
		*pp = q->next;
		if (s)
			list_session(&r, s);
		else
			sd_fail(&r, -ENOENT, "no session named '%s'", q->name);
		sd_later_answer(&q->later, &r);
		free(r.recs);
		free(q);
	}
}

void sd_cmd_list_session(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			 struct sd_reply *r)
{
	struct sd_session *s;
	struct sd_query *q;
	int i, asked = 0;

	if (!req->session[0])
		return (void)sd_fail(r, -EINVAL, "no session given and no current session");
	s = sd_session_find(req->session, p);
	if (!s)
		return (void)sd_fail(r, -ENOENT, "no session named '%s'", req->session);
	for (i = 1; i < SD_NR_DOMAINS && !s->op; i++) {
		struct sd_domain *d = &s->dom[i];

		if (d->ops && d->ds && d->ops->status_ask && d->ops->status_ask(d->ds) == -EINPROGRESS)
			asked = 1;
	}
	if (!asked || !(q = calloc(1, sizeof(*q))))
		return list_session(r, s);
	sd_op_on_top_register();
	q->id = s->id;
	snprintf(q->name, sizeof(q->name), "%s", s->name);
	q->next = queries;
	queries = q;
	r->later = &q->later;
}
