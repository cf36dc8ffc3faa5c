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

static int rule_matches(const struct ust_rule *r, const struct trawl_ustctl_event *ev)
{
	if (!glob_match(r->name, ev->name))
		return 0;
	switch (r->lt) {
	case TRAWL_CTL_LOGLEVEL_RANGE:
		return ev->loglevel <= r->loglevel;
	case TRAWL_CTL_LOGLEVEL_SINGLE:
		return ev->loglevel == r->loglevel;
	default:
		return 1;
	}
}

int sess_traces_app(const struct trawl_domain_session *s, const struct ust_app *a)
{
	return s->uid == 0 || s->uid == a->uid;
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

static struct app_sess *app_sess_find(struct trawl_domain_session *s, struct ust_app *a)
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

/* Makes the app's enabled events match the session's rules, channel by channel. */
int app_sync(struct trawl_domain_session *s, struct app_sess *as,
	     struct trawl_domain_err *err)
{
	struct ust_app *a = as->app;
	int ret = 0, new_chan = 0;
	struct ust_chan *c;
	uint32_t e;

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
			if (want < 0)
				return want;
			if (want == *on && (!want || filter_set_same(&fs, &as->filt[k]))) {
				filter_set_clear(&fs);
				continue;
			}
			if (!want) {
				trawl_ustctl_app_disable_event(a->h, chan_handle(s, c), e);
				filter_set_clear(&as->filt[k]);
				*on = 0;
				continue;
			}
			if (!tc) {
				tc = trace_chan_get(s, as->trace, c, err);
				if (!tc)
					return -ENOMEM;
				/* Per-user buffers: every app of the channel gets
				 * the channel's one context set, so all write the
				 * fields the shared metadata declares. */
				ret = trawl_ustctl_app_send_channel_ctxs(a->h, tc->rb, (uint32_t)s->id,
									 chan_handle(s, c), &c->ctx);
				if (ret && ret != -EEXIST) {
					sd_log("app %d: send channel: %s", (int)a->info.pid,
					       strerror(-ret));
					filter_set_clear(&fs);
					return ret;
				}
				new_chan |= !ret;
			}
			ret = class_id(as->trace, tc, ev, &id);
			if (ret) {
				sd_log("app %d: event %s: cannot describe it: %s", (int)a->info.pid,
				       ev->name, strerror(-ret));
				filter_set_clear(&fs);
				continue;
			}
			ret = trawl_ustctl_app_enable_event_filter(a->h, chan_handle(s, c), e, id,
								   fs.texts, fs.len);
			if (ret) {
				sd_log("app %d: enable %s: %s", (int)a->info.pid, ev->name,
				       strerror(-ret));
				filter_set_clear(&fs);
				continue;
			}
			filter_set_clear(&as->filt[k]);
			as->filt[k] = fs;
			*on = 1;
		}
	}
	/* START turns on the session's channels the app has: one it got
	 * after the session started for it (its first event in that channel
	 * came later: a rule, or a provider the app added) needs it again. */
	if (new_chan && as->started) {
		ret = trawl_ustctl_app_start(a->h, (uint32_t)s->id);
		if (ret)
			sd_log("app %d: start: %s", (int)a->info.pid, strerror(-ret));
	}
	return metadata_push(s, as->trace);
}

int app_setup(struct trawl_domain_session *s, struct ust_app *a,
	      struct trawl_domain_err *err)
{
	struct app_sess *as = app_sess_find(s, a);
	int ret;

	if (!as) {
		as = calloc(1, sizeof(*as));
		if (!as)
			return -ENOMEM;
		as->app = a;
		as->nr_events = trawl_ustctl_app_event_count(a->h);
		as->nr_chans = s->nr_chans;
		as->on = calloc((size_t)as->nr_events * as->nr_chans + 1, 1);
		as->filt = calloc((size_t)as->nr_events * as->nr_chans + 1, sizeof(*as->filt));
		as->trace = trace_get(s, a, err);
		if (!as->on || !as->filt || !as->trace) {
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
		if (!ret)
			as->started = 1;
	}
	return ret;
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
			free(as->filt);
			free(as->on);
			free(as);
			return;
		}
	}
}

