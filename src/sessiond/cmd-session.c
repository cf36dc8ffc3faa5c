/* SPDX-License-Identifier: MIT */
/*
 * cmd-session.c - session commands: create, destroy, start, stop and
 * regenerate, and a session's lookup, teardown and free. The commands that
 * wait for consumers or relayd run as ops (session-op.c); the lists of
 * sessions are cmd-list.c's.
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

int sd_session_visible(const struct sd_session *s, const struct sd_peer *p)
{
	return p->uid == 0 || s->uid == p->uid;
}

struct sd_session *sd_session_find(const char *name, const struct sd_peer *p)
{
	struct sd_session *s, *any = NULL;

	for (s = sd.sessions; s; s = s->next) {
		if (strcmp(s->name, name) || !sd_session_visible(s, p))
			continue;
		if (s->uid == p->uid)
			return s;
		any = s;
	}
	return any;
}

struct sd_session *sd_session_lookup(const char *name, const struct sd_peer *p, struct sd_reply *r)
{
	struct sd_session *s;

	if (!name[0]) {
		sd_fail(r, -EINVAL, "no session given and no current session");
		return NULL;
	}
	s = sd_session_find(name, p);
	if (!s)
		sd_fail(r, -ENOENT, "no session named '%s'", name);
	else if (sd_op_busy(s, r))
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

int sd_mkdir_checked_begin(struct sd_owner_job *j, const char *path, uid_t uid, gid_t gid)
{
	return sd_owner_begin(j, uid, gid, mkdir_p, (void *)path);
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
	if (sd_session_find(req->name, p) && sd_session_find(req->name, p)->uid == p->uid)
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
	s = calloc(1, sizeof(*s));
	if (!s)
		return (void)sd_fail(r, -ENOMEM, "out of memory");
	s->id = sd.next_id++;
	s->last_job.fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", req->name);
	snprintf(s->output, sizeof(s->output), "%s", req->output);
	s->uid = p->uid;
	s->gid = p->gid;
	s->snapshot = !!(req->flags & TRAWL_CTL_F_SNAPSHOT);
	s->created = (int64_t)time(NULL); /* (relayd names its folders by it) */
	s->live = !!(req->flags & TRAWL_CTL_F_LIVE);
	s->relay_fd = -1;
	/* a snapshot session with a URL streams nothing: its snapshots go to relayd */
	if (s->snapshot && streaming) {
		ret = sd_snapshot_relay_output(s->output, sizeof(s->output), req->output, r);
		if (ret) {
			free(s);
			return;
		}
		streaming = 0;
	}
	if (s->snapshot && s->output[0])
		sd_snapshot_default_output(s); /* as LTTng: snapshot-1, the session's folder */
	ret = streaming ? sd_relay_setup(s, req->output,
					 s->live ? (req->live_timer_us ? req->live_timer_us : 1000000u)
						 : 0,
					 r)
			: 0;
	if (ret && ret != -EINPROGRESS) {
		free(s);
		return;
	}
	for (tail = &sd.sessions; *tail; tail = &(*tail)->next)
		;
	*tail = s;
	/* relayd's answer awaited in the loop: the session busy until then */
	if (ret == -EINPROGRESS)
		return sd_op_connect(s, OPK_CREATE, r);
	/* the folder made by a child as the owner, awaited in the loop: the same */
	if (s->output[0] && !streaming && !sd_relay_is_url(s->output))
		return sd_op_folder(s, r);
	sd_session_rec(r, s);
	sd_log("session %s created by uid %d, output %s", s->name, (int)s->uid,
	       s->output[0] ? s->output : "(none)");
}

/* The first failure of a stop goes in @r (may be NULL); returns @ret. */
int sd_session_stop_failed(struct sd_session *s, int i, int ret, const struct trawl_domain_err *err,
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
		ret = sd_session_stop_failed(s, i, d->ops->stop(d->ds, &err), &err, r);
		if (ret && !first)
			first = ret;
	}
	s->active = 0;
	return first;
}

/* Stops (if active) @s and destroys its domains: it has none left. */
void sd_session_teardown(struct sd_session *s)
{
	int i;

	if (s->active)
		session_stop(s, NULL);
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];

		if (d->ops && d->ds)
			d->ops->session_destroy(d->ds);
		d->ds = NULL;
		while (d->channels) {
			struct sd_channel *c = d->channels;

			d->channels = c->next;
			sd_channel_free(c);
		}
		sd_trackers_fini(d);
	}
	sd_agent_free(s);
}

