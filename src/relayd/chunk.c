/* SPDX-License-Identifier: MIT */
/*
 * chunk.c - relayd's trace-chunk operations on a session folder (proto.h's
 * ARCHIVE, REMOVE and CHUNK close and clear), for session.c's messages.
 * Every path below the session folder is walked as common/fs.h walks
 * paths: no link followed, nothing replaced that the message did not name.
 */
#include "common/common.h"
#include "common/fs.h"
#include "relayd/session-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Splits @path (a checked relative path) at its last '/': @parent gets what is before ("" if none). */
static const char *path_split(const char *path, char *parent, size_t len)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	if (n >= len)
		n = len - 1; /* cannot happen: both are TRAWL_RELAY_PATH_LEN */
	memcpy(parent, path, n);
	parent[n] = '\0';
	return slash ? slash + 1 : path;
}

/*
 * ARCHIVE (proto.h): folder @m->path moves to @m->to, both below the
 * session folder, walked without following links (common/fs.h); TO's
 * parents are made, nothing at TO is replaced (RENAME_NOREPLACE). Then
 * FROM's parents left empty go (rmdir removes empty folders only), up to
 * the session folder. 0, or -errno (a missing FROM: 0, nothing moved).
 */
int relay_chunk_archive(struct relay_conn *c, const struct trawl_relay_msg *m)
{
	char from_dir[TRAWL_RELAY_PATH_LEN], to_dir[TRAWL_RELAY_PATH_LEN];
	const char *from_base = path_split(m->path, from_dir, sizeof(from_dir));
	const char *to_base = path_split(m->to, to_dir, sizeof(to_dir));
	int src, dst, ret = 0;
	uint32_t i;

	for (i = 0; i < c->nr_files; i++)
		if (c->files[i].fd >= 0)
			return -EBUSY; /* its files are closed first */
	src = trawl_fs_dir_open(c->s->dir, from_dir, TRAWL_FS_BELOW, 0, NULL, 0);
	if (src < 0)
		return src == -ENOENT ? 0 : src;
	dst = trawl_fs_dir_open(c->s->dir, to_dir, TRAWL_FS_CREATE | TRAWL_FS_BELOW, 0750, NULL, 0);
	if (dst < 0) {
		close(src);
		return dst;
	}
	if (renameat2(src, from_base, dst, to_base, RENAME_NOREPLACE))
		ret = errno == ENOENT ? 0 : -errno;
	close(dst);
	close(src);
	if (ret)
		return ret;
	/* FROM's parents, deepest first, while empty (ENOTEMPTY stops it) */
	while (from_dir[0]) {
		char parent[TRAWL_RELAY_PATH_LEN];
		const char *base = path_split(from_dir, parent, sizeof(parent));

		src = trawl_fs_dir_open(c->s->dir, parent, TRAWL_FS_BELOW, 0, NULL, 0);
		if (src < 0)
			break;
		ret = unlinkat(src, base, AT_REMOVEDIR);
		close(src);
		if (ret)
			break;
		memcpy(from_dir, parent, sizeof(parent));
	}
	relayd_log("session %s: %s archived in %s", c->s->path, m->path, m->to);
	return 0;
}

/* Removes what folder @dir (an fd, closed here) holds, @depth levels deep at most. */
static int tree_empty(int dir, int depth)
{
	struct dirent *e;
	DIR *d = fdopendir(dir);
	int ret = 0, r;

	if (!d) {
		close(dir);
		return -errno;
	}
	while ((e = readdir(d))) {
		int sub;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!unlinkat(dirfd(d), e->d_name, 0))
			continue;
		if (errno != EISDIR && errno != EPERM) { /* EISDIR, or EPERM (POSIX): a folder */
			ret = ret ? ret : -errno;
			continue;
		}
		if (depth >= 16) {
			ret = ret ? ret : -ELOOP;
			continue;
		}
		sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			ret = ret ? ret : -errno;
			continue;
		}
		r = tree_empty(sub, depth + 1);
		if (r && !ret)
			ret = r;
		if (unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR) && !ret)
			ret = -errno;
	}
	closedir(d);
	return ret;
}

/* REMOVE (proto.h): everything below folder @m->path goes; the folder stays. 0 or -errno. */
int relay_chunk_remove(struct relay_conn *c, const struct trawl_relay_msg *m)
{
	int fd, dir;
	uint32_t i;

	for (i = 0; i < c->nr_files; i++)
		if (c->files[i].fd >= 0)
			return -EBUSY; /* its files are closed first */
	dir = trawl_fs_dir_open(c->s->dir, m->path, TRAWL_FS_BELOW, 0, NULL, 0);
	if (dir < 0)
		return dir == -ENOENT ? 0 : dir;
	/* (an O_PATH fd cannot be read: the folder opened again, through it) */
	fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(dir);
	if (fd < 0)
		return -errno;
	relayd_log("session %s: %s cleared", c->s->path, m->path);
	return tree_empty(fd, 0);
}

/*
 * Moves @name of folder @from to @to_name in folder @to, merging with a
 * folder already there: what is not there is renamed (RENAME_NOREPLACE),
 * a folder on both sides is merged entry by entry and then removed if left
 * empty, a file on both sides stays where it was. No link is followed
 * (O_NOFOLLOW; rename moves a link, not what it points to). 0, or the first
 * -errno (a missing @name: 0).
 */
