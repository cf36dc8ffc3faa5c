/* SPDX-License-Identifier: MIT */
/*
 * domain.h - how the session daemon drives a tracing domain.
 *
 * The session daemon knows sessions, channels, event rules and contexts as
 * bookkeeping; it does not know how a domain makes events happen. Each domain
 * (user space over src/ustctl, kernel over src/kernel) fills one ops table,
 * and the daemon calls it for every command touching that domain.
 *
 * Threading: the session daemon calls every op from its one main thread, one
 * call at a time. A domain may run threads or processes of its own (a
 * consumer); it must not call back into the daemon from them.
 *
 * Lifecycle of one session's part in a domain:
 *
 *   session_create ─▶ channel_create* ─▶ event_enable* / context_add*
 *        ─▶ start ─▶ stop ─▶ (start ─▶ stop)* ─▶ session_destroy
 *
 * The daemon has already validated names and checked the state rules that
 * are the same for every domain (a channel exists before events go in it;
 * contexts and new channels only before the first start; an event rule is
 * not enabled twice), so an op only refuses what its domain cannot do.
 *
 * Errors: every op returns 0 or a negative errno. When it fails for a reason
 * the user must read (a mechanism the kernel refuses, an unknown tracepoint),
 * it writes one line without a trailing newline into @err (via
 * trawl_domain_err_set()), which the CLI prints as is. Otherwise the daemon
 * prints strerror(-ret) with what was being done. @err may be NULL when no
 * one will read it (stop while rolling back a failed start, or at destroy):
 * trawl_domain_err_set() ignores NULL.
 */
#ifndef TRAWL_SESSIOND_DOMAIN_H
#define TRAWL_SESSIOND_DOMAIN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "trawl/ctl-types.h"

#define TRAWL_DOMAIN_NAME_MAX TRAWL_CTL_NAME_MAX /* bytes, NUL included: channels, events */
#define TRAWL_DOMAIN_ERR_MAX TRAWL_CTL_ERROR_MAX /* bytes, NUL included */

/* Where a domain's error line goes. */
struct trawl_domain_err {
	char msg[TRAWL_DOMAIN_ERR_MAX];
};

