/* SPDX-License-Identifier: MIT */
/* fs.c - folders and files on paths other users may control (fs.h says why and how). */
#define _GNU_SOURCE /* O_PATH */
#include "common/fs.h"
#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FS_MAX_LINKS 40          /* as the kernel's own limit on a path's links */
#define FS_BUF (2 * PATH_MAX)    /* a path, with a link's target put in front of its rest */

/* "FOLDER/NAME", FOLDER being where @dir really is (for messages only). */
static void where_set(char *where, size_t len, int dir, const char *name)
{
	char proc[64], path[PATH_MAX];
	ssize_t n;

	if (!where || !len)
		return;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", dir);
	n = readlink(proc, path, sizeof(path) - 1);
	if (n <= 0) {
		trawl_msg_fmt(where, len, "%s", name);
		return;
	}
	path[n] = '\0';
	if (!name[0])
		trawl_msg_fmt(where, len, "%s", path);
	else
		trawl_msg_fmt(where, len, "%s/%s", strcmp(path, "/") ? path : "", name);
}

/*
 * May the link @lst, found in folder @dir, be followed? Only when neither
 * it nor the folder holding it is anybody's but root's or ours: another
 * user could otherwise point it anywhere, or swap it, while we walk.
 */
static int link_trusted(int dir, const struct stat *lst)
{
	uid_t me = geteuid();
	struct stat d;

	if (lst->st_uid != 0 && lst->st_uid != me)
		return 0;
	return !fstat(dir, &d) && (d.st_uid == 0 || d.st_uid == me);
}

/* Puts link target @t (@n bytes) in front of the rest of the walk at @p in @buf. */
static int rest_prepend(char *buf, char **p, const char *t, size_t n)
{
	size_t rest = strlen(*p);

	if (n + 1 + rest + 1 > FS_BUF)
		return -ENAMETOOLONG;
	memmove(buf + n + 1, *p, rest + 1);
	memcpy(buf, t, n);
	buf[n] = '/';
	*p = buf;
	return 0;
}

/*
 * One step of the walk: @comp in folder *@cur. Replaces *@cur with the
 * folder's fd, or (a link followed) puts the link's target in front of the
 * rest and keeps *@cur (or "/" for an absolute target). 0 or -errno.
 */
