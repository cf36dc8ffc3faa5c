/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/snapshot.h> - snapshots (LTTng's `snapshot record`, `snapshot add-output` ...).
 *
 * A snapshot session's buffers are written as a trace on request, to the
 * session's snapshot output or to one given for the record.
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_SNAPSHOT_H
#define TRAWL_CTL_SNAPSHOT_H

#include <stdint.h>

#include <trawl/ctl-types.h>
#include <trawl/ctl/connect.h>
#include <trawl/ctl/list.h>

#ifdef __cplusplus
extern "C" {
#endif

struct trawl_ctl_snapshot_output; /* where and how big a snapshot goes */

/**
 * trawl_ctl_snapshot_record - write a snapshot session's buffers as a trace
 * @ctl: a connection
 * @session: the session's name (created with trawl_ctl_session_attr_set_snapshot())
 * @out: NULL, or receives a list holding one SNAPSHOT record (the folder
 *       written), the caller's to free with trawl_ctl_list_destroy()
 *
 * The trace goes to a new folder NAME-YYYYMMDD-HHMMSS-N of each of the
 * session's snapshot outputs (NAME: the output's, snapshot-1 for the
 * session's own folder; N: the session's count of snapshots before this
 * one, as LTTng 2.13 names them).
 *
 * Return: 0, -ENOENT (no such session, no channel, or no snapshot output),
 * -EINVAL (not a snapshot session), -EBUSY (never started).
 */
int trawl_ctl_snapshot_record(struct trawl_ctl *ctl, const char *session,
			      struct trawl_ctl_list **out);

/**
 * trawl_ctl_snapshot_output_create - a new snapshot output description
 *
 * Defaults: no name (the daemon names an added output snapshot-ID), no
 * URL, max size not given (an added output has no limit; a record keeps
 * each output's).
 *
 * Return: the object, the caller's to free with
 * trawl_ctl_snapshot_output_destroy(), or NULL when out of memory.
 */
struct trawl_ctl_snapshot_output *trawl_ctl_snapshot_output_create(void);

/**
 * trawl_ctl_snapshot_output_destroy - free a snapshot output description
 * @o: the object, or NULL (then nothing happens)
 */
void trawl_ctl_snapshot_output_destroy(struct trawl_ctl_snapshot_output *o);

/**
 * trawl_ctl_snapshot_output_set_name - name the output
 * @o: a snapshot output description
 * @name: as session names (trawl_ctl_session_attr_set_name()); NULL for the
 *        default. Snapshots go to folders NAME-YYYYMMDD-HHMMSS-N. Copied.
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG.
 */
int trawl_ctl_snapshot_output_set_name(struct trawl_ctl_snapshot_output *o, const char *name);

/**
 * trawl_ctl_snapshot_output_set_url - where snapshots go
 * @o: a snapshot output description
 * @ctrl_url: a folder (absolute, or relative to the current directory when
 *            this is called), file://FOLDER, or a net:// URL; NULL for none
 * @data_url: NULL, or with a network @ctrl_url the data URL (LTTng's -D)
 *
 * Copied (a folder as an absolute path). The daemon takes local folders
 * only for now (net://: -EOPNOTSUPP when added or recorded).
 *
 * Return: 0, -EINVAL (not one of those forms, or a data URL with a folder)
 * or -ENAMETOOLONG (TRAWL_CTL_OUTPUT_MAX).
 */
int trawl_ctl_snapshot_output_set_url(struct trawl_ctl_snapshot_output *o, const char *ctrl_url,
				      const char *data_url);

/**
 * trawl_ctl_snapshot_output_set_max_size - bound a snapshot's size
 * @o: a snapshot output description
 * @bytes: 0 for no limit. A snapshot then holds, of every stream, the same
 *         number of its newest packets, as many as fit in @bytes counting
 *         each packet as a whole sub-buffer (LTTng's rule); a size that
 *         cannot hold one packet of each stream fails the record (-EFBIG).
 *
 * Return: 0.
 */
int trawl_ctl_snapshot_output_set_max_size(struct trawl_ctl_snapshot_output *o, uint64_t bytes);

/**
 * trawl_ctl_snapshot_add_output - give a snapshot session an output
 * @ctl: a connection
 * @session: the session's name (a snapshot session)
 * @o: the output: a URL is needed
 * @out: NULL, or receives a list holding its SNAPSHOT_OUTPUT record (with
 *       the id and name the daemon gave it), the caller's to free
 *
 * A snapshot session created with an output has one already (snapshot-1,
 * the session's folder). As in LTTng 2.13, a session has at most one output.
 *
 * Return: 0, -ENOENT, -EINVAL (not a snapshot session, or a bad URL),
 * -EEXIST (the session has an output), -EOPNOTSUPP (net://).
 */
int trawl_ctl_snapshot_add_output(struct trawl_ctl *ctl, const char *session,
				  const struct trawl_ctl_snapshot_output *o,
				  struct trawl_ctl_list **out);

/**
 * trawl_ctl_snapshot_del_output - remove a snapshot session's output
 * @ctl: a connection
 * @session: the session's name
 * @id: the output's id, or 0 to name it with @name
 * @name: the output's name when @id is 0, else NULL
 *
 * Return: 0, -ENOENT (no such session), -EINVAL (no such output, or not a
 * snapshot session).
 */
int trawl_ctl_snapshot_del_output(struct trawl_ctl *ctl, const char *session, uint32_t id,
				  const char *name);

/**
 * trawl_ctl_snapshot_list_outputs - a snapshot session's outputs
 * @ctl: a connection
 * @session: the session's name
 * @out: receives one SNAPSHOT_OUTPUT record per output (none: an empty
 *       list), the caller's to free with trawl_ctl_list_destroy()
 *
 * Return: 0, -ENOENT, -EINVAL (not a snapshot session).
 */
int trawl_ctl_snapshot_list_outputs(struct trawl_ctl *ctl, const char *session,
				    struct trawl_ctl_list **out);

/**
 * trawl_ctl_snapshot_record_output - record a snapshot, choosing where
 * @ctl: a connection
 * @session: the session's name; it must have been started once
 * @o: NULL, or what overrides the session's output for this snapshot: a
 *     URL (then the snapshot goes there, named snapshot-0 unless @o is
 *     named), a name, a max size
 * @out: as trawl_ctl_snapshot_record()
 *
 * Return: as trawl_ctl_snapshot_record(), and -EFBIG (max size too small
 * for one packet of each stream), -EOPNOTSUPP (net://).
 */
int trawl_ctl_snapshot_record_output(struct trawl_ctl *ctl, const char *session,
				     const struct trawl_ctl_snapshot_output *o,
				     struct trawl_ctl_list **out);

/* A snapshot just recorded. Strings belong to the list. */
struct trawl_ctl_snapshot_info {
	uint32_t struct_size;
	const char *session;
	const char *path; /* the folder written */
	uint32_t seq;     /* the session's snapshots so far, this one included: 1
			     for its first (its folder ends in -0) */
};

/* A snapshot output of a session. Strings belong to the list. */
struct trawl_ctl_snapshot_output_info {
	uint32_t struct_size;
	uint32_t id;          /* 1 for the session's first, never reused */
	const char *name;     /* snapshot-ID unless named */
	const char *ctrl_url; /* the folder, or the network URL */
	const char *data_url; /* "" for a folder */
	uint64_t max_size;    /* bytes; 0: no limit */
};

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_SNAPSHOT_H */
