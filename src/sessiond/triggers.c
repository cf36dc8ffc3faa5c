/* SPDX-License-Identifier: MIT */
/*
 * triggers.c - the daemon's triggers (LTTng 2.13's add-trigger,
 * list-triggers, remove-trigger): a condition and its actions, each action
 * with its rate policy, kept per owner.
 *
 * Ownership is LTTng's: a trigger belongs to the uid that registered it
 * (SO_PEERCRED, never what the client says). A user lists and removes only
 * their own; root sees and removes every user's, and may register one for
 * another user (--owner-uid). Names are unique per owner; an unnamed
 * trigger is named triggerN, N counting its owner's unnamed triggers, as
 * LTTng counts them (but per owner: LTTng's one count across all users
 * tells one user how many the others added).
 *
 * Firing (event-rule-matches on user-space events; ust-notify.c finds the
 * events): a hit is queued (sd_trigger_hit(), in its uid's queue: a flood
 * beyond a uid's share is counted and dropped, "firing" below) and taken at
 * the top of the loop, at most HITS_PER_ROUND per round, so that a program
 * firing without pause never holds the daemon from its other peers. Each
 * hit counts towards each action's rate policy (every:N runs the action at
 * the Nth, 2Nth, ... hit; once-after:N at the Nth only), and an action
 * that runs is the command a client would send (start, stop, rotate,
 * snapshot record), run with the trigger's owner as the peer: a trigger
 * can do only what its owner could, to the sessions its owner could name.
 *
 * Bounds: every field arrives in the fixed-size request (proto.h), so a
 * trigger takes at most a few KiB; a uid other than root may hold
 * sd_limits.triggers_per_uid of them (trawl-sessiond --limit
 * triggers-per-uid), so no user exhausts the daemon's memory with them.
 *
 * The buffer-usage and session-consumed-size conditions are sampled and
 * evaluated by trigger-monitor.c.
 */
#include "common/common.h"
#include "sessiond/sessiond.h"
#include "sessiond/trigger-internal.h"

#ifdef TRAWL_HAVE_UST_DOMAIN
#include "filter/filter.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* Every trigger, in the order registered (list-triggers' order). */
struct sd_trigger *sd_triggers;
static uint64_t next_id = 1;

/* The next N of triggerN, per owner (one entry per uid that ever added an
 * unnamed trigger: only trusted users reach this socket). */
static struct name_seq {
	struct name_seq *next;
	uid_t owner;
	unsigned long next_n;
} *name_seqs;

static struct sd_trigger *trigger_find(const char *name, uid_t owner)
{
	struct sd_trigger *t;

	for (t = sd_triggers; t; t = t->next)
		if (t->owner == owner && !strcmp(t->name, name))
			return t;
	return NULL;
}

static uint32_t owner_count(uid_t owner)
{
	const struct sd_trigger *t;
	uint32_t n = 0;

	for (t = sd_triggers; t; t = t->next)
		n += t->owner == owner;
	return n;
}

/* The owner a request means: the peer, or (root only) req.value. -1 with @r filled. */
static int64_t request_owner(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			     struct sd_reply *r)
{
	if (!(req->flags & TRAWL_CTL_F_OWNER) || req->value == p->uid)
		return p->uid;
	if (p->uid != 0) {
		sd_fail(r, -EACCES, "permission denied: only root may act on another user's "
				    "triggers");
		return -1;
	}
	if (req->value == UINT32_MAX) {
		sd_fail(r, -EINVAL, "invalid owner uid %u", (unsigned)req->value);
		return -1;
	}
	return req->value;
}

/* triggerN, the owner's next N not taken, into @t->name. 0 or -ENOMEM. */
static int name_generate(struct sd_trigger *t)
{
	struct name_seq *q;

	for (q = name_seqs; q && q->owner != t->owner; q = q->next)
		;
	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q)
			return -ENOMEM;
		q->owner = t->owner;
		q->next = name_seqs;
		name_seqs = q;
	}
	do
		snprintf(t->name, sizeof(t->name), "trigger%lu", q->next_n++);
	while (trigger_find(t->name, t->owner));
	return 0;
}

