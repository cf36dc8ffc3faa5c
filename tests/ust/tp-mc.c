/* SPDX-License-Identifier: MIT */
/* Provider tmc and the function that emits its events (app-multi.c). */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "tp-mc.h"

void tmc_emit(int n);

__attribute__((visibility("default"))) void tmc_emit(int n)
{
	tracepoint(tmc, seq, n);
}
