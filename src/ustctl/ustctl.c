/* SPDX-License-Identifier: MIT */
/*
 * ustctl.c - the daemon's side of the app protocol and of the ring buffers
 * (contract in ustctl.h, wire format in src/ustabi/wire.h, buffer algorithm in
 * src/ringbuffer/ringbuffer.h).
 */
#define _GNU_SOURCE
#include "ustctl/app-internal.h"

#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/common.h"
#include "ringbuffer/ringbuffer.h"
#include "ustabi/wire.h"


struct trawl_ustctl_stream {
	struct trawl_rb_reader r;
	int fd;
	uint64_t packets_read;
	uint64_t skip_below; /* resumed: packets below this seq are on disk already */
	uint64_t snap_count, snap_discarded; /* the reader's place at snapshot_begin */
};

/* ---- channels ---- */

/*
 * Shared memory that may shrink under us. A --shm-path buffer is a regular
 * file, which cannot be sealed as a memfd is: any process holding one of its
 * fds (its owner, a traced app) can ftruncate it, and the daemon's next load
 * or store in the mapping would be a SIGBUS that kills it, for every user.
 * So the daemon touches such a file only inside guarded(): a SIGBUS there
 * jumps back and the access fails with -EFAULT. The session daemon is one
 * thread (the handler is installed and removed around each access, and
 * restores the one before).
 */
static sigjmp_buf bus_jmp;

static void bus_handler(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

/* @fn(@arg) with SIGBUS turned into -EFAULT; @fn's mappings are @arg's to
 * record, for the caller to unmap whatever happened. */
static int guarded(int (*fn)(void *), void *arg)
{
	struct sigaction sa, old;
	volatile int ret = -EFAULT;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = bus_handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &old))
		return -errno;
	if (!sigsetjmp(bus_jmp, 1))
		ret = fn(arg);
	sigaction(SIGBUS, &old, NULL);
	return ret;
}

struct init_job {
	int fd;
	const struct trawl_ustctl_channel_attr *attr;
	uint32_t cpu;
	const struct trawl_rb_ident *id;
};

static int init_job_run(void *arg)
{
	struct init_job *j = arg;

	return trawl_rb_shm_init(j->fd, j->attr->subbuf_size, j->attr->num_subbuf, j->attr->overwrite, j->cpu,
				 j->attr->clock, j->id);
}

uint32_t trawl_ustctl_possible_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (n < 1)
		return 1;
	return n > TRAWL_USTCTL_MAX_STREAMS ? TRAWL_USTCTL_MAX_STREAMS : (uint32_t)n;
}

_Static_assert(TRAWL_USTCTL_CLOCK_MONOTONIC == (int)TRAWL_RB_CLOCK_MONOTONIC &&
		       TRAWL_USTCTL_CLOCK_APP == (int)TRAWL_RB_CLOCK_APP &&
		       TRAWL_USTCTL_CLOCK_TSC == (int)TRAWL_RB_CLOCK_TSC, "ustctl.h's clocks are the ring buffer's");

uint64_t trawl_ustctl_clock_now(uint32_t kind)
{
	if (kind == TRAWL_USTCTL_CLOCK_TSC)
		return trawl_rb_clock_tsc();
	return kind == TRAWL_USTCTL_CLOCK_MONOTONIC ? trawl_rb_clock_monotonic() : 0;
}

static struct trawl_rb_ident attr_ident(const struct trawl_ustctl_channel_attr *attr)
{
	struct trawl_rb_ident id;

	memcpy(id.uuid, attr->uuid, sizeof(id.uuid));
	id.stream_id = attr->stream_id;
	return id;
}

static int attr_check(const struct trawl_ustctl_channel_attr *attr)
{
	if (!attr->nr_streams || attr->nr_streams > TRAWL_USTCTL_MAX_STREAMS || attr->overwrite > 1 ||
	    attr->clock > TRAWL_RB_CLOCK_MAX || trawl_rb_check_attr(attr->subbuf_size, attr->num_subbuf))
		return -EINVAL;
	return 0;
}

