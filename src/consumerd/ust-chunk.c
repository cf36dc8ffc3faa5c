/* SPDX-License-Identifier: MIT */
/*
 * ust-chunk.c - the user-space consumer's CLEAR and ROTATE: a trace's files
 * end (discarded, or archived as a trace chunk) and maybe begin again, and
 * a trace detached while its session is stopped is attached again at START.
 */
#include "common/common.h"
#include "common/log.h"
#include "consumerd/output.h"
#include "consumerd/ust-consumer-internal.h"
#include "ctl/proto.h"
#include "relayd/proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- clear and rotate: a trace's files end, and maybe begin again ---- */

/* Closes the streams of @t's channels, and forgets its metadata's. */
static void trace_close_streams(struct ctrace *t)
{
	struct cchannel *c;
	uint32_t i;

	ucons_trace_uncounted_settle(t);
	for (c = ucons_channels; c; c = c->next) {
		if (c->trace != t)
			continue;
		for (i = 0; i < c->nr; i++) {
			trawl_output_stream_close(c->streams[i].out);
			c->streams[i].out = NULL;
		}
	}
	t->meta_h = -1;
}

/* Closes @t's files (@remove: and deletes them); @t is detached then. 0 or -errno. */
static int trace_detach(struct ctrace *t, int remove)
{
	int ret = 0;

	trace_close_streams(t);
	if (remove)
		ret = trawl_output_destroy_remove(t->out);
	else
		trawl_output_destroy(t->out);
	t->out = NULL;
	return ret;
}

/* A detached @t's files made again at t->path: the metadata, a new file per stream. */
int ucons_trace_attach(struct ctrace *t)
{
	char err[TRAWL_CONS_MSG_LEN], name[300];
	struct cchannel *c;
	uint32_t i;
	int ret;

	if (t->out || ucons_trace_snapshot_only(t->path))
		return 0;
	ret = trawl_output_create_reconnecting(t->path, (uid_t)-1, (gid_t)-1, &t->out, err,
					       sizeof(err));
	if (ret) {
		t->out = NULL;
		trawl_log(TRAWL_LOG_ERROR, "%s", err);
		trawl_msg_fmt(ucons_last_error, sizeof(ucons_last_error), "%s", err);
		ucons_last_error_session = t->session;
		return ret;
	}
	trawl_output_count_events(t->out, ucons_trace_packet_events, t);
	if (t->metadata && (ret = ucons_metadata_write(t, t->out, &t->meta_h)) < 0)
		return ret;
	for (c = ucons_channels; c; c = c->next) {
		if (c->trace != t || c->info.snapshot_mode)
			continue;
		for (i = 0; i < c->nr; i++) {
			struct cstream *cs = &c->streams[i];

			ret = trawl_path_fmt(name, sizeof(name), "%s_%u", c->info.name, i);
			if (ret)
				return ret;
			cs->out = trawl_output_stream_open_split(t->out, name, cs->instance_id,
								 c->info.tracefile_size,
								 c->info.tracefile_count);
			if (!cs->out)
				return -errno;
			cs->untaken = 0; /* files of its own: what it lost was said by the rotation */
		}
	}
	t->untaken = 0;
	t->untaken_packets = t->untaken_events = 0;
	t->untaken_unknown = 0;
	return 0;
}

/* 1 if @t traces for a started session: a channel of it is not paused (or it has none yet). */
static int trace_running(const struct ctrace *t)
{
	const struct cchannel *c;
	int any = 0;

	for (c = ucons_channels; c; c = c->next) {
		if (c->trace != t || c->info.snapshot_mode)
			continue;
		if (!c->paused)
			return 1;
		any = 1;
	}
	return !any;
}

/* Throws away what @cs's ring buffer holds now (its current packet closed first). */
static int op_discard(struct stream_op *op)
{
	struct cstream *cs = op->cs;
	struct trawl_ustctl_packet p;
	int ret, guard = 1 << 20, tries;

	for (tries = 0; tries < 64; tries++) {
		if (trawl_ustctl_stream_flush(cs->rb, 0) != -EAGAIN)
			break;
		while ((ret = trawl_ustctl_stream_get_packet(cs->rb, &p)) == 0 || ret == -EPROTO)
			if (!ret) {
				ucons_stream_seq_seen(cs, p.packet_seq_num);
				trawl_ustctl_stream_put_packet(cs->rb);
			}
	}
	while (guard--) {
		ret = trawl_ustctl_stream_get_packet(cs->rb, &p);
		if (ret == -EPROTO)
			continue;
		if (ret)
			return 0;
		ucons_stream_seq_seen(cs, p.packet_seq_num);
		trawl_ustctl_stream_put_packet(cs->rb);
	}
	return 0;
}

/* 1 if @t writes files: a channel of it is not in snapshot mode (or it has none yet). */
static int trace_writes(const struct ctrace *t)
{
	const struct cchannel *c;
	int any = 0;

	for (c = ucons_channels; c; c = c->next) {
		if (c->trace != t)
			continue;
		if (!c->info.snapshot_mode)
			return 1;
		any = 1;
	}
	return !any;
}

