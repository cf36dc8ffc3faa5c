/* SPDX-License-Identifier: MIT */
/*
 * ust-snapshot.c - the user-space consumer's SNAPSHOT: a session's streams'
 * current packets copied to a snapshot folder or a relayd, the buffers left
 * as they were (a snapshot never consumes them), at most the newest
 * max_packets of each stream when bounded.
 */
#include "common/common.h"
#include "common/log.h"
#include "consumerd/output.h"
#include "consumerd/ust-consumer-internal.h"
#include "ctl/proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A packet kept by a bounded snapshot: a copy of its content. */
struct kept_packet {
	struct trawl_ustctl_packet p;
	void *copy;
};

/*
 * One stream's snapshot (op_snapshot()): made by cmd_snapshot() outside
 * the SIGBUS guard, so that a jump out of it (its buffer file truncated)
 * leaves nothing allocated behind.
 */
struct snap_job {
	struct ctrace *snap;      /* the snapshot's output and the trace's metadata */
	struct trawl_output_stream *st;
	struct kept_packet *ring; /* keep entries, or NULL */
	uint32_t keep;            /* 0: every packet, else the newest this many */
};

/*
 * Writes the ready packets of @cs to @j->st: all of them, or with @j->keep
 * the @keep newest (the older ones are read and skipped: LTTng's --max-size
 * keeps the end of each stream), without consuming any. A packet is copied
 * out of a buffer file its owner can shrink (--shm-path) before any byte
 * of it is written, as ucons_op_drain() does: a SIGBUS then leaves the snapshot
 * with whole packets only. Returns 0 or a negative errno.
 */
static int snapshot_stream(struct snap_job *j, struct cstream *cs)
{
	struct trawl_ustctl_stream *rb = cs->rb;
	struct trawl_ustctl_packet p;
	uint64_t n = 0, i;
	int ret = 0, guard = 1 << 20;

	/* as LTTng: a snapshot leaves the buffers as they were, and the next
	 * one holds these packets again if they were not overwritten */
	trawl_ustctl_stream_snapshot_begin(rb);
	while (guard-- && (ret = trawl_ustctl_stream_get_packet(rb, &p)) != -EAGAIN) {
		if (ret)
			continue;
		if (!j->keep) {
			if (cs->shrinkable && cs->bounce) {
				memcpy(cs->bounce, p.data, p.content_size);
				p.data = cs->bounce;
			}
			ret = ucons_packet_write(j->snap, j->st, &p);
		} else {
			struct kept_packet *k = &j->ring[n % j->keep];
			void *copy = realloc(k->copy, p.content_size ? p.content_size : 1);

			if (copy) {
				k->copy = copy;
				memcpy(copy, p.data, p.content_size);
				k->p = p;
				k->p.data = copy;
				n++;
			}
			ret = copy ? 0 : -ENOMEM;
		}
		trawl_ustctl_stream_put_packet(rb);
		if (ret)
			break;
	}
	trawl_ustctl_stream_snapshot_end(rb);
	if (ret == -EAGAIN)
		ret = 0;
	for (i = n > j->keep ? n - j->keep : 0; j->keep && i < n; i++)
		if (!ret)
			ret = ucons_packet_write(j->snap, j->st, &j->ring[i % j->keep].p);
	return ret;
}

static int op_snapshot(struct stream_op *op)
{
	return snapshot_stream(op->arg, op->cs);
}

/* A stream's snapshot to @st (see snapshot_stream()); @keep: 0 or the newest to keep. */
static int snapshot_one(struct ctrace *t, struct trawl_output *out, struct cchannel *c,
			struct cstream *cs, struct trawl_output_stream *st, uint32_t keep)
{
	struct ctrace snap = {.out = out, .metadata = t->metadata, .metadata_len = t->metadata_len};
	struct snap_job j = {&snap, st, NULL, keep};
	uint32_t i;
	int ret;

	if (keep && !(j.ring = calloc(keep, sizeof(*j.ring))))
		return -ENOMEM;
	ret = ucons_stream_guarded(c, cs, op_snapshot, &j, 0);
	if (cs->broken)
		ret = 0; /* the others go on; ucons_cmd_snapshot() fails after them */
	/* lost packets (a full disk): counted while @st is open */
	trawl_cons_uncounted_settle(&snap.uncounted, snap.metadata, snap.metadata_len, t->path);
	for (i = 0; i < keep; i++)
		free(j.ring[i].copy);
	free(j.ring);
	return ret;
}

/* Writes every snapshot-mode channel's current packets under @dir (at most
 * add_trace.max_packets of each stream, the newest, when not 0). */
int ucons_cmd_snapshot(const struct trawl_cons_hdr *h, const void *payload)
{
	struct trawl_cons_add_trace a;
	struct ctrace *t;
	struct cchannel *c;
	int ret, broken = 0;

	if (h->size != sizeof(a))
		return -EINVAL;
	memcpy(&a, payload, sizeof(a));
	if (!trawl_ctl_str_ok(a.path, sizeof(a.path)) ||
	    (a.path[0] != '/' && !trawl_output_dest_is_relay(a.path)))
		return -EINVAL;
	for (t = ucons_traces; t; t = t->next) {
		char dir[TRAWL_CONS_PATH_LEN * 2 + 16], err[TRAWL_CONS_MSG_LEN];
		const char *rel = strstr(t->path, "/ust/");
		struct trawl_output *out;
		int meta_h = -1;

		if (h->session_key && t->session != h->session_key)
			continue;
		ret = trawl_path_fmt(dir, sizeof(dir), "%s%s", a.path, rel ? rel : "/ust");
		if (ret)
			return ret;
		ret = trawl_output_create(dir, (uid_t)-1, (gid_t)-1, &out, err, sizeof(err));
		if (ret) {
			trawl_log(TRAWL_LOG_ERROR, "snapshot: %s", err);
			trawl_msg_fmt(ucons_last_error, sizeof(ucons_last_error), "%s", err);
			ucons_last_error_session = h->session_key;
			return ret;
		}
		if (t->metadata)
			ret = ucons_metadata_write(t, out, &meta_h);
		for (c = ucons_channels; c && !ret; c = c->next) {
			uint32_t i;

			if (c->trace_key != t->key)
				continue;
			for (i = 0; i < c->nr && !ret; i++) {
				struct cstream *cs = &c->streams[i];
				struct trawl_output_stream *st;
				char name[300];

				ucons_stream_flush(c, cs, 0);
				st = trawl_path_fmt(name, sizeof(name), "%s_%u", c->info.name, i)
					     ? (errno = ENAMETOOLONG, NULL)
					     : trawl_output_stream_open(out, name, cs->instance_id);
				if (!st) {
					ret = -errno;
					break;
				}
				ret = snapshot_one(t, out, c, cs, st, a.max_packets);
				trawl_output_stream_close(st);
			}
		}
		/* relayd confirms what it wrote (a PING): what it did not is lost, and said */
		if (!ret)
			trawl_output_sync(out);
		if (!ret && trawl_output_broken(out, err, sizeof(err))) {
			trawl_log(TRAWL_LOG_ERROR, "snapshot: %s", err);
			trawl_msg_fmt(ucons_last_error, sizeof(ucons_last_error), "%s", err);
			ucons_last_error_session = h->session_key;
			ret = -trawl_output_errno(out);
		}
		trawl_output_destroy(out);
		if (ret)
			return ret;
		broken |= t->broken != 0;
	}
	/* every other stream is in the snapshot, whole; the reply's line says
	 * which were abandoned (session_failure()), now or before */
	return broken ? -EFAULT : 0;
}
