/* SPDX-License-Identifier: MIT */
/*
 * domain-ust.c - the user-space domain: traced apps, their buffers, the
 * event-id registry and metadata, and the user-space consumer.
 *
 * The domain is these files (their shared objects and functions are in
 * ust-internal.h):
 *
 *   domain-ust.c    the ops table and the session-level operations
 *   ust-consumer.c  the consumers, and pipelined commands to them
 *   ust-registry.c  traces, per-channel event ids and metadata (ctf.h)
 *   ust-app.c       matching, app setup for a session and app_sync()
 *   ust-conn.c      apps' connections to apps.sock: caps, reading without
 *                   waiting, deadlines, registration, dropping
 *   ust-chunk.c     clear, rotate and snapshot record of a session's files
 *   ust-status.c    status, channel counters, and the apps' events (list)

 *
 * Objects (all owned by the domain, all touched by the daemon's one thread):
 *
 *   ust_app        a registered app (libtrawl-ust), from apps.sock
 *   session        a session's user-space part: channels and their rules
 *   ust_trace      one CTF trace of a session: ust/uid/<uid>/<bits>-bit (per-user
 *                  buffers, shared by every app of that user) or
 *                  ust/pid/<procname>-<pid>-<date>-<time> (per-process)
 *   trace_chan     a session channel's ring buffers in one trace, and its
 *                  registry: event name -> id, the same for every app that
 *                  shares the buffers; each new id adds an event class to
 *                  the trace's metadata, which goes to the consumer at once
 *   app_sess       an app set up for a session: which events are on where
 *
 * An app is set up for a session when both exist and the session has been
 * started (LTTng's order); from then on every rule change is synced to it
 * (app_sync()). Commands to apps are queued and sent as their sockets take
 * them; a command that must know them applied (start, stop, a rule change)
 * waits for every app of the session at once, against each app's deadline
 * (apps_barrier()), while the loop goes on serving others (loop.c): an app
 * that does not answer in time is dropped, and the session counts it.
 * Which apps a session traces: those of its owner, or every app when root
 * owns the session (root's daemon sees every user's apps).
 *
 * The consumer (trawl-consumerd --ust) is one per owner, shared by the
 * owner's sessions, started with the first channel of the first of them and
 * running as the owner; it stays (idle: no streams, no polling) for the
 * owner's next sessions until the daemon exits. A
 * consumer that died is not replaced for the sessions it served (their
 * status says so) but new sessions get a new one. Commands to it are
 * pipelined and never waited for in the loop: they are queued and written
 * as its socket takes them, the replies read when they arrive, and a
 * command that needs one (stop, destroy, clear, rotate, snapshot record,
 * regenerate, status) answers its client once it is in (ust-consumer.c),
 * so setting up an app costs no consumer round trip and a consumer that
 * stops reading holds its own sessions' commands only. A live session's
 * new channel reaches the apps once the consumer says its streams are on
 * relayd: the apps wait for that (their registration answered then), a
 * command waits for it as for the apps (apps_barrier()), the loop not.
 */
#include "common/common.h"
#include "sessiond/ust-internal.h"

#include "filter/filter.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct ust_app *apps;
struct trawl_domain_session *sessions;
int apps_listen_fd = -1;
static char apps_sock_path[4200];
const char *consumerd_path;

/* ---- the ops ---- */

static int ust_init(const struct trawl_domain_env *env, struct trawl_domain_err *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	consumerd_path = env->consumerd;
	if ((size_t)snprintf(apps_sock_path, sizeof(apps_sock_path), "%s/apps.sock",
			     env->runtime_dir) >= sizeof(sa.sun_path)) {
		trawl_domain_err_set(err, "runtime folder path too long for a socket");
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, apps_sock_path);
	/* Non-blocking: apps_accept() takes connections until there are none. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(apps_sock_path);
	/* Root's apps.sock takes every user's apps (root sessions trace them all). */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(apps_sock_path, env->root_daemon ? 0666 : 0600) || listen(fd, 128)) {
		int ret = -errno;

		trawl_domain_err_set(err, "cannot listen on %s: %s", apps_sock_path, strerror(errno));
		close(fd);
		return ret;
	}
	apps_listen_fd = fd;
	sd_loop_on_top(apps_on_top);
	if (sd_watch_add(fd, apps_accept, NULL))
		return -ENOMEM;
	sd_watch_nested(fd, 1);
	return 0;
}

