/* SPDX-License-Identifier: MIT */
/*
 * The live-latency benchmark's program (bench/relayd/live.sh): waits until
 * anchor:ev is enabled, then emits N events PERIOD_US apart (a = 0 .. N-1)
 * and exits; with DELAY_MS, it waits that long between the two (time for a
 * live viewer to attach: a trawl-relayd session appears when the first
 * stream does). Built twice from this one source: against trawl's
 * compatibility headers and against LTTng-UST's own.
 *
 *   live-app N PERIOD_US [DELAY_MS]
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tp-anchor.h"

int main(int argc, char **argv)
{
	uint64_t n, i;
	long period_us;
	struct timespec next;
	int t;

	if (argc != 3 && argc != 4)
		return 2;
	n = strtoull(argv[1], NULL, 10);
	period_us = atol(argv[2]);
	for (t = 0; t < 10000 && !tracepoint_enabled(anchor, ev); t++)
		usleep(1000);
	if (argc == 4)
		usleep((useconds_t)atol(argv[3]) * 1000);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < n; i++) {
		tracepoint(anchor, ev, (int64_t)i, 0, "relayd-live");
		next.tv_nsec += period_us * 1000;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return 0;
}