/* The condition's checks the protocol cannot make. 0, or -1 with @r filled. */
static int condition_check(const struct trawl_ctl_wire_req *req, struct sd_reply *r)
{
	int agent = TRAWL_CTL_WIRE_IS_AGENT(req->domain);
	uint32_t i;
	int probe = req->event_kind == TRAWL_CTL_EVENT_PROBE ||
		    req->event_kind == TRAWL_CTL_EVENT_USERSPACE_PROBE;

	/* an agent domain's rule: event-rule-matches only (it has no channels) */
	if (agent && req->trigger.condition != TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES) {
		sd_fail(r, -EINVAL, "failed to register trigger: the %s domain has no channels",
			sd_domain_name(req->domain));
		return -1;
	}
	if (req->domain == TRAWL_CTL_DOMAIN_KERNEL && !sd.root_daemon) {
		sd_fail(r, -EACCES, "failed to register trigger: tracing the kernel requires the "
				    "root session daemon, and root or group 'tracing' for the client");
		return -1;
	}
	/* Root lists every user's triggers: their texts, as given, must not
	 * reach root's terminal with escape sequences (a location passes the
	 * probe grammars, and so does a probe's event name that is its
	 * location, the default: refused with the grammar's line; a kernel
	 * filter passes ftrace's). */
	if (((!probe || strcmp(req->name, req->target)) &&
	     sd_text_refused(r, "failed to register trigger", "event name", req->name)) ||
	    sd_text_refused(r, "failed to register trigger", "capture", req->trigger.captures) ||
	    sd_text_refused(r, "failed to register trigger", "event name exclusion",
			    req->exclusions) ||
	    (req->domain != TRAWL_CTL_DOMAIN_KERNEL &&
	     sd_text_refused(r, "failed to register trigger", "filter", req->filter)))
		return -1;
	for (i = 0; i < req->trigger.nr_actions; i++) {
		const struct trawl_ctl_wire_action *a = &req->trigger.actions[i];

		if (sd_text_refused(r, "failed to register trigger", "snapshot output", a->output) ||
		    sd_text_refused(r, "failed to register trigger", "control URL", a->ctrl_url) ||
		    sd_text_refused(r, "failed to register trigger", "data URL", a->data_url))
			return -1;
	}
	if (req->trigger.condition != TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES)
		return 0;
	if (req->exclusions[0] && req->domain != TRAWL_CTL_DOMAIN_UST) {
		sd_fail(r, -EINVAL, "event name exclusions are not yet implemented for %s "
				    "event rules", agent ? sd_domain_name(req->domain) : "kernel");
		return -1;
	}
	if (req->loglevel_type != TRAWL_CTL_LOGLEVEL_ALL && req->domain == TRAWL_CTL_DOMAIN_KERNEL) {
		sd_fail(r, -EINVAL, "log levels are not supported for kernel event rules");
		return -1;
	}
#ifdef TRAWL_HAVE_UST_DOMAIN
	if (req->filter[0]) {
		struct trawl_filter_error ferr;
		struct trawl_filter *f;
		int ret = trawl_filter_parse(req->filter, &f, &ferr);

		if (ret) {
			sd_fail(r, ret, "failed to register trigger: filter '%s': %s", req->filter,
				ret == -EINVAL ? ferr.msg : strerror(-ret));
			return -1;
		}
		trawl_filter_destroy(f);
	}
#endif
	return 0;
}

static struct sd_trigger *trigger_of(const struct trawl_ctl_wire_req *req, uid_t owner)
{
	const struct trawl_ctl_wire_trigger_req *w = &req->trigger;
	struct sd_trigger *t;
	uint32_t i;

	t = calloc(1, sizeof(*t) + w->nr_actions * sizeof(t->actions[0]));
	if (!t)
		return NULL;
	t->owner = owner;
	memcpy(t->name, w->name, sizeof(t->name));
	t->condition = w->condition;
	t->domain = req->domain;
	t->event_kind = req->event_kind;
	t->loglevel_type = req->loglevel_type;
	t->loglevel = req->loglevel_type == TRAWL_CTL_LOGLEVEL_ALL ? 0 : req->loglevel;
	t->ratio_ppm = w->ratio_ppm;
	t->threshold = w->threshold;
	if (t->condition == TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES) {
		memcpy(t->pattern, req->name, sizeof(t->pattern));
		memcpy(t->target, req->target, sizeof(t->target));
		memcpy(t->filter, req->filter, sizeof(t->filter));
		memcpy(t->exclusions, req->exclusions, sizeof(t->exclusions));
		memcpy(t->captures, w->captures, sizeof(t->captures));
		if (TRAWL_CTL_WIRE_IS_AGENT(t->domain) &&
		    sd_agent_whole_filter(req, t->agent_filter, sizeof(t->agent_filter))) {
			free(t);
			return NULL;
		}
		t->ratio_ppm = UINT32_MAX;
		t->threshold = 0;
	} else {
		t->domain = t->condition == TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE ? 0 : t->domain;
		t->event_kind = 0;
		memcpy(t->session, req->session, sizeof(t->session));
		if (t->condition != TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE)
			memcpy(t->channel, req->channel, sizeof(t->channel));
		else
			t->ratio_ppm = UINT32_MAX;
	}
	t->nr_actions = w->nr_actions;
	for (i = 0; i < w->nr_actions; i++)
		t->actions[i].w = w->actions[i];
	return t;
}

