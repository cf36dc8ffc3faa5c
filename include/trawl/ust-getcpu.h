/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ust-getcpu.h> - a CPU number plugin, with LTTng-UST's API
 * (<lttng/ust-getcpu.h>): which per-CPU buffer (and cpu_id) an event goes
 * to. A plugin is a shared object named by LTTNG_UST_GETCPU_PLUGIN in the
 * traced program's environment; libtrawl-ust loads it at start-up and calls
 * its lttng_ust_getcpu_plugin_init(), which calls
 * lttng_ust_getcpu_override(). A number the buffers lack (negative or too
 * large) is taken modulo their count.
 */
#ifndef TRAWL_UST_GETCPU_H
#define TRAWL_UST_GETCPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 0, or -EINVAL for a NULL @getcpu. */
int lttng_ust_getcpu_override(int (*getcpu)(void));

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_UST_GETCPU_H */
