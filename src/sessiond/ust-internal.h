/* SPDX-License-Identifier: MIT */
/*
 * ust-internal.h - what the user-space domain's files share (private to
 * src/sessiond): the objects described at the top of domain-ust.c, the
 * domain's lists, and the functions one file calls in another.
 *
 *   domain-ust.c    the ops table and the session-level operations
 *   ust-consumer.c  the user-space consumers: spawning, pipelined commands
 *   ust-registry.c  traces, per-channel event ids and metadata (ctf.h)
 *   ust-app.c       matching, and setting apps up for sessions
 *   ust-conn.c      apps' connections: caps, reading, deadlines, registration
 *   ust-chunk.c     clear, rotate and snapshot record of a session's files
 *   ust-status.c    status, channel counters, and the apps' events (list)
 */
#ifndef TRAWL_SESSIOND_UST_INTERNAL_H
#define TRAWL_SESSIOND_UST_INTERNAL_H

#include "common/common.h"
#include "consumerd/consumer-proto.h"
#include "ctf/ctf.h"
#include "sessiond/sessiond.h"
#include "ustctl/ustctl.h"

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct ust_app {
	struct ust_app *next; /* on `apps` once registered, before on ust-conn.c's list */
	struct trawl_ustctl_app *h; /* owned */
	struct trawl_ustctl_app_info info; /* pid and procname: the kernel's */
	uid_t uid;  /* from SO_PEERCRED, not from the registration */
	gid_t gid;  /* from SO_PEERCRED */
	pid_t pid;  /* from SO_PEERCRED */
	/* Its IDs as it sees them in its own namespaces, for the trackers
	 * (ust-conn.c app_virtual_ids(): the kernel's word where it has one). */
	uint32_t vpid, vuid, vgid;
	uint64_t id;
	struct sd_uid *owner; /* its uid's record: counts this connection */
	int trusted;          /* a trusted peer (peers.c): not capped */
	int registered;       /* on `apps` */
	int reg_pending;      /* registered in a nested round: set up at the top */
	int added_pending;    /* events added in a nested round: set up at the top */
	int dead;             /* failed inside a loop: dropped at the top (app_fail()) */
	int done_held;        /* REGISTRATION_DONE held until its channels are ready */
	int tally_shm;        /* holds the app's tally memfd: counted as a connection */
	/* Dropped, its tally memfd kept (ust-conn.c, apps_tally_settle()):
	 * h is NULL, the memfd and what was charged of it are here. */
	struct trawl_ustctl_tally_shm shm;
	struct trawl_ustctl_tally_entry *charged; /* owned: by memfd entry */
	uint32_t nr_charged;
	uint64_t overflow_charged;
	char stamp[32]; /* registration time, YYYYMMDD-HHMMSS */
	struct ust_notifier *notifier; /* owned: its event notifiers (ust-notify.c), or NULL */
	int notify_fd; /* 1: its notifier's eventfd is counted as a connection */
};

/* ust-conn.c: one more fd held for @a (its notifier's eventfd), counted as
 * a connection of its uid (app_gone() gives it back with a->notify_fd):
 * 0, or -EMFILE when an untrusted uid (or all of them) holds the most. */
int app_charge_fd(struct ust_app *a);

/* ust-notify.c: an app's event notifiers, one per trigger whose
 * event-rule-matches condition may see the app (its owner is root or the
 * app's uid). sync: made to follow the triggers (queued commands; after
 * the registration or an addition, before REGISTRATION_DONE). gone: what
 * its ring holds is taken (the hits queued), then everything freed. */
