/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl.h> - the public control API of trawl (libtrawl-ctl).
 *
 * Every `trawl` subcommand is a call of this API. A program connects to a
 * session daemon, then creates sessions, channels, event rules and contexts,
 * starts and stops tracing, and lists what exists:
 *
 *	struct trawl_ctl *ctl;
 *	struct trawl_ctl_session_attr *attr = trawl_ctl_session_attr_create();
 *
 *	trawl_ctl_connect(&ctl, 0);
 *	trawl_ctl_session_attr_set_name(attr, "demo");
 *	trawl_ctl_session_create(ctl, attr, NULL);
 *	trawl_ctl_session_attr_destroy(attr);
 *	... trawl_ctl_event_enable(), trawl_ctl_session_start(), _stop() ...
 *	trawl_ctl_session_destroy(ctl, "demo");
 *	trawl_ctl_disconnect(ctl);
 *
 * Which daemon: root (and, when the root daemon runs, members of the group
 * `tracing`) talk to the root daemon, which can trace the kernel; other users
 * talk to their own daemon, started on first use. Users never see each
 * other's sessions.
 *
 * Errors: every function returning int returns 0 or a negative errno:
 *   -ENOENT   unknown session, channel or event     -EEXIST  already exists/enabled
 *   -EINVAL   bad argument (size, name, filter)     -EACCES  permission denied
 *   -EBUSY    wrong state (started / not started)   -ENOTCONN no daemon, could not start one
 *   -EOPNOTSUPP what this domain or kernel cannot do -EPROTO daemon sent garbage
 *   -ENAMETOOLONG a string over its limit (<trawl/ctl-types.h>)
 *   -EPROTONOSUPPORT the daemon speaks another version of the protocol
 * After a failed call, trawl_ctl_last_error() gives the daemon's one-line
 * explanation when it sent one.
 *
 * Objects: the attribute objects (session, channel, event rule) are the
 * caller's, made by *_create and freed by *_destroy; a daemon never keeps a
 * pointer to them. Results come back as a struct trawl_ctl_list of typed
 * records (struct trawl_ctl_*_info), the caller's to free with
 * trawl_ctl_list_destroy(); the strings in a record belong to its list.
 *
 * Records grow at their end in later versions: each starts with struct_size,
 * which the caller sets to sizeof(the struct) before asking for a record, and
 * the library sets to the bytes it filled. A program built against an older
 * header gets the fields it knows; one built against a newer header, run with
 * an older library, finds struct_size smaller and the fields past it unwritten.
 *
 * Thread safety: one struct trawl_ctl must not be used by two threads at once;
 * separate connections are independent. Attribute objects and lists may be
 * read by several threads at once.
 */
#ifndef TRAWL_CTL_H
#define TRAWL_CTL_H

#include <stddef.h>
#include <stdint.h>

#include <trawl/ctl-types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct trawl_ctl;              /* a connection to a session daemon */
struct trawl_ctl_session_attr; /* what a new session is: name, output, mode */
struct trawl_ctl_channel_attr; /* a channel's name and attributes */
struct trawl_ctl_event;        /* an event rule */
struct trawl_ctl_list;         /* records returned by a daemon */

/* ---- connections ---- */

/* trawl_ctl_connect() flags */
#define TRAWL_CTL_CONNECT_NO_SPAWN 0x1u /* fail with -ENOTCONN rather than start a daemon */
#define TRAWL_CTL_CONNECT_USER 0x2u     /* the user's own daemon even if root's is usable */

/**
 * trawl_ctl_connect - connect to the session daemon this user should use
 * @out: receives the connection, the caller's to free with trawl_ctl_disconnect()
 * @flags: TRAWL_CTL_CONNECT_*
 *
 * Starts the user's daemon when none runs: trawl-sessiond from the same
 * installation as this library ($TRAWL_TRAWL_SESSIOND_PATH overrides).
 * Honours $TRAWL_RUNTIME_DIR and $TRAWL_ROOT_RUNTIME_DIR.
 *
 * Return: 0, -ENOTCONN, -EACCES (the root daemon refuses this user) or
 * -EPROTONOSUPPORT (the running daemon is from another version of trawl).
 */
int trawl_ctl_connect(struct trawl_ctl **out, unsigned flags);

/**
 * trawl_ctl_disconnect - close a connection and free it
 * @ctl: the connection, or NULL (then nothing happens)
 */
void trawl_ctl_disconnect(struct trawl_ctl *ctl);

/**
 * trawl_ctl_is_root_daemon - whether @ctl talks to the root daemon
 * @ctl: a connection
 *
 * Return: 1 if it does (that daemon may trace the kernel), else 0.
 */
int trawl_ctl_is_root_daemon(const struct trawl_ctl *ctl);

/**
 * trawl_ctl_last_error - the daemon's explanation of the last failure
 * @ctl: a connection
 *
 * Return: one line without a newline (at most TRAWL_CTL_ERROR_MAX bytes with
 * its NUL), or "" when the daemon sent none. Owned by @ctl, valid until its
 * next call.
 */
const char *trawl_ctl_last_error(const struct trawl_ctl *ctl);

/**
 * trawl_ctl_daemon_quit - ask the daemon to exit
 * @ctl: a connection
 *
 * Only the daemon's owner or root may. Return: 0 or -EACCES.
 */
int trawl_ctl_daemon_quit(struct trawl_ctl *ctl);

/* ---- sessions ---- */

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

/* ---- snapshot outputs (LTTng's `snapshot add-output` ...) ---- */

struct trawl_ctl_snapshot_output; /* where and how big a snapshot goes */

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

/* ---- clear and rotation (trace chunks) ---- */

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

/* ---- channels ---- */

/**
 * trawl_ctl_channel_attr_create - a new channel description
 * @name: the channel's name (rules as session names). Copied.
 *
 * Unset attributes take the domain's defaults. Sizes are bytes; timers µs.
 *
 * Return: the object, the caller's to free with trawl_ctl_channel_attr_destroy(),
 * or NULL with errno EINVAL (bad name) or ENOMEM.
 */
struct trawl_ctl_channel_attr *trawl_ctl_channel_attr_create(const char *name);

/**
 * trawl_ctl_channel_attr_destroy - free a channel description
 * @attr: the object, or NULL (then nothing happens)
 */
void trawl_ctl_channel_attr_destroy(struct trawl_ctl_channel_attr *attr);

/**
 * trawl_ctl_channel_attr_set_subbuf_size - bytes per sub-buffer
 * @attr: a channel description
 * @bytes: a power of two, at least 4096
 *
 * Return: 0 or -EINVAL.
 */
int trawl_ctl_channel_attr_set_subbuf_size(struct trawl_ctl_channel_attr *attr, uint64_t bytes);

/**
 * trawl_ctl_channel_attr_set_num_subbuf - sub-buffers per ring buffer
 * @attr: a channel description
 * @num: a power of two, at least 2
 *
 * Return: 0 or -EINVAL.
 */
