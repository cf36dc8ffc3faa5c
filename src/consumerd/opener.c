/* SPDX-License-Identifier: MIT */
/*
 * opener.c - a trace folder's files opened by its owner (opener.h says why).
 *
 * Protocol, on a SOCK_SEQPACKET socketpair (one message is one request or
 * one reply): the child first sends one reply, the result of opening the
 * folder; then for each request (struct op_req) one reply (struct op_reply),
 * carrying with SCM_RIGHTS the fd a FILE, KEEP or BEGIN request asked for. Only
 * the root process holds the other end; the child exits when it closes.
 */
#include "common/common.h"
#include "consumerd/opener.h"
#include "common/fdmsg.h"
#include "common/fs.h"
#include "common/ids.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { OP_FILE = 1, OP_KEEP, OP_BEGIN, OP_COMMIT, OP_ABORT, OP_REMOVE };

struct op_req {
	uint32_t op;
	char path[PATH_MAX]; /* relative to the folder, NUL-terminated */
};

struct op_reply {
	int32_t ret;    /* 0 (with an fd for FILE, KEEP, BEGIN) or a negative errno */
	char where[480]; /* on failure: the path that failed */
};

struct trawl_opener {
	int dir;        /* in place: the folder (O_PATH); -1 with a child */
	int sock;       /* with a child: our end, -1 once it failed us */
	pid_t pid;      /* the child, 0: in place */
	char path[PATH_MAX]; /* the folder, for messages */
};

/* ---- the child, running as the folder's owner ------------------------------ */

/* The trace folder and its index/ folder, as its owner. fd or -errno (@where set). */
static int folder_open(const char *dir, char *where, size_t where_len)
{
	int fd = trawl_fs_dir_open(AT_FDCWD, dir, TRAWL_FS_CREATE, 0750, where, where_len), idx;

	if (fd < 0)
		return fd;
	idx = trawl_fs_dir_open(fd, "index", TRAWL_FS_CREATE | TRAWL_FS_BELOW, 0750, where,
				where_len);
	if (idx < 0) {
		close(fd);
		return idx;
	}
	close(idx);
	return fd;
}

/*
 * Removes @rel ("NAME", "index/NAME", or "index" itself, which must be
 * empty) of the folder @dfd, as its owner: a name that is not there is not
 * an error; nothing is followed but "index" (whose file is unlinked
 * wherever it points, which the owner could do anyway).
 */
static int remove_below(int dfd, const char *rel)
{
	int flags = strcmp(rel, "index") ? 0 : AT_REMOVEDIR;

	if (!rel[0] || rel[0] == '/' || strstr(rel, ".."))
		return -EINVAL;
	if (unlinkat(dfd, rel, flags) && errno != ENOENT)
		return -errno;
	return 0;
}

static void reply_send(int sock, const struct op_reply *r, int fd)
{
	struct iovec v = {(void *)r, sizeof(*r)};

	if (trawl_fdmsg_send(sock, &v, 1, fd) < 0)
		_exit(0); /* the root process is gone */
}

/* Serves requests on @sock until it closes. Never returns. */
static void __attribute__((noreturn)) child_serve(int sock, const char *dir)
{
	struct op_reply r = {0};
	struct op_req q;
	int dfd = folder_open(dir, r.where, sizeof(r.where));

	r.ret = dfd < 0 ? dfd : 0;
	if (dfd < 0 && r.where[0] != '/')
		snprintf(r.where, sizeof(r.where), "%.400s", dir);
	reply_send(sock, &r, -1);
	if (dfd < 0)
		_exit(0);
	for (;;) {
		ssize_t n = recv(sock, &q, sizeof(q), 0);
		int fd = -1;

		if (n < 0 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(q) || !memchr(q.path, '\0', sizeof(q.path)))
			_exit(0); /* closed, or not our root process talking */
		memset(&r, 0, sizeof(r));
		switch (q.op) {
		case OP_FILE:
			fd = r.ret = trawl_fs_file_create(dfd, q.path, 0640, r.where, sizeof(r.where));
			break;
		case OP_KEEP:
			fd = r.ret = trawl_fs_file_keep(dfd, q.path, 0640, r.where, sizeof(r.where));
			break;
		case OP_BEGIN:
			fd = r.ret = trawl_fs_replace_begin(dfd, q.path, 0640);
			break;
		case OP_COMMIT:
		case OP_ABORT:
			r.ret = trawl_fs_replace_commit(dfd, q.path, q.op == OP_COMMIT);
			break;
		case OP_REMOVE:
			r.ret = remove_below(dfd, q.path);
			break;
		default:
			r.ret = -EINVAL;
		}
		if (r.ret > 0)
			r.ret = 0;
		/* not dumpable, we cannot read our own /proc/self/fd: name what was asked */
		if (r.ret < 0 && r.where[0] != '/')
			snprintf(r.where, sizeof(r.where), "%.200s/%.200s", dir, q.path);
		reply_send(sock, &r, fd);
		if (fd >= 0)
			close(fd);
	}
}

