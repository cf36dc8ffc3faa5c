/* SPDX-License-Identifier: MIT */
/*
 * cmd-rotate.c - LTTng's clear, rotate and rotation schedules.
 *
 * Trace chunks, as LTTng 2.13 lays them out. A session writes its first
 * chunk (ID 0) in its output folder, as a session that never rotates does.
 * A rotation ends the current chunk: the domains complete and close its
 * files (domain.h's rotate) and go on in a new folder OUTPUT/BEGIN-ID
 * (BEGIN: when it began, YYYYmmddTHHMMSS+hhmm in local time); then the
 * chunk that ended is moved to OUTPUT/archives/BEGIN-END-ID (chunk 0: its
 * ust/ and kernel/ folders moved into that folder). destroy archives the
 * last chunk of a session that rotated. A clear deletes the current
 * chunk's files and folders (domain.h's clear).
 *
 * Files: every folder is made, moved and removed by a child running as the
 * session's owner (common/ids.h), walking as common/fs.h does, so the root
 * daemon never acts on a path a `tracing` member controls (docs/SECURITY.md).
 *
 * LTTng's rules, and its words for them (`lttng` prints lttng_strerror()):
 * clear of a session never started, or cleared or rotated since its stop,
 * does nothing; rotate needs a session started once, with a local output
 * and neither live nor snapshot, and not rotated or cleared since its stop.
 * A rotation while stopped names its new chunk by the time of the rotation
 * (LTTng names it at the next start).
 */
#include "common/common.h"
#include "common/fs.h"
#include "common/ids.h"
#include "relayd/proto.h"
#include "sessiond/sessiond.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define SD_ROTATION_TICK_MS 500 /* schedules are looked at this often */

/* ---- as the owner ---------------------------------------------------------- */

/* Removes everything under @name of @at, then @name (bounded depth; links not followed). */
static void remove_tree(int at, const char *name, int depth)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *e;
	DIR *d;

	if (fd < 0) {
		unlinkat(at, name, 0); /* a file, or a link: itself */
		return;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while (depth < 16 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_type == DT_DIR)
			remove_tree(dirfd(d), e->d_name, depth + 1);
		else
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
	unlinkat(at, name, AT_REMOVEDIR);
}

/* The folder @arg and all it holds, as common/fs.h walks to it. */
static int remove_folder(void *arg)
{
	const char *path = arg, *base = strrchr(path, '/');
	char parent[TRAWL_CTL_PATH_MAX * 4];
	int fd;

	if (!base || !base[1] || base == path ||
	    trawl_path_fmt(parent, sizeof(parent), "%.*s", (int)(base - path), path))
		return -EINVAL;
	fd = trawl_fs_dir_open(AT_FDCWD, parent, 0, 0, NULL, 0);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	remove_tree(fd, base + 1, 0);
	close(fd);
	return 0;
}