uint64_t trawl_ustctl_stream_shm_size(const struct trawl_ustctl_channel_attr *attr)
{
	return trawl_rb_shm_size(attr->subbuf_size, attr->num_subbuf);
}

/* The channel of @attr over @fds (taken: closed on failure), or NULL. */
static int channel_new(const struct trawl_ustctl_channel_attr *attr, int *fds, struct trawl_ustctl_channel **out)
{
	struct trawl_ustctl_channel *chan;
	uint32_t i;

	chan = calloc(1, sizeof(*chan));
	if (chan)
		chan->fds = malloc(attr->nr_streams * sizeof(int));
	if (!chan || !chan->fds) {
		for (i = 0; i < attr->nr_streams; i++)
			close(fds[i]);
		free(chan);
		return -ENOMEM;
	}
	chan->attr = *attr;
	memcpy(chan->fds, fds, attr->nr_streams * sizeof(int));
	/* The apps' wake-ups to the consumer (ringbuffer.h), sent after the
	 * streams: none when they take every fd a message carries (the
	 * consumer then polls), or when the kernel gives none. */
	chan->wake_fd = -1;
	if (attr->nr_streams < TRAWL_USTCTL_MAX_STREAMS)
		chan->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	*out = chan;
	return 0;
}

int trawl_ustctl_channel_create(const struct trawl_ustctl_channel_attr *attr, struct trawl_ustctl_channel **out)
{
	struct trawl_rb_ident id = attr_ident(attr);
	int fds[TRAWL_USTCTL_MAX_STREAMS];
	uint32_t i;
	int ret;

	ret = attr_check(attr);
	if (ret)
		return ret;
	for (i = 0; i < attr->nr_streams; i++) {
		ret = trawl_rb_shm_create(attr->subbuf_size, attr->num_subbuf, attr->overwrite, i, attr->clock,
					  &id);
		if (ret < 0)
			goto err;
		fds[i] = ret;
	}
	return channel_new(attr, fds, out);
err:
	while (i--)
		close(fds[i]);
	return ret;
}

int trawl_ustctl_channel_create_in(const struct trawl_ustctl_channel_attr *attr, int *fds,
				   struct trawl_ustctl_channel **out)
{
	struct trawl_rb_ident id = attr_ident(attr);
	uint32_t i;
	int ret;

	ret = attr_check(attr);
	for (i = 0; !ret && i < attr->nr_streams; i++) {
		struct init_job j = { fds[i], attr, i, &id };

		/* (trawl_rb_shm_init() unmaps before it returns; a SIGBUS leaves
		 * one control page mapped, once, for a file that was cut) */
		ret = guarded(init_job_run, &j);
	}
	if (ret) {
		for (i = 0; i < attr->nr_streams && i < TRAWL_USTCTL_MAX_STREAMS; i++)
			close(fds[i]);
		return ret;
	}
	ret = channel_new(attr, fds, out);
	if (!ret)
		(*out)->files = 1;
	return ret;
}

struct discard_job {
	struct trawl_rb_ctrl *c;
	uint64_t n;
};

