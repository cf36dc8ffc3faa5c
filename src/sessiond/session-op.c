/* SPDX-License-Identifier: MIT */
/*
 * session-op.c - the commands that wait for consumers, or for relayd (sd_op).
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
#include "common/common.h"
#include "sessiond/sessiond.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
	/* OPK_DOMAINS, cmd->go_on: the first domain that failed (0: none), its line */
	int failed_dom, failed_ret;
	struct trawl_domain_err failed_err;
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
			sd_session_stop_failed(s, i, ret, &err, op->report ? &op->r : NULL);
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

/* Domain op->dom failed with @ret, @err: 1 if the command goes on
 * (cmd->go_on: the first failure kept for end()), 0 if it ends. */
static int op_domain_failed(struct sd_op *op, int ret, const struct trawl_domain_err *err)
{
	if (!op->cmd->go_on)
		return 0;
	if (!op->failed_dom) {
		op->failed_dom = op->dom;
		op->failed_ret = ret;
		op->failed_err = *err;
	}
	return 1;
}

/*
 * Begins the command's work as the owner of stage @stage (1: @hook is its
 * before(), 2: its after()): -EINPROGRESS once awaited in the loop
 * (op->job_stage set), else its result.
 */
static int op_job_begin(struct sd_op *op, struct sd_session *s,
			int (*hook)(struct sd_session *, void *, struct sd_owner_job *, char *, size_t),
			int stage)
{
	int ret;

	op->job_what[0] = '\0';
	ret = hook(s, op->arg, &op->job, op->job_what, sizeof(op->job_what));
	if (ret == -EINPROGRESS)
		op->job_stage = stage;
	return ret;
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
			ret = op_job_begin(op, s, op->cmd->before, 1);
			if (ret == -EINPROGRESS)
				return 0;
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
			if (ret && !op_domain_failed(op, ret, &err))
				break;
		}
		do
			op->dom++;
		while (op->dom < SD_NR_DOMAINS && (!s->dom[op->dom].ops || !s->dom[op->dom].ds));
		if (op->dom >= SD_NR_DOMAINS) {
			op->dom = 0;
			if (!op->cmd->after)
				break;
			ret = op_job_begin(op, s, op->cmd->after, 2);
			if (ret == -EINPROGRESS)
				return 0;
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
		if (ret && !op_domain_failed(op, ret, &err))
			break;
	}
	goto end;
job_failed:
	op->dom = 0;
	trawl_msg_fmt(err.msg, sizeof(err.msg), "%s: %s", op->job_what, sd_owner_strerror(ret));
end:
	if (op->failed_dom) {
		/* (a domain's line before what after() said) */
		op->dom = op->failed_dom;
		ret = op->failed_ret;
		err = op->failed_err;
	}
	/* (not busy any more for what end() does: a rotation asks for the counters) */
	s->op = NULL;
	op->ss[k] = NULL;
	op->cmd->end(s, ret ? op->dom : 0, ret, &err, op->arg, &op->r);
	if (ret && op->cmd == &sd_start_cmd)
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
	sd_session_free(s);
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
				op->cmd = &sd_start_cmd;
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
				sd_session_stop_failed(s, i, ret, &err, op->report ? &op->r : NULL);
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
			sd_session_teardown(s);
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

static void on_top(void)
{
	int ended = ops_on_top();

	sd_queries_on_top();
	/* (after the list is walked: a request served again may begin an op) */
	if (ended)
		sd_clients_retry();
}

void sd_op_on_top_register(void)
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
	sd_op_on_top_register();
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
void sd_op_run(struct sd_session **ss, size_t nr, int destroy, int report, struct sd_reply *r)
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

/* A regenerate (@statedump: of the state dump, else of the metadata) of @s. */
void sd_op_regenerate(struct sd_session *s, int statedump, struct sd_reply *r)
{
	struct sd_op *op = op_new(&s, 1, OPK_REGENERATE, r);

	if (!op)
		return;
	op->report = 1;
	op->statedump = statedump;
	op_regen_begin(op, s);
	op_launch(op, r);
}

/* A create (@kind OPK_CREATE) or start of @s waiting for relayd's answer. */
void sd_op_connect(struct sd_session *s, int kind, struct sd_reply *r)
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
void sd_op_folder(struct sd_session *s, struct sd_reply *r)
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

/*
 * At the daemon's exit. The work as the owner that an op queued behind the
 * owner's cap of children (as-owner.c: a rotation's archive, a destroy's
 * last chunk's) runs now, each waited for within owner-ms: the consumers
 * already left that chunk, and the client waits for its archive. The ops
 * that then complete answer their clients as in the loop. What is left
 * (held by a consumer, relayd or the owner's file system) is ended, and
 * its client told in one line what it was waiting for: never a connection
 * closed without a word. The trace files stay as they are.
 */
void sd_ops_finish(void)
{
	struct sd_op *op;
	size_t k;

	for (op = ops; op; op = op->next) {
		sd_owner_run_queued(&op->job);
		for (k = 0; k < op->nr; k++)
			if (op->ss[k])
				sd_owner_run_queued(&op->ss[k]->last_job);
	}
	ops_on_top();
	while (ops) {
		char what[160] = "";

		op = ops;
		ops = op->next;
		for (k = 0; k < op->nr && !what[0]; k++)
			if (op->ss[k]) {
				char it[TRAWL_CTL_NAME_MAX + 16];

				trawl_msg_fmt(it, sizeof(it), "session '%s'", op->ss[k]->name);
				sd_op_what(op->ss[k], it, what, sizeof(what));
			}
		sd_fail(&op->r, -ESHUTDOWN, "the session daemon exited while %s: not done (the "
			"trace stays as it is)", what[0] ? what : "the command was under way");
		sd_later_answer(&op->later, &op->r);
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
void sd_op_what(const struct sd_session *s, const char *it, char *buf, size_t len)
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
int sd_op_busy(const struct sd_session *s, struct sd_reply *r)
{
	char what[160];

	if (!s->op)
		return 0;
	/* its client waits for what nobody asked for, then is served */
	r->retry = s->op->unattended;
	sd_op_what(s, "it", what, sizeof(what));
	sd_fail(r, -EBUSY, "session '%s' is busy: %s (try again once that has returned)", s->name,
		what);
	return 1;
}

