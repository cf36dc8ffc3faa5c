/* SPDX-License-Identifier: MIT */
/*
 * model.h - a session file once parsed (parse.c) and before it is applied
 * (apply.c): every value already in trawl's terms (enums of
 * <trawl/ctl-types.h>, contexts and probe locations spelled as the
 * commands take them). Every pointer is owned by the document.
 */
#ifndef TRAWL_CONFIG_MODEL_H
#define TRAWL_CONFIG_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "trawl/ctl-types.h"

struct cfg_event {
	char *name;
	enum trawl_ctl_event_kind kind;
	int also_syscalls; /* LTTng's kernel type ALL: tracepoints and system calls */
	int enabled;
	enum trawl_ctl_loglevel_type loglevel_type;
	int loglevel;
	char *filter; /* NULL: none */
	char *target; /* NULL: none */
	char *exclusions; /* NULL: none; else names joined by ',' (<exclusions>) */
};

struct cfg_channel {
	char *name;
	int enabled;
	int overwrite;	      /* -1: the domain's default */
	uint64_t subbuf_size; /* 0: default */
	uint64_t num_subbuf;  /* 0: default */
	int has_switch_timer, has_read_timer;
	uint32_t switch_timer_us, read_timer_us;
	uint64_t tracefile_size;  /* 0: one file per stream */
	uint32_t tracefile_count; /* 0: all files kept */
	int has_monitor_timer;
	uint64_t monitor_timer_us; /* 0: none */
	int has_blocking_timeout;
	int64_t blocking_timeout_us; /* -1: infinite */
	enum trawl_ctl_output output; /* <output_type>; 0: not given */
	struct cfg_event *events;
	size_t nr_events;
	char **contexts; /* as add-context -t takes them */
	size_t nr_contexts;
};

/* A value of a tracker: an ID, or a user or group name resolved when applied. */
struct cfg_id {
	uint32_t id;
	char *name; /* NULL: @id */
};

struct cfg_tracker {
	int present; /* 0: the file leaves it including every process */
	struct cfg_id *values;
	size_t nr_values;
};

struct cfg_domain {
	int present;
	enum trawl_ctl_buffers buffers;
	struct cfg_channel *channels;
	size_t nr_channels;
	struct cfg_tracker trackers[TRAWL_CTL_PROCESS_ATTR_COUNT];
};

/* A consumer output: a folder or a pair of network URLs. */
struct cfg_output {
	int given;
	int enabled;
	char *path; /* NULL with a network output */
	char *ctrl; /* trawl's net:// URL (both URLs joined) */
};

struct cfg_snapshot_output {
	char *name;
	uint64_t max_size;
	struct cfg_output out;
};

struct cfg_session {
	char *name;
	int line;
	char *shm_path;
	int started;
	int snapshot;
	uint32_t live_timer_us;
	uint64_t rotate_timer_us, rotate_size;
	struct cfg_output output;
	struct cfg_snapshot_output *snapshot_outputs;
	size_t nr_snapshot_outputs;
	struct cfg_domain domains[6]; /* indexed by enum trawl_ctl_domain */
};

struct trawl_config_doc {
	char *file;
	struct cfg_session *sessions;
	size_t nr_sessions;
};

/* The elements of trackers by enum trawl_ctl_process_attr: "vpid_process_attr_tracker"
 * and its values' "vpid" (parse.c). */
extern const char *const cfg_tracker_elems[TRAWL_CTL_PROCESS_ATTR_COUNT];
extern const char *const cfg_tracker_values[TRAWL_CTL_PROCESS_ATTR_COUNT];

/* Makes @s one line: control bytes (a file's text, a file name) become spaces. */
void cfg_one_line(char *s);

/* LTTng's context <type> word ("PID") of add-context's name ("pid"), or NULL. */
const char *cfg_context_lttng(const char *name);

#endif /* TRAWL_CONFIG_MODEL_H */
