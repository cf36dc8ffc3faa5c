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
/* ops (below): a create or start of a streaming session waiting for relayd */
enum { OPK_STOP, OPK_REGENERATE, OPK_CREATE, OPK_START, OPK_DOMAINS };
static void op_connect(struct sd_session *s, int kind, struct sd_reply *r);
static void op_folder(struct sd_session *s, struct sd_reply *r);

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
		return op_connect(s, OPK_CREATE, r);
	/* the folder made by a child as the owner, awaited in the loop: the same */
	if (s->output[0] && !streaming && !sd_relay_is_url(s->output))
		return op_folder(s, r);
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

/* Stops (if active) @s and destroys its domains: it has none left. */
static void session_teardown(struct sd_session *s)
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
static void session_free(struct sd_session *s)
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
	session_teardown(s);
	sd_session_archive_last(s);
	session_free(s);
}

/*
 * Commands that wait for consumers, or for relayd.
 *
 * A consumer drains a session at its stop, and at its destroy (the kernel
 * consumer exits, the user-space one forgets it). Streaming, that can take
 * as long as the consumer's bounds (a round and a command: 13 s) when the
 * session's relayd, which its owner chooses, reads slowly; a `regenerate`
 * waits for the consumer as long (it answers between rounds), and a
 * streaming session's create (or a start that connects again) waits for
 * relayd's control port to answer its HELLO. The daemon does not wait in
 * its loop for any of that: the command becomes an sd_op, its client
 * answered once every consumer (or relayd) has answered (sd_reply.later),
 * and the loop goes on serving everyone else meanwhile. The sessions of an
 * op are busy: every other command on them is refused (-EBUSY) but listing
 * them, which shows them without asking their consumers.
 *
 * clear, rotate and snapshot record wait for the consumer as long (a
 * rotation drains and closes a chunk's files): they are ops too, run by
 * cmd-rotate.c and cmd-snapshot.c through sd_op_domains().
 *
 * Each session goes through the phases: stop, its domains' stops (if it
 * was active), then (destroy) their releases; regenerate, the domains'
 * regenerates; create and start, the connection to relayd (then, start,
 * the domains' starts); clear, rotate, snapshot record, the domains' part
 * one domain after the other (OP_DOMAINS). Each may wait for a domain's async_done() (or
 * sd_relay_connect_done()); a destroy of a rotated session then archives
 * its last chunk as the owner (OP_ARCHIVING: a child, awaited in the loop,
 * as a create's folder, OP_FOLDER); then the session is through (stopped, freed,
 * regenerated, created, started). The op answers once all its sessions are
 * through.
 */
enum {
	OP_STOPPING,
	OP_RELEASING,
	OP_ARCHIVING, /* destroy, released: the last chunk archived as the owner (s->last_job) */
	OP_RELAY_ARCHIVING, /* destroy of a rotated streaming session, stopped: the domains
			     * archive its last chunk on relayd (then OP_RELEASING) */
	OP_REGENERATING,
	OP_CONNECTING,
	OP_DOMAINS,
	OP_FOLDER,
};

struct sd_op {
	struct sd_op *next;
	struct sd_later later; /* its client */
	struct sd_reply r;     /* the answer, built as the domains answer */
	int kind;              /* OPK_ */
	int destroy, report;   /* stop: destroy too; failures go in r (not destroy -a's) */
	int statedump;         /* regenerate: the state dump, else the metadata */
	/* OPK_DOMAINS: the command, its argument (owned), the domain at work */
	const struct sd_domains_cmd *cmd;
	void *arg;
	int dom;
	int unattended; /* no client: the session's commands wait (sd_reply.retry) */
	/* Work as the owner (OP_FOLDER: a create's folder; OPK_DOMAINS: the
	 * command's before or after), awaited when job_stage is not 0. */
	struct sd_owner_job job;
	int job_stage; /* 1: before the domains (or OP_FOLDER), 2: after them */
	int begun;     /* OPK_DOMAINS: its before() has run */
	char job_what[TRAWL_CTL_PATH_MAX + 64];
	size_t nr;
	struct sd_session **ss; /* owned array; NULL once a session is through */
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

/*
 * A destroy, @s stopped: a rotated streaming session's last chunk is
 * archived on relayd first (OP_RELAY_ARCHIVING), then the domains' releases.
 */
static void op_release_begin(struct sd_op *op, struct sd_session *s)
{
	if (sd_session_relay_archive_begin(s, op->report ? &op->r : NULL)) {
		s->op_phase = OP_RELAY_ARCHIVING;
		return;
	}
	op_begin(op, s, 1);
}

/* The first failure of a regenerate goes in the op's answer. */
static void regen_failed(struct sd_op *op, int i, int ret, const struct trawl_domain_err *err)
{
	if (ret && !op->r.status)
		sd_fail(&op->r, ret,
			op->statedump ? "cannot regenerate the %s state dump: %s"
				      : "cannot regenerate the %s metadata: %s",
			sd_domain_name((uint32_t)i), err->msg[0] ? err->msg : strerror(-ret));
}

/* Begins the domains' regenerates of @s. */
static void op_regen_begin(struct sd_op *op, struct sd_session *s)
{
	int i;

	s->op_phase = OP_REGENERATING;
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];
		struct trawl_domain_err err = {""};
		int ret;

