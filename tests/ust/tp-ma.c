/* SPDX-License-Identifier: MIT */
/* Provider tma and the function that emits its events (app-multi.c). */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "tp-ma.h"

void tma_emit(int n);

__attribute__((visibility("default"))) void tma_emit(int n)
{
	tracepoint(tma, seq, n);
}
