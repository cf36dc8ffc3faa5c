/* SPDX-License-Identifier: MIT */
/* LTTng-UST compatibility: <lttng/ust-getcpu.h> is trawl's <trawl/ust-getcpu.h>. */
#include <trawl/ust-getcpu.h>
