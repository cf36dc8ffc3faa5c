/* SPDX-License-Identifier: MIT */
/*
 * ust-consumer.c - the user-space consumer: moves finished packets from the
 * ring buffers (memfds mapped through ustctl) to CTF stream files, with one
 * index entry per packet, and writes the metadata the daemon sends.
 *
 * One consumer serves every session of its owner (the session daemon
 * starts one per uid); traces and channels carry their session's id so
 * that a stop flushes, and a destroy closes, only that session's streams.
 *
 * One thread, one loop: wait for a command on the daemon's socket, for a
 * channel's eventfd (its apps write it when they close a packet while we
 * sleep: ringbuffer.h, "Wake-ups") or for the earliest timer; take every
 * ready packet of a channel whose eventfd was written or whose read timer
 * is due (its own, or every 1 ms for channels whose apps cannot wake us,
 * live ones, and a packet closed that its writers still commit; else an
 * idle one, WAKE_IDLE_MS); on the switch timer, close partial packets
 * (live sessions: and cut an empty packet on streams with nothing new,
 * see run_timers()). FLUSH closes every stream's last
 * packet (final flush: waits for events still being written) and drains it
 * before replying, which is what lets `trawl stop` promise a complete trace.
 *
 * If the daemon goes away (EOF on the socket), the consumer drains
 * everything one last time and exits: what was recorded is on disk.
 * Files are created by this process, which runs as the session's owner.
 */
#include "common/array.h"
#include "common/common.h"
#include "common/fdmsg.h"
#include "common/io.h"
#include "common/log.h"
#include "consumerd/bus.h"
#include "consumerd/consumer-proto.h"
#include "consumerd/consumerd.h"
#include "consumerd/count.h"
#include "consumerd/output.h"
#include "consumerd/ust-consumer-internal.h"
#include "ctf/ctf.h"
#include "ctf/layout.h"
#include "ctf/packet.h"
#include "ctl/proto.h"
#include "relayd/proto.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>

/* A channel's read timer when it has none of its own: every 1 ms, or,
 * when its apps wake us (wake_fd, ringbuffer.h "Wake-ups"), once in
 * WAKE_IDLE_MS with nothing to do: a closed packet is never left unsaid,
 * and the session daemon writes the eventfd too when it gives the channel
 * to an app that cannot (ustctl's trawl_ustctl_channel_mark_legacy()); the
 * idle timer is only a look that costs one wake-up a second. */
#define DEFAULT_READ_TIMER_US 1000u
#define WAKE_IDLE_MS 1000u
/* WAKE_IDLE_MS, or TRAWL_UST_WAKE_IDLE_MS from the environment (0: never,
 * for tests that show the wake-ups alone move every packet). */
static uint64_t wake_idle_ns = WAKE_IDLE_MS * 1000000ull;