void ust_notify_app_sync(struct ust_app *a);
void ust_notify_app_gone(struct ust_app *a);
/* ust-capture.c: the values of the captures @descriptors (joined by ',')
 * from a notification @record of @len bytes (untrusted: checked): the
 * context fields @contexts (ustabi.h bits), then, if @app_values, the
 * values of the application contexts ust_capture_app_contexts() finds in
 * @descriptors, then @ev's payload; one '\n'-terminated line each, into
 * @out of @cap bytes (always NUL-terminated). Returns how many lines
 * (captures left out when @out is full are not counted).
 * ust_capture_contexts(): the context bits the $ctx.NAME captures among
 * @descriptors need the app to write. ust_capture_app_contexts(): the
 * application contexts the $app.PROVIDER:NAME captures among @descriptors
 * need the app to write (valid names, each once, in order; at most
 * TRAWL_USTCTL_MAX_APP_CTX, later ones unavailable), into @names: their
 * count. */
uint32_t ust_capture_format(const struct trawl_ustctl_event *ev, uint32_t contexts, int app_values,
			    const void *record, size_t len, const char *descriptors, char *out,
			    size_t cap);
/* The same, in two steps: ust_capture_plan_create() resolves what each
 * capture of @descriptors names in @ev (as the app registered it: fixed
 * from then on) into *@out (the caller's, freed with
 * ust_capture_plan_destroy()), once per (event, trigger); 0 or -ENOMEM.
 * ust_capture_plan_format() formats a hit's @record with it, with no name
 * looked up (ust_capture_format()'s @ev, @record, @len, @out, @cap).
 * ust_capture_plan_fits(): whether @pl was made for an event of @ev's
 * fields (a defence: an app's events do not change).
 * ust_capture_plan_size(): the bytes @pl takes. */
struct ust_capture_plan;
int ust_capture_plan_create(const struct trawl_ustctl_event *ev, uint32_t contexts, int app_values,
			    const char *descriptors, struct ust_capture_plan **out);
void ust_capture_plan_destroy(struct ust_capture_plan *pl);
int ust_capture_plan_fits(const struct ust_capture_plan *pl, const struct trawl_ustctl_event *ev);
size_t ust_capture_plan_size(const struct ust_capture_plan *pl);
uint32_t ust_capture_plan_format(const struct ust_capture_plan *pl,
				 const struct trawl_ustctl_event *ev, const void *record,
				 size_t len, char *out, size_t cap);
uint32_t ust_capture_contexts(const char *descriptors);
uint32_t ust_capture_app_contexts(const char *descriptors,
				  char (*names)[TRAWL_USTCTL_APP_CTX_NAME_MAX]);
/* ust-app.c: whether an event-rule's name pattern (LTTng's star glob),
 * exclusions and log level match @ev. */
int ust_event_matches(const char *pattern, const char *exclusions, uint32_t loglevel_type,
		      int loglevel, const struct trawl_ustctl_event *ev);

struct ust_rule {
	struct ust_rule *next;
	char name[TRAWL_CTL_NAME_MAX];
	enum trawl_ctl_loglevel_type lt;
	int loglevel;
	char filter[TRAWL_CTL_FILTER_MAX]; /* "" for none; checked by src/filter */
	char exclusions[TRAWL_CTL_EXCLUSIONS_MAX]; /* "" or star globs joined by ',' */
};

struct ust_chan {
	struct ust_chan *next;
	struct trawl_domain_channel_attr attr;
	uint32_t index; /* CTF stream class id; 0, 1, ... */
	int enabled;
	struct trawl_ustctl_contexts ctx; /* context fields; fixed at the first start */
	struct ust_rule *rules; /* the enabled rules only */
};

/* ust-context.c: adds context @dc->name (as `add-context -u -t` spells it)
 * to @ctx, perf counters probed as @uid/@gid (unless @dc says they were).
 * 0, or -errno with @err set. */
int ust_context_parse(const struct trawl_domain_context *dc, uid_t uid, gid_t gid,
		      struct trawl_ustctl_contexts *ctx, struct trawl_domain_err *err);

/* An event class of a channel: the same name with another payload layout
 * (two providers of one event that disagree) is another class, as with
 * LTTng. One allocation, layout included. */
struct ust_class {
	struct ust_class *next;
	char name[TRAWL_USTCTL_NAME_MAX];
	uint32_t id;
	size_t layout_len;
	unsigned char layout[]; /* class_layout()'s bytes */
};