static int mkdir_folder(void *arg)
{
	int fd = trawl_fs_dir_open(AT_FDCWD, arg, TRAWL_FS_CREATE, 0770, NULL, 0);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

int sd_mkdir_folder_begin(struct sd_owner_job *j, uid_t uid, gid_t gid, const char *path)
{
	return sd_owner_begin(j, uid, gid, mkdir_folder, (void *)path);
}

int sd_remove_folder_begin(struct sd_owner_job *j, uid_t uid, gid_t gid, const char *path)
{
	return sd_owner_begin(j, uid, gid, remove_folder, (void *)path);
}

/*
 * rotate: the chunk that ended goes to output/archives/...: chunk 0 (the
 * output folder itself) by its ust/ and kernel/ folders, a later one whole.
 */
static int archive_chunk(void *arg)
{
	const struct sd_chunk_job *j = arg;
	int out = trawl_fs_dir_open(AT_FDCWD, j->output, 0, 0, NULL, 0), ret = 0, dst;
	const char *rel = j->chunk + strlen(j->output);

	if (out < 0)
		return out;
	if (!rel[0]) {
		dst = trawl_fs_dir_open(out, j->archive, TRAWL_FS_CREATE | TRAWL_FS_BELOW, 0770,
					NULL, 0);
		if (dst < 0) {
			close(out);
			return dst;
		}
		if (renameat(out, "ust", dst, "ust") && errno != ENOENT)
			ret = -errno;
		if (renameat(out, "kernel", dst, "kernel") && errno != ENOENT && !ret)
			ret = -errno;
		close(dst);
	} else {
		dst = trawl_fs_dir_open(out, "archives", TRAWL_FS_CREATE | TRAWL_FS_BELOW, 0770,
					NULL, 0);
		if (dst < 0) {
			close(out);
			return dst;
		}
		/* a chunk nothing was written in has no folder: an empty archive */
		if (renameat(out, rel + 1, out, j->archive)) {
			ret = errno == ENOENT ? 0 : -errno;
			if (!ret) {
				int fd = trawl_fs_dir_open(out, j->archive,
							   TRAWL_FS_CREATE | TRAWL_FS_BELOW, 0770,
							   NULL, 0);

				if (fd < 0)
					ret = fd;
				else
					close(fd);
			}
		}
		close(dst);
	}
	close(out);
	return ret;
}

/*
 * destroy: the last chunk is archived as a rotation would (LTTng's
 * implicit rotation at the destroy of a rotated session): a chunk nothing
 * was written in is an empty archive.
 */
static int archive_last(void *arg)
{
	const struct sd_chunk_job *j = arg;
	const char *rel = j->chunk + strlen(j->output);

	if (!rel[0])
		return -EINVAL; /* a rotated session's chunk is below its output */
	/* cleared or rotated since its stop: no archive, as LTTng, and its
	 * folder goes if it is empty (rmdir never follows a link) */
	if (!j->archive[0])
		return rmdir(j->chunk) && errno != ENOENT && errno != ENOTEMPTY ? -errno : 0;
	return archive_chunk(arg);
}

/* (at the daemon's exit: the folder may be on a file system that holds the
 * child, which is given owner-ms, then killed) */
static int run_as(const struct sd_session *s, int (*fn)(void *), struct sd_chunk_job *j)
{
	return sd_owner_run(s->uid, s->gid, fn, j);
}

/* ---- names ------------------------------------------------------------------ */

/* LTTng's chunk time: 20261204T185741+0000 (local time). */
static void chunk_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	localtime_r(&t, &tm);
	if (!strftime(buf, len, "%Y%m%dT%H%M%S%z", &tm))
		buf[0] = '\0';
}

/* The archive's name below output: archives/BEGIN-END-ID. */
static int archive_name(const struct sd_session *s, time_t end, char *buf, size_t len)
{
	char b[32], e[32];

	chunk_time(b, sizeof(b), (time_t)s->chunk_begin);
	chunk_time(e, sizeof(e), end);
	return trawl_path_fmt(buf, len, "archives/%s-%s-%llu", b, e,
			      (unsigned long long)s->chunk_id);
}

/* A streaming session's chunk folder @chunk as relayd names it (proto.h's
 * CHUNK): "" for chunk 0 (the session folder), else its last component. */
static const char *relay_chunk_name(const struct sd_session *s, const char *chunk)
{
	const char *slash = strrchr(chunk, '/');

	return !chunk[0] || !strcmp(chunk, s->relay) || !slash ? "" : slash + 1;
}

/* ---- clear ------------------------------------------------------------------ */

static int writes_files(const struct sd_session *s)
{
	return s->output[0] == '/' && !s->relay[0] && !s->snapshot;
}

/* clear, one domain: its consumers may be waited for (sd_op_domains()) */
static int clear_step(struct sd_session *s, int i, void *arg, struct trawl_domain_err *err)
{
	(void)arg;
	return s->dom[i].ops->clear(s->dom[i].ds, err);
}

static void clear_end(struct sd_session *s, int i, int ret, const struct trawl_domain_err *err,
		      void *arg, struct sd_reply *r)
{
	(void)arg;
	if (ret) {
		sd_fail(r, ret, "Consumer failed to clear the session '%s' (%s): %s", s->name,
			sd_domain_name((uint32_t)i), err->msg[0] ? err->msg : strerror(-ret));
		return;
	}
	if (!s->active)
		s->cleared_after_stop = 1;
	s->chunk_bytes_base = 0;
	/* LTTng's clear is a rotation that deletes the chunk it ends: the
	 * chunk after it has the next ID and begins now (the archive names
	 * of later rotations and of destroy say so). Its files stay where
	 * they were. */
	if (s->output[0] || s->relay[0]) {
		s->chunk_id++;
		s->chunk_begin = (int64_t)time(NULL);
	}
}