/* @t's TRIGGER record, then its TRIGGER_ACTION records. */
static void trigger_recs(struct sd_reply *r, const struct sd_trigger *t)
{
	struct trawl_ctl_wire_trigger b = {
		.owner_uid = t->owner,
		.condition = t->condition,
		.domain = t->domain,
		.event_kind = t->event_kind,
		.loglevel_type = t->loglevel_type,
		.loglevel = t->loglevel,
		.nr_actions = t->nr_actions,
		.ratio_ppm = t->ratio_ppm,
		.threshold = t->threshold,
		.occurrences = t->occurrences,
		.discarded = t->discarded,
	};
	const char *strs[] = {t->name,     t->pattern, t->filter,  t->exclusions,
			      t->captures, t->session, t->channel, t->target};
	uint32_t i;

	sd_reply_rec(r, TRAWL_CTL_ITEM_TRIGGER, &b, strs);
	for (i = 0; i < t->nr_actions; i++) {
		const struct sd_trigger_action *a = &t->actions[i];
		struct trawl_ctl_wire_trigger_action ab = {
			.kind = a->w.kind,
			.rate_policy = a->w.rate_policy,
			.rate_value = a->w.rate_value,
			.max_size = a->w.max_size,
			.runs = a->runs,
			.failures = a->failures,
		};
		const char *as[] = {a->w.session, a->w.name, a->w.output, a->w.ctrl_url,
				    a->w.data_url};

		sd_reply_rec(r, TRAWL_CTL_ITEM_TRIGGER_ACTION, &ab, as);
	}
}

/* The group a trigger's actions run with: the registering peer's when it
 * registers its own, else (root for another user) the owner's primary one. */
static gid_t owner_gid(uid_t owner, const struct sd_peer *p)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (owner == p->uid)
		return p->gid;
	if (!getpwuid_r(owner, &pw, buf, sizeof(buf), &res) && res)
		return pw.pw_gid;
	return (gid_t)owner; /* no such user: a group of its own number */
}

/* The apps' event notifiers follow @t's coming or going (ust-notify.c). */
static void notifiers_sync(const struct sd_trigger *t)
{
#ifdef TRAWL_HAVE_UST_DOMAIN
	if (t->condition == TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES && t->domain != TRAWL_CTL_DOMAIN_KERNEL)
		sd_ust_notify_sync_all();
#else
	(void)t;
#endif
}

/* An agent domain's trigger: its agents enable (or disable) its logger. */
static void agents_sync(const struct sd_trigger *t, int enabled)
{
	if (t->condition == TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES &&
	    TRAWL_CTL_WIRE_IS_AGENT(t->domain))
		sd_agent_logger_changed(t->owner, t->domain, t->pattern, t->loglevel_type,
					t->loglevel, t->agent_filter, enabled);
}

void sd_agent_triggers(uint32_t domain, uid_t uid,
		       void (*fn)(const char *name, uint32_t loglevel_type, int loglevel,
				  const char *filter, void *arg),
		       void *arg)
{
	const struct sd_trigger *t;

	for (t = sd_triggers; t; t = t->next)
		if (t->condition == TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES && t->domain == domain &&
		    (t->owner == 0 || t->owner == uid))
			fn(t->pattern, t->loglevel_type, t->loglevel, t->agent_filter, arg);
}

void sd_triggers_ust_rules(int (*fn)(const struct sd_trigger_rule *r, void *arg), void *arg)
{
	const struct sd_trigger *t;

	for (t = sd_triggers; t; t = t->next) {
		struct sd_trigger_rule r = {
			.id = t->id,
			.owner = t->owner,
			.pattern = t->pattern[0] ? t->pattern : "*",
			.filter = t->filter,
			.exclusions = t->exclusions,
			.captures = t->captures,
			.loglevel_type = t->loglevel_type,
			.loglevel = t->loglevel,
		};

		if (t->condition != TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES ||
		    t->domain == TRAWL_CTL_DOMAIN_KERNEL)
			continue;
		if (TRAWL_CTL_WIRE_IS_AGENT(t->domain)) {
			/* the agents' tracepoint, with the logger and level as a
			 * filter, as the agent domains' rules (cmd-agent.c) */
			r.pattern = sd_agent_tracepoint(t->domain);
			r.filter = t->agent_filter;
			r.loglevel_type = TRAWL_CTL_LOGLEVEL_ALL;
			r.loglevel = 0;
		}
		if (fn(&r, arg))
			return;
	}
}

