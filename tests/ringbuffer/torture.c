/* SPDX-License-Identifier: MIT */
/*
 * Ring buffer torture test: T producer threads write N events each into one
 * small shared stream (so switches, drops and laps are frequent), yielding at
 * random points; one consumer thread drains packets as it goes. Checks:
 * every packet parses (compact/extended headers, in-bounds, timestamps never
 * go back), each thread's sequence numbers come in increasing order, and
 * events read + events discarded == T * N exactly (discard mode), or the
 * newest packets survive (overwrite mode). In live mode (discard mode plus
 * a live timer) the consumer also cuts the current packet as fast as it can,
 * with an empty packet when the stream is at a boundary, as a live session's
 * consumer does every period: empty packets must be cut at one instant, no
 * packet may begin before the previous one ended, and the accounting above
 * stays exact. In resume mode (discard mode whose reader keeps dying, as a
 * killed consumer does) a new reader takes over with
 * trawl_rb_reader_resume() after random packets, some while the dead one
 * held a packet it had not given back: it must carry on at exactly the
 * packet its predecessor had not given back, and the accounting stays
 * exact. Before the threads start, resume mode also checks a stream set up
 * as if 2^36 bytes and more had gone through it (beyond what positions
 * hold): the resumed count is absolute, and the events_discarded given
 * out does not go down from one reader to the next. In every mode, half of
 * the events are committed to the slot's second count (commit_cpu), which
 * every reader must add to the first.
 *
 * The clock is the TSC where there is one, or CLOCK_MONOTONIC with the
 * fourth argument "monotonic": trawl_rb_reserve_try() reads each inline.
 *
 *   torture [discard|overwrite|live|resume] [threads] [events per thread] [tsc|monotonic]
 */
#define _GNU_SOURCE
#include "ringbuffer/ringbuffer.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__)
#define TSC_OR_MONOTONIC TRAWL_RB_CLOCK_TSC
#else
#define TSC_OR_MONOTONIC TRAWL_RB_CLOCK_MONOTONIC
#endif

#define SUBBUF 4096
#define NSUB 4

struct payload {
	uint32_t thread;
	uint32_t seq;
	uint64_t fill[2];
};

static struct trawl_rb prod;
static struct trawl_rb_reader rd;
static int overwrite;
static int live;
static int resume;
static uint64_t deaths;
static uint64_t empty_packets;
static uint64_t last_discarded; /* events_discarded never goes down along a stream */
static uint32_t nthreads = 4, nevents = 200000;
static int producers_done;
static uint64_t events_read;
static uint32_t *last_seq;
static int failed;

#define FAIL(...) do { fprintf(stderr, "torture: " __VA_ARGS__); fputc('\n', stderr); failed = 1; } while (0)

static void *producer(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	unsigned int seed = t * 7919u + 1;
	struct trawl_rb_ctx ctx;
	struct trawl_rb_last last = { 0, 0, 0 };
	struct payload p;
	uint32_t i;
	int ret;

	for (i = 0; i < nevents; i++) {
		uint32_t id = (rand_r(&seed) & 7) == 0 ? 40 : t; /* some extended headers */
		uint64_t len = 8 + (rand_r(&seed) % 3) * 8;

		/* Both entry points: mostly the inline common case, which
		 * reads the TSC unordered while this thread's event is the
		 * stream's last (the packets' checks see any timestamp going
		 * back), and falls back to the loop for switches and lost
		 * races; and the loop alone, after which the next inline
		 * reservation must read the clock ordered again. */
		ret = (rand_r(&seed) & 3) ? trawl_rb_reserve_try(&prod, id, len, &ctx, &last) : TRAWL_RB_TRY_SLOW;
		if (ret == TRAWL_RB_TRY_SLOW)
			ret = trawl_rb_reserve(&prod, id, len, &ctx);
		if (ret)
			continue;
		if ((rand_r(&seed) & 255) == 0)
			sched_yield(); /* preempted between reserve and commit */
		p.thread = t | (uint32_t)len << 16; /* the reader needs the length */
		p.seq = i;
		p.fill[0] = p.fill[1] = 0xabababababababab;
		memcpy(ctx.p, &p, len);
		/* Half of the events commit to the slot's second count, as
		 * libtrawl-ust does on the stream's own CPU (a plain add under
		 * rseq there; an atomic add here, from threads on any CPU):
		 * every reader must add the two (ringbuffer.h). */
		if (rand_r(&seed) & 1)
			__atomic_fetch_add(&ctx.meta->commit_cpu, ctx.len, __ATOMIC_RELEASE);
		else
			trawl_rb_commit(&ctx);
		if ((rand_r(&seed) & 1023) == 0)
			sched_yield();
		/* Live: quiet spells, so the consumer's cuts also find the
		 * stream at a boundary (empty packets) while others write. */
		if (live && (rand_r(&seed) & 4095) == 0)
			usleep(100);
	}
	return NULL;
}

