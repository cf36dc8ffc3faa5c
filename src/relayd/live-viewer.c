/* SPDX-License-Identifier: MIT */
/*
 * live-viewer.c - one live viewer's connection to trawl-relayd (live.c runs
 * its thread: live_viewer_main()): LTTng's live protocol 2.4 requests read
 * and answered, the sessions it attached to, and what it was told of each
 * trace and stream.
 *
 * What a viewer is told, per stream (GET_NEXT_INDEX):
 *   - the next whole index entry it has not had, if any (OK);
 *   - else, once the session is closed, HUP: the writer promised no more;
 *   - else INACTIVE with a time up to which the stream is known to hold no
 *     more data, so that babeltrace2, which merges streams by time, can go
 *     on with the others instead of waiting for this one. In a live session
 *     both consumers cut an empty packet on quiet streams every period (a
 *     beacon, as LTTng's live timer sends): then the stream's last packet
 *     end is the exact time (live-quiet.c). Otherwise (traces written
 *     without beacons, kernel perf channels) nothing on disk says when a quiet
 *     stream's next event will be, so the time is derived:
 *     the writer flushes partial packets every live timer period, so an event
 *     older than one period plus a margin for the consumer, the network and
 *     the relay's writes (live-quiet.c) is on disk by now. "Now" is our
 *     CLOCK_MONOTONIC when the trace's clock is it (trawl names its clock by
 *     the boot id and ticks at 1 GHz), else the latest packet end among the
 *     trace's streams. Never less than the stream's last packet end, never
 *     less than the last time given; for a stream the viewer had nothing
 *     about, never less than what it may have shown already; and not past
 *     the appearance of a stream or trace the viewer was not told of yet
 *     (babeltrace2 learns of new streams only with a packet index, and
 *     packets are held back while a new trace has no metadata yet).
 *     Should data come later than promised,
 *     babeltrace2 stops with an error ("timestamp is less than ... last
 *     returned"): the margin trades latency for that risk. With beacons
 *     the derived time is only a fallback, twice as far behind.
 *   The time moves in steps of a quarter period: told the same time again,
 *   babeltrace2 sleeps before asking again rather than spinning.
 * Flags: NEW_STREAM when the session has streams the viewer was not told
 * of, NEW_METADATA when its trace's metadata grew past what the viewer has.
 * GET_PACKET refuses (ERR + NEW_METADATA, as lttng-relayd does) until the
 * viewer has fetched the metadata: babeltrace2 then fetches it and retries.
 *
 * Every stream is served from its first packet, whatever seek the viewer
 * asks for at attach time.
 */
#include "relayd/live-internal.h"
#include "common/io.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PACKET_REPLY (64u << 20) /* bytes of one GET_PACKET reply */

/* ---- I/O ---- */

/* The viewer's reply buffer, at least @len bytes, zeroed when @zero (wire
 * structs: no stale bytes go out in their padding or strings' tails). */
static char *reply_buf(struct viewer *v, size_t len, int zero)
{
	if (len > v->buf_cap) {
		char *b = realloc(v->buf, len);

		if (!b)
			return NULL;
		v->buf = b;
		v->buf_cap = len;
	}
	if (zero)
		memset(v->buf, 0, len);
	return v->buf;
}

void live_put_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* ---- attachments ---- */

/* Grows @a's per-stream and per-trace arrays to the session's. Session lock held. */
static int attach_sync(struct vattach *a)
{
	struct live_session *s = a->s;

	if (s->nr_streams > a->nr_vs) {
		struct vstream *vs = realloc(a->vs, s->nr_streams * sizeof(*vs));

		if (!vs)
			return -ENOMEM;
		memset(vs + a->nr_vs, 0, (s->nr_streams - a->nr_vs) * sizeof(*vs));
		a->vs = vs;
		a->nr_vs = s->nr_streams;
	}
	if (s->nr_traces > a->nr_vt) {
		struct vtrace *vt = realloc(a->vt, s->nr_traces * sizeof(*vt));

		if (!vt)
			return -ENOMEM;
		memset(vt + a->nr_vt, 0, (s->nr_traces - a->nr_vt) * sizeof(*vt));
		a->vt = vt;
		a->nr_vt = s->nr_traces;
	}
	return 0;
}

