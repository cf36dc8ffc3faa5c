/* SPDX-License-Identifier: MIT */
/*
 * A short-lived program: emits N tall:seq events (thread 0, n = 0 .. N-1)
 * as the first thing main() does, with no wait of its own, and exits. Its
 * events are in the trace only if libtrawl-ust's start-up waited for the
 * session daemon's setup (src/ust/agent.c: early events).
 *
 *   app-early N [fork|fork-now|clone-now|daemon-now]
 *
 * fork: then forks; the child (a new app, registered by its own agent:
 * nothing waits for it at start-up) waits up to 5 s for its tracepoint to be
 * enabled and emits N more with thread = 100.
 * fork-now, clone-now: the child (of fork(), or of clone() without
 * CLONE_VM, which the C library's fork handlers never see) emits its N
 * events (thread = 100) at once and exits: they are all in the trace only
 * when libtrawl-ust-fork (LD_PRELOAD) made fork()/clone() return in the
 * child once the child was set up.
 * daemon-now: daemon(1, 1), then the daemon (the child: the program's first
 * process exits) emits its N events at once and exits; it keeps stdout, so
 * a reader of the program's stdout sees its end when the daemon is done.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tp-all.h"

static uint64_t child_n;

static int child_now(void *arg)
{
	uint64_t i;

	(void)arg;
	for (i = 0; i < child_n; i++)
		tracepoint(tall, seq, 100, i);
	_exit(0);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 50, i;
	int status;
	pid_t pid;

	for (i = 0; i < n; i++)
		tracepoint(tall, seq, 0, i);
	if (argc < 3)
		return 0;
	child_n = n;
	if (!strcmp(argv[2], "fork-now")) {
		pid = fork();
		if (pid == 0)
			child_now(NULL);
	} else if (!strcmp(argv[2], "clone-now")) {
		static char stack[256 * 1024] __attribute__((aligned(16)));

		pid = clone(child_now, stack + sizeof(stack), SIGCHLD, NULL);
	} else if (!strcmp(argv[2], "daemon-now")) {
		if (daemon(1, 1))
			return 1;
		return child_now(NULL); /* does not return: it exits */
	} else if (strcmp(argv[2], "fork")) {
		return 0;
	} else {
		pid = fork();
	}
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