static void check_packet(const struct trawl_rb_packet *pkt, uint64_t *last_ts)
{
	const char *d = pkt->data;
	uint64_t off = TRAWL_RB_PACKET_START, ts = pkt->ts_begin;
	const struct trawl_ctf_packet_start *ps = pkt->data;

	if (ps->header.magic != TRAWL_CTF_MAGIC || ps->context.content_size != pkt->content_size * 8)
		FAIL("bad packet start");
	if (pkt->ts_begin < *last_ts)
		FAIL("packet begins before the previous ended");
	if (ps->context.events_discarded < last_discarded)
		FAIL("events_discarded went down: %llu after %llu",
		     (unsigned long long)ps->context.events_discarded, (unsigned long long)last_discarded);
	last_discarded = ps->context.events_discarded;
	if (pkt->content_size == TRAWL_RB_PACKET_START) {
		empty_packets++;
		if (pkt->ts_begin != pkt->ts_end)
			FAIL("empty packet from %llu to %llu", (unsigned long long)pkt->ts_begin,
			     (unsigned long long)pkt->ts_end);
	}
	while (off < pkt->content_size) {
		uint32_t id, w;
		uint64_t len, t;
		struct payload p = { 0, 0, { 0, 0 } };

		if ((d[off] & 31) == 31) {
			memcpy(&id, d + off + 1, 4);
			memcpy(&t, d + off + 5, 8);
			off += 13;
		} else {
			memcpy(&w, d + off, 4);
			id = w & 31;
			t = (ts & ~((UINT64_C(1) << 27) - 1)) | (w >> 5);
			if (t < ts)
				t += UINT64_C(1) << 27;
			off += 4;
		}
		if (t < ts)
			FAIL("timestamp goes back: %llu < %llu", (unsigned long long)t, (unsigned long long)ts);
		ts = t;
		memcpy(&p, d + off, 8);
		len = p.thread >> 16;
		p.thread &= 0xffff;
		if (len != 8 && len != 16 && len != 24) {
			FAIL("bad event length at %llu", (unsigned long long)off);
			return;
		}
		if (p.thread >= nthreads || (id != p.thread && id != 40)) {
			FAIL("garbage event at %llu", (unsigned long long)off);
			return;
		}
		if (last_seq[p.thread] != UINT32_MAX && p.seq <= last_seq[p.thread] && !overwrite)
			FAIL("thread %u: seq %u after %u", p.thread, p.seq, last_seq[p.thread]);
		last_seq[p.thread] = p.seq;
		off += len;
		events_read++;
	}
	if (off != pkt->content_size)
		FAIL("event overruns content");
	if (ts > pkt->ts_end)
		FAIL("event after timestamp_end");
	*last_ts = pkt->ts_end;
}

/*
 * The reader dies and another takes over from what is in shared memory.
 * @held: it died holding a packet (got, not put): the new one must start
 * at that packet again.
 */
static void reader_die(int held)
{
	uint64_t want = rd.count;

	(void)held; /* either way, the packet not given back is the next one */
	trawl_rb_reader_fini(&rd);
	memset(&rd, 0, sizeof(rd));
	rd.rb = prod;
	if (trawl_rb_reader_init(&rd))
		FAIL("cannot set up a new reader");
	if (trawl_rb_reader_resume(&rd) != want)
		FAIL("resumed at packet %llu, the dead reader was at %llu", (unsigned long long)rd.count,
		     (unsigned long long)want);
	rd.count = want; /* go on checking the rest even after a failure */
	deaths++;
}

