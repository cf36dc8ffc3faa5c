/* SPDX-License-Identifier: MIT */
/*
 * trawl_ust_add_on_cpu() (src/ust/oncpu.h), the commit of an event on its
 * stream's own CPU, against what the kernel does to its rseq section:
 *
 *   1. pinned to CPU c, a loop adds 1 on CPU c, a timer signal every 10 us
 *      adding 1 too from its handler (which may land inside the loop's
 *      section): each add is in the plain count when it says so, else the
 *      caller adds it with a lock prefix, and the two counts add up to the
 *      adds made, exactly. Some of the loop's sections must have been
 *      aborted by the kernel (it moves the thread to the abort label, after
 *      checking the signature there: a wrong descriptor or signature is a
 *      SIGSEGV), and none of those added anything;
 *   2. an add for a CPU the thread is not on never adds;
 *   3. two threads add to one count for CPU c, one pinned there, one moving
 *      between the CPUs every 1000 adds: again exact.
 *
 * Exit 77 (skipped) where glibc registered no rseq, or off x86-64.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "ust/oncpu.h"

#if defined(TRAWL_UST_ONCPU)

static uint64_t plain, locked;
static uint32_t the_cpu;
static volatile sig_atomic_t handler_adds;

static void add_one(void)
{
	if (trawl_ust_add_on_cpu(&plain, 1, the_cpu))
		__atomic_fetch_add(&locked, 1, __ATOMIC_RELAXED);
}

static void on_alarm(int sig)
{
	(void)sig;
	add_one();
	handler_adds++;
}

static int pin(uint32_t cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* 1: the loop, with signals, until enough sections were aborted. */
static int check_signals(void)
{
	struct sigevent sev;
	struct itimerspec its = { { 0, 10000 }, { 0, 10000 } };
	struct sigaction sa;
	uint64_t made = 0, aborted = 0, deadline = now_ns() + 20 * UINT64_C(1000000000);
	timer_t timer;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGPROF, &sa, NULL))
		return perror("sigaction"), 1;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGPROF;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) || timer_settime(timer, 0, &its, NULL))
		return perror("timer"), 1;
	/* Until 1000 aborted sections and 1000 handler adds, or 20 s. */
	while ((aborted < 1000 || handler_adds < 1000) && ((made & 0xffff) || now_ns() < deadline)) {
		if (trawl_ust_add_on_cpu(&plain, 1, the_cpu)) {
			__atomic_fetch_add(&locked, 1, __ATOMIC_RELAXED);
			aborted++;
		}
		made++;
	}
	timer_delete(timer);
	signal(SIGPROF, SIG_IGN);
	printf("signals: %llu adds, %llu from handlers, %llu sections aborted\n", (unsigned long long)made,
	       (unsigned long long)handler_adds, (unsigned long long)aborted);
	if (plain + locked != made + (uint64_t)handler_adds) {
		fprintf(stderr, "oncpu: %llu plain + %llu locked != %llu adds\n", (unsigned long long)plain,
			(unsigned long long)locked, (unsigned long long)(made + (uint64_t)handler_adds));
		return 1;
	}
	if (!aborted) {
		fprintf(stderr, "oncpu: no section was ever aborted: the abort path is untested\n");
		return 1;
	}
	return 0;
}

/* 2: an add for another CPU. */
static int check_other_cpu(uint32_t other)
{
	uint64_t count = 0;
	int i;

	for (i = 0; i < 1000; i++) {
		if (!trawl_ust_add_on_cpu(&count, 1, other) || count) {
			fprintf(stderr, "oncpu: added for CPU %u on CPU %u\n", other, the_cpu);
			return 1;
		}
	}
	return 0;
}

/* 3: a thread moving between CPUs, another pinned to the count's CPU. */
struct mover {
	uint32_t cpus[2];
	int moves;
	uint64_t adds;
};

static void *mover(void *arg)
{
	struct mover *m = arg;
	int i, j;

	for (i = 0; i < m->moves; i++) {
		if (pin(m->cpus[i & 1]))
			return perror("sched_setaffinity"), (void *)1;
		for (j = 0; j < 1000; j++)
			add_one();
		m->adds += 1000;
	}
	return NULL;
}

static int check_movers(uint32_t other)
{
	struct mover a = { { the_cpu, other }, 2000, 0 }, b = { { the_cpu, the_cpu }, 2000, 0 };
	pthread_t ta, tb;
	void *ra, *rb;

	plain = locked = 0;
	if (pthread_create(&ta, NULL, mover, &a) || pthread_create(&tb, NULL, mover, &b))
		return perror("pthread_create"), 1;
	pthread_join(ta, &ra);
	pthread_join(tb, &rb);
	printf("movers: %llu plain, %llu locked\n", (unsigned long long)plain, (unsigned long long)locked);
	if (ra || rb)
		return 1;
	if (plain + locked != a.adds + b.adds || !plain || !locked) {
		fprintf(stderr, "oncpu: movers: %llu plain + %llu locked, %llu adds\n", (unsigned long long)plain,
			(unsigned long long)locked, (unsigned long long)(a.adds + b.adds));
		return 1;
	}
	return 0;
}

int main(void)
{
	cpu_set_t set;
	uint32_t c, other;
	int ret = 0;

	if (!__rseq_size) {
		printf("SKIP: glibc registered no rseq\n");
		return 77;
	}
	if (sched_getaffinity(0, sizeof(set), &set))
		return perror("sched_getaffinity"), 1;
	for (c = 0; c < CPU_SETSIZE && !CPU_ISSET(c, &set); c++)
		;
	for (other = c + 1; other < CPU_SETSIZE && !CPU_ISSET(other, &set); other++)
		;
	the_cpu = c;
	if (pin(c))
		return perror("sched_setaffinity"), 1;
	ret |= check_signals();
	ret |= check_other_cpu(other < CPU_SETSIZE ? other : c + 1);
	if (other < CPU_SETSIZE) {
		/* Unpinned first: the threads start wherever they may run. */
		CPU_ZERO(&set);
		CPU_SET(c, &set);
		CPU_SET(other, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			return perror("sched_setaffinity"), 1;
		ret |= check_movers(other);
	}
	return ret;
}

#else

int main(void)
{
	printf("SKIP: no rseq commit on this architecture\n");
	return 77;
}

#endif