static int tree_merge(int from, const char *name, int to, const char *to_name, int depth)
{
	int src, dst, ret = 0, r;
	struct dirent *e;
	DIR *d;

	if (!renameat2(from, name, to, to_name, RENAME_NOREPLACE))
		return 0;
	if (errno == ENOENT)
		return 0;
	if (errno != EEXIST || depth >= 16)
		return -errno;
	src = relay_folder_open(from, name);
	if (src < 0)
		return src == -ENOTDIR ? 0 : src; /* a file on both sides: kept */
	dst = relay_folder_open(to, to_name);
	d = dst < 0 ? NULL : fdopendir(src);
	if (!d) {
		ret = dst < 0 ? (dst == -ENOTDIR ? 0 : dst) : -errno;
		close(src);
		if (dst >= 0)
			close(dst);
		return ret;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		r = tree_merge(dirfd(d), e->d_name, dst, e->d_name, depth + 1);
		if (r && !ret)
			ret = r;
	}
	closedir(d);
	close(dst);
	if (unlinkat(from, name, AT_REMOVEDIR) && errno != ENOTEMPTY && errno != EEXIST && !ret)
		ret = -errno;
	return ret;
}

/*
 * CHUNK, op CLOSE (proto.h): what is left of chunk @m->path goes into its
 * archive @m->to (made), then the next chunk's folder @m->next is made.
 * 0 or -errno.
 */
int relay_chunk_close(struct rsession *s, const struct trawl_relay_msg *m)
{
	static const char *const domains[] = {"ust", "kernel"};
	char to_dir[TRAWL_RELAY_PATH_LEN];
	const char *to_base = path_split(m->to, to_dir, sizeof(to_dir));
	int parent, ret = 0, r;
	size_t i;

	parent = trawl_fs_dir_open(s->dir, to_dir, TRAWL_FS_CREATE | TRAWL_FS_BELOW, 0750, NULL,
				   0);
	if (parent < 0)
		return parent;
	if (m->path[0]) /* a later chunk: its folder whole */
		ret = tree_merge(s->dir, m->path, parent, to_base, 0);
	r = trawl_fs_dir_open(s->dir, m->to, TRAWL_FS_CREATE | TRAWL_FS_BELOW, 0750, NULL, 0);
	if (r < 0 && !ret)
		ret = r;
	for (i = 0; r >= 0 && !m->path[0] && i < TRAWL_ARRAY_SIZE(domains); i++) {
		/* chunk 0: the session folder's ust/ and kernel/ */
		int q = tree_merge(s->dir, domains[i], r, domains[i], 0);

		if (q && !ret)
			ret = q;
	}
	if (r >= 0)
		close(r);
	close(parent);
	if (m->next[0]) {
		r = trawl_fs_dir_open(s->dir, m->next, TRAWL_FS_CREATE | TRAWL_FS_BELOW, 0750, NULL,
				      0);
		if (r >= 0)
			close(r);
		else if (!ret)
			ret = r;
	}
	if (!ret)
		relayd_log("session %s: trace chunk %s closed in %s", s->path,
			   m->path[0] ? m->path : "0", m->to);
	return ret;
}

/* 1 if a connection of @s has a file open below @prefix (ending in '/'). */
static int files_open_below(const struct rsession *s, const char *prefix)
{
	const struct relay_conn *c;
	size_t n = strlen(prefix);
	uint32_t i;

	for (c = s->conns; c; c = c->s_next)
		for (i = 0; i < c->nr_files; i++)
			if (c->files[i].fd >= 0 && c->files[i].rel &&
			    !strncmp(c->files[i].rel, prefix, n))
				return 1;
	return 0;
}

/*
 * CHUNK, op CLEAR (proto.h): chunk @m->path's per-process trace folders
 * that no connection writes in go, then its ust/pid/ and ust/ if empty.
 * 0 or -errno.
 */
int relay_chunk_clear(struct rsession *s, const struct trawl_relay_msg *m)
{
	char ust[TRAWL_RELAY_PATH_LEN], pid[TRAWL_RELAY_PATH_LEN];
	char prefix[TRAWL_RELAY_PATH_LEN * 2];
	int dir, fd, ret = 0;
	struct dirent *e;
	DIR *d;

	if (trawl_path_fmt(ust, sizeof(ust), "%s%sust", m->path, m->path[0] ? "/" : "") ||
	    trawl_path_fmt(pid, sizeof(pid), "%s/pid", ust))
		return -ENAMETOOLONG;
	dir = trawl_fs_dir_open(s->dir, pid, TRAWL_FS_BELOW, 0, NULL, 0);
	if (dir < 0)
		return dir == -ENOENT ? 0 : dir;
	fd = relay_folder_open(dir, ".");
	close(dir);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		ret = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		return ret;
	}
	while ((e = readdir(d))) {
		int sub, r;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    trawl_path_fmt(prefix, sizeof(prefix), "%s/%s/", pid, e->d_name) ||
		    files_open_below(s, prefix))
			continue;
		sub = relay_folder_open(dirfd(d), e->d_name);
		if (sub < 0) {
			continue; /* not a folder: not a trace of relayd's making */
		}
		r = tree_empty(sub, 1);
		if (!r && unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR))
			r = -errno;
		if (r && !ret)
			ret = r;
	}
	closedir(d);
	/* (rmdir removes empty folders only) */
	dir = trawl_fs_dir_open(s->dir, ust, TRAWL_FS_BELOW, 0, NULL, 0);
	if (dir >= 0) {
		unlinkat(dir, "pid", AT_REMOVEDIR);
		close(dir);
		dir = m->path[0] ? trawl_fs_dir_open(s->dir, m->path, TRAWL_FS_BELOW, 0, NULL, 0)
				 : dup(s->dir);
		if (dir >= 0) {
			unlinkat(dir, "ust", AT_REMOVEDIR);
			close(dir);
		}
	}
	relayd_log("session %s: trace chunk %s cleared", s->path, m->path[0] ? m->path : "0");
	return ret;
}
