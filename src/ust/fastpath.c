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
 */
#define _GNU_SOURCE
#include "ust/ust.h"

#include <sched.h>
#include <sys/rseq.h>

#include "common/common.h"

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

TRAWL_EXPORT int trawl_ust_reserve(void *chanp, uint32_t id, size_t payload, struct trawl_ust_ctx *ctx)
{
	return trawl_ust_reserve_ip(chanp, id, payload, NULL, ctx);
}

TRAWL_EXPORT int trawl_ust_reserve_ip(void *chanp, uint32_t id, size_t payload, void *ip, struct trawl_ust_ctx *ctx)
{
	struct trawl_ust_chan *chan = chanp;
	struct trawl_rb_ctx rctx;
	uint32_t cpu;

	/* Relaxed: stop is not synchronous with events in flight (the
	 * consumer's final flush waits for them). */
	if (!__atomic_load_n(&chan->active, __ATOMIC_RELAXED))
		return -1;
	cpu = current_cpu();
	if (trawl_unlikely(cpu >= chan->nr_streams)) {
		if (!chan->nr_streams) {
			/* A tally (slots.c): counted, never recorded. Relaxed:
			 * read once the tally's slots are gone. */
			if (id < chan->nr_tally)
				__atomic_fetch_add(&chan->tally[id], 1, __ATOMIC_RELAXED);
			return -1;
		}
		cpu %= chan->nr_streams;
	}
	if (trawl_rb_reserve(&chan->rbs[cpu], id, payload + chan->context_size, &rctx))
		return -1;
	if (trawl_unlikely(chan->context_size))
		rctx.p = trawl_ust_write_contexts(rctx.p, chan, ip);
	ctx->p = rctx.p;
	ctx->priv = rctx.meta;
	ctx->len = rctx.len;
	return 0;
}

TRAWL_EXPORT void trawl_ust_commit(struct trawl_ust_ctx *ctx)
{
	struct trawl_rb_ctx rctx = { ctx->p, ctx->priv, ctx->len };

	trawl_rb_commit(&rctx);
}
