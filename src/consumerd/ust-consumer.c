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
/* The time slice we ask for, in us (sched.c): the shortest the kernel
 * grants (0.1 ms). */
#define CONSUMER_SLICE_US 100u

struct cchannel *ucons_channels;
struct ctrace *ucons_traces;
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

struct ctrace *ucons_trace_find(uint64_t key)
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
void ucons_trace_untaken_msg(const struct ctrace *t, char *msg, size_t len)
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
void ucons_channel_flush_final(struct cchannel *c)
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
	{
		/* A short time slice (sched.c): woken by an app, we run within
		 * a fraction of a millisecond even when every CPU is busy.
		 * TRAWL_UST_CONSUMER_SLICE_US overrides it (0: the kernel's
		 * default, for comparisons). */
		uint64_t us = CONSUMER_SLICE_US;
		int err;

		if (getenv("TRAWL_UST_CONSUMER_SLICE_US"))
			us = strtoull(getenv("TRAWL_UST_CONSUMER_SLICE_US"), NULL, 10);
		err = trawl_cons_sched_slice(us > 100000 ? 100000000ull : us * 1000);
		if (err)
			trawl_log(TRAWL_LOG_WARN, "cannot ask for a %llu us time slice: %s",
				  (unsigned long long)us, strerror(-err));
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
			ret = ucons_handle_command(sock);
			traces_deadline(0);
			if (ret)
				break;
		}
	}
	/* The daemon is gone or said quit: whatever was recorded goes to disk. */
	traces_deadline(TRAWL_OUTPUT_COMMAND_MS);
	ucons_cmd_flush(0);
	return ret < 0 ? 1 : 0;
}
