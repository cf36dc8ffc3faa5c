/* SPDX-License-Identifier: MIT */
/*
 * sessiond.h - the session daemon's internal model, shared by its files.
 *
 * One thread runs everything: loop.c's poll loop accepts clients
 * (client.c), reads whole requests without blocking, and hands each to a
 * command handler (cmd-*.c). Handlers update the bookkeeping below and call
 * the domains through struct trawl_domain_ops (domain.h); a domain's own
 * fds (user space: the apps' registration socket) are watched by the same
 * loop through sd_watch_add(). No peer is ever waited for in the loop: a
 * command that must hear from apps waits in nested rounds (loop.c), a
 * command that must hear from a consumer (start, stop, destroy, regenerate,
 * clear, rotate, snapshot record) answers its client later (session-op.c's
 * sd_op), and what a peer may hold is capped per uid
 * (peers.c, docs/SECURITY.md).
 *
 * Ownership: the daemon owns every session; a session owns its channels, a
 * channel its events and contexts (singly linked lists, newest last).
 */
#ifndef TRAWL_SESSIOND_H
#define TRAWL_SESSIOND_H

#include "common/common.h"
#include "common/log.h"
#include "ctl/proto.h"
#include "trawl/ctl.h"
#include "sessiond/domain.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define SD_NR_DOMAINS 3 /* indexed by enum trawl_ctl_domain; 0 unused */

struct sd_context {
	struct sd_context *next;
	char name[TRAWL_CTL_NAME_MAX];
};

struct sd_event {
	struct sd_event *next;
	enum trawl_ctl_event_kind kind;
	char name[TRAWL_CTL_NAME_MAX];
	char target[TRAWL_CTL_TARGET_MAX];
	char filter[TRAWL_CTL_FILTER_MAX];
	char exclusions[TRAWL_CTL_EXCLUSIONS_MAX]; /* "" or names joined by ',' */
	enum trawl_ctl_loglevel_type loglevel_type;
	int loglevel;
	int enabled; /* an agent domain's rule: how often enabled (cmd-agent.c) */
	int hidden; /* an agent domain's user-space rule: not listed (cmd-agent.c) */
};

/* The agent domains of a session (TRAWL_CTL_DOMAIN_JUL + i): their rules,
 * each with a hidden rule in its user-space channel (cmd-agent.c). */
#define SD_NR_AGENTS 3
/* A channel's application contexts at most, and their names' bytes
 * (ustabi.h's TRAWL_USTCTL_MAX_APP_CTX, TRAWL_USTCTL_APP_CTX_NAME_MAX:
 * ust-context.c checks they agree). */
#define SD_MAX_APP_CTX 16
#define SD_APP_CTX_NAME_MAX 128

struct sd_agent_domain {
	int used; /* a rule was enabled once: the domain is listed */
	struct sd_event *events; /* oldest first; name: a logger, filter: the whole one */
	/* application contexts added in this domain ("$app.P:N"), oldest
	 * first: given to each agent of the domain that registers */
	uint32_t nr_app_ctx;
	char app_ctx[SD_MAX_APP_CTX][SD_APP_CTX_NAME_MAX];
};

struct sd_channel {
	struct sd_channel *next;
	struct trawl_domain_channel_attr attr;
	int enabled;
	struct sd_event *events;
	struct sd_context *contexts;
};

struct sd_domain {
	const struct trawl_domain_ops *ops; /* NULL until the session first uses it */
	struct trawl_domain_session *ds;    /* the domain's state, owned by it */
	struct sd_channel *channels;
	struct trawl_domain_trackers trackers; /* values owned; the domain reads them */
};

/*
 * as-owner.c: @fn(@arg) run in a child that took a session owner's ids
 * (common/ids.h), its result read by the loop (the owner's file system
 * may hold the child: FUSE, NFS): sd_owner_begin() returns -EINPROGRESS,
 * then sd_owner_done() says 1 once it is over (its result, or -ETIMEDOUT:
 * no answer within owner-ms, the child killed) and @done (may be NULL)
 * is called then; or @fn's result when it ran in place (the daemon is the
 * owner) or the child could not be watched (waited for, within owner-ms).
 * @fn sees the daemon's memory as it was at the call (fork). The job
 * must stay where it is until over; sd_owner_cancel() ends it (killed).
 * @fn may hand files over (sd_owner_hand()): they land in @fds, which the
 * caller sets (@max_fds slots, the rest closed) before sd_owner_begin()
 * and owns after; a job that failed (result < 0) closes them.
 *
 * A uid other than root has at most SD_OWNER_JOBS_PER_UID children at
 * once, each counted until it is reaped (as-owner.c's top comment). Past
 * that, sd_owner_begin() returns -EUSERS (sd_owner_strerror() names the
 * limit), unless the caller set @queue: then the job waits, -EINPROGRESS,
 * and starts (its child forked, its owner-ms counted) once one of the
 * uid's children is reaped. A queued job's @fn reads @arg then, not at the
 * call: @arg must stay until the job is over.
 */
