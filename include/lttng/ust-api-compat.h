/* SPDX-License-Identifier: MIT */
/*
 * LTTng-UST compatibility: <lttng/ust-api-compat.h>. LTTNG_UST_COMPAT_API(0)
 * is true while the classic names are kept (LTTNG_UST_COMPAT_API_VERSION
 * undefined or 0), as in LTTng-UST 2.13.
 */
#ifndef TRAWL_LTTNG_UST_API_COMPAT_H
#define TRAWL_LTTNG_UST_API_COMPAT_H

#ifndef LTTNG_UST_COMPAT_API_VERSION
#define LTTNG_UST_COMPAT_API_VERSION 0
#endif
#define LTTNG_UST_COMPAT_API(major) (LTTNG_UST_COMPAT_API_VERSION <= (major))

#endif
