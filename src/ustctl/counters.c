/* SPDX-License-Identifier: MIT */
/*
 * counters.c - the perf counters `add-context -u -t perf:thread:NAME`
 * offers (names and perf_event_attr: common/perf-counters.c), the CTF
 * field name, and the daemon's probe of whether this machine and user can
 * open one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "ustctl/ustctl.h"
#include "ustabi/wire.h"

int trawl_ustctl_counter_lookup(const char *name, struct trawl_ustctl_counter *c)
{
	char *p;
	int n;

	memset(c, 0, sizeof(*c));
	if (trawl_perf_counter_lookup(name, &c->type, &c->config))
		return -ENOENT;
	n = snprintf(c->name, sizeof(c->name), "perf_thread_%s", name);
	if (n < 0 || (size_t)n >= sizeof(c->name))
		return -ENOENT;
	for (p = c->name; *p; p++)
		if (*p == '-' || *p == ':') /* raw:rHEX:NAME as LTTng: perf_thread_raw_rHEX_NAME */
			*p = '_';
	return 0;
}

int trawl_ustctl_counter_is_hardware(const struct trawl_ustctl_counter *c)
{
	return c->type != PERF_TYPE_SOFTWARE;
}

int trawl_ustctl_counter_probe(const struct trawl_ustctl_counter *c)
{
	int fd = trawl_wire_counter_open(c->type, c->config);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	/* No PMU: the hardware type has no driver (ENOENT), or the driver
	 * lacks this event (EOPNOTSUPP, ENODEV on some kernels). */
	if (trawl_ustctl_counter_is_hardware(c) && (fd == -ENOENT || fd == -EOPNOTSUPP || fd == -ENODEV))
		return -ENODEV;
	return fd == -EPERM ? -EACCES : fd;
}

uint32_t trawl_ustctl_contexts_size(const struct trawl_ustctl_contexts *ctx)
{
	return trawl_ustctl_context_size(ctx->bits) + ctx->nr_counters * 8u;
}