#define SD_OWNER_JOBS_PER_UID 8u
struct sd_owner_job {
	pid_t pid; /* the child, 0: none */
	int fd;    /* its answers' socket, -1 */
	int over, ret;
	int *fds;         /* the caller's: [slot] the files handed over, -1: none */
	uint32_t max_fds; /* slots in fds (0: none kept) */
	void (*done)(struct sd_owner_job *j, void *arg);
	void *arg;
	int queue; /* the caller's: wait past the uid's cap instead of -EUSERS */
	/* as-owner.c's, while queued: */
	int queued;
	struct sd_owner_job *next;
	uid_t uid;
	gid_t gid;
	int (*fn)(void *);
	void *fn_arg;
};
/*
 * At the daemon's exit (sd.quit): @j, if it is queued (never started), runs
 * now, its child waited for within owner-ms as every job begun at the exit
 * is; its result in @j, its @done called. 1 if it ran, else 0.
 */
int sd_owner_run_queued(struct sd_owner_job *j);
/* cmd-rotate.c: a chunk's archive, made by a child as the owner. */
struct sd_chunk_job {
	const char *output;  /* the session's output folder */
	const char *chunk;   /* the chunk's folder: output, or output/NAME */
	const char *archive; /* rotate: archives/BEGIN-END-ID, below output */
};
struct sd_session {
	struct sd_session *next;
	uint64_t id;
	char name[TRAWL_CTL_NAME_MAX];
	char output[TRAWL_CTL_PATH_MAX]; /* "" with --no-output; net://HOST:CTRL:DATA when streaming */
	char relay[TRAWL_CTL_PATH_MAX];  /* streaming: the domains' destination (consumerd/output.h), else "" */
	int64_t created;                 /* creation time, seconds since the epoch */
	char hostname[256];              /* streaming: this host's name, as relayd files it */
	uint64_t relay_token;            /* streaming: random, names the session on relayd */
	int relay_fd;                    /* streaming: owned, the session's connection to relayd; -1 */
	char relay_problem[TRAWL_DOMAIN_ERR_MAX]; /* streaming: "" or why relayd was lost */
	struct sd_relay_conn *relay_conn; /* streaming: owned, a connection under way (relay.c) */
	/* streaming, relayd lost or never reached: when the daemon connects
	 * again on its own (sd_now_ms(); 0: not to), the wait after a try
	 * that failed, and whether relay_conn is such a try (relay.c) */
	uint64_t relay_retry_ms;
	uint32_t relay_backoff_ms;
	int relay_bg;
	/* streaming: a CHUNK's round trip under way (sd_relay_chunk_begin()):
	 * its job (not owned; NULL once over or for none), and the PING reply
	 * as it comes (expected while relay_in_due) */
	struct sd_owner_job *relay_wait;
	unsigned char relay_in[16];
	size_t relay_in_got;
	int relay_in_due;
	uint32_t live_timer_us;          /* --live: channels' default switch timer; else 0 */
	char shm_path[TRAWL_CTL_PATH_MAX]; /* "" or --shm-path's folder (cmd-shm.c) */
	uid_t uid;
	gid_t gid;
	int snapshot, live;
	int active;       /* started and not stopped */
	int started_once; /* channels and contexts are fixed from then on */
	/* A command waiting for the consumers (session-op.c's sd_op: stop,
	 * destroy, regenerate, clear, rotate, snapshot record) or relayd: the
	 * session is busy for every other command until it is over. */
	struct sd_op *op;
	int op_phase;                 /* enum in session-op.c */
	int op_wait[SD_NR_DOMAINS];   /* the domain's async_done() is awaited */
	unsigned snapshot_seq; /* snapshots recorded: N of the next NAME-DATE-N */
	/* Its snapshot output (cmd-snapshot.c): at most one, as LTTng 2.13. */
	struct sd_snapshot_output {
		uint32_t id;                     /* 0: none */
		char name[TRAWL_CTL_NAME_MAX];
		char path[TRAWL_CTL_PATH_MAX]; /* an absolute folder */
		uint64_t max_size;               /* bytes, 0: no limit */
	} snap_out;
	uint32_t snap_last_id; /* ids are never reused */
	struct sd_domain dom[SD_NR_DOMAINS];
	struct sd_agent_domain agent[SD_NR_AGENTS];
	/* Trace chunks (cmd-rotate.c): the current one's ID, when it began
	 * (seconds since the epoch) and folder ("" until the first rotation:
	 * the output); LTTng's rules after a stop; the schedules. */
	uint64_t chunk_id;
	int64_t chunk_begin;
	char chunk[TRAWL_CTL_PATH_MAX];
	uint32_t rotations;
	int cleared_after_stop, rotated_after_stop;
	uint64_t rotation_timer_us, rotation_size; /* 0: none */
	uint64_t next_rotation_ms;  /* CLOCK_MONOTONIC, with a timer schedule */
	uint64_t chunk_bytes_base;  /* bytes written when the chunk began (size schedule) */
	/* destroy: the last chunk archived by a child as the owner, awaited
	 * in the loop (the session's domains are gone by then) */
	struct sd_owner_job last_job;
	struct sd_chunk_job last_cj; /* last_job's (it may be queued: as-owner.c) */
	/* destroy: the last chunk's archive, below output ("": none made) */
	char last_archive[TRAWL_CTL_PATH_MAX];
};

/* The peer of one request, from SO_PEERCRED (peers.c). */
struct sd_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	int trusted; /* root, the daemon's user, or (root daemon) in group 'tracing' */
};

/*
 * A reply that comes later: a command that waits for a consumer (stop,
 * destroy) sets sd_reply.later and returns; its client is not read
 * meanwhile, and the loop goes on serving everyone else. The command
 * answers through sd_later_answer() (client.c fills @client).
 */
struct sd_later {
	void *client; /* client.c's; NULL once it is gone */
	uint16_t cmd;
};

