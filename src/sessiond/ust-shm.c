/* SPDX-License-Identifier: MIT */
/*
 * ust-shm.c - a --shm-path session's buffers as files (LTTng's layout):
 *
 *   SHM/uid/UID/BITS-bit/   per-user buffers      SHM/pid/NAME-PID-DATE/   per-process
 *       metadata            the trace's TSDL text, rewritten at each change
 *       CHANNEL_CPU         one stream's ring buffer (src/ringbuffer), as mapped
 *
 * SHM is the owner's folder: every file in it is created by a process
 * running as the session's owner (common/as-user.c: a child with only their
 * ids when the daemon is root, the daemon itself when it is theirs), walked
 * with common/fs.h (no link but the owner's own), created O_EXCL |
 * O_NOFOLLOW after unlinking whatever had the name. The daemon then works
 * on the fds it was handed: mapping them, writing the metadata through
 * one. So a link to a folder of root's in SHM makes the owner's child fail
 * with EACCES; root itself opens nothing there.
 *
 * The files stay after the session is destroyed or the daemons die: they
 * are what `trawl crash` reads (src/cli/cmd-crash.c).
 */
#include "common/fs.h"
#include "sessiond/ust-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct shm_file {
	const char *dir;  /* absolute folder, made if missing */
	const char *name; /* a file name in it */
	uint64_t size;    /* bytes the new file has (zeros) */
};

/* As the owner: the new file @arg names, handed over in *@fd. */
static int shm_file_make(void *arg, void *out, int *fd)
{
	const struct shm_file *f = arg;
	int dfd, ffd, ret;

	(void)out;
	dfd = trawl_fs_dir_open(AT_FDCWD, f->dir, TRAWL_FS_CREATE, 0770, NULL, 0);
	if (dfd < 0)
		return dfd;
	/* A new inode, never whatever had the name (fs.h's rule). */
	if (unlinkat(dfd, f->name, 0) && errno != ENOENT) {
		ret = -errno;
		close(dfd);
		return ret;
	}
	ffd = openat(dfd, f->name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	ret = ffd < 0 ? -errno : 0;
	close(dfd);
	if (ret)
		return ret;
	if (f->size && ftruncate(ffd, (off_t)f->size)) {
		ret = -errno;
		close(ffd);
		return ret;
	}
	*fd = ffd;
	return 0;
}

/* The new file @name in @t's folder under the session's shm path: its fd, or
 * a negative errno. */
static int shm_open_as_owner(const struct trawl_domain_session *s, const struct ust_trace *t,
			     const char *name, uint64_t size)
{
	char dir[TRAWL_CTL_PATH_MAX + TRAWL_CONS_PATH_LEN];
	struct shm_file f = { dir, name, size };
	int fd = -1, ret;

	if (trawl_path_fmt(dir, sizeof(dir), "%s/%s", s->shm_path, t->shm_rel))
		return -ENAMETOOLONG;
	ret = trawl_as_user(s->uid, s->gid, shm_file_make, &f, NULL, 0, &fd, (int)sd_limits.owner_ms);
	if (ret < 0)
		return ret;
	return fd >= 0 ? fd : -EIO;
}

int ust_shm_trace_init(const struct trawl_domain_session *s, struct ust_trace *t, const struct ust_app *a,
		       struct trawl_domain_err *err)
{
	int ret;

	t->shm_meta_fd = -1;
	if (!s->shm_path || !s->shm_path[0])
		return 0;
	if (t->pid ? trawl_path_fmt(t->shm_rel, sizeof(t->shm_rel), "pid/%s-%d-%s", a->info.procname,
				    (int)a->info.pid, a->stamp)
		   : trawl_path_fmt(t->shm_rel, sizeof(t->shm_rel), "uid/%u/%u-bit", (unsigned)a->uid,
				    a->info.bits_per_long))
		return -ENAMETOOLONG;
	ret = shm_open_as_owner(s, t, "metadata", 0);
	if (ret < 0) {
		trawl_domain_err_set(err, "cannot make the metadata file in %s/%s: %s", s->shm_path,
				     t->shm_rel, strerror(-ret));
		return ret;
	}
	t->shm_meta_fd = ret;
	return 0;
}

int ust_shm_streams(const struct trawl_domain_session *s, const struct ust_trace *t, const char *chan,
		    const struct trawl_ustctl_channel_attr *ua, int *fds, struct trawl_domain_err *err)
{
	char name[TRAWL_DOMAIN_NAME_MAX + 16];
	uint32_t i;
	int ret = 0;

	for (i = 0; i < ua->nr_streams; i++) {
		ret = trawl_path_fmt(name, sizeof(name), "%s_%u", chan, i) ? -ENAMETOOLONG : 0;
		if (ret < 0)
			break;
		ret = shm_open_as_owner(s, t, name, trawl_ustctl_stream_shm_size(ua));
		if (ret < 0)
			break;
		fds[i] = ret;
	}
	if (ret >= 0)
		return 0;
	trawl_domain_err_set(err, "cannot make the buffer file %s/%s/%s: %s", s->shm_path, t->shm_rel, name,
			     strerror(-ret));
	while (i--)
		close(fds[i]);
	return ret;
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