/* ---- firing ---- */

/*
 * The hits waiting, one queue per uid whose programs fired them (the app's
 * uid; a kernel trigger's owner). The root daemon serves every user, and
 * one user's program firing its own trigger in a loop must not take the
 * place of another user's hits (they were once 1,024 in one queue: a
 * flood dropped everyone's). So:
 *  - a uid holds at most trigger-hits-per-uid hits (trawl-sessiond
 *    --limit, 1,024 by default); past that its new hit is dropped;
 *  - all uids hold at most HITS_MAX; past that the uid holding the most
 *    loses its oldest hit to make room (a uid holding no more than the
 *    newcomer's loses nothing: then the newcomer's is dropped). A user
 *    firing at any rate, with as many programs (or uids of a user
 *    namespace) as they like, takes hits from nobody who holds fewer;
 *  - the top of the loop takes HITS_PER_ROUND, one of each uid in turn,
 *    the first uid of the round moving on each round.
 * Every dropped hit is counted: per uid in the daemon's log (once a
 * round), and, if its trigger notifies, in its owner's notifications
 * (notify.c sd_notify_lost(): their channels report the loss as LTTng's
 * report dropped notifications). Memory: HITS_MAX hits of at most
 * TRAWL_CTL_NOTIFY_CAPTURES_MAX bytes of captures, and one queue per uid
 * holding hits.
 */
#define HITS_MAX 4096u
#define HITS_PER_ROUND 256u

struct hit_node {
	struct hit_node *next;
	struct sd_hit h;
};

struct hit_queue {
	struct hit_queue *next;
	uid_t uid;
	uint32_t nr;
	struct hit_node *head, **tail;
	uint64_t dropped; /* since the last round's line */
	uint64_t ring_dropped; /* by the uid's programs, their rings full: the same */
};

static struct hit_queue *queues; /* drained in this order, rotated each round */
static uint32_t hits_nr;         /* in all queues */
static int wake_fd = -1;

static void hits_on_top(void);

static struct sd_trigger *trigger_by_id(uint64_t id)
{
	struct sd_trigger *t;

	for (t = sd_triggers; t && t->id != id; t = t->next)
		;
	return t;
}

/* @t, if a hit from a program of @app_uid may fire it (it is theirs or root's). */
static struct sd_trigger *hit_trigger(uint64_t id, uid_t app_uid)
{
	struct sd_trigger *t = trigger_by_id(id);

	/* gone since, or (a bug's defence) not this app's user's */
	return t && (t->owner == 0 || t->owner == app_uid) ? t : NULL;
}

/* @v + @n, at most UINT64_MAX (a count an app may have written). */
static uint64_t add_sat(uint64_t v, uint64_t n)
{
	return v > UINT64_MAX - n ? UINT64_MAX : v + n;
}

void sd_trigger_discarded(uint64_t id, uid_t app_uid, uint64_t n)
{
	struct sd_trigger *t = hit_trigger(id, app_uid);

	if (t)
		t->discarded = add_sat(t->discarded, n);
}

/* A hit of @q's uid that will not fire: counted (the trigger's discarded
 * messages too: it never reaches its evaluation), and told to its owner. */
static void hit_lost(struct hit_queue *q, uint64_t id)
{
	struct sd_trigger *t = hit_trigger(id, q->uid);
	uint32_t i;

	q->dropped++;
	if (!t)
		return;
	t->discarded = add_sat(t->discarded, 1);
	for (i = 0; i < t->nr_actions; i++)
		if (t->actions[i].w.kind == TRAWL_CTL_ACTION_NOTIFY)
			break;
	if (i < t->nr_actions)
		sd_notify_lost(t->owner, 1);
}

static struct hit_queue *queue_of(uid_t uid, int make)
{
	struct hit_queue *q, **pp;

	for (pp = &queues; (q = *pp); pp = &q->next)
		if (q->uid == uid)
			return q;
	if (!make || !(q = calloc(1, sizeof(*q))))
		return NULL;
	q->uid = uid;
	q->tail = &q->head;
	*pp = q; /* (last: its first hit waits its turn) */
	return q;
}

