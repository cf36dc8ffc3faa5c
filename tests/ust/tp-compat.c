/* SPDX-License-Identifier: MIT */
/* The probes of tp-compat.h and tp-borrow.h (which uses tp-compat.h's
 * class), built into a static library: the program links them only through
 * LTTNG_UST_TRACEPOINT_DEFINE's reference. */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include "tp-compat.h"
#include "tp-borrow.h"
