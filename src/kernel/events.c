/* SPDX-License-Identifier: MIT */
/*
 * The table from ftrace event ids (the common_type of every record) to parsed
 * event formats. Records name their event only by id, so the first unknown
 * id makes us read every event's `id` file once (about 2,300 small reads);
 * formats are then parsed one at a time, when their first record shows up.
 * An id still unknown is looked for again once: dynamic events (probes)
 * made after the first scan get new ids, and a record the converter cannot
 * name is a lost event (counted, convert.c), not one to drop for good.
 * Used by one consumer thread: no locking.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IDS 65536

struct trawl_kernel_events {
	char events_rel[256];             /* "instances/<name>/events" */
	int scanned;                      /* the ids were read once */
	int no_scan;                      /* never read tracefs (tests, fuzzers) */
	uint8_t rescanned[MAX_IDS / 8];   /* ids already looked for again: at most once each */
	char *names[MAX_IDS];             /* owned: "sys/event" per id, NULL if none */
	struct trawl_kernel_event *ev[MAX_IDS]; /* owned: parsed on first use */
};

int trawl_kernel_events_create(const char *instance_path, struct trawl_kernel_events **out)
{
	struct trawl_kernel_events *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	if (instance_path && *instance_path &&
	    trawl_path_fmt(t->events_rel, sizeof(t->events_rel), "%s/events", instance_path)) {
		free(t);
		return -ENAMETOOLONG;
	}
	if (!t->events_rel[0])
		snprintf(t->events_rel, sizeof(t->events_rel), "events");
	*out = t;
	return 0;
}

void trawl_kernel_events_destroy(struct trawl_kernel_events *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < MAX_IDS; i++) {
		free(t->names[i]);
		if (t->ev[i]) {
			trawl_kernel_event_fini(t->ev[i]);
			free(t->ev[i]);
		}
	}
	free(t);
}

static int scan_one(const char *sys, const char *ev, void *arg)
{
	struct trawl_kernel_events *t = arg;
	char rel[512], buf[32];
	unsigned long id;
	char *end;

	/* An event whose path does not fit is not one trawl can read: left unnamed. */
	if (trawl_path_fmt(rel, sizeof(rel), "%s/%s/%s/id", t->events_rel, sys, ev) ||
	    trawl_kernel_read_file(rel, buf, sizeof(buf)) <= 0)
		return 0;
	id = strtoul(buf, &end, 10);
	if (end == buf || id >= MAX_IDS || t->names[id])
		return 0;
	if (asprintf(&t->names[id], "%s/%s", sys, ev) < 0)
		t->names[id] = NULL;
	return 0;
}

struct trawl_kernel_event *trawl_kernel_events_get(struct trawl_kernel_events *t, uint16_t id)
{
	struct trawl_kernel_event *ev;
	char rel[512], sys[64], *slash;
	char *text;
	int ret;

	if (trawl_likely(t->ev[id] != NULL))
		return t->ev[id];
	if (!t->names[id]) {
		if (t->no_scan)
			return NULL;
		if (t->scanned) {
			if (t->rescanned[id / 8] & (1u << (id % 8)))
				return NULL;
			t->rescanned[id / 8] |= (uint8_t)(1u << (id % 8));
		}
		t->scanned = 1;
		trawl_kernel_foreach_event(t->events_rel, scan_one, t);
		if (!t->names[id])
			return NULL;
	}
	slash = strchr(t->names[id], '/');
	if (!slash)
		return NULL;
	text = malloc(65536);
	ev = calloc(1, sizeof(*ev));
	if (!text || !ev)
		goto err;
	if (trawl_path_fmt(sys, sizeof(sys), "%.*s", (int)(slash - t->names[id]), t->names[id]) ||
	    trawl_path_fmt(rel, sizeof(rel), "%s/%s/format", t->events_rel, t->names[id]) ||
	    trawl_kernel_read_file(rel, text, 65536) <= 0)
		goto err;
	ret = trawl_kernel_event_parse(sys, slash + 1, text, ev);
	if (ret < 0)
		goto err;
	if (!strcmp(sys, "syscalls") && !strncmp(slash + 1, "sys_exit_", 9)) {
		/* LTTng's exit event lists the output arguments: they are in the entry's format */
		if (!trawl_path_fmt(rel, sizeof(rel), "%s/%s/sys_enter_%s/format", t->events_rel,
				    sys, slash + 10) &&
		    trawl_kernel_read_file(rel, text, 65536) > 0 &&
		    trawl_kernel_event_syscall_exit(ev, text) < 0) {
			trawl_kernel_event_fini(ev);
			goto err;
		}
	}
	ev->ftrace_id = id;
	free(text);
	t->ev[id] = ev;
	return ev;
err:
	free(text);
	free(ev);
	/* Forget the name so a bad format is not re-read for every record. */
	free(t->names[id]);
	t->names[id] = NULL;
	return NULL;
}

int trawl_kernel_events_add(struct trawl_kernel_events *t, struct trawl_kernel_event *ev, int no_scan)
{
	if (t->ev[ev->ftrace_id]) {
		trawl_kernel_event_fini(t->ev[ev->ftrace_id]);
		free(t->ev[ev->ftrace_id]);
	}
	t->ev[ev->ftrace_id] = ev;
	if (no_scan)
		t->no_scan = 1;
	return 0;
}