/*
 * Streaming, before the domains: relayd removes the per-process traces of
 * programs that exited (no consumer has them; the traces a connection
 * writes in are the consumers' to clear next), awaited (relayd/proto.h's
 * CHUNK, then a PING), so that what the clear leaves is there when it
 * returns, as LTTng's; or refuses (a relayd that does not allow clears,
 * as LTTng's with LTTNG_RELAYD_DISALLOW_CLEAR), and nothing is cleared.
 */
static int clear_before(struct sd_session *s, void *arg, struct sd_owner_job *job, char *what,
			size_t len)
{
	int ret;

	(void)arg;
	if (!s->relay[0])
		return 0;
	trawl_msg_fmt(what, len, "trawl-relayd refuses to clear session '%s'", s->name);
	ret = sd_relay_chunk_begin(s, job, TRAWL_RELAY_CHUNK_CLEAR, relay_chunk_name(s, s->chunk),
				   "", "");
	return ret == -EINPROGRESS ? ret : 0; /* (no connection: the consumers say so) */
}

/*
 * Streaming, after the domains: the same again, for the per-process traces
 * whose programs exited while the consumers cleared (their files were
 * open at the first: neither relayd nor a consumer removed them).
 */
static int clear_after(struct sd_session *s, void *arg, struct sd_owner_job *job, char *what,
		       size_t len)
{
	int ret;

	(void)arg;
	if (!s->relay[0])
		return 0;
	trawl_msg_fmt(what, len, "cannot clear the trace chunk on trawl-relayd");
	ret = sd_relay_chunk_begin(s, job, TRAWL_RELAY_CHUNK_CLEAR, relay_chunk_name(s, s->chunk),
				   "", "");
	return ret == -EINPROGRESS ? ret : 0;
}

/* relayd's part of a clear or rotation: its failure is logged (relay.c),
 * not the command's (the consumers did theirs, and confirmed it); but a
 * clear relayd refuses is refused. */
static int relay_job_done(void *arg, int stage, int ret)
{
	(void)arg;
	return stage == 1 && ret == -EPERM ? ret : 0;
}

static const struct sd_domains_cmd clear_cmd = {
	.what = "a clear",
	.step = clear_step,
	.end = clear_end,
	.before = clear_before,
	.after = clear_after,
	.job_done = relay_job_done,
};

static void session_clear(struct sd_session *s, struct sd_reply *r)
{
	int i;

	if (!s->started_once || s->cleared_after_stop || s->rotated_after_stop)
		return; /* nothing to clear, as LTTng: not an error */
	for (i = 1; i < SD_NR_DOMAINS; i++)
		if (s->relay[0] && s->dom[i].ops && s->dom[i].ds &&
		    s->dom[i].ops->type == TRAWL_CTL_DOMAIN_KERNEL)
			return (void)sd_fail(r, -EOPNOTSUPP, "clearing the kernel domain of a session "
							     "that streams to trawl-relayd is not "
							     "supported by trawl yet (session '%s')",
					     s->name);
	for (i = 1; i < SD_NR_DOMAINS; i++)
		if (s->dom[i].ops && s->dom[i].ds && !s->dom[i].ops->clear)
			return (void)sd_fail(r, -EOPNOTSUPP, "clearing the %s domain is not "
							     "supported by trawl yet (session '%s')",
					     sd_domain_name((uint32_t)i), s->name);
	sd_op_domains(s, &clear_cmd, NULL, 0, r);
}

void sd_cmd_clear(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		  struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);

	if (s)
		session_clear(s, r);
}

/* ---- rotate ----------------------------------------------------------------- */

/*
 * Bytes the session's domains have written, as far as known (status): the
 * consumers' counters as of their last answer, and asked again without
 * waiting (status_ask(): the loop never waits for a consumer), so the next
 * tick has them.
 */
