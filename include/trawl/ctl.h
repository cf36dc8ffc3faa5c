/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ctl.h> - the public control API of trawl (libtrawl-ctl).
 *
 * Every `trawl` subcommand is a call of this API. A program connects to a
 * session daemon, then creates sessions, channels, event rules and contexts,
 * starts and stops tracing, and lists what exists.
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
 * After a failed call, trawl_ctl_last_error() gives the daemon's one-line
 * explanation when it sent one.
 *
 * Ownership: objects returned through `**out` are the caller's, freed with the
 * matching *_destroy / trawl_ctl_disconnect. Strings returned by accessors
 * belong to the object they came from.
 *
 * Thread safety: one struct trawl_ctl must not be used by two threads at once;
 * separate connections are independent.
 */
#ifndef TRAWL_CTL_H
#define TRAWL_CTL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct trawl_ctl;              /* a connection to a session daemon */
struct trawl_ctl_channel_attr; /* a channel's name and attributes */
struct trawl_ctl_event;        /* an event rule */
struct trawl_ctl_list;         /* a list of items returned by a daemon */

enum trawl_ctl_domain {
	TRAWL_CTL_DOMAIN_NONE = 0,
	TRAWL_CTL_DOMAIN_KERNEL = 1,
	TRAWL_CTL_DOMAIN_UST = 2,
};

enum trawl_ctl_event_kind {
	TRAWL_CTL_EVENT_TRACEPOINT = 0,
	TRAWL_CTL_EVENT_SYSCALL = 1,
	TRAWL_CTL_EVENT_PROBE = 2,           /* target: SYM[+OFF] or 0xADDR */
	TRAWL_CTL_EVENT_FUNCTION = 3,        /* target: SYM */
	TRAWL_CTL_EVENT_USERSPACE_PROBE = 4, /* target: elf:PATH:SYMBOL */
};

enum trawl_ctl_loglevel_type {
	TRAWL_CTL_LOGLEVEL_ALL = 0,
	TRAWL_CTL_LOGLEVEL_RANGE = 1,  /* this level or more severe */
	TRAWL_CTL_LOGLEVEL_SINGLE = 2, /* exactly this level */
};

/* trawl_ctl_connect() flags */
#define TRAWL_CTL_CONNECT_NO_SPAWN 0x1u /* fail with -ENOTCONN rather than start a daemon */
#define TRAWL_CTL_CONNECT_USER 0x2u     /* the user's own daemon even if root's is usable */

/*
 * trawl_ctl_connect - connects to the session daemon this user should use,
 * starting the user's daemon (trawl-sessiond, found beside the program or in
 * ../libexec/trawl/) when none runs. Honours $TRAWL_RUNTIME_DIR and
 * $TRAWL_ROOT_RUNTIME_DIR. On success *out is the caller's (free with
 * trawl_ctl_disconnect). Returns 0, -ENOTCONN or -EACCES.
 */
int trawl_ctl_connect(struct trawl_ctl **out, unsigned flags);

/* Closes the connection and frees @ctl. NULL is a no-op. */
void trawl_ctl_disconnect(struct trawl_ctl *ctl);

/* 1 if @ctl talks to the root daemon (which may trace the kernel). */
int trawl_ctl_is_root_daemon(const struct trawl_ctl *ctl);

/* The daemon's one-line explanation of the last failure, or "". Owned by @ctl. */
const char *trawl_ctl_last_error(const struct trawl_ctl *ctl);

/* trawl_ctl_session_create() flags */
#define TRAWL_CTL_CREATE_SNAPSHOT 0x1u  /* flight recorder: channels default to overwrite */
#define TRAWL_CTL_CREATE_LIVE 0x2u
#define TRAWL_CTL_CREATE_NO_OUTPUT 0x10u

/*
 * trawl_ctl_session_create - creates a session. @name NULL: the daemon names
 * it auto-YYYYMMDD-HHMMSS. @output NULL: ~/trawl-traces/<name>-<YYYYMMDD>-<HHMMSS>/.
 * @output may also be net://HOST[:CTRLPORT[:DATAPORT]] (or net6://): the
 * session streams to trawl-relayd there (-ECONNREFUSED... if it does not
 * answer, with the address in trawl_ctl_last_error()).
 * The session's name and trace folder are written into @name_out and
 * @path_out (either may be NULL). Returns 0, -EEXIST, -EINVAL...
 */
