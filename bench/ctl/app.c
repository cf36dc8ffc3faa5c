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

#include <lttng/tracef.h>
#include <stdint.h>
#include <time.h>

int main(void)
{
	const struct timespec ms = {0, 1000000};
	int64_t i = 0;

	/* One tracef: with libtrawl-ust of 12:20 today, an app that never uses
	 * tracef sometimes re-registers without its own provider (a race in the
	 * agent's registration generation, reported to the ust part); this keeps
	 * the benchmark independent of it and costs nothing with LTTng-UST. */
	tracef("bench-ctl app %d", 1);
	for (;;) {
		int k;

		for (k = 0; k < 1000; k++, i++)
			tracepoint(benchctl, ev, i, (uint32_t)i, "hello-anchor");
		nanosleep(&ms, NULL);
	}
	return 0;
}