static size_t trace_index(const struct live_session *s, const struct live_trace *t)
{
	size_t i;

	for (i = 0; i < s->nr_traces && s->traces[i] != t; i++)
		;
	return i;
}

/*
 * Whether trace @i of @a's session may be told to the viewer: its metadata is
 * usable and it has a data stream. babeltrace2 2.0 drops a trace that has
 * no stream iterator at its next message (all its streams "ended"), and with
 * it the metadata; data streams announced later then make a trace without
 * metadata, and the viewer asks for new streams for ever (a busy loop, no
 * event shown). So a trace's metadata stream goes out in the same reply as
 * its first data streams, as lttng-relayd publishes a channel's streams
 * together. Session lock held.
 */
static int trace_ready(const struct vattach *a, size_t i)
{
	const struct live_trace *t = a->s->traces[i];

	if (i < a->nr_vt && a->vt[i].announced)
		return 1;
	return t->scan.usable && t->nr_streams; /* (O(1): asked per stream, per request) */
}

/* Whether stream @i may be told to the viewer (its trace is, or goes with it). */
static int stream_ready(const struct vattach *a, size_t i)
{
	const struct live_session *s = a->s;

	return trace_ready(a, trace_index(s, s->streams[i]->trace));
}

/* Streams (metadata ones included) not yet told to the viewer that may be. Session lock held. */
static size_t unannounced(const struct vattach *a)
{
	const struct live_session *s = a->s;
	size_t i, n = 0;

	for (i = 0; i < s->nr_traces; i++)
		if (!a->vt[i].announced && trace_ready(a, i))
			n++;
	for (i = 0; i < s->nr_streams; i++)
		if (!a->vs[i].announced && stream_ready(a, i))
			n++;
	return n;
}

static void wire_stream(struct live_wire_stream *w, uint64_t id, const struct live_trace *t, int md,
			const char *name)
{
	w->id = htobe64(id);
	w->ctf_trace_id = htobe64(t->id);
	w->metadata_flag = htobe32(md ? 1 : 0);
	live_put_str(w->path_name, sizeof(w->path_name), t->rel);
	live_put_str(w->channel_name, sizeof(w->channel_name), name);
}

/*
 * The latest time the viewer may have shown so far: babeltrace2 merges
 * streams by time, so it cannot have gone past any stream it knows of
 * further than that stream's latest packet end or quiet time, or, for one
 * it was told nothing about yet, than what it may have shown before it
 * learnt of it, in our CLOCK_MONOTONIC's ns. 0: nothing. Streams of traces
 * on another clock are not compared. Session lock held.
 */
static uint64_t announce_floor(const struct vattach *a)
{
	const struct live_session *s = a->s;
	uint64_t shown = UINT64_MAX;
	size_t i;

	for (i = 0; i < a->nr_vs && i < s->nr_streams; i++) {
		const struct vstream *o = &a->vs[i];
		uint64_t t = o->last_end > o->beacon ? o->last_end : o->beacon;

		if (!o->announced || !s->streams[i]->trace->clock_local)
			continue;
		/* in our CLOCK_MONOTONIC's ns: traces of other frequencies compared */
		t = live_trace_to_ns(s->streams[i]->trace, t);
		if (t < o->floor)
			t = o->floor;
		if (t < shown)
			shown = t;
	}
	return shown == UINT64_MAX ? 0 : shown;
}

/*
 * Replies to ATTACH_SESSION or GET_NEW_STREAMS with @status and the streams
 * the viewer was not told of, each trace's metadata stream first.
 * Session lock held.
 */