struct cchannel *ucons_channels;
struct ctrace *ucons_traces;
/* What removed traces counted, by session (REMOVE_TRACE). */
struct csession_acc {
	struct csession_acc *next;
	uint64_t session, discarded, tallied, bytes;
	struct trawl_cons_chan_counters chans[TRAWL_CONS_MAX_CHANNELS]; /* by channel_key - 1 */
	int err;                      /* a removed trace's write or streaming failure */
	char msg[TRAWL_CONS_MSG_LEN]; /* its line (trawl_output_broken()) */
};
static struct csession_acc *removed;
/* The last trace that could not be set up, and why (reported with its session). */
uint64_t ucons_last_error_session;
char ucons_last_error[TRAWL_CONS_MSG_LEN];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Logs "<what> <name>: <strerror(err)>" to stderr (the daemon's log file). */
void ucons_log(const char *what, const char *name, int err)
{
	trawl_log(TRAWL_LOG_ERROR, "%s %s: %s", what, name, strerror(err));
}

static struct ctrace *trace_find(uint64_t key)
{
	struct ctrace *t;

	for (t = ucons_traces; t; t = t->next)
		if (t->key == key)
			return t;
	return NULL;
}

/*
 * The metadata file's bytes for @t's text, as LTTng 2.13's consumer writes
 * them: "packetized" (packets of a 37-byte header, then text: ctf.h), not
 * plain text, so that readers keeping only packetized metadata as it came
 * read it too (babeltrace 1.5's --output-format=ctf-metadata, LTTng's
 * metadata tests). The file only grows: text added (the daemon sends the
 * whole text, which only grows until a regeneration) goes in packets of
 * its own after the ones written, which never change, as a live viewer has
 * them by offset (relayd/live.c). A text that is not the old one extended
 * is packed afresh. 0 or -errno.
 */
static int metadata_pack(struct ctrace *t)
{
	uint8_t uuid[16] = {0};
	const char *u, *text = t->metadata;
	size_t from = t->mpk_text;
	void *pk, *all;
	size_t len;
	int ret;

	if (from == t->metadata_len && t->mpk)
		return 0;
	/* the trace's UUID, which every packet header repeats: the daemon's text says it */
	u = memmem(text, t->metadata_len, "uuid = \"", 8);
	if (u && (size_t)(u - text) + 8 + 36 < t->metadata_len) {
		char s[37];

		memcpy(s, u + 8, 36);
		s[36] = '\0';
		if (trawl_uuid_parse(s, uuid))
			memset(uuid, 0, sizeof(uuid));
	}
	ret = trawl_ctf_metadata_packetize(text + from, t->metadata_len - from, uuid,
					   trawl_ctf_host_big_endian(), &pk, &len);
	if (ret)
		return ret;
	all = realloc(t->mpk, t->mpk_len + len);
	if (!all) {
		free(pk);
		return -ENOMEM;
	}
	memcpy((char *)all + t->mpk_len, pk, len);
	free(pk);
	t->mpk = all;
	t->mpk_len += len;
	t->mpk_text = t->metadata_len;
	return 0;
}

/* Writes @t's metadata (packed) as the metadata file of @o, handle *@h. */
int ucons_metadata_write(struct ctrace *t, struct trawl_output *o, int *h)
{
	int ret = metadata_pack(t);

	if (ret)
		return ret;
	if (*h < 0) {
		*h = trawl_output_file_open(o, "metadata", TRAWL_OUTPUT_METADATA);
		if (*h < 0)
			return *h;
	}
	return trawl_output_file_replace(o, *h, t->mpk, t->mpk_len);
}

/* The events of a packet of @arg (a trace), as its metadata says (count.h); -1: not known. */
int64_t ucons_trace_packet_events(void *arg, const void *pkt, size_t len)
{
	const struct ctrace *t = arg;

	return t->metadata ? trawl_cons_packet_events(t->metadata, t->metadata_len, pkt, len) : -1;
}

/* @t's lost packets not counted yet: counted with its last metadata, or said (count.h). */
void ucons_trace_uncounted_settle(struct ctrace *t)
{
	trawl_cons_uncounted_settle(&t->uncounted, t->metadata, t->metadata_len, t->path);
}

/*
 * Writes packet @p of trace @t and its index entry: its content, padded
 * with zeros to the page size as LTTng's consumers write it, not the whole
 * sub-buffer (ctf/packet.h). A packet that could not be written (a full
 * disk, relayd gone) has its events counted (count.h): now, or once the
 * metadata naming them has come.
 */
int ucons_packet_write(struct ctrace *t, struct trawl_output_stream *out,
			const struct trawl_ustctl_packet *p)
{
	/* -1: its events are not known until the metadata says how to read them */
	int64_t n = trawl_output_stream_packet(out, p->data, p->content_size, -1);

	if (n == 0)
		trawl_cons_lost_count(&t->uncounted, t->metadata, t->metadata_len, out, p->data,
				      p->content_size);
	return n < 0 ? (int)n : 0;
}

/* Packet @p of a stream not taken back (cstream's untaken): counted lost. */
static void untaken_lost(struct ctrace *t, const struct trawl_ustctl_packet *p)
{
	int64_t n = ucons_trace_packet_events(t, p->data, p->content_size);

	t->untaken_packets++;
	if (n < 0)
		t->untaken_unknown = 1;
	else
		t->untaken_events += (uint64_t)n;
}

/* @t's streams not taken back and what they lost, in one line, into @msg (may be NULL). */
static void untaken_msg(const struct ctrace *t, char *msg, size_t len)
{
	if (msg)
		trawl_msg_fmt(msg, len,
			      "%u stream%s of channel %s not taken back from trawl-relayd by the "
			      "consumer started again: %llu packet%s (%llu events%s) lost",
			      t->untaken, t->untaken == 1 ? "" : "s", t->untaken_chan,
			      (unsigned long long)t->untaken_packets,
			      t->untaken_packets == 1 ? "" : "s",
			      (unsigned long long)t->untaken_events,
			      t->untaken_unknown ? " or more" : "");
}

/*
 * Packet @seq of @cs was taken: the packets between the one expected and it
 * were overwritten by the producers before we could read them (overwrite
 * mode; in discard mode, corrupt packets ustctl skipped).
 */
void ucons_stream_seq_seen(struct cstream *cs, uint64_t seq)
{
	if (cs->seq_known && seq > cs->next_seq)
		cs->lost_packets += seq - cs->next_seq;
	if (!cs->seq_known || seq >= cs->next_seq)
		cs->next_seq = seq + 1;
	cs->seq_known = 1;
}

/*
 * Takes every ready packet of @cs. Returns 0 or a negative errno from a write.
 *
 * A packet goes from the mapping to its file by one writev(2), no copy of
 * ours (a --shm-path buffer, which its app can shrink, is copied out first:
 * bus.c). That write is the floor the kernel allows: perf on this daemon
 * writing bench/ust's trace to tmpfs puts ~99% of its time in the kernel's
 * write (the copy ~37%, allocating and charging page-cache pages most of
 * the rest): 0.36-0.42 s of CPU per GB in bench/ust/run.sh's consumer
 * rows, where lttng-consumerd took 0.39-0.57 in the same runs.
 * bench-cons-copy (bench/consumerd) measured the alternatives on 1 MiB
 * packets: writev 0.38-0.41 s/GB, four packets per writev 0.36-0.38
 * (within the noise: not worth holding packets back), memcpy + write
 * 0.36-0.41, splice through a pipe 0.42-0.51, sendfile 0.41-0.52;
 * copy_file_range fails (EXDEV, memfd to tmpfs). None takes the copy away:
 * a file's page-cache pages cannot be the ring's.
 */
int ucons_op_drain(struct stream_op *op)
{
	struct cchannel *c = op->c;
	struct cstream *cs = op->cs;
	struct trawl_ustctl_packet p;
	int ret, guard = 1 << 20;

	if (!cs->out && !cs->untaken)
		return 0; /* detached: read once its files are made again (ucons_trace_attach()) */
	while (guard--) {
		ret = trawl_ustctl_stream_get_packet(cs->rb, &p);
		if (ret == -EAGAIN)
			return 0;
		if (ret == -EPROTO)
			continue; /* skipped and counted by ustctl */
		if (ret)
			return ret;
		ucons_stream_seq_seen(cs, p.packet_seq_num);
		if (!cs->out) {
			untaken_lost(c->trace, &p);
			trawl_ustctl_stream_put_packet(cs->rb);
			c->taken++;
			continue;
		}
		if (cs->shrinkable && cs->bounce) {
			/* Whole, or not at all: a SIGBUS jumps out before any write. */
			memcpy(cs->bounce, p.data, p.content_size);
			p.data = cs->bounce;
		}
		ret = ucons_packet_write(c->trace, cs->out, &p);
		trawl_ustctl_stream_put_packet(cs->rb);
		c->taken++;
		if (ret) {
			ucons_log("writing a packet of", c->info.name, -ret);
			return ret;
		}
	}
	return 0;
}

int ucons_stream_drain(struct cchannel *c, struct cstream *cs)
{
	return ucons_stream_guarded(c, cs, ucons_op_drain, NULL, 0);
}

static void channel_drain(struct cchannel *c)
{
	uint32_t i;

	if (c->info.snapshot_mode)
		return;
	for (i = 0; i < c->nr; i++)
		ucons_stream_drain(c, &c->streams[i]);
}

/* Closes the last packet of every stream of @c and writes it. */
static void channel_flush_final(struct cchannel *c)
{
	uint32_t i;
	int tries;

	for (i = 0; i < c->nr; i++) {
		struct cstream *cs = &c->streams[i];

		for (tries = 0; tries < 64; tries++) {
			int ret = ucons_stream_flush(c, cs, 1);

			if (ret != -EAGAIN)
				break;
			ucons_stream_drain(c, cs); /* full: make room, then close the packet */
		}
		ucons_stream_drain(c, cs);
	}
}

/* Bytes @c's stream files hold (sent, for relayd: see counters()). */
static uint64_t channel_bytes(const struct cchannel *c)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < c->nr; i++)
		n += trawl_output_stream_bytes(c->streams[i].out);
	return n;
}