		s->op_wait[i] = 0;
		if (!d->ops || !d->ds)
			continue;
		if (d->ops->regenerate_async)
			ret = d->ops->regenerate_async(d->ds, op->statedump, &err);
		else if (op->statedump)
			ret = d->ops->regenerate_statedump ? d->ops->regenerate_statedump(d->ds, &err)
							   : 0;
		else
			ret = d->ops->regenerate_metadata ? d->ops->regenerate_metadata(d->ds, &err)
							  : -EOPNOTSUPP;
		if (ret == -EINPROGRESS)
			s->op_wait[i] = 1;
		else
			regen_failed(op, i, ret, &err);
	}
}

static const struct sd_domains_cmd start_cmd;

/* Unlinks and frees @s, which never had a domain (a create that failed). */
static void session_unmade(struct sd_session *s)
{
	struct sd_session **pp;

	sd_relay_end(s);
	for (pp = &sd.sessions; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	free(s);
}

/* relayd answered (or did not) session @k of @op, a create or a start. */
static void op_connected(struct sd_op *op, size_t k)
{
	struct sd_session *s = op->ss[k];
	int failed = op->r.status != 0;

	s->op = NULL;
	op->ss[k] = NULL;
	if (op->kind == OPK_CREATE) {
		if (failed)
			return session_unmade(s);
		sd_session_rec(&op->r, s);
		sd_log("session %s created by uid %d, output %s", s->name, (int)s->uid, s->output);
		return;
	}
}

/*
 * A start failed at domain @failed (its line in the op's answer): the
 * domains before it, started, are stopped, each drain awaited in the loop
 * as a stop's (a kernel consumer may take its 30 s), the session busy
 * meanwhile. The answer (the start's failure) waits for them. 1 once
 * nothing is left to wait for, else 0 (session @k of @op is OP_STOPPING).
 */
static int start_undo(struct sd_op *op, size_t k, struct sd_session *s, int failed)
{
	int i, waits = 0;

	for (i = 1; i < failed && i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];
		struct trawl_domain_err err = {""};

		s->op_wait[i] = 0;
		if (!d->ops || !d->ds)
			continue;
		if (!d->ops->stop_async) {
			d->ops->stop(d->ds, &err);
			continue;
		}
		if (d->ops->stop_async(d->ds, &err) == -EINPROGRESS)
			s->op_wait[i] = waits = 1;
	}
	for (; i < SD_NR_DOMAINS; i++)
		s->op_wait[i] = 0;
	if (!waits)
		return 1;
	/* (not reported: the start's failure is the answer) */
	op->report = 0;
	op->destroy = 0;
	s->op_phase = OP_STOPPING;
	s->op = op;
	op->ss[k] = s;
	return 0;
}

/*
 * A command that runs its domains one after the other (clear, rotate,
 * snapshot record: sd_op_domains()): moves it on to the next domain as
 * each one is over; 1 once the command has ended (its end() has run).
 */