static int send_streams(struct viewer *v, struct vattach *a, uint32_t status, size_t n)
{
	struct live_session *s = a->s;
	size_t len = sizeof(struct live_wire_streams_reply) + n * sizeof(struct live_wire_stream);
	struct live_wire_streams_reply *r;
	struct live_wire_stream *w;
	size_t i, k = 0;
	char *b = reply_buf(v, len, 1);
	uint64_t floor = announce_floor(a);

	if (!b)
		return -1;
	r = (struct live_wire_streams_reply *)b;
	w = (struct live_wire_stream *)(b + sizeof(*r));
	/* (@n counted what is ready: whatever is sent below stays ready) */
	for (i = 0; i < s->nr_traces && k < n; i++) {
		if (a->vt[i].announced || !trace_ready(a, i))
			continue;
		wire_stream(&w[k++], s->traces[i]->md_stream_id, s->traces[i], 1, "metadata");
		a->vt[i].announced = 1;
	}
	for (i = 0; i < s->nr_streams && k < n; i++) {
		if (a->vs[i].announced || !stream_ready(a, i))
			continue;
		wire_stream(&w[k++], s->streams[i]->id, s->streams[i]->trace, 0, s->streams[i]->name);
		a->vs[i].announced = 1;
		a->vs[i].floor = floor;
	}
	r->status = htobe32(status);
	r->streams_count = htobe32((uint32_t)k);
	return trawl_io_send_all(v->fd, b, sizeof(*r) + k * sizeof(*w));
}

static struct vattach *attach_find(struct viewer *v, uint64_t session_id)
{
	size_t i;

	for (i = 0; i < v->nr_at; i++)
		if (v->at[i].s->id == session_id)
			return &v->at[i];
	return NULL;
}

static void attach_drop(struct viewer *v, struct vattach *a)
{
	struct relay_live *rl = v->rl;
	struct live_session *s = a->s;

	pthread_mutex_lock(&rl->lock);
	s->clients--;
	pthread_mutex_unlock(&rl->lock);
	free(a->vs);
	free(a->vt);
	*a = v->at[--v->nr_at];
	live_session_put(rl, s);
}

/* Finds data stream @id among @v's sessions: its attachment and index. */
static struct live_stream *stream_find(struct viewer *v, uint64_t id, struct vattach **ap, size_t *idx)
{
	size_t i, j;

	for (i = 0; i < v->nr_at; i++) {
		struct live_session *s = v->at[i].s;
		struct live_stream *st = NULL;

		pthread_mutex_lock(&s->lock);
		for (j = 0; j < s->nr_streams && j < v->at[i].nr_vs; j++) {
			if (s->streams[j]->id == id && v->at[i].vs[j].announced) {
				st = s->streams[j];
				break;
			}
		}
		pthread_mutex_unlock(&s->lock);
		if (st) {
			*ap = &v->at[i];
			*idx = j;
			return st;
		}
	}
	return NULL;
}

/* ---- commands ---- */

static int cmd_connect(struct viewer *v, const struct live_request *rq)
{
	struct live_wire_connect r = {
		.viewer_session_id = htobe64(live_next_id(v->rl)),
		.major = htobe32(LIVE_PROTO_MAJOR),
		.minor = htobe32(LIVE_PROTO_MINOR),
		.type = htobe32(rq->type),
	};

	if (trawl_io_send_all(v->fd, &r, sizeof(r)))
		return -1;
	if (rq->major != LIVE_PROTO_MAJOR || rq->type != LIVE_CONNECTION_COMMAND) {
		fprintf(stderr, "trawl-relayd: live: viewer speaks protocol %u.%u (type %u), not %u.x commands: disconnected\n",
			rq->major, rq->minor, rq->type, LIVE_PROTO_MAJOR);
		return -1;
	}
	v->connected = 1;
	return 0;
}

