/* SPDX-License-Identifier: MIT */
/*
 * app-internal.h - what the files of trawl-ustctl share (private): the
 * channel's insides (ustctl.c) that a CHANNEL command sends (app-cmd.c),
 * and the one way commands go to an app (app.c).
 */
#ifndef TRAWL_USTCTL_APP_INTERNAL_H
#define TRAWL_USTCTL_APP_INTERNAL_H

#include "ustctl/ustctl.h"
#include "ustabi/wire.h"

struct trawl_ustctl_channel {
	struct trawl_ustctl_channel_attr attr;
	int *fds;
	int files; /* regular files (--shm-path), not sealed: any holder of an fd
		      can shrink them, so every access is guarded (ustctl.c) */
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