static int op_domains_step(struct sd_op *op, size_t k)
{
	struct sd_session *s = op->ss[k];
	struct trawl_domain_err err = {""};
	int ret = 0, stage;

	if (op->job_stage) {
		/* the command's work as the owner, before or after its domains */
		if (!sd_owner_done(&op->job, &ret))
			return 0;
		stage = op->job_stage;
		op->job_stage = 0;
		if (op->cmd->job_done)
			ret = op->cmd->job_done(op->arg, stage, ret);
		if (ret)
			goto job_failed;
		if (stage == 2)
			goto end;
	} else if (!op->begun) {
		op->begun = 1;
		if (op->cmd->before) {
			op->job_what[0] = '\0';
			ret = op->cmd->before(s, op->arg, &op->job, op->job_what,
					      sizeof(op->job_what));
			if (ret == -EINPROGRESS) {
				op->job_stage = 1;
				return 0;
			}
			if (ret)
				goto job_failed;
		}
	}
	for (;;) {
		struct sd_domain *d = &s->dom[op->dom];

		if (op->dom && s->op_wait[op->dom]) {
			if (!d->ops->async_done(d->ds, &ret, &err))
				return 0;
			s->op_wait[op->dom] = 0;
			if (ret)
				break;
		}
		do
			op->dom++;
		while (op->dom < SD_NR_DOMAINS && (!s->dom[op->dom].ops || !s->dom[op->dom].ds));
		if (op->dom >= SD_NR_DOMAINS) {
			op->dom = 0;
			if (!op->cmd->after)
				break;
			op->job_what[0] = '\0';
			ret = op->cmd->after(s, op->arg, &op->job, op->job_what,
					     sizeof(op->job_what));
			if (ret == -EINPROGRESS) {
				op->job_stage = 2;
				return 0;
			}
			if (ret)
				goto job_failed;
			break;
		}
		d = &s->dom[op->dom];
		err.msg[0] = '\0';
		ret = op->cmd->step(s, op->dom, op->arg, &err);
		if (ret == -EINPROGRESS) {
			s->op_wait[op->dom] = 1;
			return 0;
		}
		if (ret)
			break;
	}
	goto end;
job_failed:
	op->dom = 0;
	trawl_msg_fmt(err.msg, sizeof(err.msg), "%s: %s", op->job_what, sd_owner_strerror(ret));
end:
	/* (not busy any more for what end() does: a rotation asks for the counters) */
	s->op = NULL;
	op->ss[k] = NULL;
	op->cmd->end(s, ret ? op->dom : 0, ret, &err, op->arg, &op->r);
	if (ret && op->cmd == &start_cmd)
		return start_undo(op, k, s, op->dom);
	return 1;
}

/*
 * Destroy: session @k of @op, torn down, had its last chunk archived (@ret
 * the owner job's result: a failure leaves the chunk where it is, nothing
 * lost, and is the destroy's line): it is freed.
 */
static void op_archived(struct sd_op *op, size_t k, int ret)
{
	struct sd_session *s = op->ss[k];

	if (ret) {
		sd_log("session %s: cannot archive its last trace chunk: %s", s->name,
		       sd_owner_strerror(ret));
		if (op->report && !op->r.status)
			sd_fail(&op->r, ret, "cannot archive the last trace chunk of session '%s' "
					     "(it stays in %s): %s",
				s->name, s->chunk, sd_owner_strerror(ret));
	} else if (s->last_archive[0]) {
		/* LTTng's "Trace chunk archive for session S is now readable at P" */
		char path[TRAWL_CTL_PATH_MAX * 2];
		struct trawl_ctl_wire_rotation body = {.chunk_id = s->chunk_id};
		const char *strs[] = {s->name, path};

		sd_log("session %s: last trace chunk %llu archived in %s/%s", s->name,
		       (unsigned long long)s->chunk_id, s->output, s->last_archive);
		if (!trawl_path_fmt(path, sizeof(path), "%s/%s", s->output, s->last_archive))
			sd_reply_rec(&op->r, TRAWL_CTL_ITEM_ROTATION, &body, strs);
	}
	s->op = NULL;
	op->ss[k] = NULL;
	session_free(s);
}