int trawl_ctl_channel_attr_set_num_subbuf(struct trawl_ctl_channel_attr *attr, uint32_t num);

/**
 * trawl_ctl_channel_attr_set_overwrite - what happens when the buffer is full
 * @attr: a channel description
 * @overwrite: 1: the oldest data is overwritten (flight recorder); 0: new
 *             events are dropped and counted
 *
 * Return: 0.
 */
int trawl_ctl_channel_attr_set_overwrite(struct trawl_ctl_channel_attr *attr, int overwrite);

/**
 * trawl_ctl_channel_attr_set_switch_timer - close the current packet periodically
 * @attr: a channel description
 * @us: period in µs, 0 for none
 *
 * Return: 0.
 */
int trawl_ctl_channel_attr_set_switch_timer(struct trawl_ctl_channel_attr *attr, uint32_t us);

/**
 * trawl_ctl_channel_attr_set_read_timer - how often full packets are looked for
 * @attr: a channel description
 * @us: period in µs, 0 for the domain's default
 *
 * Return: 0.
 */
int trawl_ctl_channel_attr_set_read_timer(struct trawl_ctl_channel_attr *attr, uint32_t us);

/**
 * trawl_ctl_channel_attr_set_buffers - the buffering scheme
 * @attr: a channel description
 * @buffers: PER_UID or PER_PID (user space), GLOBAL (kernel), DEFAULT
 *
 * A scheme the channel's domain does not have is refused when the channel
 * is enabled. Return: 0 or -EINVAL (not an enum trawl_ctl_buffers value).
 */
int trawl_ctl_channel_attr_set_buffers(struct trawl_ctl_channel_attr *attr,
				       enum trawl_ctl_buffers buffers);

/**
 * trawl_ctl_channel_attr_set_tracefile_size - split each stream's file (LTTng's --tracefile-size)
 * @attr: a channel description
 * @bytes: 0 (the default: one file per stream), or the most a stream file
 *         holds: the stream goes on in a new file, <channel>_<cpu>_<n>, at a
 *         packet boundary. Less than the sub-buffer size is raised to it.
 *
 * Return: 0.
 */
int trawl_ctl_channel_attr_set_tracefile_size(struct trawl_ctl_channel_attr *attr, uint64_t bytes);

/**
 * trawl_ctl_channel_attr_set_tracefile_count - files kept per stream (LTTng's --tracefile-count)
 * @attr: a channel description
 * @count: 0 (the default: all), or the newest files kept per stream, with a
 *         tracefile size: the file after the last reuses the first's name
 *         (n modulo @count), the oldest file truncated. Without a size it
 *         does nothing. As in LTTng 2.13, the events of the files
 *         overwritten are not counted discarded (readers see the newest
 *         files as the whole trace, and `stop` reports no loss for them).
 *
 * Return: 0.
 */
int trawl_ctl_channel_attr_set_tracefile_count(struct trawl_ctl_channel_attr *attr, uint32_t count);

/**
 * trawl_ctl_channel_attr_set_blocking_timeout - how long a writer waits for room
 * @attr: a channel description
 * @us: 0: never (the default: a full buffer drops the event, counted);
 *      TRAWL_CTL_BLOCKING_INF (-1): until there is room; else the most
 *      microseconds an event waits for the consumer before it is dropped
 *
 * LTTng 2.13's --blocking-timeout: user-space discard-mode channels only (the
 * daemon refuses it for a kernel or overwrite channel), and an app waits only
 * if it allows it (LTTNG_UST_ALLOW_BLOCKING or TRAWL_UST_ALLOW_BLOCKING set in
 * its environment); see trawl-ust(3).
 * Return: 0 or -EINVAL (below -1 or above TRAWL_CTL_BLOCKING_MAX_US).
 */
int trawl_ctl_channel_attr_set_blocking_timeout(struct trawl_ctl_channel_attr *attr, int64_t us);

/**
 * trawl_ctl_channel_attr_set_monitor_timer - how often the channel's buffers
 * are sampled (LTTng's --monitor-timer)
 * @attr: a channel description
 * @us: the period in µs; 0: never (the channel's buffer-usage and
 *      session-consumed-size triggers then never fire on its samples).
 *      Without a call: LTTng's default, 1 s.
 *
 * Each period the consumer reports how full the channel's buffers are and
 * what it consumed; the session daemon evaluates the buffer-usage and
 * session-consumed-size conditions of triggers on each report.
 * Return: 0 or -EINVAL (@us above TRAWL_CTL_MONITOR_MAX_US).
 */
int trawl_ctl_channel_attr_set_monitor_timer(struct trawl_ctl_channel_attr *attr, uint64_t us);

/**
 * trawl_ctl_channel_attr_set_output - LTTng's --output: mmap or splice
 * @attr: a channel description
 * @output: TRAWL_CTL_OUTPUT_DEFAULT, _SPLICE or _MMAP
 *
 * LTTng 2.13's rules: a user-space channel is mmap only (the daemon refuses
 * splice: -EOPNOTSUPP); a kernel channel is splice by default, mmap if asked,
 * and mmap in a snapshot session whatever is asked. What the channel then
 * says (trawl_ctl_channel_info.output, list, --mi xml, save) is all it
 * changes: trawl's consumers write every channel the same way.
 * Return: 0 or -EINVAL (not one of those).
 */
int trawl_ctl_channel_attr_set_output(struct trawl_ctl_channel_attr *attr,
				      enum trawl_ctl_output output);

/**
 * trawl_ctl_channel_enable - create a channel, or enable it again
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @attr: the channel (only its name counts when it exists already)
 *
 * Channels are created before the session first starts.
 * Return: 0, -EEXIST (enabled already), -EBUSY, -EINVAL...
 */
int trawl_ctl_channel_enable(struct trawl_ctl *ctl, const char *session,
			     enum trawl_ctl_domain domain, const struct trawl_ctl_channel_attr *attr);

/**
 * trawl_ctl_channel_disable - pause recording in a channel
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @channel: the channel's name
 *
 * Return: 0, -ENOENT, -EEXIST (disabled already).
 */
int trawl_ctl_channel_disable(struct trawl_ctl *ctl, const char *session,
			      enum trawl_ctl_domain domain, const char *channel);

/* ---- event rules and contexts ---- */

/**
 * trawl_ctl_event_create - a new event rule
 * @kind: what @name designates
 * @name: an event name, or a pattern with '*' ("*": every event); for
 *        probes, the name the probe's events get. Copied.
 *
 * Return: the object, the caller's to free with trawl_ctl_event_destroy(), or
 * NULL with errno EINVAL (bad kind, empty or too long name) or ENOMEM.
 */
struct trawl_ctl_event *trawl_ctl_event_create(enum trawl_ctl_event_kind kind, const char *name);

/**
 * trawl_ctl_event_destroy - free an event rule
 * @ev: the object, or NULL (then nothing happens)
 */
void trawl_ctl_event_destroy(struct trawl_ctl_event *ev);

