/* SPDX-License-Identifier: MIT */
/*
 * ringbuffer.c - the slow paths of the ring buffer (switches, flush), its
 * creation and mapping, and the consumer side. The algorithm and the rules of
 * who writes what are in ringbuffer.h.
 */
#define _GNU_SOURCE
#include "ringbuffer/ringbuffer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ThreadSanitizer's dynamic annotations (its runtime defines them), for the
 * overwrite reader's seqlock-style copy; nothing in other builds. */
#if defined(__SANITIZE_THREAD__)
#define TRAWL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TRAWL_TSAN 1
#endif
#endif
#ifdef TRAWL_TSAN
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#define tsan_ignore_reads_begin() AnnotateIgnoreReadsBegin(__FILE__, __LINE__)
#define tsan_ignore_reads_end() AnnotateIgnoreReadsEnd(__FILE__, __LINE__)
#else
#define tsan_ignore_reads_begin() ((void)0)
#define tsan_ignore_reads_end() ((void)0)
#endif

int trawl_rb_check_attr(uint64_t subbuf_size, uint32_t num_subbuf)
{
	if (subbuf_size < TRAWL_RB_MIN_SUBBUF || (subbuf_size & (subbuf_size - 1)))
		return -EINVAL;
	if (num_subbuf < 2 || (num_subbuf & (num_subbuf - 1)) || num_subbuf > 65536)
		return -EINVAL;
	if (subbuf_size > TRAWL_RB_MAX_BUF / num_subbuf)
		return -EINVAL;
	return 0;
}

size_t trawl_rb_ctrl_size(uint32_t num_subbuf)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t sz = sizeof(struct trawl_rb_ctrl) + (size_t)num_subbuf * sizeof(struct trawl_rb_meta);

	return (sz + page - 1) / page * page;
}

size_t trawl_rb_shm_size(uint64_t subbuf_size, uint32_t num_subbuf)
{
	return trawl_rb_ctrl_size(num_subbuf) + (size_t)subbuf_size * num_subbuf;
}

int trawl_rb_shm_init(int fd, uint64_t subbuf_size, uint32_t num_subbuf, uint32_t overwrite, uint32_t cpu,
		      uint32_t clock, const struct trawl_rb_ident *id)
{
	struct trawl_rb_ctrl *c;
	struct stat st;
	size_t csize;
	int ret;

	ret = trawl_rb_check_attr(subbuf_size, num_subbuf);
	if (ret)
		return ret;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != trawl_rb_shm_size(subbuf_size, num_subbuf))
		return -EINVAL;
	csize = trawl_rb_ctrl_size(num_subbuf);
	c = mmap(NULL, csize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED)
		return -errno;
	memset(c, 0, csize);
	c->magic = TRAWL_RB_MAGIC;
	c->version = TRAWL_RB_VERSION;
	c->subbuf_size = subbuf_size;
	c->num_subbuf = num_subbuf;
	c->overwrite = overwrite;
	c->cpu = cpu;
	c->clock = clock;
	if (id) {
		c->stream_id = id->stream_id;
		memcpy(c->uuid, id->uuid, sizeof(c->uuid));
	}
	/*
	 * Packet 0 is cut at once, empty (as trawl_rb_flush() cuts one), so
	 * that a stream's first packet always says 0 events discarded:
	 * babeltrace2 counts discarded events as the difference from the
	 * packet before, and gives no count for those a stream's first packet
	 * declares. Events lost before anything else was written (one too
	 * large, a late daemon's tally: src/ust/slots.c) are then counted.
	 * At time 0 for a clock only the app reads: no event is older.
	 */
	c->meta[0].ts_begin = c->meta[0].ts_end = clock == TRAWL_RB_CLOCK_APP ? 0
						  : clock == TRAWL_RB_CLOCK_TSC ? trawl_rb_clock_tsc()
										: trawl_rb_clock_monotonic();
	c->meta[0].content_end = TRAWL_RB_PACKET_START;
	c->meta[0].commit = subbuf_size;
	c->reserve = subbuf_size;
	munmap(c, csize);
	return 0;
}

