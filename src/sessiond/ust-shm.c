/* SPDX-License-Identifier: MIT */
/*
 * ust-shm.c - a --shm-path session's buffers as files (LTTng's layout):
 *
 *   SHM/uid/UID/BITS-bit/   per-user buffers      SHM/pid/NAME-PID-DATE/   per-process
 *       metadata            the trace's TSDL text, rewritten at each change
 *       CHANNEL_CPU         one stream's ring buffer (src/ringbuffer), as mapped
 *
 * SHM is the owner's folder: every file in it is created by a process
 * running as the session's owner (an as-owner.c job: a child with only
 * their ids when the daemon is root, the daemon itself when it is theirs),
 * walked with common/fs.h (no link but the owner's own), created O_EXCL |
 * O_NOFOLLOW after unlinking whatever had the name, and handed over to the
 * daemon (sd_owner_hand()). The daemon then works on the fds it was handed:
 * mapping them, writing the metadata through one. So a link to a folder of
 * root's in SHM makes the owner's child fail with EACCES; root itself opens
 * nothing there.
 *
 * The folder may be on a file system that does not answer (the owner's
 * FUSE file system, a stopped NFS server): the root daemon does not wait
 * for the child. A trace's files are made in one job per batch (its
 * metadata and the channels the session has when the trace is made; a
 * channel added later, in a job of its own), read by the loop as they come,
 * within owner-ms. Meanwhile an app that needs a channel whose files are
 * being made waits for it (app_sync(): its set-up goes on when the job
 * reports, as for a live channel), and a start waits for the jobs its apps
 * began (domain-ust.c), the loop serving everyone else. A batch that fails
 * fails every app of the trace that needs it, in one line, until the
 * session's next start tries again.
 *
 * What is made is removed when the trace goes (the session's destroy, a
 * per-process trace whose program exited), as LTTng does: the files by
 * name, then each folder up to SHM if it is empty, as the owner, off the
 * loop, never following a link. Files a crash left (the daemons killed)
 * stay: they are what `trawl crash` reads (src/cli/cmd-crash.c).
 */
#include "common/fs.h"
#include "sessiond/ust-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { SHM_NONE, SHM_MAKING, SHM_READY, SHM_FAILED };

/* A channel's buffer files in one trace. */
struct shm_chan {
	int state; /* SHM_* */
	int ret;   /* SHM_FAILED: why */
	int made;  /* files of it were made (removed when the trace goes) */
	char name[TRAWL_DOMAIN_NAME_MAX]; /* the channel's, for the files' names */
	uint32_t nr;                       /* its files (streams) */
	int *fds;                          /* SHM_READY: owned, until taken */
};

/* One file the child makes (or removes): DIR/name, @size bytes of zeros. */
struct shm_file {
	char name[TRAWL_DOMAIN_NAME_MAX + 16];
	uint64_t size;
};

/* What a child does, as the owner: read by it (fork's copy). */
struct shm_plan {
	char dir[TRAWL_CTL_PATH_MAX + TRAWL_CONS_PATH_LEN]; /* SHM/REL */
	size_t top_len; /* removal: strlen(SHM): folders are removed up to it */
	uint32_t nr;
	struct shm_file files[];
};

struct ust_shm {
	uid_t uid;
	gid_t gid;
	char top[TRAWL_CTL_PATH_MAX]; /* SHM (the session's --shm-path folder) */
	char rel[TRAWL_CONS_PATH_LEN]; /* the trace's folder under it */
	int meta_state, meta_ret, meta_made;
	struct shm_chan *chans; /* by channel index */
	uint32_t nr_chans;
	/* The batch being made: its plan, its slots' fds; slot 0 the metadata
	 * (when meta_state is SHM_MAKING), then each SHM_MAKING channel's
	 * files, in index order. */
	struct sd_owner_job job;
	struct shm_plan *plan;
	int *job_fds;
	struct trawl_domain_session *s; /* (for the line of a failure) */
	struct ust_trace *t;
};

/* ---- as the owner (in the job's child) ---- */