/**
 * trawl_ctl_event_set_target - a probe's location
 * @ev: an event rule of kind PROBE, FUNCTION or USERSPACE_PROBE
 * @target: see enum trawl_ctl_event_kind; NULL for none. Copied.
 *
 * Return: 0 or -ENAMETOOLONG (TRAWL_CTL_TARGET_MAX).
 */
int trawl_ctl_event_set_target(struct trawl_ctl_event *ev, const char *target);

/**
 * trawl_ctl_event_set_filter - record only events for which an expression holds
 * @ev: an event rule
 * @filter: LTTng's filter syntax, checked by the daemon; NULL for none. Copied.
 *
 * Return: 0 or -ENAMETOOLONG (TRAWL_CTL_FILTER_MAX).
 */
int trawl_ctl_event_set_filter(struct trawl_ctl_event *ev, const char *filter);

/**
 * trawl_ctl_event_set_loglevel - record only events of some log levels
 * @ev: an event rule (user space, or an agent domain)
 * @type: which levels, relative to @level
 * @level: user space: 0 (TRACE_EMERG) .. 14 (TRACE_DEBUG), checked when the
 *         rule is enabled; an agent domain: its framework's level
 *         (TRAWL_CTL_JUL_*, TRAWL_CTL_LOG4J_*, TRAWL_CTL_PYTHON_*), and RANGE
 *         means this level or more severe (larger)
 *
 * Return: 0 or -EINVAL.
 */
int trawl_ctl_event_set_loglevel(struct trawl_ctl_event *ev, enum trawl_ctl_loglevel_type type,
				 int level);

/**
 * trawl_ctl_event_add_exclusion - leave events out of a pattern's rule
 * @ev: an event rule (user space) whose name holds a '*'
 * @name: an event name, or a pattern with '*', that the rule must not
 *        record although its name matches (LTTng's `enable-event --exclude`).
 *        Copied.
 *
 * A rule with exclusions is another rule than the same one without, as in
 * LTTng. The kernel domain refuses them (-EINVAL, as LTTng 2.13 does).
 *
 * Return: 0, -EINVAL (an empty name or one with ','), -ENAMETOOLONG (the
 * rule's exclusions, joined by ',', reach TRAWL_CTL_EXCLUSIONS_MAX).
 */
int trawl_ctl_event_add_exclusion(struct trawl_ctl_event *ev, const char *name);

/**
 * trawl_ctl_event_enable - enable an event rule
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @channel: the channel's name; NULL for the domain's default channel
 *           (channel0, created on demand)
 * @ev: the rule (read during the call only)
 *
 * Return: 0, -EEXIST if the same rule is enabled already, -EINVAL...
 */
int trawl_ctl_event_enable(struct trawl_ctl *ctl, const char *session,
			   enum trawl_ctl_domain domain, const char *channel,
			   const struct trawl_ctl_event *ev);

/**
 * trawl_ctl_event_disable - disable event rules
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @channel: the channel's name; NULL for channel0
 * @ev: disables the enabled rules with @ev's kind and name; "*" disables
 *      every rule of the channel
 *
 * Return: 0 or -ENOENT.
 */
int trawl_ctl_event_disable(struct trawl_ctl *ctl, const char *session,
			    enum trawl_ctl_domain domain, const char *channel,
			    const struct trawl_ctl_event *ev);

/**
 * trawl_ctl_context_add - add a context field to every event of channels
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @channel: the channel's name; NULL for every channel of the domain
 * @context: "pid", "procname", "perf:thread:page-faults"... (trawl
 *           add-context --list names them)
 *
 * Contexts are added before the session first starts.
 * Return: 0, -EINVAL (unknown here), -EEXIST, -EBUSY.
 */
int trawl_ctl_context_add(struct trawl_ctl *ctl, const char *session,
			  enum trawl_ctl_domain domain, const char *channel, const char *context);

/* ---- process-attribute trackers ---- */

/**
 * trawl_ctl_track - add a value to a tracker's inclusion set
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @attr: the process attribute (user space: VPID, VUID or VGID only)
 * @value: the ID
 *
 * A domain traces only the processes whose every tracked attribute is in
 * its tracker's set; a tracker that includes all (the default) becomes the
 * set {@value}. Applied to running apps before the call returns.
 *
 * Return: 0, -EEXIST (already in the set), -ENOENT (no such session),
 * -EINVAL (an attribute the domain has not), -ENOSPC (the set holds
 * TRAWL_CTL_TRACKER_MAX_VALUES values), -EOPNOTSUPP.
 */
int trawl_ctl_track(struct trawl_ctl *ctl, const char *session, enum trawl_ctl_domain domain,
		    enum trawl_ctl_process_attr attr, uint32_t value);

/**
 * trawl_ctl_untrack - remove a value from a tracker's inclusion set
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @attr: the process attribute
 * @value: the ID
 *
 * Return: 0, -ENXIO (not in the set, or the tracker includes all), -ENOENT
 * (no such session), -EINVAL, -EOPNOTSUPP.
 */
int trawl_ctl_untrack(struct trawl_ctl *ctl, const char *session, enum trawl_ctl_domain domain,
		      enum trawl_ctl_process_attr attr, uint32_t value);

/**
 * trawl_ctl_track_all - make a tracker include every process (LTTng's track --all)
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @attr: the process attribute
 *
 * Return: 0, -ENOENT, -EINVAL, -EOPNOTSUPP.
 */
int trawl_ctl_track_all(struct trawl_ctl *ctl, const char *session, enum trawl_ctl_domain domain,
			enum trawl_ctl_process_attr attr);

/**
 * trawl_ctl_untrack_all - make a tracker's set empty: no process is traced
 * @ctl: a connection
 * @session: the session's name
 * @domain: KERNEL or UST
 * @attr: the process attribute
 *
 * Return: 0, -ENOENT, -EINVAL, -EOPNOTSUPP.
 */
int trawl_ctl_untrack_all(struct trawl_ctl *ctl, const char *session,
			  enum trawl_ctl_domain domain, enum trawl_ctl_process_attr attr);

/**
 * trawl_ctl_process_attr_name - how LTTng names a process attribute
 * @attr: the attribute
 *
 * Return: "process ID", "virtual process ID", "user ID", "virtual user ID",
 * "group ID" or "virtual group ID" (static storage), NULL if out of range.
 */
const char *trawl_ctl_process_attr_name(enum trawl_ctl_process_attr attr);

/* ---- triggers (LTTng's add-trigger, list-triggers, remove-trigger) ---- */

/*
 * A trigger is a condition and up to TRAWL_CTL_TRIGGER_MAX_ACTIONS actions,
 * registered with the session daemon, which runs the actions each time the
 * condition holds (under each action's rate policy). A trigger belongs to
 * the user who registered it: they alone list and remove it (root sees and
 * removes every user's), and its session actions act only on sessions that
 * user may act on. Names are unique per owner.
 */
struct trawl_ctl_trigger; /* a trigger being described */

/**
 * trawl_ctl_trigger_create - a new, empty trigger description
 *
 * Return: the caller's to free with trawl_ctl_trigger_destroy(), or NULL
 * when out of memory.
 */
