/* SPDX-License-Identifier: MIT */
/*
 * The clock test's program (clock.py): waits until tclock:ev is enabled,
 * then N times (argv[1], 200 by default) reads CLOCK_REALTIME (r1),
 * CLOCK_MONOTONIC (ma) and the TSC (ta), records tclock:ev(i, ma), reads
 * the TSC (tb), CLOCK_MONOTONIC (mb) and CLOCK_REALTIME (r2) again, prints
 * "i ma mb ta tb r1 r2" and sleeps 5 ms.
 *
 * The reads are in program order around the event's own clock read, so the
 * event's timestamp lies within [ma, mb] (a CLOCK_MONOTONIC trace) or
 * [ta, tb] (a TSC trace) whatever the load: a preemption widens a
 * bracket, it never moves the event out of it. The TSC reads are fenced
 * (LFENCE before and after RDTSC) so that neither can pass the tracer's
 * own LFENCE+RDTSC; r1 - ma <= CLOCK_REALTIME - CLOCK_MONOTONIC <= r2 - mb
 * likewise. Off x86-64 the TSC fields are 0 (the tracer uses
 * CLOCK_MONOTONIC there).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tp-clock.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The TSC, read after every earlier instruction and before any later one. */
static uint64_t tsc_fenced(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
	return (uint64_t)hi << 32 | lo;
#else
	return 0;
#endif
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200, i;

	for (i = 0; i < 500 && !tracepoint_enabled(tclock, ev); i++)
		usleep(10000);
	for (i = 0; i < n; i++) {
		uint64_t r1 = clock_ns(CLOCK_REALTIME), ma = clock_ns(CLOCK_MONOTONIC);
		uint64_t ta = tsc_fenced(), tb, mb, r2;

		tracepoint(tclock, ev, i, ma);
		tb = tsc_fenced();
		mb = clock_ns(CLOCK_MONOTONIC);
		r2 = clock_ns(CLOCK_REALTIME);
		printf("%d %llu %llu %llu %llu %llu %llu\n", i, (unsigned long long)ma,
		       (unsigned long long)mb, (unsigned long long)ta, (unsigned long long)tb,
		       (unsigned long long)r1, (unsigned long long)r2);
		usleep(5000);
	}
	return 0;
}
