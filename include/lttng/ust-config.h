/* SPDX-License-Identifier: MIT */
/*
 * LTTng-UST compatibility: <lttng/ust-config.h>, LTTng-UST's build options
 * as a program may test them. trawl's: no SystemTap SDT probes in the
 * tracepoints, no 32-bit ABI differences to declare.
 */
#ifndef TRAWL_LTTNG_UST_CONFIG_H
#define TRAWL_LTTNG_UST_CONFIG_H

/* #undef LTTNG_UST_HAVE_SDT_INTEGRATION */

#endif