struct trawl_ctl_trigger *trawl_ctl_trigger_create(void);

/**
 * trawl_ctl_trigger_destroy - free a trigger description
 * @t: the description, or NULL
 */
void trawl_ctl_trigger_destroy(struct trawl_ctl_trigger *t);

/**
 * trawl_ctl_trigger_set_name - name the trigger (unnamed, the daemon names it
 * triggerN, as LTTng does)
 * @t: the trigger
 * @name: 1 to 255 printable ASCII bytes
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_set_name(struct trawl_ctl_trigger *t, const char *name);

/**
 * trawl_ctl_trigger_set_owner_uid - register (or remove) as another user
 * @t: the trigger
 * @uid: the owner; only root may name another user than itself
 *
 * Return: 0.
 */
int trawl_ctl_trigger_set_owner_uid(struct trawl_ctl_trigger *t, uint32_t uid);

/**
 * trawl_ctl_trigger_set_event_rule - condition "event rule matches"
 * @t: the trigger
 * @domain: UST or KERNEL, or an agent domain (JUL, LOG4J, PYTHON: @pattern
 *          is a logger, the levels the framework's)
 * @kind: TRACEPOINT, or SYSCALL (kernel)
 * @pattern: an event name or a pattern ending in '*'; NULL or "": "*"
 * @filter: a filter expression (as enable-event's), or NULL
 * @loglevel_type: ALL, RANGE (at least as severe as) or SINGLE (user space)
 * @loglevel: 0..14, with RANGE or SINGLE
 * @exclusions: names left out, joined by ',' (user space), or NULL
 *
 * User-space rules see the events of the apps their owner may trace. Kernel
 * rules (the root daemon's) watch every matching tracepoint, or system
 * call's entry and exit, on every CPU through perf_event_open(2): each event
 * is notified as it happens (the daemon wakes per event; well under a
 * millisecond on an idle machine). Their filter is handed to the kernel, in
 * ftrace's syntax; an event that lacks the fields it names (a system call's
 * exit, with a filter on its arguments) never matches, and registering a
 * trigger whose filter no matched event takes fails.
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_set_event_rule(struct trawl_ctl_trigger *t, enum trawl_ctl_domain domain,
				     enum trawl_ctl_event_kind kind, const char *pattern,
				     const char *filter, enum trawl_ctl_loglevel_type loglevel_type,
				     int loglevel, const char *exclusions);

/**
 * trawl_ctl_trigger_set_probe_rule - condition "event rule matches" on a
 * kernel probe (LTTng's --type=kernel:kprobe or kernel:uprobe)
 * @t: the trigger
 * @kind: PROBE (@location SYMBOL, SYMBOL+OFFSET or 0xADDRESS) or
 *        USERSPACE_PROBE (@location [elf:]PATH:SYMBOL or
 *        sdt:PATH:PROVIDER:NAME)
 * @location: as enable-event's --probe or --userspace-probe takes it, and
 *            checked as strictly by the root daemon, which reads a uprobe's
 *            PATH as the registering user (a regular file they can read)
 * @event_name: the rule's event name (list-triggers shows it); NULL or "":
 *              the location, as LTTng names it
 *
 * The daemon defines the probe when the trigger is registered and removes it
 * with the trigger; each hit of it is one occurrence of the condition, seen
 * through perf_event_open(2) as kernel tracepoints are. Its captures see
 * the probe's fields: a uprobe on a function records its first six integer
 * arguments as a0..a5 (x86-64), both kinds __probe_ip; $ctx.pid and
 * $ctx.tid. Kprobes need a kernel with kprobe_events.
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_set_probe_rule(struct trawl_ctl_trigger *t, enum trawl_ctl_event_kind kind,
				     const char *location, const char *event_name);

/**
 * trawl_ctl_trigger_add_capture - capture a field when the event rule matches
 * @t: the trigger (with an event rule)
 * @descriptor: a payload field name, $ctx.NAME or $app.PROVIDER:TYPE, with an
 *              optional [INDEX]
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG (all captures within
 * TRAWL_CTL_CAPTURES_MAX bytes).
 */
int trawl_ctl_trigger_add_capture(struct trawl_ctl_trigger *t, const char *descriptor);

/**
 * trawl_ctl_trigger_set_session_consumed_size - condition "session consumed
 * size": @session's consumers have written at least @bytes
 *
 * Sampled as often as the shortest monitor timer of the session's channels
 * (trawl_ctl_channel_attr_set_monitor_timer(); none: never). As LTTng's,
 * the trigger fires when a sample finds the condition holding and the one
 * before did not: once per session, unless it is cleared and written again.
 *
 * Return: 0, -EINVAL (@bytes 0) or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_set_session_consumed_size(struct trawl_ctl_trigger *t, const char *session,
						uint64_t bytes);

/**
 * trawl_ctl_trigger_set_buffer_usage - condition "buffer usage high/low"
 * @t: the trigger
 * @kind: BUFFER_USAGE_HIGH or BUFFER_USAGE_LOW
 * @session, @channel, @domain: the channel
 * @ratio_ppm: the threshold as a ratio of the buffers' size, in millionths
 *             (0..1000000), or UINT32_MAX to give it in @bytes
 * @bytes: the threshold in bytes, with @ratio_ppm UINT32_MAX
 *
 * High holds when some buffer of the channel (per CPU, and per user or
 * process) holds at least the threshold, low when every one holds at most
 * it (LTTng's rules), at each sample of the channel's monitor timer
 * (trawl_ctl_channel_attr_set_monitor_timer(); 0: never). The trigger fires
 * on a crossing only: when a sample finds the condition holding and the one
 * before did not, so a buffer that stays full fires once. A kernel
 * channel's buffers are its per-CPU tracefs buffers (a perf or BPF
 * channel's records never wait in them: its usage stays 0).
 *
 * Return: 0, -EINVAL or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_set_buffer_usage(struct trawl_ctl_trigger *t,
				       enum trawl_ctl_condition_kind kind, const char *session,
				       const char *channel, enum trawl_ctl_domain domain,
				       uint32_t ratio_ppm, uint64_t bytes);

/**
 * trawl_ctl_trigger_add_action - append an action (rate policy: every 1)
 * @t: the trigger
 * @kind: the action
 * @session: the session it acts on; NULL for NOTIFY
 *
 * Return: the action's index (>= 0), -EINVAL, -ENAMETOOLONG, or -E2BIG past
 * TRAWL_CTL_TRIGGER_MAX_ACTIONS.
 */
int trawl_ctl_trigger_add_action(struct trawl_ctl_trigger *t, enum trawl_ctl_action_kind kind,
				 const char *session);

/**
 * trawl_ctl_trigger_action_set_rate_policy - when action @i runs
 * @t: the trigger
 * @i: the action's index
 * @policy: EVERY_N or ONCE_AFTER_N
 * @n: N >= 1
 *
 * Return: 0 or -EINVAL.
 */