static uint64_t session_bytes(struct sd_session *s)
{
	uint64_t n = 0;
	int i;

	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];
		struct trawl_domain_status st = {.consumer_alive = 1};

		if (d->ops && d->ds && d->ops->status_ask && !s->op)
			d->ops->status_ask(d->ds);
		if (d->ops && d->ds && d->ops->status && !d->ops->status(d->ds, &st))
			n += st.bytes_written;
	}
	return n;
}

/* LTTng's refusals of a rotation of @s, in its words; 0 if it may rotate. */
static int rotate_refused(struct sd_session *s, struct sd_reply *r)
{
	int i;

	if (!s->started_once)
		return sd_fail(r, -EBUSY, "Session needs to be started once (session '%s')",
			       s->name);
	if (s->live || s->snapshot || (!s->relay[0] && s->output[0] != '/'))
		return sd_fail(r, -EOPNOTSUPP, "Rotation feature not available for this "
					       "session's creation mode (session '%s')", s->name);
	for (i = 1; i < SD_NR_DOMAINS; i++)
		if (s->relay[0] && s->dom[i].ops && s->dom[i].ds &&
		    s->dom[i].ops->type == TRAWL_CTL_DOMAIN_KERNEL)
			return sd_fail(r, -EOPNOTSUPP, "rotating the kernel domain of a session that "
						       "streams to trawl-relayd is not supported by "
						       "trawl yet (session '%s')", s->name);
	for (i = 1; i < SD_NR_DOMAINS; i++)
		if (s->dom[i].ops && s->dom[i].ds && !s->dom[i].ops->rotate)
			return sd_fail(r, -EOPNOTSUPP, "rotating the %s domain is not supported by "
						       "trawl yet (session '%s')",
				       sd_domain_name((uint32_t)i), s->name);
	return 0;
}

/* A rotation under way (sd_op_domains()'s argument). */
struct rotate_job {
	struct sd_chunk_job cj; /* the archive's move (rotate_after()) */
	time_t now;    /* the chunk that ends, ends then */
	int scheduled; /* no client: its failure is logged */
	int relay;     /* streaming: the archive is relayd's to make */
	char chunk[TRAWL_CTL_PATH_MAX]; /* the new chunk's folder */
	char archive[TRAWL_CTL_PATH_MAX]; /* archives/BEGIN-END-ID, below the output */
	char archive_path[TRAWL_CTL_PATH_MAX * 2];
};

static int rotate_step(struct sd_session *s, int i, void *arg, struct trawl_domain_err *err)
{
	const struct rotate_job *j = arg;

	return s->dom[i].ops->rotate(s->dom[i].ds, j->chunk, s->relay[0] ? j->archive : "", err);
}

/*
 * Every domain went on in the new chunk: the one that ended is archived.
 * A domain's failure (its consumer could not write all of the chunk, or
 * died during the rotation) is the rotation's line, but its traces went on
 * in the new chunk all the same (domain.h's rotate), and so did the other
 * domains' (rotate_cmd.go_on), and the chunk was archived: the daemon
 * takes the new chunk too. It once kept the old one, and the chunk the
 * consumers wrote in next was never archived; the next rotation archived
 * the old chunk's folder again, and a streamed session's failed.
 */
static void rotate_end(struct sd_session *s, int i, int ret, const struct trawl_domain_err *err,
		       void *arg, struct sd_reply *r)
{
	struct rotate_job *j = arg;

	if (ret && i) {
		sd_fail(r, ret, "Rotation failure on consumer (session '%s', %s): %s", s->name,
			sd_domain_name((uint32_t)i), err->msg[0] ? err->msg : strerror(-ret));
	} else if (ret) {
		/* (the chunk ended either way: a failed archive leaves it where it was) */
		sd_fail(r, ret, "%s", err->msg);
	} else {
		struct trawl_ctl_wire_rotation body = {.chunk_id = s->chunk_id};
		const char *strs[] = {s->name, j->archive_path};

		sd_reply_rec(r, TRAWL_CTL_ITEM_ROTATION, &body, strs);
	}
	sd_log("session %s: trace chunk %llu %s %s", s->name, (unsigned long long)s->chunk_id,
	       ret ? "ended, the rotation failed; its archive:" : "archived in", j->archive_path);
	s->chunk_id++;
	s->chunk_begin = (int64_t)j->now;
	trawl_path_fmt(s->chunk, sizeof(s->chunk), "%s", j->chunk);
	s->rotations++;
	if (!s->active)
		s->rotated_after_stop = 1;
	s->chunk_bytes_base = session_bytes(s);
	s->next_rotation_ms = s->rotation_timer_us ? sd_now_ms() + s->rotation_timer_us / 1000
						   : 0;
	if (j->scheduled && r->status)
		sd_log("session %s: scheduled rotation: %s", s->name, r->head.err);
}

