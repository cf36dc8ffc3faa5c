/* SPDX-License-Identifier: MIT */
/*
 * An app whose tracepoint provider is a shared object: it is not linked with
 * libtrawl-ust nor with the probes, only defines its call sites. The probes
 * come with LD_PRELOAD=libtp-all.so, or with dlopen(argv[3]) at run time.
 *
 *   app-dl EVENTS WAIT_MS [PROVIDER.so]
 */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tp-all.h"

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100, i;
	int wait_ms = argc > 2 ? atoi(argv[2]) : 5000, k;

	if (argc > 3 && !dlopen(argv[3], RTLD_NOW)) {
		fprintf(stderr, "app-dl: %s\n", dlerror());
		return 1;
	}
	for (k = 0; k < wait_ms && !tracepoint_enabled(tall, seq); k++)
		usleep(1000);
	for (i = 0; i < n; i++)
		tracepoint(tall, seq, 7, i);
	return 0;
}