static void ust_fini(void)
{
	apps_close_all();
	while (consumers)
		cons_free(consumers);
	if (apps_listen_fd >= 0) {
		sd_watch_del(apps_listen_fd);
		close(apps_listen_fd);
		unlink(apps_sock_path);
	}
}

static int ust_session_create(const struct trawl_domain_session_info *info,
			      struct trawl_domain_session **out, struct trawl_domain_err *err)
{
	struct trawl_domain_session *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	if (trawl_path_fmt(s->name, sizeof(s->name), "%s", info->name) ||
	    trawl_path_fmt(s->output, sizeof(s->output), "%s", info->output)) {
		free(s);
		return -ENAMETOOLONG;
	}
	s->id = info->id;
	s->uid = info->uid;
	s->gid = info->gid;
	s->snapshot = info->snapshot;
	s->created = info->created;
	s->shm_path = info->shm_path;
	s->trackers = info->trackers;
	/* LTTng makes a local trace's ust/ folder when the session's first
	 * chunk begins (its first start), whether or not anything is recorded
	 * (its tracker tests find it empty); a snapshot session has no chunk. */
	s->ust_dir_due = s->output[0] == '/' && !s->snapshot;
	s->job.fd = -1;
	s->next = sessions;
	sessions = s;
	*out = s;
	return 0;
}

static int ust_stop(struct trawl_domain_session *s, struct trawl_domain_err *err);

