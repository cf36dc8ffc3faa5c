/* SPDX-License-Identifier: MIT */
/*
 * cmd-agent.c - LTTng's agent domains: java.util.logging (JUL), log4j and
 * Python logging.
 *
 * An agent is a library in the application that hooks its logging
 * framework and emits each log record of an enabled logger as one
 * user-space event (lttng_jul:event, lttng_log4j:event,
 * lttng_python:event, with the fields logger_name, int_loglevel, msg, ...).
 * A session's rule in an agent domain is a logger name ("*": every logger)
 * and log levels of the framework; as LTTng 2.13 does, each rule also
 * enables, in the session's user-space channel lttng_jul_channel
 * (lttng_log4j_channel, lttng_python_channel; made with the defaults at the
 * first rule), the domain's tracepoint with the rule's whole filter:
 *
 *   name "*":  the user's filter, if any
 *   else:      logger_name == "NAME", or (FILTER) && (logger_name == "NAME")
 *   --loglevel L / --loglevel-only L: that, then (THAT) && (int_loglevel >= L)
 *              (== L), or int_loglevel >= L alone
 *
 * The rule shows with that filter (list SESSION); its user-space rule is
 * not listed, as LTTng lists none in those channels. A rule is the same
 * rule again when its logger, levels and whole filter are.
 *
 * LTTng 2.13 counts how often a rule was enabled (sd_event.enabled here is
 * that count): enabling "*" (-a) counts one more for every rule of the
 * domain, and a disable counts one less, the rule staying enabled until its
 * count is 0 (so `enable-event -j -a` then `disable-event -j NAME` leaves
 * NAME enabled, as LTTng lists it). The user-space rule follows: disabled
 * when the count reaches 0.
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

struct agent_names {
	const char *channel;    /* its user-space channel */
	const char *tracepoint; /* its agents' tracepoint */
	int level_all;          /* the level of a rule without --loglevel */
};

static const struct agent_names agent_names[SD_NR_AGENTS] = {
	{"lttng_jul_channel", "lttng_jul:event", TRAWL_CTL_JUL_ALL},
	{"lttng_log4j_channel", "lttng_log4j:event", TRAWL_CTL_LOG4J_ALL},
	{"lttng_python_channel", "lttng_python:event", TRAWL_CTL_PYTHON_DEBUG},
};

const char *sd_agent_tracepoint(uint32_t domain)
{
	return agent_names[domain - TRAWL_CTL_DOMAIN_JUL].tracepoint;
}

const char *sd_agent_channel(uint32_t domain)
{
	return agent_names[domain - TRAWL_CTL_DOMAIN_JUL].channel;
}

void sd_agent_app_ctx_add(struct sd_session *s, uint32_t domain, const char *name)
{
	struct sd_agent_domain *ad = &s->agent[domain - TRAWL_CTL_DOMAIN_JUL];
	uint32_t i;

	/* (a channel records each at most once and at most SD_MAX_APP_CTX,
	 * each shorter than SD_APP_CTX_NAME_MAX: added to one, it fits here) */
	for (i = 0; i < ad->nr_app_ctx; i++)
		if (!strcmp(ad->app_ctx[i], name))
			return;
	if (ad->nr_app_ctx == SD_MAX_APP_CTX ||
	    trawl_path_fmt(ad->app_ctx[ad->nr_app_ctx], sizeof(ad->app_ctx[0]), "%s", name))
		return;
	ad->nr_app_ctx++;
	sd_agent_app_ctx_enabled(s, domain, name);
}

