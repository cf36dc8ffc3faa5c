/* SPDX-License-Identifier: MIT */
/*
 * channel.c - channels, event rules and contexts in libtrawl-ctl: the
 * attribute objects and the commands that send them.
 */
#include "common/common.h"
#include "ctl/ctl-int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct trawl_ctl_channel_attr {
	char name[TRAWL_CTL_NAME_MAX];
	uint64_t subbuf_size;     /* 0 = default */
	uint32_t num_subbuf;      /* 0 = default */
	uint32_t overwrite;       /* TRAWL_CTL_MODE_* */
	uint32_t switch_timer_us;
	uint32_t read_timer_us;   /* 0 = default */
	enum trawl_ctl_buffers buffers;
	uint64_t tracefile_size;  /* 0 = unlimited */
	uint32_t tracefile_count; /* 0 = unlimited */
	int64_t blocking_timeout_us; /* 0 = never (default), -1 = infinite */
	enum trawl_ctl_output output;
	uint32_t monitor_timer_us; /* as the request carries it: 0 = default */
};

struct trawl_ctl_event {
	enum trawl_ctl_event_kind kind;
	char name[TRAWL_CTL_NAME_MAX];
	char target[TRAWL_CTL_TARGET_MAX];
	char filter[TRAWL_CTL_FILTER_MAX];
	enum trawl_ctl_loglevel_type loglevel_type;
	int loglevel;
	char exclusions[TRAWL_CTL_EXCLUSIONS_MAX]; /* names joined by ',' */
};

/* ---- channels ---- */

TRAWL_EXPORT struct trawl_ctl_channel_attr *trawl_ctl_channel_attr_create(const char *name)
{
	struct trawl_ctl_channel_attr *a;

	if (!name || !trawl_ctl_name_valid(name)) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (a)
		memcpy(a->name, name, strlen(name) + 1);
	return a;
}

