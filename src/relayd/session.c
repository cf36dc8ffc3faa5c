/* SPDX-License-Identifier: MIT */
/*
 * session.c - relayd's sessions and streaming connections (a trace
 * chunk's ARCHIVE, REMOVE, CLOSE and CLEAR are chunk.c's).
 *
 * A session is one trace folder, <output>/<hostname>/<name>-<YYYYMMDD>-<HHMMSS>/,
 * named by (hostname, name, creation time) in the HELLO of each connection
 * streaming it: the kernel consumer and the user-space consumer of one
 * session open a connection each and meet in the same folder. A session
 * lives while connections reference it; when the last one goes, the live
 * server is told no more data will come.
 *
 * A connection's bytes are buffered until a whole message is in (at most
 * one header plus TRAWL_RELAY_MAX_PAYLOAD), then decoded by proto.c and
 * acted on at once, in order: a consumer sends a packet before its index
 * entry, so the file holds the packet before the index names it.
 *
 * Files are opened relative to the session folder's fd, as common/fs.h
 * walks paths: the decoder has already refused absolute paths and '..',
 * no link is followed, and every file is a new one (whatever had its name
 * is replaced, never written through). A root relayd also refuses an output
 * folder another user could change (main.c). A bad message drops that
 * connection only (logged); what it wrote stays.
 *
 * A write that fails (a full disk) is cut back, so no file ends in half a
 * packet; the connection's writing ends there (logged once): its later
 * messages are read and dropped, and each PING is answered with the error
 * and what was written, so the consumer counts what never landed and says
 * so (proto.h). A packet is one APPEND to a stream file and its index
 * entry the next: an index entry whose packet failed is not written.
 *
 * Losses said in the trace. A session holds back room from its start (a
 * file made in its folder and unlinked at once, TRAWL_RELAY_RESERVE_BYTES
 * per stream file opened, freed by the file system when relayd closes it or
 * dies): at a stop, a consumer whose connection could not write sends SEAL,
 * the room is freed and its writing resumes, so it can end each stream that
 * lost packets with an empty one counting them (consumerd/output.h).
 *
 * Restarts. A session's folder keeps its token (in its extended attribute
 * user.trawl.token, or a hidden .token file on a file system without user
 * attributes): a consumer that reconnects after relayd restarted (or after
 * a network cut outlived the session's other connections) names the same
 * (hostname, name, creation time, token), and its HELLO finds the folder
 * again instead of making a -1 beside it; its RESUMEs then take up each
 * file where what relayd confirmed writing ends. Neither is a file in the
 * folder where the file system allows: LTTng's scripts (and people) expect
 * a session folder to hold the trace only, empty once cleared.
 */
#include "common/array.h"
#include "common/common.h"
#include "common/fs.h"
#include "relayd/proto.h"
#include "relayd/relayd.h"
#include "relayd/session-internal.h"
#ifdef TRAWL_HAVE_LIVE
#include "relayd/live.h"
#endif

#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* A peer that names no session (HELLO) this long after connecting is dropped. */
#define RELAY_HELLO_TIMEOUT_S 10

static char base_dir[PATH_MAX];
static int base_fd = -1; /* base_dir (O_PATH), owned */
static int group_by_session; /* --group-output-by-session */
static int clear_allowed = 1; /* $TRAWL_RELAYD_DISALLOW_CLEAR unset */
static struct relay_live *live_server;
static struct rsession *sessions;
static uint64_t next_session_id = 1;

void relay_sessions_allow_clear(int allowed)
{
	clear_allowed = allowed;
}

void relay_sessions_init(int output_fd, const char *output, int by_session,
			 struct relay_live *live)
{
	base_fd = output_fd;
	group_by_session = by_session;
	snprintf(base_dir, sizeof(base_dir), "%s", output);
	live_server = live;
}

#define TOKEN_XATTR "user.trawl.token"