/* Moves session @k of @op on as far as its domains allow; 1 once it is through. */
static int op_step(struct sd_op *op, size_t k)
{
	struct sd_session *s = op->ss[k];
	int i;

	if (s->op_phase == OP_DOMAINS)
		return op_domains_step(op, k);
	if (s->op_phase == OP_ARCHIVING) {
		int ret;

		if (!sd_owner_done(&s->last_job, &ret))
			return 0;
		op_archived(op, k, ret);
		return 1;
	}
	if (s->op_phase == OP_FOLDER) {
		int ret;

		if (!sd_owner_done(&op->job, &ret))
			return 0;
		if (ret)
			sd_fail(&op->r, ret, "cannot create trace folder %s: %s", s->output,
				sd_owner_strerror(ret));
		op_connected(op, k);
		return 1;
	}
	for (;;) {
		int ret;

		if (s->op_phase == OP_CONNECTING) {
			if (!sd_relay_connect_done(s, &op->r))
				return 0;
			if (op->kind == OPK_START && !op->r.status) {
				/* relayd answered: the start goes on, its domains one by one */
				op->cmd = &start_cmd;
				op->dom = 0;
				s->op_phase = OP_DOMAINS;
				memset(s->op_wait, 0, sizeof(s->op_wait));
				return op_domains_step(op, k);
			}
			op_connected(op, k);
			return 1;
		}
		for (i = 1; i < SD_NR_DOMAINS; i++) {
			struct sd_domain *d = &s->dom[i];
			struct trawl_domain_err err = {""};

			if (!s->op_wait[i])
				continue;
			if (!d->ops->async_done(d->ds, &ret, &err))
				return 0;
			s->op_wait[i] = 0;
			if (s->op_phase == OP_STOPPING)
				stop_failed(s, i, ret, &err, op->report ? &op->r : NULL);
			else if (s->op_phase == OP_REGENERATING)
				regen_failed(op, i, ret, &err);
			else if (s->op_phase == OP_RELAY_ARCHIVING && ret)
				sd_session_relay_archived(s, ret, err.msg, op->report ? &op->r : NULL);
		}
		if (s->op_phase == OP_STOPPING) {
			s->active = 0;
			if (op->destroy) {
				op_release_begin(op, s);
				continue;
			}
			s->op = NULL;
		} else if (s->op_phase == OP_RELAY_ARCHIVING) {
			/* every domain answered: the archive's line, then the releases */
			sd_session_relay_archived(s, 0, "", op->report ? &op->r : NULL);
			op_begin(op, s, 1);
			continue;
		} else if (s->op_phase == OP_REGENERATING) {
			s->op = NULL;
		} else {
			/* released: the domains wait for nothing now */
			session_teardown(s);
			ret = sd_session_archive_last_begin(s);
			if (ret == -EINPROGRESS) {
				s->op_phase = OP_ARCHIVING;
				return 0;
			}
			op_archived(op, k, ret);
			return 1;
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
	free(op->arg);
	free(op->r.recs);
	free(op->ss);
	free(op);
}

/* Moves every op on; answers those that are over. 1 if one ended. */
static int ops_on_top(void)
{
	struct sd_op **pp = &ops;
	int ended = 0;

	while (*pp) {
		struct sd_op *op = *pp;

		if (!op_settle(op)) {
			pp = &op->next;
			continue;
		}
		*pp = op->next;
		sd_later_answer(&op->later, &op->r);
		op_free(op);
		ended = 1;
	}
	return ended;
}

static void queries_on_top(void);

static void on_top(void)
{
	int ended = ops_on_top();

	queries_on_top();
	/* (after the list is walked: a request served again may begin an op) */
	if (ended)
		sd_clients_retry();
}

static void on_top_register(void)
{
	static int registered;

	if (!registered) {
		sd_loop_on_top(on_top);
		registered = 1;
	}
}

/* A new op of @kind on the @nr sessions @ss (each made busy); NULL: out of memory (in @r). */
static struct sd_op *op_new(struct sd_session **ss, size_t nr, int kind, struct sd_reply *r)
{
	struct sd_op *op = calloc(1, sizeof(*op));
	size_t k;

	if (!op || !(op->ss = calloc(nr ? nr : 1, sizeof(*op->ss)))) {
		free(op);
		sd_fail(r, -ENOMEM, "out of memory");
		return NULL;
	}
	on_top_register();
	op->kind = kind;
	op->nr = nr;
	for (k = 0; k < nr; k++) {
		op->ss[k] = ss[k];
		ss[k]->op = op;
	}
	return op;
}

/* @op has begun: answered now (in @r) if it waits for nothing, else later (r->later). */
static void op_launch(struct sd_op *op, struct sd_reply *r)
{
	if (op_settle(op)) {
		/* nothing to wait for: answered now, with what the domains said */
		free(r->recs);
		*r = op->r;
		op->r.recs = NULL;
		op_free(op);
		return;
	}
	r->later = &op->later;
	op->next = ops;
	ops = op;
}

/*
 * Stops (@destroy: and destroys) the @nr sessions @ss for the client of
 * @r (@report: a stop's failure is the command's): answered now if no
 * consumer must be waited for, else later (r->later).
 */
static void op_run(struct sd_session **ss, size_t nr, int destroy, int report, struct sd_reply *r)
{
	struct sd_op *op = op_new(ss, nr, OPK_STOP, r);
	size_t k;

	if (!op)
		return;
	op->destroy = destroy;
	op->report = report;
	for (k = 0; k < nr; k++) {
		if (destroy && !ss[k]->active)
			op_release_begin(op, ss[k]);
		else
			op_begin(op, ss[k], !ss[k]->active);
	}
	op_launch(op, r);
}

/* A create (@kind OPK_CREATE) or start of @s waiting for relayd's answer. */
static void op_connect(struct sd_session *s, int kind, struct sd_reply *r)
{
	struct sd_op *op = op_new(&s, 1, kind, r);

	if (!op) {
		if (kind == OPK_CREATE)
			session_unmade(s);
		return;
	}
	op->report = 1;
	s->op_phase = OP_CONNECTING;
	op_launch(op, r);
}

/* A create of @s waiting for its folder, made by a child as its owner. */
static void op_folder(struct sd_session *s, struct sd_reply *r)
{
	struct sd_op *op = op_new(&s, 1, OPK_CREATE, r);
	int ret;

	if (!op)
		return session_unmade(s);
	op->report = 1;
	s->op_phase = OP_FOLDER;
	ret = sd_mkdir_checked_begin(&op->job, s->output, s->uid, s->gid);
	if (ret != -EINPROGRESS) {
		op->job.over = 1;
		op->job.ret = ret;
	}
	op_launch(op, r);
}

void sd_op_domains(struct sd_session *s, const struct sd_domains_cmd *cmd, void *arg,
		   int unattended, struct sd_reply *r)
{
	struct sd_op *op = op_new(&s, 1, OPK_DOMAINS, r);

	if (!op) {
		free(arg);
		return;
	}
	op->report = 1;
	op->cmd = cmd;
	op->arg = arg;
	op->unattended = unattended;
	s->op_phase = OP_DOMAINS;
	memset(s->op_wait, 0, sizeof(s->op_wait));
	op_launch(op, r);
}

void sd_ops_finish(void)
{
	while (ops) {
		struct sd_op *op = ops;
		size_t k;

		ops = op->next;
		sd_owner_cancel(&op->job);
		for (k = 0; k < op->nr; k++) {
			struct sd_session *s = op->ss[k];

			if (!s)
				continue;
			/* the domains wait in session_destroy (the daemon exits) */
			memset(s->op_wait, 0, sizeof(s->op_wait));
			if (s->op_phase == OP_ARCHIVING) {
				/* killed: its last chunk stays where it is */
				sd_owner_cancel(&s->last_job);
				s->rotations = 0;
			}
			s->op = NULL;
			s->active = 0;
		}
		free(op->arg);
		free(op->r.recs);
		free(op->ss);
		free(op);
	}
}

/* What @s is busy with (an op), for a line; @it names the session ("it"). */
static void op_what(const struct sd_session *s, const char *it, char *buf, size_t len)
{
	switch (s->op_phase) {
	case OP_REGENERATING:
		trawl_msg_fmt(buf, len, "a regenerate of %s is waiting for its consumer", it);
		break;
	case OP_CONNECTING:
		trawl_msg_fmt(buf, len, "%s",
			      strcmp(it, "it") ? "the session waits for trawl-relayd's control port "
						 "to answer"
					       : "its create or start is waiting for trawl-relayd's "
						 "control port to answer");
		break;
	case OP_DOMAINS:
		if (s->op->job_stage)
			trawl_msg_fmt(buf, len, "%s of %s is waiting for its owner's file system",
				      s->op->cmd->what, it);
		else
			trawl_msg_fmt(buf, len, "%s of %s is waiting for its consumer",
				      s->op->cmd->what, it);
		break;
	case OP_FOLDER:
		trawl_msg_fmt(buf, len, "the create of %s is waiting for its owner's file system "
			      "(its folder made as them)", it);
		break;
	case OP_ARCHIVING:
		trawl_msg_fmt(buf, len, "the destroy of %s is waiting for its owner's file system "
			      "(its last trace chunk archived as them)", it);
		break;
	default:
		trawl_msg_fmt(buf, len, "a stop or destroy of %s is waiting for its consumer", it);
	}
}

/* The session is busy with an op: other commands are refused. */
static int busy(const struct sd_session *s, struct sd_reply *r)
{
	char what[160];

	if (!s->op)
		return 0;
	/* its client waits for what nobody asked for, then is served */
	r->retry = s->op->unattended;
	op_what(s, "it", what, sizeof(what));
	sd_fail(r, -EBUSY, "session '%s' is busy: %s (try again once that has returned)", s->name,
		what);
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

static const struct sd_domains_cmd start_cmd = {
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
		return op_connect(s, OPK_START, r); /* started once relayd answers */
	if (ret)
		return;
	sd_op_domains(s, &start_cmd, NULL, 0, r);
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

/*
 * The consumers write the metadata or the state dump again: answered once
 * they have (an sd_op: the loop does not wait for them, the session busy
 * meanwhile).
 */
void sd_cmd_regenerate(uint16_t cmd, const struct trawl_ctl_wire_req *req,
		       const struct sd_peer *p, struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	struct sd_op *op;

	if (!s)
		return;
	if (!s->active)
		return (void)sd_fail(r, -EBUSY, "session '%s' is not started", s->name);
	if (cmd == TRAWL_CTL_CMD_REGENERATE_METADATA && s->live)
		return (void)sd_fail(r, -EOPNOTSUPP, "cannot regenerate the metadata of a live "
						     "session ('%s'), as LTTng", s->name);
	op = op_new(&s, 1, OPK_REGENERATE, r);
	if (!op)
		return;
	op->report = 1;
	op->statedump = cmd != TRAWL_CTL_CMD_REGENERATE_METADATA;
	op_regen_begin(op, s);
	op_launch(op, r);
}

void sd_session_rec(struct sd_reply *r, const struct sd_session *s)
{
	struct trawl_ctl_wire_session body = {
		.active = (uint32_t)s->active,
		.snapshot = (uint32_t)s->snapshot,
		.live_timer_us = s->live_timer_us,
		.uid = (uint32_t)s->uid,
	};
	const char *strs[] = {s->name, s->output, s->shm_path};

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

static void list_channel(struct sd_reply *r, uint32_t domain, const struct sd_domain *d,
			 const struct sd_channel *c)
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
		.tracefile_count = c->attr.tracefile_count,
		.tracefile_size = c->attr.tracefile_size,
		.blocking_timeout_us = c->attr.blocking_timeout_us,
		.output = (uint32_t)c->attr.output,
		.monitor_timer_us = c->attr.monitor_timer_us,
	};
	const char *strs[TRAWL_CTL_REC_MAX_STRINGS] = {c->attr.name};
	const struct sd_context *x;
	const struct sd_event *e;
	uint64_t discarded = 0, lost = 0, resident, size;

	/* LTTng's "Statistics:" under each channel (a packed body: copied): as
	 * LTTng's daemon, the count of the channel's mode only, the other 0 */
	if (d->ds && d->ops->channel_counters &&
	    !d->ops->channel_counters(d->ds, c->attr.name, &discarded, &lost)) {
		body.discarded_events = c->attr.overwrite ? 0 : discarded;
		body.lost_packets = c->attr.overwrite ? lost : 0;
	}
	if (d->ds && d->ops->channel_memory &&
	    !d->ops->channel_memory(d->ds, c->attr.name, &resident, &size)) {
		body.memory_resident = resident;
		body.memory_size = size;
	}
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

		if (e->hidden) /* an agent domain's (cmd-agent.c) */
			continue;

		strs[0] = c->attr.name;
		strs[1] = e->name;
		strs[2] = e->filter;
		strs[3] = e->target;
		strs[4] = e->exclusions;
		sd_reply_rec(r, TRAWL_CTL_ITEM_EVENT, &eb, strs);
	}
}

/* The records of `list SESSION` (and `status`): the counters as the domains have them. */
static void list_session(struct sd_reply *r, struct sd_session *s)
{
	int i;

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
			char msg[sizeof(st.msg)], what[160];

			trawl_msg_fmt(msg, sizeof(msg), "%s", st.msg);
			op_what(s, "the session", what, sizeof(what));
			trawl_msg_fmt(st.msg, sizeof(st.msg), "%s%s%.*s", what, msg[0] ? "; " : "",
				      (int)sizeof(msg) - 180, msg);
		}
		/* relayd lost: what the consumers could not say (nothing to send, kernel) */
		if (!st.msg[0])
			sd_relay_problem(s, st.msg, sizeof(st.msg));
		body.consumer_alive = !!st.consumer_alive;
		body.events_discarded = st.events_discarded;
		body.events_tallied = st.events_tallied;
		body.bytes_written = st.bytes_written;
		sd_reply_rec(r, TRAWL_CTL_ITEM_DOMAIN, &body, strs);
		sd_trackers_rec(r, (uint32_t)i, d);
		for (c = d->channels; c; c = c->next)
			list_channel(r, (uint32_t)i, d, c);
	}
	sd_agent_recs(r, s);
}