int trawl_ctl_trigger_action_set_rate_policy(struct trawl_ctl_trigger *t, int i,
					     enum trawl_ctl_rate_policy policy, uint64_t n);

/**
 * trawl_ctl_trigger_action_set_snapshot_output - where a SNAPSHOT_SESSION
 * action's snapshot goes (without: the session's own output)
 * @t: the trigger
 * @i: the action's index
 * @o: the output (copied; its URL must be set)
 *
 * Return: 0 or -EINVAL.
 */
int trawl_ctl_trigger_action_set_snapshot_output(struct trawl_ctl_trigger *t, int i,
						 const struct trawl_ctl_snapshot_output *o);

/**
 * trawl_ctl_trigger_action_set_snapshot_given_urls - the control and data
 * URLs a SNAPSHOT_SESSION action's output was given as (LTTng's --ctrl-url,
 * --data-url), kept only to be listed as given: the output itself
 * (trawl_ctl_trigger_action_set_snapshot_output()) is the net:// URL they make
 * @t: the trigger
 * @i: the action's index
 * @ctrl_url: the control URL, copied
 * @data_url: the data URL, copied
 *
 * Return: 0, -EINVAL (not a SNAPSHOT_SESSION action) or -ENAMETOOLONG.
 */
int trawl_ctl_trigger_action_set_snapshot_given_urls(struct trawl_ctl_trigger *t, int i,
						     const char *ctrl_url, const char *data_url);

/**
 * trawl_ctl_trigger_register - register a trigger
 * @ctl: a connection
 * @t: the trigger, with a condition and at least one action
 * @out: if not NULL, receives its TRIGGER record (with its name) and its
 *       TRIGGER_ACTION records, the caller's to free
 *
 * Return: 0, -EEXIST (the owner has a trigger of that name), -EINVAL,
 * -EACCES (another owner, not root), -EDQUOT (the owner holds as many
 * triggers as the daemon allows one user).
 */
int trawl_ctl_trigger_register(struct trawl_ctl *ctl, const struct trawl_ctl_trigger *t,
			       struct trawl_ctl_list **out);

/**
 * trawl_ctl_trigger_unregister - remove a trigger
 * @ctl: a connection
 * @name: its name
 * @owner_uid: its owner, or UINT32_MAX for the caller (root may name others)
 *
 * Return: 0, -ENOENT (no trigger of that name and owner), -EACCES.
 */
int trawl_ctl_trigger_unregister(struct trawl_ctl *ctl, const char *name, uint32_t owner_uid);

/**
 * trawl_ctl_list_triggers - the triggers the caller may see (root: all)
 * @ctl: a connection
 * @out: receives, for each trigger in the order registered, its TRIGGER
 *       record then its TRIGGER_ACTION records; the caller's to free
 *
 * Return: 0 or a transport error.
 */
int trawl_ctl_list_triggers(struct trawl_ctl *ctl, struct trawl_ctl_list **out);

/* ---- notifications (triggers' notify action) ---- */

/*
 * A notification channel: a connection of its own to the session daemon on
 * which a program waits for the notifications of its triggers (those whose
 * actions include notify; a user's own triggers only, root's too), from the
 * channel's creation on. LTTng's notification channel, with triggers named
 * rather than conditions: a program subscribes to the triggers it wants.
 *
 * The daemon keeps each user's last 128 notifications; a program that takes
 * longer to come back loses the older ones (counted:
 * trawl_ctl_notification_channel_dropped()). Not thread-safe: one thread
 * uses a channel at a time.
 *
 *	struct trawl_ctl_notification_channel *ch;
 *	struct trawl_ctl_notification *n;
 *
 *	trawl_ctl_notification_channel_create(&ch);
 *	trawl_ctl_notification_channel_subscribe(ch, "on-error");
 *	while (trawl_ctl_notification_channel_receive(ch, -1, &n) == 0) {
 *		printf("%s fired\n", trawl_ctl_notification_trigger(n));
 *		trawl_ctl_notification_destroy(n);
 *	}
 *	trawl_ctl_notification_channel_destroy(ch);
 */
struct trawl_ctl_notification_channel;
struct trawl_ctl_notification;

/**
 * trawl_ctl_notification_channel_create - a channel to the daemon the user
 * should use (as trawl_ctl_connect() finds it; started if none runs)
 * @out: receives it, the caller's to free with
 *       trawl_ctl_notification_channel_destroy()
 *
 * Return: 0, or as trawl_ctl_connect().
 */
int trawl_ctl_notification_channel_create(struct trawl_ctl_notification_channel **out);

/**
 * trawl_ctl_notification_channel_destroy - close a channel and free it, with
 * the notifications it holds not yet received
 * @ch: a channel, or NULL (then nothing happens)
 */
void trawl_ctl_notification_channel_destroy(struct trawl_ctl_notification_channel *ch);

/**
 * trawl_ctl_notification_channel_subscribe - receive @trigger's notifications
 * @ch: a channel
 * @trigger: a trigger's name (of the caller's triggers)
 *
 * A name not (yet) registered is taken: its notifications come once it is.
 * Return: 0, -EEXIST (subscribed already), -ENOSPC (64 subscriptions at
 * most), -EINVAL (not a trigger name), -ENOMEM.
 */
int trawl_ctl_notification_channel_subscribe(struct trawl_ctl_notification_channel *ch,
					     const char *trigger);
/**
 * trawl_ctl_notification_channel_unsubscribe - no more of @trigger's
 * notifications (those already received stay)
 * @ch: a channel
 * @trigger: a name given to trawl_ctl_notification_channel_subscribe()
 *
 * Return: 0 or -ENOENT (not subscribed).
 */
int trawl_ctl_notification_channel_unsubscribe(struct trawl_ctl_notification_channel *ch,
					       const char *trigger);

/**
 * trawl_ctl_notification_channel_receive - the next notification
 * @ch: a channel
 * @timeout_ms: how long to wait for one: 0 not at all, -1 without end
 * @out: receives it, the caller's to free with trawl_ctl_notification_destroy()
 *
 * Return: 0, -ETIMEDOUT (none came in time), -ENOTCONN (the daemon went),
 * -EPROTO, -ENOMEM.
 */
int trawl_ctl_notification_channel_receive(struct trawl_ctl_notification_channel *ch, int timeout_ms,
					   struct trawl_ctl_notification **out);

/**
 * trawl_ctl_notification_channel_get_fd - an fd to poll() for POLLIN with
 * the program's other fds: readable when a notification may have come; then
 * call trawl_ctl_notification_channel_receive() with @timeout_ms 0 (it may
 * still answer -ETIMEDOUT: the daemon's wait ended without one).
 * @ch: a channel; the fd is its own (do not close or read it)
 *
 * Return: the fd, or -ENOTCONN.
 */
int trawl_ctl_notification_channel_get_fd(struct trawl_ctl_notification_channel *ch);