struct trace_chan {
	struct trace_chan *next;
	struct ust_chan *chan;
	struct trawl_ustctl_channel *rb; /* owned */
	struct ust_class *classes;       /* owned */
	uint32_t next_id;
	/* A live session's channel: reply number ready_at of consumer
	 * generation ready_gen says its streams are on relayd, and the apps
	 * get it only then (cons_chan_ready()); 0: ready. */
	uint32_t ready_gen;
	uint64_t ready_at;
};

struct ust_trace {
	struct ust_trace *next;
	uint64_t key;
	uid_t uid;
	uint32_t bits;
	pid_t pid; /* 0: per-user */
	char path[TRAWL_CONS_PATH_LEN];
	char shm_rel[TRAWL_CONS_PATH_LEN]; /* --shm-path: its folder under it (ust-shm.c) */
	int shm_meta_fd;                   /* --shm-path: owned, its metadata file; else -1 */
	struct ust_shm *shm;               /* --shm-path: owned, its files (ust-shm.c); else NULL */
	struct trawl_ctf_trace *ctf; /* owned */
	struct trace_chan *chans;
	int metadata_dirty;
	/* Its clock, enum trawl_ustctl_clock_kind: CLOCK_MONOTONIC, the TSC
	 * (ust-clock.c), or APP: that of the app that made it (a clock
	 * plugin's, @clock); apps of another clock are not traced in it. */
	uint32_t clock_kind;
	struct trawl_ustctl_clock clock;
	/* Its process exited and REMOVE_TRACE was sent (trace_release_gone());
	 * freed once the consumer of generation removed_gen has answered
	 * command number removed_at (cons_trace_removed()). */
	int gone;
	uint32_t removed_gen;
	uint64_t removed_at;
};

/* The filters of the rules enabling one event in one channel, as sent to
 * the app: NUL-terminated texts one after the other (wire.h's ENABLE).
 * Empty (NULL, 0) when some rule has none: every event records. */
struct filter_set {
	char *texts; /* owned */
	size_t len;
};

struct app_sess {
	struct app_sess *next;
	struct ust_app *app;
	struct ust_trace *trace;
	uint32_t nr_events;
	uint8_t *on; /* [chan index * nr_events + event index]: enabled in the app */
	struct filter_set *filt; /* [same index]: the filters it was enabled with */
	uint8_t *chan_sent; /* [chan index]: the app has the channel's buffers */
	uint32_t nr_chans;
	int started;
	int chan_wait; /* a channel it needs is not ready yet (a live session's) */
	int shm_wait;  /* a channel it needs has its buffer files being made (ust-shm.c) */
};