/* Folder @name below @at, opened to read (no link followed), or -errno. */
int relay_folder_open(int at, const char *name)
{
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* 1 if folder @name below @host is session @token's (its token says so), else 0. */
static int folder_is(int host, const char *name, uint64_t token)
{
	char rel[TRAWL_RELAY_NAME_LEN * 2 + 64], text[32];
	ssize_t n;
	int fd = relay_folder_open(host, name);

	if (fd >= 0) {
		n = fgetxattr(fd, TOKEN_XATTR, text, sizeof(text) - 1);
		close(fd);
		if (n > 0) {
			text[n] = '\0';
			return strtoull(text, NULL, 10) == token;
		}
	}
	/* (a file system without user attributes: the .token file) */
	if (trawl_path_fmt(rel, sizeof(rel), "%s/.token", name))
		return 0;
	fd = trawl_fs_file_read(host, rel, NULL, 0);
	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	text[n] = '\0';
	return strtoull(text, NULL, 10) == token;
}

/*
 * Keeps @s's token with its folder @name below @dir, so a restarted relayd
 * finds it: in the folder's user.trawl.token attribute, or, where the file
 * system has no user attributes, in a hidden .token file.
 */
static void token_write(struct rsession *s, int dir, const char *name)
{
	char text[32], rel[TRAWL_RELAY_NAME_LEN * 2 + 64];
	int fd, n;

	n = snprintf(text, sizeof(text), "%llu\n", (unsigned long long)s->token);
	fd = relay_folder_open(dir, name);
	if (fd >= 0) {
		int ret = fsetxattr(fd, TOKEN_XATTR, text, (size_t)n, 0) ? -errno : 0;

		close(fd);
		if (!ret)
			return;
		if (ret != -ENOTSUP && ret != -EOPNOTSUPP) {
			relayd_log("%s: cannot keep the session's token (a consumer reconnecting "
				   "after a restart will write beside it): %s", s->path,
				   strerror(-ret));
			return;
		}
	}
	fd = trawl_path_fmt(rel, sizeof(rel), "%s/.token", name)
		     ? -ENAMETOOLONG
		     : trawl_fs_file_create(dir, rel, 0640, NULL, 0);
	if (fd < 0 || trawl_write_all(fd, text, (size_t)n))
		relayd_log("%s: cannot keep the session's token (a consumer reconnecting after a "
			   "restart will write beside it)", s->path);
	if (fd >= 0)
		close(fd);
}

/*
 * The output folder's fd, opened again (and made again) if it was removed
 * while relayd ran: LTTng's relayd makes the whole path of each session
 * folder, so removing the output folder between sessions is allowed.
 */
static int base_get(void)
{
	struct stat sb;
	int fd;

	if (base_fd >= 0 && !fstat(base_fd, &sb) && sb.st_nlink > 0)
		return base_fd;
	fd = relayd_output_open(base_dir);
	if (fd < 0)
		return fd;
	if (base_fd >= 0)
		close(base_fd);
	base_fd = fd;
	relayd_log("output folder %s was removed: made again", base_dir);
	return base_fd;
}

/*
 * Below @at, the first of NAME, NAME-1, NAME-2... (@name: "PREFIX-STAMP")
 * that is free or is session @s's (its .token says so: relayd restarted);
 * made, and its name left in @name (of @len bytes). *@found: it was @s's.
 * 0 or -errno.
 */
static int folder_free(struct rsession *s, int at, char *name, size_t len, int *found)
{
	char first[TRAWL_RELAY_NAME_LEN * 2 + 48];
	int i, ret = -EEXIST;

	*found = 0;
	if (trawl_path_fmt(first, sizeof(first), "%s", name))
		return -ENAMETOOLONG;
	for (i = 0; i < 1000 && ret == -EEXIST; i++) {
		ret = i ? trawl_path_fmt(name, len, "%s-%d", first, i)
			: trawl_path_fmt(name, len, "%s", first);
		if (!ret)
			ret = mkdirat(at, name, 0750) ? -errno : 0;
		if (ret == -EEXIST && folder_is(at, name, s->token)) {
			*found = 1;
			ret = 0;
		}
	}
	return ret;
}

/*
 * Makes the session's folder (proto.h's HELLO), or finds the one whose
 * .token is @s's (relayd restarted):
 *   by host:    <base>/<hostname>/<session>-<stamp>[-N]  or  <hostname>/<base path>
 *   by session: <base>/<session>/<hostname>-<stamp>[-N][/<base path>]
 * -N: another session, of another daemon or an earlier run, has that
 * folder (its files are never truncated). A base path is shared by every
 * session naming it, as LTTng's. Fills @s's path and dir; 0 or -errno.
 */
static int folder_make(struct rsession *s, const struct trawl_relay_msg *m, const char *stamp)
{
	const char *top = group_by_session ? m->session : m->hostname;
	char name[TRAWL_RELAY_NAME_LEN * 2 + 48], rel[PATH_MAX];
	int at, dir, n, ret, found = 0, base = base_get();

	if (base < 0)
		return base;
	at = trawl_fs_dir_open(base, top, TRAWL_FS_CREATE | TRAWL_FS_BELOW, 0750, NULL, 0);
	if (at < 0)
		return at;
	if (!group_by_session && m->base_path[0]) {
		ret = trawl_path_fmt(rel, sizeof(rel), "%s/%s", top, m->base_path);
		found = 1; /* shared: no .token */
		dir = ret ? ret : trawl_fs_dir_open(at, m->base_path, TRAWL_FS_CREATE | TRAWL_FS_BELOW,
						    0750, NULL, 0);
	} else {
		ret = group_by_session ? trawl_path_fmt(name, sizeof(name), "%s-%s", m->hostname, stamp)
				       : trawl_path_fmt(name, sizeof(name), "%s-%s", m->session, stamp);
		if (!ret)
			ret = folder_free(s, at, name, sizeof(name), &found);
		if (!ret && m->base_path[0])
			ret = trawl_path_fmt(rel, sizeof(rel), "%s/%s/%s", top, name, m->base_path);
		else if (!ret)
			ret = trawl_path_fmt(rel, sizeof(rel), "%s/%s", top, name);
		dir = ret ? ret : trawl_fs_dir_open(base, rel, TRAWL_FS_CREATE | TRAWL_FS_BELOW,
						    0750, NULL, 0);
	}
	n = snprintf(s->path, sizeof(s->path), "%s/%s", base_dir, ret ? top : rel);
	if (n < 0 || (size_t)n >= sizeof(s->path))
		ret = -ENAMETOOLONG;
	if (ret || dir < 0) {
		if (dir >= 0)
			close(dir);
		close(at);
		return ret ? ret : dir;
	}
	s->dir = dir;
	if (!found)
		token_write(s, at, name);
	close(at);
	if (found && !m->base_path[0])
		relayd_log("session %s from %s: taken up again in %s", m->session, m->hostname,
			   s->path);
	return 0;
}

/* Holds back room for one more stream file's seal (best effort: a full disk holds none). */
static void reserve_grow(struct rsession *s)
{
	static const char zero[4096];
	uint32_t i;

	for (i = 0; s->reserve >= 0 && i < TRAWL_RELAY_RESERVE_BYTES / sizeof(zero); i++)
		if (trawl_write_all(s->reserve, zero, sizeof(zero)))
			break;
}

static struct rsession *session_get(const struct trawl_relay_msg *m, int *err)
{
	struct rsession *s;
	struct tm tm;
	time_t t = (time_t)m->creation_time;
	char stamp[32];
	int ret;

	for (s = sessions; s; s = s->next) {
		if (s->token == m->token && !strcmp(s->name, m->session) &&
		    !strcmp(s->hostname, m->hostname)) {
			s->refs++;
			return s;
		}
	}
	if (!localtime_r(&t, &tm) || !strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm)) {
		*err = -EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		*err = -ENOMEM;
		return NULL;
	}
	s->token = m->token;
	ret = folder_make(s, m, stamp);
	if (ret) {
		relayd_log("cannot create %s: %s", s->path, strerror(-ret));
		free(s);
		*err = ret;
		return NULL;
	}
	s->id = next_session_id++;
	/* unlinked at once: its room is held while it is open, and no name is
	 * left in the trace (nor after a crash) */
	s->reserve = trawl_fs_file_create(s->dir, ".reserve", 0600, NULL, 0);
	if (s->reserve >= 0)
		unlinkat(s->dir, ".reserve", 0);
	snprintf(s->name, sizeof(s->name), "%s", m->session);
	snprintf(s->hostname, sizeof(s->hostname), "%s", m->hostname);
	s->refs = 1;
	s->next = sessions;
	sessions = s;
	relayd_log("session %s from %s: %s%s", s->name, s->hostname, s->path,
		   m->flags & TRAWL_RELAY_F_LIVE ? " (live)" : "");
#ifdef TRAWL_HAVE_LIVE
	if (live_server && (m->flags & TRAWL_RELAY_F_LIVE)) {
		ret = relay_live_session_add(live_server, s->id, s->name, s->hostname, s->path,
					     m->live_timer_us);
		if (ret)
			relayd_log("session %s: live viewers cannot attach: %s", s->name,
				   strerror(ret < 0 ? -ret : ret));
		else
			s->live = 1;
	}
#endif
	return s;
}

