/* SPDX-License-Identifier: MIT */
/*
 * fastpath.c - what a probe calls for each event: pick the stream of the
 * current CPU and reserve in it (ringbuffer.h), then commit.
 *
 * The CPU number comes from the rseq area glibc registers for every thread
 * (cpu_id, kept current by the kernel: one load, ~1 ns) and falls back to
 * sched_getcpu(), unless a getcpu plugin gives it (getcpu.c). A thread
 * migrated between the read and the reservation only writes into another
 * CPU's stream, which is safe: reservations are CAS-based and any number of
 * writers may share a stream.
 *
 * Why per-CPU streams and not per-thread ones. Measured on the 2-core dev
 * VM (bench/ust/run.sh, "no consumer" rows: a snapshot session, so nothing
 * competes with the writers): one thread records the ANCHORS event in
 * ~48 ns (20.9 M events/s), two threads 42.6 M events/s (2.04x) when the
 * machine is otherwise idle. Half of the 48 ns is the CLOCK_MONOTONIC read
 * (vDSO, ~25 ns here); the uncontended CAS and the commit add cost a few ns
 * each. Per-thread buffers would save only the lock prefixes, and would cost
 * a daemon round trip and a buffer for every new thread (memory and stream
 * files times threads, events lost before the buffer exists). Per-CPU
 * streams keep one buffer per CPU whatever the thread count.
 *
 * What an event costs now (the ANCHORS event, TSC clock, callgrind and
 * perf's cpu-clock samples on the dev VM, December 2026). The LFENCE that
 * ordered the TSC read after the load of the reserve word was the largest
 * part: 13 of the 22 ns that load, clock, CAS and commit add take together
 * (a loop of just those, min of 200 runs). It is gone while a thread's
 * previous event is still the last of its stream, which a per-thread
 * memory of it tells (ringbuffer.h: trawl_rb_reserve_try(), why that is
 * exact; in_event below, why a signal handler's event does without it).
 * What remained was mostly the two lock-prefixed instructions (the reserve
 * CAS, the commit add in the probe): perf put about half of the user-space
 * samples right after them. The CAS stays: the reserve word is written
 * from other CPUs too (a thread migrated since it picked the stream, the
 * consumer's flush, from another process, buffers with fewer streams than
 * CPUs), and no user-space means makes a plain store safe against those:
 * rseq aborts only the critical sections of the CPU it runs on,
 * membarrier's RSEQ fence only those of one process. LTTng-UST pays both
 * (its user-space ring buffer is RING_BUFFER_SYNC_GLOBAL: uatomic_cmpxchg
 * and uatomic_add). The commit count is split in two instead (below: a
 * plain add under rseq on the stream's own CPU, a locked add for everyone
 * else, readers adding the two): about 1 ns per event (task-clock per
 * event, 7 interleaved runs of 40 M events each in a snapshot session, so
 * that no consumer copies on the same two CPUs: median 18.3 -> 17.3 ns,
 * best 17.7 -> 16.5; with the consumer running the difference is lost in
 * its noise). Less than the locked add's share of the samples said: the
 * CAS of the next event now waits for the stores the add no longer
 * drained.
 *
 * What an event is made of now, on that VM (AMD EPYC, family 26, under
 * KVM; task-clock per iteration of 10^8-iteration loops): RDTSC alone 8.8
 * ns; a reserve word load, RDTSC, CAS, 40 bytes of stores and a plain add
 * 8.8 (the rest runs in RDTSC's shadow), 10.1 with a locked add instead
 * (the second locked instruction is what the split saves). The other ~8 ns
 * of an event are instructions: callgrind counts ~310 per event (the
 * probe's slot loop, size and payload ~100, trawl_ust_reserve_ip() ~140 of
 * which ~60 its own prologue, CPU and nesting bookkeeping, strlen and
 * memcpy ~25); that is where what is left to gain is.
 *
 * Fewer of them: trawl_ust_reserve_ip() checks what the common case needs
 * and jumps to reserve_fast(), straight code around the try (comments
 * there); the probes load their slot array once, call libtrawl-ust through
 * the GOT and copy a string of 8 to 16 bytes inline (<trawl/tracepoint.h>);
 * the try tells a switch with one xor and compare. task-clock per event,
 * 11 interleaved runs of 20 M events each in a snapshot session, the
 * program and library before and after (on a host loaded by other jobs,
 * load 15-40): median 17.6 -> 16.2 ns, best 16.8 -> 15.4; the library
 * alone under the old program 18.0 -> 16.7. callgrind, which cannot run
 * rseq and so takes reserve_any(): 318 -> 311 instructions per event.
 * reserve_fast() still saves six registers: the try keeps about fifteen
 * values live across its CAS (the word, the old one, the time, the
 * lengths, the stream, the thread's two blocks), more than the nine a
 * function may use unsaved.
 *
 * Where the kernel does not trust the TSC (a VM booted with tsc=unstable:
 * src/sessiond/ust-clock.c), streams are on CLOCK_MONOTONIC, and the try
 * reads it with clock_gettime() (the vDSO over kvm-clock: ~25 ns on the
 * Firecracker VM of December 6th, RDTSC ~11). An event there costs ~40 ns,
 * ~15 above its clock read, against LTTng-UST's ~82, ~57 above (a snapshot
 * session, the fastest of 400 rounds of 5,000 events); on the TSC the same
 * program takes ~20 ns. Before the try read CLOCK_MONOTONIC, every such
 * event went through reserve_any() and trawl_rb_reserve()'s loop: ~45 ns.
 *
 * Blocking (LTTng 2.13's --blocking-timeout). A channel with a timeout, in
 * an app that allows it (LTTNG_UST_ALLOW_BLOCKING, as LTTng-UST, or
 * TRAWL_UST_ALLOW_BLOCKING, set in its environment), makes a writer that
 * finds the buffer full wait for the consumer: it sleeps and tries again,
 * 20 us first, doubling up to 1 ms (LTTng-UST sleeps 100 ms at a time),
 * until the event fits, the timeout is over (then the event is dropped and
 * counted, as without a timeout), or the channel stops recording (its
 * session stopped or destroyed, or the daemon gone: the agent thread then
 * clears chan->active, so a dead consumer holds a writer no longer than the
 * session it belongs to). The agent's own thread never waits (it is the one
 * that would end the wait), nor does an event from a signal handler that
 * interrupted a wait of its thread (a thread waits for one event at a
 * time). The wait is off the fast path: only a full buffer reaches it.
 */
