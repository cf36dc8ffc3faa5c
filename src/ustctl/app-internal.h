/* SPDX-License-Identifier: MIT */
/*
 * app-internal.h - what the files of trawl-ustctl share (private): the
 * channel's insides (ustctl.c) that a CHANNEL command sends (app-cmd.c),
 * and the one way commands go to an app (app.c); an app's handle, shared by
 * app.c and app-input.c (what the app sends).
 */
#ifndef TRAWL_USTCTL_APP_INTERNAL_H
#define TRAWL_USTCTL_APP_INTERNAL_H

#include "ustctl/ustctl.h"
#include "ustabi/wire.h"

#include <stddef.h>
#include <stdint.h>

struct trawl_ustctl_channel {
	struct trawl_ustctl_channel_attr attr;
	int *fds;
	int files; /* regular files (--shm-path), not sealed: any holder of an fd
		      can shrink them, so every access is guarded (ustctl.c) */
	int wake_fd; /* the apps' wake-ups to the consumer (an eventfd), or -1 */
};

/*
 * Sends @cmd (its header is filled here) followed by @extra_len bytes of
 * @extra, with @nr_fds fds (the caller keeps its own: they are dup'ed until
 * sent). On a blocking app: waits for the reply and returns the app's
 * answer (0 or -errno) or a socket error. On an app opened with
 * trawl_ustctl_app_open(): queues it and returns 0 (the reply comes from
 * trawl_ustctl_app_input()), or -EPIPE (the app is gone), -ENOBUFS (it
 * has not taken what was queued: drop it), -ENOMEM.
 */
int trawl_ustctl_app_call(struct trawl_ustctl_app *app, struct trawl_wire_cmd *cmd,
			  const void *extra, size_t extra_len, const int *fds, uint32_t nr_fds);

/* The events the daemon has of @app (refused additions are not counted). */
uint32_t trawl_ustctl_app_claimed(const struct trawl_ustctl_app *app);
/* REGISTRATION_DONE sent: the next addition may come. */
void trawl_ustctl_app_addition_answered(struct trawl_ustctl_app *app);

/* One app's connection (app.c's top comment). */
struct out_msg {
	struct out_msg *next;
	size_t len, off;
	int *fds; /* owned (dup'ed), sent with the first byte; NULL once sent */
	uint32_t nr_fds;
	char data[];
};

struct pending_cmd {
	uint32_t seq, kind, session_handle, chan_handle, event_index;
	uint64_t queued_ms;
};

enum unit { UNIT_NONE, UNIT_REGISTER, UNIT_ADDED };

struct trawl_ustctl_app {
	int fd;
	int async;
	uint32_t seq;
	struct trawl_ustctl_app_info info;
	uint32_t nr_events;
	uint32_t claimed; /* events the app counts (refused additions included) */
	struct trawl_ustctl_event **events; /* each one malloc'd block */
	size_t cap_events;
	/* Events added and not taken yet: [added_first, nr_events). */
	uint32_t added_first;
	int added;
	int notify_fd; /* the caller's eventfd, or -1 (not owned) */
	struct trawl_ustctl_app_limits lim;
	uint64_t bytes; /* charged to lim.max_bytes (and lim.shared_bytes) */
	/* Input (top comment). */
	enum unit unit;
	int registered, refused, refusing, addition_open;
	uint32_t unit_left, unit_first;
	uint64_t unit_start_ms, partial_since_ms;
	char why[128];
	char *in;
	size_t in_cap, in_len, in_off;
	/* The last TALLY's entries (ustctl.h: valid until the next input). */
	struct trawl_ustctl_tally_entry *tally;
	uint32_t nr_tally;
	uint64_t tally_entries; /* every TALLY's, on this connection */
	/* TALLY_SHM (wire.h): an fd received and not yet taken by its message
	 * (at most one), and the memfd taken (at most one a connection). */
	int rx_fd, tally_fd;
	uint32_t tally_nr_max;
	size_t discard_left; /* bytes of the message being dropped still to come */
	/* Output. */
	struct out_msg *out, **out_tail;
	uint64_t out_bytes;
	struct pending_cmd *pend;
	uint32_t pend_head, pend_nr, pend_cap;
};

/* app.c: CLOCK_MONOTONIC in ms. */
uint64_t trawl_ustctl_now_ms(void);
/* Charges @n bytes to @app's budgets: 0, or -EDQUOT (nothing charged). */
int trawl_ustctl_app_charge(struct trawl_ustctl_app *app, uint64_t n);
void trawl_ustctl_app_uncharge(struct trawl_ustctl_app *app, uint64_t n);
/* What a decoded event holds (wire.c's one block, and its slot). */
uint64_t trawl_ustctl_event_bytes(const struct trawl_ustctl_event *ev);
/* Frees (and uncharges) @app's events from index @first on. */
void trawl_ustctl_app_free_events_from(struct trawl_ustctl_app *app, uint32_t first);
/* Frees (and uncharges) the last TALLY's entries. */
void trawl_ustctl_app_tally_free(struct trawl_ustctl_app *app);
/* Frees (and uncharges) the input buffer. */
void trawl_ustctl_app_in_free(struct trawl_ustctl_app *app);

/* The daemon's decoders of an app's messages (wire-decode.c): untrusted input. */
/* A decoded event: one malloc'd block (free() it) holding the event, its
 * fields and its enum entries. */
int trawl_wire_event_decode(const void *buf, size_t len, struct trawl_ustctl_event **ev);
int trawl_wire_register_decode(const void *buf, size_t len, struct trawl_ustctl_app_info *info,
			       uint32_t *nr_events);
/**
 * trawl_wire_events_added_decode - check an EVENTS_ADDED message
 * @buf, @len: the whole message
 * @have: how many events the daemon has for the app already
 * @nr_events: receives how many EVENT messages follow
 *
 * 0, or -EPROTO: bad header, first_index other than @have, no event, or
 * more than TRAWL_WIRE_MAX_EVENTS in all. Untrusted input (fuzz/ustctl).
 */
int trawl_wire_events_added_decode(const void *buf, size_t len, uint32_t have, uint32_t *nr_events);
/**
 * trawl_wire_tally_decode - check a TALLY message
 * @buf, @len: the whole message
 * @entries: receives a malloc'd array (free() it) of *@nr entries, each a
 *           NUL-terminated "provider:event" name, a loglevel 0..14 and a
 *           count 1..TRAWL_WIRE_MAX_TALLY_COUNT
 *
 * 0, -ENOMEM, or -EPROTO: bad header or size, 0 or more than
 * TRAWL_WIRE_MAX_TALLY entries, a reserved field set, a name, loglevel or
 * count out of range. Untrusted input (fuzz/ustctl).
 */
int trawl_wire_tally_decode(const void *buf, size_t len, struct trawl_ustctl_tally_entry **entries,
			    uint32_t *nr);
/* Whether a tally entry (its @name NUL-terminated) is one a TALLY may
 * carry: "provider:event", loglevel 0..14, reserved 0, count
 * 1..TRAWL_WIRE_MAX_TALLY_COUNT. */
int trawl_wire_tally_entry_ok(const char *name, int32_t loglevel, uint32_t reserved, uint64_t count);

#endif
