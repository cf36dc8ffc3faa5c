/* SPDX-License-Identifier: MIT */
/*
 * The test app: waits until its tracepoints are enabled (or a timeout),
 * emits one of each "tall" event with known values, then N "tall:seq" events
 * per thread on T threads, then exits (or sleeps forever with "hang", to be
 * killed).
 *
 *   app-all [threads] [events per thread] [wait ms] [hang|fork]
 *
 * fork: then forks; the child (a new app for the daemon) waits until it is
 * traced on its own and emits the same number of tall:seq events with
 * thread = 100 + its threads' index.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lttng/tracef.h>
#include <lttng/tracelog.h>

#include "tp-all.h"

static uint64_t per_thread = 1000;

static void *worker(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	uint64_t i;

	for (i = 0; i < per_thread; i++)
		tracepoint(tall, seq, t, i);
	return NULL;
}

/*
 * Until tall:seq is enabled, or @ms milliseconds of CLOCK_MONOTONIC have
 * passed. Not @ms sleeps of 1 ms: at load 30 each took ~6 ms, so a session
 * that leaves tall:seq out (python-module's test_exclusions) kept the app
 * waiting past its caller's 120 s instead of 20 s.
 */
static void wait_enabled(int ms)
{
	struct timespec now, end;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (long)(ms % 1000) * 1000000;
	if (end.tv_nsec >= 1000000000) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000;
	}
	while (!tracepoint_enabled(tall, seq)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec || (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			return;
		usleep(1000);
	}
}

int main(int argc, char **argv)
{
	int nthreads = argc > 1 ? atoi(argv[1]) : 1;
	int wait_ms = argc > 3 ? atoi(argv[3]) : 5000;
	int hang = argc > 4 && !strcmp(argv[4], "hang");
	static const int arr[] = { -1, 0, 2147483647 };
	pthread_t th[64];
	int i;

	if (argc > 2)
		per_thread = strtoull(argv[2], NULL, 10);
	/* Wait for the session to enable us (the daemon does it after we
	 * register; a real app would not wait). */
	wait_enabled(wait_ms);
	tracepoint(tall, ints, -1234567890123LL, 4000000000u);
	tracepoint(tall, ints, 5, 7);
	tracepoint(tall, floats, 3.5);
	tracepoint(tall, strings, "hello-anchor", 5);
	{
		/* ctf_array_text copies 4 bytes whatever the string: give it 4. */
		static const char empty[4] = "";

		tracepoint(tall, strings, empty, 0);
	}
	tracepoint(tall, arrays, arr, 3);
	tracepoint(tall, arrays, arr, 0);
	tracepoint(tall, enums, 1);
	tracepoint(tall, enums, 12);
	tracepoint(tall, enums, 20);
	tracepoint(tall, enums, 99);
	tracepoint(tall, first, 1, 2);
	tracepoint(tall, second, 3, 4);
	tracepoint(tall, noargs);
	tracef("%d %s", 42, "tracef-text");
	{
		const char *volatile nothing = NULL;

		tracef("%u|%x|%ld|%lld|%c|%%|%s|%i|%zu", 4000000000u, 0xbeefu, -5L, -9000000000LL, 'Z', nothing,
		       -2147483647 - 1, (size_t)7);
		tracef("%5d|%.2f", 42, 3.14159);
	}
	tracelog(TRACE_WARNING, "careful %d", 7);
	if (nthreads < 1 || nthreads > 64)
		nthreads = 1;
	for (i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	if (argc > 4 && !strcmp(argv[4], "fork")) {
		pid_t pid = fork();

		if (pid == 0) {
			/* Not traced until this process registers by itself. */
			wait_enabled(wait_ms);
			for (i = 0; i < nthreads; i++)
				pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(100 + i));
			for (i = 0; i < nthreads; i++)
				pthread_join(th[i], NULL);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &i, 0) != pid || !WIFEXITED(i) || WEXITSTATUS(i))
			return 1;
	}
	if (hang) {
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pause();
	}
	return 0;
}