static int cmd_list_sessions(struct viewer *v)
{
	struct relay_live *rl = v->rl;
	struct live_session *s;
	struct live_wire_session *w;
	uint32_t n = 0, k = 0;
	char *b;

	pthread_mutex_lock(&rl->lock);
	for (s = rl->sessions; s; s = s->next)
		n++;
	b = reply_buf(v, 4 + (size_t)n * sizeof(*w), 1);
	if (!b) {
		pthread_mutex_unlock(&rl->lock);
		return -1;
	}
	w = (struct live_wire_session *)(b + 4);
	for (s = rl->sessions; s && k < n; s = s->next, k++) {
		w[k].id = htobe64(s->id);
		w[k].live_timer = htobe32(s->live_timer_us);
		w[k].clients = htobe32(s->clients);
		/* The count from the last scan: good enough for a listing. */
		pthread_mutex_lock(&s->lock);
		w[k].streams = htobe32((uint32_t)s->nr_streams);
		pthread_mutex_unlock(&s->lock);
		live_put_str(w[k].hostname, sizeof(w[k].hostname), s->hostname);
		live_put_str(w[k].session_name, sizeof(w[k].session_name), s->name);
	}
	pthread_mutex_unlock(&rl->lock);
	n = htobe32(k);
	memcpy(b, &n, 4);
	return trawl_io_send_all(v->fd, b, 4 + (size_t)k * sizeof(*w));
}

static int reply_attach_status(struct viewer *v, uint32_t status)
{
	struct live_wire_streams_reply r = {.status = htobe32(status)};

	return trawl_io_send_all(v->fd, &r, sizeof(r));
}

static int cmd_attach(struct viewer *v, const struct live_request *rq)
{
	struct relay_live *rl = v->rl;
	struct live_session *s;
	struct vattach *a;
	int ret;

	if (!v->created)
		return reply_attach_status(v, LIVE_ATTACH_NO_SESSION);
	if (rq->seek != LIVE_SEEK_BEGINNING && rq->seek != LIVE_SEEK_LAST)
		return reply_attach_status(v, LIVE_ATTACH_SEEK_ERR);
	if (attach_find(v, rq->id))
		return reply_attach_status(v, LIVE_ATTACH_ALREADY);
	if (v->nr_at >= MAX_ATTACH)
		return reply_attach_status(v, LIVE_ATTACH_UNK);
	pthread_mutex_lock(&rl->lock);
	for (s = rl->sessions; s && s->id != rq->id; s = s->next)
		;
	if (s) {
		s->refs++;
		s->clients++;
	}
	pthread_mutex_unlock(&rl->lock);
	if (!s)
		return reply_attach_status(v, LIVE_ATTACH_UNK);
	a = &v->at[v->nr_at++];
	memset(a, 0, sizeof(*a));
	a->s = s;
	pthread_mutex_lock(&s->lock);
	live_session_scan(s, 1);
	ret = attach_sync(a);
	ret = ret ? reply_attach_status(v, LIVE_ATTACH_UNK) : send_streams(v, a, LIVE_ATTACH_OK, unannounced(a));
	pthread_mutex_unlock(&s->lock);
	return ret;
}

static int cmd_new_streams(struct viewer *v, const struct live_request *rq)
{
	struct vattach *a = attach_find(v, rq->id);
	struct live_session *s;
	uint32_t status;
	size_t n;
	int closed, ret;

	if (!a)
		return reply_attach_status(v, LIVE_NEW_STREAMS_ERR);
	s = a->s;
	/* Closed first: the scan after it sees everything that will ever be. */
	closed = __atomic_load_n(&s->closed, __ATOMIC_ACQUIRE);
	pthread_mutex_lock(&s->lock);
	live_session_scan(s, closed);
	if (attach_sync(a)) {
		pthread_mutex_unlock(&s->lock);
		return reply_attach_status(v, LIVE_NEW_STREAMS_ERR);
	}
	n = unannounced(a);
	status = n ? LIVE_NEW_STREAMS_OK : closed ? LIVE_NEW_STREAMS_HUP : LIVE_NEW_STREAMS_NO_NEW;
	ret = send_streams(v, a, status, n);
	pthread_mutex_unlock(&s->lock);
	return ret;
}

static int cmd_detach(struct viewer *v, const struct live_request *rq)
{
	struct vattach *a = attach_find(v, rq->id);
	uint32_t status = htobe32(a ? LIVE_DETACH_OK : LIVE_DETACH_UNK);

	if (a)
		attach_drop(v, a);
	return trawl_io_send_all(v->fd, &status, sizeof(status));
}