/* The oldest hit of @q, taken off it (@q not empty). */
static struct hit_node *queue_take(struct hit_queue *q)
{
	struct hit_node *n = q->head;

	q->head = n->next;
	if (!q->head)
		q->tail = &q->head;
	q->nr--;
	hits_nr--;
	return n;
}

/* Room for one more hit of @q, every queue full: from the uid holding the
 * most, if it holds more than @q. 0, or -1 (@q's hit is the one dropped). */
static int room_make(struct hit_queue *q)
{
	struct hit_queue *most = q, *o;
	struct hit_node *n;

	for (o = queues; o; o = o->next)
		if (o->nr > most->nr)
			most = o;
	if (most == q)
		return -1;
	n = queue_take(most);
	hit_lost(most, n->h.id);
	free(n->h.captures);
	free(n);
	return 0;
}

static int wake_init(void)
{
	wake_fd = sd_loop_wake_fd(hits_on_top);
	return wake_fd < 0 ? -1 : 0;
}

void sd_trigger_ring_dropped(uint64_t id, uid_t app_uid, uint64_t n)
{
	struct hit_queue *q = queue_of(app_uid, 1);
	struct sd_trigger *t = hit_trigger(id, app_uid);
	uint32_t k;

	if (!n)
		return;
	sd_trigger_discarded(id, app_uid, n);
	if (q) {
		q->ring_dropped += n;
		if (wake_fd < 0)
			wake_init(); /* (the round's line: hits_on_top()) */
	}
	for (k = 0; t && k < t->nr_actions; k++)
		if (t->actions[k].w.kind == TRAWL_CTL_ACTION_NOTIFY) {
			sd_notify_lost(t->owner, n);
			break;
		}
}

void sd_trigger_hit(uint64_t id, uid_t app_uid, uint64_t ts_ns, uint32_t nr_captures,
		    const char *captures)
{
	struct hit_queue *q = queue_of(app_uid, 1);
	struct hit_node *n;

	if (!q) {
		sd_log_peer(app_uid, TRAWL_LOG_WARN, "a trigger hit of uid %u dropped: out of memory",
			    (unsigned)app_uid);
		sd_trigger_discarded(id, app_uid, 1);
		return;
	}
	if ((wake_fd < 0 && wake_init()) || q->nr >= sd_limits.trigger_hits_per_uid ||
	    (hits_nr >= HITS_MAX && room_make(q)) || !(n = calloc(1, sizeof(*n)))) {
		hit_lost(q, id);
		return;
	}
	n->h.id = id;
	n->h.ts_ns = ts_ns;
	n->h.app_uid = app_uid;
	n->h.nr_captures = captures ? nr_captures : 0;
	n->h.captures = captures ? strdup(captures) : NULL; /* none if out of memory */
	if (!n->h.captures)
		n->h.nr_captures = 0;
	*q->tail = n;
	q->tail = &n->next;
	q->nr++;
	hits_nr++;
}

static const char *const action_names[] = {
	[TRAWL_CTL_ACTION_NOTIFY] = "notify",
	[TRAWL_CTL_ACTION_START_SESSION] = "start-session",
	[TRAWL_CTL_ACTION_STOP_SESSION] = "stop-session",
	[TRAWL_CTL_ACTION_ROTATE_SESSION] = "rotate-session",
	[TRAWL_CTL_ACTION_SNAPSHOT_SESSION] = "snapshot-session",
};

uint64_t sd_trigger_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Runs @a of @t (the hit of an event at @ts_ns) as the command its owner
 * would send. 0, or the command's error. */