/**
 * trawl_ctl_notification_channel_dropped - notifications lost since the
 * channel was created (the daemon's last 128 went by before the program
 * came back for them)
 * @ch: a channel
 *
 * Return: their count (of all the user's triggers, subscribed or not).
 */
uint64_t trawl_ctl_notification_channel_dropped(const struct trawl_ctl_notification_channel *ch);

/**
 * trawl_ctl_notification_trigger - the name of the trigger that notified
 * @n: a notification
 *
 * Return: the name, owned by @n.
 */
const char *trawl_ctl_notification_trigger(const struct trawl_ctl_notification *n);

/**
 * trawl_ctl_notification_owner_uid - the uid owning the trigger that notified
 * @n: a notification
 *
 * Return: the uid.
 */
uint32_t trawl_ctl_notification_owner_uid(const struct trawl_ctl_notification *n);

/**
 * trawl_ctl_notification_condition - the condition of the trigger that notified
 * @n: a notification
 *
 * Return: its kind.
 */
enum trawl_ctl_condition_kind trawl_ctl_notification_condition(const struct trawl_ctl_notification *n);

/**
 * trawl_ctl_notification_timestamp_ns - when the event that fired it happened
 * @n: a notification
 *
 * Return: CLOCK_MONOTONIC ns (the traced program's reading), 0 if unknown.
 */
uint64_t trawl_ctl_notification_timestamp_ns(const struct trawl_ctl_notification *n);

/**
 * trawl_ctl_notification_capture_count - how many captured values it holds
 * @n: a notification
 *
 * Return: the trigger's captures' count (add-trigger --capture), or fewer
 * when the values were too long to send whole (at most 2 KiB in all).
 */
uint32_t trawl_ctl_notification_capture_count(const struct trawl_ctl_notification *n);

/**
 * trawl_ctl_notification_capture - a captured value, as text
 * @n: a notification
 * @i: its index, in the order of the trigger's captures
 *
 * Integers in decimal (hex fields as 0x...), floats as %g, strings as they
 * are with control characters escaped (\n, \xHH), an array as [a, b];
 * "<unavailable>" for a field the event lacks, an index past an array's
 * or a sequence's end, a context the app does not record for triggers
 * (perf counters; an app older than this library) and an application
 * context ($app.PROVIDER:NAME: trawl's apps have none). Context fields
 * ($ctx.vpid, $ctx.procname, $ctx.cgroup_ns...) are the values the app had
 * when the event happened.
 *
 * Return: the value, owned by @n; NULL if @i is out of range.
 */
const char *trawl_ctl_notification_capture(const struct trawl_ctl_notification *n, uint32_t i);

/*
 * Captured values, typed (LTTng's lttng_event_field_value): each capture of
 * a notification is a value of one of these types, owned by the
 * notification (valid until trawl_ctl_notification_destroy()). Integers are
 * the field's value whatever base it is shown in (a hex field's text is
 * 0x..., its value the same number); a signed field's is sign-extended from
 * its width. An enumeration's value is its integer (trawl carries no
 * labels). A string is the field's bytes up to its first NUL (a text array
 * or sequence is one too). An array's elements are integers (CTF arrays and
 * sequences of integers; one element with NAME[N] is an integer itself).
 * A value cut short (all of a hit's captures share 2 KiB) is what was kept:
 * a string's first bytes, an array's first elements.
 */
enum trawl_ctl_capture_type {
	TRAWL_CTL_CAPTURE_UNAVAILABLE = 0, /* the event lacks it (see trawl_ctl_notification_capture()) */
	TRAWL_CTL_CAPTURE_UNSIGNED_INT = 1,
	TRAWL_CTL_CAPTURE_SIGNED_INT = 2,
	TRAWL_CTL_CAPTURE_UNSIGNED_ENUM = 3,
	TRAWL_CTL_CAPTURE_SIGNED_ENUM = 4,
	TRAWL_CTL_CAPTURE_REAL = 5,
	TRAWL_CTL_CAPTURE_STRING = 6,
	TRAWL_CTL_CAPTURE_ARRAY = 7,
};
struct trawl_ctl_capture_value;

/**
 * trawl_ctl_notification_capture_value - a captured value, typed
 * @n: a notification
 * @i: its index, in the order of the trigger's captures
 *
 * Return: the value, owned by @n; NULL if @i is out of range.
 */
const struct trawl_ctl_capture_value *trawl_ctl_notification_capture_value(
	const struct trawl_ctl_notification *n, uint32_t i);

/**
 * trawl_ctl_capture_value_type - what @v holds
 * @v: a value
 *
 * Return: its type.
 */
enum trawl_ctl_capture_type trawl_ctl_capture_value_type(const struct trawl_ctl_capture_value *v);

/**
 * trawl_ctl_capture_value_unsigned - an unsigned integer's or enumeration's value
 * @v: a value
 * @out: receives it
 *
 * Return: 0, or -EINVAL if @v is of another type.
 */
int trawl_ctl_capture_value_unsigned(const struct trawl_ctl_capture_value *v, uint64_t *out);

/**
 * trawl_ctl_capture_value_signed - a signed integer's or enumeration's value
 * @v: a value
 * @out: receives it
 *
 * Return: 0, or -EINVAL if @v is of another type.
 */
int trawl_ctl_capture_value_signed(const struct trawl_ctl_capture_value *v, int64_t *out);

/**
 * trawl_ctl_capture_value_real - a real's value (a float field's, widened)
 * @v: a value
 * @out: receives it
 *
 * Return: 0, or -EINVAL if @v is of another type.
 */
int trawl_ctl_capture_value_real(const struct trawl_ctl_capture_value *v, double *out);

/**
 * trawl_ctl_capture_value_string - a string's bytes, NUL-terminated
 * @v: a value
 *
 * Return: the string (control characters as they were, not escaped),
 * owned by @v's notification; NULL if @v is not a string.
 */
const char *trawl_ctl_capture_value_string(const struct trawl_ctl_capture_value *v);

/**
 * trawl_ctl_capture_value_array_length - an array's element count
 * @v: a value
 *
 * Return: the count; 0 if @v is not an array.
 */
uint32_t trawl_ctl_capture_value_array_length(const struct trawl_ctl_capture_value *v);

/**
 * trawl_ctl_capture_value_array_element - an array's element
 * @v: an array
 * @i: the element's index
 *
 * Return: the element (an integer value), owned by @v's notification; NULL
 * if @v is not an array or @i is out of range.
 */
const struct trawl_ctl_capture_value *trawl_ctl_capture_value_array_element(
	const struct trawl_ctl_capture_value *v, uint32_t i);

/**
 * trawl_ctl_notification_destroy - free a received notification
 * @n: a notification, or NULL (then nothing happens)
 */
void trawl_ctl_notification_destroy(struct trawl_ctl_notification *n);

/* ---- lists of records ---- */

