/* SPDX-License-Identifier: MIT */
/*
 * cmd-session.c - session commands: create, destroy, start, stop, snapshot,
 * and the lists of sessions.
 *
 * Visibility: a client sees the sessions whose owner is its uid; root sees
 * every session. In the root daemon that is what keeps users apart; in a
 * user's daemon only that user (and root) can connect at all.
 */
#include "common/common.h"
#include "common/fs.h"
#include "common/ids.h"
#include "ctf/ctf.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Bounds what one user can make a shared (root) daemon hold. */
#define SD_MAX_SESSIONS_PER_USER 1024

static int visible(const struct sd_session *s, const struct sd_peer *p)
{
	return p->uid == 0 || s->uid == p->uid;
}

static struct sd_session *find(const char *name, const struct sd_peer *p)
{
	struct sd_session *s, *any = NULL;

	for (s = sd.sessions; s; s = s->next) {
		if (strcmp(s->name, name) || !visible(s, p))
			continue;
		if (s->uid == p->uid)
			return s;
		any = s;
	}
	return any;
}

static int busy(const struct sd_session *s, struct sd_reply *r);

struct sd_session *sd_session_lookup(const char *name, const struct sd_peer *p, struct sd_reply *r)
{
	struct sd_session *s;

	if (!name[0]) {
		sd_fail(r, -EINVAL, "no session given and no current session");
		return NULL;
	}
	s = find(name, p);
	if (!s)
		sd_fail(r, -ENOENT, "no session named '%s'", name);
	else if (busy(s, r))
		return NULL;
	return s;
}

/*
 * mkdir -p @arg (mode 0770 & ~umask) as common/fs.h walks paths, then
 * checks the caller may write there.
 */
