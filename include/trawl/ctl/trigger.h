/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/trigger.h> - triggers (LTTng's add-trigger, list-triggers, remove-trigger).
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_TRIGGER_H
#define TRAWL_CTL_TRIGGER_H

#include <stdint.h>

#include <trawl/ctl-types.h>
#include <trawl/ctl/connect.h>
#include <trawl/ctl/list.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A trigger is a condition and up to TRAWL_CTL_TRIGGER_MAX_ACTIONS actions,
 * registered with the session daemon, which runs the actions each time the
 * condition holds (under each action's rate policy). A trigger belongs to
 * the user who registered it: they alone list and remove it (root sees and
 * removes every user's), and its session actions act only on sessions that
 * user may act on. Names are unique per owner.
 */
struct trawl_ctl_trigger; /* a trigger being described */

struct trawl_ctl_snapshot_output; /* <trawl/ctl/snapshot.h> */

/**
 * trawl_ctl_trigger_create - a new, empty trigger description
 *
 * Return: the caller's to free with trawl_ctl_trigger_destroy(), or NULL
 * when out of memory.
 */
struct trawl_ctl_trigger *trawl_ctl_trigger_create(void);

/**
 * trawl_ctl_trigger_destroy - free a trigger description
 * @t: the description, or NULL
 */
void trawl_ctl_trigger_destroy(struct trawl_ctl_trigger *t);

/**
 * trawl_ctl_trigger_set_name - name the trigger (unnamed, the daemon names it
 * triggerN, as LTTng does)
 * @t: the trigger
 * @name: 1 to 255 printable ASCII bytes
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_set_name(struct trawl_ctl_trigger *t, const char *name);

/**
 * trawl_ctl_trigger_set_owner_uid - register (or remove) as another user
 * @t: the trigger
 * @uid: the owner; only root may name another user than itself
 *
 * Return: 0.
 */
int trawl_ctl_trigger_set_owner_uid(struct trawl_ctl_trigger *t, uint32_t uid);

/**
 * trawl_ctl_trigger_set_event_rule - condition "event rule matches"
 * @t: the trigger
 * @domain: UST or KERNEL, or an agent domain (JUL, LOG4J, PYTHON: @pattern
 *          is a logger, the levels the framework's)
 * @kind: TRACEPOINT, or SYSCALL (kernel)
 * @pattern: an event name or a pattern ending in '*'; NULL or "": "*"
 * @filter: a filter expression (as enable-event's), or NULL
 * @loglevel_type: ALL, RANGE (at least as severe as) or SINGLE (user space)
 * @loglevel: 0..14, with RANGE or SINGLE
 * @exclusions: names left out, joined by ',' (user space), or NULL
 *
 * User-space rules see the events of the apps their owner may trace. Kernel
 * rules (the root daemon's) watch every matching tracepoint, or system
 * call's entry and exit, on every CPU through perf_event_open(2): each event
 * is notified as it happens (the daemon wakes per event; well under a
 * millisecond on an idle machine). Their filter is handed to the kernel, in
 * ftrace's syntax; an event that lacks the fields it names (a system call's
 * exit, with a filter on its arguments) never matches, and registering a
 * trigger whose filter no matched event takes fails.
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_set_event_rule(struct trawl_ctl_trigger *t, enum trawl_ctl_domain domain,
				     enum trawl_ctl_event_kind kind, const char *pattern,
				     const char *filter, enum trawl_ctl_loglevel_type loglevel_type,
				     int loglevel, const char *exclusions);

/**
 * trawl_ctl_trigger_set_probe_rule - condition "event rule matches" on a
 * kernel probe (LTTng's --type=kernel:kprobe or kernel:uprobe)
 * @t: the trigger
 * @kind: PROBE (@location SYMBOL, SYMBOL+OFFSET or 0xADDRESS) or
 *        USERSPACE_PROBE (@location [elf:]PATH:SYMBOL or
 *        sdt:PATH:PROVIDER:NAME)
 * @location: as enable-event's --probe or --userspace-probe takes it, and
 *            checked as strictly by the root daemon, which reads a uprobe's
 *            PATH as the registering user (a regular file they can read)
 * @event_name: the rule's event name (list-triggers shows it); NULL or "":
 *              the location, as LTTng names it
 *
 * The daemon defines the probe when the trigger is registered and removes it
 * with the trigger; each hit of it is one occurrence of the condition, seen
 * through perf_event_open(2) as kernel tracepoints are. Its captures see
 * the probe's fields: a uprobe on a function records its first six integer
 * arguments as a0..a5 (x86-64), both kinds __probe_ip; $ctx.pid and
 * $ctx.tid. Kprobes need a kernel with kprobe_events.
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_set_probe_rule(struct trawl_ctl_trigger *t, enum trawl_ctl_event_kind kind,
				     const char *location, const char *event_name);

/**
 * trawl_ctl_trigger_add_capture - capture a field when the event rule matches
 * @t: the trigger (with an event rule)
 * @descriptor: a payload field name, $ctx.NAME or $app.PROVIDER:TYPE, with an
 *              optional [INDEX]
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG (all captures within
 * TRAWL_CTL_CAPTURES_MAX bytes).
 */
int trawl_ctl_trigger_add_capture(struct trawl_ctl_trigger *t, const char *descriptor);

/**
 * trawl_ctl_trigger_set_session_consumed_size - condition "session consumed
 * size": @session's consumers have written at least @bytes
 *
 * Sampled as often as the shortest monitor timer of the session's channels
 * (trawl_ctl_channel_attr_set_monitor_timer(); none: never). As LTTng's,
 * the trigger fires when a sample finds the condition holding and the one
 * before did not: once per session, unless it is cleared and written again.
 *
 * Return: 0, -EINVAL (@bytes 0) or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_set_session_consumed_size(struct trawl_ctl_trigger *t, const char *session,
						uint64_t bytes);

/**
 * trawl_ctl_trigger_set_buffer_usage - condition "buffer usage high/low"
 * @t: the trigger
 * @kind: BUFFER_USAGE_HIGH or BUFFER_USAGE_LOW
 * @session, @channel, @domain: the channel
 * @ratio_ppm: the threshold as a ratio of the buffers' size, in millionths
 *             (0..1000000), or UINT32_MAX to give it in @bytes
 * @bytes: the threshold in bytes, with @ratio_ppm UINT32_MAX
 *
 * High holds when some buffer of the channel (per CPU, and per user or
 * process) holds at least the threshold, low when every one holds at most
 * it (LTTng's rules), at each sample of the channel's monitor timer
 * (trawl_ctl_channel_attr_set_monitor_timer(); 0: never). The trigger fires
 * on a crossing only: when a sample finds the condition holding and the one
 * before did not, so a buffer that stays full fires once. A kernel
 * channel's buffers are its per-CPU tracefs buffers (a perf or BPF
 * channel's records never wait in them: its usage stays 0).
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_set_buffer_usage(struct trawl_ctl_trigger *t,
				       enum trawl_ctl_condition_kind kind, const char *session,
				       const char *channel, enum trawl_ctl_domain domain,
				       uint32_t ratio_ppm, uint64_t bytes);

/**
 * trawl_ctl_trigger_add_action - append an action (rate policy: every 1)
 * @t: the trigger
 * @kind: the action
 * @session: the session it acts on; NULL for NOTIFY
 *
 * Return: the action's index (>= 0), -EINVAL, -ENAMETOOLONG, or -E2BIG past
 * TRAWL_CTL_TRIGGER_MAX_ACTIONS.
 */
int trawl_ctl_trigger_add_action(struct trawl_ctl_trigger *t, enum trawl_ctl_action_kind kind,
				 const char *session);

/**
 * trawl_ctl_trigger_action_set_rate_policy - when action @i runs
 * @t: the trigger
 * @i: the action's index
 * @policy: EVERY_N or ONCE_AFTER_N
 * @n: N >= 1
 *
 * Return: 0 or -EINVAL.
 */
int trawl_ctl_trigger_action_set_rate_policy(struct trawl_ctl_trigger *t, int i,
					     enum trawl_ctl_rate_policy policy, uint64_t n);

/**
 * trawl_ctl_trigger_action_set_snapshot_output - where a SNAPSHOT_SESSION
 * action's snapshot goes (without: the session's own output)
 * @t: the trigger
 * @i: the action's index
 * @o: the output (copied; its URL must be set)
 *
 * Return: 0 or -EINVAL.
 */
int trawl_ctl_trigger_action_set_snapshot_output(struct trawl_ctl_trigger *t, int i,
						 const struct trawl_ctl_snapshot_output *o);

/**
 * trawl_ctl_trigger_action_set_snapshot_given_urls - the control and data
 * URLs a SNAPSHOT_SESSION action's output was given as (LTTng's --ctrl-url,
 * --data-url), kept only to be listed as given: the output itself
 * (trawl_ctl_trigger_action_set_snapshot_output()) is the net:// URL they make
 * @t: the trigger
 * @i: the action's index
 * @ctrl_url: the control URL, copied
 * @data_url: the data URL, copied
 *
 * Return: 0, -EINVAL (not a SNAPSHOT_SESSION action) or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_action_set_snapshot_given_urls(struct trawl_ctl_trigger *t, int i,
						     const char *ctrl_url, const char *data_url);

/**
 * trawl_ctl_trigger_register - register a trigger
 * @ctl: a connection
 * @t: the trigger, with a condition and at least one action
 * @out: if not NULL, receives its TRIGGER record (with its name) and its
 *       TRIGGER_ACTION records, the caller's to free
 *
 * Return: 0, -EEXIST (the owner has a trigger of that name), -EINVAL,
 * -EACCES (another owner, not root), -EDQUOT (the owner holds as many
 * triggers as the daemon allows one user).
 */
int trawl_ctl_trigger_register(struct trawl_ctl *ctl, const struct trawl_ctl_trigger *t,
			       struct trawl_ctl_list **out);

/**
 * trawl_ctl_trigger_unregister - remove a trigger
 * @ctl: a connection
 * @name: its name
 * @owner_uid: its owner, or UINT32_MAX for the caller (root may name others)
 *
 * Return: 0, -ENOENT (no trigger of that name and owner), -EACCES.
 */
int trawl_ctl_trigger_unregister(struct trawl_ctl *ctl, const char *name, uint32_t owner_uid);

/**
 * trawl_ctl_list_triggers - the triggers the caller may see (root: all)
 * @ctl: a connection
 * @out: receives, for each trigger in the order registered, its TRIGGER
 *       record then its TRIGGER_ACTION records; the caller's to free
 *
 * Return: 0 or a transport error.
 */
int trawl_ctl_list_triggers(struct trawl_ctl *ctl, struct trawl_ctl_list **out);

/* A trigger; its nr_actions TRIGGER_ACTION records follow it. Strings belong to the list. */
struct trawl_ctl_trigger_info {
	uint32_t struct_size;
	const char *name;
	uint32_t owner_uid;
	enum trawl_ctl_condition_kind condition;
	/* event rule matches: */
	enum trawl_ctl_domain domain; /* also buffer usage's */
	enum trawl_ctl_event_kind event_kind;
	const char *pattern;
	const char *filter;     /* "" if none */
	enum trawl_ctl_loglevel_type loglevel_type;
	int32_t loglevel;
	const char *exclusions; /* joined by ',', "" if none */
	const char *captures;   /* joined by ',', "" if none */
	/* session consumed size, buffer usage: */
	const char *session;
	const char *channel;    /* buffer usage */
	uint64_t threshold;     /* bytes (with ratio_ppm UINT32_MAX) */
	uint32_t ratio_ppm;     /* buffer usage: millionths, or UINT32_MAX */
	uint32_t nr_actions;
	uint64_t occurrences;   /* times the condition held */
	/* event rule matches, kernel PROBE or USERSPACE_PROBE: the location as
	 * given (pattern is then the event name); "" otherwise */
	const char *location;
	/* event rule matches: the events the rule matched whose hit never
	 * reached the trigger (LTTng's "discarded tracer messages"): dropped
	 * by the tracer (an app's notification ring full, an event larger than
	 * a slot, the kernel's rings full) or by the daemon's queue of hits;
	 * occurrences + discarded is every match. Counted from the trigger's
	 * registration (an app's own count is its word, added as it grows). */
	uint64_t discarded;
};

/* An action of the TRIGGER record before it. Strings belong to the list. */
struct trawl_ctl_trigger_action_info {
	uint32_t struct_size;
	enum trawl_ctl_action_kind kind;
	const char *session;     /* "" for NOTIFY */
	enum trawl_ctl_rate_policy rate_policy;
	uint64_t rate_value;     /* N */
	const char *output_name; /* snapshot: the output's name, "" */
	const char *output;      /* snapshot: its folder or URL, "" for the session's */
	uint64_t max_size;       /* snapshot: bytes, UINT64_MAX if not given */
	uint64_t runs;           /* times it ran */
	uint64_t failures;       /* of which failed */
	/* snapshot: the URLs the output was given as (LTTng's --ctrl-url and
	 * --data-url: output is the net:// URL they make), "" if not so given */
	const char *ctrl_url;
	const char *data_url;
};

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_TRIGGER_H */
