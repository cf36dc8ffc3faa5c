/* SPDX-License-Identifier: MIT */
/*
 * fs.h - opening folders and files on paths that other users may control.
 *
 * A trace folder is where its owner says, and everything in it is theirs to
 * rearrange: a link, a FIFO or a hard link to somebody's file can be put
 * where trawl is about to write, or swapped in while it works. The writers
 * of trace files (both consumers, relayd, the session daemon making trace
 * folders) therefore never give open(2) a whole path:
 *
 *  - a path is walked one component at a time from a folder fd, each one
 *    opened with O_NOFOLLOW. A symbolic link is followed only when the link
 *    and the folder holding it belong to root or to the process's effective
 *    user: a user's own links are their choice (~/traces may point to a
 *    bigger disk) and bind nobody else, while anybody else's link is
 *    refused (-ELOOP). What is walked is held as fds, so a folder renamed
 *    or replaced by a link meanwhile changes nothing.
 *  - inside the folder being written (paths given to trawl_fs_file_*()),
 *    no link is followed at all, and ".." and absolute paths are refused.
 *  - a file written is always a new inode: whatever has its name (a link,
 *    a hard link to another file, a FIFO, a device) is unlinked, never
 *    opened, and the file is created with O_EXCL. So open(2) never reaches
 *    an existing object, and nothing is ever truncated.
 *
 * These functions do not change who the caller is: the permission checks at
 * each step are the caller's. That is why the kernel consumer, which runs as
 * root, creates its files through a process running as the session's owner
 * (consumerd/opener.h), and the session daemon makes trace folders in a
 * child with the owner's ids (common/ids.h).
 *
 * Every fd returned is O_CLOEXEC and is the caller's to close. Errors are
 * negative errnos; where @where is not NULL it receives the path walked up
 * to the component that failed (for a one-line message).
 */
#ifndef TRAWL_COMMON_FS_H
#define TRAWL_COMMON_FS_H

#include <stddef.h>

enum {
	TRAWL_FS_CREATE = 1, /* make missing folders (with the mode given) */
	TRAWL_FS_BELOW = 2,  /* @path stays below @at: no link, no "..", not absolute */
};

/**
 * trawl_fs_dir_open - a folder, walked as described above
 * @at: where a relative @path starts (an fd of a folder, or AT_FDCWD)
 * @path: the folder; "" or "." is @at itself
 * @flags: TRAWL_FS_CREATE, TRAWL_FS_BELOW
 * @mode: of folders created
 *
 * Returns an O_PATH fd of the folder (usable as the folder of *at() calls
 * and fstat()), or a negative errno: -ELOOP for a link not followed (or more
 * than 40), -ENOTDIR for something that is not a folder, -EINVAL for a ".."
 * or absolute path with TRAWL_FS_BELOW.
 */
int trawl_fs_dir_open(int at, const char *path, int flags, unsigned mode, char *where,
		      size_t where_len);

/**
 * trawl_fs_file_create - a new, empty file @rel below folder @at, for writing
 * @rel: "NAME" or "SUB/.../NAME" (missing SUB folders created 0750)
 * @mode: the file's mode
 *
 * Whatever is named @rel is unlinked first (never opened), then the file is
 * created with O_EXCL; it is opened O_WRONLY | O_APPEND. Returns the fd or a
 * negative errno (-EISDIR: a folder has the name).
 */
int trawl_fs_file_create(int at, const char *rel, unsigned mode, char *where, size_t where_len);

/**
 * trawl_fs_file_keep - file @rel below folder @at with its content kept
 * (a stream resumed after a restart), open O_RDWR | O_APPEND; a new one as
 * trawl_fs_file_create() makes it if there is none. An existing one must be
 * a regular file of the caller's with one name (a link, a FIFO, a device, a
 * hard link, another user's file: -ELOOP or -EINVAL, without blocking).
 * Returns the fd or a negative errno.
 */
int trawl_fs_file_keep(int at, const char *rel, unsigned mode, char *where, size_t where_len);

/**
 * trawl_fs_file_read - an existing regular file @rel below folder @at, for reading
 *
 * Links, FIFOs and devices are refused (-ELOOP, -EINVAL) without blocking.
 * Returns the fd or a negative errno.
 */
int trawl_fs_file_read(int at, const char *rel, char *where, size_t where_len);

/**
 * trawl_fs_replace_begin - the file that is to replace @rel: a new, empty
 * ".NAME.tmp" beside it (hidden: trace readers take any other file of a
 * trace folder for a stream), as trawl_fs_file_create() makes it.
 * Write it, then trawl_fs_replace_commit(); or unlink it by calling
 * trawl_fs_replace_commit() with @ok = 0.
 */
int trawl_fs_replace_begin(int at, const char *rel, unsigned mode);
/* Renames the file trawl_fs_replace_begin() made over @rel (@ok), or removes it. 0 or -errno. */
int trawl_fs_replace_commit(int at, const char *rel, int ok);

/**
 * trawl_fs_replace - replaces @rel's content with @len bytes of @buf: a reader
 * sees the old file or the new one, never half of one. Returns the new file
 * open for appending, or a negative errno (then @rel is unchanged).
 */
int trawl_fs_replace(int at, const char *rel, const void *buf, size_t len, unsigned mode);

/**
 * trawl_fs_dir_private - whether nobody but root and the caller can change
 * what is in folder @dir: it and every folder above it belong to root or to
 * the caller, and none is writable by others (above it, a sticky folder
 * such as /tmp is fine: others may add names there, not move ours).
 * A root process that writes a folder's content through paths (relayd)
 * checks it first. 0, or -EPERM with @where naming the first folder that
 * is not private, or another negative errno.
 */
int trawl_fs_dir_private(int dir, char *where, size_t where_len);

/*
 * What a trawl_fs_* error means, for a message: strerror(), except -ELOOP,
 * which here means a link that is not ours to follow.
 */
const char *trawl_fs_strerror(int err);

#endif /* TRAWL_COMMON_FS_H */
