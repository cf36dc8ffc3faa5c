/* SPDX-License-Identifier: MIT */
/*
 * ust-chunk.c - the user-space domain's operations on a session's trace
 * files, each a command to the consumer awaited in the loop (-EINPROGRESS,
 * then ust_async_done() in domain-ust.c): clear, rotate and snapshot
 * record.
 */
#include "common/common.h"
#include "sessiond/ust-internal.h"

#include <errno.h>
#include <string.h>

/* A clear the consumer failed (@msg its line, or ""). */
int ust_clear_failed(struct trawl_domain_session *s, int ret, const char *msg,
			    struct trawl_domain_err *err)
{
	trawl_domain_err_set(err, "the consumer could not clear the session: %s",
			     msg[0] ? msg : cons_alive(s) ? strerror(-ret) : s->cons->msg);
	return ret;
}

/*
 * The clear's second half, once the consumer has cleared: what is left of
 * the chunk's ust/ folder goes (removed as the owner: -EINPROGRESS, then
 * ust_clear_removed()), and a started session goes on into new files.
 */
int ust_clear_files(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	int ret, local = s->output[0] == '/' && !s->snapshot;

	/* streaming: relayd removed the files; a started session goes on at once */
	if (!local && !strncmp(s->output, "relay:", 6) && s->active)
		return ust_clear_dir_made(s, 0, err);
	if (!local)
		return 0;
	/* what is left: the traces of programs that exited (per-process buffers) */
	ret = ust_job_begin(s, UST_JOB_CLEAR_RM, 1);
	if (ret == -ENAMETOOLONG)
		return 0;
	return ret == -EINPROGRESS ? ret : ust_clear_removed(s, ret, err);
}

/* ust/ removed (@ret its result): a new chunk begins with its ust/ folder, as
 * LTTng's: now (-EINPROGRESS: made as the owner), or at the next start. */
int ust_clear_removed(struct trawl_domain_session *s, int ret,
			     struct trawl_domain_err *err)
{
	if (ret) {
		trawl_domain_err_set(err, "cannot remove %s: %s", s->job_dir,
				     sd_owner_strerror(ret));
		return ret;
	}
	s->ust_dir_due = 1;
	if (!s->active)
		return 0;
	ret = ust_job_begin(s, UST_JOB_CLEAR_DIR, 0);
	return ret == -EINPROGRESS ? ret : ust_clear_dir_made(s, ret, err);
}

/*
 * A started session's new ust/ folder made (@ret: or not): the consumer
 * starts the new files (START, awaited: -EINPROGRESS). A folder that could
 * not be made does not stop the recording: the clear says so once START is
 * answered.
 */
int ust_clear_dir_made(struct trawl_domain_session *s, int ret,
			      struct trawl_domain_err *err)
{
	if (!ret)
		s->ust_dir_due = 0;
	s->job_ret = ret;
	if (!cons_alive(s) || !s->traces) {
		s->job_ret = 0;
		if (ret)
			trawl_domain_err_set(err, "cannot create %s: %s", s->job_dir,
					     sd_owner_strerror(ret));
		return ret;
	}
	ret = cons_async(s, TRAWL_CONS_START);
	if (ret && ret != -EINPROGRESS) {
		s->job_ret = 0;
		return ust_clear_failed(s, ret, "", err);
	}
	if (!ret && s->job_ret) {
		ret = s->job_ret;
		s->job_ret = 0;
		trawl_domain_err_set(err, "cannot create %s: %s (recording goes on)", s->job_dir,
				     sd_owner_strerror(ret));
	}
	return ret;
}

/*
 * `clear`: the consumer discards what the session's buffers hold and
 * deletes the files its traces wrote (consumer-proto.h's CLEAR); a started
 * session goes on recording into new files, a stopped one gets them at
 * its next start. Its answers are awaited in the loop (-EINPROGRESS, then
 * ust_async_done()): CLEAR's, then START's.
 */
int ust_clear(struct trawl_domain_session *s, struct trawl_domain_err *err)
{
	int ret;

	/*
	 * The per-process traces of programs that exited, removed first: their
	 * socket closes before their process exits, and the retry that
	 * removes them then (ust-conn.c, gone_check()) could come after this
	 * clear, whose START gave them new files, empty packets at the stop
	 * (sessiond-rotate-clear, loaded: ust/pid/APP-PID-DATE/ after a clear
	 * of a program that had exited). The consumer drains and closes each
	 * before the CLEAR; the ust/ folder's removal below takes its files.
	 */
	trace_release_gone(s);
	if (cons_alive(s) && s->traces) {
		apps_drain();
		ret = cons_async(s, TRAWL_CONS_CLEAR);
		if (ret == -EINPROGRESS)
			return ret;
		if (ret)
			return ust_clear_failed(s, ret, "", err);
	}
	return ust_clear_files(s, err);
}