/* What a record of a list is; new kinds are added at the end. */
enum trawl_ctl_item_kind {
	TRAWL_CTL_ITEM_NONE = 0,      /* no such record */
	TRAWL_CTL_ITEM_SESSION = 1,   /* struct trawl_ctl_session_info */
	TRAWL_CTL_ITEM_DOMAIN = 2,    /* struct trawl_ctl_domain_info */
	TRAWL_CTL_ITEM_CHANNEL = 3,   /* struct trawl_ctl_channel_info */
	TRAWL_CTL_ITEM_EVENT = 4,     /* struct trawl_ctl_event_info */
	TRAWL_CTL_ITEM_CONTEXT = 5,   /* struct trawl_ctl_context_info */
	TRAWL_CTL_ITEM_AVAILABLE = 6, /* struct trawl_ctl_available_info */
	TRAWL_CTL_ITEM_FIELD = 7,     /* struct trawl_ctl_field_info */
	TRAWL_CTL_ITEM_SNAPSHOT = 8,  /* struct trawl_ctl_snapshot_info */
	TRAWL_CTL_ITEM_TRACKER = 9,   /* struct trawl_ctl_tracker_info */
	TRAWL_CTL_ITEM_TRACKER_VALUE = 10, /* struct trawl_ctl_tracker_value_info */
	TRAWL_CTL_ITEM_ROTATION = 11, /* struct trawl_ctl_rotation_info */
	TRAWL_CTL_ITEM_ROTATION_SCHEDULE = 12, /* struct trawl_ctl_rotation_schedule_info */
	TRAWL_CTL_ITEM_SNAPSHOT_OUTPUT = 13, /* struct trawl_ctl_snapshot_output_info */
	TRAWL_CTL_ITEM_TRIGGER = 14,  /* struct trawl_ctl_trigger_info */
	TRAWL_CTL_ITEM_TRIGGER_ACTION = 15, /* struct trawl_ctl_trigger_action_info */
	/* Notification channels' own (read through trawl_ctl_notification_*): */
	TRAWL_CTL_ITEM_NOTIFY_CURSOR = 16,
	TRAWL_CTL_ITEM_NOTIFICATION = 17,
};

/* A session. Strings belong to the list. */
struct trawl_ctl_session_info {
	uint32_t struct_size;   /* set by the caller: see the top of this file */
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

/* A channel, with every attribute resolved. Strings belong to the list. */
struct trawl_ctl_channel_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	const char *name;
	int32_t enabled;
	int32_t overwrite;        /* 1: overwrite mode, 0: discard mode */
	uint64_t subbuf_size;     /* bytes */
	uint32_t num_subbuf;
	uint32_t switch_timer_us; /* 0: off */
	uint32_t read_timer_us;
	enum trawl_ctl_buffers buffers; /* PER_UID, PER_PID or GLOBAL */
	uint64_t tracefile_size;	/* bytes per stream file, 0: unlimited */
	uint32_t tracefile_count;	/* files kept per stream, 0: unlimited */
	int64_t blocking_timeout_us; /* 0: never blocks, TRAWL_CTL_BLOCKING_INF: without end */
	/* LTTng's per-channel statistics, as of the consumers' last answer, over
	 * every buffer of the channel (all users' or processes'); 0 in other lists: */
	uint64_t discarded_events; /* discard mode: events dropped (buffers full) */
	uint64_t lost_packets;     /* overwrite mode: packets overwritten before they
				      were read (user space; 0 for the kernel) */
	enum trawl_ctl_output output; /* TRAWL_CTL_OUTPUT_SPLICE or _MMAP */
	uint64_t monitor_timer_us;    /* the consumer's sampling period, 0: none */
	/* The memory the channel's buffers hold (LTTng 2.15's "Memory usage"),
	 * user space, list of a session; 0 in other lists, for the kernel, and
	 * before any app was traced (buffers are made for the first one): */
	uint64_t memory_resident; /* bytes of buffer pages written so far (a CPU that
				     never traced holds its control page only) */
	uint64_t memory_size;     /* bytes of the buffer files, every page written */
};

/* An event rule. Strings belong to the list. */
struct trawl_ctl_event_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	const char *channel;
	const char *name;
	enum trawl_ctl_event_kind kind;
	int32_t enabled;
	enum trawl_ctl_loglevel_type loglevel_type;
	int32_t loglevel;   /* 0..14; meaningless with TRAWL_CTL_LOGLEVEL_ALL */
	const char *filter; /* "" if none */
	const char *target; /* probe location, "" if none */
	const char *exclusions; /* the names it leaves out, joined by ',': "" if none */
};

/* A context field of a channel. Strings belong to the list. */
struct trawl_ctl_context_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	const char *channel;
	const char *name;
};

/* An event a domain offers. Strings belong to the list. */
struct trawl_ctl_available_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	const char *name;
	enum trawl_ctl_event_kind kind; /* TRACEPOINT or SYSCALL */
	int32_t loglevel;               /* 0..14, -1 if it has none */
	int32_t pid;                    /* user space: the process offering it; else 0 */
};

/* A field of the AVAILABLE record listed before it. Strings belong to the list. */
struct trawl_ctl_field_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	const char *event; /* its event's name */
	const char *name;
	const char *type;  /* free text: "integer", "string", "s32"... */
};

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

/* A process-attribute tracker of a session's domain; its values follow it. */
struct trawl_ctl_tracker_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	enum trawl_ctl_process_attr process_attr;
	int32_t include_all; /* 1: every process (the default); 0: the set only */
	uint32_t nr_values;  /* the TRACKER_VALUE records after this one (0 with
				include_all 0: no process at all) */
};

/* A value in the inclusion set of the TRACKER record before it. */
struct trawl_ctl_tracker_value_info {
	uint32_t struct_size;
	enum trawl_ctl_domain domain;
	enum trawl_ctl_process_attr process_attr;
	uint32_t value; /* the ID */
};

/* A trigger; its nr_actions TRIGGER_ACTION records follow it. Strings belong to the list. */
struct trawl_ctl_trigger_info {
	uint32_t struct_size;
	const char *name;
	uint32_t owner_uid;
	enum trawl_ctl_condition_kind condition;
	/* event rule matches: */
	enum trawl_ctl_domain domain; /* also buffer usage's */
	enum trawl_ctl_event_kind event_kind;
	const char *pattern;
	const char *filter;     /* "" if none */
	enum trawl_ctl_loglevel_type loglevel_type;
	int32_t loglevel;
	const char *exclusions; /* joined by ',', "" if none */
	const char *captures;   /* joined by ',', "" if none */
	/* session consumed size, buffer usage: */
	const char *session;
	const char *channel;    /* buffer usage */
	uint64_t threshold;     /* bytes (with ratio_ppm UINT32_MAX) */
	uint32_t ratio_ppm;     /* buffer usage: millionths, or UINT32_MAX */
	uint32_t nr_actions;
	uint64_t occurrences;   /* times the condition held */
	/* event rule matches, kernel PROBE or USERSPACE_PROBE: the location as
	 * given (pattern is then the event name); "" otherwise */
	const char *location;
};