static void ust_session_destroy(struct trawl_domain_session *s)
{
	struct trawl_domain_session **pp;
	struct app_sess *as;

	sd_owner_cancel(&s->job); /* (killed: the daemon exits, or the session goes) */
	s->job_kind = UST_JOB_NONE;
	if (s->active)
		ust_stop(s, NULL);
	for (as = s->apps; as; as = as->next) {
		struct ust_chan *c;
		int ret;

		for (c = s->chans; c && !as->app->dead; c = c->next)
			if (c->index < as->nr_chans && as->chan_sent[c->index] &&
			    (ret = trawl_ustctl_app_release_channel(as->app->h, chan_handle(s, c))))
				app_fail(as->app, ret);
	}
	apps_kick(); /* the replies come later; their deadlines run */
	while (s->apps)
		app_sess_free(s, s->apps->app);
	if (apps_chans_wait(NULL))
		apps_chans_kick(); /* an app held for one of its live channels goes on */
	cons_put(s);
	while (s->traces) {
		struct ust_trace *t = s->traces;

		s->traces = t->next;
		trace_free(t);
	}
	while (s->chans) {
		struct ust_chan *c = s->chans;

		s->chans = c->next;
		while (c->rules) {
			struct ust_rule *r = c->rules;

			c->rules = r->next;
			free(r);
		}
		free(c);
	}
	for (pp = &sessions; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	free(s);
}

static struct ust_chan *chan_find(struct trawl_domain_session *s, const char *name)
{
	struct ust_chan *c;

	for (c = s->chans; c; c = c->next)
		if (!strcmp(c->attr.name, name))
			return c;
	return NULL;
}

static int ust_channel_create(struct trawl_domain_session *s,
			      const struct trawl_domain_channel_attr *attr,
			      struct trawl_domain_err *err)
{
	struct ust_chan *c, **tail;

	if (s->started_once) {
		trawl_domain_err_set(err, "channels are fixed once the session has started");
		return -EBUSY;
	}
	if (s->chans && !!per_pid(s) != (attr->buffers == TRAWL_CTL_BUFFERS_PER_PID)) {
		trawl_domain_err_set(err, "every user-space channel of a session uses the same "
					  "buffering scheme (--buffers-uid or --buffers-pid)");
		return -EINVAL;
	}
	if (s->nr_chans >= 255) {
		trawl_domain_err_set(err, "at most 255 user-space channels per session");
		return -ENOSPC;
	}
	/* Start the consumer now, so that its exec runs while the user is still
	 * enabling events, not during `start` next to the apps being set up. */
	if (!s->cons)
		cons_get(s, err);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->attr = *attr;
	c->index = s->nr_chans++;
	c->enabled = 1;
	for (tail = &s->chans; *tail; tail = &(*tail)->next)
		;
	*tail = c;
	return 0;
}

/* Syncs every app set up in @s (after a rule or channel change), and waits
 * until they applied it. An app that failed is not the command's failure:
 * it is dropped (and the session counts it). */
static int sync_all(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	struct app_sess *as;
	int ret, first = 0;

	for (as = s->apps; as; as = as->next) {
		ret = app_sync(s, as, err);
		if (ret && !first && !as->app->dead)
			first = ret;
	}
	apps_barrier(s);
	apps_kick();
	return first;
}

static int ust_channel_enable(struct trawl_domain_session *s, const char *channel, int enable,
			      struct trawl_domain_err *err)
{
	struct ust_chan *c = chan_find(s, channel);

	if (!c)
		return -ENOENT;
	c->enabled = enable;
	return sync_all(s, err);
}

static int ust_event_enable(struct trawl_domain_session *s, const char *channel,
			    const struct trawl_domain_event_rule *rule, struct trawl_domain_err *err)
{
	struct ust_chan *c = chan_find(s, channel);
	struct ust_rule *r;

	if (!c)
		return -ENOENT;
	if (rule->kind != TRAWL_CTL_EVENT_TRACEPOINT) {
		trawl_domain_err_set(err, "user space has tracepoints only");
		return -EINVAL;
	}
	if (rule->filter) {
		struct trawl_filter_error ferr;
		struct trawl_filter *f;
		int ret;

		if (strlen(rule->filter) >= sizeof(r->filter)) {
			trawl_domain_err_set(err, "filter: longer than %u bytes", TRAWL_FILTER_MAX_LEN);
			return -EINVAL;
		}
		/* Checked here, with the column of a mistake; each app parses
		 * it again when the rule reaches it. */
		ret = trawl_filter_parse(rule->filter, &f, &ferr);
		if (ret) {
			trawl_domain_err_set(err, "%s", ret == -EINVAL ? ferr.msg : strerror(-ret));
			return ret;
		}
		trawl_filter_destroy(f);
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	if (trawl_path_fmt(r->name, sizeof(r->name), "%s", rule->name) ||
	    trawl_path_fmt(r->filter, sizeof(r->filter), "%s", rule->filter ? rule->filter : "") ||
	    trawl_path_fmt(r->exclusions, sizeof(r->exclusions), "%s",
			   rule->exclusions ? rule->exclusions : "")) {
		free(r);
		return -ENAMETOOLONG;
	}
	r->lt = rule->loglevel_type;
	r->loglevel = rule->loglevel;
	r->next = c->rules;
	c->rules = r;
	return sync_all(s, err);
}

static int ust_event_disable(struct trawl_domain_session *s, const char *channel,
			     const struct trawl_domain_event_rule *rule, struct trawl_domain_err *err)
{
	struct ust_chan *c = chan_find(s, channel);
	struct ust_rule **pp;

	if (!c)
		return -ENOENT;
	for (pp = &c->rules; *pp; pp = &(*pp)->next) {
		struct ust_rule *r = *pp;

		if (!strcmp(r->name, rule->name) && r->lt == rule->loglevel_type &&
		    !strcmp(r->filter, rule->filter ? rule->filter : "") &&
		    !strcmp(r->exclusions, rule->exclusions ? rule->exclusions : "") &&
		    (r->lt == TRAWL_CTL_LOGLEVEL_ALL || r->loglevel == rule->loglevel)) {
			*pp = r->next;
			free(r);
			return sync_all(s, err);
		}
	}
	return -ENOENT;
}

static int ust_context_add(struct trawl_domain_session *s, const char *channel,
			   const struct trawl_domain_context *ctx, struct trawl_domain_err *err)
{
	struct ust_chan *c = chan_find(s, channel);

	if (!c)
		return -ENOENT;
	/* The metadata's stream class is written with the first app set up,
	 * which is at start at the earliest: the set is fixed from then on. */
	if (s->started_once) {
		trawl_domain_err_set(err, "contexts are fixed once the session has started");
		return -EBUSY;
	}
	/* The names, and the perf counters this machine and user can count:
	 * ust-context.c. */
	return ust_context_parse(ctx, s->uid, s->gid, &c->ctx, err);
}

/*
 * Folder work as the session's owner, in a child (as-owner.c) whose result
 * the loop reads: the owner's folder may be on a file system that holds it
 * (their FUSE file system, a stopped NFS server), and the daemon must not
 * wait with it. Begins removing (@remove) or making the chunk's ust/
 * folder: -EINPROGRESS (ust_async_done() goes on with @kind's next step
 * once it is over), or its result when it ran in place.
 */
int ust_job_begin(struct trawl_domain_session *s, int kind, int remove)
{
	int ret;

	if (trawl_path_fmt(s->job_dir, sizeof(s->job_dir), "%s/ust", s->output))
		return -ENAMETOOLONG;
	/* Past the owner's cap of children (as-owner.c) this waits rather than
	 * fail: a clear or rotation would be left half done (the consumers'
	 * files gone, no ust/ folder made). s->job_dir stays until it is over. */
	s->job.queue = 1;
	ret = remove ? sd_remove_folder_begin(&s->job, s->uid, s->gid, s->job_dir)
		     : sd_mkdir_folder_begin(&s->job, s->uid, s->gid, s->job_dir);
	if (ret == -EINPROGRESS)
		s->job_kind = kind;
	return ret;
}

static int ust_start(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	struct ust_app *a;
	int ret;

	s->active = 1;
	s->started_once = 1;
	ust_shm_retry(s);
	if (cons_alive(s))
		cons_send(s, TRAWL_CONS_START, 0, 0, NULL, 0, NULL, 0);
	for (a = apps; a; a = a->next) {
		if (!sess_traces_app(s, a))
			continue;
		ret = app_setup(s, a, err);
		if (ret)
			sd_log_peer(a->uid, TRAWL_LOG_WARN, "session %s: setting up app %d: %s",
				    s->name, (int)a->info.pid, err->msg[0] ? err->msg : strerror(-ret));
		err->msg[0] = '\0'; /* an app's problem is not the start's */
	}
	/* Started in every app when start returns (LTTng's promise). */
	apps_barrier(s);
	apps_kick();
	return 0;
}

/* 1 while an app of @s waits for buffer files being made (--shm-path). */
static int shm_waiting(const struct trawl_domain_session *s)
{
	const struct app_sess *as;

	if (ust_shm_making(s))
		return 1;
	for (as = s->apps; as; as = as->next)
		if (as->shm_wait && !as->app->dead)
			return 1;
	return 0;
}

static void ust_stop_apps(struct trawl_domain_session *s);

/* The start's buffer files are made (or not: its line, and the apps it
 * started are stopped again: nothing is left half-started). */
static int ust_start_files_made(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	int ret = s->shm_err_ret;

	if (!ret)
		return 0;
	trawl_domain_err_set(err, "%s", s->shm_err);
	ust_stop_apps(s);
	return ret;
}

/*
 * start: the apps set up, and, with --shm-path, the buffer files they need
 * made as the owner: the start waits for those jobs (-EINPROGRESS, then
 * ust_async_done()), the loop serving everyone else, and fails in one line
 * if they could not be made (ust-shm.c).
 */
static int ust_start_then_files(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	int ret = ust_start(s, err);

	if (ret)
		return ret;
	if (shm_waiting(s)) {
		s->job_kind = UST_JOB_START_SHM;
		return -EINPROGRESS;
	}
	return ust_start_files_made(s, err);
}

/* The start's ust/ folder is there (@ret: made, or not): the start goes on. */
static int ust_start_dir_made(struct trawl_domain_session *s, int ret,
			      struct trawl_domain_err *err)
{
	if (ret) {
		trawl_domain_err_set(err, "cannot create %s: %s", s->job_dir,
				     sd_owner_strerror(ret));
		return ret;
	}
	s->ust_dir_due = 0;
	return ust_start_then_files(s, err);
}

/* start, after a clear: the chunk's (empty) ust/ folder first, made as the
 * owner without holding the loop (-EINPROGRESS, then ust_async_done()). */
static int ust_start_async(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	int ret;

	if (!s->ust_dir_due)
		return ust_start_then_files(s, err);
	ret = ust_job_begin(s, UST_JOB_START_DIR, 0);
	return ret == -EINPROGRESS ? ret : ust_start_dir_made(s, ret, err);
}

/*
 * The trackers changed: in an active session, apps now excluded stop
 * recording for it (their set-up stays, for a later track), apps now
 * included are set up and started; both are applied when this returns. An
 * inactive session applies them at its next start.
 */
static int ust_trackers_changed(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	struct ust_app *a;
	int ret;

	if (!s->active)
		return 0;
	for (a = apps; a; a = a->next) {
		struct app_sess *as = app_sess_of(s, a);

		if (a->dead)
			continue;
		if (sess_traces_app(s, a)) {
			if (as && as->started)
				continue;
			ret = app_setup(s, a, err);
			if (ret)
				sd_log_peer(a->uid, TRAWL_LOG_WARN, "session %s: setting up app %d: %s",
					    s->name, (int)a->info.pid,
					    err->msg[0] ? err->msg : strerror(-ret));
			err->msg[0] = '\0'; /* an app's problem is not the command's */
		} else if (as && as->started) {
			ret = trawl_ustctl_app_stop(a->h, (uint32_t)s->id);
			if (ret)
				app_fail(a, ret);
			as->started = 0;
		}
	}
	apps_barrier(s);
	apps_kick();
	return 0;
}

/*
 * The owner's consumer drains a stopped session (a stop or destroy that
 * answers later): a command that waits for it would hold the daemon's loop
 * as long, for everyone.
 */
static int ust_consumer_busy(struct trawl_domain_err *err)
{
	trawl_domain_err_set(err, "the user-space consumer is still writing a session being "
				  "stopped or destroyed: try again once that has returned");
	return -EBUSY;
}

/*
 * Every trace's metadata goes to the consumer again whole (it replaces the
 * file: consumer-proto.h's METADATA); returns once the consumer wrote it.
 * Per-process buffers are refused as LTTng refuses them.
 */
static int ust_regenerate_metadata(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	struct ust_trace *t;
	int ret;

	if (per_pid(s)) {
		trawl_domain_err_set(err, "per-process buffers (--buffers-pid) are not supported, "
					  "as in LTTng");
		return -EOPNOTSUPP;
	}
	if (!cons_alive(s))
		return 0; /* no app traced yet: no metadata written yet */
	if (cons_busy(s))
		return ust_consumer_busy(err);
	for (t = s->traces; t; t = t->next) {
		if (t->gone)
			continue;
		t->metadata_dirty = 1;
		ret = metadata_push(s, t);
		if (ret)
			return ret;
	}
	return cons_sync(s);
}

static int ust_regenerate_statedump(struct trawl_domain_session *s, struct trawl_domain_err *err);

/*
 * The same without waiting for the consumer (domain.h): the metadata goes
 * out, then a STATUS whose reply, awaited by the loop, says the consumer
 * wrote it (it answers in order), with the first error of the METADATA
 * replies (ust_async_done()). A state dump is the apps' work, not the
 * consumer's: done here, as ever.
 */
static int ust_regenerate_async(struct trawl_domain_session *s, int statedump,
				struct trawl_domain_err *err)
{
	struct ust_trace *t;
	uint64_t from;
	int ret;

	if (statedump)
		return ust_regenerate_statedump(s, err);
	if (per_pid(s)) {
		trawl_domain_err_set(err, "per-process buffers (--buffers-pid) are not supported, "
					  "as in LTTng");
		return -EOPNOTSUPP;
	}
	if (!cons_alive(s))
		return 0;
	if (cons_busy(s))
		return ust_consumer_busy(err);
	from = s->cons->sent;
	for (t = s->traces; t; t = t->next) {
		if (t->gone)
			continue;
		t->metadata_dirty = 1;
		ret = metadata_push(s, t);
		if (ret)
			return ret;
	}
	return cons_async_after(s, TRAWL_CONS_STATUS, from);
}

/* Stops every app of @s (or drops it) before the final flush: what one
 * commits after would be in no packet. */
static void ust_stop_apps(struct trawl_domain_session *s)
{
	struct app_sess *as;
	int ret;

	/* What programs that exited said of the events they counted (TALLY)
	 * is charged to the session before it stops (ust-conn.c). */
	apps_drain();
	/* And what dropped programs counted after their drop, until now. */
	apps_tally_settle();
	for (as = s->apps; as; as = as->next) {
		if (!as->started || as->app->dead)
			continue;
		ret = trawl_ustctl_app_stop(as->app->h, (uint32_t)s->id);
		if (ret)
			app_fail(as->app, ret);
		as->started = 0;
	}
	apps_barrier(s);
	apps_kick();
	s->active = 0;
}

/* The stop's result from the flush's: @ret, @msg the consumer's line. */
static int ust_stop_result(struct trawl_domain_session *s, int ret, const char *msg,
			   struct trawl_domain_err *err)
{
	/* a full disk, a lost relayd: the consumer's line says what and how much */
	if (ret && err && cons_alive(s) && msg[0])
		trawl_domain_err_set(err, "%s", msg);
	else if (ret && err)
		trawl_domain_err_set(err, "the consumer could not write everything: %s",
				     cons_alive(s) ? strerror(-ret) : s->cons->msg);
	return cons_alive(s) ? ret : 0;
}

static int ust_stop(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	int ret;

	ust_stop_apps(s);
	if (!cons_alive(s))
		return 0; /* nothing recorded, or the consumer died (status says so) */
	ret = cons_send(s, TRAWL_CONS_FLUSH, 0, 0, NULL, 0, NULL, 0);
	if (!ret)
		ret = cons_sync(s);
	return ust_stop_result(s, ret, cons_alive(s) ? s->cons->last.msg : "", err);
}

/* The same, the flush's reply read by the loop when it comes (domain.h). */
static int ust_stop_async(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	int ret;

	ust_stop_apps(s);
	if (!cons_alive(s))
		return 0;
	ret = cons_async(s, TRAWL_CONS_FLUSH);
	if (ret == -EINPROGRESS)
		return ret;
	return ust_stop_result(s, ret, "", err);
}

/* Destroy: the consumer drains and forgets the session (cons_put() then skips it). */
static int ust_release_async(struct trawl_domain_session *s)
{
	if (!cons_alive(s))
		return 0;
	s->released = cons_async(s, TRAWL_CONS_REMOVE_SESSION) == -EINPROGRESS;
	return s->released ? -EINPROGRESS : 0;
}

static int ust_async_done(struct trawl_domain_session *s, int *ret, struct trawl_domain_err *err)
{
	struct trawl_cons_reply r;
	uint16_t cmd = s->wait_cmd;
	int kind = s->job_kind, jret;

	if (kind == UST_JOB_START_SHM) {
		/* a start's buffer files (ust_start_then_files()) */
		if (shm_waiting(s))
			return 0;
		s->job_kind = UST_JOB_NONE;
		*ret = ust_start_files_made(s, err);
		return 1;
	}
	if (kind != UST_JOB_NONE) {
		/* folder work as the owner (ust_job_begin()): then the next step */
		if (!sd_owner_done(&s->job, &jret))
			return 0;
		s->job_kind = UST_JOB_NONE;
		if (kind == UST_JOB_START_DIR)
			*ret = ust_start_dir_made(s, jret, err);
		else if (kind == UST_JOB_CLEAR_RM)
			*ret = ust_clear_removed(s, jret, err);
		else
			*ret = ust_clear_dir_made(s, jret, err);
		return *ret != -EINPROGRESS;
	}
	if (!cons_async_done(s, &r, ret))
		return 0;
	if (cmd == TRAWL_CONS_STATUS) {
		/* a regenerate: its METADATA's first error, else the STATUS's */
		if (s->wait_first_err)
			*ret = s->wait_first_err;
		if (cons_alive(s))
			cons_counters_take(s, &r);
		return 1;
	}
	/* a consumer gone for good did not do it */
	if (!*ret && !cons_alive(s) && cmd != TRAWL_CONS_FLUSH && cmd != TRAWL_CONS_REMOVE_SESSION)
		*ret = -EPIPE;
	r.msg[sizeof(r.msg) - 1] = '\0';
	switch (cmd) {
	case TRAWL_CONS_CLEAR:
		if (*ret) {
			ust_clear_failed(s, *ret, r.msg, err);
			return 1;
		}
		*ret = ust_clear_files(s, err);
		return *ret != -EINPROGRESS; /* START's answer awaited now */
	case TRAWL_CONS_START: /* (a clear's second half) */
		if (*ret)
			ust_clear_failed(s, *ret, r.msg, err);
		else if (s->job_ret) {
			/* recording goes on, but the new chunk has no ust/ folder of ours */
			*ret = s->job_ret;
			trawl_domain_err_set(err, "cannot create %s: %s (recording goes on)",
					     s->job_dir, sd_owner_strerror(*ret));
		}
		s->job_ret = 0;
		return 1;
	case TRAWL_CONS_ROTATE:
		if (!*ret && s->wait_died[0]) {
			/*
			 * The consumer died before it answered: the one started
			 * in its place answered a STATUS (cons_async_done()),
			 * its traces in the new chunk, but what the dead one had
			 * not written of the chunk that ended may be missing
			 * from it (or be in the new one): the new one's line
			 * counts what it knows lost (a streamed trace's packets
			 * relayd did not confirm). The rotation once said it
			 * succeeded.
			 */
			*ret = -EPIPE;
			trawl_domain_err_set(err, "the consumer could not rotate the session: %s during "
					     "the rotation; the one started again went on in the new "
					     "chunk, and what the dead one had not written of the "
					     "chunk that ended may be missing from it%s%s",
					     s->wait_died, r.msg[0] ? ": " : "", r.msg);
		} else if (*ret) {
			trawl_domain_err_set(err, "the consumer could not rotate the session: %s",
					     r.msg[0] ? r.msg
					     : cons_alive(s) ? strerror(-*ret) : s->cons->msg);
		}
		return 1;
	case TRAWL_CONS_SNAPSHOT:
		if (*ret)
			trawl_domain_err_set(err, "%s", r.msg[0] ? r.msg
						  : cons_alive(s) ? strerror(-*ret) : s->cons->msg);
		return 1;
	case TRAWL_CONS_FLUSH:
		break;
	default:
		*ret = 0;
		return 1;
	}
	/* a failed flush's reply has the counters too (a stop that lost packets) */
	if (cons_alive(s))
		cons_counters_take(s, &r);
	r.msg[sizeof(r.msg) - 1] = '\0';
	if (cons_alive(s)) {
		memcpy(s->status_msg, r.msg, sizeof(s->status_msg));
		s->status_fresh = 1;
	}
	*ret = ust_stop_result(s, *ret, r.msg, err);
	return 1;
}

/* `regenerate statedump`: each app this session records records its
 * lttng_ust_statedump:* events again into the session's channels. An app
 * that fails is dropped, as for start and stop. */
static int ust_regenerate_statedump(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	struct app_sess *as;
	int ret;

	(void)err;
	if (!s->active)
		return 0;
	for (as = s->apps; as; as = as->next) {
		if (!as->started || as->app->dead)
			continue;
		ret = trawl_ustctl_app_regenerate_statedump(as->app->h, (uint32_t)s->id);
		if (ret)
			app_fail(as->app, ret);
	}
	apps_barrier(s);
	apps_kick();
	return 0;
}

const struct trawl_domain_ops trawl_domain_ust_ops = {
	.clear = ust_clear,
	.rotate = ust_rotate,
	.rotate_ready = ust_rotate_ready,
	.type = TRAWL_CTL_DOMAIN_UST,
	.name = "ust",
	.process_attrs = 1u << TRAWL_CTL_PROCESS_ATTR_VPID | 1u << TRAWL_CTL_PROCESS_ATTR_VUID |
			 1u << TRAWL_CTL_PROCESS_ATTR_VGID,
	.trackers_changed = ust_trackers_changed,
	.regenerate_metadata = ust_regenerate_metadata,
	.init = ust_init,
	.fini = ust_fini,
	.session_create = ust_session_create,
	.session_destroy = ust_session_destroy,
	.channel_create = ust_channel_create,
	.channel_enable = ust_channel_enable,
	.event_enable = ust_event_enable,
	.event_disable = ust_event_disable,
	.context_add = ust_context_add,
	.start = ust_start,
	.start_async = ust_start_async,
	.stop = ust_stop,
	.stop_async = ust_stop_async,
	.release_async = ust_release_async,
	.async_done = ust_async_done,
	.regenerate_statedump = ust_regenerate_statedump,
	.regenerate_async = ust_regenerate_async,
	.status_ask = ust_status_ask,
	.status_pending = ust_status_pending,
	.channel_counters = ust_channel_counters,
	.channel_memory = ust_channel_memory,
	.channel_usage = ust_channel_usage,
	.snapshot_record = ust_snapshot,
	.snapshot_one_more = ust_snapshot_one_more,
	.list_events = ust_list_events,
	.status = ust_status,
};