struct trawl_domain_session {
	struct trawl_domain_session *next; /* in the domain's list */
	char name[TRAWL_CTL_NAME_MAX];
	char output[TRAWL_CTL_PATH_MAX];
	const char *shm_path; /* the daemon's (domain.h): "" or --shm-path's folder */
	uint64_t id;
	uid_t uid;
	gid_t gid;
	int snapshot;
	int64_t created; /* seconds since the epoch: the metadata's trace_creation_datetime */
	int active, started_once;
	uint32_t nr_chans;
	struct ust_chan *chans;
	struct ust_trace *traces;
	struct app_sess *apps;
	struct ust_consumer *cons; /* the owner's consumer, shared; NULL until needed */
	uint64_t cons_discarded, cons_bytes; /* as of the last stop */
	uint64_t cons_tallied;               /* of cons_discarded, programs' tallies' */
	/* each channel's, by index, as of the same reply (cons_counters_take()) */
	struct trawl_cons_chan_counters cons_chans[TRAWL_CONS_MAX_CHANNELS];
	uint32_t apps_dropped; /* apps it traced that broke a deadline or a rule */
	/*
	 * A stop's FLUSH or a destroy's REMOVE_SESSION whose reply is awaited
	 * without blocking (cons_async()): the command (0: none), which reply
	 * of which consumer generation answers it, and once in, that reply.
	 */
	uint16_t wait_cmd;
	int wait_over, wait_tries, released;
	/* the consumer died while wait_cmd was owed: "" or its line ("consumer
	 * died (signal 9)"), as it was then (a rotation it did not answer fails) */
	char wait_died[64];
	uint32_t wait_gen;
	uint64_t wait_at;
	struct trawl_cons_reply wait_reply;
	/* The replies after number wait_from and before wait_at (a regenerate's
	 * METADATA, then STATUS awaited): the first error among them. */
	uint64_t wait_from;
	int wait_first_err;
	/* The awaited command's payload (ROTATE, SNAPSHOT), sent again to a
	 * consumer started in place of one that died (cons_async_done()). */
	union {
		struct trawl_cons_rotate rotate;
		struct trawl_cons_add_trace snapshot;
	} wait_payload;
	uint32_t wait_size;
	/*
	 * A STATUS asked without blocking (cons_status_ask(), `trawl status`):
	 * reply number status_at of consumer generation status_gen answers it;
	 * once in, its counters are the session's and its line status_msg
	 * (status_fresh until status() shows it).
	 */
	int status_asked, status_fresh;
	uint32_t status_gen;
	uint64_t status_at;
	char status_msg[TRAWL_CONS_MSG_LEN];
	const struct trawl_domain_trackers *trackers; /* the daemon's (domain.h) */
	int ust_dir_due; /* new or cleared: make the chunk's ust/ folder at the next start */
	/* Folder work as the owner (as-owner.c), its result read by the loop:
	 * a clear's removal of ust/, the ust/ folder a start (or a started
	 * session's clear) makes; ust_async_done() moves on once it is over. */
	enum { UST_JOB_NONE, UST_JOB_CLEAR_RM, UST_JOB_CLEAR_DIR, UST_JOB_START_DIR,
	       UST_JOB_START_SHM } job_kind;
	struct sd_owner_job job;
	char job_dir[TRAWL_CTL_PATH_MAX + 8]; /* the folder it works on, for the line */
	int job_ret; /* a clear's ust/ not made: said once START is answered */
	/* --shm-path: the first buffer files that could not be made since the
	 * start (ust-shm.c): the start's line, if it was waiting for them */
	int shm_err_ret;
	char shm_err[TRAWL_DOMAIN_ERR_MAX];
};

struct ust_consumer {
	struct ust_consumer *next;
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int fd;      /* owned: our end of the socketpair */
	int alive;
	int pending; /* replies not read yet (their commands queued or sent) */
	uint64_t sent, answered; /* commands sent, replies read (this generation) */
	/* Commands not (wholly) written yet, oldest first (ust-consumer.c's
	 * struct cons_out, owned), and their bytes; a reply read in part. */
	struct cons_out *out, **out_tail;
	uint64_t out_bytes, out_fds;
	unsigned char rbuf[sizeof(struct trawl_cons_reply)];
	size_t rgot;
	uint64_t progress_ms; /* sd_now_ms() of its last answer, or of the first command owed */
	int refs;    /* sessions using it */
	struct trawl_cons_reply last; /* the last reply read */
	char msg[TRAWL_DOMAIN_ERR_MAX]; /* why it died */
	uint32_t generation; /* bumped at each (re)start */
	int restarting;      /* in cons_restart() */
	uint32_t restarts;   /* since it was first started */
	time_t restart_window;  /* restarts_in_window counts from then */
	int restarts_in_window;
};

/* The domain's state (domain-ust.c, ust-consumer.c). */
extern struct ust_app *apps;
extern int apps_listen_fd; /* apps.sock, listening */
extern struct trawl_domain_session *sessions;
extern const char *consumerd_path;
extern struct ust_consumer *consumers;
extern uint64_t next_trace_key; /* unique in the daemon: consumers are shared */

/* ust-app.c: matching */
int sess_traces_app(const struct trawl_domain_session *s, const struct ust_app *a);
int per_pid(const struct trawl_domain_session *s);

/* ust-consumer.c */
void cons_dead(struct ust_consumer *c, int status_known, int status);
/* REMOVE_TRACE of @t, which its process left (marks it gone); whether the
 * consumer has done it (then @t may be freed: nothing left to drain). */