/* The rule's whole filter (above) in @buf: 0, or -ENAMETOOLONG. */
int sd_agent_whole_filter(const struct trawl_ctl_wire_req *req, char *buf, size_t len)
{
	char base[TRAWL_CTL_FILTER_MAX];
	const char *op = req->loglevel_type == TRAWL_CTL_LOGLEVEL_RANGE ? ">=" : "==";
	int n = 0;

	base[0] = '\0';
	if (strcmp(req->name, "*") && req->filter[0])
		n = snprintf(base, sizeof(base), "(%s) && (logger_name == \"%s\")", req->filter,
			     req->name);
	else if (strcmp(req->name, "*"))
		n = snprintf(base, sizeof(base), "logger_name == \"%s\"", req->name);
	else
		n = snprintf(base, sizeof(base), "%s", req->filter);
	if (n < 0 || (size_t)n >= sizeof(base))
		return -ENAMETOOLONG;
	if (req->loglevel_type == TRAWL_CTL_LOGLEVEL_ALL)
		n = snprintf(buf, len, "%s", base);
	else if (base[0])
		n = snprintf(buf, len, "(%s) && (int_loglevel %s %d)", base, op, req->loglevel);
	else
		n = snprintf(buf, len, "int_loglevel %s %d", op, req->loglevel);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int same_agent_rule(const struct sd_event *e, const struct trawl_ctl_wire_req *req,
			   const char *filter, int level)
{
	return !strcmp(e->name, req->name) && !strcmp(e->filter, filter) &&
	       e->loglevel_type == (enum trawl_ctl_loglevel_type)req->loglevel_type &&
	       e->loglevel == level;
}

/* After enabling rule @name: "*" counts every rule of the domain once more
 * (LTTng's agent_enable_all()), enabling the disabled ones again. */
static void all_counted(struct sd_session *s, uint32_t i, const char *name,
			const struct sd_peer *p, struct sd_reply *r)
{
	struct sd_event *e;

	if (strcmp(name, "*"))
		return;
	for (e = s->agent[i].events; e; e = e->next) {
		if (!e->enabled && sd_agent_ust_rule(s, agent_names[i].channel,
						     agent_names[i].tracepoint, e->filter, 1, p, r))
			return;
		if (!e->enabled++)
			sd_agent_rule_changed(s, TRAWL_CTL_DOMAIN_JUL + i, e, 1);
	}
}

static void enable_event(struct sd_session *s, const struct trawl_ctl_wire_req *req,
			 const struct sd_peer *p, struct sd_reply *r)
{
	uint32_t i = req->domain - TRAWL_CTL_DOMAIN_JUL;
	const struct agent_names *an = &agent_names[i];
	struct sd_agent_domain *a = &s->agent[i];
	const char *dom = sd_domain_name(req->domain);
	char filter[TRAWL_CTL_FILTER_MAX];
	struct sd_event *e, **tail;
	int level = req->loglevel_type == TRAWL_CTL_LOGLEVEL_ALL ? an->level_all : req->loglevel;

	if (!req->name[0])
		return (void)sd_fail(r, -EINVAL, "no event name given");
	if (req->event_kind != TRAWL_CTL_EVENT_TRACEPOINT)
		return (void)sd_fail(r, -EINVAL, "event type not supported for the %s domain", dom);
	if (req->exclusions[0])
		return (void)sd_fail(r, -EINVAL, "event name exclusions are not yet implemented "
						 "for %s events", dom);
	if (sd_agent_whole_filter(req, filter, sizeof(filter)))
		return (void)sd_fail(r, -ENAMETOOLONG, "cannot enable event '%s': its filter "
						       "with the logger and level is too long",
				     req->name);
#ifdef TRAWL_HAVE_UST_DOMAIN
	if (filter[0]) {
		struct trawl_filter_error ferr;
		struct trawl_filter *f;
		int ret = trawl_filter_parse(filter, &f, &ferr);

		if (ret)
			return (void)sd_fail(r, ret, "cannot enable event '%s': %s", req->name,
					     ret == -EINVAL ? ferr.msg : strerror(-ret));
		trawl_filter_destroy(f);
	}
#endif
	for (tail = &a->events; *tail; tail = &(*tail)->next) {
		e = *tail;
		if (!same_agent_rule(e, req, filter, level))
			continue;
		if (e->enabled)
			return (void)sd_fail(r, -EEXIST, "event '%s' is already enabled in the %s "
							 "domain", req->name, dom);
		if (sd_agent_ust_rule(s, an->channel, an->tracepoint, filter, 1, p, r))
			return;
		e->enabled = 1;
		sd_agent_rule_changed(s, req->domain, e, 1);
		all_counted(s, i, req->name, p, r);
		return;
	}
	e = calloc(1, sizeof(*e));
	if (!e)
		return (void)sd_fail(r, -ENOMEM, "out of memory");
	e->kind = TRAWL_CTL_EVENT_TRACEPOINT;
	/* (the same sizes; the request's name checked NUL-terminated) */
	memcpy(e->name, req->name, sizeof(e->name));
	memcpy(e->filter, filter, sizeof(e->filter));
	e->loglevel_type = (enum trawl_ctl_loglevel_type)req->loglevel_type;
	e->loglevel = level;
	if (sd_agent_ust_rule(s, an->channel, an->tracepoint, filter, 1, p, r)) {
		free(e);
		return;
	}
	e->enabled = 1;
	*tail = e;
	a->used = 1;
	sd_agent_rule_changed(s, req->domain, e, 1);
	all_counted(s, i, req->name, p, r);
}

/* 1 if another enabled rule of agent domain @i has @e's whole filter. */
static int filter_shared(const struct sd_session *s, uint32_t i, const struct sd_event *e)
{
	const struct sd_event *o;

	for (o = s->agent[i].events; o; o = o->next)
		if (o != e && o->enabled && !strcmp(o->filter, e->filter))
			return 1;
	return 0;
}

/* Every enabled rule named @name counted once less: 0, or -1 with @r filled. */
static int disable_name(struct sd_session *s, uint32_t i, const char *name,
			const struct sd_peer *p, struct sd_reply *r)
{
	const struct agent_names *an = &agent_names[i];
	struct sd_event *e;

	for (e = s->agent[i].events; e; e = e->next) {
		if (strcmp(e->name, name) || !e->enabled)
			continue;
		/* (the same whole filter may serve two rules: kept while one is on) */
		if (e->enabled == 1 && !filter_shared(s, i, e) &&
		    sd_agent_ust_rule(s, an->channel, an->tracepoint, e->filter, 0, p, r))
			return -1;
		if (!--e->enabled)
			sd_agent_rule_changed(s, TRAWL_CTL_DOMAIN_JUL + i, e, 0);
	}
	return 0;
}

static void disable_event(struct sd_session *s, const struct trawl_ctl_wire_req *req,
			  const struct sd_peer *p, struct sd_reply *r)
{
	uint32_t i = req->domain - TRAWL_CTL_DOMAIN_JUL;
	struct sd_event *e;

	/* --all: "*" then every enabled rule, by name (LTTng's
	 * event_agent_disable_all()) */
	if (!strcmp(req->name, "*")) {
		if (disable_name(s, i, "*", p, r))
			return;
		for (e = s->agent[i].events; e; e = e->next)
			if (e->enabled && disable_name(s, i, e->name, p, r))
				return;
		return;
	}
	for (e = s->agent[i].events; e && strcmp(e->name, req->name); e = e->next)
		;
	if (!e)
		return (void)sd_fail(r, -ENOENT, "no event '%s' in the %s domain of session '%s'",
				     req->name, sd_domain_name(req->domain), s->name);
	disable_name(s, i, req->name, p, r);
}

/* The commands answer once the agents have the change (sd_agent_settle()). */
void sd_agent_enable_event(struct sd_session *s, const struct trawl_ctl_wire_req *req,
			   const struct sd_peer *p, struct sd_reply *r)
{
	sd_agent_changes_begin();
	enable_event(s, req, p, r);
	sd_agent_settle();
}

void sd_agent_disable_event(struct sd_session *s, const struct trawl_ctl_wire_req *req,
			    const struct sd_peer *p, struct sd_reply *r)
{
	sd_agent_changes_begin();
	disable_event(s, req, p, r);
	sd_agent_settle();
}

void sd_agent_recs(struct sd_reply *r, const struct sd_session *s)
{
	uint32_t i;

	for (i = 0; i < SD_NR_AGENTS; i++) {
		struct trawl_ctl_wire_domain body = {.domain = TRAWL_CTL_DOMAIN_JUL + i,
						     .consumer_alive = 1};
		const char *strs[TRAWL_CTL_REC_MAX_STRINGS] = {""};
		const struct sd_event *e;

		if (!s->agent[i].used)
			continue;
		sd_reply_rec(r, TRAWL_CTL_ITEM_DOMAIN, &body, strs);
		for (e = s->agent[i].events; e; e = e->next) {
			struct trawl_ctl_wire_event eb = {
				.domain = TRAWL_CTL_DOMAIN_JUL + i,
				.enabled = e->enabled > 0,
				.kind = (uint32_t)e->kind,
				.loglevel_type = (uint32_t)e->loglevel_type,
				.loglevel = e->loglevel,
			};

			strs[0] = agent_names[i].channel;
			strs[1] = e->name;
			strs[2] = e->filter;
			strs[3] = "";
			strs[4] = "";
			sd_reply_rec(r, TRAWL_CTL_ITEM_EVENT, &eb, strs);
		}
	}
}

void sd_agent_free(struct sd_session *s)
{
	uint32_t i;

	for (i = 0; i < SD_NR_AGENTS; i++) {
		while (s->agent[i].events) {
			struct sd_event *e = s->agent[i].events;

			/* the agents forget the session's rules (LTTng's agent_destroy()) */
			if (e->enabled > 0)
				sd_agent_rule_changed(s, TRAWL_CTL_DOMAIN_JUL + i, e, 0);
			s->agent[i].events = e->next;
			free(e);
		}
		s->agent[i].used = 0;
	}
}
