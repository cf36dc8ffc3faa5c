/* SPDX-License-Identifier: MIT */
/*
 * trigger-monitor.c - the triggers on buffer usage and session consumed
 * size (the channels' monitor timers); triggers.c holds the triggers.
 *
 * LTTng's consumer samples each channel every monitor period and sends the
 * sample to the session daemon. trawl's consumer answers one command at a
 * time (consumerd/consumer-proto.h): the daemon asks it (a STATUS, without
 * waiting) once per monitor period of the channel a trigger watches, and
 * each answer carries the sample taken as it was made: the bytes the
 * fullest of the channel's stream buffers holds, and what the session's
 * consumers have written. A kernel channel's sample is its tracefs
 * buffers' stats, which the daemon reads itself when it evaluates. The
 * conditions are LTTng's, edge-triggered as LTTng's notification thread
 * evaluates them: a trigger fires when its condition holds at a sample and
 * did not at the one before (the first sample after registration counts the
 * one before as not holding), so usage staying above a high threshold fires
 * once, and again only after it went below and came back. Evaluated every MONITOR_TICK_MS on the latest
 * sample, at the top of the loop, as event hits are.
 */
#include "common/common.h"
#include "sessiond/sessiond.h"
#include "sessiond/trigger-internal.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MONITOR_TICK_MS 100u

int sd_trigger_is_monitored(const struct sd_trigger *t)
{
	return t->condition == TRAWL_CTL_CONDITION_BUFFER_USAGE_HIGH ||
	       t->condition == TRAWL_CTL_CONDITION_BUFFER_USAGE_LOW ||
	       t->condition == TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE;
}

/* The session @t watches: its owner's (root's triggers: any user's, the
 * owner's first), as a client of that uid names sessions. */
static struct sd_session *monitored_session(const struct sd_trigger *t)
{
	struct sd_session *s, *any = NULL;

	for (s = sd.sessions; s; s = s->next) {
		if (strcmp(s->name, t->session) || (t->owner != 0 && s->uid != t->owner))
			continue;
		if (s->uid == t->owner)
			return s;
		any = s;
	}
	return any;
}

static struct sd_channel *monitored_channel(struct sd_session *s, const struct sd_trigger *t)
{
	struct sd_channel *c;

	if (t->domain == TRAWL_CTL_DOMAIN_NONE || t->domain >= SD_NR_DOMAINS)
		return NULL;
	for (c = s->dom[t->domain].channels; c && strcmp(c->attr.name, t->channel); c = c->next)
		;
	return c;
}

/* The period (µs) @t samples at: its channel's monitor timer; for the
 * consumed size, the shortest of the session's channels'. 0: never. */
static uint64_t monitor_period(struct sd_session *s, const struct sd_trigger *t)
{
	const struct sd_channel *c;
	uint64_t us = 0;
	int i;

	if (t->condition != TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE) {
		c = monitored_channel(s, t);
		return c ? c->attr.monitor_timer_us : 0;
	}
	for (i = 1; i < SD_NR_DOMAINS; i++)
		for (c = s->dom[i].channels; c; c = c->next)
			if (c->attr.monitor_timer_us && (!us || c->attr.monitor_timer_us < us))
				us = c->attr.monitor_timer_us;
	return us;
}

/* Asks @s's consumers for a sample (no wait: the next ticks have it). */
static void monitor_ask(struct sd_session *s, const struct sd_trigger *t)
{
	int i;

	if (s->op)
		return; /* (busy: the command's own answer refreshes the counters) */
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];

		if ((t->condition != TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE &&
		     i != (int)t->domain) || !d->ops || !d->ds || !d->ops->status_ask)
			continue;
		d->ops->status_ask(d->ds);
	}
}

