/* SPDX-License-Identifier: MIT */
/*
 * trigger-internal.h - what triggers.c (the triggers, their hits and
 * actions) and trigger-monitor.c (buffer usage and session consumed size)
 * share; private to src/sessiond.
 */
#ifndef TRAWL_SESSIOND_TRIGGER_INTERNAL_H
#define TRAWL_SESSIOND_TRIGGER_INTERNAL_H

#include "sessiond/sessiond.h"

#include <stdint.h>
#include <sys/types.h>

struct sd_trigger_action {
	struct trawl_ctl_wire_action w; /* as registered */
	uint64_t hits; /* what the rate policy counts */
	uint64_t runs, failures;
};

struct sd_trigger {
	struct sd_trigger *next;
	uint64_t id; /* never reused (ust-notify.c names notifiers by it) */
	uid_t owner;
	gid_t owner_gid; /* the peer its actions run as: owner, owner_gid */
	char name[TRAWL_CTL_NAME_MAX];
	uint32_t condition; /* enum trawl_ctl_condition_kind */
	uint32_t domain, event_kind, loglevel_type;
	int32_t loglevel;
	char pattern[TRAWL_CTL_NAME_MAX]; /* a probe's: its event name */
	char target[TRAWL_CTL_TARGET_MAX]; /* a probe's location, else "" */
	char filter[TRAWL_CTL_FILTER_MAX];
	char exclusions[TRAWL_CTL_EXCLUSIONS_MAX];
	char captures[TRAWL_CTL_CAPTURES_MAX];
	char agent_filter[TRAWL_CTL_FILTER_MAX]; /* an agent domain's: the whole one (cmd-agent.c) */
	char session[TRAWL_CTL_NAME_MAX];
	char channel[TRAWL_CTL_NAME_MAX];
	uint64_t threshold;
	uint32_t ratio_ppm;
	uint64_t occurrences;
	/* Event rule matches: its hits that never reached its evaluation,
	 * LTTng's "discarded tracer messages": dropped by the tracer (an
	 * app's notification ring full, or the event larger than a slot; the
	 * kernel's perf rings full) or by this daemon's queue of hits (the
	 * app's uid held its share). occurrences + discarded: the events the
	 * rule matched. */
	uint64_t discarded;
	/* buffer usage, session consumed size (monitor_tick()): the condition
	 * held at the last sample; when its consumers are asked next */
	int held;
	uint64_t next_ask_ms;
	uint32_t nr_actions;
	struct sd_trigger_action actions[]; /* nr_actions */
};

/* A hit of a trigger (an event that matched, or a monitored condition that
 * came to hold), as queued and as its actions take it. */
struct sd_hit {
	uint64_t id;
	uint64_t ts_ns;
	uid_t app_uid;
	uint32_t nr_captures;
	char *captures; /* owned, or NULL */
};

/* triggers.c: every trigger, in the order registered (list-triggers' order). */
extern struct sd_trigger *sd_triggers;
/* CLOCK_MONOTONIC in ns. */
uint64_t sd_trigger_now_ns(void);
/* @h happened to @t: counted, and each action its rate policy lets run is run. */
void sd_trigger_fire(struct sd_trigger *t, const struct sd_hit *h);

/* trigger-monitor.c: 1 if @t's condition is one the monitor samples. */
int sd_trigger_is_monitored(const struct sd_trigger *t);
/* The monitor's tick runs while some trigger is monitored (a failure is
 * logged: those triggers then never fire); disarmed when none is left. */
void sd_trigger_monitor_arm(void);
void sd_trigger_monitor_disarm(void);

#endif /* TRAWL_SESSIOND_TRIGGER_INTERNAL_H */