int ucons_cmd_clear(uint64_t session)
{
	struct cchannel *c;
	struct ctrace *t;
	int ret = 0, r;

	if (!session)
		return -EINVAL;
	for (c = ucons_channels; c; c = c->next) {
		uint32_t i;

		if (c->session != session)
			continue;
		for (i = 0; i < c->nr; i++)
			ucons_stream_guarded(c, &c->streams[i], op_discard, NULL, 0);
	}
	/* the files go; the traces get new ones at the next START (the
	 * session daemon sends one at once to a started session) */
	for (t = ucons_traces; t; t = t->next) {
		if (t->session != session || !t->out || !trace_writes(t))
			continue;
		r = trace_detach(t, 1);
		if (r && !ret) {
			ucons_log("clearing", t->path, -r);
			ret = r;
		}
	}
	return ret;
}

/* @c's streams: the current packet closed and everything written (the chunk ends). */
static void channel_flush_chunk(struct cchannel *c)
{
	uint32_t i;
	int tries;

	for (i = 0; i < c->nr; i++) {
		struct cstream *cs = &c->streams[i];

		for (tries = 0; tries < 64; tries++) {
			if (ucons_stream_flush(c, cs, 0) != -EAGAIN)
				break;
			ucons_stream_drain(c, cs);
		}
		ucons_stream_drain(c, cs);
	}
}

/*
 * A streamed trace's chunk that ended goes to @archive@suffix on relayd
 * (its streams closed first; the trace is detached next). 0 or -errno: a
 * failure that broke the output is said by session_failure(), another in
 * last_error.
 */
static int trace_archive(struct ctrace *t, const char *archive, const char *suffix)
{
	char to[TRAWL_RELAY_PATH_LEN];
	int ret;

	trace_close_streams(t);
	ret = trawl_path_fmt(to, sizeof(to), "%s%s", archive, suffix);
	if (!ret)
		ret = trawl_output_archive(t->out, to);
	/* (said by the archive's path: t->path, a relay destination, holds the token) */
	if (ret && !trawl_output_broken(t->out, NULL, 0)) {
		trawl_msg_fmt(ucons_last_error, sizeof(ucons_last_error),
			      "cannot archive the trace chunk in %s on trawl-relayd: %s", to,
			      strerror(-ret));
		ucons_last_error_session = t->session;
	}
	if (ret)
		ucons_log("archiving the trace chunk in", to, -ret);
	return ret;
}

/*
 * The chunk that ends is written and archived, the session's traces go on
 * in the new one. 0 or -errno; @msg (@len bytes) gets the line of what
 * the ended chunk lost: the reply says it before the new chunk's state
 * (its output, made again, has lost nothing yet).
 */
int ucons_cmd_rotate(const struct trawl_cons_hdr *h, const void *payload, char *msg, size_t len)
{
	struct trawl_cons_rotate a;
	struct cchannel *c;
	struct ctrace *t;
	char why[TRAWL_CONS_MSG_LEN] = "";
	size_t old_len;
	int ret = 0, r, relay;

	if (h->size != sizeof(a) || !h->session_key)
		return -EINVAL;
	memcpy(&a, payload, sizeof(a));
	if (!trawl_ctl_str_ok(a.old_root, sizeof(a.old_root)) ||
	    !trawl_ctl_str_ok(a.new_root, sizeof(a.new_root)) ||
	    !trawl_ctl_str_ok(a.archive, sizeof(a.archive)))
		return -EINVAL;
	relay = trawl_output_dest_is_relay(a.old_root);
	/* both local folders, or both relay destinations with an archive name */
	if (relay ? !trawl_output_dest_is_relay(a.new_root) || strncmp(a.archive, "archives/", 9)
		  : a.old_root[0] != '/' || a.new_root[0] != '/' || a.archive[0])
		return -EINVAL;
	old_len = strlen(a.old_root);
	for (t = ucons_traces; t; t = t->next) {
		if (t->session != h->session_key)
			continue;
		if (strncmp(t->path, a.old_root, old_len) || t->path[old_len] != '/' ||
		    strlen(a.new_root) + strlen(t->path + old_len) >= sizeof(t->path) ||
		    strlen(a.archive) + strlen(t->path + old_len) >= TRAWL_RELAY_PATH_LEN)
			return -EINVAL;
	}
	for (t = ucons_traces; t; t = t->next) {
		char path[TRAWL_CONS_PATH_LEN];
		int running;

		if (t->session != h->session_key)
			continue;
		running = trace_running(t);
		if (t->out) {
			for (c = ucons_channels; c; c = c->next)
				if (c->trace == t && !c->info.snapshot_mode && !c->paused)
					channel_flush_chunk(c);
			trawl_output_sync(t->out);
			trawl_output_seal(t->out);
			if (relay && (r = trace_archive(t, a.archive, t->path + old_len)) && !ret)
				ret = r;
			/* what the chunk lost (relayd gone: the packets it never
			 * confirmed) is the line, before the new chunk's problems */
			r = ucons_session_failure(t->session, why[0] ? NULL : why, sizeof(why));
			if (r && !ret)
				ret = r;
			trace_detach(t, 0);
		}
		if (trawl_path_fmt(path, sizeof(path), "%s%s", a.new_root, t->path + old_len))
			continue; /* checked above: cannot happen */
		memcpy(t->path, path, sizeof(t->path));
		if (running && (r = ucons_trace_attach(t)) && !ret)
			ret = r;
	}
	if (why[0]) {
		trawl_msg_fmt(ucons_last_error, sizeof(ucons_last_error), "%s", why);
		ucons_last_error_session = h->session_key;
		trawl_msg_fmt(msg, len, "%s", why);
	}
	return ret;
}