void cons_remove_trace(struct trawl_domain_session *s, struct ust_trace *t);
int cons_trace_removed(const struct trawl_domain_session *s, const struct ust_trace *t);
int cons_send(struct trawl_domain_session *s, uint16_t cmd, uint64_t trace_key,
	      uint64_t chan_key, const void *payload, uint32_t size, const int *fds,
	      uint32_t nr_fds);
int cons_sync(struct trawl_domain_session *s);
/*
 * Sends @cmd (FLUSH at a stop, REMOVE_SESSION at a destroy, CLEAR and then
 * START at a clear, ROTATE, SNAPSHOT) about @s and
 * returns without its reply (-EINPROGRESS; else done: 0 or -errno): the
 * loop reads it when it comes, within CONS_ASYNC_MS of the consumer's last
 * answer (else it is killed and restarted, and the command sent again; a
 * FLUSH or ROTATE, which the restart's replay did, is a STATUS then),
 * and cons_async_done() says 1 once it is in (*@reply, NULL-able: its
 * reply; 0 with the consumer gone for good).
 */
int cons_async(struct trawl_domain_session *s, uint16_t cmd);
/* The same with a payload (ROTATE, SNAPSHOT: @size at most wait_payload's). */
int cons_async_with(struct trawl_domain_session *s, uint16_t cmd, const void *payload,
		    uint32_t size);
/* The same, the first error of the replies to the commands sent after
 * number @from (c->sent then) and before @cmd counting as @cmd's. */
int cons_async_after(struct trawl_domain_session *s, uint16_t cmd, uint64_t from);
int cons_async_done(struct trawl_domain_session *s, struct trawl_cons_reply *reply, int *ret);
/* The session's counters (and its channels') from consumer reply @r. */
void cons_counters_take(struct trawl_domain_session *s, const struct trawl_cons_reply *r);
/* 1 while @s's consumer owes a reply awaited that way: a synchronous
 * command to it would wait behind the drain (refused, or not asked). */
int cons_busy(const struct trawl_domain_session *s);
/* Asks @s's consumer for its counters (STATUS) without waiting: -EINPROGRESS
 * (cons_status_pending() 1 until its reply is in), else 0 (nothing asked). */
int cons_status_ask(struct trawl_domain_session *s);
int cons_status_pending(struct trawl_domain_session *s);
int cons_alive(const struct trawl_domain_session *s);
/* The ADD_CHANNEL of @tc was just sent: in a live session, its reply is
 * awaited before apps get the channel (cons_chan_ready() 0 until then). */
void cons_chan_sent(struct trawl_domain_session *s, struct trace_chan *tc);
int cons_chan_ready(const struct trawl_domain_session *s, const struct trace_chan *tc);
void cons_channel_msg(const struct trawl_domain_session *s, const struct trace_chan *tc,
		      struct trawl_cons_add_channel *ac);
/* The fds of @tc's ADD_CHANNEL into @fds (TRAWL_USTCTL_MAX_STREAMS of
 * them): its streams', then its wake-up eventfd (setting
 * TRAWL_CONS_F_WAKE in @ac) when it has one. Returns how many. */
uint32_t cons_channel_fds(const struct trace_chan *tc, struct trawl_cons_add_channel *ac, int *fds);
int cons_get(struct trawl_domain_session *s, struct trawl_domain_err *err);
void cons_put(struct trawl_domain_session *s);
void cons_free(struct ust_consumer *c);

/* ust-registry.c */
/* ust-clock.c: the clock of traces of apps without a plugin (enum
 * trawl_ustctl_clock_kind), and the TSC's CTF clock (0 or a negative errno). */
uint32_t ust_clock_default(void);
int ust_clock_add_tsc(struct trawl_ctf_trace *ctf);

int metadata_push(struct trawl_domain_session *s, struct ust_trace *t);
struct ust_trace *trace_get(struct trawl_domain_session *s, const struct ust_app *a,
			    struct trawl_domain_err *err);