/* Every domain went on in the new chunk: the one that ended is moved to
 * archives/ by a child as the owner, awaited in the loop. */
static int rotate_after(struct sd_session *s, void *arg, struct sd_owner_job *job, char *what,
			size_t len)
{
	struct rotate_job *j = arg;

	/* streaming: the consumers had relayd move their traces (rotate_step());
	 * relayd moves what is left (per-process traces of programs that
	 * exited), makes an empty chunk's archive folder and the new chunk's
	 * folder (none while stopped), as LTTng's; awaited, as the consumers' */
	if (s->relay[0]) {
		trawl_msg_fmt(what, len, "cannot archive the trace chunk on trawl-relayd at %.150s%s",
			      s->output,
			      s->relay_fd < 0 ? " (its connection was lost: the session daemon "
						"is connecting again, try again)"
					      : "");
		/*
		 * What relayd answers is logged (relay_job_done()); but with no
		 * connection to it the archive is not made, whatever the
		 * consumers did (they may hold no trace of the session: its
		 * programs exited, or a consumer started again could not make
		 * them again), and the rotation fails: it once printed the
		 * archive's path on a relayd that was gone (relayd-rotate-kill,
		 * relayd-rotate-killpid).
		 */
		return sd_relay_chunk_begin(s, job, TRAWL_RELAY_CHUNK_CLOSE,
					    relay_chunk_name(s, s->chunk), j->archive,
					    s->active ? relay_chunk_name(s, j->chunk) : "");
	}
	j->cj = (struct sd_chunk_job){.output = s->output, .chunk = s->chunk, .archive = j->archive};
	trawl_msg_fmt(what, len, "cannot archive the trace chunk in %s", j->archive_path);
	/* The consumers are in the new chunk already: refused here, the one
	 * that ended would stay unarchived. So it waits past the owner's cap
	 * (as-owner.c); j and the session stay until it is over. */
	job->queue = 1;
	return sd_owner_begin(job, s->uid, s->gid, archive_chunk, &j->cj);
}

/* (a local archive's failure ends the rotation; relayd's is logged) */
static int rotate_job_done(void *arg, int stage, int ret)
{
	const struct rotate_job *j = arg;

	return j->relay ? relay_job_done(arg, stage, ret) : ret;
}

static const struct sd_domains_cmd rotate_cmd = {
	.what = "a rotation",
	.step = rotate_step,
	.end = rotate_end,
	.after = rotate_after,
	.job_done = rotate_job_done,
	.go_on = 1,
};

/*
 * Begins a rotation of @s (@scheduled: by its schedule, no client): its
 * domains' consumers are waited for in the loop, the archive made after
 * (rotate_end()). 0 once begun (the outcome in @r, now or later), else
 * what kept it from beginning (in @r).
 */
