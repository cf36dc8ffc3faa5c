/* SPDX-License-Identifier: MIT */
/*
 * dlopen()s each provider named on the command line (tp-dup.h), then calls
 * tdup:ev once with 7: each provider of the event records it.
 *
 *   app-dup PROVIDER.so...
 */
#define TRACEPOINT_DEFINE
#define TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "tp-dup.h"

#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!dlopen(argv[i], RTLD_NOW)) {
			fprintf(stderr, "app-dup: %s\n", dlerror());
			return 1;
		}
	}
	tracepoint(tdup, ev, 7);
	return 0;
}
