/* SPDX-License-Identifier: MIT */
/* Provider tmd and the function that emits its events (app-multi.c). */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "tp-md.h"

void tmd_emit(int n);

__attribute__((visibility("default"))) void tmd_emit(int n)
{
	tracepoint(tmd, seq, n);
}