int trawl_ctl_session_create(struct trawl_ctl *ctl, const char *name, const char *output,
			     unsigned flags, char *name_out, size_t name_len, char *path_out,
			     size_t path_len);

/*
 * trawl_ctl_session_create_live - creates a live session: it streams to
 * trawl-relayd at @url (NULL: net://127.0.0.1) and its channels close
 * partial packets every @live_timer_us (0: 1000000) so that live viewers
 * see events within about that time. Otherwise as trawl_ctl_session_create().
 */
int trawl_ctl_session_create_live(struct trawl_ctl *ctl, const char *name, const char *url,
				  uint32_t live_timer_us, char *name_out, size_t name_len,
				  char *path_out, size_t path_len);

/* Destroys a session (stopping it first, data flushed). */
int trawl_ctl_session_destroy(struct trawl_ctl *ctl, const char *session);
/* Destroys every session this user can see. */
int trawl_ctl_session_destroy_all(struct trawl_ctl *ctl);

int trawl_ctl_session_start(struct trawl_ctl *ctl, const char *session);
/* Returns once every event recorded so far is on disk. */
int trawl_ctl_session_stop(struct trawl_ctl *ctl, const char *session);

/*
 * trawl_ctl_snapshot_record - writes the current content of the session's
 * buffers as a trace; its folder goes into @path_out (may be NULL).
 */
int trawl_ctl_snapshot_record(struct trawl_ctl *ctl, const char *session, char *path_out,
			      size_t path_len);

/*
 * Channel attributes. _create returns NULL on ENOMEM; the object is the
 * caller's (trawl_ctl_channel_attr_destroy). Unset attributes take the
 * domain's defaults. Sizes are bytes; timers microseconds.
 */
struct trawl_ctl_channel_attr *trawl_ctl_channel_attr_create(const char *name);
void trawl_ctl_channel_attr_destroy(struct trawl_ctl_channel_attr *attr);
int trawl_ctl_channel_attr_set_subbuf_size(struct trawl_ctl_channel_attr *attr, uint64_t bytes);
int trawl_ctl_channel_attr_set_num_subbuf(struct trawl_ctl_channel_attr *attr, uint32_t num);
int trawl_ctl_channel_attr_set_overwrite(struct trawl_ctl_channel_attr *attr, int overwrite);
int trawl_ctl_channel_attr_set_switch_timer(struct trawl_ctl_channel_attr *attr, uint32_t us);
int trawl_ctl_channel_attr_set_read_timer(struct trawl_ctl_channel_attr *attr, uint32_t us);
int trawl_ctl_channel_attr_set_buffers_pid(struct trawl_ctl_channel_attr *attr, int per_pid);

/* Creates (or re-enables) a channel of @session in @domain. */
int trawl_ctl_channel_enable(struct trawl_ctl *ctl, const char *session,
			     enum trawl_ctl_domain domain, const struct trawl_ctl_channel_attr *attr);
int trawl_ctl_channel_disable(struct trawl_ctl *ctl, const char *session,
			      enum trawl_ctl_domain domain, const char *channel);

/*
 * Event rules. @name: an event name or a pattern with '*' ("*" = all). The
 * object is the caller's (trawl_ctl_event_destroy); NULL on ENOMEM.
 */
struct trawl_ctl_event *trawl_ctl_event_create(enum trawl_ctl_event_kind kind, const char *name);
void trawl_ctl_event_destroy(struct trawl_ctl_event *ev);
int trawl_ctl_event_set_target(struct trawl_ctl_event *ev, const char *target);
int trawl_ctl_event_set_filter(struct trawl_ctl_event *ev, const char *filter);
int trawl_ctl_event_set_loglevel(struct trawl_ctl_event *ev, enum trawl_ctl_loglevel_type type,
				 int level);

/*
 * Enables @ev in @channel (NULL: the domain's default channel, created on
 * demand). -EEXIST if the same rule is enabled already.
 */
int trawl_ctl_event_enable(struct trawl_ctl *ctl, const char *session,
			   enum trawl_ctl_domain domain, const char *channel,
			   const struct trawl_ctl_event *ev);
/* Disables the rule with @ev's kind and name; "*" with kind tracepoint disables all. */
int trawl_ctl_event_disable(struct trawl_ctl *ctl, const char *session,
			    enum trawl_ctl_domain domain, const char *channel,
			    const struct trawl_ctl_event *ev);

/*
 * trawl_ctl_context_add - adds a context field ("pid", "procname",
 * "perf:thread:page-faults", ...) to every event of @channel (NULL: every
 * channel of the domain), before the session first starts.
 */