int trawl_rb_shm_create(uint64_t subbuf_size, uint32_t num_subbuf, uint32_t overwrite, uint32_t cpu,
			uint32_t clock, const struct trawl_rb_ident *id)
{
	int fd, ret;

	ret = trawl_rb_check_attr(subbuf_size, num_subbuf);
	if (ret)
		return ret;
	fd = memfd_create("trawl-ust-stream", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)trawl_rb_shm_size(subbuf_size, num_subbuf)))
		goto err_fd;
	/* Sealed: an app can neither shrink the file (SIGBUS in the consumer)
	 * nor grow it. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		goto err_fd;
	ret = trawl_rb_shm_init(fd, subbuf_size, num_subbuf, overwrite, cpu, clock, id);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
err_fd:
	ret = -errno;
	close(fd);
	return ret;
}

/* The last trawl_rb::serial given in this process. */
static uint64_t map_serial;

int trawl_rb_map(struct trawl_rb *rb, int fd, uint64_t subbuf_size, uint32_t num_subbuf, uint32_t overwrite,
		 uint32_t cpu)
{
	struct stat st;
	size_t size;
	void *m;
	int ret;

	ret = trawl_rb_check_attr(subbuf_size, num_subbuf);
	if (ret)
		return ret;
	size = trawl_rb_shm_size(subbuf_size, num_subbuf);
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != size)
		return -EINVAL;
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	rb->map = m;
	rb->map_size = size;
	rb->ctrl = m;
	rb->data = (char *)m + trawl_rb_ctrl_size(num_subbuf);
	rb->subbuf_size = subbuf_size;
	rb->subbuf_shift = trawl_rb_log2(subbuf_size);
	rb->num_subbuf = num_subbuf;
	rb->buf_mask = ((uint64_t)num_subbuf << rb->subbuf_shift) - 1;
	/* Relaxed: only unique numbers are needed (struct trawl_rb_last). */
	rb->serial = __atomic_add_fetch(&map_serial, 1, __ATOMIC_RELAXED);
	rb->overwrite = overwrite;
	rb->cpu = cpu;
	rb->clock = TRAWL_RB_CLOCK_MONOTONIC;
	rb->wait_full = 0;
	rb->read_clock = NULL;
	/* What the creator wrote: a liar only makes this process's commits
	 * ones the readers do not add (locked ones are always read). */
	rb->commit_cpu = rb->ctrl->magic == TRAWL_RB_MAGIC && rb->ctrl->version >= 2;
	rb->wake_fd = -1;
	rb->wake_dev = rb->wake_ino = 0;
	return 0;
}

/* An eventfd's fstat(): an anonymous inode (no file type bits). */
static int wake_fd_stat(int fd, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (fstat(fd, &st) || (st.st_mode & S_IFMT))
		return -EINVAL;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return 0;
}

int trawl_rb_set_wake_fd(struct trawl_rb *rb, int fd)
{
	rb->wake_fd = -1;
	if (fd < 0 || wake_fd_stat(fd, &rb->wake_dev, &rb->wake_ino))
		return -EINVAL;
	rb->wake_fd = fd;
	return 0;
}