/* Unlinks and frees @s, torn down (and its last chunk archived, or not). */
void sd_session_free(struct sd_session *s)
{
	struct sd_session **pp;

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

void sd_session_destroy(struct sd_session *s)
{
	sd_session_teardown(s);
	sd_session_archive_last(s);
	sd_session_free(s);
}

void sd_cmd_destroy(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		    struct sd_reply *r)
{
	struct sd_session *s, **ss;
	size_t nr = 0;

	if (req->flags & TRAWL_CTL_F_ALL) {
		for (s = sd.sessions; s; s = s->next)
			if (s->uid == p->uid && sd_op_busy(s, r))
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
		sd_op_run(ss, nr, 1, 0, r);
		free(ss);
		return;
	}
	s = sd_session_lookup(req->session, p, r);
	if (!s)
		return;
	/* A stop that lost data (a full disk, relayd gone) fails the destroy too, which goes on. */
	sd_op_run(&s, 1, 1, 1, r);
}

/*
 * start, one domain after the other (sd_op_domains()): the kernel
 * consumer's readiness (its buffers opened, files made by its opener as
 * the owner) is awaited in the loop, the session busy meanwhile ("a start
 * of it is waiting for its consumer").
 */
static int start_step(struct sd_session *s, int i, void *arg, struct trawl_domain_err *err)
{
	struct sd_domain *d = &s->dom[i];

	(void)arg;
	return d->ops->start_async ? d->ops->start_async(d->ds, err) : d->ops->start(d->ds, err);
}

/* Every domain started, or domain @i failed: none is left started (@r says why). */
static void start_end(struct sd_session *s, int i, int ret, const struct trawl_domain_err *err,
		      void *arg, struct sd_reply *r)
{
	(void)arg;
	if (ret) {
		/* (nothing is left half-started: the op stops the domains
		 * before @i, start_undo()) */
		sd_fail(r, ret, "starting %s tracing of session '%s' failed: %s",
			sd_domain_name((uint32_t)i), s->name,
			err->msg[0] ? err->msg : strerror(-ret));
		return;
	}
	sd_session_started(s);
	s->active = 1;
	s->started_once = 1;
}

const struct sd_domains_cmd sd_start_cmd = {
	.what = "a start",
	.step = start_step,
	.end = start_end,
};

void sd_cmd_start(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		  struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	int ret, i;

	if (!s)
		return;
	if (s->active)
		return (void)sd_fail(r, -EBUSY, "session '%s' is already started", s->name);
	/* LTTng 2.13's rule: a session with no channel does not start (its
	 * channels could not be added once it has) */
	for (i = 1; i < SD_NR_DOMAINS && !s->dom[i].channels; i++)
		;
	if (i == SD_NR_DOMAINS)
		return (void)sd_fail(r, -ENOENT, "no channel in session '%s' (enable an event "
						  "or a channel first)", s->name);
	ret = sd_relay_check(s, r);
	if (ret == -EINPROGRESS)
		return sd_op_connect(s, OPK_START, r); /* started once relayd answers */
	if (ret)
		return;
	sd_op_domains(s, &sd_start_cmd, NULL, 0, r);
}

void sd_cmd_stop(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		 struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);

	if (!s)
		return;
	if (!s->active)
		return (void)sd_fail(r, -EBUSY, "session '%s' is not started", s->name);
	sd_op_run(&s, 1, 0, 1, r);
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

/*
 * The consumers write the metadata or the state dump again: answered once
 * they have (an sd_op: the loop does not wait for them, the session busy
 * meanwhile).
 */
void sd_cmd_regenerate(uint16_t cmd, const struct trawl_ctl_wire_req *req,
		       const struct sd_peer *p, struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);

	if (!s)
		return;
	if (!s->active)
		return (void)sd_fail(r, -EBUSY, "session '%s' is not started", s->name);
	if (cmd == TRAWL_CTL_CMD_REGENERATE_METADATA && s->live)
		return (void)sd_fail(r, -EOPNOTSUPP, "cannot regenerate the metadata of a live "
						     "session ('%s'), as LTTng", s->name);
	sd_op_regenerate(s, cmd != TRAWL_CTL_CMD_REGENERATE_METADATA, r);
}

