/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/event.h> - event rules, and the events a domain offers.
 *
 * An event rule says which events a channel records: a name or pattern of
 * a kind, with an optional filter, log-level condition and exclusions.
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_EVENT_H
#define TRAWL_CTL_EVENT_H

#include <stdint.h>

#include <trawl/ctl-types.h>
#include <trawl/ctl/connect.h>
#include <trawl/ctl/list.h>

#ifdef __cplusplus
extern "C" {
#endif

struct trawl_ctl_event; /* an event rule */

/**
 * trawl_ctl_event_create - a new event rule
 * @kind: what @name designates
 * @name: an event name, or a pattern with '*' ("*": every event); for
 *        probes, the name the probe's events get. Copied.
 *
 * Return: the object, the caller's to free with trawl_ctl_event_destroy(), or
 * NULL with errno EINVAL (bad kind, empty or too long name) or ENOMEM.
 */
struct trawl_ctl_event *trawl_ctl_event_create(enum trawl_ctl_event_kind kind, const char *name);

/**
 * trawl_ctl_event_destroy - free an event rule
 * @ev: the object, or NULL (then nothing happens)
 */
void trawl_ctl_event_destroy(struct trawl_ctl_event *ev);

/**
 * trawl_ctl_event_set_target - a probe's location
 * @ev: an event rule of kind PROBE, FUNCTION or USERSPACE_PROBE
 * @target: see enum trawl_ctl_event_kind; NULL for none. Copied.
 *
 * Return: 0 or -ENAMETOOLONG (TRAWL_CTL_TARGET_MAX).
 */
int trawl_ctl_event_set_target(struct trawl_ctl_event *ev, const char *target);

/**
 * trawl_ctl_event_set_filter - record only events for which an expression holds
 * @ev: an event rule
 * @filter: LTTng's filter syntax, checked by the daemon; NULL for none. Copied.
 *
 * Kernel rules take ftrace's filter syntax, which the daemon checks; the
 * kernel checks the fields it names per event, and an event that lacks them
 * (or whose types do not fit) is enabled and never recorded, as with LTTng.
 *
 * Return: 0 or -ENAMETOOLONG (TRAWL_CTL_FILTER_MAX).
 */
int trawl_ctl_event_set_filter(struct trawl_ctl_event *ev, const char *filter);

/**
 * trawl_ctl_event_set_loglevel - record only events of some log levels
 * @ev: an event rule (user space, or an agent domain)
 * @type: which levels, relative to @level
 * @level: user space: 0 (TRACE_EMERG) .. 14 (TRACE_DEBUG), checked when the
 *         rule is enabled; an agent domain: its framework's level
 *         (TRAWL_CTL_JUL_*, TRAWL_CTL_LOG4J_*, TRAWL_CTL_PYTHON_*), and RANGE
 *         means this level or more severe (larger)
 *
 * Return: 0 or -EINVAL.
 */
int trawl_ctl_event_set_loglevel(struct trawl_ctl_event *ev, enum trawl_ctl_loglevel_type type,
				 int level);

/**
 * trawl_ctl_event_add_exclusion - leave events out of a pattern's rule
 * @ev: an event rule (user space) whose name holds a '*'
 * @name: an event name, or a pattern with '*', that the rule must not
 *        record although its name matches (LTTng's `enable-event --exclude`).
 *        Copied.
 *
 * A rule with exclusions is another rule than the same one without, as in
 * LTTng. The kernel domain refuses them (-EINVAL, as LTTng 2.13 does).
 *
 * Return: 0, -EINVAL (an empty name or one with ','), -ENAMETOOLONG (the
 * rule's exclusions, joined by ',', reach TRAWL_CTL_EXCLUSIONS_MAX).
 */
int trawl_ctl_event_add_exclusion(struct trawl_ctl_event *ev, const char *name);

/**
 * trawl_ctl_event_enable - enable an event rule
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @channel: the channel's name; NULL for the domain's default channel
 *           (channel0, created on demand)
 * @ev: the rule (read during the call only)
 *
 * Return: 0, -EEXIST if the same rule is enabled already, -EINVAL...
 */
int trawl_ctl_event_enable(struct trawl_ctl *ctl, const char *session,
			   enum trawl_ctl_domain domain, const char *channel,
			   const struct trawl_ctl_event *ev);

/**
 * trawl_ctl_event_disable - disable event rules
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @channel: the channel's name; NULL for channel0
 * @ev: disables the enabled rules with @ev's kind and name; "*" disables
 *      every rule of the channel
 *
 * Return: 0 or -ENOENT.
 */
int trawl_ctl_event_disable(struct trawl_ctl *ctl, const char *session,
			    enum trawl_ctl_domain domain, const char *channel,
			    const struct trawl_ctl_event *ev);

/* An event rule. Strings belong to the list. */
struct trawl_ctl_event_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	const char *channel;
	const char *name;
	enum trawl_ctl_event_kind kind;
	int32_t enabled;
	enum trawl_ctl_loglevel_type loglevel_type;
	int32_t loglevel;   /* 0..14; meaningless with TRAWL_CTL_LOGLEVEL_ALL */
	const char *filter; /* "" if none */
	const char *target; /* probe location, "" if none */
	const char *exclusions; /* the names it leaves out, joined by ',': "" if none */
};

/* An event a domain offers. Strings belong to the list. */
struct trawl_ctl_available_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	const char *name;
	enum trawl_ctl_event_kind kind; /* TRACEPOINT or SYSCALL */
	int32_t loglevel;               /* 0..14, -1 if it has none */
	int32_t pid;                    /* user space: the process offering it; else 0 */
};

/* A field of the AVAILABLE record listed before it. Strings belong to the list. */
struct trawl_ctl_field_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	const char *event; /* its event's name */
	const char *name;
	const char *type;  /* free text: "integer", "string", "s32"... */
};

/**
 * trawl_ctl_list_available - the events a domain offers
 * @ctl: a connection
 * @domain: KERNEL (tracepoints or system calls) or UST (the tracepoints of
 *          the applications registered now)
 * @kind: TRACEPOINT or SYSCALL
 * @fields: 1 to have each AVAILABLE record followed by its FIELD records
 * @out: receives the records, the caller's to free with trawl_ctl_list_destroy()
 *
 * Return: 0, -EACCES (kernel, not the root daemon), -EOPNOTSUPP.
 */
int trawl_ctl_list_available(struct trawl_ctl *ctl, enum trawl_ctl_domain domain,
			     enum trawl_ctl_event_kind kind, int fields,
			     struct trawl_ctl_list **out);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_EVENT_H */
