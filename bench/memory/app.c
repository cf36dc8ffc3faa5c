/* SPDX-License-Identifier: MIT */
/*
 * The memory bench's traced program (bench/memory/run.sh): the ANCHORS.md
 * event, built twice from this one source (LTTng-UST's headers, trawl's
 * compatibility headers).
 *
 *   bench-memory-app-{trawl,lttng} EVENTS
 *
 * With EVENTS > 0, waits (up to 10 s) for a session to enable anchor:ev,
 * records EVENTS events from the thread it runs on (run.sh pins it with
 * taskset), then says "ready PID" on stdout; with 0, says it at once (the
 * untraced baseline). Then it stays, its buffers mapped, until its stdin
 * ends, so that the bench can read /proc of it and of the daemons.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tp-anchor.h"

int main(int argc, char **argv)
{
	unsigned long long i, n;
	char c;
	int t;

	if (argc != 2)
		return 2;
	n = strtoull(argv[1], NULL, 10);
	for (t = 0; n && t < 10000 && !tracepoint_enabled(anchor, ev); t++)
		usleep(1000);
	for (i = 0; i < n; i++)
		tracepoint(anchor, ev, (int64_t)i, (uint32_t)i, "hello-anchor");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
