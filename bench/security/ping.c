/* SPDX-License-Identifier: MIT */
/*
 * ping.c - how long the session daemon takes to let a client in and answer
 * it: trawl_ctl_connect() (connect, then one PING round trip) and
 * trawl_ctl_disconnect(), timed RUNS times without a process start in
 * between (run.sh also times whole `trawl list` commands).
 *
 *   bench-security-ping RUNS     prints "median_ms max_ms failed"
 */
#include "trawl/ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 20, i, failed = 0;
	double *ms;

	if (runs < 1)
		return 2;
	ms = calloc((size_t)runs, sizeof(*ms));
	if (!ms)
		return 1;
	for (i = 0; i < runs; i++) {
		struct trawl_ctl *ctl;
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (trawl_ctl_connect(&ctl, TRAWL_CTL_CONNECT_NO_SPAWN))
			failed++;
		else
			trawl_ctl_disconnect(ctl);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms[i] = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	}
	qsort(ms, (size_t)runs, sizeof(*ms), cmp);
	printf("%.2f %.2f %d\n", ms[(runs - 1) / 2], ms[runs - 1], failed);
	free(ms);
	return 0;
}