static int action_run(struct sd_trigger *t, struct sd_trigger_action *a,
		      const struct sd_hit *h)
{
	uint64_t ts_ns = h->ts_ns;
	struct sd_peer peer = {.pid = 0, .uid = t->owner, .gid = t->owner_gid, .trusted = 1};
	struct trawl_ctl_wire_req *req;
	struct sd_reply r = {0};
	uint16_t cmd;
	int ret;

	switch (a->w.kind) {
	case TRAWL_CTL_ACTION_START_SESSION:
		cmd = TRAWL_CTL_CMD_START;
		break;
	case TRAWL_CTL_ACTION_STOP_SESSION:
		cmd = TRAWL_CTL_CMD_STOP;
		break;
	case TRAWL_CTL_ACTION_ROTATE_SESSION:
		cmd = TRAWL_CTL_CMD_ROTATE;
		break;
	case TRAWL_CTL_ACTION_SNAPSHOT_SESSION:
		cmd = TRAWL_CTL_CMD_SNAPSHOT_RECORD;
		break;
	default:
		sd_notify_push(t->owner, t->name, t->condition, ts_ns, h->nr_captures, h->captures);
		return 0;
	}
	req = calloc(1, sizeof(*req));
	if (!req)
		return -ENOMEM;
	req->struct_size = sizeof(*req);
	req->max_size = TRAWL_CTL_SIZE_UNSET;
	memcpy(req->session, a->w.session, sizeof(req->session));
	if (cmd == TRAWL_CTL_CMD_SNAPSHOT_RECORD) {
		memcpy(req->name, a->w.name, sizeof(req->name));
		memcpy(req->output, a->w.output, sizeof(req->output));
		req->max_size = a->w.max_size;
	}
	sd_cmd_dispatch(cmd, req, &peer, &r);
	ret = r.status;
	if (!ret && r.retry)
		ret = -EBUSY;
	sd_log_peer(t->owner, ret ? TRAWL_LOG_WARN : TRAWL_LOG_INFO,
		    "trigger '%s' of uid %u: %s '%s' %s %" PRIu64 " us after the event%s%s",
		    t->name, (unsigned)t->owner, action_names[a->w.kind], a->w.session,
		    ret ? "failed" : "ran", (sd_trigger_now_ns() - ts_ns) / 1000, ret ? ": " : "",
		    ret ? (r.head.err[0] ? r.head.err : strerror(-ret)) : "");
	free(r.recs);
	free(req);
	return ret;
}

void sd_trigger_fire(struct sd_trigger *t, const struct sd_hit *h)
{
	uint32_t i;

	t->occurrences++;
	for (i = 0; i < t->nr_actions; i++) {
		struct sd_trigger_action *a = &t->actions[i];
		uint64_t n = a->w.rate_value ? a->w.rate_value : 1;
		int run;

		a->hits++;
		if (a->w.rate_policy == TRAWL_CTL_RATE_ONCE_AFTER_N)
			run = a->hits == n;
		else
			run = a->hits % n == 0;
		if (!run)
			continue;
		a->runs++;
		if (action_run(t, a, h))
			a->failures++;
	}
}

/* The round's line of each uid that lost hits; the empty queues freed. */
static void queues_tidy(void)
{
	struct hit_queue **pp = &queues, *q;

	while ((q = *pp)) {
		if (q->dropped)
			sd_log_peer(q->uid, TRAWL_LOG_WARN, "%" PRIu64 " trigger hits of uid %u "
				    "dropped: its programs fired more than the %u that may wait "
				    "(trawl-sessiond --limit trigger-hits-per-uid), or the most of "
				    "all uids' %u", q->dropped, (unsigned)q->uid,
				    (unsigned)sd_limits.trigger_hits_per_uid, HITS_MAX);
		if (q->ring_dropped)
			sd_log_peer(q->uid, TRAWL_LOG_WARN, "%" PRIu64 " trigger hits of uid %u "
				    "dropped by its programs: their notification rings were full "
				    "(the daemon takes %u hits a round of each uid's programs) or "
				    "a payload too large", q->ring_dropped, (unsigned)q->uid,
				    SD_NOTIFY_HITS_PER_UID_ROUND);
		q->dropped = 0;
		q->ring_dropped = 0;
		if (q->nr) {
			pp = &q->next;
			continue;
		}
		*pp = q->next;
		free(q);
	}
}

/* The queued hits, at most HITS_PER_ROUND, one uid's after the other (the
 * rest: next round, which another uid begins). */
static void hits_on_top(void)
{
	struct hit_queue *q, **pp;
	uint32_t k = 0;

	while (k < HITS_PER_ROUND && hits_nr && !sd.quit) {
		for (q = queues; q && k < HITS_PER_ROUND && !sd.quit; q = q->next) {
			struct hit_node *n;
			struct sd_trigger *t;

			if (!q->nr)
				continue;
			n = queue_take(q);
			k++;
			/* (an action may remove triggers: looked up for each hit) */
			t = hit_trigger(n->h.id, n->h.app_uid);
			if (t)
				sd_trigger_fire(t, &n->h);
			free(n->h.captures);
			free(n);
		}
	}
	/* the next round begins with the next uid */
	if (queues && queues->next) {
		q = queues;
		queues = q->next;
		q->next = NULL;
		for (pp = &queues; *pp; pp = &(*pp)->next)
			;
		*pp = q;
	}
	queues_tidy();
	sd_notify_lost_tell();
	if (hits_nr)
		sd_loop_wake(wake_fd);
}

