/* SPDX-License-Identifier: MIT */
/*
 * trigger.c - triggers (LTTng's add-trigger, list-triggers, remove-trigger):
 * a description built call by call into the request that registers it.
 */
#include "common/common.h"
#include "ctl/ctl-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct trawl_ctl_trigger {
	struct trawl_ctl_wire_req req; /* ADD_TRIGGER's, filled as described */
	uint32_t owner_uid;
	int has_owner;
};

TRAWL_EXPORT struct trawl_ctl_trigger *trawl_ctl_trigger_create(void)
{
	struct trawl_ctl_trigger *t = calloc(1, sizeof(*t));

	if (t) {
		ctl_req_init(&t->req);
		t->req.trigger.ratio_ppm = UINT32_MAX;
	}
	return t;
}

TRAWL_EXPORT void trawl_ctl_trigger_destroy(struct trawl_ctl_trigger *t)
{
	free(t);
}

TRAWL_EXPORT int trawl_ctl_trigger_set_name(struct trawl_ctl_trigger *t, const char *name)
{
	if (!t || !name)
		return -EINVAL;
	if (strlen(name) >= sizeof(t->req.trigger.name))
		return -ENAMETOOLONG;
	if (!trawl_ctl_trigger_name_valid(name))
		return -EINVAL;
	return ctl_copy_str(t->req.trigger.name, sizeof(t->req.trigger.name), name);
}

TRAWL_EXPORT int trawl_ctl_trigger_set_owner_uid(struct trawl_ctl_trigger *t, uint32_t uid)
{
	if (!t)
		return -EINVAL;
	t->owner_uid = uid;
	t->has_owner = 1;
	return 0;
}

/* The condition's fields cleared, @kind set. */
static void condition_reset(struct trawl_ctl_trigger *t, enum trawl_ctl_condition_kind kind)
{
	struct trawl_ctl_wire_req *r = &t->req;

	r->trigger.condition = kind;
	r->domain = TRAWL_CTL_DOMAIN_NONE;
	r->event_kind = TRAWL_CTL_EVENT_TRACEPOINT;
	r->loglevel_type = TRAWL_CTL_LOGLEVEL_ALL;
	r->loglevel = 0;
	r->name[0] = r->filter[0] = r->exclusions[0] = r->session[0] = r->channel[0] = '\0';
	r->target[0] = '\0';
	r->trigger.captures[0] = '\0';
	r->trigger.threshold = 0;
	r->trigger.ratio_ppm = UINT32_MAX;
}

