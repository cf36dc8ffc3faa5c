/* SPDX-License-Identifier: MIT */
/*
 * sessiond.h - the session daemon's internal model, shared by its files.
 *
 * One thread runs everything: main.c's poll loop accepts clients
 * (client.c), reads whole requests without blocking, and hands each to a
 * command handler (cmd-*.c). Handlers update the bookkeeping below and call
 * the domains through struct trawl_domain_ops (domain.h); a domain's own
 * fds (user space: the apps' registration socket) are watched by the same
 * loop through sd_watch_add().
 *
 * Ownership: the daemon owns every session; a session owns its channels, a
 * channel its events and contexts (singly linked lists, newest last).
 */
#ifndef TRAWL_SESSIOND_H
#define TRAWL_SESSIOND_H

#include "ctl/proto.h"
#include "trawl/ctl.h"
#include "sessiond/domain.h"

#include <stdint.h>
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
	enum trawl_ctl_loglevel_type loglevel_type;
	int loglevel;
	int enabled;
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
};

struct sd_session {
	struct sd_session *next;
	uint64_t id;
	char name[TRAWL_CTL_NAME_MAX];
	char output[TRAWL_CTL_PATH_MAX]; /* "" with --no-output; net://HOST:CTRL:DATA when streaming */
	char relay[TRAWL_CTL_PATH_MAX];  /* streaming: the domains' destination (consumerd/output.h), else "" */
	int64_t created;                 /* streaming: creation time, seconds since the epoch */
	char hostname[256];              /* streaming: this host's name, as relayd files it */
	uint64_t relay_token;            /* streaming: random, names the session on relayd */
	int relay_fd;                    /* streaming: owned, the session's connection to relayd; -1 */
	char relay_problem[TRAWL_DOMAIN_ERR_MAX]; /* streaming: "" or why relayd was lost */
	uint32_t live_timer_us;          /* --live: channels' default switch timer; else 0 */
	uid_t uid;
	gid_t gid;
	int snapshot, live;
	int active;       /* started and not stopped */
	int started_once; /* channels and contexts are fixed from then on */
	unsigned snapshot_seq;
	struct sd_domain dom[SD_NR_DOMAINS];
};

/* The peer of one request, from SO_PEERCRED. */
struct sd_peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
};

/* A reply under construction (client.c sends it). */
struct sd_reply {
	int status;                       /* once non-zero, the records are dropped */
	struct trawl_ctl_wire_reply head; /* err, nr_records */
	unsigned char *recs;              /* owned: the records, in wire form */
	size_t len, cap;                  /* bytes of recs used, allocated */
};

struct sessiond {
	int root_daemon;
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

/* Logging: to stderr, or the log file when daemonized. */
void sd_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Sets the reply's status and one-line error; returns @status. */
int sd_fail(struct sd_reply *r, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
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
/* Measures the clock offset again and publishes it in $TRAWL_CLOCK_OFFSET_NS. */
void sd_clock_offset_refresh(void);
void sd_cmd_list_sessions(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_list_session(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
/* Appends @s's SESSION record to @r. */
void sd_session_rec(struct sd_reply *r, const struct sd_session *s);
/* Finds the session @name visible to @p; on failure fills @r and returns NULL. */
struct sd_session *sd_session_lookup(const char *name, const struct sd_peer *p, struct sd_reply *r);
/* Stops (if active) and frees @s, unlinking it from the daemon. */
void sd_session_destroy(struct sd_session *s);

/* relay.c: streaming sessions */
/* 1 if @output is a net:// or net6:// URL. */
int sd_relay_is_url(const char *output);
/* Makes @s stream to @url (checking relayd answers). 0, or fills @r and returns its error. */
int sd_relay_setup(struct sd_session *s, const char *url, uint32_t live_timer_us,
		   struct sd_reply *r);
/* For a streaming session that lost relayd, connects again (at start). 0 or fills @r. */
int sd_relay_check(struct sd_session *s, struct sd_reply *r);
/* For a streaming session that lost relayd: 1 and the line in @msg; else 0. */
int sd_relay_problem(const struct sd_session *s, char *msg, size_t len);
/* Tells relayd the session is over and closes its connection (destroy). */
void sd_relay_end(struct sd_session *s);

/* cmd-channel.c */
void sd_cmd_enable_channel(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_disable_channel(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_enable_event(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_disable_event(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_add_context(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
void sd_cmd_list_available(const struct trawl_ctl_wire_req *req, const struct sd_peer *p, struct sd_reply *r);
/* Frees a channel's events and contexts and the channel. */
void sd_channel_free(struct sd_channel *c);

/* The loop's fd watches (main.c): @cb runs when @fd is readable or hung up. */
typedef void (*sd_watch_cb)(int fd, short revents, void *arg);
int sd_watch_add(int fd, sd_watch_cb cb, void *arg);
void sd_watch_del(int fd);

const char *sd_domain_name(uint32_t domain);

#endif /* TRAWL_SESSIOND_H */