static int mkdir_p(void *arg)
{
	int fd = trawl_fs_dir_open(AT_FDCWD, arg, TRAWL_FS_CREATE, 0770, NULL, 0), ret;

	if (fd < 0)
		return fd;
	ret = faccessat(fd, ".", W_OK | X_OK, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * Creates the trace folder as its owner would: in the root daemon, a child
 * with the owner's ids (common/ids.h) does the mkdir, so nothing is created
 * where the user could not create it, every folder is theirs, and no link
 * is followed that the user could not follow.
 */
int sd_mkdir_checked_as(const char *path, uid_t uid, gid_t gid)
{
	struct trawl_ids ids;

	trawl_ids_lookup(uid, gid, &ids);
	return trawl_ids_run(&ids, mkdir_p, (void *)path);
}

void sd_clock_offset_refresh(void)
{
	char v[32];

	snprintf(v, sizeof(v), "%lld", (long long)trawl_ctf_clock_offset_measure());
	setenv("TRAWL_CLOCK_OFFSET_NS", v, 1); /* the daemon is single-threaded */
}

void sd_cmd_create(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		   struct sd_reply *r)
{
	struct sd_session *s, **tail;
	int ret, i, nr = 0, active = 0, streaming;

	if (!req->name[0])
		return (void)sd_fail(r, -EINVAL, "a session needs a name");
	if (find(req->name, p) && find(req->name, p)->uid == p->uid)
		return (void)sd_fail(r, -EEXIST, "a session named '%s' already exists",
				     req->name);
	for (s = sd.sessions; s; s = s->next) {
		nr += s->uid == p->uid;
		active |= s->active;
	}
	/*
	 * One clock offset for every trace this daemon writes (see
	 * trawl_ctf_clock_offset()); measured again only while nothing traces,
	 * so wall-clock drift (NTP) never splits the domains of a session.
	 */
	if (!active)
		sd_clock_offset_refresh();
	if (nr >= SD_MAX_SESSIONS_PER_USER)
		return (void)sd_fail(r, -ENOSPC, "too many sessions (at most %d per user)",
				     SD_MAX_SESSIONS_PER_USER);
	if (!req->output[0] && !(req->flags & TRAWL_CTL_F_NO_OUTPUT))
		return (void)sd_fail(r, -EINVAL, "no output folder given");
	/* the path goes into logs, listings and the kernel consumer's one-line errors */
	for (i = 0; req->output[i]; i++)
		if ((unsigned char)req->output[i] < 0x20 || req->output[i] == 0x7f)
			return (void)sd_fail(r, -EINVAL, "output path holds a control character "
					     "(byte 0x%02x at offset %d)",
					     (unsigned char)req->output[i], i);
	streaming = sd_relay_is_url(req->output);
	if ((req->flags & TRAWL_CTL_F_LIVE) && !streaming)
		return (void)sd_fail(r, -EINVAL, "a live session streams to trawl-relayd: its URL "
						 "must be net://HOST (not '%s')", req->output);
	if ((req->flags & TRAWL_CTL_F_SNAPSHOT) && streaming)
		return (void)sd_fail(r, -EOPNOTSUPP, "snapshot sessions cannot stream to "
						     "trawl-relayd (yet): give them a local output");
	if (req->output[0] && !streaming) {
		ret = sd_mkdir_checked_as(req->output, p->uid, p->gid);
		if (ret)
			return (void)sd_fail(r, ret, "cannot create trace folder %s: %s",
					     req->output, trawl_fs_strerror(ret));
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return (void)sd_fail(r, -ENOMEM, "out of memory");
	s->id = sd.next_id++;
	snprintf(s->name, sizeof(s->name), "%s", req->name);
	snprintf(s->output, sizeof(s->output), "%s", req->output);
	s->uid = p->uid;
	s->gid = p->gid;
	s->snapshot = !!(req->flags & TRAWL_CTL_F_SNAPSHOT);
	if (s->snapshot && s->output[0])
		sd_snapshot_default_output(s); /* as LTTng: snapshot-1, the session's folder */
	s->live = !!(req->flags & TRAWL_CTL_F_LIVE);
	s->relay_fd = -1;
	if (streaming &&
	    sd_relay_setup(s, req->output, s->live ? (req->live_timer_us ? req->live_timer_us
									: 1000000u)
						   : 0,
			   r)) {
		free(s);
		return;
	}
	for (tail = &sd.sessions; *tail; tail = &(*tail)->next)
		;
	*tail = s;
	sd_session_rec(r, s);
	sd_log("session %s created by uid %d, output %s", s->name, (int)s->uid,
	       s->output[0] ? s->output : "(none)");
}

/* The first failure of a stop goes in @r (may be NULL); returns @ret. */
static int stop_failed(struct sd_session *s, int i, int ret, const struct trawl_domain_err *err,
		       struct sd_reply *r)
{
	if (ret && r && !r->status)
		sd_fail(r, ret, "stopping %s tracing of session '%s' failed: %s",
			sd_domain_name((uint32_t)i), s->name, err->msg[0] ? err->msg : strerror(-ret));
	return ret;
}

/* Stops every domain of @s; the first failure is reported in @r (may be NULL). */
static int session_stop(struct sd_session *s, struct sd_reply *r)
{
	int i, first = 0;

	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];
		struct trawl_domain_err err = {""};
		int ret;

		if (!d->ops || !d->ds)
			continue;
		ret = stop_failed(s, i, d->ops->stop(d->ds, &err), &err, r);
		if (ret && !first)
			first = ret;
	}
	s->active = 0;
	return first;
}

void sd_session_destroy(struct sd_session *s)
{
	struct sd_session **pp;
	int i;

	if (s->active)
		session_stop(s, NULL);
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];

		if (d->ops && d->ds)
			d->ops->session_destroy(d->ds);
		while (d->channels) {
			struct sd_channel *c = d->channels;

			d->channels = c->next;
			sd_channel_free(c);
		}
		sd_trackers_fini(d);
	}
	sd_session_archive_last(s);
	sd_relay_end(s);
	for (pp = &sd.sessions; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	sd_log("session %s destroyed", s->name);
	free(s);
}

/*
 * Stops and destroys that wait for consumers.
 *
 * A consumer drains a session at its stop, and at its destroy (the kernel
 * consumer exits, the user-space one forgets it). Streaming, that can take
 * as long as the consumer's bounds (a round and a command: 13 s) when the
 * session's relayd, which its owner chooses, reads slowly. The daemon does
 * not wait in its loop for that: the stop or destroy becomes an sd_op, its
 * client answered once every consumer has answered (sd_reply.later), and
 * the loop goes on serving everyone else meanwhile. The sessions of an op
 * are busy: every other command on them is refused (-EBUSY) but listing
 * them, which shows them without asking their consumers.
 *
 * Each session goes through the phases: its domains' stops (if it was
 * active), then (destroy) their releases, each possibly waiting for a
 * domain's async_done(); then it is stopped, or freed. The op answers once
 * all its sessions are through.
 */
enum { OP_STOPPING, OP_RELEASING };

