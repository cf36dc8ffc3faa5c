/* SPDX-License-Identifier: MIT */
/* LTTng-UST compatibility: <lttng/tracelog.h> is trawl's <trawl/tracelog.h>. */
#include <trawl/tracelog.h>
