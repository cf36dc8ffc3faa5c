/* SPDX-License-Identifier: MIT */
/*
 * clock.c - LTTng-UST's clock plugin (<trawl/ust-clock.h>): the shared
 * object named by LTTNG_UST_CLOCK_PLUGIN is loaded by the library's
 * constructor, as LTTng-UST 2.13 loads it, and its
 * lttng_ust_clock_plugin_init() sets the callbacks and enables the
 * override. From then on every event of the process is stamped with the
 * plugin's read64() (the ring buffers' read_clock, agent-cmd.c), and REGISTER
 * carries the clock's name, description, uuid, frequency and offset
 * (wire.h), which the session daemon declares as the trace's clock.
 *
 * Where LTTng-UST differs. Its session daemon reads the clock's
 * description through its own copy of the plugin (LTTNG_UST_CLOCK_PLUGIN
 * must be in lttng-sessiond's environment too) and measures the offset
 * there; here only the traced app loads the plugin: it measures the offset
 * (CLOCK_REALTIME against read64(), the best of 16 tries, as LTTng does)
 * and sends it. The daemons never read this clock, so the app closes its
 * own packets (ringbuffer.h, TRAWL_RB_CLOCK_APP). A uuid that is not a
 * UUID (the example plugin's "1234...3456") is not declared at all: LTTng
 * writes it as is and babeltrace2 then refuses the whole trace.
 *
 * A plugin that does not load, has no init function, or whose clock the
 * trace could not declare (a name that is no identifier, a frequency of 0
 * or above 1 THz) is reported in one line on stderr, and CLOCK_MONOTONIC
 * stays in use.
 */
#define _GNU_SOURCE
#include "ust/ust.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/common.h"
#include "trawl/ust-clock.h"

struct user_clock {
	lttng_ust_clock_read64_function read64;
	lttng_ust_clock_freq_function freq;
	lttng_ust_clock_uuid_function uuid;
	lttng_ust_clock_name_function name;
	lttng_ust_clock_description_function description;
};

/* Written by the setters before the override is enabled, read after. */
static struct user_clock user_tc;
/* 1 once enabled: release-stored after user_tc, acquire-loaded before it. */
static int override_on;
/* What the plugin said at start-up (a clock does not change its name). */
static char clock_name[TRAWL_USTCTL_CLOCK_NAME_MAX];
static char clock_desc[TRAWL_USTCTL_CLOCK_DESC_MAX];
static uint64_t clock_freq;

uint64_t (*trawl_ust_clock_read)(void);

static int busy(void)
{
	return __atomic_load_n(&override_on, __ATOMIC_ACQUIRE);
}

/* ---- the defaults: CLOCK_MONOTONIC, as LTTng-UST's getters give ---- */

static uint64_t mono_read64(void)
{
	return trawl_rb_clock_monotonic();
}

static uint64_t mono_freq(void)
{
	return 1000000000u;
}

static int mono_uuid(char *uuid)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
	size_t n;

	if (!f)
		return -ENOENT;
	n = fread(uuid, 1, LTTNG_UST_UUID_STR_LEN - 1, f);
	fclose(f);
	if (n != LTTNG_UST_UUID_STR_LEN - 1)
		return -EINVAL;
	uuid[LTTNG_UST_UUID_STR_LEN - 1] = '\0';
	return 0;
}

static const char *mono_name(void)
{
	return "monotonic";
}

static const char *mono_description(void)
{
	return "Monotonic Clock";
}

/* ---- the API ---- */

#define SETTER(field, type)                                                                                        \
	TRAWL_EXPORT int lttng_ust_trace_clock_set_##field##_cb(type cb)                                           \
	{                                                                                                          \
		if (busy())                                                                                        \
			return -EBUSY;                                                                             \
		user_tc.field = cb;                                                                                \
		return 0;                                                                                          \
	}                                                                                                          \
	TRAWL_EXPORT int lttng_ust_trace_clock_get_##field##_cb(type *cb)                                          \
	{                                                                                                          \
		*cb = busy() && user_tc.field ? user_tc.field : mono_##field;                                      \
		return 0;                                                                                          \
	}

SETTER(read64, lttng_ust_clock_read64_function)
SETTER(freq, lttng_ust_clock_freq_function)
SETTER(uuid, lttng_ust_clock_uuid_function)
SETTER(name, lttng_ust_clock_name_function)
SETTER(description, lttng_ust_clock_description_function)

TRAWL_EXPORT int lttng_ust_enable_trace_clock_override(void)
{
	if (busy())
		return -EBUSY;
	/* As LTTng-UST: a missing uuid callback means the default uuid. */
	if (!user_tc.read64 || !user_tc.freq || !user_tc.name || !user_tc.description)
		return -EINVAL;
	/* Release: the callbacks before the flag (busy()'s acquire). */
	__atomic_store_n(&override_on, 1, __ATOMIC_RELEASE);
	return 0;
}