/*
 * In the child of fork(): keeps only the socket (as fd 3) and /dev/null (as
 * 0, 1, 2: nothing the root process had open, such as the daemon's log,
 * stays within the owner's reach), becomes the owner, serves.
 */
static void __attribute__((noreturn)) child_main(int sock, int devnull, const struct trawl_ids *ids,
						 const char *dir)
{
	struct op_reply r = {0};
	int s = fcntl(sock, F_DUPFD, 10); /* out of the way of the dup2()s below */

	if (s < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 || dup2(devnull, 2) < 0 ||
	    dup2(s, 3) < 0)
		_exit(0);
	close_range(4, ~0U, 0);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_NAME, "trawl-opener", 0, 0, 0);
	r.ret = trawl_ids_assume(ids);
	if (r.ret) {
		trawl_msg_fmt(r.where, sizeof(r.where), "%s", dir);
		reply_send(3, &r, -1);
		_exit(0);
	}
	child_serve(3, dir);
}

/* ---- the root side -------------------------------------------------------- */

static void child_stop(struct trawl_opener *op)
{
	if (op->sock >= 0)
		close(op->sock);
	op->sock = -1;
	if (op->pid > 0) {
		/* idle (every request answered) or hung: either way it has nothing left to do */
		kill(op->pid, SIGKILL);
		while (waitpid(op->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	op->pid = 0;
}

/* An fd from the child: it must be a regular file we can write. */
static int fd_ok(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_ACCMODE) != O_RDONLY && !fstat(fd, &st) && S_ISREG(st.st_mode);
}

/*
 * Receives one reply; *@fd gets the fd it carries (when @fd is not NULL,
 * one is required on success). Returns the reply's result, or -ETIMEDOUT /
 * -EPROTO / -EPIPE, after which the opener is stopped.
 */
static int reply_recv(struct trawl_opener *op, int *fd, char *where, size_t where_len)
{
	struct op_reply r;
	struct iovec v = {&r, sizeof(r)};
	ssize_t n;
	int got;

	n = trawl_fdmsg_recv(op->sock, &v, 1, TRAWL_OPENER_TIMEOUT_MS, &got);
	if (n < 0 && n != -EPROTO) { /* -ETIMEDOUT: hung */
		child_stop(op);
		return (int)n;
	}
	r.where[sizeof(r.where) - 1] = '\0';
	if (n != (ssize_t)sizeof(r) || r.ret > 0 || r.ret < -4095 ||
	    (got >= 0 && (r.ret < 0 || !fd || !fd_ok(got))) || (fd && !r.ret && got < 0)) {
		if (got >= 0)
			close(got);
		child_stop(op);
		return n == 0 ? -EPIPE : -EPROTO;
	}
	if (r.ret < 0 && where)
		trawl_msg_fmt(where, where_len, "%s", r.where);
	if (fd)
		*fd = got;
	return r.ret;
}

static int call(struct trawl_opener *op, uint32_t what, const char *rel, int *fd, char *where,
		size_t where_len)
{
	struct op_req q = {.op = what};

	if (op->sock < 0)
		return -EPIPE;
	if (strlen(rel) >= sizeof(q.path))
		return -ENAMETOOLONG;
	strcpy(q.path, rel);
	if (send(op->sock, &q, sizeof(q), MSG_NOSIGNAL) != (ssize_t)sizeof(q)) {
		child_stop(op);
		return -EPIPE;
	}
	return reply_recv(op, fd, where, where_len);
}

static int child_start(struct trawl_opener *op, const char *dir, uid_t uid, gid_t gid,
		       char *where, size_t where_len)
{
	struct trawl_ids ids;
	int sv[2], devnull;

	trawl_ids_lookup(uid, gid, &ids);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	op->pid = devnull < 0 ? -1 : fork();
	if (op->pid == 0)
		child_main(sv[1], devnull, &ids, dir);
	close(sv[1]);
	if (devnull >= 0)
		close(devnull);
	if (op->pid < 0) {
		op->pid = 0;
		close(sv[0]);
		return -errno;
	}
	op->sock = sv[0];
	return reply_recv(op, NULL, where, where_len);
}

int trawl_opener_create(const char *dir, uid_t uid, gid_t gid, struct trawl_opener **out,
			char *err, size_t err_len)
{
	struct trawl_opener *op = calloc(1, sizeof(*op));
	char where[480] = "";
	int ret;

	if (!op)
		return -ENOMEM;
	op->dir = op->sock = -1;
	if (trawl_path_fmt(op->path, sizeof(op->path), "%s", dir)) {
		ret = -ENAMETOOLONG;
	} else if (dir[0] != '/') {
		ret = -EINVAL;
		trawl_msg_fmt(where, sizeof(where), "%s", dir);
	} else if (uid == (uid_t)-1 || uid == geteuid() || uid == 0) {
		ret = op->dir = folder_open(dir, where, sizeof(where));
	} else {
		ret = child_start(op, dir, uid, gid, where, sizeof(where));
	}
	if (ret < 0) {
		trawl_msg_fmt(err, err_len, "cannot create %.240s: %s", where[0] ? where : dir,
			      ret == -EINVAL ? "not an absolute path" : trawl_fs_strerror(ret));
		trawl_opener_destroy(op);
		return ret;
	}
	*out = op;
	return 0;
}

void trawl_opener_destroy(struct trawl_opener *op)
{
	if (!op)
		return;
	child_stop(op);
	if (op->dir >= 0)
		close(op->dir);
	free(op);
}

int trawl_opener_file(struct trawl_opener *op, const char *rel, int keep, char *err,
		      size_t err_len)
{
	char where[480] = "";
	int fd = -1, ret;

	if (op->dir >= 0)
		ret = fd = keep ? trawl_fs_file_keep(op->dir, rel, 0640, where, sizeof(where))
				: trawl_fs_file_create(op->dir, rel, 0640, where, sizeof(where));
	else
		ret = call(op, keep ? OP_KEEP : OP_FILE, rel, &fd, where, sizeof(where));
	if (ret < 0) {
		if (err)
			trawl_msg_fmt(
				err, err_len, "cannot create %.240s: %s", where[0] ? where : rel,
				ret == -ETIMEDOUT ? "the opener (running as the trace's owner) did "
						    "not answer"
				: ret == -EPIPE || ret == -EPROTO ? "the opener (running as the "
								    "trace's owner) is gone"
								  : trawl_fs_strerror(ret));
		return ret;
	}
	return fd;
}

int trawl_opener_replace_begin(struct trawl_opener *op, const char *rel)
{
	int fd = -1, ret;

	if (op->dir >= 0)
		return trawl_fs_replace_begin(op->dir, rel, 0640);
	ret = call(op, OP_BEGIN, rel, &fd, NULL, 0);
	return ret < 0 ? ret : fd;
}

int trawl_opener_remove(struct trawl_opener *op, const char *rel)
{
	if (op->dir >= 0)
		return remove_below(op->dir, rel);
	return call(op, OP_REMOVE, rel, NULL, NULL, 0);
}

int trawl_opener_replace_commit(struct trawl_opener *op, const char *rel, int ok)
{
	if (op->dir >= 0)
		return trawl_fs_replace_commit(op->dir, rel, ok);
	return call(op, ok ? OP_COMMIT : OP_ABORT, rel, NULL, NULL, 0);
}