void trawl_rb_wake(struct trawl_rb *rb)
{
	uint64_t one = 1, dev, ino;
	int e;

	if (rb->wake_fd < 0)
		return;
	/* Acquire-release exchange, and the consumer's (trawl_rb_reader_arm())
	 * too: the two are ordered on the flag. Ours first: the consumer's
	 * exchange reads what ours wrote, so this thread's switch (the reserve
	 * CAS before) is visible to its look at the reserve word after. Its
	 * first: we read 1 and wake it. Once per packet, not per event. */
	if (!__atomic_exchange_n(&rb->ctrl->wake_armed, 0, __ATOMIC_ACQ_REL))
		return;
	e = errno;
	/* fstat() and write() are async-signal-safe; the eventfd is
	 * non-blocking (a full counter: EAGAIN, the consumer is woken anyway). */
	if (!wake_fd_stat(rb->wake_fd, &dev, &ino) && dev == rb->wake_dev && ino == rb->wake_ino) {
		ssize_t n = write(rb->wake_fd, &one, sizeof(one));

		(void)n;
	} else {
		/* The program closed our eventfd (a daemon closing every
		 * descriptor, or one that reused the number): we can no longer
		 * wake the consumer, and it would sleep on this stream until its
		 * idle timer, each time, while we fill it. Counted as a writer
		 * that cannot wake it (as an older library): from its next look
		 * (its idle timer at the latest, once) it polls the channel, as
		 * before wake-ups. A racing thread may count twice: the count is
		 * only ever read as zero or not. */
		rb->wake_fd = -1;
		__atomic_fetch_add(&rb->ctrl->wake_legacy, 1, __ATOMIC_RELAXED);
	}
	errno = e;
}

void trawl_rb_unmap(struct trawl_rb *rb)
{
	if (rb->map)
		munmap(rb->map, rb->map_size);
	rb->map = NULL;
	rb->ctrl = NULL;
	rb->data = NULL;
}

uint64_t trawl_rb_lost(const struct trawl_rb *rb)
{
	/* Relaxed: counters; exactness is reached once producers are quiet. */
	return __atomic_load_n(&rb->ctrl->lost_full, __ATOMIC_RELAXED) +
	       __atomic_load_n(&rb->ctrl->lost_big, __ATOMIC_RELAXED);
}

uint64_t trawl_rb_lost_tally(const struct trawl_rb *rb)
{
	/* Relaxed: counters. Untrusted: never more than it is a part of. */
	uint64_t full = __atomic_load_n(&rb->ctrl->lost_full, __ATOMIC_RELAXED);
	uint64_t tally = __atomic_load_n(&rb->ctrl->lost_tally, __ATOMIC_RELAXED);

	return tally < full ? tally : full;
}

static struct trawl_rb_meta *slot_meta(struct trawl_rb *rb, uint64_t pos)
{
	return &rb->ctrl->meta[(pos >> rb->subbuf_shift) & (rb->num_subbuf - 1)];
}

void trawl_rb_switch_out(struct trawl_rb *rb, uint64_t old_pos, uint64_t ts)
{
	struct trawl_rb_meta *m = slot_meta(rb, old_pos);
	uint64_t off = old_pos & (rb->subbuf_size - 1);

	/* Plain stores: only this thread closes this use of the slot, and the
	 * release add below publishes them to the consumer. */
	m->content_end = off;
	m->ts_end = ts;
	m->discarded = trawl_rb_lost(rb);
	__atomic_fetch_add(&m->commit, rb->subbuf_size - off, __ATOMIC_RELEASE);
	trawl_rb_wake(rb);
}

void trawl_rb_switch_in(struct trawl_rb *rb, uint64_t slot_pos, uint64_t ts)
{
	struct trawl_rb_meta *m = slot_meta(rb, slot_pos);

	/* Only the opener writes ts_begin; published by the release add. */
	m->ts_begin = ts;
	__atomic_fetch_add(&m->commit, TRAWL_RB_PACKET_START, __ATOMIC_RELEASE);
}

/*
 * The end of the packet before position @pos (a packet boundary) when that
 * packet is complete (every byte committed: its closer's ts_end is visible),
 * else 0 in *@ts and -EAGAIN.
 */
static int prev_packet_end(struct trawl_rb *rb, uint64_t pos, uint64_t *ts)
{
	/* The slot's next use starts n sub-buffers after the packet. */
	uint64_t next_use = (pos - rb->subbuf_size + ((uint64_t)rb->num_subbuf << rb->subbuf_shift)) &
			    TRAWL_RB_POS_MASK;

	*ts = 0;
	/* trawl_rb_slot_free()'s acquire pairs with the closer's release add,
	 * after its plain store of ts_end. */
	if (!trawl_rb_slot_free(rb, next_use))
		return -EAGAIN;
	*ts = slot_meta(rb, pos - rb->subbuf_size)->ts_end;
	return 0;
}

