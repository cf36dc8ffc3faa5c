/* SPDX-License-Identifier: MIT */
/* LTTng-UST compatibility: <lttng/tracepoint-event.h> is trawl's <trawl/tracepoint-event.h>. */
#include <trawl/tracepoint-event.h>
