/* SPDX-License-Identifier: MIT */
/*
 * model.h - what the picture formats (chrome-json, perfetto, timeline) need
 * to know of a trace as it streams by: which thread runs on each CPU (from
 * sched_switch), each thread's process and name (contexts, LTTng's state
 * dump, fork, exec, sched_switch's comms), and each thread's open system
 * call. It keeps that state, never the events: memory grows with threads
 * and CPUs, not with the trace.
 *
 * Event classes are looked at once: their kind and the positions of the
 * fields the model reads are cached per class.
 */
#ifndef TRAWL_EXPORT_MODEL_H
#define TRAWL_EXPORT_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include <trawl/reader.h>

#define MODEL_COMM_MAX 64

enum model_kind {
	MODEL_OTHER,		/* any other event: a mark on its thread */
	MODEL_SCHED_SWITCH,	/* a CPU switched threads */
	MODEL_SYSCALL_ENTRY,	/* syscall_entry_NAME (LTTng) or sys_enter_NAME */
	MODEL_SYSCALL_EXIT,
	MODEL_PROCESS_INFO,	/* state dump, fork, exec, rename: names only */
};

struct model_thread {
	int64_t tid, pid;		/* pid -1: not known yet */
	char name[MODEL_COMM_MAX];
	bool changed;			/* pid or name changed since a format last looked */
	/* the open system call, if any */
	bool in_syscall;
	int64_t sys_begin;
	const char *sys_name;		/* borrowed from the event class: lives as long as the reader */
	/* a format's own (the timeline's lanes + 1): 0 until it sets them */
	uint32_t fmt_lane[2];
};

struct model_event {
	enum model_kind kind;
	int64_t ts;			/* ns from the Epoch (0 without a clock) */
	int64_t cpu;			/* -1: not known */
	struct model_thread *thread;	/* the thread it happened on, or NULL */
	const char *name;		/* the event's name; a system call's without its prefix */
	/* MODEL_SCHED_SWITCH */
	struct model_thread *prev, *next;
	int64_t prev_prio, next_prio, prev_state;
	int64_t run_begin;		/* when prev started to run on this CPU (-1: unknown) */
	/* MODEL_SYSCALL_EXIT: the call it ends (in_syscall was true; now false) */
	bool matched;
	int64_t sys_begin;
};

struct model;

/* model_create - an empty model; NULL when out of memory. Freed by model_destroy(). */
struct model *model_create(void);
void model_destroy(struct model *m);

/*
 * model_update - feeds the reader's current event to the model and says
 * what it was in *@ev (its pointers are borrowed from the model until
 * model_destroy()). Returns 0 or a negative errno (-ENOMEM, or the
 * reader's when fields do not decode).
 */
int model_update(struct model *m, struct trawl_reader *r, struct model_event *ev);

/*
 * model_counters - the current event's perf counter contexts (fields named
 * perf_*): calls @fn for each with its name (without "perf_") and value.
 * Returns 0 or a negative errno.
 */
int model_counters(struct model *m, struct trawl_reader *r,
		   void (*fn)(void *arg, const char *name, int64_t value), void *arg);

/* The threads seen, in no order: for i in 0..model_thread_count(). */
size_t model_thread_count(const struct model *m);
struct model_thread *model_thread_at(struct model *m, size_t i);

/* The CPUs seen (highest cpu + 1); model_cpu_current() its running thread or NULL. */
int64_t model_cpu_count(const struct model *m);
struct model_thread *model_cpu_current(struct model *m, int64_t cpu, int64_t *since);

#endif /* TRAWL_EXPORT_MODEL_H */
