/* SPDX-License-Identifier: MIT */
/*
 * getcpu-plugin.c - a getcpu plugin for compat.py getcpu: the CPU number is
 * TEST_GETCPU from the environment, whatever CPU the thread runs on.
 */
#include <stdlib.h>

#include <lttng/ust-getcpu.h>

static int cpu;

static int plugin_getcpu(void)
{
	return cpu;
}

void lttng_ust_getcpu_plugin_init(void);
void lttng_ust_getcpu_plugin_init(void)
{
	const char *v = getenv("TEST_GETCPU");

	cpu = v ? atoi(v) : 0;
	if (lttng_ust_getcpu_override(plugin_getcpu))
		abort();
}