/* A reply under construction (client.c sends it). */
struct sd_reply {
	int status;                       /* once non-zero, the records are dropped */
	struct trawl_ctl_wire_reply head; /* err, nr_records */
	unsigned char *recs;              /* owned: the records, in wire form */
	size_t len, cap;                  /* bytes of recs used, allocated */
	struct sd_later *later;           /* not NULL: answered later (above) */
	/* The command found its session busy with what no client asked for
	 * (a scheduled rotation): its client waits, and the request is served
	 * again once an op has ended (sd_clients_retry()), not refused. */
	int retry;
};

/* Sends @r to the client waiting on @l, if it is still there. */
void sd_later_answer(struct sd_later *l, struct sd_reply *r);
/* An op ended: the requests that found their session busy (sd_reply.retry)
 * are served again, in order. Top level only. */
void sd_clients_retry(void);

struct sd_op; /* session-op.c: a command waiting for consumers or relayd */

int sd_owner_begin(struct sd_owner_job *j, uid_t uid, gid_t gid, int (*fn)(void *), void *arg);
/* The same, waited for here (never more than owner-ms: the child is then
 * killed, -ETIMEDOUT): for the daemon's exit, when the loop runs no more.
 * (While the daemon exits, sd_owner_begin() waits so too.) */
int sd_owner_run(uid_t uid, gid_t gid, int (*fn)(void *), void *arg);
/* In an owner job's @fn: hands @fd over as the job's file @slot (closed
 * here; the daemon gets its own). 0 or -errno. */
int sd_owner_hand(uint32_t slot, int fd);
/* Reaps the owner children that ended since their job did (the loop calls it each round). */
void sd_owner_reap(void);
int sd_owner_done(struct sd_owner_job *j, int *ret);
void sd_owner_cancel(struct sd_owner_job *j);
/* A job's error for a line: trawl_fs_strerror(), or what owner-ms means. */
const char *sd_owner_strerror(int ret);
/* As jobs: sd_mkdir_checked_as(); folder @path and everything in it removed
 * as @uid/@gid would (clear); mkdir -p @path as they would (common/fs.h's
 * walk). @path is read by the child (a copy): it need not outlive the call. */
int sd_mkdir_checked_begin(struct sd_owner_job *j, const char *path, uid_t uid, gid_t gid);
int sd_remove_folder_begin(struct sd_owner_job *j, uid_t uid, gid_t gid, const char *path);
int sd_mkdir_folder_begin(struct sd_owner_job *j, uid_t uid, gid_t gid, const char *path);
/*
 * ust-context.c: probes perf counter @name (perf:thread:NAME's NAME) as
 * @uid/@gid in an owner job: -EINPROGRESS (then ust_counter_probe_result()
 * with the job's result), or done in place: 0 and *@probe_ret the probe's
 * result (0: it opens, or -errno), or the job's own failure (-errno).
 */
/*
 * domain-kernel.c: `enable-event -k --userspace-probe elf:PATH:SYM` in the
 * root daemon: PATH is opened and its ELF read by a child as the client
 * (@uid/@gid), which may be held by the file system PATH is on (theirs:
 * FUSE) or stopped by them; the loop does not wait for it. create() maps
 * the result's room (shared with the child; NULL: no memory); begin()
 * starts the child on @j (sd_owner_begin()'s results); once it is over,
 * set() records its result (the job's) and the rule's @located is it.
 * destroy() closes the file and unmaps (NULL-safe).
 */
struct sd_uprobe_located;
struct trawl_kernel_uprobe_sites;
struct sd_uprobe_located *sd_uprobe_located_create(void);
int sd_uprobe_locate_begin(struct sd_owner_job *j, struct sd_uprobe_located *l, const char *target,
			   uid_t uid, gid_t gid);
void sd_uprobe_located_set(struct sd_uprobe_located *l, int ret);
/* What @l found: the child's result, with *@fd a copy of its file (the
 * caller's to close; -1 if none) and *@sites what it read. */
int sd_uprobe_located_get(const struct sd_uprobe_located *l, int *fd,
			  const struct trawl_kernel_uprobe_sites **sites);
void sd_uprobe_located_destroy(struct sd_uprobe_located *l);
int ust_counter_probe_begin(struct sd_owner_job *j, const char *name, uid_t uid, gid_t gid,
			    int *probe_ret);
int ust_counter_probe_result(int job_ret, int *probe_ret);

struct sessiond {
	int root_daemon;
	uint32_t fd_limit; /* RLIMIT_NOFILE, raised at start */
	char runtime_dir[4096];
	char consumerd[4096];
	struct sd_session *sessions;
	uint64_t next_id;
	int quit;
	/* A domain whose init failed: its line, given to every command for it. */
	const struct trawl_domain_ops *domains[SD_NR_DOMAINS];
	int domain_ret[SD_NR_DOMAINS];
	char domain_err[SD_NR_DOMAINS][TRAWL_DOMAIN_ERR_MAX];
};

extern struct sessiond sd;

/* Logging (src/common/log.h): to stderr, or sessiond.log when daemonized.
 * sd_log() is info; a line a peer caused goes through sd_log_peer(), rate
 * limited per uid. */
