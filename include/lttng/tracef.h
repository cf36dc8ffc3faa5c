/* SPDX-License-Identifier: MIT */
/* LTTng-UST compatibility: <lttng/tracef.h> is trawl's <trawl/tracef.h>. */
#include <trawl/tracef.h>