#define _GNU_SOURCE
#include "ust/ust.h"

#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <sys/rseq.h>

#include "common/common.h"
#include "ust/app-context.h"
#include "ust/oncpu.h"
#include "ustabi/notify.h"

#include <unistd.h>

/*
 * The commit on the stream's own CPU. An event's commit is an add to its
 * sub-buffer's count that every reader sees whole; a lock-prefixed add does
 * that from any CPU, but it waits for the store buffer to drain (the
 * event's bytes, just written): perf's cpu-clock samples put a quarter of
 * an event's time right after it (what removing it gained is less: top
 * comment). A plain add is one instruction:
 * no interrupt, preemption or signal splits it, so it is exact against
 * every writer on the same CPU, and only those. Hence two counts per
 * sub-buffer (ringbuffer.h, version 2), summed by readers: the plain one,
 * commit_cpu, is added to only on the stream's CPU, in an rseq critical
 * section (oncpu.h) that compares the CPU the kernel keeps for the thread
 * with the stream's and then adds; a thread preempted, migrated or
 * signalled inside it, or on another CPU, or without rseq, makes the
 * locked add to commit instead.
 *
 * The probe reaches this through trawl_ust_commit(): the reservation's
 * priv is the meta's address with both low bits set (odd: probes call
 * out, ABI minor >= 1; ctx->len's high half the stream's CPU). A call is
 * cheaper than the locked add it replaces.
 */
#define PRIV_NOTIFY 1u /* a notification record (notify_reserve(): 8-byte aligned, agent.c checks) */
#define PRIV_ON_CPU 3u /* a ring buffer's meta; plain add on ctx->len >> 32 */
#define PRIV_TAGS 3u

