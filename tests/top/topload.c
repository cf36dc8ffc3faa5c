/* SPDX-License-Identifier: MIT */
/*
 * Known work for trawltop's tests to find in a trace. Prints "pid=<pid>"
 * first, then what it measured of itself:
 *   topload burn CPU MS    pinned to CPU, runs until getrusage() says it
 *                          used MS ms of CPU; prints "cpu_ns=<rusage ns>"
 *   topload calls N        N getpgid(7777777) calls (each -ESRCH)
 *   topload rate PER_S S   PER_S getpgid(7777777) a second for S seconds
 *                          (bench/top/bench-live.sh)
 *   topload faults N       touches N new pages (N page faults or more)
 *   topload read FILE      reads FILE to its end in 4000-byte reads;
 *                          prints "bytes=<total>"
 *   topload sleep S        sleeps S seconds (a process for the live tests)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long rusage_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ll +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ll;
}

/* The loop's sum goes here: a local only ever written is an error for clang. */
static volatile unsigned long sink;

static int burn(int cpu, long ms)
{
	cpu_set_t set;
	long long used;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("sched_setaffinity");
		return 1;
	}
	do {
		for (int i = 0; i < 100000; i++)
			sink += (unsigned long)i;
		used = rusage_ns();
	} while (used < ms * 1000000ll);
	printf("cpu_ns=%lld\n", used);
	return 0;
}

static int read_file(const char *path)
{
	char buf[4000];
	long long total = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	close(fd);
	printf("bytes=%lld\n", total);
	return n < 0;
}

/* @per_s getpgid() a second for @secs seconds, in a batch every millisecond. */
static int rate(long per_s, long secs)
{
	struct timespec next, now;
	long batch = per_s / 1000, ticks = secs * 1000;

	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long t = 0; t < ticks; t++) {
		for (long i = 0; i < batch; i++)
			syscall(SYS_getpgid, 7777777);
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec < next.tv_sec ||
		    (now.tv_sec == next.tv_sec && now.tv_nsec < next.tv_nsec))
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return 0;
}

/* Touches @n new pages of anonymous memory: @n page faults, at least. */
static int faults(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 1;
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	printf("faults=%ld\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	printf("pid=%d\n", (int)getpid());
	fflush(stdout);
	if (argc == 4 && !strcmp(argv[1], "burn"))
		return burn(atoi(argv[2]), atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "calls")) {
		for (long i = 0, n = atol(argv[2]); i < n; i++)
			syscall(SYS_getpgid, 7777777);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "faults"))
		return faults(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "rate"))
		return rate(atol(argv[2]), atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "read"))
		return read_file(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "sleep")) {
		sleep((unsigned)atoi(argv[2]));
		return 0;
	}
	fprintf(stderr, "usage: topload burn CPU MS | calls N | faults N | rate PER_S SECONDS | read FILE | sleep S\n");
	return 2;
}
