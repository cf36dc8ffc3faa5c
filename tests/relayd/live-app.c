/* SPDX-License-Identifier: MIT */
/*
 * live-app - a traced program for the live tests: waits until its
 * tracepoints are enabled, then for each line "N" read from stdin emits N
 * tall:seq events (thread = the batch's number from 0, n = 0 .. N-1) and
 * prints "batch B done"; exits at end of input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tp-all.h"

int main(void)
{
	char line[64];
	uint32_t batch = 0;
	int i;

	for (i = 0; i < 10000 && !tracepoint_enabled(tall, seq); i++)
		usleep(1000);
	printf("ready %d\n", tracepoint_enabled(tall, seq) ? 1 : 0);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		uint64_t n = strtoull(line, NULL, 10), k;

		for (k = 0; k < n; k++)
			tracepoint(tall, seq, batch, k);
		printf("batch %u done\n", batch++);
		fflush(stdout);
	}
	return 0;
}