/* The checks a new trigger of @owner passes, now and again when it was
 * waited for (a uprobe's file). 0, or -1 with @r filled. */
static int add_check(const char *name, int64_t owner, struct sd_reply *r)
{
	if (name[0] && trigger_find(name, (uid_t)owner)) {
		sd_fail(r, -EEXIST, "failed to register trigger: trigger already registered");
		return -1;
	}
	if (owner != 0 && owner_count((uid_t)owner) >= sd_limits.triggers_per_uid) {
		sd_fail(r, -EDQUOT, "failed to register trigger: user %u holds %u triggers, the "
			"most one user may (trawl-sessiond --limit triggers-per-uid)",
			(unsigned)owner, (unsigned)sd_limits.triggers_per_uid);
		return -1;
	}
	return 0;
}

/*
 * Registers @t (taken: freed on failure), @p asking, into @r. @located: a
 * kernel uprobe's file as the client's child read it, else NULL.
 */
static void trigger_insert(struct sd_trigger *t, const struct sd_peer *p,
			   const struct sd_uprobe_located *located, struct sd_reply *r)
{
	struct sd_trigger **tail;

	if (!t->name[0] && name_generate(t)) {
		free(t);
		sd_fail(r, -ENOMEM, "failed to register trigger: out of memory");
		return;
	}
	t->id = next_id++;
	t->owner_gid = owner_gid(t->owner, p);
#ifdef TRAWL_HAVE_KERNEL_DOMAIN
	if (t->condition == TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES &&
	    t->domain == TRAWL_CTL_DOMAIN_KERNEL &&
	    sd_kernel_notify_add(t->id, t->owner, t->event_kind, t->pattern, t->target, t->filter,
				 t->captures, located, r)) {
		free(t);
		return;
	}
#else
	(void)located;
#endif
	for (tail = &sd_triggers; *tail; tail = &(*tail)->next)
		;
	*tail = t;
	sd_log_peer(p->uid, TRAWL_LOG_INFO, "uid %u registered trigger '%s' of uid %u",
		    (unsigned)p->uid, t->name, (unsigned)t->owner);
	trigger_recs(r, t);
	notifiers_sync(t);
	agents_sync(t, 1);
	if (sd_trigger_is_monitored(t))
		sd_trigger_monitor_arm();
}

#ifdef TRAWL_HAVE_KERNEL_DOMAIN
/*
 * A kernel uprobe trigger: its file is opened and its ELF read by a child
 * as the client (domain-kernel.c, as enable-event --userspace-probe's),
 * which the client's file system (FUSE, NFS) or the client itself (kill
 * -STOP) may hold: the loop does not wait for it; the client is answered
 * once it is over (within owner-ms), the trigger registered then.
 */
struct uprobe_add {
	struct sd_later later; /* the client */
	struct sd_owner_job job;
	struct sd_uprobe_located *loc; /* owned */
	struct sd_trigger *t;          /* owned until registered */
	struct sd_peer peer;
};

static void uprobe_add_free(struct uprobe_add *u)
{
	sd_uprobe_located_destroy(u->loc);
	free(u->t);
	free(u);
}

static void uprobe_add_done(struct sd_owner_job *j, void *arg)
{
	struct uprobe_add *u = arg;
	struct sd_reply r = {0};
	struct sd_trigger *t = u->t;

	sd_uprobe_located_set(u->loc, j->ret);
	u->t = NULL;
	if (j->ret == -ETIMEDOUT || j->ret == -EIO) {
		/* (the child's own failure, no such file or symbol, is the
		 * notifier's line; no answer is this one) */
		sd_fail(&r, j->ret, "failed to register trigger: reading %s as uid %u: %s",
			t->target, (unsigned)u->peer.uid, sd_owner_strerror(j->ret));
		free(t);
	} else if (add_check(t->name, t->owner, &r)) {
		free(t);
	} else {
		trigger_insert(t, &u->peer, u->loc, &r);
	}
	sd_later_answer(&u->later, &r);
	free(r.recs);
	uprobe_add_free(u);
}