/*
 * babeltrace2 2.0 checks every piece of plain-text metadata it is sent for
 * the "/\* CTF 1.8" signature, not just the first; what the trace gained
 * since goes out behind that signature, as a comment the parser skips.
 * (Packetized metadata needs nothing: each packet has its header.)
 */
static const char md_signature[] = "/* CTF 1.8 */\n";

/* Copies the metadata viewer @vt has not had into the reply buffer, after
 * the reply header. Returns the bytes copied (0: none new). Session lock held. */
static size_t metadata_take(struct viewer *v, const struct live_trace *t, struct vtrace *vt)
{
	size_t hdr = sizeof(struct live_wire_metadata_reply), sig = 0;
	uint64_t len = t->scan.usable - vt->md_sent;
	char *b;

	if (!len)
		return 0;
	if (vt->md_sent && !t->scan.binary)
		sig = sizeof(md_signature) - 1;
	b = reply_buf(v, hdr + sig + len, 0);
	if (!b)
		return 0;
	memcpy(b + hdr, md_signature, sig);
	memcpy(b + hdr + sig, t->md + vt->md_sent, len);
	vt->md_sent += len;
	return sig + len;
}

static int cmd_get_metadata(struct viewer *v, const struct live_request *rq)
{
	struct live_wire_metadata_reply r = {.status = htobe32(LIVE_METADATA_ERR)};
	int found = 0;
	size_t i, j, len = 0;

	for (i = 0; i < v->nr_at && !found; i++) {
		struct live_session *s = v->at[i].s;

		pthread_mutex_lock(&s->lock);
		for (j = 0; j < s->nr_traces && j < v->at[i].nr_vt; j++) {
			if (s->traces[j]->md_stream_id != rq->id || !v->at[i].vt[j].announced)
				continue;
			found = 1;
			live_session_scan(s, 0);
			len = metadata_take(v, s->traces[j], &v->at[i].vt[j]);
			break;
		}
		pthread_mutex_unlock(&s->lock);
	}
	if (!found)
		return trawl_io_send_all(v->fd, &r, sizeof(r));
	r.status = htobe32(len ? LIVE_METADATA_OK : LIVE_METADATA_NO_NEW);
	r.len = htobe64(len);
	if (!len)
		return trawl_io_send_all(v->fd, &r, sizeof(r));
	memcpy(v->buf, &r, sizeof(r));
	return trawl_io_send_all(v->fd, v->buf, sizeof(r) + len);
}

/* NEW_STREAM / NEW_METADATA flags for a reply about stream @idx of @a. */
static uint32_t stream_flags(struct vattach *a, size_t idx)
{
	struct live_session *s = a->s;
	uint32_t flags = 0;
	size_t t;

	pthread_mutex_lock(&s->lock);
	live_session_scan(s, 0);
	if (attach_sync(a) == 0) {
		if (unannounced(a))
			flags |= LIVE_FLAG_NEW_STREAM;
		t = trace_index(s, s->streams[idx]->trace);
		if (t < a->nr_vt && a->vt[t].md_sent < s->traces[t]->scan.usable)
			flags |= LIVE_FLAG_NEW_METADATA;
	}
	pthread_mutex_unlock(&s->lock);
	return flags;
}

static int send_index(struct viewer *v, uint32_t status, uint32_t flags, const struct live_index_entry *e,
		      uint64_t class_id)
{
	struct live_wire_index r = {.status = htobe32(status), .flags = htobe32(flags)};

	if (e) {
		r.offset = htobe64(e->offset);
		r.packet_size = htobe64(e->packet_size);
		r.content_size = htobe64(e->content_size);
		r.timestamp_begin = htobe64(e->ts_begin);
		r.timestamp_end = htobe64(e->ts_end);
		r.events_discarded = htobe64(e->discarded);
	}
	r.stream_id = htobe64(class_id);
	return trawl_io_send_all(v->fd, &r, sizeof(r));
}