/*
 * `list SESSION` and `status` show counters only the consumers know (and
 * what streaming lost): they are asked, and the client answered once they
 * have answered, without the loop waiting for them (a consumer streaming
 * to a slow relayd answers between rounds of draining, seconds apart).
 * Nothing is asked while an op holds the session: its counters as of the
 * consumers' last answer then.
 */
struct sd_query {
	struct sd_query *next;
	struct sd_later later;
	uint64_t id; /* the session's */
	char name[TRAWL_CTL_NAME_MAX];
};

static struct sd_query *queries;

/* 1 while a domain of @s still waits for its consumer's counters. */
static int status_pending(struct sd_session *s)
{
	int i;

	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];

		if (d->ops && d->ds && d->ops->status_pending && d->ops->status_pending(d->ds))
			return 1;
	}
	return 0;
}

static void queries_on_top(void)
{
	struct sd_query **pp = &queries;

	while (*pp) {
		struct sd_query *q = *pp;
		struct sd_reply r = {0};
		struct sd_session *s;

		for (s = sd.sessions; s && s->id != q->id; s = s->next)
			;
		if (s && !s->op && status_pending(s)) {
			pp = &q->next;
			continue;
		}
		*pp = q->next;
		if (s)
			list_session(&r, s);
		else
			sd_fail(&r, -ENOENT, "no session named '%s'", q->name);
		sd_later_answer(&q->later, &r);
		free(r.recs);
		free(q);
	}
}

void sd_cmd_list_session(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			 struct sd_reply *r)
{
	struct sd_session *s;
	struct sd_query *q;
	int i, asked = 0;

	if (!req->session[0])
		return (void)sd_fail(r, -EINVAL, "no session given and no current session");
	s = find(req->session, p);
	if (!s)
		return (void)sd_fail(r, -ENOENT, "no session named '%s'", req->session);
	for (i = 1; i < SD_NR_DOMAINS && !s->op; i++) {
		struct sd_domain *d = &s->dom[i];

		if (d->ops && d->ds && d->ops->status_ask && d->ops->status_ask(d->ds) == -EINPROGRESS)
			asked = 1;
	}
	if (!asked || !(q = calloc(1, sizeof(*q))))
		return list_session(r, s);
	on_top_register();
	q->id = s->id;
	snprintf(q->name, sizeof(q->name), "%s", s->name);
	q->next = queries;
	queries = q;
	r->later = &q->later;
}