/* 1 if @t (taken) is registered off the loop (above), the answer later or in @r. */
static int uprobe_add_begin(struct sd_trigger *t, const struct sd_peer *p, struct sd_reply *r)
{
	struct uprobe_add *u;
	int ret;

	if (t->condition != TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES ||
	    t->domain != TRAWL_CTL_DOMAIN_KERNEL || t->event_kind != TRAWL_CTL_EVENT_USERSPACE_PROBE)
		return 0;
	u = calloc(1, sizeof(*u));
	if (u)
		u->loc = sd_uprobe_located_create();
	if (!u || !u->loc) {
		free(u);
		free(t);
		sd_fail(r, -ENOMEM, "failed to register trigger: out of memory");
		return 1;
	}
	u->t = t;
	u->peer = *p;
	u->job.fd = -1;
	u->job.done = uprobe_add_done;
	u->job.arg = u;
	ret = sd_uprobe_locate_begin(&u->job, u->loc, t->target, p->uid, p->gid);
	if (ret == -EINPROGRESS) {
		r->later = &u->later;
		return 1;
	}
	if (ret == -ENAMETOOLONG) {
		sd_fail(r, ret, "failed to register trigger: location too long");
	} else if (ret == -EUSERS) {
		/* Each read is a child of the daemon that the client's file
		 * system may hold, and a client that hangs up does not end it:
		 * as-owner.c caps them per uid (they once were without bound). */
		sd_fail(r, ret, "failed to register trigger: reading %s as uid %u: %s", t->target,
			(unsigned)p->uid, sd_owner_strerror(ret));
	} else {
		/* ran in place (the daemon's own user) or could not start:
		 * the notifier says why */
		sd_uprobe_located_set(u->loc, ret);
		u->t = NULL;
		trigger_insert(t, p, u->loc, r);
	}
	uprobe_add_free(u);
	return 1;
}
#endif

void sd_cmd_add_trigger(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			struct sd_reply *r)
{
	struct sd_trigger *t;
	int64_t owner = request_owner(req, p, r);

	if (owner < 0 || condition_check(req, r) || add_check(req->trigger.name, owner, r))
		return;
	t = trigger_of(req, (uid_t)owner);
	if (!t) {
		sd_fail(r, -ENOMEM, "failed to register trigger: out of memory");
		return;
	}
#ifdef TRAWL_HAVE_KERNEL_DOMAIN
	if (uprobe_add_begin(t, p, r))
		return;
#endif
	trigger_insert(t, p, NULL, r);
}

void sd_cmd_list_triggers(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			  struct sd_reply *r)
{
	const struct sd_trigger *t;

	(void)req;
#ifdef TRAWL_HAVE_UST_DOMAIN
	sd_ust_notify_discarded_sync(); /* (the apps' counts up to now) */
#endif
	for (t = sd_triggers; t && !r->status; t = t->next)
		if (p->uid == 0 || t->owner == p->uid)
			trigger_recs(r, t);
}

void sd_cmd_remove_trigger(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			   struct sd_reply *r)
{
	struct sd_trigger **pp, *t;
	int64_t owner = request_owner(req, p, r);

	if (owner < 0)
		return;
	for (pp = &sd_triggers; (t = *pp); pp = &t->next)
		if (t->owner == (uid_t)owner && !strcmp(t->name, req->trigger.name))
			break;
	if (!t) {
		/* another user's trigger of that name is not told apart from none */
		sd_fail(r, -ENOENT, "couldn't find trigger with name '%s'", req->trigger.name);
		return;
	}
	*pp = t->next;
	sd_log_peer(p->uid, TRAWL_LOG_INFO, "uid %u removed trigger '%s' of uid %u",
		    (unsigned)p->uid, t->name, (unsigned)t->owner);
	notifiers_sync(t);
	agents_sync(t, 0);
#ifdef TRAWL_HAVE_KERNEL_DOMAIN
	if (t->domain == TRAWL_CTL_DOMAIN_KERNEL)
		sd_kernel_notify_remove(t->id);
#endif
	free(t);
}

void sd_triggers_fini(void)
{
	struct sd_trigger *t;
	struct name_seq *q;

	while ((q = name_seqs)) {
		name_seqs = q->next;
		free(q);
	}
#ifdef TRAWL_HAVE_KERNEL_DOMAIN
	sd_kernel_notify_fini();
#endif
	while ((t = sd_triggers)) {
		sd_triggers = t->next;
		free(t);
	}
	while (queues) {
		struct hit_queue *hq = queues;

		while (hq->nr) {
			struct hit_node *n = queue_take(hq);

			free(n->h.captures);
			free(n);
		}
		queues = hq->next;
		free(hq);
	}
	if (wake_fd >= 0) {
		sd_watch_del(wake_fd);
		close(wake_fd);
		wake_fd = -1;
	}
	sd_trigger_monitor_disarm();
}