/* @c's events discarded, over its streams (a broken one's, as last read). */
static uint64_t channel_discarded(const struct cchannel *c)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < c->nr; i++)
		n += ucons_stream_discarded((struct cchannel *)c, &c->streams[i]);
	return n;
}

/* The part of @c's events discarded a tally made (ringbuffer.h, lost_tally). */
static uint64_t channel_tallied(const struct cchannel *c)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < c->nr; i++) {
		ucons_stream_discarded((struct cchannel *)c, &c->streams[i]);
		n += c->streams[i].tallied;
	}
	return n;
}

/* @c's packets overwritten before they were read, over its streams. */
static uint64_t channel_lost_packets(const struct cchannel *c)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < c->nr; i++)
		n += c->streams[i].lost_packets;
	return n;
}

/*
 * Adds @c's counters to @chans (by channel key; a key out of 1..255 has
 * none), and its streams' buffer usage, sampled now (channel_discarded()
 * read each stream's positions), to the channel's highest: the
 * sample LTTng's consumer takes each monitor period. A broken stream is
 * never read again: left out.
 */
static void channel_counters_add(const struct cchannel *c, struct trawl_cons_chan_counters *chans)
{
	struct trawl_cons_chan_counters *k;
	uint32_t i;

	if (c->key < 1 || c->key > TRAWL_CONS_MAX_CHANNELS)
		return;
	k = &chans[c->key - 1];
	k->events_discarded += channel_discarded(c);
	k->lost_packets += channel_lost_packets(c);
	for (i = 0; i < c->nr; i++) {
		const struct cstream *cs = &c->streams[i];

		if (cs->broken)
			continue;
		k->usage_high = TRAWL_MAX(k->usage_high, cs->in_buffer);
		k->nr_sampled++;
	}
}

/* @session's counters (0: all sessions'); @tallied: the part of @discarded a
 * tally made; @chans: each channel's, zeroed here. */
static void counters(uint64_t session, uint64_t *discarded, uint64_t *tallied, uint64_t *bytes,
		     struct trawl_cons_chan_counters *chans)
{
	struct csession_acc *a;
	struct cchannel *c;
	struct ctrace *t;
	uint32_t k;

	*discarded = *tallied = *bytes = 0;
	memset(chans, 0, sizeof(*chans) * TRAWL_CONS_MAX_CHANNELS);
	for (c = ucons_channels; c; c = c->next) {
		if (session && c->session != session)
			continue;
		*bytes += channel_bytes(c);
		*discarded += channel_discarded(c);
		*tallied += channel_tallied(c);
		channel_counters_add(c, chans);
	}
	/* streamed: only what relayd confirmed writing is written */
	for (t = ucons_traces; t; t = t->next)
		if (!session || t->session == session)
			*bytes -= TRAWL_MIN(*bytes, trawl_output_bytes_unlanded(t->out));
	for (a = removed; a; a = a->next) {
		if (session && a->session != session)
			continue;
		*bytes += a->bytes;
		*discarded += a->discarded;
		*tallied += a->tallied;
		for (k = 0; k < TRAWL_CONS_MAX_CHANNELS; k++) {
			chans[k].events_discarded += a->chans[k].events_discarded;
			chans[k].lost_packets += a->chans[k].lost_packets;
		}
	}
}

static void channel_free(struct cchannel *c)
{
	uint32_t i;

	for (i = 0; i < c->nr; i++) {
		trawl_ustctl_stream_unmap(c->streams[i].rb);
		trawl_output_stream_close(c->streams[i].out);
		free(c->streams[i].bounce);
	}
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	free(c->streams);
	free(c);
}

static void trace_free(struct ctrace *t)
{
	trawl_cons_uncounted_free(&t->uncounted);
	trawl_output_destroy(t->out);
	free(t->metadata);
	free(t->mpk);
	free(t);
}

/* @session's accumulator (made if it has none), or NULL (out of memory). */
static struct csession_acc *session_acc(uint64_t session)
{
	struct csession_acc *a;

	for (a = removed; a && a->session != session; a = a->next)
		;
	if (!a) {
		a = calloc(1, sizeof(*a));
		if (!a)
			return NULL;
		a->session = session;
		a->next = removed;
		removed = a;
	}
	return a;
}

/*
 * A per-process trace whose app exited: its streams are flushed and
 * written, then closed and unmapped (the session daemon closes its memfds
 * too), so that a session tracing thousands of short-lived programs holds
 * the files and buffers of the live ones only.
 */