int trawl_ctl_context_add(struct trawl_ctl *ctl, const char *session,
			  enum trawl_ctl_domain domain, const char *channel, const char *context);

/* Item kinds in a struct trawl_ctl_list. */
enum trawl_ctl_item_kind {
	TRAWL_CTL_ITEM_SESSION = 1,   /* name; text: trace folder; value 0: active, 1: snapshot, 2: uid */
	TRAWL_CTL_ITEM_DOMAIN = 2,    /* domain; value 0: consumer alive, 1: discarded, 2: bytes; text: problem */
	TRAWL_CTL_ITEM_CHANNEL = 3,   /* name, enabled; value 0: subbuf size, 1: num subbuf,
					 2: overwrite, 3: switch timer, 4: read timer, 5: per-pid */
	TRAWL_CTL_ITEM_EVENT = 4,     /* name, enabled, event kind, loglevel (value 0: its type);
					 text: filter; text2: target */
	TRAWL_CTL_ITEM_CONTEXT = 5,   /* name; of the channel listed before it */
	TRAWL_CTL_ITEM_AVAILABLE = 6, /* name, event kind, loglevel; value 0: pid offering it */
	TRAWL_CTL_ITEM_FIELD = 7,     /* name; text: type; of the AVAILABLE item before it */
};

/* Sessions this user can see. *out is the caller's (trawl_ctl_list_destroy). */
int trawl_ctl_list_sessions(struct trawl_ctl *ctl, struct trawl_ctl_list **out);
/* One session: its SESSION item, then per domain a DOMAIN item followed by
 * its channels, each followed by its contexts and events. */
int trawl_ctl_list_session(struct trawl_ctl *ctl, const char *session,
			   struct trawl_ctl_list **out);
/* Events @domain offers (@kind: tracepoints or syscalls), with FIELD items if @fields. */
int trawl_ctl_list_available(struct trawl_ctl *ctl, enum trawl_ctl_domain domain,
			     enum trawl_ctl_event_kind kind, int fields,
			     struct trawl_ctl_list **out);

void trawl_ctl_list_destroy(struct trawl_ctl_list *list);
size_t trawl_ctl_list_count(const struct trawl_ctl_list *list);
/* Accessors; @i < trawl_ctl_list_count(). Strings are owned by @list. */
enum trawl_ctl_item_kind trawl_ctl_list_kind(const struct trawl_ctl_list *list, size_t i);
enum trawl_ctl_domain trawl_ctl_list_domain(const struct trawl_ctl_list *list, size_t i);
const char *trawl_ctl_list_name(const struct trawl_ctl_list *list, size_t i);
const char *trawl_ctl_list_text(const struct trawl_ctl_list *list, size_t i);
const char *trawl_ctl_list_text2(const struct trawl_ctl_list *list, size_t i);
int trawl_ctl_list_enabled(const struct trawl_ctl_list *list, size_t i);
enum trawl_ctl_event_kind trawl_ctl_list_event_kind(const struct trawl_ctl_list *list, size_t i);
int trawl_ctl_list_loglevel(const struct trawl_ctl_list *list, size_t i);
/* Numeric value @k (0..5) of item @i, as listed for each kind above. */
uint64_t trawl_ctl_list_value(const struct trawl_ctl_list *list, size_t i, unsigned k);

/*
 * The current session, remembered per user in $HOME/.trawlrc (as LTTng's
 * ~/.lttngrc). _get writes it into @buf; -ENOENT when none is set.
 */
int trawl_ctl_current_session_get(char *buf, size_t len);
int trawl_ctl_current_session_set(const char *name);
/* Forgets the current session if it is @name (after destroy). */
int trawl_ctl_current_session_clear(const char *name);

/* Asks the daemon to exit (only its owner or root may). */
int trawl_ctl_daemon_quit(struct trawl_ctl *ctl);

/* "0.1.0". Static storage. */
const char *trawl_ctl_version(void);

/* LTTng's loglevel names: "TRACE_EMERG" .. "TRACE_DEBUG" (also without the
 * TRACE_ prefix, any case) to 0..14; -EINVAL if unknown. */
int trawl_ctl_loglevel_parse(const char *name);
/* 0..14 to "TRACE_EMERG".."TRACE_DEBUG"; NULL if out of range. */
const char *trawl_ctl_loglevel_name(int level);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTL_H */