static inline uint32_t current_cpu(void)
{
	/* Relaxed: set once at start-up (getcpu.c), before any event. */
	int (*plugin)(void) = __atomic_load_n(&trawl_ust_getcpu_fn, __ATOMIC_RELAXED);

	if (trawl_unlikely(plugin != NULL))
		return (uint32_t)plugin(); /* a negative one: modulo the streams */
#if defined(__x86_64__)
	if (__rseq_size) {
		char *tp;
		int32_t cpu;

		__asm__("mov %%fs:0, %0" : "=r"(tp));
		/* Relaxed: the kernel rewrites it on migration; any recent value
		 * is good. */
		cpu = __atomic_load_n(&((struct rseq *)(tp + __rseq_offset))->cpu_id, __ATOMIC_RELAXED);
		if (cpu >= 0)
			return (uint32_t)cpu;
	}
#endif
	{
		int cpu = sched_getcpu();

		return cpu < 0 ? 0 : (uint32_t)cpu;
	}
}

/*
 * The thread's last event reserved inline (ringbuffer.h: struct
 * trawl_rb_last, why it saves the LFENCE), and how many of the thread's
 * events are in trawl_rb_reserve_try() now: 1 in the outermost, more in a
 * signal handler that interrupted one. Only an event that interrupted none
 * reads and writes last_event, so that its three words always come from
 * one event (a handler's event between the outermost's load of them and
 * its update would otherwise mix two events' words). A handler's event
 * inside reads the clock ordered, as without memory. Not atomic: a signal
 * handler leaves in_event as it found it, and nothing else shares them.
 */
static __thread struct trawl_rb_last last_event __attribute__((tls_model("initial-exec")));
static __thread unsigned int in_event __attribute__((tls_model("initial-exec")));

/* 1 in a thread that must not wait: the agent's, or one waiting already. */
static __thread int no_wait __attribute__((tls_model("initial-exec")));

void trawl_ust_never_wait(void)
{
	no_wait = 1;
}

int trawl_ust_allow_blocking(void)
{
	static int allow = -1;

	if (allow < 0)
		allow = getenv("LTTNG_UST_ALLOW_BLOCKING") || getenv("TRAWL_UST_ALLOW_BLOCKING");
	return allow;
}

/* The buffer of @rb was full for an event of @chan: waits for room as the
 * channel allows (top comment), then reserves or drops (counted). */
static __attribute__((noinline, cold)) int reserve_wait(struct trawl_ust_chan *chan, struct trawl_rb *rb,
						       uint32_t id, uint64_t len, struct trawl_rb_ctx *rctx)
{
	uint32_t ms = chan->blocking_ms;
	uint64_t deadline = 0, nap = 20000, now; /* ns */
	int ret = TRAWL_RB_FULL;

	if (ms && !no_wait) {
		no_wait = 1;
		if (ms != UINT32_MAX)
			deadline = trawl_rb_clock_monotonic() + (uint64_t)ms * 1000000u;
		for (;;) {
			struct timespec ts = {0, 0};

			if (deadline) {
				now = trawl_rb_clock_monotonic();
				if (now >= deadline)
					break;
				if (nap > deadline - now)
					nap = deadline - now;
			}
			ts.tv_nsec = (long)nap;
			nanosleep(&ts, NULL);
			/* Relaxed: the session stopping or going is seen soon enough. */
			if (!__atomic_load_n(&chan->active, __ATOMIC_RELAXED))
				break;
			ret = trawl_rb_reserve(rb, id, len, rctx);
			if (ret != TRAWL_RB_FULL)
				break;
			if (nap < 1000000)
				nap *= 2;
		}
		no_wait = 0;
		if (ret != TRAWL_RB_FULL)
			return ret;
	}
	trawl_rb_count_full(rb);
	return -1;
}

/* An event for an event notifier (ustabi/notify.h: the writer's side).
 * The commit goes through trawl_ust_commit(), told apart by priv's low
 * bit (a ring buffer's meta pointer is 64-byte aligned). */