static int walk_step(int *cur, const char *comp, int flags, unsigned mode, char *buf, char **p,
		     int *links)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd, ret;

	fd = openat(*cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && (flags & TRAWL_FS_CREATE) && strcmp(comp, "..")) {
		if (mkdirat(*cur, comp, (mode_t)mode) && errno != EEXIST)
			return -errno;
		fd = openat(*cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (S_ISDIR(st.st_mode)) {
		close(*cur);
		*cur = fd;
		return 0;
	}
	if (!S_ISLNK(st.st_mode)) {
		close(fd);
		return -ENOTDIR;
	}
	if ((flags & TRAWL_FS_BELOW) || ++*links > FS_MAX_LINKS || !link_trusted(*cur, &st)) {
		close(fd);
		return -ELOOP;
	}
	n = readlinkat(fd, "", target, sizeof(target) - 1);
	ret = n < 0 ? -errno : n == 0 ? -ENOENT : 0;
	close(fd);
	if (ret)
		return ret;
	ret = rest_prepend(buf, p, target, (size_t)n);
	if (ret || target[0] != '/')
		return ret;
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(*cur);
	*cur = fd;
	return 0;
}

int trawl_fs_dir_open(int at, const char *path, int flags, unsigned mode, char *where,
		      size_t where_len)
{
	int abs = path[0] == '/', cur, links = 0, ret = 0;
	char *buf, *p, *comp = (char *)".";

	if (abs && (flags & TRAWL_FS_BELOW))
		return -EINVAL;
	buf = malloc(FS_BUF);
	if (!buf)
		return -ENOMEM;
	if (strlen(path) >= PATH_MAX) {
		free(buf);
		return -ENAMETOOLONG;
	}
	strcpy(buf, path);
	cur = openat(abs ? AT_FDCWD : at, abs ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0) {
		ret = -errno;
		free(buf);
		return ret;
	}
	for (p = buf; *p && !ret;) {
		char *end;

		while (*p == '/')
			p++;
		if (!*p)
			break;
		comp = p;
		end = strchr(p, '/');
		p = end ? end + 1 : p + strlen(p);
		if (end)
			*end = '\0';
		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..") && (flags & TRAWL_FS_BELOW))
			ret = -EINVAL;
		else
			ret = walk_step(&cur, comp, flags, mode, buf, &p, &links);
	}
	if (ret) {
		where_set(where, where_len, cur, comp);
		close(cur);
		cur = ret;
	}
	free(buf);
	return cur;
}

/*
 * Splits @rel into its folder (into @dir, "" for none) and its last name,
 * which must be a name (not "", "." or ".."). Returns the name, or NULL.
 */
static const char *rel_split(const char *rel, char *dir, size_t len)
{
	const char *slash = strrchr(rel, '/');
	const char *name = slash ? slash + 1 : rel;

	dir[0] = '\0';
	if (!name[0] || !strcmp(name, ".") || !strcmp(name, "..") || rel[0] == '/')
		return NULL;
	if (slash) {
		if ((size_t)(slash - rel) >= len)
			return NULL;
		memcpy(dir, rel, (size_t)(slash - rel));
		dir[slash - rel] = '\0';
	}
	return name;
}

/* The folder of @rel below @at (created with @flags' TRAWL_FS_CREATE); *@name its last name. */
static int rel_dir(int at, const char *rel, int flags, const char **name, char *where,
		   size_t where_len)
{
	char dir[PATH_MAX];

	*name = rel_split(rel, dir, sizeof(dir));
	if (!*name) {
		if (where)
			trawl_msg_fmt(where, where_len, "%s", rel);
		return -EINVAL;
	}
	return trawl_fs_dir_open(at, dir, flags | TRAWL_FS_BELOW, 0750, where, where_len);
}

/* A new file @name in folder @dir: whatever has the name is unlinked, never opened. */
static int create_in(int dir, const char *name, unsigned mode)
{
	int tries;

	for (tries = 0; tries < 8; tries++) {
		int fd = openat(dir, name, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW |
					   O_CLOEXEC, (mode_t)mode);

		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
		/* a folder there: EISDIR */
		if (unlinkat(dir, name, 0) && errno != ENOENT)
			return -errno;
	}
	return -EEXIST; /* somebody keeps putting something there */
}

int trawl_fs_file_create(int at, const char *rel, unsigned mode, char *where, size_t where_len)
{
	const char *name;
	int dir = rel_dir(at, rel, TRAWL_FS_CREATE, &name, where, where_len), fd;

	if (dir < 0)
		return dir;
	fd = create_in(dir, name, mode);
	if (fd < 0)
		where_set(where, where_len, dir, name);
	close(dir);
	return fd;
}

/*
 * An existing regular file @name of folder @dir, opened with @flags
 * (O_NONBLOCK while opening: a FIFO put there must not make us wait for its
 * other end). With @alone, it must be the caller's, with this one name (a
 * hard link would have us write into another name). fd or -errno.
 */
static int open_regular(int dir, const char *name, int flags, int alone)
{
	int fd = openat(dir, name, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (alone && (st.st_nlink != 1 || st.st_uid != geteuid())) ||
	    fcntl(fd, F_SETFL, flags & O_APPEND)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

int trawl_fs_file_keep(int at, const char *rel, unsigned mode, char *where, size_t where_len)
{
	const char *name;
	int dir = rel_dir(at, rel, TRAWL_FS_CREATE, &name, where, where_len), fd;

	if (dir < 0)
		return dir;
	fd = open_regular(dir, name, O_RDWR | O_APPEND, 1);
	if (fd == -ENOENT)
		fd = create_in(dir, name, mode);
	if (fd < 0)
		where_set(where, where_len, dir, name);
	close(dir);
	return fd;
}

int trawl_fs_file_read(int at, const char *rel, char *where, size_t where_len)
{
	const char *name;
	int dir = rel_dir(at, rel, 0, &name, where, where_len), fd;

	if (dir < 0)
		return dir;
	fd = open_regular(dir, name, O_RDONLY, 0);
	if (fd < 0)
		where_set(where, where_len, dir, name);
	close(dir);
	return fd;
}

/* ".NAME.tmp" beside @rel's NAME, into @tmp. */
static int tmp_name(const char *rel, char *tmp, size_t len)
{
	const char *slash = strrchr(rel, '/');

	return slash ? trawl_path_fmt(tmp, len, "%.*s/.%s.tmp", (int)(slash - rel), rel, slash + 1)
		     : trawl_path_fmt(tmp, len, ".%s.tmp", rel);
}

int trawl_fs_replace_begin(int at, const char *rel, unsigned mode)
{
	char tmp[PATH_MAX];
	int ret = tmp_name(rel, tmp, sizeof(tmp));

	return ret ? ret : trawl_fs_file_create(at, tmp, mode, NULL, 0);
}

int trawl_fs_replace_commit(int at, const char *rel, int ok)
{
	char tmp[PATH_MAX];
	const char *name, *tmp_base;
	int dir, ret = tmp_name(rel, tmp, sizeof(tmp));

	if (ret)
		return ret;
	dir = rel_dir(at, rel, 0, &name, NULL, 0);
	if (dir < 0)
		return dir;
	tmp_base = strrchr(tmp, '/') ? strrchr(tmp, '/') + 1 : tmp;
	/* rename replaces whatever has the name (a link too) and follows nothing */
	if (ok)
		ret = renameat(dir, tmp_base, dir, name) ? -errno : 0;
	if (!ok || ret)
		unlinkat(dir, tmp_base, 0);
	close(dir);
	return ret;
}

int trawl_fs_replace(int at, const char *rel, const void *buf, size_t len, unsigned mode)
{
	int fd = trawl_fs_replace_begin(at, rel, mode), ret;

	if (fd < 0)
		return fd;
	ret = trawl_write_all(fd, buf, len);
	if (!ret)
		ret = trawl_fs_replace_commit(at, rel, 1);
	else
		trawl_fs_replace_commit(at, rel, 0);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int trawl_fs_dir_private(int dir, char *where, size_t where_len)
{
	uid_t me = geteuid();
	int cur = openat(dir, ".", O_PATH | O_DIRECTORY | O_CLOEXEC), first = 1, ret = 0;

	if (cur < 0)
		return -errno;
	for (;;) {
		struct stat st, up;
		int parent;

		if (fstat(cur, &st)) {
			ret = -errno;
			break;
		}
		/* in a sticky folder others may add names, but not move ours */
		if ((st.st_uid != 0 && st.st_uid != me) ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) && (first || !(st.st_mode & S_ISVTX)))) {
			where_set(where, where_len, cur, "");
			ret = -EPERM;
			break;
		}
		parent = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up)) {
			ret = -errno;
			if (parent >= 0)
				close(parent);
			break;
		}
		close(cur);
		cur = parent;
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino)
			break; /* "/" is its own parent */
		first = 0;
	}
	close(cur);
	return ret;
}

const char *trawl_fs_strerror(int err)
{
	if (err == -ELOOP)
		return "a symbolic link trawl does not follow (it follows only root's and its own "
		       "user's, and none inside a trace)";
	return strerror(-err);
}