void app_gone(struct ust_app *a)
{
	struct trawl_domain_session *s;
	struct ust_app **pp;

	sd_log("app %d (%s) unregistered", (int)a->info.pid, a->info.procname);
	for (s = sessions; s; s = s->next)
		app_sess_free(s, a);
	for (pp = &apps; *pp; pp = &(*pp)->next) {
		if (*pp == a) {
			*pp = a->next;
			break;
		}
	}
	sd_watch_del(trawl_ustctl_app_fd(a->h));
	trawl_ustctl_app_destroy(a->h);
	free(a);
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
static void app_events_added(struct ust_app *a)
{
	uint32_t first, nr = trawl_ustctl_app_take_added(a->h, &first);
	uint32_t all = trawl_ustctl_app_event_count(a->h);
	struct trawl_domain_session *s;
	int ret;

	if (!nr)
		return;
	sd_log("app %d: %u events added (%u in all)", (int)a->info.pid, nr, all);
	for (s = sessions; s; s = s->next) {
		struct trawl_domain_err err = {""};
		struct app_sess *as = app_sess_find(s, a);

		if (as && (ret = app_sess_grow(as, all))) {
			sd_log("session %s: app %d: %s", s->name, (int)a->info.pid, strerror(-ret));
			continue;
		}
		if (s->active && sess_traces_app(s, a) && (ret = app_setup(s, a, &err)))
			sd_log("session %s: setting up app %d: %s", s->name, (int)a->info.pid,
			       err.msg[0] ? err.msg : strerror(-ret));
	}
	trawl_ustctl_app_registration_done_flags(a->h, TRAWL_USTCTL_DONE_TAKES_ADDED);
}

static void app_readable(int fd, short revents, void *arg)
{
	struct ust_app *a = arg;
	int ret;

	/* Apps speak unasked only to add events; anything else (or EOF)
	 * means it left. */
	ret = trawl_ustctl_app_recv_added(a->h);
	if (ret) {
		if (ret != -ECONNRESET)
			sd_log("app %d: %s: dropping it", (int)a->info.pid, strerror(-ret));
		app_gone(a);
		return;
	}
	app_events_added(a);
}

/* Additions read while a command waited for its reply (ustctl.h) are
 * announced here, one eventfd for every app. */
static int added_efd = -1;

static void added_notified(int fd, short revents, void *arg)
{
	struct ust_app *a;
	uint64_t v;

	if (read(fd, &v, sizeof(v)) < 0) {
		/* Spurious: nothing to do. */
	}
	for (a = apps; a; a = a->next)
		app_events_added(a);
}

/*
 * A new connection is read only once its first bytes are there, so an app
 * (or anyone: root's apps.sock is world-connectable) that connects and says
 * nothing never blocks the daemon; one that stops mid-registration blocks
 * it at most TRAWL_USTCTL_TIMEOUT_MS.
 */
static void app_registration_ready(int cfd, short revents, void *arg);

/* The process's name as the kernel knows it (its main thread's), rather than
 * what the app claims (which may be the name of the thread registering). */
static void proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64], name[TRAWL_USTCTL_PROCNAME_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, name, sizeof(name) - 1);
	close(fd);
	if (n <= 0)
		return;
	name[n] = '\0';
	name[strcspn(name, "\n/")] = '\0';
	if (name[0] && len) {
		size_t k = strnlen(name, len - 1);

		memcpy(buf, name, k);
		buf[k] = '\0';
	}
}

void apps_accept(int fd, short revents, void *arg)
{
	int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

	if (cfd < 0)
		return;
	if (sd_watch_add(cfd, app_registration_ready, NULL))
		close(cfd);
}

static void app_registration_ready(int cfd, short revents, void *arg)
{
	struct trawl_domain_session *s;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct ust_app *a;
	time_t now = time(NULL);
	struct tm tm;
	int ret;

	sd_watch_del(cfd);
	if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		close(cfd);
		return;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		close(cfd);
		return;
	}
	ret = trawl_ustctl_app_accept(cfd, &a->h);
	if (ret) {
		sd_log("rejected an app registration from pid %d: %s", (int)cred.pid,
		       strerror(-ret));
		close(cfd);
		free(a);
		return;
	}
	a->info = *trawl_ustctl_app_info(a->h);
	proc_comm(cred.pid, a->info.procname, sizeof(a->info.procname));
	a->uid = cred.uid;
	localtime_r(&now, &tm);
	strftime(a->stamp, sizeof(a->stamp), "%Y%m%d-%H%M%S", &tm);
	a->next = apps;
	apps = a;
	if (added_efd < 0) {
		added_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (added_efd >= 0 && sd_watch_add(added_efd, added_notified, NULL)) {
			close(added_efd);
			added_efd = -1;
		}
	}
	trawl_ustctl_app_set_notify_fd(a->h, added_efd);
	sd_watch_add(trawl_ustctl_app_fd(a->h), app_readable, a);
	sd_log("app %d (%s, uid %d) registered with %u events", (int)a->info.pid,
	       a->info.procname, (int)a->uid, trawl_ustctl_app_event_count(a->h));
	for (s = sessions; s; s = s->next) {
		struct trawl_domain_err err = {""};

		if (s->active && sess_traces_app(s, a) && (ret = app_setup(s, a, &err)))
			sd_log("session %s: setting up app %d: %s", s->name, (int)a->info.pid,
			       err.msg[0] ? err.msg : strerror(-ret));
	}
	/* The app's start-up waits for this (its early events); an app older
	 * than the message answers -EINVAL, and a gone app is seen by poll.
	 * Its later providers come on this connection (EVENTS_ADDED). */
	trawl_ustctl_app_registration_done_flags(a->h, TRAWL_USTCTL_DONE_TAKES_ADDED);
}