static __attribute__((noinline, cold)) int notify_reserve(const struct trawl_ust_chan *chan, uint32_t id,
							 size_t payload, void *ip, struct trawl_ust_ctx *ctx)
{
	struct trawl_ust_notify *n = chan->notify;
	struct trawl_notify_head *h = (struct trawl_notify_head *)n->map;
	struct trawl_notify_rec *rec;
	uint64_t w, r;

	payload += chan->context_size; /* its context fields first */
	if (payload > n->slot_size - sizeof(*rec)) {
		__atomic_fetch_add(&h->dropped_big, 1, __ATOMIC_RELAXED);
		goto dropped;
	}
	w = __atomic_load_n(&h->write, __ATOMIC_RELAXED);
	do {
		/* Acquire: pairs with the reader's release store of read (the
		 * slot's commit was cleared before it). */
		r = __atomic_load_n(&h->read, __ATOMIC_ACQUIRE);
		if (w - r >= n->nr_slots) {
			__atomic_fetch_add(&h->dropped_full, 1, __ATOMIC_RELAXED);
			goto dropped;
		}
	} while (!__atomic_compare_exchange_n(&h->write, &w, w + 1, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	rec = (struct trawl_notify_rec *)(n->map + TRAWL_NOTIFY_HEAD_SIZE + (size_t)(w % n->nr_slots) * n->slot_size);
	rec->chan_handle = chan->handle;
	rec->id = id;
	rec->ts = trawl_rb_clock_monotonic();
	rec->len = (uint32_t)payload;
	rec->pad = 0;
	ctx->p = (char *)(rec + 1);
	if (chan->context_size)
		ctx->p = trawl_ust_write_contexts(ctx->p, chan, ip);
	ctx->priv = (void *)((uintptr_t)rec | 1);
	ctx->len = payload;
	return 0;
dropped:
	/* Its trigger's "discarded tracer messages" (a count only: no order) */
	if (chan->notify_dropped)
		__atomic_fetch_add(chan->notify_dropped, 1, __ATOMIC_RELAXED);
	return -1;
}

static __attribute__((noinline, cold)) void notify_commit(struct trawl_ust_ctx *ctx)
{
	struct trawl_notify_rec *rec = (struct trawl_notify_rec *)((uintptr_t)ctx->priv & ~(uintptr_t)1);
	uint64_t one = 1;
	unsigned int i;

	/* Release: pairs with the reader's acquire load of commit (every
	 * byte of the record is visible once it is not 0). */
	__atomic_store_n(&rec->commit, ctx->len + 1, __ATOMIC_RELEASE);
	for (i = 0; i < TRAWL_UST_MAX_NOTIFY; i++) {
		/* Acquire: pairs with the agent's release store of the ring. */
		struct trawl_ust_notify *n = __atomic_load_n(&trawl_ust_notifies[i], __ATOMIC_ACQUIRE);

		if (!n || (char *)rec < n->map ||
		    (char *)rec >= n->map + trawl_notify_size(n->nr_slots, n->slot_size))
			continue;
		if (write(n->efd, &one, sizeof(one)) < 0) {
			/* a full counter: the daemon is awake anyway */
		}
		return;
	}
}

TRAWL_EXPORT int trawl_ust_reserve(void *chanp, uint32_t id, size_t payload, struct trawl_ust_ctx *ctx)
{
	return trawl_ust_reserve_ip(chanp, id, payload, NULL, ctx);
}

/* An event for @chan whose stream for @cpu is not there: the channel of an
 * event notifier, a tally, or buffers with fewer streams than this CPU's
 * number (then the stream cpu modulo their count: returns 1 with *@cpu
 * set). Else returns what trawl_ust_reserve_ip() returns. */
static __attribute__((noinline, cold)) int reserve_elsewhere(struct trawl_ust_chan *chan, uint32_t *cpu, uint32_t id,
							     size_t payload, void *ip, struct trawl_ust_ctx *ctx)
{
	if (chan->notify)
		return notify_reserve(chan, id, payload, ip, ctx);
	if (!chan->nr_streams) {
		/* A tally (slots.c): counted, never recorded. */
		trawl_ust_tally_count_event(chan, id);
		return -1;
	}
	*cpu %= chan->nr_streams;
	return 1;
}

/* @ctx for the event @rctx reserved in @rb (PRIV_ON_CPU: top comment). */
static inline __attribute__((always_inline)) void set_ctx(struct trawl_ust_ctx *ctx, const struct trawl_rb *rb,
							  const struct trawl_rb_ctx *rctx)
{
	ctx->p = rctx->p;
#if defined(TRAWL_UST_ONCPU)
	if (trawl_likely(rb->commit_cpu && __rseq_size)) {
		ctx->priv = (char *)rctx->meta + PRIV_ON_CPU;
		ctx->len = rctx->len | (uint64_t)rb->cpu << 32;
		return;
	}
#endif
	ctx->priv = rctx->meta;
	ctx->len = rctx->len;
}

/* The rest of a reservation that trawl_rb_reserve_try() did not finish
 * (@ret TRAWL_RB_TRY_SLOW), or that has contexts to write (@ret 0, @ctx
 * filled with the event): trawl_ust_reserve_ip()'s. @ctx->len is the
 * event's payload and contexts (@ret TRAWL_RB_TRY_SLOW), else its length.
 * Six arguments: reserve_in() jumps here rather than calls. */
static __attribute__((noinline)) int reserve_rest(struct trawl_ust_chan *chan, struct trawl_rb *rb, uint32_t id,
						  void *ip, struct trawl_ust_ctx *ctx, int ret)
{
	uint64_t len = ctx->len;
	struct trawl_rb_ctx rctx = { ret ? NULL : ctx->p, ret ? NULL : ctx->priv, len };

	if (ret == TRAWL_RB_TRY_SLOW)
		ret = trawl_rb_reserve(rb, id, len, &rctx);
	if (ret && (ret != TRAWL_RB_FULL || reserve_wait(chan, rb, id, len, &rctx)))
		return -1;
	if (chan->context_size)
		rctx.p = trawl_ust_write_contexts(rctx.p, chan, ip);
	set_ctx(ctx, rb, &rctx);
	return 0;
}

/* An event for stream @cpu of @chan (which has it). */
static inline __attribute__((always_inline)) int reserve_in(struct trawl_ust_chan *chan, uint32_t cpu, uint32_t id,
							    size_t payload, void *ip, struct trawl_ust_ctx *ctx)
{
	struct trawl_rb *rb = &chan->rbs[cpu];
	uint64_t len = payload + chan->context_size;
	struct trawl_rb_ctx rctx;
	int ret;

	/* Signal fences: the compiler keeps every use of last_event between
	 * the count's increment and its decrement, as a handler sees them. */
	in_event++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ret = trawl_rb_reserve_try(rb, id, len, &rctx, in_event == 1 ? &last_event : NULL);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	in_event--;
	if (trawl_unlikely(ret)) {
		ctx->len = len;
		return reserve_rest(chan, rb, id, ip, ctx, ret);
	}
	if (trawl_unlikely(chan->context_size)) {
		ctx->p = rctx.p;
		ctx->priv = rctx.meta;
		ctx->len = rctx.len;
		return reserve_rest(chan, rb, id, ip, ctx, 0);
	}
	set_ctx(ctx, rb, &rctx);
	return 0;
}

/*
 * Any event: trawl_ust_reserve_ip()'s general case, for what its common
 * case does not do (below). What is not the common case here either (no
 * stream for this CPU, a packet switch, a lost race, a full buffer,
 * contexts) is out of line, so that this is straight code around
 * trawl_rb_reserve_try() too.
 */
static inline __attribute__((always_inline)) int reserve_all(struct trawl_ust_chan *chan, uint32_t id,
							     size_t payload, void *ip, struct trawl_ust_ctx *ctx)
{
	uint32_t cpu;
	int ret;

	/* Relaxed: stop is not synchronous with events in flight (the
	 * consumer's final flush waits for them). A tally's channel is
	 * inactive once the tally ended: a probe that loaded the event's
	 * slots before the end still counts, where the end says (slots.c,
	 * "A probe late"); dropped here, it was in no count (one event of a
	 * program recording through its tally's end, 4 runs in 10). */
	if (!__atomic_load_n(&chan->active, __ATOMIC_RELAXED)) {
		if (trawl_unlikely(chan->nr_tally != 0))
			trawl_ust_tally_count_event(chan, id);
		return -1;
	}
	cpu = current_cpu();
	if (trawl_unlikely(cpu >= chan->nr_streams)) {
		ret = reserve_elsewhere(chan, &cpu, id, payload, ip, ctx);
		if (ret != 1)
			return ret;
	}
	return reserve_in(chan, cpu, id, payload, ip, ctx);
}

/*
 * An event of a channel with application contexts (app-context.c): their
 * values asked once, the event reserved with their size, and written after
 * the other contexts. Out of line: other channels never come here.
 */
static __attribute__((noinline, cold)) int reserve_app(struct trawl_ust_chan *chan, uint32_t id, size_t payload,
							void *ip, struct trawl_ust_ctx *ctx)
{
	struct trawl_ust_app_value v[TRAWL_USTCTL_MAX_APP_CTX];
	size_t size;
	int ret;

	if (!__atomic_load_n(&chan->active, __ATOMIC_RELAXED))
		return reserve_all(chan, id, payload, ip, ctx); /* (asks no provider) */
	size = trawl_ust_app_ctx_get(chan->app_ctx, v);
	ret = reserve_all(chan, id, payload + size, ip, ctx);
	if (!ret)
		ctx->p = trawl_ust_app_ctx_write(ctx->p, chan->app_ctx, v);
	return ret;
}

/* Every event the common case does not take (below); a channel with
 * application contexts is never in it. */
static __attribute__((noinline)) int reserve_any(struct trawl_ust_chan *chan, uint32_t id, size_t payload,
						 void *ip, struct trawl_ust_ctx *ctx)
{
	if (trawl_unlikely(chan->app_ctx != NULL))
		return reserve_app(chan, id, payload, ip, ctx);
	return reserve_all(chan, id, payload, ip, ctx);
}

/*
 * The fast path of every event: one call from the probe (the commit is
 * inline in the probe, <trawl/tracepoint.h>, or trawl_ust_commit() below).
 *
 * The common case is done here and in reserve_fast() only, as straight code
 * that calls nothing but the clock (clock_gettime() for CLOCK_MONOTONIC):
 * an active channel without contexts, the CPU from rseq (no getcpu plugin)
 * with a stream of its own, the outermost event of the thread (in_event
 * 0), and trawl_rb_reserve_try()'s case (the TSC or CLOCK_MONOTONIC, no
 * packet switch, the CAS won). Anything else, found before or after the
 * try, jumps to reserve_any() with the same arguments, which does it all
 * again from the start: nothing the try did is seen by anyone until its CAS
 * succeeds. What that leaves out of the common case: current_cpu()'s plugin
 * and __rseq_size checks, in_event's increment and decrement (a store of 1
 * and of 0 instead), set_ctx()'s __rseq_size check, and reserve_in()'s
 * branches for contexts.
 *
 * The CPU: cpu_id of the rseq area, read through %fs with no check of
 * __rseq_size: a thread that glibc did not register has -1 there
 * (RSEQ_CPU_ID_REGISTRATION_FAILED), which as an unsigned number is no
 * stream's, so reserve_any() takes it (sched_getcpu()). That is the first
 * check, in a function that saves no register, so that a thread without
 * rseq (valgrind's, among others) pays a few instructions for the fast path
 * it cannot take. A cpu_id read that way also tells that the thread is
 * registered: the on-CPU commit needs no __rseq_size check either.
 * Nesting: reserve_fast() sets in_event to 1 around the try and back to 0;
 * a signal handler's event that interrupts it finds 1 and goes to
 * reserve_any(), which counts itself in and out, as before (and a handler
 * that ran before the 1 was stored left 0 behind it).
 */
#if defined(TRAWL_UST_ONCPU)
/* trawl_ust_reserve_ip()'s common case once its checks passed: the stream
 * of @cpu, which @chan has. Apart, so that the checks that a thread
 * without rseq fails cost it no saved registers. */
static __attribute__((noinline)) int reserve_fast(struct trawl_ust_chan *chan, uint32_t id, size_t payload,
						  void *ip, struct trawl_ust_ctx *ctx, uint32_t cpu)
{
	const struct trawl_rb *rb = &chan->rbs[cpu];
	struct trawl_rb_ctx rctx;
	int ret;

	/* Signal fences: reserve_in()'s. */
	in_event = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	ret = trawl_rb_reserve_try((struct trawl_rb *)rb, id, payload, &rctx, &last_event);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	in_event = 0;
	if (trawl_unlikely(ret))
		return reserve_any(chan, id, payload, ip, ctx);
	ctx->p = rctx.p;
	if (trawl_likely(rb->commit_cpu)) {
		ctx->priv = (char *)rctx.meta + PRIV_ON_CPU;
		ctx->len = rctx.len | (uint64_t)rb->cpu << 32;
	} else {
		ctx->priv = rctx.meta;
		ctx->len = rctx.len;
	}
	return 0;
}
#endif

TRAWL_EXPORT int trawl_ust_reserve_ip(void *chanp, uint32_t id, size_t payload, void *ip, struct trawl_ust_ctx *ctx)
{
	struct trawl_ust_chan *chan = chanp;
#if defined(TRAWL_UST_ONCPU)
	uint32_t cpu;

	/* Relaxed: the kernel rewrites it on migration; any recent value is
	 * good (current_cpu()). */
	__asm__ __volatile__("movl %%fs:4(%1), %0" : "=r"(cpu) : "r"(__rseq_offset));
	/* Relaxed: as in reserve_any() (the plugin: current_cpu()). */
	if (trawl_unlikely(cpu >= chan->nr_streams || !__atomic_load_n(&chan->active, __ATOMIC_RELAXED) ||
			   chan->context_size || chan->app_ctx ||
			   __atomic_load_n(&trawl_ust_getcpu_fn, __ATOMIC_RELAXED) || in_event))
		return reserve_any(chan, id, payload, ip, ctx);
	return reserve_fast(chan, id, payload, ip, ctx, cpu);
#else
	return reserve_any(chan, id, payload, ip, ctx);
#endif
}

/* What <trawl/tracepoint.h>'s _trawl_ust_commit() adds to inline: the
 * commit count is a sub-buffer's meta's first word. */
_Static_assert(__builtin_offsetof(struct trawl_rb_meta, commit) == 0, "ctx->priv points at the commit count");
_Static_assert(_Alignof(struct trawl_rb_meta) > PRIV_TAGS, "ctx->priv's low bits are tags (PRIV_*)");

/* The commit of an event on its stream's CPU (PRIV_ON_CPU), of probes
 * built before it was inline (ABI minor 0), and of an event notifier's
 * record. */
TRAWL_EXPORT void trawl_ust_commit(struct trawl_ust_ctx *ctx)
{
	uintptr_t priv = (uintptr_t)ctx->priv;
	struct trawl_rb_ctx rctx = { ctx->p, NULL, ctx->len };

	/* The tag's value subtracted as a constant in each case, so that the
	 * compiler folds it into the add's address. */
	if (trawl_likely((priv & PRIV_TAGS) == PRIV_ON_CPU)) {
		rctx.meta = (struct trawl_rb_meta *)(priv - PRIV_ON_CPU);
		rctx.len = (uint32_t)ctx->len;
#if defined(TRAWL_UST_ONCPU)
		if (trawl_likely(!trawl_ust_add_on_cpu(&rctx.meta->commit_cpu, rctx.len, (uint32_t)(ctx->len >> 32))))
			return;
#endif
	} else if (trawl_unlikely((priv & PRIV_TAGS) == PRIV_NOTIFY)) {
		return notify_commit(ctx);
	} else {
		rctx.meta = (struct trawl_rb_meta *)priv;
	}
	trawl_rb_commit(&rctx);
}