static int cmd_remove_trace(uint64_t session, uint64_t key)
{
	struct ctrace **tp, *t = trace_find(key);
	struct cchannel **cp = &ucons_channels, *c;
	struct csession_acc *a;
	uint64_t bytes;

	if (!t || t->session != session)
		return -ENOENT;
	a = session_acc(session);
	if (!a)
		return -ENOMEM;
	for (c = ucons_channels; c; c = c->next)
		if (c->trace_key == key && !c->info.snapshot_mode && t->out)
			channel_flush_final(c);
	trawl_output_sync(t->out);
	ucons_trace_uncounted_settle(t); /* before the seal says what was lost */
	trawl_output_seal(t->out); /* while its streams are open */
	bytes = 0;
	while (*cp) {
		c = *cp;
		if (c->trace_key != key) {
			cp = &c->next;
			continue;
		}
		bytes += channel_bytes(c);
		a->discarded += channel_discarded(c);
		a->tallied += channel_tallied(c);
		channel_counters_add(c, a->chans);
		*cp = c->next;
		channel_free(c);
	}
	a->bytes += bytes - TRAWL_MIN(bytes, trawl_output_bytes_unlanded(t->out));
	if (!a->err && trawl_output_broken(t->out, a->msg, sizeof(a->msg)))
		a->err = trawl_output_errno(t->out);
	if (!a->err && t->broken) {
		ucons_trace_broken_msg(t, a->msg, sizeof(a->msg));
		a->err = EFAULT;
	}
	for (tp = &ucons_traces; *tp != t; tp = &(*tp)->next)
		;
	*tp = t->next;
	trace_free(t);
	return 0;
}

/* Closes and forgets every channel and trace of @session (already flushed). */
static void session_remove(uint64_t session)
{
	struct cchannel **cp = &ucons_channels;
	struct ctrace **tp = &ucons_traces, *tr;
	struct csession_acc **ap = &removed;

	for (tr = ucons_traces; tr; tr = tr->next)
		if (tr->session == session)
			ucons_trace_uncounted_settle(tr); /* while their streams are open */
	while (*cp) {
		struct cchannel *c = *cp;

		if (c->session != session) {
			cp = &c->next;
			continue;
		}
		*cp = c->next;
		channel_free(c);
	}
	while (*tp) {
		struct ctrace *t = *tp;

		if (t->session != session) {
			tp = &t->next;
			continue;
		}
		*tp = t->next;
		trace_free(t);
	}
	while (*ap) {
		struct csession_acc *a = *ap;

		if (a->session != session) {
			ap = &a->next;
			continue;
		}
		*ap = a->next;
		free(a);
	}
}

/*
 * 1 if a trace at @path writes nothing but snapshots: its session's snapshot
 * output is trawl-relayd (net://...), and it has no folder of its own.
 */
int ucons_trace_snapshot_only(const char *path)
{
	return !strncmp(path, "net://", 6) || !strncmp(path, "net6://", 7) ||
	       !strncmp(path, "none:", 5);
}

/*
 * A trace of @session could not be set up (@err, @why): nothing of it is
 * recorded, so the session's stop and rotation fail with @why
 * (session_failure()), as a trace that broke later does. Before, a
 * consumer started in a dead one's place that could not make a trace again
 * held nothing of it, and a rotation said all was well.
 */
static void trace_setup_failed(uint64_t session, int err, const char *why)
{
	struct csession_acc *a = session_acc(session);

	if (!a || a->err)
		return;
	a->err = -err;
	trawl_msg_fmt(a->msg, sizeof(a->msg), "a trace is not recorded: %s", why);
}

static int cmd_add_trace(const struct trawl_cons_hdr *h, const void *payload)
{
	struct trawl_cons_add_trace a;
	struct trawl_output *out = NULL;
	struct ctrace *t;
	char err[TRAWL_CONS_MSG_LEN];
	int ret;

	if (h->size != sizeof(a) || trace_find(h->trace_key))
		return -EINVAL;
	memcpy(&a, payload, sizeof(a));
	if (!trawl_ctl_str_ok(a.path, sizeof(a.path)))
		return -EINVAL;
	if (!ucons_trace_snapshot_only(a.path)) {
		if (a.path[0] != '/' && !trawl_output_dest_is_relay(a.path))
			return -EINVAL;
		ret = trawl_output_create_reconnecting(a.path, (uid_t)-1, (gid_t)-1, &out, err,
						       sizeof(err));
		if (ret) {
			trawl_log(TRAWL_LOG_ERROR, "%s", err);
			trawl_msg_fmt(ucons_last_error, sizeof(ucons_last_error), "%s", err);
			ucons_last_error_session = h->session_key;
			trace_setup_failed(h->session_key, ret, err);
			return ret;
		}
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		trawl_output_destroy(out);
		return -ENOMEM;
	}
	t->out = out;
	t->meta_h = -1;
	/* a packet sent and lost after (relayd did not confirm it): its events counted then */
	if (out)
		trawl_output_count_events(out, ucons_trace_packet_events, t);
	/*
	 * Live: the trace shows on relayd (an empty metadata file, which its
	 * live server takes as a trace on its way) before its apps can record:
	 * the session daemon waits for our reply before it gives them their
	 * channels (see cmd_add_channel()).
	 */
	if (out && trawl_output_live_timer_us(out) && !(a.flags & TRAWL_CONS_F_RESUME)) {
		t->meta_h = trawl_output_file_open(out, "metadata", TRAWL_OUTPUT_METADATA);
		if (t->meta_h < 0) {
			ret = t->meta_h;
			trawl_output_destroy(out);
			free(t);
			return ret;
		}
	}
	t->key = h->trace_key;
	t->session = h->session_key;
	memcpy(t->path, a.path, sizeof(t->path));
	t->next = ucons_traces;
	ucons_traces = t;
	return 0;
}

static int cmd_metadata(const struct trawl_cons_hdr *h, const char *payload)
{
	struct ctrace *t = trace_find(h->trace_key);
	char *copy;

	if (!t)
		return -ENOENT;
	copy = malloc(h->size + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, payload, h->size);
	copy[h->size] = '\0';
	/* a text that is not the old one extended (a regeneration) is packed afresh */
	if (!t->metadata || h->size < t->mpk_text || memcmp(copy, t->metadata, t->mpk_text)) {
		free(t->mpk);
		t->mpk = NULL;
		t->mpk_len = t->mpk_text = 0;
	}
	free(t->metadata);
	t->metadata = copy;
	t->metadata_len = h->size;
	/* lost packets of events it names now (count.h) */
	trawl_cons_uncounted_retry(&t->uncounted, copy, h->size);
	if (!t->out)
		return 0; /* detached: written when its files are made again */
	return ucons_metadata_write(t, t->out, &t->meta_h);
}