struct trace_chan *trace_chan_get(struct trawl_domain_session *s, struct ust_trace *t,
				  struct ust_chan *c, struct trawl_domain_err *err);
int class_id(struct ust_trace *t, struct trace_chan *tc,
	     const struct trawl_ustctl_event *ev, uint32_t *id);
/* Frees @t (off its list), its channels' buffers and registry. */
void trace_free(struct ust_trace *t);

/* ust-shm.c: a --shm-path session's buffer files, made as its owner in
 * jobs the loop does not wait for. Sets up @t's shm folder and begins
 * making its metadata file and its channels' files (nothing without
 * --shm-path). 0 or a negative errno with @err set. */
int ust_shm_trace_init(struct trawl_domain_session *s, struct ust_trace *t, const struct ust_app *a,
		       struct trawl_domain_err *err);
/* Channel @c's buffer files CHAN_0.. for @ua's streams into @fds (the
 * caller's once taken): 0; -EINPROGRESS while they are being made (the
 * apps that wait are set up again once they are: apps_chans_ready()); or
 * a negative errno with @err set. */
int ust_shm_chan_fds(struct trawl_domain_session *s, struct ust_trace *t, const struct ust_chan *c,
		     const struct trawl_ustctl_channel_attr *ua, int *fds, struct trawl_domain_err *err);
/* 1 while @c's files in @t are being made. */
int ust_shm_chan_making(const struct ust_trace *t, const struct ust_chan *c);
/* 1 while files of trace @t (resp. of a trace of @s) are being made. */
int ust_shm_trace_making(const struct ust_trace *t);
int ust_shm_making(const struct trawl_domain_session *s);
/* A start: the files that could not be made are tried again. */
void ust_shm_retry(struct trawl_domain_session *s);
/* Before @t is freed: its jobs ended, its fds closed, and the files it
 * made removed (as the owner, off the loop). */
void ust_shm_trace_fini(struct ust_trace *t);
/* The trace's metadata text, @len bytes, into its shm file (if any). */
void ust_shm_metadata(struct ust_trace *t, const char *text, size_t len);
/* Closes and frees @s's per-process traces whose process exited; 1 while
 * one waits (its process, or the consumer), to be called again. */
int trace_release_gone(struct trawl_domain_session *s);

/* ust-app.c: apps in sessions. Commands to apps are queued, never waited
 * for here: apps_barrier() waits when a command must know them applied. */
uint32_t chan_handle(const struct trawl_domain_session *s, const struct ust_chan *c);
int app_sync(struct trawl_domain_session *s, struct app_sess *as,
	     struct trawl_domain_err *err);
int app_setup(struct trawl_domain_session *s, struct ust_app *a,
	      struct trawl_domain_err *err);
struct app_sess *app_sess_of(struct trawl_domain_session *s, const struct ust_app *a);
void app_sess_free(struct trawl_domain_session *s, struct ust_app *a);
/* Sets up what the app added (EVENTS_ADDED) and releases its constructor. */
void app_events_added(struct ust_app *a);
/* The app's TALLY (wire.h): its counts go to the discarded events of the
 * channels that would have recorded them. */
void app_tally(struct ust_app *a, const struct trawl_ustctl_tally_entry *e, uint32_t nr,
	       uint64_t overflow);
/* Tells @a its registration (or addition) is set up, once every channel
 * it needs is ready; else holds that until then (apps_chans_ready()). */
void app_registration_done(struct ust_app *a);
/* Gives apps the live channels that became ready (at the top level). */
void apps_chans_ready(void);
/* 1 while some app waits for a live channel of @s (NULL: of any session). */
int apps_chans_wait(const struct trawl_domain_session *s);
/* The app said no to an ENABLE: the event is off in it. */
void app_enable_failed(struct ust_app *a, uint32_t chan_handle, uint32_t event_index, int err);