/* An action of the TRIGGER record before it. Strings belong to the list. */
struct trawl_ctl_trigger_action_info {
	uint32_t struct_size;
	enum trawl_ctl_action_kind kind;
	const char *session;     /* "" for NOTIFY */
	enum trawl_ctl_rate_policy rate_policy;
	uint64_t rate_value;     /* N */
	const char *output_name; /* snapshot: the output's name, "" */
	const char *output;      /* snapshot: its folder or URL, "" for the session's */
	uint64_t max_size;       /* snapshot: bytes, UINT64_MAX if not given */
	uint64_t runs;           /* times it ran */
	uint64_t failures;       /* of which failed */
	/* snapshot: the URLs the output was given as (LTTng's --ctrl-url and
	 * --data-url: output is the net:// URL they make), "" if not so given */
	const char *ctrl_url;
	const char *data_url;
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

/**
 * trawl_ctl_list_available - the events a domain offers
 * @ctl: a connection
 * @domain: KERNEL (tracepoints or system calls) or UST (the tracepoints of
 *          the applications registered now)
 * @kind: TRACEPOINT or SYSCALL
 * @fields: 1 to have each AVAILABLE record followed by its FIELD records
 * @out: receives the records, the caller's to free with trawl_ctl_list_destroy()
 *
 * Return: 0, -EACCES (kernel, not the root daemon), -EOPNOTSUPP.
 */
int trawl_ctl_list_available(struct trawl_ctl *ctl, enum trawl_ctl_domain domain,
			     enum trawl_ctl_event_kind kind, int fields,
			     struct trawl_ctl_list **out);

/**
 * trawl_ctl_list_destroy - free a list and every string of its records
 * @list: the list, or NULL (then nothing happens)
 */
void trawl_ctl_list_destroy(struct trawl_ctl_list *list);

/**
 * trawl_ctl_list_count - how many records @list holds
 * @list: a list
 *
 * Return: the count.
 */
size_t trawl_ctl_list_count(const struct trawl_ctl_list *list);

/**
 * trawl_ctl_list_kind - what record @i of @list is
 * @list: a list
 * @i: the record's index
 *
 * Return: its kind, or TRAWL_CTL_ITEM_NONE if @i >= trawl_ctl_list_count().
 */
enum trawl_ctl_item_kind trawl_ctl_list_kind(const struct trawl_ctl_list *list, size_t i);

/*
 * trawl_ctl_list_*_at - record @i of @list, as its typed struct.
 *
 * @info->struct_size must be set to sizeof(*info) first (at least 4); on
 * success it becomes the bytes filled, and fields past it are left alone.
 * The strings stay valid until trawl_ctl_list_destroy(@list).
 *
 * Return: 0, -ERANGE if @i >= trawl_ctl_list_count(), -EINVAL if record @i
 * is of another kind, struct_size is 0, or @list or @info is NULL.
 */
int trawl_ctl_list_session_at(const struct trawl_ctl_list *list, size_t i,
			      struct trawl_ctl_session_info *info);
int trawl_ctl_list_domain_at(const struct trawl_ctl_list *list, size_t i,
			     struct trawl_ctl_domain_info *info);
int trawl_ctl_list_channel_at(const struct trawl_ctl_list *list, size_t i,
			      struct trawl_ctl_channel_info *info);
int trawl_ctl_list_event_at(const struct trawl_ctl_list *list, size_t i,
			    struct trawl_ctl_event_info *info);
int trawl_ctl_list_context_at(const struct trawl_ctl_list *list, size_t i,
			      struct trawl_ctl_context_info *info);
int trawl_ctl_list_available_at(const struct trawl_ctl_list *list, size_t i,
				struct trawl_ctl_available_info *info);
int trawl_ctl_list_field_at(const struct trawl_ctl_list *list, size_t i,
			    struct trawl_ctl_field_info *info);
int trawl_ctl_list_snapshot_at(const struct trawl_ctl_list *list, size_t i,
			       struct trawl_ctl_snapshot_info *info);
int trawl_ctl_list_tracker_at(const struct trawl_ctl_list *list, size_t i,
			      struct trawl_ctl_tracker_info *info);
int trawl_ctl_list_rotation_at(const struct trawl_ctl_list *list, size_t i,
			       struct trawl_ctl_rotation_info *info);
int trawl_ctl_list_rotation_schedule_at(const struct trawl_ctl_list *list, size_t i,
					struct trawl_ctl_rotation_schedule_info *info);
int trawl_ctl_list_tracker_value_at(const struct trawl_ctl_list *list, size_t i,
				    struct trawl_ctl_tracker_value_info *info);
int trawl_ctl_list_snapshot_output_at(const struct trawl_ctl_list *list, size_t i,
				      struct trawl_ctl_snapshot_output_info *info);
int trawl_ctl_list_trigger_at(const struct trawl_ctl_list *list, size_t i,
			      struct trawl_ctl_trigger_info *info);
int trawl_ctl_list_trigger_action_at(const struct trawl_ctl_list *list, size_t i,
				     struct trawl_ctl_trigger_action_info *info);

/* ---- names ---- */

/**
 * trawl_ctl_version - this library's version
 *
 * Return: "0.1.0", static storage.
 */
const char *trawl_ctl_version(void);

/**
 * trawl_ctl_loglevel_parse - a log level from its name
 * @name: "TRACE_EMERG" .. "TRACE_DEBUG", also without the TRACE_ prefix, in
 *        any case, or the number 0 .. 14
 *
 * Return: 0..14, or -EINVAL if unknown.
 */
int trawl_ctl_loglevel_parse(const char *name);

/**
 * trawl_ctl_loglevel_name - a log level's name
 * @level: 0..14
 *
 * Return: "TRACE_EMERG".."TRACE_DEBUG" (static storage), NULL if out of range.
 */
const char *trawl_ctl_loglevel_name(int level);

/**
 * trawl_ctl_agent_loglevel_parse - an agent domain's log level from its name
 * @domain: TRAWL_CTL_DOMAIN_JUL, _LOG4J or _PYTHON
 * @name: LTTng 2.13's names, in any case: "SEVERE" or "JUL_SEVERE", "FATAL"
 *        or "LOG4J_FATAL", "INFO" or "PYTHON_INFO", ...
 * @level: the level's value (TRAWL_CTL_JUL_SEVERE, ...)
 *
 * As LTTng 2.13's client, the levels "ALL" (JUL, log4j) are not taken: a
 * rule of every level has no --loglevel.
 *
 * Return: 0, or -EINVAL if unknown.
 */
int trawl_ctl_agent_loglevel_parse(enum trawl_ctl_domain domain, const char *name, int *level);

/**
 * trawl_ctl_agent_loglevel_name - an agent domain's log level's name
 * @domain: TRAWL_CTL_DOMAIN_JUL, _LOG4J or _PYTHON
 * @level: a level of the domain
 *
 * Return: "JUL_SEVERE", "LOG4J_ALL", "PYTHON_INFO", ... (static storage), or
 * NULL for a level the framework does not name.
 */
const char *trawl_ctl_agent_loglevel_name(enum trawl_ctl_domain domain, int level);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_H */
