/* SPDX-License-Identifier: MIT */
/*
 * app.c - the traced program of bench/ctl: emits bursts of 1000 events every
 * millisecond (about 1 M events/s) until killed, so that `stop` has real data
 * to flush. Built against trawl (bench-ctl-app) and, by bench-ctl.py, against
 * LTTng-UST.
 */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "tp.h"

#ifndef BENCH_NO_TRACEF
#include <lttng/tracef.h>
#endif
#include <stdint.h>
#include <time.h>

int main(void)
{
	const struct timespec ms = {0, 1000000};
	int64_t i = 0;

	/* One tracef: with libtrawl-ust of 12:20 today, an app that never uses
	 * tracef sometimes re-registers without its own provider (a race in the
	 * agent's registration generation, reported to the ust part); this keeps
	 * the benchmark independent of it. The LTTng-UST build leaves it out
	 * (BENCH_NO_TRACEF): LTTng's tracef.h wants a provider symbol its
	 * library does not export when TRACEPOINT_DEFINE is in the same file. */
#ifndef BENCH_NO_TRACEF
	tracef("bench-ctl app %d", 1);
#endif
	for (;;) {
		int k;

		for (k = 0; k < 1000; k++, i++)
			tracepoint(benchctl, ev, i, (uint32_t)i, "hello-anchor");
		nanosleep(&ms, NULL);
	}
	return 0;
}
