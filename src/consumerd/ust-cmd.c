/* SPDX-License-Identifier: MIT */
/*
 * ust-cmd.c - the session daemon's commands to the user-space consumer
 * (consumer-proto.h) and their replies: traces and channels added (their
 * streams mapped, their files opened) and removed, metadata, FLUSH for a
 * stop, START, and what each reply counts for its session, removed traces
 * included. The loop that reads the socket, drains the ring buffers and
 * runs the timers is ust-consumer.c's; snapshots, clears and rotations are
 * ust-snapshot.c's and ust-chunk.c's.
 */
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
#include "ctl/proto.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What removed traces counted, by session (REMOVE_TRACE). */
struct csession_acc {
	struct csession_acc *next;
	uint64_t session, discarded, tallied, bytes;
	struct trawl_cons_chan_counters chans[TRAWL_CONS_MAX_CHANNELS]; /* by channel_key - 1 */
	int err;                      /* a removed trace's write or streaming failure */
	char msg[TRAWL_CONS_MSG_LEN]; /* its line (trawl_output_broken()) */
};
static struct csession_acc *removed;

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
	struct ctrace **tp, *t = ucons_trace_find(key);
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
			ucons_channel_flush_final(c);
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

	if (h->size != sizeof(a) || ucons_trace_find(h->trace_key))
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
	struct ctrace *t = ucons_trace_find(h->trace_key);
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
		 * and stop say so (ucons_trace_untaken_msg()).
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
	struct ctrace *t = ucons_trace_find(h->trace_key);
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
		/* ours now (ucons_handle_command() closes the fds left at -1 alone) */
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
			ucons_trace_untaken_msg(t, msg, len);
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
int ucons_cmd_flush(uint64_t session)
{
	struct cchannel *c;
	struct ctrace *t;

	for (c = ucons_channels; c; c = c->next) {
		if ((!session || c->session == session) && !c->info.snapshot_mode) {
			if (c->trace->out) /* detached: stopped, nothing new since */
				ucons_channel_flush_final(c);
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
int ucons_handle_command(int sock)
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
		ret = ucons_cmd_flush(h.session_key);
		break;
	case TRAWL_CONS_REMOVE_SESSION:
		if (!h.session_key) {
			ret = -EINVAL;
			break;
		}
		ucons_cmd_flush(h.session_key);
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
		ucons_cmd_flush(0);
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
