/* SPDX-License-Identifier: MIT */
/*
 * counters.c - the perf counters `add-context -u -t perf:thread:NAME`
 * offers: perf's names (those of perf-list(1) and LTTng), their
 * perf_event_attr type and config, the CTF field name, and the daemon's
 * probe of whether this machine and user can open one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "ustctl/ustctl.h"
#include "ustctl/wire.h"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} named[] = {
	/* Software: the kernel counts these on every machine. */
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-fault", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	/* Hardware: only with a PMU (none in most VMs). */
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

/* Cache counters, "CACHE-OP" with perf's spelling: L1-dcache-load-misses. */
static const char *const caches[] = { "L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB", "branch" };
static const char *const cache_ops[] = { "loads", "load-misses", "stores", "store-misses", "prefetches",
					 "prefetch-misses" };

static int lookup(const char *name, uint32_t *type, uint64_t *config)
{
	size_t i, k, n;

	for (i = 0; i < TRAWL_ARRAY_SIZE(named); i++) {
		if (!strcmp(name, named[i].name)) {
			*type = named[i].type;
			*config = named[i].config;
			return 0;
		}
	}
	for (i = 0; i < TRAWL_ARRAY_SIZE(caches); i++) {
		n = strlen(caches[i]);
		if (strncmp(name, caches[i], n) || name[n] != '-')
			continue;
		for (k = 0; k < TRAWL_ARRAY_SIZE(cache_ops); k++) {
			if (strcmp(name + n + 1, cache_ops[k]))
				continue;
			/* id | op << 8 | result << 16 (perf_event_open(2)). */
			*type = PERF_TYPE_HW_CACHE;
			*config = (uint64_t)i | (uint64_t)(k / 2) << 8 | (uint64_t)(k % 2) << 16;
			return 0;
		}
	}
	return -ENOENT;
}

int trawl_ustctl_counter_lookup(const char *name, struct trawl_ustctl_counter *c)
{
	char *p;
	int n;

	memset(c, 0, sizeof(*c));
	if (lookup(name, &c->type, &c->config))
		return -ENOENT;
	n = snprintf(c->name, sizeof(c->name), "perf_thread_%s", name);
	if (n < 0 || (size_t)n >= sizeof(c->name))
		return -ENOENT;
	for (p = c->name; *p; p++)
		if (*p == '-')
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
