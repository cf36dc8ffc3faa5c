/* SPDX-License-Identifier: MIT */
/*
 * A short-lived program: emits N tall:seq events (thread 0, n = 0 .. N-1)
 * as the first thing main() does, with no wait of its own, and exits. Its
 * events are in the trace only if libtrawl-ust's start-up waited for the
 * session daemon's setup (src/ust/agent.c: early events).
 *
 *   app-early N [fork]
 *
 * fork: then forks; the child (a new app, registered by its own agent:
 * nothing waits for it at start-up) waits up to 5 s for its tracepoint to be
 * enabled and emits N more with thread = 100.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tp-all.h"

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 50, i;
	int status;
	pid_t pid;

	for (i = 0; i < n; i++)
		tracepoint(tall, seq, 0, i);
	if (argc < 3 || strcmp(argv[2], "fork"))
		return 0;
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < 5000 && !tracepoint_enabled(tall, seq); i++)
			usleep(1000);
		for (i = 0; i < n; i++)
			tracepoint(tall, seq, 100, i);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	return 0;
}