/*
 * Maps stream @i of @c (its memfd @fd, taken on success) and opens its
 * files. Resuming (a consumer that died had it), the files keep what they
 * hold and reading carries on after the last packet they have.
 */
static int stream_add(struct cchannel *c, struct ctrace *t, uint32_t i, int fd)
{
	struct trawl_ustctl_channel_attr attr = c->info.attr; /* unpacked copy */
	struct cstream *cs = &c->streams[i];
	int resume = !!(c->info.flags & TRAWL_CONS_F_RESUME);
	uint64_t next_seq = UINT64_MAX;
	char name[300];
	struct stat st;
	int ret;

	cs->instance_id = c->info.first_instance_id + i;
	/* From the first packet read on, as LTTng's consumer counts: what was
	 * overwritten before it is no gap a reader of the trace can see. */
	cs->seq_known = 0;
	cs->shrinkable = trawl_cons_fd_shrinkable(fd);
	if (cs->shrinkable && !(cs->bounce = malloc(attr.subbuf_size)))
		return -ENOMEM;
	/* @fd is the stream's once mapped: the caller sees cs->rb set */
	ret = trawl_ustctl_stream_map(fd, &attr, i, cs->instance_id, &cs->rb);
	if (ret == -EINVAL && cs->shrinkable && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size < attr.subbuf_size * attr.num_subbuf) {
		/* Its owner cut the file before we came to map it. A program
		 * may have recorded into it already (measured: with this
		 * consumer stopped, a per-user channel's program recorded its
		 * events and exited; on a loaded host, security-shm-truncate's
		 * cut came first ~1 run in 30 under ASan at load 10, and the
		 * stop then said nothing). Abandoned as a file cut later is,
		 * and the stop says so. */
		ucons_stream_abandon(c, cs, "was cut before the consumer mapped it (truncated?)");
		return 0;
	}
	if (ret)
		return ret;
	ret = trawl_path_fmt(name, sizeof(name), "%s_%u", c->info.name, i);
	if (ret)
		return ret;
	if (!c->info.snapshot_mode && t->out && resume && trawl_output_dest_is_relay(t->path)) {
		/*
		 * What relayd's files hold is not known here (the packets the
		 * dead consumer sent and relayd did not write are in no copy
		 * of ours), and opening them again would empty them: the
		 * stream's packets are counted lost instead, and its rotation
		 * and stop say so (untaken_msg()).
		 */
		cs->untaken = 1;
		if (!t->untaken++)
			trawl_msg_fmt(t->untaken_chan, sizeof(t->untaken_chan), "%s", c->info.name);
		trawl_log(TRAWL_LOG_ERROR, "%s: cannot take back a stream streamed to trawl-relayd: "
			  "its packets are dropped, counted, until the next rotation", name);
	} else if (!c->info.snapshot_mode && t->out) {
		cs->out = resume ? trawl_output_stream_resume_split(
					   t->out, name, cs->instance_id, c->info.tracefile_size,
					   c->info.tracefile_count, &next_seq)
				 : trawl_output_stream_open_split(t->out, name, cs->instance_id,
								  c->info.tracefile_size,
								  c->info.tracefile_count);
		if (!cs->out)
			return -errno;
	}
	if (resume && next_seq != UINT64_MAX) {
		cs->next_seq = next_seq;
		cs->seq_known = 1;
	}
	if (resume && ucons_stream_resume(c, cs, next_seq) && !cs->untaken)
		trawl_log(TRAWL_LOG_WARN, "%s: packets the consumer before us took are not in the "
			  "file (the trace shows the gap)", name);
	return 0;
}

static int cmd_add_channel(const struct trawl_cons_hdr *h, const void *payload, int *fds,
			   uint32_t nr_fds)
{
	struct ctrace *t = trace_find(h->trace_key);
	struct cchannel *c;
	uint32_t i, wake;
	int ret;

	if (!t || h->size != sizeof(c->info) || nr_fds == 0)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	memcpy(&c->info, payload, sizeof(c->info));
	wake = !!(c->info.flags & TRAWL_CONS_F_WAKE);
	if (!trawl_ctl_str_ok(c->info.name, sizeof(c->info.name)) ||
	    !trawl_ctl_name_valid(c->info.name) || c->info.attr.nr_streams + wake != nr_fds ||
	    (c->info.flags & ~(TRAWL_CONS_F_RESUME | TRAWL_CONS_F_WAKE))) {
		free(c);
		return -EINVAL;
	}
	nr_fds -= wake;
	c->wake_fd = -1;
	if (wake) {
		/* ours now (handle_command() closes the fds left at -1 alone) */
		c->wake_fd = fds[nr_fds];
		fds[nr_fds] = -1;
	}
	c->streams = calloc(nr_fds, sizeof(*c->streams));
	if (!c->streams) {
		if (c->wake_fd >= 0)
			close(c->wake_fd);
		free(c);
		return -ENOMEM;
	}
	c->key = h->channel_key;
	c->trace_key = h->trace_key;
	c->trace = t;
	c->session = t->session;
	/* How --live reaches us: the trace's relay destination has a live
	 * timer, and the session daemon made it the channel's switch timer. */
	c->beacons = trawl_output_live_timer_us(t->out) != 0 && !c->info.attr.overwrite &&
		     !c->info.snapshot_mode;
	for (i = 0; i < nr_fds; i++) {
		ret = stream_add(c, t, i, fds[i]);
		if (c->streams[i].rb)
			fds[i] = -1; /* the stream owns it now */
		if (ret)
			goto fail;
		c->nr++;
	}
	c->next = ucons_channels;
	ucons_channels = c;
	/*
	 * Live: each stream starts with a beacon cut now, and all of it is on
	 * relayd before we reply. The session daemon waits for this reply
	 * before an app gets the channel (sessiond/ust-consumer.c), so the
	 * app's first events are later than the beacon, and relayd's live
	 * server knows of the streams before they can hold anything older than
	 * what a viewer was shown: babeltrace2 2.0 stops at a stream that
	 * goes back in time.
	 * The beacon is cut only once relayd has written the streams' files
	 * (the first sync): relayd's live server dates a new stream by the
	 * scan that found its index file, and bounds what it lets viewers see
	 * by that date. A beacon cut before then could be older than the
	 * date: a viewer shown a kernel packet in between then met the
	 * stream's first packet in its past (relayd-live-late-uid, ~1 in 20
	 * loaded runs: 100.96 ms back).
	 */
	if (c->beacons) {
		trawl_output_sync(t->out);
		for (i = 0; i < c->nr; i++) {
			ucons_stream_flush_live(c, &c->streams[i]);
			c->streams[i].live_produced = ucons_stream_produced(c, &c->streams[i]);
			ucons_stream_drain(c, &c->streams[i]);
		}
		trawl_output_sync(t->out);
	}
	return 0;
fail:
	for (i = 0; i <= c->nr && i < nr_fds; i++) {
		if (c->streams[i].rb)
			trawl_ustctl_stream_unmap(c->streams[i].rb);
		trawl_output_stream_close(c->streams[i].out);
		free(c->streams[i].bounce);
	}
	if (c->wake_fd >= 0)
		close(c->wake_fd);
	free(c->streams);
	free(c);
	return ret;
}

