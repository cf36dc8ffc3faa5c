/* SPDX-License-Identifier: MIT */
/*
 * The TSC clock test's program (clock.py): waits until tclock:ev is
 * enabled, then N times (argv[1], 200 by default) reads CLOCK_MONOTONIC (a),
 * records tclock:ev(i, a), reads it again (b), prints "i a b" and sleeps
 * 5 ms: the event's time is within [a, b] of CLOCK_MONOTONIC, whatever the
 * load (a preemption widens the bracket, never moves the event out of it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tp-clock.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 200, i;

	for (i = 0; i < 500 && !tracepoint_enabled(tclock, ev); i++)
		usleep(10000);
	for (i = 0; i < n; i++) {
		uint64_t a = mono_ns(), b;

		tracepoint(tclock, ev, i, a);
		b = mono_ns();
		printf("%d %llu %llu\n", i, (unsigned long long)a, (unsigned long long)b);
		usleep(5000);
	}
	return 0;
}