struct sd_op {
	struct sd_op *next;
	struct sd_later later; /* its client */
	struct sd_reply r;     /* the answer, built as the domains answer */
	int destroy, report;   /* destroy too; failures go in r (not destroy -a's) */
	size_t nr;
	struct sd_session **ss; /* owned array; NULL once a session is freed */
};

static struct sd_op *ops;

/* Begins the domains' stops (@release 0) or releases of @s. */
static void op_begin(struct sd_op *op, struct sd_session *s, int release)
{
	int i;

	s->op_phase = release ? OP_RELEASING : OP_STOPPING;
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];
		struct trawl_domain_err err = {""};
		int ret;

		s->op_wait[i] = 0;
		if (!d->ops || !d->ds)
			continue;
		if (release) {
			if (d->ops->release_async && d->ops->release_async(d->ds) == -EINPROGRESS)
				s->op_wait[i] = 1;
			continue;
		}
		ret = d->ops->stop_async ? d->ops->stop_async(d->ds, &err) : d->ops->stop(d->ds, &err);
		if (ret == -EINPROGRESS)
			s->op_wait[i] = 1;
		else
			stop_failed(s, i, ret, &err, op->report ? &op->r : NULL);
	}
}

/* Moves session @k of @op on as far as its domains allow; 1 once it is through. */
static int op_step(struct sd_op *op, size_t k)
{
	struct sd_session *s = op->ss[k];
	int i;

	for (;;) {
		for (i = 1; i < SD_NR_DOMAINS; i++) {
			struct sd_domain *d = &s->dom[i];
			struct trawl_domain_err err = {""};
			int ret;

			if (!s->op_wait[i])
				continue;
			if (!d->ops->async_done(d->ds, &ret, &err))
				return 0;
			s->op_wait[i] = 0;
			if (s->op_phase == OP_STOPPING)
				stop_failed(s, i, ret, &err, op->report ? &op->r : NULL);
		}
		if (s->op_phase == OP_STOPPING) {
			s->active = 0;
			if (op->destroy) {
				op_begin(op, s, 1);
				continue;
			}
			s->op = NULL;
		} else {
			/* released: session_destroy waits for nothing now */
			s->op = NULL;
			sd_session_destroy(s);
		}
		op->ss[k] = NULL;
		return 1;
	}
}

/* Moves every session of @op on; 1 once all are through. */
static int op_settle(struct sd_op *op)
{
	size_t k, left = 0;

	for (k = 0; k < op->nr; k++)
		if (op->ss[k])
			left += !op_step(op, k);
	return !left;
}

static void op_free(struct sd_op *op)
{
	free(op->r.recs);
	free(op->ss);
	free(op);
}

static void ops_on_top(void)
{
	struct sd_op **pp = &ops;

	while (*pp) {
		struct sd_op *op = *pp;

		if (!op_settle(op)) {
			pp = &op->next;
			continue;
		}
		*pp = op->next;
		sd_later_answer(&op->later, &op->r);
		op_free(op);
	}
}

/*
 * Stops (@destroy: and destroys) the @nr sessions @ss for the client of
 * @r (@report: a stop's failure is the command's): answered now if no
 * consumer must be waited for, else later (r->later).
 */
static void op_run(struct sd_session **ss, size_t nr, int destroy, int report, struct sd_reply *r)
{
	static int registered;
	struct sd_op *op = calloc(1, sizeof(*op));
	size_t k;

	if (!op || !(op->ss = calloc(nr ? nr : 1, sizeof(*op->ss)))) {
		free(op);
		sd_fail(r, -ENOMEM, "out of memory");
		return;
	}
	if (!registered) {
		sd_loop_on_top(ops_on_top);
		registered = 1;
	}
	op->destroy = destroy;
	op->report = report;
	op->nr = nr;
	for (k = 0; k < nr; k++) {
		op->ss[k] = ss[k];
		ss[k]->op = op;
		op_begin(op, ss[k], !ss[k]->active);
	}
	if (op_settle(op)) {
		/* nothing to wait for: answered now, with what the domains said */
		r->status = op->r.status;
		memcpy(r->head.err, op->r.head.err, sizeof(r->head.err));
		op_free(op);
		return;
	}
	r->later = &op->later;
	op->next = ops;
	ops = op;
}

void sd_ops_finish(void)
{
	while (ops) {
		struct sd_op *op = ops;
		size_t k;

		ops = op->next;
		for (k = 0; k < op->nr; k++) {
			struct sd_session *s = op->ss[k];

			if (!s)
				continue;
			/* the domains wait in session_destroy (the daemon exits) */
			memset(s->op_wait, 0, sizeof(s->op_wait));
			s->op = NULL;
			s->active = 0;
		}
		free(op->r.recs);
		free(op->ss);
		free(op);
	}
}

