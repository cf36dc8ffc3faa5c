/* SPDX-License-Identifier: MIT */
/*
 * How long a tracer's start-up holds the program: the time to dlopen() the
 * tracer library (its constructors run inside: LTTng-UST's waits for its
 * session daemon, up to 3 s; libtrawl-ust's starts its registration thread
 * and returns). Prints microseconds.
 *
 *   bench-ust-startup LIBRARY
 */
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec a, b;

	if (argc < 2)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (!dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL)) {
		fprintf(stderr, "bench-ust-startup: %s\n", dlerror());
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3);
	return 0;
}