/*
 * The first write or streaming failure of @session's traces (also of its
 * removed ones) as a negative errno, its line in @msg (may be NULL); else 0.
 */
int ucons_session_failure(uint64_t session, char *msg, size_t len)
{
	struct csession_acc *a;
	struct ctrace *t;

	for (t = ucons_traces; t; t = t->next) {
		if ((!session || t->session == session) && trawl_output_broken(t->out, msg, len))
			return -trawl_output_errno(t->out);
		if ((!session || t->session == session) && t->broken) {
			ucons_trace_broken_msg(t, msg, len);
			return -EFAULT;
		}
		if ((!session || t->session == session) && t->untaken) {
			untaken_msg(t, msg, len);
			return -EPIPE;
		}
	}
	for (a = removed; a; a = a->next) {
		if ((!session || a->session == session) && a->err) {
			if (msg)
				trawl_msg_fmt(msg, len, "%s", a->msg);
			return -a->err;
		}
	}
	return 0;
}

/*
 * Stop: everything recorded goes out. Returns what session_failure() says:
 * a trace that could not be written whole fails the stop.
 */
static int cmd_flush(uint64_t session)
{
	struct cchannel *c;
	struct ctrace *t;

	for (c = ucons_channels; c; c = c->next) {
		if ((!session || c->session == session) && !c->info.snapshot_mode) {
			if (c->trace->out) /* detached: stopped, nothing new since */
				channel_flush_final(c);
			c->paused = 1;
		}
	}
	/* Streamed traces: written on relayd's side too before we reply; a
	 * local trace that lost packets says so in itself. */
	for (t = ucons_traces; t; t = t->next) {
		if (!session || t->session == session) {
			trawl_output_sync(t->out);
			/* the metadata is the last: every METADATA came before this FLUSH */
			ucons_trace_uncounted_settle(t);
			trawl_output_seal(t->out);
		}
	}
	return ucons_session_failure(session, NULL, 0);
}

/* Answers a command: @status, the session's counters, and a line: @msg if
 * not empty, else the session's first failure, else the last set-up error. */
static void reply(int sock, uint64_t session, int status, const char *msg)
{
	struct trawl_cons_reply r = {.magic = TRAWL_CONS_MAGIC, .status = status};
	uint64_t discarded, tallied, bytes;

	counters(session, &discarded, &tallied, &bytes, r.chans);
	r.events_discarded = discarded;
	r.events_tallied = tallied;
	r.bytes_written = bytes;
	if (msg[0])
		trawl_msg_fmt(r.msg, sizeof(r.msg), "%s", msg);
	else
		ucons_session_failure(session, r.msg, sizeof(r.msg));
	if (!r.msg[0] && ucons_last_error[0] && (!session || session == ucons_last_error_session))
		trawl_msg_fmt(r.msg, sizeof(r.msg), "%s", ucons_last_error);
	if (trawl_write_all(sock, &r, sizeof(r)))
		ucons_log("replying to", "the session daemon", errno);
}

/*
 * Reads and runs one command. Returns 0, 1 to quit, or a negative errno
 * when the session daemon's message itself is bad (we quit then). What a
 * command answers is only its reply: a relayd that broke off its HELLO
 * (-EPROTO too) once ended the consumer as a bad message did, and the one
 * started in its place could not reach relayd again (relayd-rotate-kill).
 */
