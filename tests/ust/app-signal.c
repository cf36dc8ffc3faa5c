/* SPDX-License-Identifier: MIT */
/*
 * Events from signal handlers that interrupt events: T threads each record
 * N tall:seq events (thread = t, n = 0..N-1) while a timer of their own
 * (SIGEV_THREAD_ID, every 20 us of CLOCK_MONOTONIC) makes
 * them record more from a SIGPROF handler (thread = 100 + t, n = 0, 1, ...
 * per thread). With events this close together, many a signal lands
 * inside the recording of another event of the same thread: between its
 * reservation and its commit, inside the reservation (libtrawl-ust's
 * memory of the thread's last event, fastpath.c), or around its clock
 * read. sighandler.py checks what bt2 reads of the trace.
 *
 *   app-signal THREADS EVENTS
 *
 * Prints "handled H" (the events recorded by handlers, all threads).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "tp-all.h"

static uint64_t per_thread;
static pthread_barrier_t barrier;
static uint64_t handled_total;
static __thread uint32_t thread_index;
static __thread uint64_t handled;
static __thread volatile sig_atomic_t armed;

static void on_prof(int sig)
{
	(void)sig;
	if (!armed)
		return;
	tracepoint(tall, seq, 100 + thread_index, handled);
	handled++;
}

static void *worker(void *arg)
{
	struct sigevent sev;
	struct itimerspec its = { { 0, 20000 }, { 0, 20000 } };
	timer_t timer;
	uint64_t i;

	thread_index = (uint32_t)(uintptr_t)arg;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer)) {
		perror("app-signal: timer_create");
		exit(1);
	}
	pthread_barrier_wait(&barrier);
	armed = 1;
	if (timer_settime(timer, 0, &its, NULL)) {
		perror("app-signal: timer_settime");
		exit(1);
	}
	for (i = 0; i < per_thread; i++)
		tracepoint(tall, seq, thread_index, i);
	armed = 0;
	timer_delete(timer);
	__atomic_fetch_add(&handled_total, handled, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t th[16];
	int nthreads, t;

	if (argc != 3 || (nthreads = atoi(argv[1])) < 1 || nthreads > 16) {
		fprintf(stderr, "usage: app-signal THREADS(1-16) EVENTS\n");
		return 2;
	}
	per_thread = strtoull(argv[2], NULL, 10);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPROF, &sa, NULL);
	/* Wait for the session to enable us (up to 10 s). */
	for (t = 0; t < 10000 && !tracepoint_enabled(tall, seq); t++)
		usleep(1000);
	pthread_barrier_init(&barrier, NULL, (unsigned int)nthreads);
	for (t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t);
	for (t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	printf("handled %llu\n", (unsigned long long)handled_total);
	return 0;
}