static int session_rotate(struct sd_session *s, int scheduled, struct sd_reply *r)
{
	/* a streaming session's chunks are relay destinations (consumerd/output.h) */
	const char *base = s->relay[0] ? s->relay : s->output;
	char stamp[32];
	struct rotate_job *j;
	int ret, i;

	if (s->rotated_after_stop)
		return sd_fail(r, -EBUSY, "Session was already rotated once since it became "
					  "inactive (session '%s')", s->name);
	if (s->cleared_after_stop)
		return sd_fail(r, -EBUSY, "Session was already cleared since it became inactive "
					  "(session '%s')", s->name);
	j = calloc(1, sizeof(*j));
	if (!j)
		return sd_fail(r, -ENOMEM, "out of memory");
	j->now = time(NULL);
	j->scheduled = scheduled;
	j->relay = s->relay[0] != '\0';
	if (!s->chunk[0])
		trawl_path_fmt(s->chunk, sizeof(s->chunk), "%s", base);
	chunk_time(stamp, sizeof(stamp), j->now);
	ret = trawl_path_fmt(j->chunk, sizeof(j->chunk), "%s/%s-%llu", base, stamp,
			     (unsigned long long)s->chunk_id + 1);
	if (!ret)
		ret = archive_name(s, j->now, j->archive, sizeof(j->archive));
	if (!ret)
		ret = s->relay[0] ? sd_relay_location(s, s->output, j->archive, j->archive_path,
						      sizeof(j->archive_path))
				  : trawl_path_fmt(j->archive_path, sizeof(j->archive_path),
						   "%s/%s", s->output, j->archive);
	if (ret) {
		free(j);
		return sd_fail(r, -ENAMETOOLONG, "trace chunk folder too long: %s", s->output);
	}
	/* Every domain can go on in the new chunk, or none goes (domain.h's
	 * rotate_ready): the chunk and its archive stay whole. */
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct trawl_domain_err err = {""};

		if (!s->dom[i].ops || !s->dom[i].ds || !s->dom[i].ops->rotate_ready)
			continue;
		ret = s->dom[i].ops->rotate_ready(s->dom[i].ds, j->chunk, &err);
		if (ret) {
			free(j);
			sd_log("session %s: rotation refused, trace chunk %llu goes on: %s", s->name,
			       (unsigned long long)s->chunk_id, err.msg);
			return sd_fail(r, ret, "Rotation failure on consumer (session '%s', %s): %s",
				       s->name, sd_domain_name((uint32_t)i),
				       err.msg[0] ? err.msg : strerror(-ret));
		}
	}
	sd_op_domains(s, &rotate_cmd, j, scheduled, r);
	return 0;
}

void sd_cmd_rotate(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		   struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);

	if (!s || rotate_refused(s, r))
		return;
	session_rotate(s, 0, r);
}

void sd_session_started(struct sd_session *s)
{
	if (!s->started_once)
		s->chunk_begin = (int64_t)time(NULL);
	s->cleared_after_stop = 0;
	s->rotated_after_stop = 0;
	if (s->rotation_timer_us)
		s->next_rotation_ms = sd_now_ms() + s->rotation_timer_us / 1000;
}

int sd_session_archive_last_begin(struct sd_session *s)
{
	/* (in the session: a queued job's child reads it when it starts) */
	s->last_cj = (struct sd_chunk_job){
		.output = s->output, .chunk = s->chunk, .archive = s->last_archive};
	s->last_archive[0] = '\0';
	if (!s->rotations || !writes_files(s) || !s->chunk[0])
		return 0;
	/* cleared or rotated since its stop: LTTng's clear or rotation ended
	 * that chunk and no other began (archive_last() removes its empty
	 * folder, if there is one) */
	if (!s->cleared_after_stop && !s->rotated_after_stop &&
	    archive_name(s, time(NULL), s->last_archive, sizeof(s->last_archive))) {
		s->last_archive[0] = '\0';
		return 0;
	}
	/* A destroy is not refused past the owner's cap of children: it waits
	 * (the chunk would go unarchived, the session half torn down). */
	s->last_job.queue = 1;
	return sd_owner_begin(&s->last_job, s->uid, s->gid, archive_last, &s->last_cj);
}

