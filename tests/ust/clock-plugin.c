/* SPDX-License-Identifier: MIT */
/*
 * clock-plugin.c - a clock plugin for compat.py clock: CLOCK_MONOTONIC in
 * microseconds (1 MHz), so that the test can check each event's raw value
 * against its own CLOCK_MONOTONIC. Its uuid is TEST_CLOCK_UUID when set
 * (anything, a UUID or not), else a fixed one.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lttng/ust-clock.h>

static uint64_t plugin_read64(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static uint64_t plugin_freq(void)
{
	return 1000000;
}

static int plugin_uuid(char *uuid)
{
	const char *v = getenv("TEST_CLOCK_UUID");

	if (!v)
		v = "8c5e2d1a-7f40-4b9e-9d2c-3a6b1e0f5c47";
	size_t n = strlen(v);

	if (n > LTTNG_UST_UUID_STR_LEN - 1)
		n = LTTNG_UST_UUID_STR_LEN - 1;
	memcpy(uuid, v, n);
	uuid[n] = '\0';
	return 0;
}

static const char *plugin_name(void)
{
	return "test_us_clock";
}

static const char *plugin_description(void)
{
	return "CLOCK_MONOTONIC in microseconds";
}

void lttng_ust_clock_plugin_init(void);
void lttng_ust_clock_plugin_init(void)
{
	if (lttng_ust_trace_clock_set_read64_cb(plugin_read64) || lttng_ust_trace_clock_set_freq_cb(plugin_freq) ||
	    lttng_ust_trace_clock_set_uuid_cb(plugin_uuid) || lttng_ust_trace_clock_set_name_cb(plugin_name) ||
	    lttng_ust_trace_clock_set_description_cb(plugin_description) || lttng_ust_enable_trace_clock_override())
		abort();
	/* Enabled: the setters now refuse. */
	if (lttng_ust_trace_clock_set_read64_cb(plugin_read64) != -16 /* -EBUSY */)
		abort();
}