/* The new file @f in folder @dfd, handed over as @slot. */
static int file_make(int dfd, const struct shm_file *f, uint32_t slot)
{
	int fd, ret;

	/* A new inode, never whatever had the name (fs.h's rule). */
	if (unlinkat(dfd, f->name, 0) && errno != ENOENT)
		return -errno;
	fd = openat(dfd, f->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (f->size && ftruncate(fd, (off_t)f->size)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return sd_owner_hand(slot, fd);
}

static int plan_make(void *arg)
{
	const struct shm_plan *p = arg;
	uint32_t i;
	int dfd, ret = 0;

	dfd = trawl_fs_dir_open(AT_FDCWD, p->dir, TRAWL_FS_CREATE, 0770, NULL, 0);
	if (dfd < 0)
		return dfd;
	for (i = 0; i < p->nr && !ret; i++)
		ret = file_make(dfd, &p->files[i], i);
	/* a batch is whole or not at all: what it made before it failed goes */
	while (ret && i-- > 0)
		unlinkat(dfd, p->files[i].name, 0);
	close(dfd);
	return ret;
}

/* Removes folder @path if it is empty (a link is not followed: fs.h). 0, or
 * -errno (-ENOTEMPTY: something else is in it). */
static int rmdir_empty(const char *path)
{
	const char *base = strrchr(path, '/');
	char parent[sizeof(((struct shm_plan *)0)->dir)];
	int pfd, ret = 0;

	if (!base || !base[1] || base == path ||
	    trawl_path_fmt(parent, sizeof(parent), "%.*s", (int)(base - path), path))
		return -EINVAL;
	pfd = trawl_fs_dir_open(AT_FDCWD, parent, 0, 0, NULL, 0);
	if (pfd < 0)
		return pfd;
	if (unlinkat(pfd, base + 1, AT_REMOVEDIR))
		ret = -errno;
	close(pfd);
	return ret;
}

static int plan_remove(void *arg)
{
	struct shm_plan *p = arg; /* (the child's copy) */
	uint32_t i;
	int dfd;

	dfd = trawl_fs_dir_open(AT_FDCWD, p->dir, 0, 0, NULL, 0);
	if (dfd < 0)
		return dfd == -ENOENT ? 0 : dfd;
	for (i = 0; i < p->nr; i++) {
		struct stat st;

		/* ours only: a regular file (a link or a folder put in its
		 * place stays) */
		if (fstatat(dfd, p->files[i].name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		unlinkat(dfd, p->files[i].name, 0);
	}
	close(dfd);
	/* SHM/REL, then each folder above it up to SHM itself, while empty */
	for (;;) {
		size_t n = strlen(p->dir);
		char *slash;

		if (rmdir_empty(p->dir) || n <= p->top_len)
			break;
		slash = strrchr(p->dir, '/');
		if (!slash || (size_t)(slash - p->dir) < p->top_len)
			break;
		*slash = '\0';
	}
	return 0;
}

/* ---- in the daemon ---- */

static struct shm_plan *plan_new(const struct ust_shm *m, uint32_t nr)
{
	struct shm_plan *p = calloc(1, sizeof(*p) + (size_t)nr * sizeof(p->files[0]));

	if (!p)
		return NULL;
	if (trawl_path_fmt(p->dir, sizeof(p->dir), "%s/%s", m->top, m->rel)) {
		free(p);
		errno = ENAMETOOLONG;
		return NULL;
	}
	p->top_len = strlen(m->top);
	return p;
}

static uint32_t nr_streams(void)
{
	uint32_t n = trawl_ustctl_possible_cpus();

	return n > TRAWL_USTCTL_MAX_STREAMS ? TRAWL_USTCTL_MAX_STREAMS : n;
}

static int stream_name(char *buf, size_t len, const char *chan, uint32_t i)
{
	return trawl_path_fmt(buf, len, "%s_%u", chan, i) ? -ENAMETOOLONG : 0;
}

/* The batch is over (@ret its result): its files go where they belong. */
static void batch_over(struct ust_shm *m, int ret)
{
	struct ust_trace *t = m->t;
	uint32_t slot = 0, c;

	if (m->meta_state == SHM_MAKING) {
		m->meta_state = ret ? SHM_FAILED : SHM_READY;
		m->meta_ret = ret;
		m->meta_made |= !ret;
		if (!ret) {
			size_t len;
			char *text;

			t->shm_meta_fd = m->job_fds[0];
			m->job_fds[0] = -1;
			/* what the trace says so far (later: metadata_push()) */
			text = trawl_ctf_trace_metadata(t->ctf, &len);
			if (text)
				ust_shm_metadata(t, text, len);
			free(text);
		}
		slot = 1;
	}
	for (c = 0; c < m->nr_chans; c++) {
		struct shm_chan *sc = &m->chans[c];

		if (sc->state != SHM_MAKING)
			continue;
		sc->made |= !ret;
		sc->state = ret ? SHM_FAILED : SHM_READY;
		sc->ret = ret;
		if (!ret) {
			memcpy(sc->fds, m->job_fds + slot, sc->nr * sizeof(int));
			memset(m->job_fds + slot, 0xff, sc->nr * sizeof(int)); /* (-1 each) */
		}
		slot += sc->nr;
	}
	if (ret && ret != -ECANCELED) {
		sd_log_peer(m->uid, TRAWL_LOG_WARN, "session %s: cannot make the buffer files in %s: %s",
			    m->s->name, m->plan->dir, sd_owner_strerror(ret));
		if (!m->s->shm_err_ret) {
			m->s->shm_err_ret = ret;
			trawl_msg_fmt(m->s->shm_err, sizeof(m->s->shm_err),
				      "cannot make the buffer files in %s: %s", m->plan->dir,
				      sd_owner_strerror(ret));
		}
	}
	free(m->plan);
	m->plan = NULL;
	free(m->job_fds);
	m->job_fds = NULL;
	m->job.fds = NULL;
	m->job.max_fds = 0;
}

/* as-owner.c's call once the child answered (or was given up on): the apps
 * that wait for these files go on. */
static void batch_done(struct sd_owner_job *j, void *arg)
{
	struct ust_shm *m = arg;

	batch_over(m, j->ret);
	if (sd_loop_nested())
		apps_chans_kick();
	else
		apps_chans_ready();
}

static int chans_fit(struct ust_shm *m, uint32_t n)
{
	struct shm_chan *sc;

	if (n <= m->nr_chans)
		return 0;
	sc = realloc(m->chans, (size_t)n * sizeof(*sc));
	if (!sc)
		return -ENOMEM;
	memset(sc + m->nr_chans, 0, (size_t)(n - m->nr_chans) * sizeof(*sc));
	m->chans = sc;
	m->nr_chans = n;
	return 0;
}

/*
 * Begins making the files @t lacks: its metadata and those of @s's
 * channels whose files were never asked for. -EINPROGRESS while a batch is
 * being made (this one or an earlier one), 0 when nothing is missing (or
 * the batch ran in place: its result is in the states), or a negative errno.
 */
static int batch_begin(struct trawl_domain_session *s, struct ust_trace *t)
{
	struct ust_shm *m = t->shm;
	const struct ust_chan *c;
	uint32_t nr = 0, slot = 0, k, n = nr_streams();
	struct shm_plan *p;
	int ret;

	if (m->plan)
		return -EINPROGRESS;
	for (c = s->chans; c; c = c->next)
		if (chans_fit(m, c->index + 1))
			return -ENOMEM;
	nr += m->meta_state == SHM_NONE;
	for (c = s->chans; c; c = c->next)
		nr += m->chans[c->index].state == SHM_NONE ? n : 0;
	if (!nr)
		return 0;
	p = plan_new(m, nr);
	m->job_fds = malloc((size_t)nr * sizeof(int));
	if (!p || !m->job_fds) {
		free(p);
		free(m->job_fds);
		m->job_fds = NULL;
		return p ? -ENOMEM : -errno;
	}
	if (m->meta_state == SHM_NONE) {
		memcpy(p->files[slot++].name, "metadata", sizeof("metadata"));
		m->meta_state = SHM_MAKING;
	}
	for (c = s->chans; c; c = c->next) {
		struct shm_chan *sc = &m->chans[c->index];
		struct trawl_ustctl_channel_attr ua = {0};
		uint64_t size;

		ua.subbuf_size = c->attr.subbuf_size;
		ua.num_subbuf = c->attr.num_subbuf;
		size = trawl_ustctl_stream_shm_size(&ua);

		if (sc->state != SHM_NONE)
			continue;
		free(sc->fds);
		sc->fds = malloc((size_t)n * sizeof(int));
		if (!sc->fds || trawl_path_fmt(sc->name, sizeof(sc->name), "%s", c->attr.name)) {
			sc->state = SHM_FAILED;
			sc->ret = sc->fds ? -ENAMETOOLONG : -ENOMEM;
			continue;
		}
		sc->nr = n;
		for (k = 0; k < n; k++) {
			sc->fds[k] = -1;
			stream_name(p->files[slot].name, sizeof(p->files[0].name), c->attr.name, k);
			p->files[slot++].size = size;
		}
		sc->state = SHM_MAKING;
	}
	p->nr = slot;
	m->plan = p;
	m->s = s;
	m->job.fds = m->job_fds;
	m->job.max_fds = slot;
	m->job.done = batch_done;
	m->job.arg = m;
	/* (waits past the owner's cap, as-owner.c: the app waits for its
	 * channels meanwhile instead of tracing nothing; p stays until over) */
	m->job.queue = 1;
	ret = sd_owner_begin(&m->job, m->uid, m->gid, plan_make, p);
	if (ret == -EINPROGRESS)
		return ret;
	batch_over(m, ret); /* (ran in place, or could not begin) */
	return 0;
}

int ust_shm_trace_init(struct trawl_domain_session *s, struct ust_trace *t, const struct ust_app *a,
		       struct trawl_domain_err *err)
{
	struct ust_shm *m;
	int ret;

	t->shm_meta_fd = -1;
	t->shm = NULL;
	if (!s->shm_path || !s->shm_path[0])
		return 0;
	if (t->pid ? trawl_path_fmt(t->shm_rel, sizeof(t->shm_rel), "ust/pid/%s-%d-%s", a->info.procname,
				    (int)a->info.pid, a->stamp)
		   : trawl_path_fmt(t->shm_rel, sizeof(t->shm_rel), "ust/uid/%u/%u-bit", (unsigned)a->uid,
				    a->info.bits_per_long)) {
		trawl_domain_err_set(err, "shared memory path %s: too long", s->shm_path);
		return -ENAMETOOLONG;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->uid = s->uid;
	m->gid = s->gid;
	m->job.fd = -1;
	m->t = t;
	if (trawl_path_fmt(m->top, sizeof(m->top), "%s", s->shm_path) ||
	    trawl_path_fmt(m->rel, sizeof(m->rel), "%s", t->shm_rel)) {
		free(m);
		trawl_domain_err_set(err, "shared memory path %s: too long", s->shm_path);
		return -ENAMETOOLONG;
	}
	t->shm = m;
	/* (its metadata and the channels known now, at once; a failure is
	 * said to the apps that need them) */
	ret = batch_begin(s, t);
	return ret == -EINPROGRESS ? 0 : ret == -ENOMEM ? ret : 0;
}

int ust_shm_chan_fds(struct trawl_domain_session *s, struct ust_trace *t, const struct ust_chan *c,
		     const struct trawl_ustctl_channel_attr *ua, int *fds, struct trawl_domain_err *err)
{
	struct ust_shm *m = t->shm;
	struct shm_chan *sc;
	int ret;

	if (c->index >= m->nr_chans || m->chans[c->index].state == SHM_NONE) {
		ret = batch_begin(s, t);
		if (ret && ret != -EINPROGRESS)
			goto failed;
	}
	if (c->index >= m->nr_chans) {
		ret = -ENOMEM;
		goto failed;
	}
	sc = &m->chans[c->index];
	if (sc->state == SHM_MAKING)
		return -EINPROGRESS;
	if (sc->state == SHM_FAILED || sc->nr != ua->nr_streams) {
		ret = sc->state == SHM_FAILED ? sc->ret : -EINVAL;
		goto failed;
	}
	if (sc->state != SHM_READY || sc->fds[0] < 0) {
		ret = -EIO;
		goto failed;
	}
	memcpy(fds, sc->fds, sc->nr * sizeof(int));
	memset(sc->fds, 0xff, sc->nr * sizeof(int)); /* (taken: -1 each) */
	return 0;
failed:
	trawl_domain_err_set(err, "cannot make the buffer files of channel %s in %s/%s: %s", c->attr.name,
			     m->top, m->rel, sd_owner_strerror(ret));
	return ret;
}

int ust_shm_chan_making(const struct ust_trace *t, const struct ust_chan *c)
{
	const struct ust_shm *m = t->shm;

	return m && c->index < m->nr_chans && m->chans[c->index].state == SHM_MAKING;
}

int ust_shm_trace_making(const struct ust_trace *t)
{
	return t && t->shm && t->shm->plan;
}

int ust_shm_making(const struct trawl_domain_session *s)
{
	const struct ust_trace *t;

	for (t = s->traces; t; t = t->next)
		if (t->shm && t->shm->plan)
			return 1;
	return 0;
}

void ust_shm_retry(struct trawl_domain_session *s)
{
	struct ust_trace *t;
	uint32_t c;

	s->shm_err_ret = 0;
	s->shm_err[0] = '\0';
	for (t = s->traces; t; t = t->next) {
		if (!t->shm)
			continue;
		if (t->shm->meta_state == SHM_FAILED)
			t->shm->meta_state = SHM_NONE;
		for (c = 0; c < t->shm->nr_chans; c++)
			if (t->shm->chans[c].state == SHM_FAILED)
				t->shm->chans[c].state = SHM_NONE;
	}
}

/* The removal of a trace's files, a job of its own (the trace is gone). */
struct shm_removal {
	struct sd_owner_job job;
	struct shm_plan *plan;
};

static void removal_done(struct sd_owner_job *j, void *arg)
{
	struct shm_removal *r = arg;

	if (j->ret)
		sd_log("cannot remove the buffer files in %s: %s", r->plan->dir, sd_owner_strerror(j->ret));
	free(r->plan);
	free(r);
}

/* Removes, as the owner and off the loop, the files @m made. */
static void remove_made(const struct ust_shm *m)
{
	struct shm_removal *r;
	uint32_t nr = m->meta_made, c, k, slot = 0;
	int ret;

	for (c = 0; c < m->nr_chans; c++)
		nr += m->chans[c].made ? m->chans[c].nr : 0;
	if (!nr)
		return;
	r = calloc(1, sizeof(*r));
	if (!r)
		return;
	r->plan = plan_new(m, nr);
	if (!r->plan) {
		free(r);
		return;
	}
	if (m->meta_made)
		memcpy(r->plan->files[slot++].name, "metadata", sizeof("metadata"));
	for (c = 0; c < m->nr_chans; c++)
		for (k = 0; m->chans[c].made && k < m->chans[c].nr; k++)
			stream_name(r->plan->files[slot++].name, sizeof(r->plan->files[0].name),
				    m->chans[c].name, k);
	r->plan->nr = slot;
	r->job.fd = -1;
	r->job.done = removal_done;
	r->job.arg = r;
	r->job.queue = 1; /* (a teardown: waits past the owner's cap, never refused) */
	ret = sd_owner_begin(&r->job, m->uid, m->gid, plan_remove, r->plan);
	if (ret == -EINPROGRESS)
		return; /* (removal_done() frees it) */
	r->job.ret = ret;
	removal_done(&r->job, r);
}

void ust_shm_trace_fini(struct ust_trace *t)
{
	struct ust_shm *m = t->shm;
	uint32_t c, k;

	if (!m)
		return;
	if (m->plan) {
		sd_owner_cancel(&m->job); /* (killed: the session goes, or the daemon) */
		batch_over(m, -ECANCELED);
	}
	for (c = 0; c < m->nr_chans; c++) {
		for (k = 0; m->chans[c].fds && m->chans[c].state == SHM_READY && k < m->chans[c].nr; k++)
			if (m->chans[c].fds[k] >= 0)
				close(m->chans[c].fds[k]);
		free(m->chans[c].fds);
	}
	remove_made(m);
	free(m->chans);
	free(m);
	t->shm = NULL;
}

void ust_shm_metadata(struct ust_trace *t, const char *text, size_t len)
{
	size_t off = 0;

	if (t->shm_meta_fd < 0)
		return;
	/* Through the fd the owner's child made: the name is not looked up. A
	 * reader after a crash takes the last whole text; a write cut by the
	 * crash itself leaves a text babeltrace2 may refuse (as LTTng's). */
	while (off < len) {
		ssize_t n = pwrite(t->shm_meta_fd, text + off, len - off, (off_t)off);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			sd_log("%s/metadata: %s", t->shm_rel, n < 0 ? strerror(errno) : "short write");
			return;
		}
		off += (size_t)n;
	}
	if (ftruncate(t->shm_meta_fd, (off_t)len))
		sd_log("%s/metadata: %s", t->shm_rel, strerror(errno));
}
