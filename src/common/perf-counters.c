/* SPDX-License-Identifier: MIT */
/*
 * perf-counters.c - the perf counter names trawl accepts in
 * `add-context -t perf:cpu:NAME` (kernel) and `perf:thread:NAME` (user
 * space), and their perf_event_attr type and config. One table for both
 * domains, so they accept the same spellings.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "common/common.h"

struct counter_name {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* LTTng's names (lttng add-context --list), aliases included, and perf(1)'s page-faults and ref-cycles. */
static const struct counter_name counters[] = {
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-fault", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS }, /* perf(1)'s name */
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
};

/* LTTng's cache counters: <cache>-<loads|load-misses|stores|store-misses|prefetches|prefetch-misses>. */
static const struct {
	const char *name;
	int id;
	int ops; /* bit k: ops[2k] and ops[2k+1] exist */
} caches[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D, 7 }, { "L1-icache", PERF_COUNT_HW_CACHE_L1I, 7 },
	{ "LLC", PERF_COUNT_HW_CACHE_LL, 7 },	     { "dTLB", PERF_COUNT_HW_CACHE_DTLB, 7 },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB, 1 },     { "branch", PERF_COUNT_HW_CACHE_BPU, 1 },
};
static const struct {
	const char *suffix;
	int op;
	int miss;
} ops[] = {
	{ "-loads", PERF_COUNT_HW_CACHE_OP_READ, 0 },
	{ "-load-misses", PERF_COUNT_HW_CACHE_OP_READ, 1 },
	{ "-stores", PERF_COUNT_HW_CACHE_OP_WRITE, 0 },
	{ "-store-misses", PERF_COUNT_HW_CACHE_OP_WRITE, 1 },
	{ "-prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH, 0 },
	{ "-prefetch-misses", PERF_COUNT_HW_CACHE_OP_PREFETCH, 1 },
};

/* iTLB and branch have loads only, as in LTTng's list */
static int cache_has(size_t cache, size_t op)
{
	return caches[cache].ops & (1 << (op / 2));
}

static int cache_lookup(const char *name, uint64_t *config)
{
	size_t i, j;

	for (i = 0; i < TRAWL_ARRAY_SIZE(caches); i++) {
		size_t n = strlen(caches[i].name);

		if (strncmp(name, caches[i].name, n))
			continue;
		for (j = 0; j < TRAWL_ARRAY_SIZE(ops); j++) {
			if (!cache_has(i, j) || strcmp(name + n, ops[j].suffix))
				continue;
			*config = (uint64_t)caches[i].id | (uint64_t)ops[j].op << 8 |
				  (uint64_t)(ops[j].miss ? PERF_COUNT_HW_CACHE_RESULT_MISS
							 : PERF_COUNT_HW_CACHE_RESULT_ACCESS) << 16;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * LTTng's raw PMU counters: "raw:rHEX:NAME", HEX the event's config (its
 * number in the CPU's manual), NAME the user's label. The field is named
 * from the whole string (perf_thread_raw_r0110_foo), so NAME is held to
 * what a CTF field name can hold; LTTng takes any NAME without ':' and can
 * write metadata no reader parses.
 */
static int raw_lookup(const char *name, uint64_t *config)
{
	const char *hex = name + 5, *label = strchr(hex, ':');
	uint64_t v = 0;
	size_t i, n;

	if (strncmp(name, "raw:r", 5) || !label || label == hex || label - hex > 16 || !label[1])
		return -ENOENT;
	for (i = 0; hex + i < label; i++) {
		int d = hex[i] >= '0' && hex[i] <= '9'   ? hex[i] - '0'
			: hex[i] >= 'a' && hex[i] <= 'f' ? hex[i] - 'a' + 10
			: hex[i] >= 'A' && hex[i] <= 'F' ? hex[i] - 'A' + 10
							 : -1;

		if (d < 0)
			return -ENOENT;
		v = v << 4 | (uint64_t)d;
	}
	for (n = 1; label[n]; n++)
		if (!(label[n] == '_' || label[n] == '-' || (label[n] >= '0' && label[n] <= '9') ||
		      ((label[n] | 0x20) >= 'a' && (label[n] | 0x20) <= 'z')))
			return -ENOENT;
	*config = v;
	return 0;
}

int trawl_perf_counter_lookup(const char *name, uint32_t *type, uint64_t *config)
{
	size_t i;

	if (!raw_lookup(name, config)) {
		*type = PERF_TYPE_RAW;
		return 0;
	}

	for (i = 0; i < TRAWL_ARRAY_SIZE(counters); i++) {
		if (!strcmp(name, counters[i].name)) {
			*type = counters[i].type;
			*config = counters[i].config;
			return 0;
		}
	}
	*type = PERF_TYPE_HW_CACHE;
	return cache_lookup(name, config);
}

int trawl_perf_counter_name(size_t index, char *buf, size_t len, int *software)
{
	size_t i, j;

	if (index < TRAWL_ARRAY_SIZE(counters)) {
		*software = counters[index].type == PERF_TYPE_SOFTWARE;
		return trawl_path_fmt(buf, len, "%s", counters[index].name);
	}
	index -= TRAWL_ARRAY_SIZE(counters);
	for (i = 0; i < TRAWL_ARRAY_SIZE(caches); i++)
		for (j = 0; j < TRAWL_ARRAY_SIZE(ops); j++)
			if (cache_has(i, j) && !index--) {
				*software = 0;
				return trawl_path_fmt(buf, len, "%s%s", caches[i].name,
						      ops[j].suffix);
			}
	return -ENOENT;
}