static int cmd_next_index(struct viewer *v, const struct live_request *rq)
{
	struct live_index_entry e = {0};
	struct live_stream *st;
	struct live_session *s;
	struct vattach *a;
	struct vstream *vs;
	uint64_t count, class_id;
	uint32_t flags;
	size_t idx;
	int closed, ret;

	st = stream_find(v, rq->id, &a, &idx);
	if (!st)
		return send_index(v, LIVE_INDEX_ERR, 0, NULL, 0);
	s = a->s;
	flags = stream_flags(a, idx);
	vs = &a->vs[idx];
	/* Closed before the size: what the size shows then is all there is. */
	closed = __atomic_load_n(&s->closed, __ATOMIC_ACQUIRE);
	if (live_stream_entries(st, &count))
		return send_index(v, LIVE_INDEX_ERR, flags, NULL, 0);
	if (vs->next < count) {
		ret = live_stream_entry(st, vs->next, &e);
		if (ret == -EAGAIN && !closed)
			return send_index(v, LIVE_INDEX_RETRY, flags, NULL, 0);
		if (ret) {
			fprintf(stderr, "trawl-relayd: live: %s/index/%s.idx: entry %llu is invalid\n",
				st->trace->dir, st->name, (unsigned long long)vs->next);
			return send_index(v, LIVE_INDEX_ERR, flags, NULL, 0);
		}
		pthread_mutex_lock(&s->lock);
		/*
		 * A trace that appeared since the last scan may hold events
		 * older than this packet's end: look before handing it out,
		 * or the viewer could show past them before it knows of them.
		 */
		if (st->trace->clock_local && live_trace_to_ns(st->trace, e.ts_end) > s->last_scan_ns) {
			live_session_scan(s, 1);
			if (attach_sync(a) == 0 && unannounced(a))
				flags |= LIVE_FLAG_NEW_STREAM;
		}
		if (st->trace->clock_local &&
		    live_trace_to_ns(st->trace, e.ts_end) >= live_pending_since(s, live_now_ns())) {
			pthread_mutex_unlock(&s->lock);
			return send_index(v, LIVE_INDEX_RETRY, flags, NULL, 0);
		}
		if (vs->waiting && vs->next + 1 == count)
			live_note_lateness(st->trace, &e);
		st->class_id = e.stream_id;
		st->class_known = 1;
		pthread_mutex_unlock(&s->lock);
		vs->next++;
		vs->waiting = 0;
		if (e.ts_end > vs->last_end)
			vs->last_end = e.ts_end;
		return send_index(v, LIVE_INDEX_OK, flags, &e, e.stream_id);
	}
	if (closed)
		return send_index(v, LIVE_INDEX_HUP, flags, NULL, 0);
	pthread_mutex_lock(&s->lock);
	/* A beacon past the last scan: as a packet's end above (a stream
	 * made since could hold older events), look first. */
	if (st->trace->clock_local && live_stream_beacon(s, st, &count, &e.ts_end) &&
	    live_trace_to_ns(st->trace, e.ts_end) > s->last_scan_ns) {
		live_session_scan(s, 1);
		if (attach_sync(a) == 0 && unannounced(a))
			flags |= LIVE_FLAG_NEW_STREAM;
	}
	e.ts_end = live_quiet_time(a, idx);
	class_id = live_stream_class(s, st);
	pthread_mutex_unlock(&s->lock);
	vs->waiting = 1;
	if (!e.ts_end)
		return send_index(v, LIVE_INDEX_RETRY, flags, NULL, 0);
	vs->beacon = e.ts_end;
	return send_index(v, LIVE_INDEX_INACTIVE, flags, &e, class_id);
}

static int send_packet_status(struct viewer *v, uint32_t status, uint32_t flags)
{
	struct live_wire_packet_reply r = {.status = htobe32(status), .flags = htobe32(flags)};

	return trawl_io_send_all(v->fd, &r, sizeof(r));
}

