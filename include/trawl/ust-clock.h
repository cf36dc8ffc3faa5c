/* SPDX-License-Identifier: MIT */
/*
 * <trawl/ust-clock.h> - a clock plugin: the time source of user-space
 * events, with LTTng-UST's API (<lttng/ust-clock.h>), so that LTTng-UST
 * clock plugins load unchanged.
 *
 * A plugin is a shared object named by LTTNG_UST_CLOCK_PLUGIN (path or
 * library name) in the traced program's environment. libtrawl-ust loads it
 * at start-up and calls its lttng_ust_clock_plugin_init(), which sets the
 * callbacks below and calls lttng_ust_enable_trace_clock_override(); events
 * are then stamped with read64(), and the program tells the session daemon
 * the clock's name, uuid, description and frequency, which its trace's
 * metadata declares (the clock's offset is measured against read64()).
 * Unlike LTTng-UST's, trawl's session daemon needs no LTTNG_UST_CLOCK_PLUGIN
 * of its own. A uuid that is no UUID is not declared (LTTng declares it,
 * and babeltrace2 then refuses the trace). The clock's name must be a TSDL
 * identifier of at most 63 characters and its frequency 1 Hz .. 1 THz, or
 * the program keeps CLOCK_MONOTONIC (and says so on stderr).
 * Every setter returns 0, or -EBUSY once the override is enabled
 * (lttng_ust_enable_trace_clock_override: -EINVAL when read64, freq, name
 * or description is missing; a missing uuid callback means the default
 * uuid). The getters return 0 and, as LTTng-UST's, the plugin's callback
 * once the override is enabled, else the default clock's (CLOCK_MONOTONIC
 * in ns, "monotonic", the boot id as uuid).
 */
#ifndef TRAWL_UST_CLOCK_H
#define TRAWL_UST_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t (*lttng_ust_clock_read64_function)(void);
typedef uint64_t (*lttng_ust_clock_freq_function)(void); /* ticks per second */
/* Writes 36 characters and a NUL (LTTNG_UST_UUID_STR_LEN bytes). */
typedef int (*lttng_ust_clock_uuid_function)(char *uuid);
typedef const char *(*lttng_ust_clock_name_function)(void);
typedef const char *(*lttng_ust_clock_description_function)(void);

#define LTTNG_UST_UUID_STR_LEN 37

int lttng_ust_trace_clock_set_read64_cb(lttng_ust_clock_read64_function read64_cb);
int lttng_ust_trace_clock_get_read64_cb(lttng_ust_clock_read64_function *read64_cb);
int lttng_ust_trace_clock_set_freq_cb(lttng_ust_clock_freq_function freq_cb);
int lttng_ust_trace_clock_get_freq_cb(lttng_ust_clock_freq_function *freq_cb);
int lttng_ust_trace_clock_set_uuid_cb(lttng_ust_clock_uuid_function uuid_cb);
int lttng_ust_trace_clock_get_uuid_cb(lttng_ust_clock_uuid_function *uuid_cb);
int lttng_ust_trace_clock_set_name_cb(lttng_ust_clock_name_function name_cb);
int lttng_ust_trace_clock_get_name_cb(lttng_ust_clock_name_function *name_cb);
int lttng_ust_trace_clock_set_description_cb(lttng_ust_clock_description_function description_cb);
int lttng_ust_trace_clock_get_description_cb(lttng_ust_clock_description_function *description_cb);
int lttng_ust_enable_trace_clock_override(void);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_UST_CLOCK_H */