int sd_session_relay_archive_begin(struct sd_session *s, struct sd_reply *r)
{
	char stamp[32], chunk[TRAWL_CTL_PATH_MAX];
	struct sd_reply scratch = {0};
	time_t now = time(NULL);
	int i, begun = 0, refused;

	s->last_archive[0] = '\0';
	/* (rotated since its stop: the chunk that ended then was the last) */
	if (!s->relay[0] || !s->rotations || s->rotated_after_stop || s->cleared_after_stop)
		return 0;
	refused = rotate_refused(s, &scratch);
	free(scratch.recs);
	if (refused)
		return 0;
	chunk_time(stamp, sizeof(stamp), now);
	if (archive_name(s, now, s->last_archive, sizeof(s->last_archive)) ||
	    trawl_path_fmt(chunk, sizeof(chunk), "%s/%s-%llu", s->relay, stamp,
			   (unsigned long long)s->chunk_id + 1)) {
		s->last_archive[0] = '\0';
		return 0;
	}
	for (i = 1; i < SD_NR_DOMAINS; i++) {
		struct sd_domain *d = &s->dom[i];
		struct trawl_domain_err err = {""};
		int ret;

		s->op_wait[i] = 0;
		if (!d->ops || !d->ds)
			continue;
		begun = 1;
		ret = d->ops->rotate(d->ds, chunk, s->last_archive, &err);
		if (ret == -EINPROGRESS)
			s->op_wait[i] = 1;
		else if (ret)
			sd_session_relay_archived(s, ret, err.msg, r);
	}
	if (!begun) /* no consumer to wait for: relayd archives what is left */
		sd_session_relay_archived(s, 0, "", r);
	return begun;
}

void sd_session_relay_archived(struct sd_session *s, int ret, const char *msg, struct sd_reply *r)
{
	char path[TRAWL_CTL_PATH_MAX * 2];
	struct trawl_ctl_wire_rotation body = {.chunk_id = s->chunk_id};
	const char *strs[] = {s->name, path};

	if (!s->last_archive[0])
		return; /* failed already: said once */
	if (ret) {
		sd_log("session %s: cannot archive its last trace chunk on trawl-relayd: %s", s->name,
		       msg[0] ? msg : strerror(-ret));
		if (r && !r->status)
			sd_fail(r, ret, "cannot archive the last trace chunk of session '%s' on "
					"trawl-relayd: %s", s->name, msg[0] ? msg : strerror(-ret));
		s->last_archive[0] = '\0';
		return;
	}
	/* what no consumer archived, and an empty chunk's folder (rotate_end()) */
	sd_relay_chunk(s, TRAWL_RELAY_CHUNK_CLOSE, relay_chunk_name(s, s->chunk), s->last_archive,
		       "");
	sd_log("session %s: last trace chunk %llu archived in %s on trawl-relayd", s->name,
	       (unsigned long long)s->chunk_id, s->last_archive);
	if (r && !sd_relay_location(s, s->output, s->last_archive, path, sizeof(path)))
		sd_reply_rec(r, TRAWL_CTL_ITEM_ROTATION, &body, strs);
	s->last_archive[0] = '\0';
}

void sd_session_archive_last(struct sd_session *s)
{
	char archive[TRAWL_CTL_PATH_MAX];
	struct sd_chunk_job j = {.output = s->output, .chunk = s->chunk, .archive = archive};
	int ret;

	archive[0] = '\0';
	if (!s->rotations || !writes_files(s) || !s->chunk[0] ||
	    (!s->cleared_after_stop && !s->rotated_after_stop &&
	     archive_name(s, time(NULL), archive, sizeof(archive))))
		return;
	/* cleared or rotated since its stop: archive "" (above) */
	ret = run_as(s, archive_last, &j);
	if (!ret && !archive[0])
		return;
	if (ret)
		sd_log("session %s: cannot archive its last trace chunk: %s", s->name,
		       strerror(-ret));
	else
		sd_log("session %s: last trace chunk %llu archived in %s/%s", s->name,
		       (unsigned long long)s->chunk_id, s->output, archive);
}

/* ---- schedules -------------------------------------------------------------- */

void sd_rotation_recs(struct sd_reply *r, const struct sd_session *s)
{
	struct trawl_ctl_wire_rotation_schedule body = {.kind = TRAWL_CTL_ROTATION_TIMER};

	if (s->rotation_timer_us) {
		body.value = s->rotation_timer_us;
		sd_reply_rec(r, TRAWL_CTL_ITEM_ROTATION_SCHEDULE, &body, NULL);
	}
	if (s->rotation_size) {
		body.kind = TRAWL_CTL_ROTATION_SIZE;
		body.value = s->rotation_size;
		sd_reply_rec(r, TRAWL_CTL_ITEM_ROTATION_SCHEDULE, &body, NULL);
	}
}

static int tick_fd = -1;