/*
 * The time a process that cannot read an APP clock gives a flush at @pos
 * (@old: the reserve word), or -EAGAIN when it cuts nothing. Only the final
 * flush cuts (the app closes its own packets otherwise, trawl_rb_flush()):
 *  - at a boundary, an empty packet at the end of the one before, which is
 *    no later than any event to come (the app's clock only goes forward);
 *    none if that packet is still being closed;
 *  - in a packet the app left open (it died), the end of the window of 2^27
 *    ticks that ts_high says its last event is in: never before that event,
 *    at most 2^27 - 1 ticks after it. The window's upper bits come from the
 *    end of the packet before (events are later, and less than 2^55 ticks
 *    later).
 */
static int app_clock_flush_ts(struct trawl_rb *rb, uint64_t old, uint64_t pos, int final, uint64_t *ts)
{
	const uint64_t win = (uint64_t)1 << TRAWL_RB_TS_SHIFT;
	uint64_t off = pos & (rb->subbuf_size - 1), ref, high, tsh = old >> TRAWL_RB_POS_BITS;
	int ret;

	if (!final)
		return -EAGAIN;
	ret = prev_packet_end(rb, pos - off, &ref);
	if (off == 0) {
		*ts = ref;
		return ret;
	}
	high = (ref >> TRAWL_RB_TS_SHIFT) + ((tsh - (ref >> TRAWL_RB_TS_SHIFT)) & TRAWL_RB_TSH_MASK);
	*ts = high * win + (win - 1);
	return 0;
}

