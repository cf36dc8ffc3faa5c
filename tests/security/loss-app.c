/* SPDX-License-Identifier: MIT */
/*
 * The loss tests' traced program: emits N tall:seq events (thread = ID,
 * n = 0 .. N-1) at about RATE events a second (0: as fast as it can), then
 * exits 0. Every event is committed or dropped-and-counted by libtrawl-ust,
 * so a trace must hold read + discarded == N exactly.
 *
 *   loss-app N RATE ID [WAIT_MS]
 *
 * WAIT_MS > 0: first waits (at most that long) until the session enabled the
 * event, as a long-running program would be; 0 (churn): starts at once, as a
 * short-lived program does (libtrawl-ust's start-up waits for the daemon).
 * Prints "done" on stdout at the end.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tp-all.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	uint64_t n, rate, i, t0;
	uint32_t id;
	int wait_ms, w;

	if (argc < 4) {
		fprintf(stderr, "usage: loss-app N RATE ID [WAIT_MS]\n");
		return 2;
	}
	n = strtoull(argv[1], NULL, 10);
	rate = strtoull(argv[2], NULL, 10);
	id = (uint32_t)strtoul(argv[3], NULL, 10);
	wait_ms = argc > 4 ? atoi(argv[4]) : 0;
	for (w = 0; w < wait_ms && !tracepoint_enabled(tall, seq); w++)
		usleep(1000);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		tracepoint(tall, seq, id, i);
		/* Paced in steps of 1 ms: sleep until event i is due. */
		if (rate && i % (rate / 1000 + 1) == 0) {
			uint64_t due = t0 + i * 1000000000u / rate, now = now_ns();

			if (due > now) {
				struct timespec d = {(time_t)((due - now) / 1000000000u),
						     (long)((due - now) % 1000000000u)};

				nanosleep(&d, NULL);
			}
		}
	}
	printf("done\n");
	return 0;
}