TRAWL_EXPORT int trawl_ctl_trigger_set_event_rule(struct trawl_ctl_trigger *t,
						  enum trawl_ctl_domain domain,
						  enum trawl_ctl_event_kind kind,
						  const char *pattern, const char *filter,
						  enum trawl_ctl_loglevel_type loglevel_type,
						  int loglevel, const char *exclusions)
{
	struct trawl_ctl_wire_req *r;

	if (!t || domain == TRAWL_CTL_DOMAIN_NONE || (unsigned)domain > TRAWL_CTL_WIRE_DOMAIN_LAST ||
	    (kind != TRAWL_CTL_EVENT_TRACEPOINT &&
	     !(kind == TRAWL_CTL_EVENT_SYSCALL && domain == TRAWL_CTL_DOMAIN_KERNEL)) ||
	    (unsigned)loglevel_type > TRAWL_CTL_WIRE_LOGLEVEL_TYPE_LAST ||
	    (loglevel_type != TRAWL_CTL_LOGLEVEL_ALL && !TRAWL_CTL_WIRE_IS_AGENT(domain) &&
	     (loglevel < 0 || loglevel > TRAWL_CTL_WIRE_LOGLEVEL_MAX)))
		return -EINVAL;
	r = &t->req;
	condition_reset(t, TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES);
	if (ctl_copy_str(r->name, sizeof(r->name), pattern && pattern[0] ? pattern : "*") ||
	    ctl_copy_str(r->filter, sizeof(r->filter), filter) ||
	    ctl_copy_str(r->exclusions, sizeof(r->exclusions), exclusions)) {
		condition_reset(t, TRAWL_CTL_CONDITION_NONE);
		return -ENAMETOOLONG;
	}
	r->domain = domain;
	r->event_kind = kind;
	r->loglevel_type = loglevel_type;
	r->loglevel = loglevel_type == TRAWL_CTL_LOGLEVEL_ALL ? 0 : loglevel;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_trigger_set_probe_rule(struct trawl_ctl_trigger *t,
						  enum trawl_ctl_event_kind kind,
						  const char *location, const char *event_name)
{
	struct trawl_ctl_wire_req *r;
	const char *name = event_name && event_name[0] ? event_name : location;

	if (!t || !location || !location[0] ||
	    (kind != TRAWL_CTL_EVENT_PROBE && kind != TRAWL_CTL_EVENT_USERSPACE_PROBE))
		return -EINVAL;
	r = &t->req;
	condition_reset(t, TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES);
	if (ctl_copy_str(r->name, sizeof(r->name), name) ||
	    ctl_copy_str(r->target, sizeof(r->target), location)) {
		condition_reset(t, TRAWL_CTL_CONDITION_NONE);
		return -ENAMETOOLONG;
	}
	r->domain = TRAWL_CTL_DOMAIN_KERNEL;
	r->event_kind = kind;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_trigger_add_capture(struct trawl_ctl_trigger *t, const char *descriptor)
{
	char *caps;
	size_t have, n;

	if (!t || !descriptor || !descriptor[0] || strchr(descriptor, ',') ||
	    t->req.trigger.condition != TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES)
		return -EINVAL;
	caps = t->req.trigger.captures;
	have = strlen(caps);
	n = strlen(descriptor);
	if (have + !!have + n >= sizeof(t->req.trigger.captures))
		return -ENAMETOOLONG;
	if (have)
		caps[have++] = ',';
	memcpy(caps + have, descriptor, n + 1);
	return 0;
}

TRAWL_EXPORT int trawl_ctl_trigger_set_session_consumed_size(struct trawl_ctl_trigger *t,
							     const char *session, uint64_t bytes)
{
	if (!t || !session || !bytes)
		return -EINVAL;
	condition_reset(t, TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE);
	if (ctl_copy_str(t->req.session, sizeof(t->req.session), session))
		return -ENAMETOOLONG;
	t->req.trigger.threshold = bytes;
	return trawl_ctl_name_valid(session) ? 0 : -EINVAL;
}

TRAWL_EXPORT int trawl_ctl_trigger_set_buffer_usage(struct trawl_ctl_trigger *t,
						    enum trawl_ctl_condition_kind kind,
						    const char *session, const char *channel,
						    enum trawl_ctl_domain domain, uint32_t ratio_ppm,
						    uint64_t bytes)
{
	struct trawl_ctl_wire_req *r;

	if (!t || !session || !channel ||
	    (kind != TRAWL_CTL_CONDITION_BUFFER_USAGE_HIGH &&
	     kind != TRAWL_CTL_CONDITION_BUFFER_USAGE_LOW) ||
	    (domain != TRAWL_CTL_DOMAIN_UST && domain != TRAWL_CTL_DOMAIN_KERNEL) ||
	    (ratio_ppm != UINT32_MAX && ratio_ppm > TRAWL_CTL_WIRE_RATIO_ONE))
		return -EINVAL;
	r = &t->req;
	condition_reset(t, kind);
	if (ctl_copy_str(r->session, sizeof(r->session), session) ||
	    ctl_copy_str(r->channel, sizeof(r->channel), channel))
		return -ENAMETOOLONG;
	r->domain = domain;
	r->trigger.ratio_ppm = ratio_ppm;
	r->trigger.threshold = ratio_ppm == UINT32_MAX ? bytes : 0;
	return trawl_ctl_name_valid(session) && trawl_ctl_name_valid(channel) ? 0 : -EINVAL;
}

TRAWL_EXPORT int trawl_ctl_trigger_add_action(struct trawl_ctl_trigger *t,
					      enum trawl_ctl_action_kind kind, const char *session)
{
	struct trawl_ctl_wire_action *a;
	int notify = kind == TRAWL_CTL_ACTION_NOTIFY;

	if (!t || (unsigned)kind > TRAWL_CTL_WIRE_ACTION_LAST || notify != !session)
		return -EINVAL;
	if (t->req.trigger.nr_actions >= TRAWL_CTL_TRIGGER_MAX_ACTIONS)
		return -E2BIG;
	if (session && strlen(session) >= TRAWL_CTL_NAME_MAX)
		return -ENAMETOOLONG;
	if (session && !trawl_ctl_name_valid(session))
		return -EINVAL;
	a = &t->req.trigger.actions[t->req.trigger.nr_actions];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->rate_policy = TRAWL_CTL_RATE_EVERY_N;
	a->rate_value = 1;
	a->max_size = TRAWL_CTL_SIZE_UNSET;
	ctl_copy_str(a->session, sizeof(a->session), session);
	return (int)t->req.trigger.nr_actions++;
}

static struct trawl_ctl_wire_action *action_at(struct trawl_ctl_trigger *t, int i)
{
	if (!t || i < 0 || (uint32_t)i >= t->req.trigger.nr_actions)
		return NULL;
	return &t->req.trigger.actions[i];
}

TRAWL_EXPORT int trawl_ctl_trigger_action_set_rate_policy(struct trawl_ctl_trigger *t, int i,
							  enum trawl_ctl_rate_policy policy,
							  uint64_t n)
{
	struct trawl_ctl_wire_action *a = action_at(t, i);

	if (!a || (unsigned)policy > TRAWL_CTL_WIRE_RATE_LAST || !n)
		return -EINVAL;
	a->rate_policy = policy;
	a->rate_value = n;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_trigger_action_set_snapshot_output(
	struct trawl_ctl_trigger *t, int i, const struct trawl_ctl_snapshot_output *o)
{
	struct trawl_ctl_wire_action *a = action_at(t, i);
	struct trawl_ctl_wire_req r;
	int ret;

	if (!a || !o || a->kind != TRAWL_CTL_ACTION_SNAPSHOT_SESSION)
		return -EINVAL;
	/* the output's fields as a snapshot request carries them (snapshot.c) */
	ret = ctl_snapshot_output_req(&r, o);
	if (ret)
		return ret;
	if (!r.output[0] || r.target[0])
		return -EINVAL; /* a destination; no separate data URL */
	memcpy(a->name, r.name, sizeof(a->name));
	memcpy(a->output, r.output, sizeof(a->output));
	a->max_size = r.max_size;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_trigger_action_set_snapshot_given_urls(struct trawl_ctl_trigger *t, int i,
								 const char *ctrl_url,
								 const char *data_url)
{
	struct trawl_ctl_wire_action *a = action_at(t, i);

	if (!a || !ctrl_url || !data_url || !ctrl_url[0] || !data_url[0] ||
	    a->kind != TRAWL_CTL_ACTION_SNAPSHOT_SESSION)
		return -EINVAL;
	if (ctl_copy_str(a->ctrl_url, sizeof(a->ctrl_url), ctrl_url) ||
	    ctl_copy_str(a->data_url, sizeof(a->data_url), data_url))
		return -ENAMETOOLONG;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_trigger_register(struct trawl_ctl *ctl,
					    const struct trawl_ctl_trigger *t,
					    struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	if (!ctl || !t || t->req.trigger.condition == TRAWL_CTL_CONDITION_NONE ||
	    !t->req.trigger.nr_actions)
		return -EINVAL;
	r = t->req;
	if (t->has_owner) {
		r.flags |= TRAWL_CTL_F_OWNER;
		r.value = t->owner_uid;
	}
	return ctl_transact(ctl, TRAWL_CTL_CMD_ADD_TRIGGER, &r, out);
}

TRAWL_EXPORT int trawl_ctl_trigger_unregister(struct trawl_ctl *ctl, const char *name,
					      uint32_t owner_uid)
{
	struct trawl_ctl_wire_req r;

	if (!ctl || !name)
		return -EINVAL;
	ctl_req_init(&r);
	if (ctl_copy_str(r.trigger.name, sizeof(r.trigger.name), name))
		return -ENAMETOOLONG;
	if (!trawl_ctl_trigger_name_valid(r.trigger.name))
		return -EINVAL;
	if (owner_uid != UINT32_MAX) {
		r.flags |= TRAWL_CTL_F_OWNER;
		r.value = owner_uid;
	}
	return ctl_transact(ctl, TRAWL_CTL_CMD_REMOVE_TRIGGER, &r, NULL);
}

TRAWL_EXPORT int trawl_ctl_list_triggers(struct trawl_ctl *ctl, struct trawl_ctl_list **out)
{
	struct trawl_ctl_wire_req r;

	if (!ctl || !out)
		return -EINVAL;
	ctl_req_init(&r);
	return ctl_transact(ctl, TRAWL_CTL_CMD_LIST_TRIGGERS, &r, out);
}