static int cmd_get_packet(struct viewer *v, const struct live_request *rq)
{
	struct live_wire_packet_reply r = {.status = htobe32(LIVE_PACKET_OK)};
	struct live_stream *st;
	struct vattach *a;
	uint32_t flags;
	size_t idx, got = 0;
	ssize_t want, n;
	char *b;

	st = stream_find(v, rq->id, &a, &idx);
	if (!st)
		return send_packet_status(v, LIVE_PACKET_ERR, 0);
	flags = stream_flags(a, idx) & LIVE_FLAG_NEW_METADATA;
	if (flags)
		return send_packet_status(v, LIVE_PACKET_ERR, flags);
	/* No bigger a buffer than the file has bytes to fill it. */
	want = rq->len && rq->len <= MAX_PACKET_REPLY ? live_stream_read(st, rq->offset, NULL, rq->len)
						      : -EINVAL;
	if (want <= 0)
		return send_packet_status(v, LIVE_PACKET_ERR, 0);
	b = reply_buf(v, sizeof(r) + (size_t)want, 0);
	if (!b)
		return send_packet_status(v, LIVE_PACKET_ERR, 0);
	n = live_stream_read(st, rq->offset, b + sizeof(r), (size_t)want);
	got = n > 0 ? (size_t)n : 0;
	if (!got)
		return send_packet_status(v, LIVE_PACKET_ERR, 0);
	r.len = htobe32((uint32_t)got);
	memcpy(b, &r, sizeof(r));
	return trawl_io_send_all(v->fd, b, sizeof(r) + got);
}

/* One command: 0 to go on, -1 to disconnect. */
static int viewer_command(struct viewer *v)
{
	unsigned char hdr[sizeof(struct live_wire_cmd)], payload[LIVE_MAX_PAYLOAD];
	struct live_request rq;
	uint32_t cmd;
	int len;

	if (trawl_io_recv_all(v->fd, hdr, sizeof(hdr), -1))
		return -1;
	len = live_cmd_payload_size(hdr, &cmd);
	if (len < 0) {
		fprintf(stderr, "trawl-relayd: live: viewer sent %s (command %u): disconnected\n",
			len == -EMSGSIZE ? "a command of the wrong size" : "an unknown command", cmd);
		return -1;
	}
	if (trawl_io_recv_all(v->fd, payload, (size_t)len, -1) || live_request_decode(cmd, payload, (size_t)len, &rq))
		return -1;
	if (!v->connected && cmd != LIVE_CMD_CONNECT) {
		fprintf(stderr, "trawl-relayd: live: viewer sent command %u before CONNECT: disconnected\n", cmd);
		return -1;
	}
	switch (cmd) {
	case LIVE_CMD_CONNECT:
		if (v->connected)
			return -1;
		return cmd_connect(v, &rq);
	case LIVE_CMD_LIST_SESSIONS:
		return cmd_list_sessions(v);
	case LIVE_CMD_CREATE_SESSION: {
		uint32_t ok = htobe32(LIVE_CREATE_SESSION_OK);

		v->created = 1;
		return trawl_io_send_all(v->fd, &ok, sizeof(ok));
	}
	case LIVE_CMD_ATTACH_SESSION:
		return cmd_attach(v, &rq);
	case LIVE_CMD_GET_NEW_STREAMS:
		return cmd_new_streams(v, &rq);
	case LIVE_CMD_GET_METADATA:
		return cmd_get_metadata(v, &rq);
	case LIVE_CMD_GET_NEXT_INDEX:
		return cmd_next_index(v, &rq);
	case LIVE_CMD_GET_PACKET:
		return cmd_get_packet(v, &rq);
	case LIVE_CMD_DETACH_SESSION:
		return cmd_detach(v, &rq);
	default:
		return -1;
	}
}

void *live_viewer_main(void *arg)
{
	struct viewer *v = arg;
	struct relay_live *rl = v->rl;
	char c = 'v';

	while (viewer_command(v) == 0)
		;
	while (v->nr_at)
		attach_drop(v, &v->at[v->nr_at - 1]);
	pthread_mutex_lock(&rl->lock);
	v->done = 1;
	pthread_mutex_unlock(&rl->lock);
	if (write(rl->wake[1], &c, 1) < 0) {
		/* The pipe is full: the acceptor is awake already. */
	}
	return NULL;
}