/* Adds @n to *@counter, saturating at 2^48. */
static void add_saturating(uint64_t *counter, uint64_t n)
{
	const uint64_t max = 1ull << 48;
	uint64_t old, v;

	/* The apps given the channel add to it too (one more lost event at a
	 * time): compare and swap. Relaxed, as they do. */
	old = __atomic_load_n(counter, __ATOMIC_RELAXED);
	do
		v = old >= max ? old : n >= max - old ? max : old + n;
	while (!__atomic_compare_exchange_n(counter, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static int discard_job_run(void *arg)
{
	struct discard_job *j = arg;

	/* a tally's counts: the part of lost_full said apart (ringbuffer.h) */
	add_saturating(&j->c->lost_tally, j->n);
	add_saturating(&j->c->lost_full, j->n);
	return 0;
}

int trawl_ustctl_channel_add_discarded(const struct trawl_ustctl_channel *chan, uint64_t n)
{
	size_t size = trawl_rb_ctrl_size(chan->attr.num_subbuf);
	struct discard_job j = { NULL, n };
	int ret;

	if (!n)
		return 0;
	j.c = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, chan->fds[0], 0);
	if (j.c == MAP_FAILED)
		return -errno;
	ret = chan->files ? guarded(discard_job_run, &j) : discard_job_run(&j);
	munmap(j.c, size);
	return ret;
}

void trawl_ustctl_channel_destroy(struct trawl_ustctl_channel *chan)
{
	uint32_t i;

	if (!chan)
		return;
	for (i = 0; i < chan->attr.nr_streams; i++)
		close(chan->fds[i]);
	if (chan->wake_fd >= 0)
		close(chan->wake_fd);
	free(chan->fds);
	free(chan);
}

int trawl_ustctl_channel_wake_fd(const struct trawl_ustctl_channel *chan)
{
	return chan->wake_fd;
}

static int legacy_job_run(void *arg)
{
	struct trawl_rb_ctrl *c = arg;

	__atomic_fetch_add(&c->wake_legacy, 1, __ATOMIC_RELAXED);
	return 0;
}

int trawl_ustctl_channel_mark_legacy(const struct trawl_ustctl_channel *chan)
{
	size_t size = trawl_rb_ctrl_size(chan->attr.num_subbuf);
	struct trawl_rb_ctrl *c;
	int ret;

	if (chan->wake_fd < 0)
		return 0; /* polled anyway */
	c = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, chan->fds[0], 0);
	if (c == MAP_FAILED)
		return -errno;
	ret = chan->files ? guarded(legacy_job_run, c) : legacy_job_run(c);
	munmap(c, size);
	if (!ret) {
		/* The consumer may sleep on the channel: woken, it reads the
		 * count and polls the channel from now on. */
		uint64_t one = 1;
		ssize_t n = write(chan->wake_fd, &one, sizeof(one));

		(void)n;
	}
	return ret;
}

const struct trawl_ustctl_channel_attr *trawl_ustctl_channel_attr(const struct trawl_ustctl_channel *chan)
{
	return &chan->attr;
}

int trawl_ustctl_channel_stream_fd(const struct trawl_ustctl_channel *chan, uint32_t cpu)
{
	return cpu < chan->attr.nr_streams ? chan->fds[cpu] : -EINVAL;
}

int trawl_ustctl_channel_memory(const struct trawl_ustctl_channel *chan, uint64_t *resident,
				uint64_t *size)
{
	struct stat st;
	uint32_t i;

	*resident = *size = 0;
	for (i = 0; i < chan->attr.nr_streams; i++) {
		/* st_blocks counts 512-byte units of pages the file has, on
		 * tmpfs (memfd) and disk file systems alike. */
		if (fstat(chan->fds[i], &st))
			return -errno;
		*resident += (uint64_t)st.st_blocks * 512u;
		*size += (uint64_t)st.st_size;
	}
	return 0;
}

/* ---- consumer side ---- */

int trawl_ustctl_stream_map(int fd, const struct trawl_ustctl_channel_attr *attr, uint32_t cpu,
			    uint64_t stream_instance_id, struct trawl_ustctl_stream **out)
{
	struct trawl_ustctl_stream *s;
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	ret = attr->clock > TRAWL_RB_CLOCK_MAX ? -EINVAL
		: trawl_rb_map(&s->r.rb, fd, attr->subbuf_size, attr->num_subbuf, attr->overwrite, cpu);
	if (ret)
		goto err;
	s->r.rb.clock = attr->clock;
	ret = trawl_rb_reader_init(&s->r);
	if (ret)
		goto err_map;
	memcpy(s->r.uuid, attr->uuid, 16);
	s->r.stream_id = attr->stream_id;
	s->r.stream_instance_id = stream_instance_id;
	s->fd = fd;
	*out = s;
	return 0;
err_map:
	trawl_rb_unmap(&s->r.rb);
err:
	free(s);
	return ret;
}

void trawl_ustctl_stream_unmap(struct trawl_ustctl_stream *s)
{
	if (!s)
		return;
	trawl_rb_reader_fini(&s->r);
	trawl_rb_unmap(&s->r.rb);
	close(s->fd);
	free(s);
}

int trawl_ustctl_stream_resume(struct trawl_ustctl_stream *s, uint64_t next_seq)
{
	uint64_t count = trawl_rb_reader_resume(&s->r);

	if (next_seq == UINT64_MAX || next_seq == count)
		return 0;
	if (next_seq == count + 1) {
		/* Written, then the consumer died before giving it back. */
		s->skip_below = next_seq;
		return 0;
	}
	return -ESTALE;
}

int trawl_ustctl_stream_get_packet(struct trawl_ustctl_stream *s, struct trawl_ustctl_packet *pkt)
{
	struct trawl_rb_packet p;
	int ret = trawl_rb_reader_get(&s->r, &p);

	while (!ret && p.seq < s->skip_below) {
		trawl_rb_reader_put(&s->r);
		ret = trawl_rb_reader_get(&s->r, &p);
	}
	if (ret)
		return ret;
	pkt->data = p.data;
	pkt->packet_size = p.packet_size;
	pkt->content_size = p.content_size;
	pkt->timestamp_begin = p.ts_begin;
	pkt->timestamp_end = p.ts_end;
	pkt->events_discarded = p.discarded;
	pkt->packet_seq_num = p.seq;
	return 0;
}

int trawl_ustctl_stream_put_packet(struct trawl_ustctl_stream *s)
{
	int ret = trawl_rb_reader_put(&s->r);

	if (!ret && !s->r.keep) /* a snapshot's reads are not the stream's */
		s->packets_read++;
	return ret;
}

void trawl_ustctl_stream_snapshot_begin(struct trawl_ustctl_stream *s)
{
	s->snap_count = s->r.count;
	s->snap_discarded = s->r.discarded;
	s->r.keep = 1;
}

void trawl_ustctl_stream_snapshot_end(struct trawl_ustctl_stream *s)
{
	if (s->r.holding)
		trawl_rb_reader_put(&s->r);
	s->r.count = s->snap_count;
	s->r.discarded = s->snap_discarded;
	s->r.forced = 0;
	s->r.keep = 0;
}

int trawl_ustctl_stream_flush(struct trawl_ustctl_stream *s, int final)
{
	if (final)
		return trawl_rb_reader_flush_final(&s->r, 10);
	return trawl_rb_flush(&s->r.rb, 0);
}

int trawl_ustctl_stream_flush_live(struct trawl_ustctl_stream *s)
{
	/* Overwrite mode would lose a sub-buffer of data to each empty packet. */
	return trawl_rb_flush(&s->r.rb, !s->r.rb.overwrite);
}

int trawl_ustctl_stream_arm(struct trawl_ustctl_stream *s)
{
	return trawl_rb_reader_arm(&s->r);
}

int trawl_ustctl_stream_counters(const struct trawl_ustctl_stream *s, struct trawl_ustctl_stream_counters *c)
{
	memset(c, 0, sizeof(*c));
	c->events_discarded = trawl_rb_lost(&s->r.rb);
	c->events_tallied = trawl_rb_lost_tally(&s->r.rb);
	c->packets_read = s->packets_read;
	c->packets_corrupt = s->r.corrupt;
	c->bytes_produced = __atomic_load_n(&s->r.rb.ctrl->reserve, __ATOMIC_RELAXED) & TRAWL_RB_POS_MASK;
	/* (overwrite mode: writers pass the consumer; the buffer is then full) */
	c->bytes_in_buffer = (c->bytes_produced -
			      (__atomic_load_n(&s->r.rb.ctrl->consumed, __ATOMIC_RELAXED) &
			       TRAWL_RB_POS_MASK)) & TRAWL_RB_POS_MASK;
	if (c->bytes_in_buffer > s->r.rb.subbuf_size * (uint64_t)s->r.rb.num_subbuf)
		c->bytes_in_buffer = s->r.rb.subbuf_size * (uint64_t)s->r.rb.num_subbuf;
	return 0;
}