/* Whether @t's condition holds at @s's latest sample; -1: no sample yet. */
static int monitor_eval(struct sd_session *s, const struct sd_trigger *t)
{
	const struct sd_channel *c;
	struct sd_domain *d;
	uint64_t used, threshold, cap;
	int i;

	if (t->condition == TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE) {
		uint64_t n = 0;
		int any = 0;

		for (i = 1; i < SD_NR_DOMAINS; i++) {
			struct trawl_domain_status st = {.consumer_alive = 1};

			d = &s->dom[i];
			if (d->ops && d->ds && d->ops->status && !d->ops->status(d->ds, &st)) {
				n += st.bytes_written;
				any = 1;
			}
		}
		return any ? n >= t->threshold : -1;
	}
	c = monitored_channel(s, t);
	d = &s->dom[t->domain];
	if (!c || !d->ops || !d->ds || !d->ops->channel_usage ||
	    d->ops->channel_usage(d->ds, t->channel, &used))
		return -1;
	cap = c->attr.subbuf_size * (uint64_t)c->attr.num_subbuf;
	threshold = t->ratio_ppm == UINT32_MAX
			    ? t->threshold
			    : (uint64_t)((double)t->ratio_ppm / TRAWL_CTL_WIRE_RATIO_ONE * (double)cap);
	/* LTTng's: high when any stream reached it, low once all are at or below */
	if (t->condition == TRAWL_CTL_CONDITION_BUFFER_USAGE_HIGH)
		return used >= threshold;
	return used <= threshold;
}

static void monitor_tick(void)
{
	uint64_t now = sd_now_ms();
	struct sd_trigger *t;
	int any = 0;

	for (t = sd_triggers; t && !sd.quit; t = t->next) {
		struct sd_session *s;
		uint64_t us;
		int held;

		if (!sd_trigger_is_monitored(t))
			continue;
		any = 1;
		s = monitored_session(t);
		us = s ? monitor_period(s, t) : 0;
		if (!us) {
			t->held = 0; /* gone (or not sampled): a new one starts afresh */
			continue;
		}
		if (now >= t->next_ask_ms) {
			monitor_ask(s, t);
			t->next_ask_ms = now + (us + 999) / 1000;
		}
		held = monitor_eval(s, t);
		if (held < 0)
			continue;
		if (held && !t->held) {
			struct sd_hit h = {
				.id = t->id,
				.ts_ns = sd_trigger_now_ns(),
				.app_uid = t->owner,
			};

			sd_trigger_fire(t, &h);
		}
		t->held = held;
	}
	if (!any)
		sd_trigger_monitor_disarm();
}

static int monitor_fd = -1;
static int monitor_pending;

static void monitor_ready(int fd, short revents, void *arg)
{
	uint64_t n;

	(void)revents;
	(void)arg;
	if (read(fd, &n, sizeof(n)) < 0)
		return;
	monitor_pending = 1;
}

static void monitor_on_top(void)
{
	if (!monitor_pending)
		return;
	monitor_pending = 0;
	monitor_tick();
}

/* The tick runs while some trigger is monitored (a failure is logged: those
 * triggers then never fire). */
void sd_trigger_monitor_arm(void)
{
	static int on_top;
	struct itimerspec its = {
		.it_interval = {0, MONITOR_TICK_MS * 1000000L},
		.it_value = {0, MONITOR_TICK_MS * 1000000L},
	};

	if (monitor_fd >= 0)
		return;
	monitor_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (monitor_fd < 0 || timerfd_settime(monitor_fd, 0, &its, NULL) ||
	    sd_watch_add(monitor_fd, monitor_ready, NULL)) {
		sd_log("cannot arm the triggers' monitor timer: %s: buffer-usage and "
		       "session-consumed-size triggers will not fire", strerror(errno));
		if (monitor_fd >= 0)
			close(monitor_fd);
		monitor_fd = -1;
		return;
	}
	if (!on_top) {
		sd_loop_on_top(monitor_on_top);
		on_top = 1;
	}
}

void sd_trigger_monitor_disarm(void)
{
	if (monitor_fd < 0)
		return;
	sd_watch_del(monitor_fd);
	close(monitor_fd);
	monitor_fd = -1;
	monitor_pending = 0;
}