/* ust-conn.c: apps' connections */
void apps_accept(int fd, short revents, void *arg);
/* Frees @a now (not inside a loop over apps or sessions: app_fail()). */
void app_gone(struct ust_app *a);
/* A command to @a failed (-errno): marked dead, dropped at the top level. */
void app_fail(struct ust_app *a, int err);
/* Deferred work of nested rounds, dead apps, deadlines of new commands. */
void apps_on_top(void);
/* Commands were queued outside an app's own callback: arm their deadlines. */
void apps_kick(void);
/* A consumer answered while apps wait for live channels: apps_chans_ready()
 * runs at the top level. */
void apps_chans_kick(void);
/* Before a stop: takes the connections waiting to be accepted and what
 * every app has sent (a program's last TALLY), within a bound. Top level. */
void apps_drain(void);
/* ust-conn.c: what dropped apps counted since their drop (their tally
 * memfds, kept until now) is charged to the active sessions, and the
 * memfds closed. Called before a stop's flush. */
void apps_tally_settle(void);
/* Whether a dropped app of pid @pid still has its tally memfd kept (its
 * per-process trace must stay: the settle charges it). */
int app_tally_lingers(pid_t pid);
/* Waits (nested rounds) until every app set up for @s has answered all it
 * was sent, or was dropped for missing its deadline. */
void apps_barrier(struct trawl_domain_session *s);
void apps_close_all(void);

/* domain-ust.c: begins removing (@remove) or making the chunk's ust/
 * folder as the owner: -EINPROGRESS (ust_async_done() goes on with
 * @kind's next step, UST_JOB_*), or its result when it ran in place. */
int ust_job_begin(struct trawl_domain_session *s, int kind, int remove);

/* ust-chunk.c: the domain ops clear, rotate, snapshot_record and
 * snapshot_one_more (domain.h), and the steps of a clear that
 * ust_async_done() takes as the consumer and the owner's jobs answer. */
int ust_clear(struct trawl_domain_session *s, struct trawl_domain_err *err);
int ust_rotate_ready(struct trawl_domain_session *s, const char *chunk,
		     struct trawl_domain_err *err);
int ust_rotate(struct trawl_domain_session *s, const char *chunk, const char *archive,
	       struct trawl_domain_err *err);
int ust_snapshot(struct trawl_domain_session *s, const char *dir, uint64_t nr_packets,
		 struct trawl_domain_err *err);
uint64_t ust_snapshot_one_more(struct trawl_domain_session *s, uint64_t nr);
/* A clear the consumer failed (@msg its line, or ""): @err set, @ret returned. */
int ust_clear_failed(struct trawl_domain_session *s, int ret, const char *msg,
		     struct trawl_domain_err *err);
/* The consumer has cleared: what is left of ust/ goes, a started session goes on. */
int ust_clear_files(struct trawl_domain_session *s, struct trawl_domain_err *err);
/* ust/ removed (@ret its result): the new chunk's ust/ made now or at the next start. */
int ust_clear_removed(struct trawl_domain_session *s, int ret, struct trawl_domain_err *err);
/* A started session's new ust/ made (@ret: or not): the consumer's START. */
int ust_clear_dir_made(struct trawl_domain_session *s, int ret, struct trawl_domain_err *err);

/* ust-status.c: the domain ops list_events, status, status_ask,
 * status_pending, channel_counters, channel_usage and channel_memory
 * (domain.h). */
int ust_list_events(enum trawl_ctl_event_kind kind, int with_fields, trawl_domain_list_cb cb,
		    void *arg, struct trawl_domain_err *err);
int ust_status(struct trawl_domain_session *s, struct trawl_domain_status *st);
int ust_status_ask(struct trawl_domain_session *s);
int ust_status_pending(struct trawl_domain_session *s);
int ust_channel_counters(struct trawl_domain_session *s, const char *channel,
			 uint64_t *discarded, uint64_t *lost_packets);
int ust_channel_usage(struct trawl_domain_session *s, const char *channel, uint64_t *high);
int ust_channel_memory(struct trawl_domain_session *s, const char *channel, uint64_t *resident,
		       uint64_t *size);

#endif