static void session_put(struct rsession *s)
{
	struct rsession **pp;

	if (!s || --s->refs > 0)
		return;
#ifdef TRAWL_HAVE_LIVE
	if (s->live)
		relay_live_session_close(live_server, s->id);
#endif
	relayd_log("session %s from %s: complete", s->name, s->hostname);
	if (s->reserve >= 0)
		close(s->reserve);
	close(s->dir);
	for (pp = &sessions; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	free(s);
}

static time_t mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

struct relay_conn *relay_conn_create(int fd, const char *peer)
{
	struct relay_conn *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		return NULL;
	}
	c->fd = fd;
	c->accepted = mono_s();
	snprintf(c->peer, sizeof(c->peer), "%s", peer);
	return c;
}

int relay_conn_expired(const struct relay_conn *c)
{
	if (c->s || mono_s() - c->accepted < RELAY_HELLO_TIMEOUT_S)
		return 0;
	relayd_log("%s: no session named in %d s: dropping the connection", c->peer,
		   RELAY_HELLO_TIMEOUT_S);
	return 1;
}

int relay_conn_fd(const struct relay_conn *c)
{
	return c->fd;
}

/* @c no longer streams its session (its files stay open until it goes). */
static void conn_unlink(struct relay_conn *c)
{
	struct relay_conn **pp;

	if (!c->s)
		return;
	for (pp = &c->s->conns; *pp; pp = &(*pp)->s_next) {
		if (*pp == c) {
			*pp = c->s_next;
			break;
		}
	}
	c->s_next = NULL;
	session_put(c->s);
	c->s = NULL;
}

