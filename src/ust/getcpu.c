/* SPDX-License-Identifier: MIT */
/*
 * getcpu.c - LTTng-UST's getcpu plugin (<trawl/ust-getcpu.h>): the shared
 * object named by LTTNG_UST_GETCPU_PLUGIN is loaded by the library's
 * constructor, as LTTng-UST loads it, and its lttng_ust_getcpu_plugin_init()
 * calls lttng_ust_getcpu_override(). From then on the plugin's number picks
 * each event's per-CPU stream (fastpath.c; modulo the stream count when the
 * buffers lack it) and is $ctx.cpu_id in filters (filter.c).
 *
 * A plugin that does not load, or has no init function, is reported in one
 * line on stderr and the kernel's number stays in use.
 */
#define _GNU_SOURCE
#include "ust/ust.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/common.h"
#include "trawl/ust-getcpu.h"

int (*trawl_ust_getcpu_fn)(void);

TRAWL_EXPORT int lttng_ust_getcpu_override(int (*getcpu)(void))
{
	if (!getcpu)
		return -EINVAL;
	/* Release: the plugin's own state before its function is seen. */
	__atomic_store_n(&trawl_ust_getcpu_fn, getcpu, __ATOMIC_RELEASE);
	return 0;
}

void trawl_ust_getcpu_init(void)
{
	const char *name = getenv("LTTNG_UST_GETCPU_PLUGIN");
	void (*init)(void);
	void *h;

	if (!name || !*name)
		return;
	h = dlopen(name, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "trawl-ust: LTTNG_UST_GETCPU_PLUGIN not loaded: %s\n", dlerror());
		return;
	}
	init = (void (*)(void))dlsym(h, "lttng_ust_getcpu_plugin_init");
	if (!init) {
		fprintf(stderr, "trawl-ust: LTTNG_UST_GETCPU_PLUGIN %s has no lttng_ust_getcpu_plugin_init()\n", name);
		return;
	}
	init();
}
