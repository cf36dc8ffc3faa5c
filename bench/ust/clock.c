/* SPDX-License-Identifier: MIT */
/*
 * The clocks an event can be stamped with, for scale (bench/ust/run.sh):
 * what one clock_gettime(CLOCK_MONOTONIC) costs here (the vDSO over the
 * kernel's clocksource; what LTTng-UST reads, and trawl when the TSC is not
 * usable), and one RDTSC, ordered (LFENCE first: what a tracer reading the
 * TSC after its reserve word pays) and not.
 *
 *   bench-ust-clock [CALLS]     (default 20000 per round, 51 rounds)
 *
 * Prints "monotonic_ns X rdtsc_ns Y rdtsc_ordered_ns Z": the fastest round's
 * ns per call (each read's value summed so that none is optimized away).
 * The fastest, not the median: a round that other processes preempted
 * (this 2-core machine is shared) only adds their time, and what run.sh
 * wants is what the clock itself costs, the floor of an event's. Short
 * rounds (~0.5 ms) so that some fit between preemptions on a loaded
 * machine: 2 M-call rounds there gave 100+ ns for clock_gettime().
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 51

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t read_mono(void)
{
	return now_ns();
}

static uint64_t read_tsc(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
#else
	return 0;
#endif
}

static uint64_t read_tsc_ordered(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
#else
	return 0;
#endif
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The fastest round's ns per call of @fn (inlined: @fn is called directly). */
static inline __attribute__((always_inline)) double per_call(uint64_t (*fn)(void), uint64_t calls)
{
	double r[ROUNDS];
	int k;

	for (k = 0; k < ROUNDS; k++) {
		uint64_t t0 = now_ns(), s = 0, i;

		for (i = 0; i < calls; i++)
			s += fn();
		r[k] = (double)(now_ns() - t0) / (double)calls;
		sink += s;
	}
	qsort(r, ROUNDS, sizeof(r[0]), cmp_double);
	return r[0];
}

int main(int argc, char **argv)
{
	uint64_t calls = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000;

	if (!calls) {
		fprintf(stderr, "bench-ust-clock: CALLS must be a positive number\n");
		return 2;
	}
#if !defined(__x86_64__)
	printf("monotonic_ns %.2f rdtsc_ns - rdtsc_ordered_ns -\n", per_call(read_mono, calls));
#else
	{
		double m = per_call(read_mono, calls);
		double t = per_call(read_tsc, calls);
		double o = per_call(read_tsc_ordered, calls);

		printf("monotonic_ns %.2f rdtsc_ns %.2f rdtsc_ordered_ns %.2f\n", m, t, o);
	}
#endif
	return 0;
}
