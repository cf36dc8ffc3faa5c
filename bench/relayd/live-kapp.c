/* SPDX-License-Identifier: MIT */
/*
 * The kernel mode of the live-latency benchmark (bench/relayd/live.sh
 * --kernel): after DELAY_MS, N getpgid() calls PERIOD_US apart, on pids
 * BASE + 0 .. BASE + N-1 (no such process: the call fails at once), so the
 * viewer knows its syscall_entry_getpgid events from everyone else's by
 * their pid field.
 *
 *   live-kapp N PERIOD_US DELAY_MS
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define BASE 1000000000L

int main(int argc, char **argv)
{
	struct timespec next;
	long period_us, i, n;

	if (argc != 4)
		return 2;
	n = atol(argv[1]);
	period_us = atol(argv[2]);
	usleep((useconds_t)atol(argv[3]) * 1000);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < n; i++) {
		syscall(SYS_getpgid, BASE + i);
		next.tv_nsec += period_us * 1000;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return 0;
}