void relay_conn_destroy(struct relay_conn *c)
{
	uint32_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_files; i++) {
		if (c->files[i].fd >= 0)
			close(c->files[i].fd);
		free(c->files[i].rel);
	}
	free(c->files);
	conn_unlink(c);
	close(c->fd);
	free(c->buf);
	free(c);
}

static void reply(struct relay_conn *c, int status, uint64_t id)
{
	struct trawl_relay_reply r = {
		.magic = htole32(TRAWL_RELAY_MAGIC),
		.status = (int32_t)htole32((uint32_t)status),
		.session_id = htole64(id),
	};

	/* Never waits: a peer that sends PINGs (or HELLOs) and reads no
	 * reply would fill its socket and hold the one thread every peer
	 * depends on. 16 bytes either go at once or the peer is dropped. */
	if (send(c->fd, &r, sizeof(r), MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof(r)) {
		relayd_log("%s: does not take its replies (%s): dropping the connection", c->peer,
			   errno == EAGAIN ? "its socket is full" : strerror(errno));
		c->deaf = 1;
	}
}

/*
 * RESUME: @f's file as it is, cut to the @m->keep bytes relayd confirmed
 * (a METADATA file kept whole). Returns the fd or -errno (-ENODATA: the
 * file lacks what was confirmed).
 */
static int file_resume(struct relay_conn *c, const struct trawl_relay_msg *m, uint64_t *size)
{
	struct stat sb;
	int fd = trawl_fs_file_keep(c->s->dir, m->path, 0640, NULL, 0);

	if (fd < 0)
		return fd;
	if (fstat(fd, &sb))
		goto fail;
	*size = (uint64_t)sb.st_size;
	if (m->kind == TRAWL_RELAY_FILE_METADATA)
		return fd;
	if (*size < m->keep) {
		errno = ENODATA;
		goto fail;
	}
	if (ftruncate(fd, (off_t)m->keep))
		goto fail;
	*size = m->keep;
	return fd;
fail:
	fd = -errno;
	return fd;
}

static int file_open(struct relay_conn *c, const struct trawl_relay_msg *m)
{
	struct rfile *f;
	uint64_t size = 0;

	if (m->handle >= c->nr_files) {
		uint32_t n = m->handle + 1 > 2 * c->nr_files ? m->handle + 1 : 2 * c->nr_files;
		struct rfile *nf = realloc(c->files, n * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		for (uint32_t i = c->nr_files; i < n; i++)
			nf[i] = (struct rfile){.fd = -1};
		c->files = nf;
		c->nr_files = n;
	}
	f = &c->files[m->handle];
	if (f->fd >= 0 && m->cmd == TRAWL_RELAY_RESUME) {
		/* after a SEAL: taken up again where the consumer knows it landed */
		close(f->fd);
		free(f->rel);
		*f = (struct rfile){.fd = -1};
	}
	if (f->fd >= 0)
		return -EBUSY;
	f->rel = strdup(m->path);
	if (!f->rel)
		return -ENOMEM;
	if (m->cmd == TRAWL_RELAY_RESUME)
		f->fd = file_resume(c, m, &size);
	else
		f->fd = trawl_fs_file_create(c->s->dir, m->path, 0640, NULL, 0);
	if (f->fd < 0) {
		int ret = f->fd;

		free(f->rel);
		f->rel = NULL;
		return ret;
	}
	f->kind = m->kind;
	f->size = size;
	if (m->kind == TRAWL_RELAY_FILE_DATA)
		reserve_grow(c->s);
	return 0;
}

static struct rfile *file_get(struct relay_conn *c, uint32_t handle)
{
	return handle < c->nr_files && c->files[handle].fd >= 0 ? &c->files[handle] : NULL;
}

/* The whole new content of a metadata file: written aside, renamed over it. */
static int file_replace(struct relay_conn *c, struct rfile *f, const struct trawl_relay_msg *m)
{
	int fd;

	if (f->kind != TRAWL_RELAY_FILE_METADATA)
		return -EINVAL;
	fd = trawl_fs_replace(c->s->dir, f->rel, m->payload, m->size, 0640);
	if (fd < 0)
		return fd;
	close(f->fd);
	f->fd = fd;
	f->size = m->size;
	return 0;
}

/* Appends a message's payload to @f, all or nothing (cut back on failure). 0 or -errno. */
static int file_append(struct rfile *f, const struct trawl_relay_msg *m)
{
	int ret = trawl_write_all(f->fd, m->payload, m->size);

	if (ret) {
		/* ftruncate frees blocks: it works on a full disk */
		if (ftruncate(f->fd, (off_t)f->size))
			relayd_log("cannot cut %s back after a failed write: %s", f->rel, strerror(errno));
		return ret;
	}
	f->size += m->size;
	return 0;
}

/*
 * A write or a file creation that failed for want of room ends the
 * connection's writing (kept open: the consumer learns it from its PINGs);
 * other errors drop the peer as before. Returns what conn_handle() returns.
 */
static int write_failed(struct relay_conn *c, const struct trawl_relay_msg *m, int ret)
{
	struct rfile *f;

	if (!ret) {
		f = m->cmd == TRAWL_RELAY_APPEND ? file_get(c, m->handle) : NULL;
		if (f && f->kind == TRAWL_RELAY_FILE_DATA)
			c->data_written += m->size;
		return 0;
	}
	if (ret != -ENOSPC && ret != -EDQUOT && ret != -EFBIG && ret != -EIO && ret != -ENODATA)
		return ret;
	if (!c->failed) {
		c->failed = -ret;
		relayd_log("%s: session %s: %s: nothing more of this connection is written "
			   "(its files end at their last whole write)", c->peer,
			   c->s ? c->s->path : "?", strerror(-ret));
	}
	return 0;
}

/*
 * SEAL: the room held back for the session's seals is freed, and this
 * connection writes again (its consumer cuts its files back with RESUMEs
 * and appends to each stream that lost packets one empty packet).
 */
static void seal(struct relay_conn *c)
{
	if (c->s->reserve >= 0 && ftruncate(c->s->reserve, 0))
		relayd_log("%s: cannot free the room held for %s: %s", c->peer, c->s->path,
			   strerror(errno));
	if (c->failed)
		relayd_log("%s: session %s: writing what its streams lost", c->peer, c->s->path);
	c->failed = 0;
}

/*
 * BEACON: a quiet live stream's time, for the live server (nothing
 * written). @f: the stream's index file; its size now says which entries
 * the beacon follows. A connection whose writing failed says nothing:
 * its index lacks entries the beacon would vouch for.
 */
static int beacon(struct relay_conn *c, const struct trawl_relay_msg *m)
{
	struct rfile *f = file_get(c, m->handle);

	if (c->failed)
		return 0;
	if (!f || f->kind != TRAWL_RELAY_FILE_INDEX)
		return -EBADF;
#ifdef TRAWL_HAVE_LIVE
	if (c->s->live) {
		struct stat sb;

		if (fstat(f->fd, &sb))
			return 0; /* (the viewer falls back on a derived time) */
		relay_live_beacon(live_server, c->s->id, sb.st_dev, sb.st_ino, f->size, m->ts_end);
	}
#endif
	return 0;
}

/* Acts on one checked message. Returns 0, or a negative errno to drop the peer. */
static int conn_handle(struct relay_conn *c, const struct trawl_relay_msg *m)
{
	struct rfile *f;
	int ret = 0;

	if (m->cmd == TRAWL_RELAY_PING) {
		reply(c, c->chunk_err ? c->chunk_err : -c->failed, c->data_written);
		c->chunk_err = 0;
		return 0;
	}
	if (m->cmd == TRAWL_RELAY_HELLO) {
		if (c->s)
			return -EPROTO;
		c->s = session_get(m, &ret);
		if (c->s) {
			c->s_next = c->s->conns;
			c->s->conns = c;
		}
		reply(c, ret, c->s ? c->s->id : 0);
		return ret;
	}
	if (!c->s)
		return -EPROTO; /* HELLO comes first */
	switch (m->cmd) {
	case TRAWL_RELAY_OPEN:
	case TRAWL_RELAY_RESUME:
		ret = file_open(c, m);
		return write_failed(c, m, ret);
	case TRAWL_RELAY_SEAL:
		seal(c);
		return 0;
	case TRAWL_RELAY_ARCHIVE:
	case TRAWL_RELAY_REMOVE:
		if (c->failed)
			return 0;
		ret = m->cmd == TRAWL_RELAY_ARCHIVE ? relay_chunk_archive(c, m)
						    : relay_chunk_remove(c, m);
		if (ret && ret != -ENOSPC && ret != -EDQUOT) {
			/* said to the consumer as a failed write is (its next PING), not dropped */
			relayd_log("%s: session %s: cannot %s %s: %s", c->peer, c->s->path,
				   m->cmd == TRAWL_RELAY_ARCHIVE ? "archive" : "clear", m->path,
				   strerror(-ret));
			c->failed = -ret;
			return 0;
		}
		return write_failed(c, m, ret);
	case TRAWL_RELAY_CHUNK:
		ret = m->kind == TRAWL_RELAY_CHUNK_CLOSE ? relay_chunk_close(c->s, m)
			: clear_allowed			 ? relay_chunk_clear(c->s, m)
							 : -EPERM;
		c->chunk_err = ret;
		if (ret)
			relayd_log("%s: session %s: cannot %s trace chunk %s: %s", c->peer,
				   c->s->path, m->kind == TRAWL_RELAY_CHUNK_CLOSE ? "close" : "clear",
				   m->path[0] ? m->path : "0", strerror(-ret));
		return 0;
	case TRAWL_RELAY_APPEND:
		f = file_get(c, m->handle);
		if (c->failed) /* dropped, also for a file that could not be made */
			return 0;
		return f ? write_failed(c, m, file_append(f, m)) : -EBADF;
	case TRAWL_RELAY_REPLACE:
		f = file_get(c, m->handle);
		if (c->failed)
			return 0;
		return f ? write_failed(c, m, file_replace(c, f, m)) : -EBADF;
	case TRAWL_RELAY_CLOSE:
		f = file_get(c, m->handle);
		if (!f)
			return c->failed ? 0 : -EBADF;
		close(f->fd);
		f->fd = -1;
		free(f->rel);
		f->rel = NULL;
		break;
	case TRAWL_RELAY_BEACON:
		return beacon(c, m);
	case TRAWL_RELAY_END:
		conn_unlink(c);
		return -ECONNRESET; /* done: the caller closes */
	default:
		return -EPROTO;
	}
	return ret;
}

/*
 * A header that does not parse: a peer of another protocol version gets one
 * line saying so (and its HELLO the answer -EPROTONOSUPPORT, which an older
 * consumer says), anything else "bad message header". Returns -EPROTO.
 */
static int version_refuse(struct relay_conn *c)
{
	uint16_t v = trawl_relay_hdr_version(c->buf + c->start), cmd;

	if (!v || v == TRAWL_RELAY_VERSION) {
		relayd_log("%s: bad message header: dropping the connection", c->peer);
		return -EPROTO;
	}
	relayd_log("%s: speaks trawl-relayd protocol %u, this trawl-relayd %u: refused "
		   "(run the same trawl version on both hosts)",
		   c->peer, (unsigned)v, (unsigned)TRAWL_RELAY_VERSION);
	memcpy(&cmd, c->buf + c->start + 6, sizeof(cmd));
	if (le16toh(cmd) == TRAWL_RELAY_HELLO && !c->s)
		reply(c, -EPROTONOSUPPORT, 0);
	return -EPROTO;
}

/* Makes room for @need more bytes after what is buffered. */
static int buf_reserve(struct relay_conn *c, size_t need)
{
	if (c->start) { /* acted-on bytes go first */
		memmove(c->buf, c->buf + c->start, c->len - c->start);
		c->len -= c->start;
		c->start = 0;
	}
	if (c->cap - c->len >= need)
		return 0;
	if (need > SIZE_MAX - c->len)
		return -ENOMEM;
	return trawl_array_grow((void **)&c->buf, &c->cap, c->len + need, 1, 65536);
}

int relay_conn_readable(struct relay_conn *c)
{
	const size_t hl = sizeof(struct trawl_relay_hdr);
	struct trawl_relay_msg m;
	size_t want = 65536;
	ssize_t n;
	int ret;

	/*
	 * A message's header says how much is coming: make room for up to 1 MiB
	 * of it per read (a packet usually comes whole), so that the buffer
	 * grows with what the peer really sent, not with what it announced.
	 */
	if (c->len - c->start >= hl) {
		uint16_t cmd;
		uint32_t handle, size;
		size_t have = c->len - c->start;

		if (trawl_relay_hdr_parse(c->buf + c->start, &cmd, &handle, &size))
			return version_refuse(c);
		if (hl + size > have && hl + size - have > want)
			want = TRAWL_MIN(hl + size - have, (size_t)1 << 20);
	}
	ret = buf_reserve(c, want);
	if (ret)
		return ret;
	n = read(c->fd, c->buf + c->len, c->cap - c->len);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (n == 0) {
		if (c->len != c->start)
			relayd_log("%s: connection closed in the middle of a message", c->peer);
		return -ECONNRESET;
	}
	c->len += (size_t)n;
	while ((n = trawl_relay_msg_parse(c->buf + c->start, c->len - c->start, &m)) > 0) {
		c->start += (size_t)n;
		ret = conn_handle(c, &m);
		if (ret == -ECONNRESET || c->deaf)
			return -ECONNRESET;
		if (ret) {
			relayd_log("%s: %s (message %u): dropping the connection", c->peer,
				   ret == -EPROTO ? "bad message" : strerror(-ret), m.cmd);
			return ret;
		}
	}
	if (n < 0) {
		uint16_t cmd;
		uint32_t handle, size;

		if (trawl_relay_hdr_parse(c->buf + c->start, &cmd, &handle, &size))
			return version_refuse(c);
		relayd_log("%s: bad message: dropping the connection", c->peer);
		return (int)n;
	}
	if (c->start == c->len)
		c->start = c->len = 0;
	return 0;
}
