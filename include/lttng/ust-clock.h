/* SPDX-License-Identifier: MIT */
/* LTTng-UST compatibility: <lttng/ust-clock.h> is trawl's <trawl/ust-clock.h>. */
#include <trawl/ust-clock.h>
