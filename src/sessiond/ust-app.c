/* SPDX-License-Identifier: MIT */
/*
 * ust-app.c - which apps and events a session traces, app registration
 * (apps.sock), and setting an app up for a session and keeping it in sync.
 */
#include "sessiond/ust-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- matching ---- */

/* LTTng's star glob: '*' matches any run of characters; nothing else is special. */
static int glob_match(const char *p, const char *s)
{
	const char *star = NULL, *ss = s;

	while (*s) {
		if (*p == '*') {
			star = p++;
			ss = s;
		} else if (*p == *s) {
			p++;
			s++;
		} else if (star) {
			p = star + 1;
			s = ++ss;
		} else {
			return 0;
		}
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

/* Whether one of @list's ','-joined globs matches @name (LTTng's exclusions). */
static int excluded(const char *list, const char *name)
{
	char one[TRAWL_CTL_NAME_MAX];
	const char *end;

	for (; *list; list = *end ? end + 1 : end) {
		size_t n;

		end = strchr(list, ',');
		if (!end)
			end = list + strlen(list);
		n = (size_t)(end - list);
		if (n >= sizeof(one)) /* the daemon took none this long */
			continue;
		memcpy(one, list, n);
		one[n] = '\0';
		if (glob_match(one, name))
			return 1;
	}
	return 0;
}

int ust_event_matches(const char *pattern, const char *exclusions, uint32_t loglevel_type,
		      int loglevel, const struct trawl_ustctl_event *ev)
{
	if (!glob_match(pattern, ev->name) || excluded(exclusions, ev->name))
		return 0;
	switch (loglevel_type) {
	/* Level -1 is every level, as LTTng-UST's lttng_loglevel_match(). */
	case TRAWL_CTL_LOGLEVEL_RANGE:
		return ev->loglevel <= loglevel || (loglevel == -1 && ev->loglevel <= 14);
	case TRAWL_CTL_LOGLEVEL_SINGLE:
		return ev->loglevel == loglevel || (loglevel == -1 && ev->loglevel <= 14);
	default:
		return 1;
	}
}

static int rule_matches(const struct ust_rule *r, const struct trawl_ustctl_event *ev)
{
	return ust_event_matches(r->name, r->exclusions, r->lt, r->loglevel, ev);
}

/* A session traces its owner's apps (root's: everyone's) that its
 * trackers include (LTTng's user-space trackers: VPID, VUID, VGID). */
int sess_traces_app(const struct trawl_domain_session *s, const struct ust_app *a)
{
	const struct trawl_domain_tracker *t = s->trackers->attr;

	if (s->uid != 0 && s->uid != a->uid)
		return 0;
	return trawl_domain_tracker_includes(&t[TRAWL_CTL_PROCESS_ATTR_VPID], a->vpid) &&
	       trawl_domain_tracker_includes(&t[TRAWL_CTL_PROCESS_ATTR_VUID], a->vuid) &&
	       trawl_domain_tracker_includes(&t[TRAWL_CTL_PROCESS_ATTR_VGID], a->vgid);
}

int per_pid(const struct trawl_domain_session *s)
{
	const struct ust_chan *c;

	for (c = s->chans; c; c = c->next)
		if (c->attr.buffers == TRAWL_CTL_BUFFERS_PER_PID)
			return 1;
	return 0;
}

/* ---- apps in sessions ---- */

uint32_t chan_handle(const struct trawl_domain_session *s, const struct ust_chan *c)
{
	return (uint32_t)(s->id << 8) | (c->index + 1);
}

struct app_sess *app_sess_of(struct trawl_domain_session *s, const struct ust_app *a)
{
	struct app_sess *as;

	for (as = s->apps; as; as = as->next)
		if (as->app == a)
			return as;
	return NULL;
}

static void filter_set_clear(struct filter_set *fs)
{
	free(fs->texts);
	fs->texts = NULL;
	fs->len = 0;
}

/* Adds @text to @fs unless there already. 0 or -ENOMEM. */
static int filter_set_add(struct filter_set *fs, const char *text)
{
	size_t off, n = strlen(text) + 1;
	char *t;

	for (off = 0; off < fs->len; off += strlen(fs->texts + off) + 1)
		if (!strcmp(fs->texts + off, text))
			return 0;
	t = realloc(fs->texts, fs->len + n);
	if (!t)
		return -ENOMEM;
	memcpy(t + fs->len, text, n);
	fs->texts = t;
	fs->len += n;
	return 0;
}

/*
 * Whether the rules of @c enable @ev, and with which filters (@fs, empty
 * when a matching rule has none: LTTng records an event when any of its
 * enabled rules matches it). 1 / 0, or -ENOMEM.
 */
static int rules_want(const struct ust_chan *c, const struct trawl_ustctl_event *ev,
		      struct filter_set *fs)
{
	const struct ust_rule *r;
	int want = 0, unfiltered = 0;

	fs->texts = NULL;
	fs->len = 0;
	for (r = c->rules; c->enabled && r; r = r->next) {
		if (!rule_matches(r, ev))
			continue;
		want = 1;
		if (!r->filter[0])
			unfiltered = 1;
		else if (!unfiltered && filter_set_add(fs, r->filter)) {
			filter_set_clear(fs);
			return -ENOMEM;
		}
	}
	if (unfiltered)
		filter_set_clear(fs);
	return want;
}

static int filter_set_same(const struct filter_set *a, const struct filter_set *b)
{
	return a->len == b->len && (!a->len || !memcmp(a->texts, b->texts, a->len));
}

/*
 * Gives @as's app the buffers of channel @c (@tc) unless it has them. Per-user
 * buffers: every app of the channel gets the channel's one context set, so
 * all write the fields the shared metadata declares. 1 if sent now, 0 if
 * the app had them, or -errno (the app is failed).
 */
static int app_send_channel(struct trawl_domain_session *s, struct app_sess *as,
			    const struct ust_chan *c, const struct trace_chan *tc)
{
	int ret;

	if (as->chan_sent[c->index])
		return 0;
	ret = trawl_ustctl_app_send_channel_opts(as->app->h, tc->rb, (uint32_t)s->id,
						 chan_handle(s, c), &c->ctx, c->attr.blocking_timeout_us);
	if (ret) {
		app_fail(as->app, ret);
		return ret;
	}
	as->chan_sent[c->index] = 1;
	return 1;
}

/* Some app_sess waits for a live channel or for its buffer files
 * (app_sync()): apps_chans_ready()
 * has work. Cleared there once none does. */
static int chans_waiting;

/*
 * Makes the app's enabled events match the session's rules, channel by
 * channel. The commands are queued, not waited for (apps_barrier() waits
 * when the caller must know they were applied).
 */
int app_sync(struct trawl_domain_session *s, struct app_sess *as,
	     struct trawl_domain_err *err)
{
	struct ust_app *a = as->app;
	int ret = 0, new_chan = 0;
	struct ust_chan *c;
	uint32_t e;

	if (a->dead)
		return -EPIPE;
	for (c = s->chans; c; c = c->next) {
		struct trace_chan *tc = NULL;

		if (c->index >= as->nr_chans)
			continue;
		for (e = 0; e < as->nr_events; e++) {
			const struct trawl_ustctl_event *ev = trawl_ustctl_app_event(a->h, e);
			size_t k = (size_t)c->index * as->nr_events + e;
			uint8_t *on = &as->on[k];
			struct filter_set fs;
			int want;
			uint32_t id;

			want = rules_want(c, ev, &fs);
			if (want < 0) {
				ret = want;
				goto out;
			}
			if (want == *on && (!want || filter_set_same(&fs, &as->filt[k]))) {
				filter_set_clear(&fs);
				continue;
			}
			if (!want) {
				if ((ret = trawl_ustctl_app_disable_event(a->h, chan_handle(s, c), e))) {
					app_fail(a, ret);
					filter_set_clear(&fs);
					goto out;
				}
				filter_set_clear(&as->filt[k]);
				*on = 0;
				continue;
			}
			if (!tc) {
				tc = trace_chan_get(s, as->trace, c, err);
				if (!tc && ust_shm_chan_making(as->trace, c)) {
					/* its buffer files are being made as the
					 * owner: the app gets the channel once
					 * they are (apps_chans_ready()) */
					as->shm_wait = 1;
					chans_waiting = 1;
					filter_set_clear(&fs);
					break;
				}
				if (!tc) {
					filter_set_clear(&fs);
					ret = -ENOMEM;
					goto out;
				}
				if (!cons_chan_ready(s, tc)) {
					/* a live session's: the app gets it, and its
					 * events, once the consumer has its streams on
					 * relayd (apps_chans_ready()) */
					as->chan_wait = 1;
					chans_waiting = 1;
					filter_set_clear(&fs);
					break;
				}
				/* Per-user buffers: every app of the channel gets
				 * the channel's one context set, so all write the
				 * fields the shared metadata declares. */
				ret = app_send_channel(s, as, c, tc);
				if (ret < 0) {
					filter_set_clear(&fs);
					goto out;
				}
				new_chan |= ret;
			}
			ret = class_id(as->trace, tc, ev, &id);
			if (ret) {
				sd_log("app %d: event %s: cannot describe it: %s", (int)a->info.pid,
				       ev->name, strerror(-ret));
				filter_set_clear(&fs);
				continue;
			}
			/* Queued: a failure comes back as the reply
			 * (app_enable_failed()). */
			ret = trawl_ustctl_app_enable_event_filter(a->h, chan_handle(s, c), e, id,
								   fs.texts, fs.len);
			if (ret) {
				app_fail(a, ret);
				filter_set_clear(&fs);
				goto out;
			}
			filter_set_clear(&as->filt[k]);
			as->filt[k] = fs;
			*on = 1;
		}
	}
	/* START turns on the session's channels the app has: one it got
	 * after the session started for it (its first event in that channel
	 * came later: a rule, or a provider the app added) needs it again. */
	ret = 0;
	if (new_chan && as->started) {
		ret = trawl_ustctl_app_start(a->h, (uint32_t)s->id);
		if (ret)
			app_fail(a, ret);
	}
out:
	/* Whatever failed, the metadata describes every channel and event
	 * the consumer or the app was given: a trace must always be readable
	 * (babeltrace2 refuses a whole trace for one stream it cannot decode). */
	{
		int mret = metadata_push(s, as->trace);

		return ret ? ret : mret;
	}
}

int app_setup(struct trawl_domain_session *s, struct ust_app *a,
	      struct trawl_domain_err *err)
{
	struct app_sess *as = app_sess_of(s, a);
	int ret;

	if (a->dead)
		return -EPIPE;
	if (!as) {
		as = calloc(1, sizeof(*as));
		if (!as)
			return -ENOMEM;
		as->app = a;
		as->nr_events = trawl_ustctl_app_event_count(a->h);
		as->nr_chans = s->nr_chans;
		as->on = calloc((size_t)as->nr_events * as->nr_chans + 1, 1);
		as->filt = calloc((size_t)as->nr_events * as->nr_chans + 1, sizeof(*as->filt));
		as->chan_sent = calloc((size_t)as->nr_chans + 1, 1);
		as->trace = trace_get(s, a, err);
		if (!as->on || !as->filt || !as->chan_sent || !as->trace) {
			free(as->chan_sent);
			free(as->filt);
			free(as->on);
			free(as);
			return -ENOMEM;
		}
		as->next = s->apps;
		s->apps = as;
	}
	ret = app_sync(s, as, err);
	if (!ret && s->active && !as->started) {
		ret = trawl_ustctl_app_start(a->h, (uint32_t)s->id);
		if (ret)
			app_fail(a, ret);
		else
			as->started = 1;
	}
	return ret;
}

int apps_chans_wait(const struct trawl_domain_session *s)
{
	const struct app_sess *as;

	/* (any: the flag, which apps_chans_ready() clears once nobody waits) */
	if (!chans_waiting || !s)
		return chans_waiting;
	for (as = s->apps; as; as = as->next)
		if (as->chan_wait && !as->app->dead)
			return 1;
	return 0;
}

/* 1 while a session's set-up of @a waits for a live channel. */
static int app_chans_wait(const struct ust_app *a)
{
	const struct trawl_domain_session *s;
	const struct app_sess *as;

	for (s = sessions; s; s = s->next)
		for (as = s->apps; as; as = as->next)
			if (as->app == a && (as->chan_wait || as->shm_wait))
				return 1;
	return 0;
}

void app_registration_done(struct ust_app *a)
{
	int ret;

	if (a->dead)
		return;
	/* Its start-up waits for this: its first events go to the live
	 * channels it waits for, once it has them. */
	a->done_held = chans_waiting && app_chans_wait(a);
	if (a->done_held)
		return;
	ret = trawl_ustctl_app_registration_done_flags(a->h, TRAWL_USTCTL_DONE_TAKES_ADDED);
	if (ret)
		app_fail(a, ret);
}

void apps_chans_ready(void)
{
	struct trawl_domain_session *s;
	struct app_sess *as;
	struct ust_app *a;
	int left = 0;

	for (s = sessions; s; s = s->next) {
		for (as = s->apps; as; as = as->next) {
			struct trawl_domain_err err = {""};
			int ret;

			if (!(as->chan_wait || as->shm_wait) || as->app->dead)
				continue;
			if (as->shm_wait && !as->chan_wait && ust_shm_trace_making(as->trace)) {
				left = 1; /* (files still being made: not yet) */
				continue;
			}
			as->chan_wait = 0;
			as->shm_wait = 0;
			ret = app_sync(s, as, &err);
			if (ret && !as->app->dead)
				sd_log_peer(as->app->uid, TRAWL_LOG_WARN,
					    "session %s: setting up app %d: %s", s->name,
					    (int)as->app->info.pid, err.msg[0] ? err.msg : strerror(-ret));
			left |= as->chan_wait | as->shm_wait;
		}
	}
	for (a = apps; a; a = a->next)
		if (a->done_held && !a->dead)
			app_registration_done(a);
	chans_waiting = left;
	apps_kick();
}

void app_sess_free(struct trawl_domain_session *s, struct ust_app *a)
{
	struct app_sess **pp, *as;

	for (pp = &s->apps; *pp; pp = &(*pp)->next) {
		if ((*pp)->app == a) {
			size_t k;

			as = *pp;
			*pp = as->next;
			for (k = 0; k < (size_t)as->nr_events * as->nr_chans; k++)
				filter_set_clear(&as->filt[k]);
			free(as->chan_sent);
			free(as->filt);
			free(as->on);
			free(as);
			return;
		}
	}
}

/* Makes room in @as for @n events of its app (rows [chan][event] move). */
static int app_sess_grow(struct app_sess *as, uint32_t n)
{
	struct filter_set *filt;
	uint8_t *on;
	uint32_t c;

	if (n <= as->nr_events)
		return 0;
	on = calloc((size_t)n * as->nr_chans + 1, 1);
	filt = calloc((size_t)n * as->nr_chans + 1, sizeof(*filt));
	if (!on || !filt) {
		free(filt);
		free(on);
		return -ENOMEM;
	}
	for (c = 0; c < as->nr_chans; c++) {
		memcpy(on + (size_t)c * n, as->on + (size_t)c * as->nr_events, as->nr_events);
		memcpy(filt + (size_t)c * n, as->filt + (size_t)c * as->nr_events,
		       as->nr_events * sizeof(*filt));
	}
	free(as->filt);
	free(as->on);
	as->on = on;
	as->filt = filt;
	as->nr_events = n;
	return 0;
}

/*
 * The app added events (a provider it loaded: EVENTS_ADDED, wire.h): every
 * session that has it set up learns them, active ones enable what their
 * rules want now (app_setup(): also sets it up for an active session that
 * had nothing for it), and the app's waiting constructor is released.
 */
void app_events_added(struct ust_app *a)
{
	uint32_t first, nr = trawl_ustctl_app_take_added(a->h, &first);
	uint32_t all = trawl_ustctl_app_event_count(a->h);
	struct trawl_domain_session *s;
	int ret;

	if (!nr)
		return;
	sd_log_peer(a->uid, TRAWL_LOG_INFO, "app %d: %u events added (%u in all)", (int)a->info.pid,
		    nr, all);
	for (s = sessions; s && !a->dead; s = s->next) {
		struct trawl_domain_err err = {""};
		struct app_sess *as = app_sess_of(s, a);

		if (as && (ret = app_sess_grow(as, all))) {
			sd_log("session %s: app %d: %s", s->name, (int)a->info.pid, strerror(-ret));
			continue;
		}
		if (s->active && sess_traces_app(s, a) && (ret = app_setup(s, a, &err)))
			sd_log_peer(a->uid, TRAWL_LOG_WARN, "session %s: setting up app %d: %s",
				    s->name, (int)a->info.pid, err.msg[0] ? err.msg : strerror(-ret));
	}
	ust_notify_app_sync(a);
	/* Releases the provider's constructor, waiting in the app. */
	app_registration_done(a);
}

/*
 * The app counted events instead of recording them (its setup came too
 * late) and says so at its exit (TALLY, wire.h): each count goes to the
 * discarded events of the channels that would have recorded the event -
 * every active session that traces the app, each enabled channel whose
 * rules take it - in the trace the app would have written (its uid's, or
 * its own per-process one, made now if it has none: the count must be in
 * the trace). The app's word is taken for the counts (bounded, wire.h: it
 * could as well have written them in buffers it was given); it can only
 * charge what would trace it, never another user's trace.
 */
void app_tally(struct ust_app *a, const struct trawl_ustctl_tally_entry *e, uint32_t nr,
	       uint64_t overflow)
{
	struct trawl_domain_session *s;
	uint64_t all = overflow;
	uint32_t i, kinds = 0;

	for (i = 0; i < nr; i++) {
		all = e[i].count > UINT64_MAX - all ? UINT64_MAX : all + e[i].count;
		kinds += e[i].count != 0;
	}
	sd_log_peer(a->uid, TRAWL_LOG_INFO, "app %d (%s, uid %d): %llu events counted before its "
		    "setup (%u kinds, %llu of kinds past its tally's table)", (int)a->info.pid,
		    a->info.procname, (int)a->uid, (unsigned long long)all, kinds,
		    (unsigned long long)overflow);
	for (s = sessions; s; s = s->next) {
		struct ust_trace *t = NULL;
		struct ust_chan *c;

		if (!s->active || !sess_traces_app(s, a))
			continue;
		for (c = s->chans; c; c = c->next) {
			struct trawl_domain_err err = {""};
			struct trace_chan *tc;
			uint64_t n = 0;
			int ret;

			/* Kinds not said (past the memfd's table, wire.h): to
			 * every channel that records anything, over, never under. */
			if (overflow && c->enabled && c->rules)
				n = overflow;
			for (i = 0; i < nr; i++) {
				struct trawl_ustctl_event ev;
				struct filter_set fs;
				int want;

				if (!e[i].count)
					continue;
				memset(&ev, 0, sizeof(ev));
				memcpy(ev.name, e[i].name, sizeof(ev.name));
				ev.loglevel = e[i].loglevel;
				want = rules_want(c, &ev, &fs);
				filter_set_clear(&fs);
				/* Filters are not asked: counted whatever they
				 * would have said (slots.c: over, never under). */
				if (want > 0)
					n = e[i].count > UINT64_MAX - n ? UINT64_MAX : n + e[i].count;
			}
			if (!n)
				continue;
			if (!t)
				t = trace_get(s, a, &err);
			tc = t ? trace_chan_get(s, t, c, &err) : NULL;
			ret = tc ? trawl_ustctl_channel_add_discarded(tc->rb, n) : -ENOMEM;
			if (!tc && t && ust_shm_chan_making(t, c))
				trawl_domain_err_set(&err, "its buffer files are being made as the owner");
			if (ret)
				sd_log_peer(a->uid, TRAWL_LOG_WARN, "session %s: app %d: %llu events it "
					    "counted not charged to channel %s: %s", s->name,
					    (int)a->info.pid, (unsigned long long)n, c->attr.name,
					    err.msg[0] ? err.msg : strerror(-ret));
		}
		if (t)
			metadata_push(s, t);
	}
}

void app_enable_failed(struct ust_app *a, uint32_t chan_handle, uint32_t event_index, int err)
{
	struct trawl_domain_session *s;
	uint32_t index = (chan_handle & 0xff) - 1;
	struct app_sess *as;
	size_t k;

	/* -ENOENT: the event's provider was unloaded (dlclose): normal. */
	if (err == -ENOENT)
		sd_debug("app %d: event %u is gone", (int)a->info.pid, event_index);
	else
		sd_log_peer(a->uid, TRAWL_LOG_WARN, "app %d: enabling event %u: %s",
			    (int)a->info.pid, event_index, strerror(-err));
	for (s = sessions; s && s->id != chan_handle >> 8; s = s->next)
		;
	as = s ? app_sess_of(s, a) : NULL;
	if (!as || index >= as->nr_chans || event_index >= as->nr_events)
		return;
	/* Not on in the app: the next sync tries again. */
	k = (size_t)index * as->nr_events + event_index;
	as->on[k] = 0;
	filter_set_clear(&as->filt[k]);
}