/* The session is busy with a stop or destroy: other commands are refused. */
static int busy(const struct sd_session *s, struct sd_reply *r)
{
	if (!s->op)
		return 0;
	sd_fail(r, -EBUSY, "session '%s' is busy: a stop or destroy of it is waiting for its "
			   "consumer (try again once that has returned)", s->name);
	return 1;
}

void sd_cmd_destroy(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		    struct sd_reply *r)
{
	struct sd_session *s, **ss;
	size_t nr = 0;

	if (req->flags & TRAWL_CTL_F_ALL) {
		for (s = sd.sessions; s; s = s->next)
			if (s->uid == p->uid && busy(s, r))
				return;
		for (s = sd.sessions; s; s = s->next)
			nr += s->uid == p->uid;
		if (!nr)
			return;
		ss = calloc(nr, sizeof(*ss));
		if (!ss)
			return (void)sd_fail(r, -ENOMEM, "out of memory");
		nr = 0;
		for (s = sd.sessions; s; s = s->next)
			if (s->uid == p->uid)
				ss[nr++] = s;
		op_run(ss, nr, 1, 0, r);
		free(ss);
		return;
	}
	s = sd_session_lookup(req->session, p, r);
	if (!s)
		return;
	/* A stop that lost data (a full disk, relayd gone) fails the destroy too, which goes on. */
	op_run(&s, 1, 1, 1, r);
}

void sd_cmd_start(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		  struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	int i, ret;

	if (!s)
		return;
	if (s->active)
		return (void)sd_fail(r, -EBUSY, "session '%s' is already started", s->name);
	if (sd_relay_check(s, r))
		return;
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];
		struct trawl_domain_err err = {""};

		if (!d->ops || !d->ds)
			continue;
		ret = d->ops->start(d->ds, &err);
		if (ret) {
			int k;

			sd_fail(r, ret, "starting %s tracing of session '%s' failed: %s",
				sd_domain_name((uint32_t)i), s->name,
				err.msg[0] ? err.msg : strerror(-ret));
			/* Leave nothing half-started. */
			for (k = 1; k < i; k++)
				if (s->dom[k].ops && s->dom[k].ds)
					s->dom[k].ops->stop(s->dom[k].ds, NULL);
			return;
		}
	}
	sd_session_started(s);
	s->active = 1;
	s->started_once = 1;
}

void sd_cmd_stop(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		 struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);

	if (!s)
		return;
	if (!s->active)
		return (void)sd_fail(r, -EBUSY, "session '%s' is not started", s->name);
	op_run(&s, 1, 0, 1, r);
}

int sd_session_regenerate_statedump(struct sd_session *s, char *err, size_t errlen)
{
	int i, ret;

	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];
		struct trawl_domain_err e = {""};

		if (!d->ops || !d->ds || !d->ops->regenerate_statedump)
			continue;
		ret = d->ops->regenerate_statedump(d->ds, &e);
		if (ret) {
			trawl_msg_fmt(err, errlen, "cannot regenerate the %s state dump: %s",
				      sd_domain_name((uint32_t)i),
				      e.msg[0] ? e.msg : strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Each domain of @s rewrites its metadata files; LTTng's rules first. */
static void regenerate_metadata(struct sd_session *s, struct sd_reply *r)
{
	int i, ret;

	if (s->live)
		return (void)sd_fail(r, -EOPNOTSUPP, "cannot regenerate the metadata of a live "
						     "session ('%s'), as LTTng", s->name);
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];
		struct trawl_domain_err e = {""};

		if (!d->ops || !d->ds)
			continue;
		ret = d->ops->regenerate_metadata ? d->ops->regenerate_metadata(d->ds, &e)
						  : -EOPNOTSUPP;
		if (ret)
			return (void)sd_fail(r, ret, "cannot regenerate the %s metadata: %s",
					     sd_domain_name((uint32_t)i),
					     e.msg[0] ? e.msg : strerror(-ret));
	}
}

void sd_cmd_regenerate(uint16_t cmd, const struct trawl_ctl_wire_req *req,
		       const struct sd_peer *p, struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	char err[TRAWL_CTL_ERROR_MAX];
	int ret;

	if (!s)
		return;
	if (!s->active)
		return (void)sd_fail(r, -EBUSY, "session '%s' is not started", s->name);
	if (cmd == TRAWL_CTL_CMD_REGENERATE_METADATA)
		return regenerate_metadata(s, r);
	ret = sd_session_regenerate_statedump(s, err, sizeof(err));
	if (ret)
		sd_fail(r, ret, "%s", err);
}