static void drain(uint64_t *last_ts)
{
	static unsigned int seed = 12345;
	struct trawl_rb_packet pkt;
	int ret;

	while ((ret = trawl_rb_reader_get(&rd, &pkt)) != -EAGAIN) {
		if (ret == -EPROTO) {
			if (!overwrite)
				FAIL("corrupt packet in discard mode");
			continue;
		}
		if (resume && (rand_r(&seed) & 15) == 0) {
			reader_die(1);
			continue;
		}
		check_packet(&pkt, last_ts);
		trawl_rb_reader_put(&rd);
		if (resume && (rand_r(&seed) & 15) == 0)
			reader_die(0);
	}
}

/*
 * A stream as if more than 2^36 bytes had gone through it: packet numbers
 * in positions wrapped, commit counts did not. The reader gave back
 * everything before packet @a; packets a and a + 1 are complete, a + 2 is
 * being written. A new reader must resume at @a exactly, and read it.
 */
static void check_far(void)
{
	const uint64_t S = SUBBUF, n = NSUB;
	uint64_t a = (UINT64_C(1) << 36) / S * 3 + 5, p, pos;
	struct trawl_rb_packet pkt;
	struct trawl_rb far;
	struct trawl_rb_reader r;
	int fd = trawl_rb_shm_create(SUBBUF, NSUB, 0, 0, TRAWL_RB_CLOCK_MONOTONIC, NULL);

	if (fd < 0 || trawl_rb_map(&far, fd, SUBBUF, NSUB, 0, 0)) {
		FAIL("far: cannot set up the buffer");
		return;
	}
	close(fd);
	for (p = a - 1; p <= a + 2; p++) {
		struct trawl_rb_meta *m = &far.ctrl->meta[p % n];

		m->ts_begin = m->ts_end = 1000 + p;
		/* a's closer was preempted before it read the lost count */
		m->discarded = p == a ? 50 : p > a ? 30 : 0;
		m->content_end = TRAWL_RB_PACKET_START;
		/* p's use of its slot is p / n: complete, or begun (header and 100 bytes) */
		m->commit = p < a + 2 ? (p / n + 1) * S : p / n * S + TRAWL_RB_PACKET_START + 100;
		/* 100 of those bytes in the second count: resume adds them. */
		m->commit -= 100;
		m->commit_cpu = 100;
	}
	pos = (a + 2) * S + TRAWL_RB_PACKET_START + 100;
	far.ctrl->reserve = pos & TRAWL_RB_POS_MASK;
	far.ctrl->consumed = (a * S) & TRAWL_RB_POS_MASK;
	memset(&r, 0, sizeof(r));
	r.rb = far;
	if (trawl_rb_reader_init(&r) || trawl_rb_reader_resume(&r) != a)
		FAIL("far: resumed at packet %llu, not %llu", (unsigned long long)r.count,
		     (unsigned long long)a);
	else if (trawl_rb_reader_get(&r, &pkt) || pkt.seq != a || pkt.ts_begin != 1000 + a)
		FAIL("far: packet %llu not readable after resuming", (unsigned long long)a);
	else if (pkt.discarded != 50 || trawl_rb_reader_put(&r))
		FAIL("far: packet %llu says %llu discarded, not 50", (unsigned long long)a,
		     (unsigned long long)pkt.discarded);
	trawl_rb_reader_fini(&r);
	/* That reader dies after its put: the next one gives packet a + 1,
	 * closed before a's closer read the lost count (30 < 50), as 50, as
	 * the dead reader would have: a CTF reader takes differences. */
	memset(&r, 0, sizeof(r));
	r.rb = far;
	if (trawl_rb_reader_init(&r) || trawl_rb_reader_resume(&r) != a + 1)
		FAIL("far: resumed at packet %llu, not %llu", (unsigned long long)r.count,
		     (unsigned long long)a + 1);
	else if (trawl_rb_reader_get(&r, &pkt) || pkt.seq != a + 1)
		FAIL("far: packet %llu not readable after resuming", (unsigned long long)a + 1);
	else if (pkt.discarded != 50)
		FAIL("far: events_discarded went down across readers: %llu after 50",
		     (unsigned long long)pkt.discarded);
	trawl_rb_reader_fini(&r);
	trawl_rb_unmap(&far);
}

