/* SPDX-License-Identifier: MIT */
/* Provider tmb and the function that emits its events (app-multi.c). */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "tp-mb.h"

void tmb_emit(int n);

__attribute__((visibility("default"))) void tmb_emit(int n)
{
	tracepoint(tmb, seq, n);
}