void sd_session_rec(struct sd_reply *r, const struct sd_session *s)
{
	struct trawl_ctl_wire_session body = {
		.active = (uint32_t)s->active,
		.snapshot = (uint32_t)s->snapshot,
		.live_timer_us = s->live_timer_us,
		.uid = (uint32_t)s->uid,
	};
	const char *strs[] = {s->name, s->output};

	sd_reply_rec(r, TRAWL_CTL_ITEM_SESSION, &body, strs);
}

void sd_cmd_list_sessions(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			  struct sd_reply *r)
{
	struct sd_session *s;

	for (s = sd.sessions; s; s = s->next)
		if (visible(s, p))
			sd_session_rec(r, s);
}

static void list_channel(struct sd_reply *r, uint32_t domain, const struct sd_channel *c)
{
	struct trawl_ctl_wire_channel body = {
		.domain = domain,
		.enabled = (uint32_t)c->enabled,
		.subbuf_size = c->attr.subbuf_size,
		.num_subbuf = c->attr.num_subbuf,
		.overwrite = c->attr.overwrite,
		.switch_timer_us = c->attr.switch_timer_us,
		.read_timer_us = c->attr.read_timer_us,
		.buffers = (uint32_t)c->attr.buffers,
	};
	const char *strs[TRAWL_CTL_REC_MAX_STRINGS] = {c->attr.name};
	const struct sd_context *x;
	const struct sd_event *e;

	sd_reply_rec(r, TRAWL_CTL_ITEM_CHANNEL, &body, strs);
	for (x = c->contexts; x; x = x->next) {
		struct trawl_ctl_wire_context cb = {.domain = domain};

		strs[0] = c->attr.name;
		strs[1] = x->name;
		sd_reply_rec(r, TRAWL_CTL_ITEM_CONTEXT, &cb, strs);
	}
	for (e = c->events; e; e = e->next) {
		struct trawl_ctl_wire_event eb = {
			.domain = domain,
			.enabled = (uint32_t)e->enabled,
			.kind = (uint32_t)e->kind,
			.loglevel_type = (uint32_t)e->loglevel_type,
			.loglevel = e->loglevel,
		};

		strs[0] = c->attr.name;
		strs[1] = e->name;
		strs[2] = e->filter;
		strs[3] = e->target;
		sd_reply_rec(r, TRAWL_CTL_ITEM_EVENT, &eb, strs);
	}
}

void sd_cmd_list_session(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			 struct sd_reply *r)
{
	struct sd_session *s;
	int i;

	if (!req->session[0])
		return (void)sd_fail(r, -EINVAL, "no session given and no current session");
	s = find(req->session, p);
	if (!s)
		return (void)sd_fail(r, -ENOENT, "no session named '%s'", req->session);
	sd_session_rec(r, s);
	sd_rotation_recs(r, s);
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];
		struct trawl_domain_status st = {.consumer_alive = 1};
		struct trawl_ctl_wire_domain body = {.domain = (uint32_t)i};
		const char *strs[1] = {st.msg};
		const struct sd_channel *c;

		if (!d->ops)
			continue;
		/* (a domain's status never waits behind a stop's drain: domain.h) */
		if (d->ds && d->ops->status)
			d->ops->status(d->ds, &st);
		if (s->op) {
			char msg[sizeof(st.msg)];

			trawl_msg_fmt(msg, sizeof(msg), "%s", st.msg);
			trawl_msg_fmt(st.msg, sizeof(st.msg),
				      "a stop or destroy of the session is waiting for its consumer%s%.*s",
				      msg[0] ? "; " : "", (int)sizeof(msg) - 80, msg);
		}
		/* relayd lost: what the consumers could not say (nothing to send, kernel) */
		if (!st.msg[0])
			sd_relay_problem(s, st.msg, sizeof(st.msg));
		body.consumer_alive = !!st.consumer_alive;
		body.events_discarded = st.events_discarded;
		body.bytes_written = st.bytes_written;
		sd_reply_rec(r, TRAWL_CTL_ITEM_DOMAIN, &body, strs);
		sd_trackers_rec(r, (uint32_t)i, d);
		for (c = d->channels; c; c = c->next)
			list_channel(r, (uint32_t)i, c);
	}
}
