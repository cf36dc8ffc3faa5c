/* SPDX-License-Identifier: MIT */
/*
 * The ANCHORS.md program: tracepoint(anchor, ev, (int64_t)i, (uint32_t)i,
 * "hello-anchor") in a tight loop, N events split over T threads started at
 * a barrier; the time is measured inside the program. Built twice from this
 * one source: against LTTng-UST and against trawl's compatibility headers.
 *
 *   anchor MODE THREADS EVENTS [RATE]   MODE: tp (tracepoint), tracef, disabled
 *
 * Prints "ns_per_event X events_per_sec Y" (per thread ns; aggregate rate).
 *
 * RATE (events/s, all threads together): paced instead of flat out. Each
 * thread emits its share in bursts of PACE_BURST events and, after each,
 * sleeps until the time its count is due (an absolute deadline from the
 * common start, so sleeps that overrun are made up, never accumulated):
 * the clock is read once a burst, not per event. ns_per_event then includes
 * the sleeps; events_per_sec says whether the rate was reached.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lttng/tracef.h>

#include "tp-anchor.h"

static pthread_barrier_t barrier;
static uint64_t per_thread;
static int mode; /* 0 tp, 1 tracef, 2 disabled */
static uint64_t t_start[64], t_end[64];
static double pace_ns; /* ns between two events of one thread; 0: flat out */
static uint64_t pace_t0;
#define PACE_BURST 1000u

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *worker(void *arg)
{
	int t = (int)(intptr_t)arg;
	uint64_t i, base = (uint64_t)t * per_thread;

	pthread_barrier_wait(&barrier);
	t_start[t] = now_ns();
	if (pace_ns > 0) {
		uint64_t end = base + per_thread, j, n;

		for (i = base; i < end; i += n) {
			struct timespec due;
			uint64_t at;

			n = end - i < PACE_BURST ? end - i : PACE_BURST;
			for (j = i; j < i + n; j++)
				tracepoint(anchor, ev, (int64_t)j, (uint32_t)j, "hello-anchor");
			at = pace_t0 + (uint64_t)((double)(i + n - base) * pace_ns);
			due.tv_sec = (time_t)(at / 1000000000u);
			due.tv_nsec = (long)(at % 1000000000u);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &due, NULL) == EINTR)
				;
		}
	} else if (mode == 1) {
		for (i = base; i < base + per_thread; i++)
			tracef("%d %s", (int)i, "hello-anchor");
	} else {
		for (i = base; i < base + per_thread; i++)
			tracepoint(anchor, ev, (int64_t)i, (uint32_t)i, "hello-anchor");
	}
	t_end[t] = now_ns();
	return NULL;
}

int main(int argc, char **argv)
{
	int threads, t;
	uint64_t events, first = UINT64_MAX, last = 0, sum = 0;
	pthread_t th[64];

	if (argc < 4)
		return 2;
	mode = !strcmp(argv[1], "tracef") ? 1 : !strcmp(argv[1], "disabled") ? 2 : 0;
	threads = atoi(argv[2]);
	events = strtoull(argv[3], NULL, 10);
	if (threads < 1 || threads > 64)
		return 2;
	if (argc > 4) {
		double rate = strtod(argv[4], NULL);

		if (!(rate > 0) || mode != 0) {
			fprintf(stderr, "anchor: RATE must be a positive number of events/s, "
					"with MODE tp\n");
			return 2;
		}
		pace_ns = 1e9 * threads / rate;
	}
	per_thread = events / (uint64_t)threads;
	/* Wait (up to 10 s) until the session has enabled the event. */
	for (t = 0; mode != 2 && t < 10000; t++) {
		if (mode == 0 && tracepoint_enabled(anchor, ev))
			break;
		if (mode == 1 && tracepoint_enabled(lttng_ust_tracef, event))
			break;
		usleep(1000);
	}
	pthread_barrier_init(&barrier, NULL, (unsigned)threads);
	pace_t0 = now_ns() + 1000000u; /* after every thread is started (1 ms) */
	for (t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
	for (t = 0; t < threads; t++) {
		pthread_join(th[t], NULL);
		if (t_start[t] < first)
			first = t_start[t];
		if (t_end[t] > last)
			last = t_end[t];
		sum += t_end[t] - t_start[t];
	}
	printf("ns_per_event %.3f events_per_sec %.0f\n", (double)sum / threads / (double)per_thread,
	       (double)(per_thread * (uint64_t)threads) * 1e9 / (double)(last - first));
	return 0;
}