/* trawl_rb_flush(), and the final flush's (@final: nothing comes after). */
static int flush_at(struct trawl_rb *rb, int empty_ok, int final)
{
	struct trawl_rb_ctrl *c = rb->ctrl;
	const uint64_t S = rb->subbuf_size;
	int foreign = rb->clock == TRAWL_RB_CLOCK_APP && !rb->read_clock;
	uint64_t old, pos, off, next, ts;
	int tries;

	/* Acquire, as in trawl_rb_reserve(): the clock is read after the word. */
	old = __atomic_load_n(&c->reserve, __ATOMIC_ACQUIRE);
	/* Bounded: a hostile app could keep changing the word forever. */
	for (tries = 0; tries < 1000; tries++) {
		pos = old & TRAWL_RB_POS_MASK;
		off = pos & (S - 1);
		if (off == 0 && !empty_ok)
			return 0;
		if (!foreign)
			ts = trawl_rb_clock(rb);
		else if (app_clock_flush_ts(rb, old, pos, final, &ts))
			return 0;
		if (off == 0) {
			if (!rb->overwrite) {
				uint64_t cons = __atomic_load_n(&c->consumed, __ATOMIC_ACQUIRE);

				if (((pos - cons) & TRAWL_RB_POS_MASK) >= (uint64_t)rb->num_subbuf << rb->subbuf_shift)
					return -EAGAIN;
			}
			next = (pos + S) & TRAWL_RB_POS_MASK;
		} else {
			next = (pos - off + S) & TRAWL_RB_POS_MASK;
		}
		/* Keep ts_high: no event is reserved by a flush. */
		if (__atomic_compare_exchange_n(&c->reserve, &old, (old & ~TRAWL_RB_POS_MASK) | next, 1,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			break;
	}
	if (tries == 1000)
		return -EBUSY;
	if (off == 0) {
		/* An empty packet: open and close it at once. */
		struct trawl_rb_meta *m = slot_meta(rb, pos);

		m->ts_begin = ts;
		m->ts_end = ts;
		m->content_end = TRAWL_RB_PACKET_START;
		m->discarded = trawl_rb_lost(rb);
		__atomic_fetch_add(&m->commit, S, __ATOMIC_RELEASE);
		return 0;
	}
	trawl_rb_switch_out(rb, pos, ts);
	return 0;
}

int trawl_rb_flush(struct trawl_rb *rb, int empty_ok)
{
	return flush_at(rb, empty_ok, 0);
}

/* ---- consumer ---- */

int trawl_rb_reader_init(struct trawl_rb_reader *r)
{
	r->count = 0;
	r->forced = 0;
	r->holding = 0;
	r->corrupt = 0;
	r->discarded = 0;
	r->keep = 0;
	r->copy = NULL;
	if (r->rb.overwrite) {
		r->copy = malloc(r->rb.subbuf_size);
		if (!r->copy)
			return -ENOMEM;
	}
	return 0;
}

void trawl_rb_reader_fini(struct trawl_rb_reader *r)
{
	free(r->copy);
	r->copy = NULL;
}

/* Sub-buffers (packets) the producers have started, counted from r->count. */
static uint64_t packets_ahead(struct trawl_rb_reader *r, uint64_t *pos)
{
	uint64_t w = __atomic_load_n(&r->rb.ctrl->reserve, __ATOMIC_ACQUIRE);
	uint64_t mask = TRAWL_RB_POS_MASK >> r->rb.subbuf_shift;

	*pos = w & TRAWL_RB_POS_MASK;
	return ((*pos >> r->rb.subbuf_shift) - r->count) & mask;
}

static void fill_start(struct trawl_rb_reader *r, char *base, struct trawl_rb_packet *pkt)
{
	struct trawl_ctf_packet_start ps;

	ps.header.magic = TRAWL_CTF_MAGIC;
	memcpy(ps.header.uuid, r->uuid, 16);
	ps.header.stream_id = r->stream_id;
	ps.header.stream_instance_id = r->stream_instance_id;
	ps.context.timestamp_begin = pkt->ts_begin;
	ps.context.timestamp_end = pkt->ts_end;
	ps.context.content_size = pkt->content_size * 8;
	ps.context.packet_size = pkt->packet_size * 8;
	ps.context.packet_seq_num = pkt->seq;
	ps.context.events_discarded = pkt->discarded;
	ps.context.cpu_id = r->rb.cpu;
	memcpy(base, &ps, sizeof(ps));
}

static int reader_get(struct trawl_rb_reader *r, struct trawl_rb_packet *pkt)
{
	struct trawl_rb *rb = &r->rb;
	const uint64_t S = rb->subbuf_size;
	uint64_t pos, ahead, slot, expect, commit, content;
	struct trawl_rb_meta *m;
	char *base;

	if (r->holding)
		return -EBUSY;
	ahead = packets_ahead(r, &pos);
	if (rb->overwrite && ahead >= rb->num_subbuf) {
		/* The producers lapped us: skip to the oldest slot that can still
		 * be intact (a gap in packet_seq_num). */
		r->count += ahead - (rb->num_subbuf - 1);
		ahead = rb->num_subbuf - 1;
	}
	slot = r->count & (rb->num_subbuf - 1);
	m = &rb->ctrl->meta[slot];
	expect = ((r->count >> trawl_rb_log2(rb->num_subbuf)) + 1) * S;
	commit = trawl_rb_committed(m);
	if (ahead == 0 && !r->forced)
		return -EAGAIN; /* the current packet is still open */
	if (commit != expect) {
		if (r->forced) {
			/* Final flush of a dead writer: take what was committed. */
			content = r->forced;
			goto take;
		}
		if (commit < expect && expect - commit <= S)
			return -EAGAIN; /* writers still committing */
		goto corrupt;
	}
	content = m->content_end;
take:
	if (content < TRAWL_RB_PACKET_START || content > S)
		goto corrupt;
	pkt->ts_begin = m->ts_begin;
	pkt->ts_end = m->ts_end;
	if (pkt->ts_end < pkt->ts_begin)
		pkt->ts_end = pkt->ts_begin;
	/*
	 * A producer preempted between closing its packet (the CAS) and reading
	 * the lost counter can record a higher count than the next packet's
	 * closer did: the count given out never goes down (CTF readers take
	 * the difference between packets), and the last packet's is exact.
	 */
	pkt->discarded = m->discarded > r->discarded ? m->discarded : r->discarded;
	pkt->content_size = content;
	pkt->packet_size = S;
	pkt->seq = r->count;
	base = rb->data + (slot << rb->subbuf_shift);
	/*
	 * Buffer pages are allocated lazily (a memfd's page on its first
	 * touch, a read fault included): an empty packet (a stream's first,
	 * cut at creation, and each one a flush closes with nothing in it) is
	 * given out from the reader's memory, and a copy takes the content
	 * alone, so that what a CPU never traced on costs nothing.
	 */
	if (content == TRAWL_RB_PACKET_START) {
		/* Its header bytes were committed, never written: nothing to
		 * read in the slot. */
		base = (char *)r->empty;
	} else if (rb->overwrite) {
		memcpy(r->copy, base, content);
		base = r->copy;
	}
	if (rb->overwrite) {
		/* Seqlock read side: the copy's loads (and the meta's) complete
		 * before the positions are read again. TSan does not model a
		 * fence (gcc's -Wtsan says so): nothing it could check here, as
		 * the copy races with producers by design (a torn copy is what
		 * the check below finds), so the warning is silenced here only. */
#pragma GCC diagnostic push
#if defined(__SANITIZE_THREAD__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wtsan"
#endif
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
#pragma GCC diagnostic pop
		/* Seqlock-style check: if the producers came back to this slot
		 * while we copied, the copy is torn. */
		if (packets_ahead(r, &pos) >= rb->num_subbuf)
			goto corrupt;
		if (trawl_rb_committed(m) != commit)
			goto corrupt;
	}
	fill_start(r, base, pkt);
	pkt->data = base;
	r->discarded = pkt->discarded;
	r->holding = 1;
	return 0;
corrupt:
	r->corrupt++;
	r->forced = 0;
	r->count++;
	if (!rb->overwrite && !r->keep)
		__atomic_store_n(&rb->ctrl->consumed, (r->count << rb->subbuf_shift) & TRAWL_RB_POS_MASK,
				 __ATOMIC_RELEASE);
	return -EPROTO;
}

int trawl_rb_reader_get(struct trawl_rb_reader *r, struct trawl_rb_packet *pkt)
{
	int ret;

	if (!r->rb.overwrite)
		return reader_get(r, pkt);
	/* Overwrite mode reads a slot's meta and copies its data while
	 * producers may be reusing it, by design: the seqlock-style check
	 * drops a torn copy. TSan would report each of those reads as a race
	 * (the plain stores in trawl_rb_switch_in/out, the payloads), so it is
	 * told to ignore them here; its atomics still order. */
	tsan_ignore_reads_begin();
	ret = reader_get(r, pkt);
	tsan_ignore_reads_end();
	return ret;
}

int trawl_rb_reader_arm(struct trawl_rb_reader *r)
{
	uint64_t pos;
	int ret = 0;

	/* Acquire-release: ordered with the producers' exchange on the flag
	 * (trawl_rb_wake()): the reserve word read after it shows the switch
	 * of any producer that found the flag 0 before. */
	__atomic_exchange_n(&r->rb.ctrl->wake_armed, 1, __ATOMIC_ACQ_REL);
	if (packets_ahead(r, &pos))
		ret |= TRAWL_RB_ARM_PENDING;
	if (__atomic_load_n(&r->rb.ctrl->wake_legacy, __ATOMIC_RELAXED))
		ret |= TRAWL_RB_ARM_LEGACY;
	return ret;
}

uint64_t trawl_rb_reader_resume(struct trawl_rb_reader *r)
{
	struct trawl_rb *rb = &r->rb;
	uint32_t nshift = trawl_rb_log2(rb->num_subbuf);
	uint64_t pmask = TRAWL_RB_POS_MASK >> rb->subbuf_shift; /* packet numbers are mod 2^36 / S */
	uint64_t qmask = pmask >> nshift;                        /* generations, mod 2^36 / (n S) >= 16 */
	/* Acquire: pairs with the dead reader's release store at its last put. */
	uint64_t cons = __atomic_load_n(&rb->ctrl->consumed, __ATOMIC_ACQUIRE) & TRAWL_RB_POS_MASK;
	uint64_t pos = __atomic_load_n(&rb->ctrl->reserve, __ATOMIC_ACQUIRE) & TRAWL_RB_POS_MASK;
	uint64_t cur = pos >> rb->subbuf_shift, slot = cur & (rb->num_subbuf - 1);
	uint64_t commit = trawl_rb_committed(&rb->ctrl->meta[slot]);
	uint64_t g = commit >> rb->subbuf_shift, gen;

	/*
	 * The packet being written (or about to be opened), @cur, is in use g
	 * of its slot, where commit lies in [g S, (g + 1) S): its bytes so far
	 * are committed on top of g whole uses. A writer of the slot's previous
	 * use still committing can leave commit one S behind; the position
	 * gives g modulo 2^36 / (n S), which picks the right one of g - 1, g,
	 * g + 1.
	 */
	if (((g + 1) & qmask) == ((cur >> nshift) & qmask))
		gen = g + 1;
	else if (g && ((g - 1) & qmask) == ((cur >> nshift) & qmask))
		gen = g - 1;
	else
		gen = g;
	cur = (gen << nshift) + slot;
	/* The dead reader's next packet is that many packets before it. */
	r->count = cur - ((cur - (cons >> rb->subbuf_shift)) & pmask);
	/* The count the dead reader gave out by its last put: a packet closed
	 * late can hold a higher one than the next packet's (reader_get()). */
	r->discarded = __atomic_load_n(&rb->ctrl->consumed_discarded, __ATOMIC_RELAXED);
	return r->count;
}

int trawl_rb_reader_put(struct trawl_rb_reader *r)
{
	if (!r->holding)
		return -EINVAL;
	r->holding = 0;
	r->forced = 0;
	r->count++;
	if (r->keep)
		return 0;
	/* Before consumed: a reader resuming from that position (acquire)
	 * sees the count given out with the packets before it. */
	__atomic_store_n(&r->rb.ctrl->consumed_discarded, r->discarded, __ATOMIC_RELAXED);
	/* Release: pairs with the producers' acquire load of consumed; our
	 * reads of the slot are done before they write it again. */
	__atomic_store_n(&r->rb.ctrl->consumed, (r->count << r->rb.subbuf_shift) & TRAWL_RB_POS_MASK,
			 __ATOMIC_RELEASE);
	return 0;
}

int trawl_rb_reader_flush_final(struct trawl_rb_reader *r, int wait_ms)
{
	struct trawl_rb *rb = &r->rb;
	struct timespec d = { 0, 200000 };
	uint64_t pos, ahead, expect, commit = 0, last;
	int ret, i;

	ret = flush_at(rb, 1, 1);
	if (ret)
		return ret;
	/* Wait for the last packet (the one just closed) to be complete. */
	ahead = packets_ahead(r, &pos);
	if (ahead == 0)
		return 0;
	last = r->count + ahead - 1;
	expect = ((last >> trawl_rb_log2(rb->num_subbuf)) + 1) * rb->subbuf_size;
	for (i = 0; i < wait_ms * 5; i++) {
		commit = trawl_rb_committed(&rb->ctrl->meta[last & (rb->num_subbuf - 1)]);
		if (commit == expect)
			return 0;
		nanosleep(&d, NULL);
	}
	/* A writer died (or stalls) in the middle of an event: force the
	 * committed prefix when that packet comes up next. Exact for a single
	 * writer, whose commits are in order. */
	if (ahead == 1 && commit < expect && expect - commit <= rb->subbuf_size) {
		uint64_t missing = expect - commit;
		uint64_t end = rb->ctrl->meta[last & (rb->num_subbuf - 1)].content_end;

		/* The closer committed the padding after @end; what is missing
		 * was reserved but never committed, at the end for one writer. */
		r->forced = end >= TRAWL_RB_PACKET_START + missing ? end - missing : TRAWL_RB_PACKET_START;
	}
	return 0;
}
