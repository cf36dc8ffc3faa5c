/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl/session.h> - sessions.
 *
 * A session is a named tracing configuration of one user with its output;
 * its channels, event rules and trackers (the other headers) belong to it.
 * Also here: the user's current session, the metadata and state dump
 * written again, and the SESSION and DOMAIN records of lists.
 *
 * Part of the control API: programs include <trawl/ctl.h>, which includes
 * this header.
 */
#ifndef TRAWL_CTL_SESSION_H
#define TRAWL_CTL_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include <trawl/ctl-types.h>
#include <trawl/ctl/connect.h>
#include <trawl/ctl/list.h>

#ifdef __cplusplus
extern "C" {
#endif

struct trawl_ctl_session_attr; /* what a new session is: name, output, mode */

#define TRAWL_CTL_LIVE_TIMER_DEFAULT 1000000u /* µs, as LTTng's --live */

/**
 * trawl_ctl_session_attr_create - a new session description, all defaults
 *
 * Defaults: the daemon names the session auto-YYYYMMDD-HHMMSS; its trace goes
 * to ~/trawl-traces/NAME-YYYYMMDD-HHMMSS/; normal (not snapshot) mode; not live.
 *
 * Return: the object, the caller's to free with trawl_ctl_session_attr_destroy(),
 * or NULL when out of memory.
 */
struct trawl_ctl_session_attr *trawl_ctl_session_attr_create(void);

/**
 * trawl_ctl_session_attr_destroy - free a session description
 * @attr: the object, or NULL (then nothing happens)
 */
void trawl_ctl_session_attr_destroy(struct trawl_ctl_session_attr *attr);

/**
 * trawl_ctl_session_attr_set_name - name the session
 * @attr: a session description
 * @name: 1 to 255 bytes of [A-Za-z0-9_.:-], not starting with '.' or '-';
 *        NULL for an automatic name. Copied.
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG.
 */
int trawl_ctl_session_attr_set_name(struct trawl_ctl_session_attr *attr, const char *name);

/**
 * trawl_ctl_session_attr_set_output - say where the trace goes
 * @attr: a session description
 * @output: a folder (absolute, or relative to the current directory when this
 *          is called), file://FOLDER, or net://HOST[:CTRLPORT[:DATAPORT]]
 *          (net6:// for IPv6) to stream to trawl-relayd; NULL for the
 *          default. Copied (a folder as an absolute path).
 *
 * Return: 0, -EINVAL (not one of those forms) or -ENAMETOOLONG (more than
 * TRAWL_CTL_OUTPUT_MAX bytes with the NUL, once made absolute).
 */
int trawl_ctl_session_attr_set_output(struct trawl_ctl_session_attr *attr, const char *output);

/**
 * trawl_ctl_session_attr_set_no_output - record nothing to disk
 * @attr: a session description
 * @no_output: 1 for no output (snapshot sessions write only what
 *             trawl_ctl_snapshot_record() asks for), 0 for the default
 *
 * Return: 0.
 */
int trawl_ctl_session_attr_set_no_output(struct trawl_ctl_session_attr *attr, int no_output);

/**
 * trawl_ctl_session_attr_set_snapshot - make a flight-recorder session
 * @attr: a session description
 * @snapshot: 1: channels default to overwrite mode and
 *            trawl_ctl_snapshot_record() writes their content; 0: normal
 *
 * Return: 0.
 */
int trawl_ctl_session_attr_set_snapshot(struct trawl_ctl_session_attr *attr, int snapshot);

/**
 * trawl_ctl_session_attr_set_live - make a live session
 * @attr: a session description
 * @timer_us: 0 for a normal session; else the session streams to
 *            trawl-relayd (at net://127.0.0.1 unless an output URL is set)
 *            and its channels close partial packets every @timer_us µs, so
 *            live viewers see events within about that time
 *            (TRAWL_CTL_LIVE_TIMER_DEFAULT is LTTng's default)
 *
 * Return: 0.
 */
int trawl_ctl_session_attr_set_live(struct trawl_ctl_session_attr *attr, uint32_t timer_us);

/**
 * trawl_ctl_session_create - create a session
 * @ctl: a connection
 * @attr: what the session is (NULL: every default)
 * @out: NULL, or receives a list holding the new session's one SESSION
 *       record (its name and output as the daemon made them), the caller's
 *       to free with trawl_ctl_list_destroy()
 *
 * A streaming session's trawl-relayd must answer now (else -ECONNREFUSED or
 * the like, with the address in trawl_ctl_last_error()).
 *
 * Return: 0, -EEXIST, -EINVAL, -ENOSPC (too many sessions)...
 */
int trawl_ctl_session_create(struct trawl_ctl *ctl, const struct trawl_ctl_session_attr *attr,
			     struct trawl_ctl_list **out);

/**
 * trawl_ctl_session_set_shm_path - keep a session's user-space buffers in files
 * @ctl: a connection
 * @session: its name; not started yet
 * @path: a folder (absolute, or relative to the current directory): the
 *        buffers of each trace go in PATH/uid/UID/BITS-bit/ (per-user) or
 *        PATH/pid/NAME-PID-DATE/ (per-process), one file per channel and
 *        CPU, with the trace's metadata beside them, all created as the
 *        session's owner. They survive a crash of the app and of the
 *        daemons: `trawl crash PATH` reads them. (LTTng's
 *        lttng_set_session_shm_path(); `trawl create --shm-path DIR` gives
 *        DIR/NAME-DATE, as `lttng create` does.)
 *
 * Return: 0, -ENOENT (no such session), -EBUSY (started already, or it has
 * user-space buffers already), -EINVAL, -ENAMETOOLONG.
 */
int trawl_ctl_session_set_shm_path(struct trawl_ctl *ctl, const char *session, const char *path);

/**
 * trawl_ctl_session_destroy - destroy a session
 * @ctl: a connection
 * @session: its name
 *
 * Stops it first if it traces; returns once its data is on disk. The trace
 * stays. Return: 0 or -ENOENT.
 */
int trawl_ctl_session_destroy(struct trawl_ctl *ctl, const char *session);

/**
 * trawl_ctl_session_destroy_all - destroy every session of this user
 * @ctl: a connection
 *
 * Return: 0.
 */
int trawl_ctl_session_destroy_all(struct trawl_ctl *ctl);

/**
 * trawl_ctl_session_destroy_archived - destroy a session (or every one), saying
 * where the last trace chunk of each rotated one went
 * @ctl: a connection
 * @session: its name, or NULL for every session of this user
 * @out: NULL, or receives a list of ROTATION records, one per session
 *       destroyed that was ever rotated (trawl_ctl_session_rotate()): its
 *       last chunk, archived at the destroy as LTTng does, and that archive's
 *       folder; the caller's to free with trawl_ctl_list_destroy()
 *
 * As trawl_ctl_session_destroy() and trawl_ctl_session_destroy_all().
 * Return: 0 or -ENOENT.
 */
int trawl_ctl_session_destroy_archived(struct trawl_ctl *ctl, const char *session,
				       struct trawl_ctl_list **out);

/**
 * trawl_ctl_session_start - start tracing
 * @ctl: a connection
 * @session: the session's name
 *
 * Return: 0, -ENOENT, or -EBUSY if it traces already.
 */
int trawl_ctl_session_start(struct trawl_ctl *ctl, const char *session);

/**
 * trawl_ctl_session_stop - stop tracing
 * @ctl: a connection
 * @session: the session's name
 *
 * Returns once every event recorded so far is on disk (or with relayd).
 * Return: 0, -ENOENT, or -EBUSY if it does not trace.
 */
int trawl_ctl_session_stop(struct trawl_ctl *ctl, const char *session);

/**
 * trawl_ctl_regenerate_metadata - write a session's metadata files again
 * @ctl: a connection
 * @session: the session's name; it must be tracing
 *
 * Every metadata file of the session's traces is rewritten whole from what
 * the daemon and its consumers know (a reader that lost the file, or a
 * file damaged on disk, gets it back), as LTTng's `regenerate metadata`.
 *
 * Return: 0, -ENOENT, -EBUSY (not started), -EOPNOTSUPP (live sessions and
 * per-process user-space buffers, as in LTTng).
 */
int trawl_ctl_regenerate_metadata(struct trawl_ctl *ctl, const char *session);

/**
 * trawl_ctl_regenerate_statedump - record the state dump again
 * @ctl: a connection
 * @session: the session's name; it must be tracing
 *
 * The kernel domain records LTTng's lttng_statedump_* events again (the
 * processes, threads, files and memory maps of now); user space has no
 * state dump in trawl, so a session without a kernel domain succeeds
 * with nothing written.
 *
 * Return: 0, -ENOENT, -EBUSY (not started).
 */
int trawl_ctl_regenerate_statedump(struct trawl_ctl *ctl, const char *session);

/**
 * trawl_ctl_current_session_get - the user's current session
 * @buf: receives its name; TRAWL_CTL_NAME_MAX bytes always suffice
 * @len: bytes at @buf
 *
 * The current session is remembered per user in $HOME/.trawlrc, as LTTng's
 * ~/.lttngrc. Return: 0, -ENOENT when none is set, -ERANGE when @len is too
 * small (then @buf is left alone).
 */
int trawl_ctl_current_session_get(char *buf, size_t len);

/**
 * trawl_ctl_current_session_set - make @name the current session
 * @name: a session name (whether it exists is not checked)
 *
 * Return: 0, -EINVAL (not a valid name), -ENOENT (no $HOME) or an I/O error.
 */
int trawl_ctl_current_session_set(const char *name);

/**
 * trawl_ctl_current_session_clear - forget the current session if it is @name
 * @name: a session name, or NULL to forget it whatever it is
 *
 * Return: 0 or an I/O error.
 */
int trawl_ctl_current_session_clear(const char *name);

/* A session. Strings belong to the list. */
struct trawl_ctl_session_info {
	uint32_t struct_size;   /* set by the caller: see <trawl/ctl.h> */
	const char *name;
	const char *output;     /* trace folder, or net://HOST:CTRLPORT:DATAPORT when
				   streaming, or "" with no output */
	int32_t active;         /* 1 while tracing */
	int32_t snapshot;       /* 1: a snapshot (flight-recorder) session */
	uint32_t live_timer_us; /* 0: not live */
	uint32_t uid;           /* its owner */
	const char *shm_path;   /* "" or where its user-space buffers are files
				   (trawl_ctl_session_set_shm_path()) */
};

/* A session's part in one domain, with its health. Strings belong to the list. */
struct trawl_ctl_domain_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	int32_t consumer_alive;    /* 0 once its consumer died (data so far stays readable) */
	uint64_t events_discarded; /* over its channels, as far as known */
	uint64_t bytes_written;    /* trace bytes out so far, as far as known */
	const char *problem;       /* "" or one line: "consumer died (signal 9)" */
	/* Of events_discarded, those recorded while their program was not set up
	 * by the session daemon (it dropped the program for missing a deadline,
	 * or set it up late): counted by the program instead of traced, not lost
	 * to full buffers. Since ctl protocol 16 (0 from an older daemon). */
	uint64_t events_tallied;
};

/**
 * trawl_ctl_list_sessions - the sessions this user can see
 * @ctl: a connection
 * @out: receives one SESSION record per session, the caller's to free with
 *       trawl_ctl_list_destroy()
 *
 * Return: 0 or a transport error.
 */
int trawl_ctl_list_sessions(struct trawl_ctl *ctl, struct trawl_ctl_list **out);

/**
 * trawl_ctl_list_session - one session in detail
 * @ctl: a connection
 * @session: its name
 * @out: receives, the caller's to free with trawl_ctl_list_destroy(): its
 *       SESSION record, its ROTATION_SCHEDULE records (TIMER then SIZE,
 *       those set), then for each domain it uses a DOMAIN record
 *       followed by that domain's trackers (each TRACKER record followed by
 *       its TRACKER_VALUE records, in increasing order), then its channels,
 *       each CHANNEL record followed by its CONTEXT records then its EVENT
 *       records
 *
 * Return: 0 or -ENOENT.
 */
int trawl_ctl_list_session(struct trawl_ctl *ctl, const char *session,
			   struct trawl_ctl_list **out);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_SESSION_H */