TRAWL_EXPORT void trawl_ctl_channel_attr_destroy(struct trawl_ctl_channel_attr *attr)
{
	free(attr);
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_subbuf_size(struct trawl_ctl_channel_attr *attr,
							uint64_t bytes)
{
	if (bytes < 4096 || (bytes & (bytes - 1)))
		return -EINVAL;
	attr->subbuf_size = bytes;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_num_subbuf(struct trawl_ctl_channel_attr *attr,
						       uint32_t num)
{
	if (num < 2 || (num & (num - 1)))
		return -EINVAL;
	attr->num_subbuf = num;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_overwrite(struct trawl_ctl_channel_attr *attr,
						      int overwrite)
{
	attr->overwrite = overwrite ? TRAWL_CTL_MODE_OVERWRITE : TRAWL_CTL_MODE_DISCARD;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_switch_timer(struct trawl_ctl_channel_attr *attr,
							 uint32_t us)
{
	attr->switch_timer_us = us;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_read_timer(struct trawl_ctl_channel_attr *attr,
						       uint32_t us)
{
	attr->read_timer_us = us;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_buffers(struct trawl_ctl_channel_attr *attr,
						    enum trawl_ctl_buffers buffers)
{
	if ((unsigned)buffers > TRAWL_CTL_WIRE_BUFFERS_LAST)
		return -EINVAL;
	attr->buffers = buffers;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_tracefile_size(struct trawl_ctl_channel_attr *attr,
							   uint64_t bytes)
{
	attr->tracefile_size = bytes;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_tracefile_count(struct trawl_ctl_channel_attr *attr,
							    uint32_t count)
{
	attr->tracefile_count = count;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_blocking_timeout(struct trawl_ctl_channel_attr *attr,
							     int64_t us)
{
	if (us < TRAWL_CTL_BLOCKING_INF || us > TRAWL_CTL_BLOCKING_MAX_US)
		return -EINVAL;
	attr->blocking_timeout_us = us;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_monitor_timer(struct trawl_ctl_channel_attr *attr,
							   uint64_t us)
{
	if (!attr || us > TRAWL_CTL_MONITOR_MAX_US)
		return -EINVAL;
	attr->monitor_timer_us = us ? (uint32_t)us : TRAWL_CTL_WIRE_MONITOR_OFF;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_attr_set_output(struct trawl_ctl_channel_attr *attr,
						   enum trawl_ctl_output output)
{
	if ((unsigned)output > TRAWL_CTL_WIRE_OUTPUT_LAST)
		return -EINVAL;
	attr->output = output;
	return 0;
}

/* A request for @session's @domain, naming @channel (NULL: none). */
static int target_req(struct trawl_ctl_wire_req *r, const char *session,
		      enum trawl_ctl_domain domain, const char *channel)
{
	ctl_req_init(r);
	r->domain = (uint32_t)domain;
	if (ctl_copy_str(r->session, sizeof(r->session), session) ||
	    ctl_copy_str(r->channel, sizeof(r->channel), channel))
		return -ENAMETOOLONG;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_channel_enable(struct trawl_ctl *ctl, const char *session,
					  enum trawl_ctl_domain domain,
					  const struct trawl_ctl_channel_attr *attr)
{
	struct trawl_ctl_wire_req r;
	int ret = target_req(&r, session, domain, attr->name);

	if (ret)
		return ret;
	r.subbuf_size = attr->subbuf_size;
	r.num_subbuf = attr->num_subbuf;
	r.overwrite = attr->overwrite;
	r.switch_timer_us = attr->switch_timer_us;
	r.read_timer_us = attr->read_timer_us;
	r.buffers = (uint32_t)attr->buffers;
	r.tracefile_size = attr->tracefile_size;
	r.tracefile_count = attr->tracefile_count;
	r.blocking_timeout_us = attr->blocking_timeout_us;
	r.chan_output = (uint32_t)attr->output;
	r.monitor_timer_us = attr->monitor_timer_us;
	return ctl_transact(ctl, TRAWL_CTL_CMD_ENABLE_CHANNEL, &r, NULL);
}

TRAWL_EXPORT int trawl_ctl_channel_disable(struct trawl_ctl *ctl, const char *session,
					   enum trawl_ctl_domain domain, const char *channel)
{
	struct trawl_ctl_wire_req r;
	int ret = target_req(&r, session, domain, channel);

	return ret ? ret : ctl_transact(ctl, TRAWL_CTL_CMD_DISABLE_CHANNEL, &r, NULL);
}

/* ---- event rules and contexts ---- */

TRAWL_EXPORT struct trawl_ctl_event *trawl_ctl_event_create(enum trawl_ctl_event_kind kind,
							    const char *name)
{
	struct trawl_ctl_event *ev;

	if ((unsigned)kind > TRAWL_CTL_WIRE_EVENT_KIND_LAST || !name || !name[0] ||
	    strlen(name) >= sizeof(ev->name)) {
		errno = EINVAL;
		return NULL;
	}
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return NULL;
	memcpy(ev->name, name, strlen(name) + 1);
	ev->kind = kind;
	return ev;
}

TRAWL_EXPORT void trawl_ctl_event_destroy(struct trawl_ctl_event *ev)
{
	free(ev);
}

TRAWL_EXPORT int trawl_ctl_event_set_target(struct trawl_ctl_event *ev, const char *target)
{
	return ctl_copy_str(ev->target, sizeof(ev->target), target);
}

TRAWL_EXPORT int trawl_ctl_event_set_filter(struct trawl_ctl_event *ev, const char *filter)
{
	return ctl_copy_str(ev->filter, sizeof(ev->filter), filter);
}

TRAWL_EXPORT int trawl_ctl_event_set_loglevel(struct trawl_ctl_event *ev,
					      enum trawl_ctl_loglevel_type type, int level)
{
	/* (an agent domain's levels are any int: event_req() checks the
	 * level against the domain) */
	if ((unsigned)type > TRAWL_CTL_WIRE_LOGLEVEL_TYPE_LAST)
		return -EINVAL;
	ev->loglevel_type = type;
	ev->loglevel = level;
	return 0;
}

TRAWL_EXPORT int trawl_ctl_event_add_exclusion(struct trawl_ctl_event *ev, const char *name)
{
	size_t have, n;

	if (!ev || !name || !name[0] || strchr(name, ','))
		return -EINVAL;
	have = strlen(ev->exclusions);
	n = strlen(name);
	if (have + (have > 0) + n >= sizeof(ev->exclusions))
		return -ENAMETOOLONG;
	if (have)
		ev->exclusions[have++] = ',';
	memcpy(ev->exclusions + have, name, n + 1);
	return 0;
}

static int event_req(struct trawl_ctl_wire_req *r, const char *session,
		     enum trawl_ctl_domain domain, const char *channel,
		     const struct trawl_ctl_event *ev)
{
	int ret = target_req(r, session, domain, channel);

	if (ret)
		return ret;
	if (!TRAWL_CTL_WIRE_IS_AGENT(domain) && (ev->loglevel < 0 ||
						 ev->loglevel > TRAWL_CTL_WIRE_LOGLEVEL_MAX))
		return -EINVAL;
	r->event_kind = (uint32_t)ev->kind;
	r->loglevel_type = (uint32_t)ev->loglevel_type;
	r->loglevel = ev->loglevel;
	/* The sizes are the same on both sides: these copies always fit. */
	memcpy(r->name, ev->name, sizeof(r->name));
	memcpy(r->target, ev->target, sizeof(r->target));
	memcpy(r->filter, ev->filter, sizeof(r->filter));
	memcpy(r->exclusions, ev->exclusions, sizeof(r->exclusions));
	return 0;
}

TRAWL_EXPORT int trawl_ctl_event_enable(struct trawl_ctl *ctl, const char *session,
					enum trawl_ctl_domain domain, const char *channel,
					const struct trawl_ctl_event *ev)
{
	struct trawl_ctl_wire_req r;
	int ret = event_req(&r, session, domain, channel, ev);

	return ret ? ret : ctl_transact(ctl, TRAWL_CTL_CMD_ENABLE_EVENT, &r, NULL);
}

TRAWL_EXPORT int trawl_ctl_event_disable(struct trawl_ctl *ctl, const char *session,
					 enum trawl_ctl_domain domain, const char *channel,
					 const struct trawl_ctl_event *ev)
{
	struct trawl_ctl_wire_req r;
	int ret = event_req(&r, session, domain, channel, ev);

	return ret ? ret : ctl_transact(ctl, TRAWL_CTL_CMD_DISABLE_EVENT, &r, NULL);
}

TRAWL_EXPORT int trawl_ctl_context_add(struct trawl_ctl *ctl, const char *session,
				       enum trawl_ctl_domain domain, const char *channel,
				       const char *context)
{
	struct trawl_ctl_wire_req r;
	int ret;

	if (!context || !context[0])
		return -EINVAL;
	ret = target_req(&r, session, domain, channel);
	if (!ret)
		ret = ctl_copy_str(r.name, sizeof(r.name), context);
	return ret ? ret : ctl_transact(ctl, TRAWL_CTL_CMD_ADD_CONTEXT, &r, NULL);
}