static void *consumer(void *arg)
{
	uint64_t *last_ts = arg;

	while (!__atomic_load_n(&producers_done, __ATOMIC_ACQUIRE)) {
		/* Live timer, without the wait: races every producer step. */
		if (live)
			trawl_rb_flush(&rd.rb, 1);
		drain(last_ts);
		if (!overwrite)
			usleep(50);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64], cons;
	uint64_t last_ts = 0, lost;
	uint32_t i, clock = TSC_OR_MONOTONIC;
	int fd;

	if (argc > 4 && !strcmp(argv[4], "monotonic"))
		clock = TRAWL_RB_CLOCK_MONOTONIC;
	else if (argc > 4 && strcmp(argv[4], "tsc"))
		return 2;
	overwrite = argc > 1 && !strcmp(argv[1], "overwrite");
	live = argc > 1 && !strcmp(argv[1], "live");
	resume = argc > 1 && !strcmp(argv[1], "resume");
	if (resume)
		check_far();
	if (argc > 2)
		nthreads = (uint32_t)atoi(argv[2]);
	if (argc > 3)
		nevents = (uint32_t)atoi(argv[3]);
	if (nthreads < 1 || nthreads > 30)
		return 2;
	last_seq = malloc(nthreads * sizeof(*last_seq));
	for (i = 0; i < nthreads; i++)
		last_seq[i] = UINT32_MAX;
	/* The TSC where there is one (the clock apps use where the kernel
	 * trusts it), else or when asked CLOCK_MONOTONIC. */
	fd = trawl_rb_shm_create(SUBBUF, NSUB, (uint32_t)overwrite, 0, clock, NULL);
	/* One mapping shared by producers and consumer: TSan tracks memory by
	 * address, so two mappings of the memfd would hide every
	 * synchronization between them from it. */
	if (fd < 0 || trawl_rb_map(&prod, fd, SUBBUF, NSUB, (uint32_t)overwrite, 0)) {
		fprintf(stderr, "torture: cannot set up the buffer\n");
		return 1;
	}
	prod.clock = clock;
	rd.rb = prod;
	if (trawl_rb_reader_init(&rd)) {
		fprintf(stderr, "torture: cannot set up the buffer\n");
		return 1;
	}
	close(fd);
	rd.stream_id = 0;
	rd.stream_instance_id = 0;
	pthread_create(&cons, NULL, consumer, &last_ts);
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, producer, (void *)(uintptr_t)i);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	__atomic_store_n(&producers_done, 1, __ATOMIC_RELEASE);
	pthread_join(cons, NULL);
	drain(&last_ts);
	while (trawl_rb_reader_flush_final(&rd, 10) == -EAGAIN)
		drain(&last_ts);
	drain(&last_ts);
	/* A live timer on a drained, quiet stream: always an empty packet (the
	 * racing cuts above find a boundary only when the scheduler allows:
	 * none in 1 run of 6 on a loaded host). */
	if (live) {
		trawl_rb_flush(&rd.rb, 1);
		drain(&last_ts);
	}
	lost = trawl_rb_lost(&prod);
	printf("%s, %u threads x %u events: read %llu, discarded %llu, corrupt %llu, empty packets %llu\n",
	       overwrite ? "overwrite" : live ? "live" : resume ? "resume" : "discard", nthreads, nevents,
	       (unsigned long long)events_read, (unsigned long long)lost, (unsigned long long)rd.corrupt,
	       (unsigned long long)empty_packets);
	if (!overwrite && events_read + lost != (uint64_t)nthreads * nevents)
		FAIL("accounting: %llu read + %llu discarded != %llu", (unsigned long long)events_read,
		     (unsigned long long)lost, (unsigned long long)nthreads * nevents);
	if (!overwrite && lost == 0)
		FAIL("expected some drops with a 16 KiB buffer");
	if (resume && deaths == 0)
		FAIL("resume: the reader never died");
	if (live && empty_packets == 0)
		FAIL("live: no empty packet was cut");
	if (overwrite && events_read == 0)
		FAIL("overwrite: nothing read");
	/* Overwrite mode: the newest data survives. A thread that finished early
	 * may have been overwritten entirely, and events are dropped while a
	 * preempted writer holds the next slot, so only the stream's very end
	 * is checked: the highest sequence read is near the last written. */
	if (overwrite) {
		uint32_t best = 0;

		for (i = 0; i < nthreads; i++)
			if (last_seq[i] != UINT32_MAX && last_seq[i] > best)
				best = last_seq[i];
		if (best + 1000 < nevents)
			FAIL("overwrite: newest event read is %u of %u", best, nevents);
	}
	trawl_rb_reader_fini(&rd);
	trawl_rb_unmap(&prod);
	free(last_seq);
	return failed;
}
