/* SPDX-License-Identifier: MIT */
/* LTTng-UST compatibility: <lttng/tracepoint.h> is trawl's <trawl/tracepoint.h>. */
#include <trawl/tracepoint.h>
