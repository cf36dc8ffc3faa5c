/* SPDX-License-Identifier: MIT */
/*
 * The loss tests' traced program: emits N tall:seq events (thread = ID,
 * n = 0 .. N-1) at about RATE events a second (0: as fast as it can), then
 * exits 0. Every event is committed or dropped-and-counted by libtrawl-ust,
 * so a trace must hold read + discarded == N exactly.
 *
 *   loss-app N RATE ID [WAIT_MS [FORKS]]
 *
 * WAIT_MS > 0: first waits (at most that long) until the session enabled the
 * event, as a long-running program would be; 0 (churn): starts at once, as a
 * short-lived program does (libtrawl-ust's start-up waits for the daemon).
 * FORKS > 0: then forks that many children, one after the other; child k
 * emits N events at once with ID + 10000 * (k + 1) and exits (a forked
 * child's first events, as a shell's or a server's). Prints "done" on
 * stdout at the end.
 *
 * LOSS_APP_FOR_MS=T: instead of N events at RATE, records as fast as it
 * can for T ms (the clock read every 1,024 events) in LOSS_APP_THREADS
 * threads (default 1; thread k records as ID + 100000 * k), then prints
 * "emitted ID K" for each before "done" (loss.py tally-end: tight loops
 * through the end of its tally).
 *
 * LOSS_APP_HOLD=1: after its events (and children), prints "held PID" and
 * waits to be killed (the tally tests kill it, SIGKILL, before its exit).
 * LOSS_APP_MORE=M too: before that wait, reads lines on stdin, and for
 * each emits M more events (or the line's number of them) (n going on from N) and prints "more PID"
 * (tally-shm.sh late: events emitted after the daemon dropped the program).
 * LOSS_APP_EXIT=1 too: at the end of stdin, prints "done" and exits (its
 * destructors run) instead of waiting (drop-window.sh).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tp-all.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A LOSS_APP_FOR_MS thread's loop: records as fast as it can until @until. */
struct loop_arg {
	uint32_t id;
	uint64_t until, emitted;
};

static void *loop_for(void *p)
{
	struct loop_arg *a = p;
	uint64_t i;

	for (i = 0; i % 1024 || now_ns() < a->until; i++)
		tracepoint(tall, seq, a->id, i);
	a->emitted = i;
	return NULL;
}

/* LOSS_APP_FOR_MS: @threads loops of @ms from now, ids @id + 100000 * k. */
static int loop_threads(uint32_t id, uint64_t ms, int threads)
{
	struct loop_arg a[16];
	pthread_t th[16];
	int k;

	if (threads < 1 || threads > 16)
		return -1;
	for (k = 0; k < threads; k++) {
		a[k] = (struct loop_arg){id + 100000u * (uint32_t)k, now_ns() + ms * 1000000u, 0};
		if (k && pthread_create(&th[k], NULL, loop_for, &a[k]))
			return -1;
	}
	loop_for(&a[0]);
	for (k = 1; k < threads; k++)
		pthread_join(th[k], NULL);
	for (k = 0; k < threads; k++)
		printf("emitted %u %llu\n", a[k].id, (unsigned long long)a[k].emitted);
	return 0;
}

/* FORKS children, each emitting @n events as @id + 10000 * (k + 1). */
static int fork_children(uint64_t n, uint32_t id, int forks)
{
	int k, status;
	uint64_t i;
	pid_t pid;

	for (k = 0; k < forks; k++) {
		pid = fork();
		if (pid == 0) {
			for (i = 0; i < n; i++)
				tracepoint(tall, seq, id + 10000u * (uint32_t)(k + 1), i);
			exit(0); /* not _exit: the destructors run, as a program's */
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n, rate, i, t0;
	uint32_t id;
	int wait_ms, w, forks;

	if (argc < 4) {
		fprintf(stderr, "usage: loss-app N RATE ID [WAIT_MS]\n");
		return 2;
	}
	n = strtoull(argv[1], NULL, 10);
	rate = strtoull(argv[2], NULL, 10);
	id = (uint32_t)strtoul(argv[3], NULL, 10);
	wait_ms = argc > 4 ? atoi(argv[4]) : 0;
	forks = argc > 5 ? atoi(argv[5]) : 0;
	for (w = 0; w < wait_ms && !tracepoint_enabled(tall, seq); w++)
		usleep(1000);
	t0 = now_ns();
	if (getenv("LOSS_APP_FOR_MS")) {
		const char *th = getenv("LOSS_APP_THREADS");

		if (loop_threads(id, strtoull(getenv("LOSS_APP_FOR_MS"), NULL, 10), th ? atoi(th) : 1))
			return 1;
		n = 0;
	}
	for (i = 0; i < n; i++) {
		tracepoint(tall, seq, id, i);
		/* Paced in steps of 1 ms: sleep until event i is due. */
		if (rate && i % (rate / 1000 + 1) == 0) {
			uint64_t due = t0 + i * 1000000000u / rate, now = now_ns();

			if (due > now) {
				struct timespec d = {(time_t)((due - now) / 1000000000u),
						     (long)((due - now) % 1000000000u)};

				nanosleep(&d, NULL);
			}
		}
	}
	if (fork_children(n, id, forks))
		return 1;
	if (getenv("LOSS_APP_HOLD")) {
		const char *more = getenv("LOSS_APP_MORE");
		char line[16];

		printf("held %d\n", (int)getpid());
		fflush(stdout);
		uint64_t next = n;

		while (more && fgets(line, sizeof(line), stdin)) {
			/* A line with a number: that many, instead of M. */
			uint64_t m = strtoull(line, NULL, 10);

			if (!m)
				m = strtoull(more, NULL, 10);
			for (i = next; i < next + m; i++)
				tracepoint(tall, seq, id, i);
			next += m;
			printf("more %d\n", (int)getpid());
			fflush(stdout);
		}
		if (!getenv("LOSS_APP_EXIT"))
			for (;;)
				pause();
	}
	printf("done\n");
	return 0;
}