/* ---- loading, and what REGISTER says ---- */

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" to 16 bytes: 0 or -EINVAL. */
static int uuid_parse(const char *s, uint8_t u[16])
{
	return trawl_uuid_parse(s, u) || s[36] ? -EINVAL : 0;
}

static int name_ok(const char *s)
{
	size_t i, n = s ? strlen(s) : 0;

	if (!n || n >= TRAWL_USTCTL_CLOCK_NAME_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (i && s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

void trawl_ust_clock_init(void)
{
	const char *lib = getenv("LTTNG_UST_CLOCK_PLUGIN");
	void (*init)(void);
	uint64_t f;
	void *h;

	if (!lib || !*lib || trawl_ust_clock_read)
		return;
	h = dlopen(lib, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "trawl-ust: LTTNG_UST_CLOCK_PLUGIN not loaded: %s\n", dlerror());
		return;
	}
	init = (void (*)(void))dlsym(h, "lttng_ust_clock_plugin_init");
	if (!init) {
		fprintf(stderr, "trawl-ust: LTTNG_UST_CLOCK_PLUGIN %s has no lttng_ust_clock_plugin_init()\n", lib);
		return;
	}
	init();
	if (!busy())
		return; /* it did not enable the override: the default clock */
	f = user_tc.freq();
	if (!name_ok(user_tc.name()) || !f || f > TRAWL_USTCTL_CLOCK_FREQ_MAX) {
		fprintf(stderr, "trawl-ust: LTTNG_UST_CLOCK_PLUGIN %s: its clock cannot be declared (name \"%s\", "
				"%llu Hz): events keep CLOCK_MONOTONIC\n",
			lib, user_tc.name() ? user_tc.name() : "", (unsigned long long)f);
		return;
	}
	memcpy(clock_name, user_tc.name(), strlen(user_tc.name()) + 1); /* name_ok(): it fits */
	/* Longer than the wire's 255 bytes: cut, ending in "...". */
	trawl_msg_fmt(clock_desc, sizeof(clock_desc), "%s", user_tc.description() ? user_tc.description() : "");
	clock_freq = f;
	trawl_ust_clock_read = user_tc.read64;
}

/*
 * The Epoch's time at clock value 0, as LTTng's session daemon measures it:
 * read64, CLOCK_REALTIME, read64, 16 times, keeping the try whose two reads
 * were closest (the least preempted). In offset_s seconds and offset ticks
 * (0 <= offset < freq): ticks of a fast clock times seconds since the Epoch
 * overflow 64 bits.
 */
static void measure_offset(uint64_t freq, int64_t *offset_s, int64_t *offset)
{
	uint64_t best_gap = UINT64_MAX, avg = 0;
	struct timespec best_rt = { 0, 0 };
	int i;

	for (i = 0; i < 16; i++) {
		struct timespec rt;
		uint64_t a = trawl_ust_clock_read(), b, gap;

		clock_gettime(CLOCK_REALTIME, &rt);
		b = trawl_ust_clock_read();
		gap = b - a;
		if (b >= a && gap < best_gap) {
			best_gap = gap;
			avg = a + gap / 2;
			best_rt = rt;
		}
	}
	{
		/* rt = offset + avg / freq: offset = (rt_s - avg_s) s + (rt_ns
		 * in ticks - avg's remainder) ticks, then normalised. */
		int64_t s = (int64_t)best_rt.tv_sec - (int64_t)(avg / freq);
		int64_t t = (int64_t)((unsigned __int128)best_rt.tv_nsec * freq / 1000000000u) - (int64_t)(avg % freq);

		if (t < 0) {
			t += (int64_t)freq;
			s--;
		}
		*offset_s = s;
		*offset = t;
	}
}

int trawl_ust_clock_wire(struct trawl_wire_clock *w)
{
	char uuid[LTTNG_UST_UUID_STR_LEN];

	memset(w, 0, sizeof(*w));
	if (!trawl_ust_clock_read)
		return 0;
	memcpy(w->name, clock_name, sizeof(w->name));
	memcpy(w->description, clock_desc, sizeof(w->description));
	memset(uuid, 0, sizeof(uuid));
	if (user_tc.uuid && user_tc.uuid(uuid) == 0) {
		uuid[LTTNG_UST_UUID_STR_LEN - 1] = '\0';
		w->has_uuid = uuid_parse(uuid, w->uuid) == 0;
	} else if (!user_tc.uuid && mono_uuid(uuid) == 0) {
		w->has_uuid = uuid_parse(uuid, w->uuid) == 0;
	}
	w->freq = clock_freq;
	measure_offset(w->freq, &w->offset_s, &w->offset);
	return 1;
}
