/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/rotation.h> - clear and rotation (trace chunks).
 *
 * A session's trace is a sequence of trace chunks: clear discards the
 * current one's content, a rotation archives it and starts the next.
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_ROTATION_H
#define TRAWL_CTL_ROTATION_H

#include <stdint.h>

#include <trawl/ctl-types.h>
#include <trawl/ctl/connect.h>
#include <trawl/ctl/list.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * trawl_ctl_session_clear - discard what a session recorded so far
 * @ctl: a connection
 * @session: the session's name
 *
 * As LTTng's `clear`: what the session's buffers hold is discarded, and
 * (sessions writing to a folder) every file of its current trace chunk
 * is deleted, folders included (the session's output folder stays).
 * A started session records on into new files; a stopped one writes its
 * files again at its next start. A session never started, or cleared or
 * rotated since it stopped, is left as it is. Snapshot sessions lose their
 * buffers' content (their snapshots on disk stay).
 *
 * Return: 0, -ENOENT, -EOPNOTSUPP (streamed to trawl-relayd; a domain that
 * cannot, said in trawl_ctl_last_error()).
 */
int trawl_ctl_session_clear(struct trawl_ctl *ctl, const char *session);

/**
 * trawl_ctl_session_rotate - end the session's current trace chunk
 * @ctl: a connection
 * @session: the session's name (started once; not snapshot, live or streamed)
 * @out: NULL, or receives a list holding one ROTATION record (the chunk
 *       archived and its folder), the caller's to free with
 *       trawl_ctl_list_destroy()
 *
 * As LTTng's `rotate`: every file of the current chunk is completed and
 * the chunk moved to OUTPUT/archives/BEGIN-END-ID (BEGIN and END as
 * YYYYmmddTHHMMSS+hhmm, ID from 0), a trace readable alone; the session
 * records on in a new chunk OUTPUT/BEGIN-ID, archived likewise by the next
 * rotation or by trawl_ctl_session_destroy(). No event is in two chunks or
 * in none. Returns once the archive is complete.
 *
 * Return: 0, -ENOENT, -EBUSY (never started; rotated or cleared since it
 * stopped), -EOPNOTSUPP (snapshot, live or streamed session; a domain
 * that cannot), with LTTng's line in trawl_ctl_last_error().
 */
int trawl_ctl_session_rotate(struct trawl_ctl *ctl, const char *session,
			     struct trawl_ctl_list **out);

/**
 * trawl_ctl_rotation_schedule_add - rotate a session automatically
 * @ctl: a connection
 * @session: the session's name
 * @kind: TIMER (every @value µs while it traces) or SIZE (each time its
 *        current chunk holds about @value bytes, checked every 500 ms)
 * @value: > 0
 *
 * As LTTng's `enable-rotation`. Return: 0, -ENOENT, -EEXIST (a schedule
 * of that kind is set), -EINVAL, -EOPNOTSUPP (as for rotate).
 */
int trawl_ctl_rotation_schedule_add(struct trawl_ctl *ctl, const char *session,
				    enum trawl_ctl_rotation_schedule kind, uint64_t value);

/**
 * trawl_ctl_rotation_schedule_remove - stop rotating a session automatically
 * @ctl: a connection
 * @session: the session's name
 * @kind: TIMER or SIZE
 *
 * As LTTng's `disable-rotation`. Return: 0, -ENOENT (no such session, or
 * no schedule of that kind is set), -EINVAL.
 */
int trawl_ctl_rotation_schedule_remove(struct trawl_ctl *ctl, const char *session,
				       enum trawl_ctl_rotation_schedule kind);

/* A trace chunk just archived by a rotation. Strings belong to the list. */
struct trawl_ctl_rotation_info {
	uint32_t struct_size;
	const char *session;
	const char *path;  /* the archive's folder: OUTPUT/archives/BEGIN-END-ID */
	uint64_t chunk_id; /* ID: 0 for the session's first chunk */
};

/* An automatic rotation schedule of a session (trawl_ctl_rotation_schedule_add()). */
struct trawl_ctl_rotation_schedule_info {
	uint32_t struct_size;
	enum trawl_ctl_rotation_schedule kind;
	uint64_t value; /* µs (TIMER) or bytes (SIZE) */
};

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_ROTATION_H */
