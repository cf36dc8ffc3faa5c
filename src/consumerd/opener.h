/* SPDX-License-Identifier: MIT */
/*
 * opener.h - a local trace folder's files, opened by the folder's owner.
 *
 * The kernel consumer runs as root: it needs tracefs, perf and /proc all
 * along (new event formats are read as events first appear, trawl's own
 * threads are found again every second). The trace folder, though, is the
 * session owner's, who can put links, FIFOs and hard links wherever root is
 * about to write, or swap them in while it works. So the privileged process
 * never opens a path there itself: an opener, a child that took the owner's
 * identity for good (common/ids.h) right after it was forked, walks the
 * folder and creates every file (common/fs.h), and hands the root process
 * only file descriptors, over a socketpair. Root then just writes to them:
 * writing through an fd the owner opened gives root nothing the owner did
 * not have. The files are the owner's from the start (mode 0640, folders
 * 0750): their kernel trace is theirs to read, with no chown.
 *
 * Why a long-lived child holding nothing but that socket, rather than the
 * whole consumer dropping to the owner: the consumer needs root to the end
 * (above), and one small process that only ever opens files is easy to
 * audit; the data itself goes straight from root's buffers to the files,
 * with no copy through another process. Why not root opening with
 * O_NOFOLLOW from a checked folder fd: that checks links, but every
 * permission check is still root's (a folder the owner may not write, a
 * file the owner may not replace), while here the kernel checks the owner.
 *
 * Where no other user is involved (the process is the owner already, or
 * the session is root's) the same walk runs in place, with no child.
 *
 * The root side treats the opener as untrusted: the owner may kill it or
 * make it hang (a folder on a file system that never answers), so every
 * reply is awaited at most TRAWL_OPENER_TIMEOUT_MS, and an fd received must
 * be a regular file open for writing.
 *
 * Threading: an opener is used by one thread.
 */
#ifndef TRAWL_CONSUMERD_OPENER_H
#define TRAWL_CONSUMERD_OPENER_H

#include <stddef.h>
#include <sys/types.h>

#define TRAWL_OPENER_TIMEOUT_MS 5000

struct trawl_opener;

/**
 * trawl_opener_create - opens (creates) trace folder @dir and its index/
 * @dir: an absolute path, walked as common/fs.h says (its own links followed)
 * @uid, @gid: the folder's owner; (uid_t)-1, or the caller's own uid, or 0:
 *             in place, as the caller
 * @err: one line on failure ("cannot create DIR/...: why")
 *
 * Returns 0 with *@out to destroy with trawl_opener_destroy(), or a negative errno.
 */
int trawl_opener_create(const char *dir, uid_t uid, gid_t gid, struct trawl_opener **out,
			char *err, size_t err_len);

/* Stops the child (if any) and frees. NULL: no-op. */
void trawl_opener_destroy(struct trawl_opener *op);

/*
 * File @rel ("NAME" or "index/NAME") of the folder, open for appending: a
 * new empty one (common/fs.h: trawl_fs_file_create()), or with @keep the
 * existing one kept as it is, open O_RDWR (trawl_fs_file_keep()). Returns
 * the fd or a negative errno, with a one-line reason in @err (may be NULL).
 */
int trawl_opener_file(struct trawl_opener *op, const char *rel, int keep, char *err,
		      size_t err_len);

/* A new file to replace @rel with: write it, then trawl_opener_replace_commit(). fd or -errno. */
int trawl_opener_replace_begin(struct trawl_opener *op, const char *rel);
/* Renames it over @rel when @ok, else removes it. 0 or -errno. */
int trawl_opener_replace_commit(struct trawl_opener *op, const char *rel, int ok);

/*
 * Removes file @rel ("NAME" or "index/NAME"), or the folder "index" once
 * empty, as the folder's owner (clear, consumer-proto.h). A name that is not
 * there is no error. 0 or -errno.
 */
int trawl_opener_remove(struct trawl_opener *op, const char *rel);

#endif /* TRAWL_CONSUMERD_OPENER_H */
