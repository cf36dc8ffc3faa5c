/* SPDX-License-Identifier: MIT */
/*
 * The openat benchmark's traced program: N openat(AT_FDCWD, PATH, O_RDONLY)
 * + close() pairs on CPU 0, timed inside the program. Prints
 * "ns_per_call=<ns per openat+close> cpu_ns=<user+sys ns>".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	const char *path = argc > 2 ? argv[2] : "/etc/hostname";
	struct timespec a, b;
	struct rusage ru;
	cpu_set_t set;
	double ns;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		int fd = openat(AT_FDCWD, path, O_RDONLY);

		if (fd < 0)
			return 1;
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	getrusage(RUSAGE_SELF, &ru);
	printf("ns_per_call=%.1f cpu_ns=%lld\n", ns / (double)n,
	       (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
		       (long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
	return 0;
}