/*
 * `rotate`: the session's traces end their chunk under s->output and go
 * on under @chunk (consumer-proto.h's ROTATE); traces made later go there
 * too. A streaming session's consumer has relayd archive the chunk that
 * ended in @archive. The consumer's answer, once the files of the chunk that ended are
 * complete, is awaited in the loop (-EINPROGRESS, then ust_async_done()).
 * The traces are in the new chunk from the ROTATE on, answered or not:
 * one an app adds meanwhile is told to the consumer after it, and so
 * begins there (a failed rotation leaves them there too).
 */
/* Whether every trace's folder has a name in @chunk (and the consumer's request room). */
static int rotate_names_fit(const struct trawl_domain_session *s, const char *chunk,
			    const char *archive, struct trawl_domain_err *err)
{
	const struct ust_trace *t;
	size_t old_len = strlen(s->output);
	struct trawl_cons_rotate rq;

	if (strlen(s->output) >= sizeof(rq.old_root) || strlen(chunk) >= sizeof(rq.new_root) ||
	    strlen(archive) >= sizeof(rq.archive))
		goto too_long;
	for (t = s->traces; t; t = t->next) {
		char path[sizeof(t->path)];

		if (strncmp(t->path, s->output, old_len) ||
		    trawl_path_fmt(path, sizeof(path), "%s%s", chunk, t->path + old_len))
			goto too_long;
	}
	return 0;
too_long:
	/* (a streaming session's @chunk holds its token: not said) */
	trawl_domain_err_set(err, "trace chunk folder too long for the consumer: %s",
			     archive[0] ? archive : chunk);
	return -ENAMETOOLONG;
}

int ust_rotate_ready(struct trawl_domain_session *s, const char *chunk,
		     struct trawl_domain_err *err)
{
	/* (a streaming session's archive name is shorter than rq.archive: cmd-rotate.c) */
	return rotate_names_fit(s, chunk, "", err);
}

int ust_rotate(struct trawl_domain_session *s, const char *chunk, const char *archive,
		      struct trawl_domain_err *err)
{
	struct trawl_cons_rotate rq;
	struct ust_trace *t;
	size_t old_len = strlen(s->output);
	int ret;

	/* As ust_clear(): the traces of programs that exited are closed in
	 * the chunk they wrote, not given files in the next one. */
	trace_release_gone(s);
	ret = rotate_names_fit(s, chunk, archive, err);
	if (ret)
		return ret; /* (rotate_ready() said it first) */
	memset(&rq, 0, sizeof(rq));
	trawl_path_fmt(rq.old_root, sizeof(rq.old_root), "%s", s->output);
	trawl_path_fmt(rq.new_root, sizeof(rq.new_root), "%s", chunk);
	trawl_path_fmt(rq.archive, sizeof(rq.archive), "%s", archive);
	if (cons_alive(s) && s->traces) {
		apps_drain();
		ret = cons_async_with(s, TRAWL_CONS_ROTATE, &rq, sizeof(rq));
		/* The consumer did not get it (its socket failed: it is going,
		 * and the one started in its place makes the traces where they
		 * are said to be): the traces go on in @chunk all the same
		 * (domain.h), not in the chunk the daemon archives. */
		if (ret && ret != -EINPROGRESS)
			trawl_domain_err_set(err, "the consumer could not rotate the session: %s",
					     strerror(-ret));
	}
	for (t = s->traces; t; t = t->next) {
		char path[sizeof(t->path)];

		trawl_path_fmt(path, sizeof(path), "%s%s", chunk, t->path + old_len);
		memcpy(t->path, path, sizeof(t->path));
	}
	trawl_path_fmt(s->output, sizeof(s->output), "%s", chunk);
	return ret;
}

uint64_t ust_snapshot_one_more(struct trawl_domain_session *s, uint64_t nr)
{
	const struct ust_trace *t;
	const struct trace_chan *tc;
	uint64_t bytes = 0;

	for (t = s->traces; t; t = t->next) {
		for (tc = t->chans; tc; tc = tc->next) {
			const struct trawl_ustctl_channel_attr *a;

			if (!tc->rb)
				continue;
			a = trawl_ustctl_channel_attr(tc->rb);
			if (nr < a->num_subbuf)
				bytes += a->subbuf_size * a->nr_streams;
		}
	}
	return bytes;
}

/* The consumer copies the buffers' packets: its answer awaited in the loop
 * (-EINPROGRESS, ust_async_done()). */
int ust_snapshot(struct trawl_domain_session *s, const char *dir, uint64_t nr_packets,
			struct trawl_domain_err *err)
{
	struct trawl_cons_add_trace at;

	if (!s->traces)
		return 0; /* no app traced yet: nothing to write, as LTTng */
	if (!cons_alive(s)) {
		trawl_domain_err_set(err, "the user-space consumer is not running");
		return -ENOENT;
	}
	memset(&at, 0, sizeof(at));
	if (trawl_path_fmt(at.path, sizeof(at.path), "%s", dir)) {
		trawl_domain_err_set(err, "snapshot folder too long for the consumer: %s", dir);
		return -ENAMETOOLONG;
	}
	at.max_packets = nr_packets > UINT32_MAX ? 0 : (uint32_t)nr_packets;
	return cons_async_with(s, TRAWL_CONS_SNAPSHOT, &at, sizeof(at));
}