static inline __attribute__((format(printf, 2, 3))) void
trawl_domain_err_set(struct trawl_domain_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/*
 * One process-attribute tracker (LTTng's): which values of an attribute a
 * domain traces. Zeroed, it includes every value.
 */
struct trawl_domain_tracker {
	int restricted;   /* 0: every value; 1: only those in values[] (none if nr is 0) */
	uint32_t nr;
	uint32_t *values; /* sorted, no duplicates; the daemon's */
};

struct trawl_domain_trackers {
	struct trawl_domain_tracker attr[TRAWL_CTL_PROCESS_ATTR_COUNT]; /* by enum trawl_ctl_process_attr */
};

/* 1 if @t lets a process whose attribute is @value be traced. */
static inline int trawl_domain_tracker_includes(const struct trawl_domain_tracker *t,
						uint32_t value)
{
	uint32_t lo = 0, hi = t->nr;

	if (!t->restricted)
		return 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->values[mid] == value)
			return 1;
		if (t->values[mid] < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* What a domain gets to know about the session it works for. */
struct trawl_domain_session_info {
	const char *name;   /* session name; valid until session_destroy */
	uint64_t id;        /* unique in this daemon's lifetime */
	const char *output; /* absolute trace folder; the kernel domain writes under
			       output/kernel/, user space under output/ust/ */
	uid_t uid;          /* the session's owner: every file written is theirs */
	gid_t gid;
	int snapshot;       /* 1: created with --snapshot (channels default to overwrite) */
	int live;           /* 1: created with --live */
	int64_t created;    /* creation time, seconds since the epoch */
	/* "" or the folder its user-space buffers are files in (--shm-path):
	 * the daemon's, valid until session_destroy; set only before the
	 * session's first start. */
	const char *shm_path;
	/* The session's trackers for this domain: the daemon's, valid (and
	 * changed only before a trackers_changed call) until session_destroy. */
	const struct trawl_domain_trackers *trackers;
};

/* A channel's attributes, all resolved by the daemon (no zero means "default"). */
struct trawl_domain_channel_attr {
	char name[TRAWL_DOMAIN_NAME_MAX];
	uint64_t subbuf_size;     /* bytes, a power of two */
	uint32_t num_subbuf;      /* a power of two, >= 2 */
	uint32_t overwrite;       /* 0: discard mode, 1: overwrite (flight recorder) */
	uint32_t switch_timer_us; /* 0: off */
	uint32_t read_timer_us;   /* 0: off (consumer polls / is woken) */
	enum trawl_ctl_buffers buffers; /* PER_UID or PER_PID (user space), GLOBAL (kernel) */
	uint64_t tracefile_size;  /* bytes, 0 = unlimited */
	uint32_t tracefile_count; /* 0 = unlimited */
	int64_t blocking_timeout_us; /* 0: never blocks, -1: infinite (user space, discard) */
	enum trawl_ctl_output output; /* SPLICE or MMAP: what the channel says (list,
					 save); the domains write either way alike */
	uint32_t monitor_timer_us; /* 0: none; how often its buffers are sampled for
				      triggers (trigger-monitor.c asks the consumer) */
};

/* One event rule as the user gave it. Strings are valid during the call only. */
struct trawl_domain_event_rule {
	enum trawl_ctl_event_kind kind;
	const char *name;   /* never NULL */
	const char *target; /* probe/function/userspace-probe location, else NULL */
	const char *filter; /* filter expression as typed (LTTng syntax), or NULL */
	const char *exclusions; /* user space: names (star globs) left out, joined
				   by ',' (enable-event --exclude), or NULL */
	enum trawl_ctl_loglevel_type loglevel_type;
	int loglevel;       /* LTTng's 0 (EMERG) .. 14 (DEBUG) */
	uid_t uid;          /* the client asking (SO_PEERCRED): files the rule names */
	gid_t gid;          /* (a user-space probe's binary) are opened as them */
	/* A user-space probe whose file a process of the client's read
	 * already, in a child the loop did not wait for (cmd-channel.c,
	 * domain-kernel.c's sd_uprobe_locate_begin()); NULL: the domain reads
	 * it itself. The caller's: the domain takes nothing from it. */
	const struct sd_uprobe_located *located;
};

/* One context, by its LTTng name: "pid", "procname", "perf:cpu:page-faults". */
struct trawl_domain_context {
	const char *name;
	/* A perf:thread: counter (user space) the daemon probed already as the
	 * session's owner, in a child it did not wait for (cmd-channel.c): 1,
	 * and the probe's result (0 or -errno); 0: the domain probes it. */
	int probed, probe_ret;
};

/* A field of an available event, for `trawl list --fields`. */
struct trawl_domain_field_desc {
	const char *name;
	const char *type; /* free text: "integer", "string", "s32", ... */
};

/* An available event, for `trawl list --kernel|--userspace`. */
struct trawl_domain_event_desc {
	const char *name;
	enum trawl_ctl_event_kind kind;
	int loglevel;  /* -1 if the domain has none */
	pid_t pid;     /* user space: the app offering it; 0 otherwise */
	const struct trawl_domain_field_desc *fields;
	size_t nr_fields;
};

/* Returns 0 to go on, non-zero to stop listing (list_events returns it). */
typedef int (*trawl_domain_list_cb)(void *arg, const struct trawl_domain_event_desc *desc);

/* Health of one session's part in a domain, for `trawl status` / `trawl list`. */
struct trawl_domain_status {
	uint32_t consumer_alive;   /* 0 if its consumer died */
	uint64_t events_discarded; /* sum over channels, as far as known */
	uint64_t events_tallied;   /* of those, recorded while their program was not set up
				      by the daemon (user space: its tally, src/ust/slots.c) */
	uint64_t bytes_written;    /* bytes on disk so far, as far as known */
	char msg[TRAWL_DOMAIN_ERR_MAX]; /* "" or one line: "consumer died (signal 9)" */
};

/* What the daemon tells a domain at init. Valid for the daemon's lifetime. */
struct trawl_domain_env {
	const char *runtime_dir;   /* this daemon's state folder (sockets, ...) */
	const char *consumerd;     /* path of trawl-consumerd */
	int root_daemon;           /* 1 if this is the root daemon */
};

struct trawl_domain_session; /* a domain's own per-session state, opaque */

struct trawl_domain_ops {
	enum trawl_ctl_domain type; /* <trawl/ctl-types.h>, as every domain value here */
	const char *name; /* "kernel", "ust" */
	/* The trackers the domain applies: bit (1 << enum trawl_ctl_process_attr)
	 * for each; the daemon refuses the others. */
	uint32_t process_attrs;

	/*
	 * Daemon-wide set-up, once at daemon start (e.g. remove tracefs
	 * instances left by a crashed daemon). Returns 0, or a negative errno
	 * when the domain cannot work here (then every command for it fails
	 * with @err's line). May be NULL.
	 */
	int (*init)(const struct trawl_domain_env *env, struct trawl_domain_err *err);
	void (*fini)(void); /* may be NULL */

	/* Creates the domain's part of a session; *out is the domain's to free in
	 * session_destroy. Called at the session's first command in this domain. */
	int (*session_create)(const struct trawl_domain_session_info *info,
			      struct trawl_domain_session **out, struct trawl_domain_err *err);
	/* Stops tracing if active (flushing to disk), releases everything. */
	void (*session_destroy)(struct trawl_domain_session *s);

	int (*channel_create)(struct trawl_domain_session *s,
			      const struct trawl_domain_channel_attr *attr,
			      struct trawl_domain_err *err);
	/* enable = 0 pauses recording in this channel; 1 resumes. */
	int (*channel_enable)(struct trawl_domain_session *s, const char *channel, int enable,
			      struct trawl_domain_err *err);

	int (*event_enable)(struct trawl_domain_session *s, const char *channel,
			    const struct trawl_domain_event_rule *rule, struct trawl_domain_err *err);
	/* Disables the rule the user enabled with the same kind and name. */
	int (*event_disable)(struct trawl_domain_session *s, const char *channel,
			     const struct trawl_domain_event_rule *rule, struct trawl_domain_err *err);

	/* Adds a context field to every event of @channel (before the first start). */
	int (*context_add)(struct trawl_domain_session *s, const char *channel,
			   const struct trawl_domain_context *ctx, struct trawl_domain_err *err);

	int (*start)(struct trawl_domain_session *s, struct trawl_domain_err *err);
	/* start without holding the loop: -EINPROGRESS while the consumer gets
	 * ready (its buffers opened), then async_done() says when it is over
	 * and what it returned; else start's result. May be NULL (start is
	 * called). */
	int (*start_async)(struct trawl_domain_session *s, struct trawl_domain_err *err);
	/* Returns only once every event recorded before the call is on disk,
	 * metadata and index included. */
	int (*stop)(struct trawl_domain_session *s, struct trawl_domain_err *err);

	/*
	 * Stop and destroy without holding the daemon's loop (its one thread
	 * serves every user: docs/SECURITY.md, "No one stalls the root
	 * daemon"). stop_async does what stop does up to the point where it
	 * waits for the session's consumer, and returns -EINPROGRESS then
	 * (else stop's result: done). release_async, before session_destroy,
	 * tells the consumer the session is over: -EINPROGRESS while it
	 * drains, else 0; session_destroy then waits for nothing. Meanwhile
	 * the domain watches what it waits for in the loop (sd_watch_add()),
	 * and async_done() says 1 once it is over, with *@ret the result (and
	 * @err its line), 0 while it waits. A domain that waits for nothing
	 * leaves them NULL (stop and session_destroy are called as they are).
	 */
	int (*stop_async)(struct trawl_domain_session *s, struct trawl_domain_err *err);
	int (*release_async)(struct trawl_domain_session *s);
	int (*async_done)(struct trawl_domain_session *s, int *ret, struct trawl_domain_err *err);

	/* Writes the current content of every (overwrite-mode) buffer as a
	 * complete trace under @dir: of each stream, its @nr_packets newest
	 * packets, or all with 0. May be NULL (not supported). May return
	 * -EINPROGRESS, as clear and rotate (below). */
	int (*snapshot_record)(struct trawl_domain_session *s, const char *dir,
			       uint64_t nr_packets, struct trawl_domain_err *err);
	/* For snapshot --max-size, LTTng's measure: the bytes of one more
	 * packet (a whole sub-buffer) of every stream of the channels that
	 * have more than @nr sub-buffers. NULL: the domain cannot bound its
	 * snapshots. */
	uint64_t (*snapshot_one_more)(struct trawl_domain_session *s, uint64_t nr);

	/* Lists what can be enabled; @kind selects tracepoints or syscalls. */
	int (*list_events)(enum trawl_ctl_event_kind kind, int with_fields,
			   trawl_domain_list_cb cb, void *arg, struct trawl_domain_err *err);

	/* Never waits for a consumer: the counters as of its last answer
	 * (status_ask() has them asked for first). */
	int (*status)(struct trawl_domain_session *s, struct trawl_domain_status *st);
	/*
	 * Asks the session's consumer for its counters without waiting:
	 * -EINPROGRESS, then status_pending() says 1 until they are in (or the
	 * consumer is gone); 0: nothing to ask (status() is up to date, or the
	 * consumer owes an answer to stop_async or release_async: not asked).
	 * May be NULL (status() never asks).
	 */
	int (*status_ask)(struct trawl_domain_session *s);
	int (*status_pending)(struct trawl_domain_session *s);
	/*
	 * Channel @channel's counters as LTTng's `list SESSION` shows them under
	 * "Statistics:", as of status(): events discarded (discard mode) and
	 * packets lost (overwrite mode), over every buffer the channel has.
	 * 0, or -ENOENT. May be NULL (both 0).
	 */
	int (*channel_counters)(struct trawl_domain_session *s, const char *channel,
				uint64_t *discarded, uint64_t *lost_packets);
	/*
	 * Channel @channel's last monitor sample, as of status(): the bytes
	 * the fullest of its stream buffers held (LTTng's highest usage).
	 * 0, -ENOENT (no such channel) or -ENODATA (none sampled yet).
	 * May be NULL (no samples: its buffer-usage triggers never fire).
	 */
	int (*channel_usage)(struct trawl_domain_session *s, const char *channel, uint64_t *high);
	/*
	 * The memory channel @channel's buffers hold now (LTTng 2.15's "Memory
	 * usage" of `list SESSION`): @resident bytes of pages written, of
	 * @size bytes of buffer files, over every buffer of the channel (each
	 * user's or process's). 0, -ENOENT (no such channel) or -ENODATA (no
	 * buffer made yet: no app traced). May be NULL (not known: kernel).
	 */
	int (*channel_memory)(struct trawl_domain_session *s, const char *channel, uint64_t *resident,
			      uint64_t *size);
	/*
	 * regenerate_metadata (@statedump 0) or regenerate_statedump without
	 * holding the loop: -EINPROGRESS while the consumer works, async_done()
	 * then says when it is over and what it returned; else the result, as
	 * the synchronous ones. May be NULL (those are called).
	 */
	int (*regenerate_async)(struct trawl_domain_session *s, int statedump,
				struct trawl_domain_err *err);

	/* The session's trackers (info->trackers) changed: processes now
	 * excluded stop being traced, those now included start, before this
	 * returns. May be NULL when process_attrs is 0. */
	int (*trackers_changed)(struct trawl_domain_session *s, struct trawl_domain_err *err);

	/* `regenerate metadata`: every metadata file of the session's traces is
	 * written again whole, before this returns. May be NULL (then the daemon
	 * refuses it for sessions using the domain). */
	int (*regenerate_metadata)(struct trawl_domain_session *s, struct trawl_domain_err *err);

	/* `regenerate statedump`: the domain's state dump is written again into
	 * the running session. May be NULL (nothing to dump). */
	int (*regenerate_statedump)(struct trawl_domain_session *s, struct trawl_domain_err *err);

	/* `clear` (LTTng's): what the session's buffers hold is discarded and
	 * every file its traces wrote deleted, before this returns; a started
	 * session records on into new files. The folders stay (the daemon
	 * prunes the empty ones as the owner). May be NULL (then refused).
	 * clear, rotate and snapshot_record may return -EINPROGRESS instead of
	 * waiting for a consumer: the domain watches it in the loop, and
	 * async_done() says when it is over (the session is busy until then:
	 * sd_op_domains()). */
	int (*clear)(struct trawl_domain_session *s, struct trawl_domain_err *err);

	/* `rotate` (LTTng's trace chunks): the session's traces end the chunk
	 * they write in (the output given at session_create, or the last
	 * @chunk) and go on in folder @chunk, the same layout below it; every
	 * file of the chunk that ended is complete and closed when this returns
	 * (the daemon then moves it to archives/). A streaming session's
	 * @chunk is a relay destination (consumerd/output.h) and @archive the
	 * ended chunk's archive in relayd's session folder
	 * ("archives/BEGIN-END-ID"): relayd moves it there, as the consumers
	 * ask; else @archive is "". Whatever it returns, the traces go on in
	 * @chunk (a failure says the chunk that ended may lack something):
	 * what would keep them in the old one is rotate_ready()'s to say
	 * first. May be NULL (then refused). */
	int (*rotate)(struct trawl_domain_session *s, const char *chunk, const char *archive,
		      struct trawl_domain_err *err);

	/* May be NULL: 0 if a rotation to @chunk (as rotate's) may begin
	 * now, else the error (its line in @err) that would keep the domain
	 * in its chunk (its consumer still busy with a command, a folder name
	 * too long). The daemon asks every domain before any moves: a
	 * rotation is refused whole, never half done (one domain writing on
	 * in the chunk the others ended, which is archived). */
	int (*rotate_ready)(struct trawl_domain_session *s, const char *chunk,
			    struct trawl_domain_err *err);
};

/* Defined by domain-ust.c and domain-kernel.c. */
extern const struct trawl_domain_ops trawl_domain_ust_ops;
extern const struct trawl_domain_ops trawl_domain_kernel_ops;

#endif /* TRAWL_SESSIOND_DOMAIN_H */
