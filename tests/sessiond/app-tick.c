/* SPDX-License-Identifier: MIT */
/*
 * A traced program driven by its test through stdin, for checks that need
 * to know which events were emitted between two commands:
 *   ust-app-tick TAG
 * It prints "pid PID" first. Each line "N" read emits N tall:seq events (thread = TAG, n = a counter
 * that goes on from line to line), then prints "ok"; EOF ends it. A
 * tracepoint() call has written its event (or dropped it) when it returns,
 * so once "ok" is read, what the session records of those events is set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tp-all.h"

int main(int argc, char **argv)
{
	uint32_t tag = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 0;
	uint64_t n = 0;
	char line[64];

	/* Its pid first: a test that starts it through runuser has runuser's. */
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		long k = strtol(line, NULL, 10);

		/* tracepoint() evaluates its arguments only when enabled:
		 * the counter moves outside it. */
		for (; k > 0; k--, n++)
			tracepoint(tall, seq, tag, n);
		printf("ok\n");
		fflush(stdout);
	}
	return 0;
}