static int handle_command(int sock)
{
	struct trawl_cons_hdr h;
	int fds[TRAWL_USTCTL_MAX_STREAMS];
	uint32_t nr_fds = 0, i;
	char *payload = NULL;
	char msg[TRAWL_CONS_MSG_LEN] = "";
	ssize_t n;
	int ret = 0, bad = 0;

	n = trawl_fdmsg_recv_fds(sock, &h, sizeof(h), fds, TRAWL_USTCTL_MAX_STREAMS, &nr_fds,
				  TRAWL_USTCTL_TIMEOUT_MS);
	if (n == 0)
		return 1; /* the daemon went away */
	if (n < 0)
		return (int)n;
	if (h.magic != TRAWL_CONS_MAGIC || h.version != TRAWL_CONS_VERSION ||
	    h.size > TRAWL_CONS_MAX_METADATA || h.nr_fds != nr_fds) {
		bad = -EPROTO;
		goto out;
	}
	if (h.size) {
		payload = malloc(h.size);
		if (!payload) {
			bad = -ENOMEM;
			goto out;
		}
		bad = trawl_io_recv_all(sock, payload, h.size, -1);
		if (bad)
			goto out;
	}
	switch (h.cmd) {
	case TRAWL_CONS_ADD_TRACE:
		ret = cmd_add_trace(&h, payload);
		break;
	case TRAWL_CONS_METADATA:
		ret = cmd_metadata(&h, payload);
		break;
	case TRAWL_CONS_ADD_CHANNEL:
		ret = cmd_add_channel(&h, payload, fds, nr_fds);
		break;
	case TRAWL_CONS_FLUSH:
		ret = cmd_flush(h.session_key);
		break;
	case TRAWL_CONS_REMOVE_SESSION:
		if (!h.session_key) {
			ret = -EINVAL;
			break;
		}
		cmd_flush(h.session_key);
		session_remove(h.session_key);
		break;
	case TRAWL_CONS_SNAPSHOT:
		ret = ucons_cmd_snapshot(&h, payload);
		break;
	case TRAWL_CONS_STATUS:
		break;
	case TRAWL_CONS_REMOVE_TRACE:
		ret = cmd_remove_trace(h.session_key, h.trace_key);
		break;
	case TRAWL_CONS_CLEAR:
		ret = ucons_cmd_clear(h.session_key);
		break;
	case TRAWL_CONS_ROTATE:
		ret = ucons_cmd_rotate(&h, payload, msg, sizeof(msg));
		break;
	case TRAWL_CONS_START: {
		struct cchannel *c;
		struct ctrace *t;

		/* cleared or rotated while stopped: the files begin again now */
		for (t = ucons_traces; t; t = t->next) {
			int r;

			if ((!h.session_key || t->session == h.session_key) &&
			    (r = ucons_trace_attach(t)) && !ret)
				ret = r;
		}
		for (c = ucons_channels; c; c = c->next)
			if (!h.session_key || c->session == h.session_key)
				c->paused = 0;
		break;
	}
	case TRAWL_CONS_QUIT:
		cmd_flush(0);
		reply(sock, 0, 0, msg);
		free(payload);
		return 1;
	default:
		bad = ret = -EPROTO;
		break;
	}
	reply(sock, h.session_key, ret, msg);
out:
	for (i = 0; i < nr_fds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(payload);
	return bad;
}

/*
 * Bounds what follows for every streamed trace (output.h): no relayd keeps
 * us from answering the daemon later than that. 0: unbounded again.
 */
static void traces_deadline(uint32_t ms)
{
	struct ctrace *t;

	for (t = ucons_traces; t; t = t->next)
		trawl_output_deadline(t->out, ms);
}

/*
 * Live: a channel whose writers reserved something since its last cut
 * (the switch timer's, or an early one) and whose last cut is at least
 * 1/LIVE_EARLY_DIV of the live timer old.
 */
#define LIVE_EARLY_DIV 8u
static int live_early_due(struct cchannel *c, uint64_t now)
{
	uint32_t i;

	if (!c->beacons || c->paused ||
	    now - c->last_switch_ns < c->info.switch_timer_us * 1000ull / LIVE_EARLY_DIV)
		return 0;
	for (i = 0; i < c->nr; i++) {
		uint64_t p = ucons_stream_produced(c, &c->streams[i]);

		if (p != UINT64_MAX && p != c->streams[i].live_produced)
			return 1;
	}
	return 0;
}

/*
 * Live: the sessions with a channel live_early_due() get their switch
 * timers run now. Why: an event waited for the next tick of the live timer
 * (half of it on average: 50 ms of the 56 ms median event-to-viewer
 * latency with --live=100000, bench/relayd/live.sh), and LTTng's consumer
 * waits the same. Cutting as soon as there is something to show, at most
 * LIVE_EARLY_DIV times a live period, takes that to a few ms. Every
 * channel of the session is cut, quiet ones included (their beacons): a
 * viewer shows an event only once every stream of the session is known up
 * to its time. A session with no events is cut by the timer alone, as
 * before: no more wake-ups (the check rides on the read timer's).
 */
static void live_early(uint64_t now)
{
	struct cchannel *c, *o;

	for (c = ucons_channels; c; c = c->next) {
		if (!c->info.switch_timer_us || now >= c->next_switch_ns || !live_early_due(c, now))
			continue;
		for (o = ucons_channels; o; o = o->next)
			if (o->session == c->session && o->beacons && !o->paused)
				o->next_switch_ns = now;
	}
}

static int op_arm(struct stream_op *op)
{
	return trawl_ustctl_stream_arm(op->cs->rb);
}

/*
 * The ns until @c is read again, just read. A read timer of its own: that
 * (its apps do not wake us, as LTTng's read timer). Apps that wake us: its
 * streams are armed, and we sleep until one of them closes a packet
 * (WAKE_IDLE_MS at most), unless a packet is closed already that we could
 * not take (its writers still committing: no wake-up comes for it) or
 * writers that cannot wake us were given it. Else every 1 ms. A snapshot
 * session's channel is never read (SNAPSHOT takes its packets).
 */
static uint64_t channel_read_period(struct cchannel *c)
{
	uint32_t i;
	int arm = 0;

	if (c->info.read_timer_us)
		return c->info.read_timer_us * 1000ull;
	if (c->info.snapshot_mode)
		return wake_idle_ns;
	/* Live channels look every 1 ms for an early cut (live_early()). */
	if (c->wake_fd < 0 || c->beacons)
		return DEFAULT_READ_TIMER_US * 1000ull;
	for (i = 0; i < c->nr; i++) {
		int r = ucons_stream_guarded(c, &c->streams[i], op_arm, NULL, 0);

		if (r > 0)
			arm |= r;
	}
	if (arm)
		return DEFAULT_READ_TIMER_US * 1000ull;
	return wake_idle_ns;
}

/* Runs due timers; returns the ns until the next one is due. */
static uint64_t run_timers(void)
{
	uint64_t now = now_ns(), next = 1000000000u; /* idle: 1 s */
	struct cchannel *c;
	uint32_t i;

	live_early(now);
	for (c = ucons_channels; c; c = c->next) {
		if (c->paused)
			continue;

		if (c->info.switch_timer_us && now >= c->next_switch_ns) {
			/* Live: a stream with nothing new gets an empty packet
			 * (a beacon), so relayd's live server can tell viewers
			 * it is quiet up to now instead of guessing (a full
			 * buffer gets none: its waiting packets say more). */
			for (i = 0; i < c->nr; i++) {
				if (c->beacons) {
					ucons_stream_flush_live(c, &c->streams[i]);
					c->streams[i].live_produced =
						ucons_stream_produced(c, &c->streams[i]);
				} else {
					ucons_stream_flush(c, &c->streams[i], 0);
				}
			}
			c->last_switch_ns = now;
			c->next_switch_ns = now + c->info.switch_timer_us * 1000ull;
			c->next_read_ns = now; /* what it cut: no app wakes us for it */
		}
		if (now >= c->next_read_ns) {
			uint64_t taken = c->taken;

			channel_drain(c);
			c->next_read_ns = now + channel_read_period(c);
			if (c->woken && c->taken == taken) {
				/* Woken for nothing (a packet still being
				 * committed, or an app writing the eventfd at
				 * will): its eventfd waits 1 ms, the channel is
				 * read then. Such an app gets us no more often
				 * than the 1 ms read timer did. */
				c->wake_mute_ns = now + DEFAULT_READ_TIMER_US * 1000ull;
				if (c->next_read_ns > c->wake_mute_ns)
					c->next_read_ns = c->wake_mute_ns;
			}
			c->woken = 0;
		}
		if (c->next_read_ns - now < next)
			next = c->next_read_ns - now;
		if (c->info.switch_timer_us && c->next_switch_ns - now < next)
			next = c->next_switch_ns - now;
	}
	return next;
}

/*
 * What the main loop polls: the daemon's socket first, then the eventfd of
 * each channel that is read when its apps wake us (pfd_chans[k] for
 * pfds[k + 1]).
 */
static struct pollfd *pfds;
static struct cchannel **pfd_chans;
static size_t pfds_cap, pfd_chans_cap;

/* What to poll into *@out; returns how many. Out of memory: the socket
 * alone (those channels are then read on their idle timer, and said). */
static nfds_t wake_fds_poll(int sock, struct pollfd **out)
{
	static struct pollfd sock_only;
	struct cchannel *c;
	uint64_t now;
	size_t n = 1;

	for (c = ucons_channels; c; c = c->next)
		n++;
	if (trawl_array_grow((void **)&pfds, &pfds_cap, n, sizeof(*pfds), 16) ||
	    trawl_array_grow((void **)&pfd_chans, &pfd_chans_cap, n, sizeof(*pfd_chans), 16)) {
		trawl_log(TRAWL_LOG_WARN, "out of memory: channels are read every %u ms", WAKE_IDLE_MS);
		sock_only = (struct pollfd){.fd = sock, .events = POLLIN};
		*out = &sock_only;
		return 1;
	}
	pfds[0] = (struct pollfd){.fd = sock, .events = POLLIN};
	n = 1;
	now = now_ns();
	for (c = ucons_channels; c; c = c->next) {
		if (c->wake_fd < 0 || c->paused || c->info.snapshot_mode || c->info.read_timer_us ||
		    c->beacons || c->wake_mute_ns > now)
			continue;
		pfd_chans[n - 1] = c;
		pfds[n++] = (struct pollfd){.fd = c->wake_fd, .events = POLLIN};
	}
	*out = pfds;
	return (nfds_t)n;
}

/* The channels whose eventfd was written: emptied, and read now. */
static void wake_fds_read(nfds_t nfds)
{
	uint64_t v;
	nfds_t k;

	for (k = 1; k < nfds; k++) {
		if (!pfds[k].revents)
			continue;
		if (read(pfds[k].fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			ucons_log("reading the wake-ups of", pfd_chans[k - 1]->info.name, errno);
		pfd_chans[k - 1]->next_read_ns = 0;
		pfd_chans[k - 1]->woken = 1;
	}
}

int trawl_ust_consumer_main(int argc, char **argv)
{
	int sock = -1, i, ret = 0;

	for (i = 2; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--fd"))
			sock = atoi(argv[i + 1]);
	if (sock < 3) {
		fprintf(stderr, "usage: trawl-consumerd --ust --fd N (started by trawl-sessiond)\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (getenv("TRAWL_UST_WAKE_IDLE_MS")) {
		unsigned long ms = strtoul(getenv("TRAWL_UST_WAKE_IDLE_MS"), NULL, 10);

		wake_idle_ns = ms ? ms * 1000000ull : UINT64_MAX / 4;
	}
	if (trawl_cons_bus_init())
		trawl_log(TRAWL_LOG_WARN, "no SIGBUS handler: a --shm-path buffer file truncated "
			  "under us kills us");
	for (;;) {
		uint64_t wait_ns;
		struct timespec ts;
		struct pollfd *pfd;
		nfds_t nfds;

		traces_deadline(TRAWL_OUTPUT_ROUND_MS);
		wait_ns = run_timers();
		traces_deadline(0);
		ts = (struct timespec){.tv_sec = (time_t)(wait_ns / 1000000000u),
				       .tv_nsec = (long)(wait_ns % 1000000000u)};
		nfds = wake_fds_poll(sock, &pfd);
		ret = ppoll(pfd, nfds, &ts, NULL);
		if (ret < 0 && errno != EINTR)
			break;
		if (ret > 0)
			wake_fds_read(nfds);
		if (ret > 0 && pfd[0].revents) {
			traces_deadline(TRAWL_OUTPUT_COMMAND_MS);
			ret = handle_command(sock);
			traces_deadline(0);
			if (ret)
				break;
		}
	}
	/* The daemon is gone or said quit: whatever was recorded goes to disk. */
	traces_deadline(TRAWL_OUTPUT_COMMAND_MS);
	cmd_flush(0);
	return ret < 0 ? 1 : 0;
}