/* Rotates the sessions whose schedule says so (at the top of the loop: never nested). */
static void rotation_tick(void)
{
	struct sd_session *s;
	uint64_t now = sd_now_ms();

	for (s = sd.sessions; s; s = s->next) {
		struct sd_reply r = {0};
		int due = 0;

		if (!s->active || s->op || (!s->rotation_timer_us && !s->rotation_size))
			continue;
		if (s->rotation_timer_us && now >= s->next_rotation_ms)
			due = 1;
		if (!due && s->rotation_size) {
			uint64_t n = session_bytes(s);

			if (n < s->chunk_bytes_base) /* new files (a clear) */
				s->chunk_bytes_base = n;
			due = n - s->chunk_bytes_base >= s->rotation_size;
		}
		if (!due)
			continue;
		/* (its consumers' answers awaited in the loop: rotate_end() logs a failure) */
		if (rotate_refused(s, &r) || session_rotate(s, 1, &r))
			sd_log("session %s: scheduled rotation: %s", s->name, r.head.err);
		free(r.recs);
	}
}

static int tick_pending;

static void tick_ready(int fd, short revents, void *arg)
{
	uint64_t n;

	(void)revents;
	(void)arg;
	if (read(fd, &n, sizeof(n)) < 0)
		return;
	tick_pending = 1;
}

static void tick_on_top(void)
{
	if (!tick_pending)
		return;
	tick_pending = 0;
	rotation_tick();
}

static int tick_arm(void)
{
	struct itimerspec its = {
		.it_interval = {0, SD_ROTATION_TICK_MS * 1000000L},
		.it_value = {0, SD_ROTATION_TICK_MS * 1000000L},
	};

	if (tick_fd >= 0)
		return 0;
	tick_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (tick_fd < 0)
		return -errno;
	if (timerfd_settime(tick_fd, 0, &its, NULL) || sd_watch_add(tick_fd, tick_ready, NULL)) {
		close(tick_fd);
		tick_fd = -1;
		return -EIO;
	}
	sd_loop_on_top(tick_on_top);
	return 0;
}

void sd_cmd_rotation(uint16_t cmd, const struct trawl_ctl_wire_req *req,
		     const struct sd_peer *p, struct sd_reply *r)
{
	struct sd_session *s = sd_session_lookup(req->session, p, r);
	int timer = req->rotation_kind == TRAWL_CTL_ROTATION_TIMER;
	const char *what = timer ? "periodic" : "size-based";
	int ret;

	if (!s)
		return;
	if (req->rotation_kind != TRAWL_CTL_ROTATION_TIMER &&
	    req->rotation_kind != TRAWL_CTL_ROTATION_SIZE)
		return (void)sd_fail(r, -EINVAL, "unknown rotation schedule");
	if (cmd == TRAWL_CTL_CMD_ROTATION_UNSET) {
		if (timer ? !s->rotation_timer_us : !s->rotation_size)
			return (void)sd_fail(r, -ENOENT, "No %s rotation schedule active on session %s",
					     what, s->name);
		if (timer)
			s->rotation_timer_us = 0;
		else
			s->rotation_size = 0;
		return;
	}
	if (!req->rotation_value)
		return (void)sd_fail(r, -EINVAL, "Invalid value for --%s option",
				     timer ? "timer" : "size");
	if (s->live || s->snapshot || (!s->relay[0] && s->output[0] != '/'))
		return (void)sd_fail(r, -EOPNOTSUPP, "Rotation feature not available for this "
						     "session's creation mode (session '%s')",
				     s->name);
	if (timer ? s->rotation_timer_us : s->rotation_size)
		return (void)sd_fail(r, -EEXIST, "A %s rotation schedule is already set on session %s",
				     what, s->name);
	ret = tick_arm();
	if (ret)
		return (void)sd_fail(r, ret, "cannot arm the rotation timer: %s", strerror(-ret));
	if (timer) {
		s->rotation_timer_us = req->rotation_value;
		s->next_rotation_ms = sd_now_ms() + s->rotation_timer_us / 1000;
	} else {
		s->rotation_size = req->rotation_value;
		if (s->started_once)
			s->chunk_bytes_base = session_bytes(s);
	}
}
