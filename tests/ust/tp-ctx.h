/* SPDX-License-Identifier: MIT */
/* The context test app's one event: who (role), when (step), and what the
 * app itself saw then: its perf fds, and the kernel's priority and nice of
 * the thread from /proc/thread-self/stat (-1000: not read). */
#undef TRACEPOINT_PROVIDER
#define TRACEPOINT_PROVIDER tctx
#undef TRACEPOINT_INCLUDE
#define TRACEPOINT_INCLUDE "./tp-ctx.h"
#if !defined(TP_CTX_H) || defined(TRACEPOINT_HEADER_MULTI_READ)
#define TP_CTX_H
#include <lttng/tracepoint.h>
#include <stdint.h>

TRACEPOINT_EVENT(tctx, mark,
		 TP_ARGS(int32_t, role, int32_t, step, int32_t, perf_fds, int32_t, kprio, int32_t, knice),
		 TP_FIELDS(ctf_integer(int32_t, role, role) ctf_integer(int32_t, step, step)
				   ctf_integer(int32_t, perf_fds, perf_fds)
				   ctf_integer(int32_t, kprio, kprio) ctf_integer(int32_t, knice, knice)))
#endif
#include <lttng/tracepoint-event.h>