void sd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sd_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void sd_log_peer(uid_t uid, enum trawl_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * A child that runs as another user (@uid) must not hold the log file: it
 * could write there what it likes, as much as it likes, past the cut. Its
 * stderr is this pipe instead (the write end, the caller's: dup2() it to 2
 * in the child, close it in the daemon); each line it writes is logged as
 * "@who: line", rate limited for @uid. -errno on failure.
 */
int sd_log_pipe(uid_t uid, const char *who);

/*
 * peers.c: the limits (trawl-sessiond --limit NAME=VALUE; the table is
 * docs/SECURITY.md's) and what each uid holds against them. Untrusted
 * uids (struct sd_peer) are capped; trusted ones never are.
 */
struct sd_limits {
	uint32_t ctl_conns_per_uid; /* sessiond.sock, any uid but root */
	uint32_t ctl_idle_ms;       /* a client idle this long is closed (but root's) */
	uint32_t msg_ms;            /* a whole request (or reply) within this, once begun */
	uint32_t app_conns_per_uid; /* apps.sock, untrusted uid */
	uint32_t app_conns;         /* apps.sock, all untrusted uids */
	uint32_t app_reply_ms;      /* an app answers a command within this */
	uint32_t app_register_ms;   /* an app's registration (or addition), whole */
	uint32_t relay_ms;          /* relayd's control port: resolve, connect, its HELLO reply (each) */
	uint32_t owner_ms;          /* a folder made, moved or removed as a session's owner (as-owner.c) */
	uint32_t app_events;        /* per app */
	uint32_t app_fields;        /* per event */
	uint32_t tracker_values_per_uid; /* values in one uid's sessions' trackers (root: no cap) */
	uint32_t triggers_per_uid;  /* triggers one uid may register (root: no cap) */
	uint32_t trigger_hits_per_uid; /* hits of one uid's programs waiting (triggers.c) */
	uint64_t app_bytes;         /* per app: decoded descriptions and input */
	uint64_t app_bytes_per_uid; /* untrusted uid, all its apps */
	uint64_t log_bytes;         /* sessiond.log is cut at this size */
};
extern struct sd_limits sd_limits;
/* "NAME=VALUE" (bytes take K, M, G): 0, -ENOENT (no such limit), -EINVAL. */
int sd_limit_set(const char *arg);
void sd_limits_usage(FILE *f);
/* Raises RLIMIT_NOFILE and sizes app_conns from it (sd.fd_limit). */
void sd_limits_fds(void);

struct sd_uid {
	struct sd_uid *next;
	uid_t uid;
	uint32_t ctl_conns, app_conns;
	uint64_t app_bytes;       /* charged by its apps (ustctl's shared budget) */
	uint64_t refused, dropped; /* connections refused over a cap; apps dropped */
	uint64_t list_query;       /* agent-port.c: the list -p its agents' names */
	uint32_t list_names;       /* are counted for, and how many were listed */
};
/* The record of @uid, made on first use (NULL: ENOMEM). */
struct sd_uid *sd_uid_get(uid_t uid);
/* Frees @u if it holds nothing any more (NULL is a no-op). */
void sd_uid_put(struct sd_uid *u);
/* Reads the peer of the connected @fd. 0 or -errno. */
int sd_peer_get(int fd, struct sd_peer *p);
/* Group 'tracing' (looked up at most every 10 s): 1 and its gid, or 0. */
int sd_tracing_gid(gid_t *gid);

/* Sets the reply's status and one-line error; returns @status. */
int sd_fail(struct sd_reply *r, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * sd_text_refused - text a client gives the daemon to keep, which others
 * are shown (root's `trawl list`, `list-triggers`, MI): @text must be
 * printable (trawl_str_unprintable()), or the request is refused, in @r,
 * in one line: "@what: the @field holds ...". 0, or -1 (refused).
 */
int sd_text_refused(struct sd_reply *r, const char *what, const char *field, const char *text);
/*
 * sd_reply_rec - appends a record of @kind: @body is the kind's wire struct
 * (proto.h), @strs its strings in order. Returns 0, or fails the reply
 * (-E2BIG past the protocol's bounds, -ENOMEM) and returns that; once the
 * reply has failed, it adds nothing.
 */
int sd_reply_rec(struct sd_reply *r, enum trawl_ctl_item_kind kind, const void *body,
		 const char *const *strs);

/* client.c: binds and listens on the ctl socket @path; returns the fd or -errno. */
int sd_client_listen(const char *path, int root_daemon);

/* Dispatches one checked request. */
void sd_cmd_dispatch(uint16_t cmd, const struct trawl_ctl_wire_req *req,
		     const struct sd_peer *peer, struct sd_reply *r);

/* cmd-session.c */
void sd_cmd_create(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_destroy(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_start(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_stop(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_snapshot(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_snapshot_output(uint16_t cmd, const struct trawl_ctl_wire_req *req,
			    const struct sd_peer *p, struct sd_reply *r);
/* A new snapshot session's output: snapshot-1, its own folder. */
void sd_snapshot_default_output(struct sd_session *s);
/* mkdir -p @path as @uid/@gid would (a child with their ids in the root
 * daemon: common/ids.h), then checks they may write there. 0 or -errno. */
int sd_mkdir_checked_as(const char *path, uid_t uid, gid_t gid);
/* `regenerate metadata|statedump` (@cmd says which), on a started session. */
void sd_cmd_regenerate(uint16_t cmd, const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		       struct sd_reply *r);
/*
 * `regenerate statedump`: each domain
 * of the running session @s writes its state dump again (the kernel
 * consumer: LTTng's lttng_statedump_* events). 0, or a negative errno with
 * @err filled.
 */
int sd_session_regenerate_statedump(struct sd_session *s, char *err, size_t errlen);
/* Measures the clock offset again and publishes it in $TRAWL_CLOCK_OFFSET_NS. */
void sd_clock_offset_refresh(void);
/* 1 if the client @p sees @s: its owner, or root. */
int sd_session_visible(const struct sd_session *s, const struct sd_peer *p);
/* The session @name visible to @p (its own first), or NULL; busy or not. */
struct sd_session *sd_session_find(const char *name, const struct sd_peer *p);
/* The first failure of a stop of domain @i goes in @r (may be NULL); returns @ret. */
int sd_session_stop_failed(struct sd_session *s, int i, int ret, const struct trawl_domain_err *err,
			   struct sd_reply *r);
/* Stops (if active) @s and destroys its domains: it has none left. */
void sd_session_teardown(struct sd_session *s);
/* Unlinks and frees @s, torn down (and its last chunk archived, or not). */
void sd_session_free(struct sd_session *s);
/* start, one domain after the other (an op: sd_op_domains()). */
extern const struct sd_domains_cmd sd_start_cmd;
/* cmd-list.c */
void sd_cmd_list_sessions(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_list_session(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
/* Answers the `list SESSION` and `status` whose consumers have answered (each loop round). */
void sd_queries_on_top(void);
/* session-op.c: the commands that wait for consumers or relayd */
/* What an op is (struct sd_op's kind): a create or start waits for relayd. */
enum { OPK_STOP, OPK_REGENERATE, OPK_CREATE, OPK_START, OPK_DOMAINS };
/* The session is busy with an op: fills @r (-EBUSY, or a retry) and returns 1, else 0. */
int sd_op_busy(const struct sd_session *s, struct sd_reply *r);
/* What @s is busy with (an op), for a line; @it names the session ("it"). */
void sd_op_what(const struct sd_session *s, const char *it, char *buf, size_t len);
/* Makes the loop move the ops and the queries on at each round (once). */
void sd_op_on_top_register(void);
/*
 * Stops (@destroy: and destroys) the @nr sessions @ss for the client of
 * @r (@report: a stop's failure is the command's): answered now if no
 * consumer must be waited for, else later (r->later).
 */
void sd_op_run(struct sd_session **ss, size_t nr, int destroy, int report, struct sd_reply *r);
/* A create (@kind OPK_CREATE) or start of @s waiting for relayd's answer. */
void sd_op_connect(struct sd_session *s, int kind, struct sd_reply *r);
/* A create of @s waiting for its folder, made by a child as its owner. */
void sd_op_folder(struct sd_session *s, struct sd_reply *r);
/* A regenerate (@statedump: of the state dump, else of the metadata) of @s. */
void sd_op_regenerate(struct sd_session *s, int statedump, struct sd_reply *r);
/* cmd-agent.c: the agent domains (JUL, LOG4J, PYTHON) */
void sd_agent_enable_event(struct sd_session *s, const struct trawl_ctl_wire_req *req,
			   const struct sd_peer *p, struct sd_reply *r);
void sd_agent_disable_event(struct sd_session *s, const struct trawl_ctl_wire_req *req,
			    const struct sd_peer *p, struct sd_reply *r);
void sd_agent_recs(struct sd_reply *r, const struct sd_session *s);
void sd_agent_free(struct sd_session *s);
/* The whole filter (logger, levels, the user's) of an agent domain's rule
 * @req, as its user-space rule has it: 0, or -ENAMETOOLONG. */
int sd_agent_whole_filter(const struct trawl_ctl_wire_req *req, char *buf, size_t len);
/* The tracepoint of agent domain @domain's agents ("lttng_python:event"). */
const char *sd_agent_tracepoint(uint32_t domain);
/* The user-space channel of agent domain @domain ("lttng_jul_channel"). */
const char *sd_agent_channel(uint32_t domain);
/* Application context @name ("$app.P:N") was added in agent domain
 * @domain (JUL, LOG4J) of @s: kept for the agents that register later,
 * and the registered ones @s may trace are told (agent-port.c). */
void sd_agent_app_ctx_add(struct sd_session *s, uint32_t domain, const char *name);
/* agent-port.c: tells the registered agents of @domain that @s may trace
 * to hand the values of application context @name to their tracepoint. */
void sd_agent_app_ctx_enabled(const struct sd_session *s, uint32_t domain, const char *name);
/* triggers.c: @fn with each event-rule-matches trigger of agent domain
 * @domain that may trace @uid's processes (its owner root or @uid). */
void sd_agent_triggers(uint32_t domain, uid_t uid,
		       void (*fn)(const char *name, uint32_t loglevel_type, int loglevel,
				  const char *filter, void *arg),
		       void *arg);
/* agent-port.c: a trigger of @owner on a logger of agent domain @domain
 * came (or went): the agents it concerns are told. */
void sd_agent_logger_changed(uid_t owner, uint32_t domain, const char *name,
			     uint32_t loglevel_type, int loglevel, const char *filter, int enabled);
/* agent-port.c: the loggers of the registered agents of agent domain
 * @domain @p may see (trusted: all; else its own), as AVAILABLE records. */
void sd_agent_list(uint32_t domain, const struct sd_peer *p, struct sd_reply *r);
/* A command that changes agent rules: between the two, each ENABLE or
 * DISABLE sent to an agent is awaited; sd_agent_settle() waits (nested
 * rounds, at most app-reply-ms) until every one of them is answered. */
void sd_agent_changes_begin(void);
void sd_agent_settle(void);
/* agent-port.c: LTTng's agents' TCP port (agent.port); 0 or -errno */
int sd_agent_port_start(void);
void sd_agent_port_stop(void);
/* Rule @e of agent domain @domain in @s was enabled (or disabled): the
 * registered agents it concerns are told. */
void sd_agent_rule_changed(const struct sd_session *s, uint32_t domain, const struct sd_event *e,
			   int enabled);
/* cmd-channel.c: enables (or disables) user-space rule TRACEPOINT with
 * FILTER in CHANNEL (made if needed), hidden from listings: 0, or -1 with
 * @r filled */
int sd_agent_ust_rule(struct sd_session *s, const char *channel, const char *tracepoint,
		      const char *filter, int enable, const struct sd_peer *p, struct sd_reply *r);
/* Appends @s's SESSION record to @r. */
void sd_session_rec(struct sd_reply *r, const struct sd_session *s);
void sd_cmd_set_shm_path(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
/* Finds the session @name visible to @p; on failure fills @r and returns NULL. */
struct sd_session *sd_session_lookup(const char *name, const struct sd_peer *p, struct sd_reply *r);
/* Stops (if active) and frees @s, unlinking it from the daemon. */
void sd_session_destroy(struct sd_session *s);
/* cmd-rotate.c: clear, rotate, rotation schedules; the chunk state at a
 * start, and the last chunk archived at a destroy (after its domains). */
void sd_cmd_clear(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_rotate(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_rotation(uint16_t cmd, const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
		     struct sd_reply *r);
void sd_session_started(struct sd_session *s);
void sd_session_archive_last(struct sd_session *s);
/* The same, as a job on @s->last_job: 0 (nothing to archive), -EINPROGRESS
 * (awaited: sd_owner_done()), or its result when it ran in place. */
int sd_session_archive_last_begin(struct sd_session *s);
/*
 * A destroy of a rotated streaming session, once stopped: its domains
 * archive the last chunk on relayd, as a rotation does (before they are
 * released: their connections to relayd do it). Returns 1 when begun (the
 * domains that wait have s->op_wait[] set; s->last_archive is the
 * archive's name), 0 when there is nothing to archive. A domain that fails
 * at once is said in @r (may be NULL).
 */
int sd_session_relay_archive_begin(struct sd_session *s, struct sd_reply *r);
/* The destroy's relayd archive is over: its ROTATION record in @r, or @ret's line. */
void sd_session_relay_archived(struct sd_session *s, int ret, const char *msg, struct sd_reply *r);
/* ROTATION_SCHEDULE records of @s's schedules (list). */
void sd_rotation_recs(struct sd_reply *r, const struct sd_session *s);
/* At exit: every stop or destroy still waiting is done here, unanswered. */
void sd_ops_finish(void);
/*
 * A command on one session that runs its domains one after the other and
 * may wait for their consumers (clear, rotate, snapshot record), without
 * holding the loop: step() runs domain @i's part and returns 0, a negative
 * errno (@err its line: the command ends there), or -EINPROGRESS (the
 * domain's async_done() is awaited, in the loop). end() runs once: with
 * @i 0 and @ret 0 after the last domain, else with the domain that failed;
 * it fills @r, the client's answer. The session is busy meanwhile ("WHAT
 * of it is waiting for its consumer").
 */
struct sd_domains_cmd {
	const char *what; /* "a rotation" */
	int (*step)(struct sd_session *s, int i, void *arg, struct trawl_domain_err *err);
	void (*end)(struct sd_session *s, int i, int ret, const struct trawl_domain_err *err,
		    void *arg, struct sd_reply *r);
	/* May be NULL: work as the session's owner before the domains (a
	 * snapshot's folder) or after them (a rotation's archive), begun with
	 * sd_owner_begin() on @job (-EINPROGRESS: awaited in the loop; else
	 * its result); @what gets the start of the failure's line ("cannot
	 * create DIR"). A failure ends the command: end() with @i 0, @ret
	 * and @err the line. */
	int (*before)(struct sd_session *s, void *arg, struct sd_owner_job *job, char *what,
		      size_t len);
	int (*after)(struct sd_session *s, void *arg, struct sd_owner_job *job, char *what,
		     size_t len);
	/* May be NULL: the result of the job begun by before() or after()
	 * (@stage 1 or 2) when it was awaited, turned into the command's: 0
	 * goes on, else the command ends (as a failed job does). */
	int (*job_done)(void *arg, int stage, int ret);
	/* 1: a domain's failure does not end the command: the other domains
	 * and after() run, and end() gets the first failure (a rotation: the
	 * domains go on in the new chunk whatever one of them says, so the
	 * chunk ends for all, and is archived) */
	int go_on;
};
/* Runs @cmd on @s for the client of @r: answered now if no domain waits,
 * else later (r->later). @arg (malloc()ed, NULL-able) is the op's, freed
 * after end(). @unattended: no client (a scheduled rotation): commands on
 * @s meanwhile wait for it (sd_reply.retry) rather than being refused. */
void sd_op_domains(struct sd_session *s, const struct sd_domains_cmd *cmd, void *arg,
		   int unattended, struct sd_reply *r);

/*
 * cmd-snapshot.c: @url (net://HOST[:CTRL[:DATA]], from the client) as a
 * snapshot output, normalized into @buf (net[6]://HOST:CTRL:DATA); 0, or
 * -errno with @r failed.
 */
int sd_snapshot_relay_output(char *buf, size_t len, const char *url, struct sd_reply *r);

/* relay.c: streaming sessions */
/* 1 if @output is a net:// or net6:// URL. */
int sd_relay_is_url(const char *output);
/*
 * Makes @s stream to @url: -EINPROGRESS while relayd's control port is
 * connected to and asked (sd_relay_connect_done()), or fills @r and
 * returns its error.
 */
int sd_relay_setup(struct sd_session *s, const char *url, uint32_t live_timer_us,
		   struct sd_reply *r);
/*
 * Where @rel (a path in @s's folder on the relayd of @url, net://...) is,
 * as LTTng says a relay archive's location: "tcp://HOST/HOSTNAME/NAME-STAMP/REL
 * [control port C, data port D]". 0 or -errno.
 */
int sd_relay_location(const struct sd_session *s, const char *url, const char *rel, char *buf,
		      size_t len);
/* For a streaming session that lost relayd, connects again (at start): 0
 * (connected), -EINPROGRESS (as sd_relay_setup()), or fills @r. */
int sd_relay_check(struct sd_session *s, struct sd_reply *r);
/* 1 once the connection begun by sd_relay_setup() or sd_relay_check() is
 * over (connected, or failed: the line in @r), 0 while it is under way. */
int sd_relay_connect_done(struct sd_session *s, struct sd_reply *r);
/* For a streaming session that lost relayd: 1 and the line in @msg; else 0. */
int sd_relay_problem(const struct sd_session *s, char *msg, size_t len);
/* Tells relayd the session is over and closes its connection (destroy). */
void sd_relay_end(struct sd_session *s);
/*
 * Tells relayd, on the session's own connection, that trace chunk @from
 * (its folder's name, "" for the session folder: chunk 0) ended into
 * archive @to and chunk @next ("": none) begins (@op
 * TRAWL_RELAY_CHUNK_CLOSE), or that @from was cleared (CLEAR, @to and
 * @next ""): relayd/proto.h's CHUNK. 0, or -errno (no connection: relayd
 * is away; the consumers' own ARCHIVEs and REMOVEs still did their part).
 */
int sd_relay_chunk(struct sd_session *s, uint32_t op, const char *from, const char *to,
		   const char *next);
/*
 * sd_relay_chunk(), then a PING whose reply is awaited in the loop: @j
 * (pid 0, fd -1) is over (sd_owner_done()) once relayd acted on the CHUNK
 * (0), hung up (-EPIPE) or did not answer within relay-ms (-ETIMEDOUT).
 * -EINPROGRESS, or what kept it from beginning (nothing to wait for).
 */
int sd_relay_chunk_begin(struct sd_session *s, struct sd_owner_job *j, uint32_t op,
			 const char *from, const char *to, const char *next);

/* cmd-tracker.c: track/untrack, and the trackers in `list SESSION` */
void sd_cmd_track(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_untrack(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
/* Appends the TRACKER (and TRACKER_VALUE) records of @domain's part of a session. */
void sd_trackers_rec(struct sd_reply *r, uint32_t domain, const struct sd_domain *d);
/* Frees @d's tracker values (session destroy). */
void sd_trackers_fini(struct sd_domain *d);

/* triggers.c: the trigger registry (add-trigger, list-triggers, remove-trigger) */
void sd_cmd_add_trigger(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			struct sd_reply *r);
void sd_cmd_list_triggers(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			  struct sd_reply *r);
void sd_cmd_remove_trigger(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			   struct sd_reply *r);
/* At exit: every trigger freed. */
void sd_triggers_fini(void);
/* An event-rule-matches trigger on user-space events, as the apps' event
 * notifiers need it (ust-notify.c); the strings are the trigger's. */
struct sd_trigger_rule {
	uint64_t id; /* the daemon's, never reused */
	uid_t owner;
	const char *pattern, *filter, *exclusions;
	const char *captures; /* the capture descriptors, joined by ',' ("" if none) */
	uint32_t loglevel_type; /* enum trawl_ctl_loglevel_type */
	int32_t loglevel;
};
/* Calls @fn with each such trigger, in order, while it returns 0. */
void sd_triggers_ust_rules(int (*fn)(const struct sd_trigger_rule *r, void *arg), void *arg);
/* Trigger @id's condition was met by an event of an app of @app_uid that
 * fired at @ts_ns (CLOCK_MONOTONIC): queued, and its actions run at the top
 * of the loop (triggers.c, as its rate policies say). Any depth. */
void sd_trigger_hit(uint64_t id, uid_t app_uid, uint64_t ts_ns, uint32_t nr_captures,
		    const char *captures);
/* @n hits of trigger @id by a program of @app_uid that the tracer dropped
 * before this daemon had them (list-triggers' "discarded tracer messages"):
 * counted, if the trigger is still there and may see that program. */
void sd_trigger_discarded(uint64_t id, uid_t app_uid, uint64_t n);
/* The same, dropped in the app's notification ring (ust-notify.c): also
 * counted in the uid's round line of the log, and told to the trigger's
 * owner as lost notifications if it notifies (sd_notify_lost()).
 * SD_NOTIFY_HITS_PER_UID_ROUND: the most hits the daemon reads a round
 * from all the apps of one uid (ust-notify.c), the rest left in their
 * rings: a uid's programs cannot take the loop from the other users'. */
void sd_trigger_ring_dropped(uint64_t id, uid_t app_uid, uint64_t n);
#define SD_NOTIFY_HITS_PER_UID_ROUND 256u
/* notify.c: the notify action's notifications (@captures: @nr_captures
 * '\n'-terminated lines, or NULL), kept per owner for the NOTIFY_WAIT of
 * its clients, which it answers. */
void sd_notify_push(uid_t owner, const char *trigger, uint32_t condition, uint64_t ts_ns,
		    uint32_t nr_captures, const char *captures);
void sd_cmd_notify_wait(const struct trawl_ctl_wire_req *req, const struct sd_peer *p,
			struct sd_reply *r);
/* @n notifications of @owner's triggers that will never be (their hits were
 * dropped, triggers.c): counted, and told to the owner's clients (their
 * NOTIFY_CURSOR's dropped) at their next answer; sd_notify_lost_tell()
 * answers those waiting now (at the end of a round). */
void sd_notify_lost(uid_t owner, uint64_t n);
void sd_notify_lost_tell(void);
void sd_notify_fini(void);
/* kernel-notify.c: a kernel event-rule-matches trigger's notifier, made
 * when it is registered (0, or -errno with @r filled: the trigger is not
 * registered) and removed with it. A probe's (@event_kind PROBE or
 * USERSPACE_PROBE) is at @target; a uprobe's file is what @located found
 * (the client's child read it; NULL: it is read here, waited for). */
int sd_kernel_notify_add(uint64_t trig_id, uid_t owner, uint32_t event_kind, const char *pattern,
			 const char *target, const char *filter, const char *captures,
			 const struct sd_uprobe_located *located, struct sd_reply *r);
void sd_kernel_notify_remove(uint64_t trig_id);
void sd_kernel_notify_fini(void);
/* ust-notify.c: every registered app's event notifiers made to follow the
 * triggers (after one was added or removed). Top level. */
void sd_ust_notify_sync_all(void);
/* ust-notify.c: every app's notifiers' drop counters (what its tracer
 * dropped since last read) counted in their triggers (before a listing). */
void sd_ust_notify_discarded_sync(void);

/* cmd-channel.c */
/* The session's part in @domain, created on first use; NULL with @r filled. */
struct sd_domain *sd_domain_get(struct sd_session *s, uint32_t domain, struct sd_reply *r);
void sd_cmd_enable_channel(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_disable_channel(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_enable_event(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_disable_event(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_list_available(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
/* Frees a channel's events and contexts and the channel. */
void sd_channel_free(struct sd_channel *c);
/* @d's channel named @name, or NULL. */
struct sd_channel *sd_channel_find(struct sd_domain *d, const char *name);
/* Channel @name of @d made (with @req's attributes, or the domain's
 * defaults when NULL) in the domain and added to @d; NULL with @r filled. */
struct sd_channel *sd_channel_create(struct sd_session *s, struct sd_domain *d, uint32_t domain,
				     const struct trawl_ctl_wire_req *req, const char *name,
				     struct sd_reply *r);
/* The channel named in @req, or the default one (created on demand); NULL
 * with @r filled. */
struct sd_channel *sd_channel_for(struct sd_session *s, struct sd_domain *d,
				  const struct trawl_ctl_wire_req *req, struct sd_reply *r);

/* cmd-context.c */
void sd_cmd_add_context(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);

/*
 * autoload.c: loads the sessions of --load @path (NULL: LTTng's autoload
 * folders) in a child process, a client of this daemon; *@ready_fd is told
 * (trawl_daemon_ready()) once it is done, from the loop. 0 or -errno (then
 * nothing is loaded and *@ready_fd is the caller's to tell).
 */
int sd_autoload_start(const char *path, int *ready_fd);

/*
 * The loop (loop.c, design there): @cb runs when @fd is ready for what it
 * is watched for (POLLIN unless sd_watch_events() said otherwise) or hung
 * up; @expired when its deadline (sd_now_ms() clock, 0: none) passed.
 */
typedef void (*sd_watch_cb)(int fd, short revents, void *arg);
typedef void (*sd_expire_cb)(int fd, void *arg);
int sd_watch_add(int fd, sd_watch_cb cb, void *arg);
void sd_watch_del(int fd);
void sd_watch_events(int fd, short events);
void sd_watch_deadline(int fd, uint64_t deadline_ms, sd_expire_cb expired);
/* The watch also runs in nested rounds (loop.c: then its callback only
 * reads, buffers, answers read-only requests, or leaves work for the top). */
void sd_watch_nested(int fd, int yes);
uint64_t sd_now_ms(void); /* CLOCK_MONOTONIC, ms */
/* Runs nested rounds until @done(@arg), or @until_ms (0: no bound). */
void sd_loop_wait(int (*done)(void *arg), void *arg, uint64_t until_ms);
int sd_loop_nested(void);
/* @fn runs at the top level after every round (deferred work). */
void sd_loop_on_top(void (*fn)(void));
/* An eventfd the loop watches only to wake up, and @fn registered with
 * sd_loop_on_top(): a part with work left for another round (a budget
 * spent, hits queued) writes it with sd_loop_wake() so that the next poll
 * does not sleep. The fd, or -1 (nothing registered then). */
int sd_loop_wake_fd(void (*fn)(void));
void sd_loop_wake(int fd);
int sd_loop_run(int sigfd);

const char *sd_domain_name(uint32_t domain);

#endif /* TRAWL_SESSIOND_H */
