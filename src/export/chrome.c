/* SPDX-License-Identifier: MIT */
/*
 * chrome.c - Chrome's Trace Event Format (the JSON that chrome://tracing
 * and Perfetto UI open), written as the trace streams by:
 *  - each CPU is a thread of the pseudo process "CPUs" (pid CPU_PID), its
 *    runs of a thread complete events ("X") named after the thread;
 *  - system calls are slices ("B" at entry, with the entry's fields as
 *    arguments, "E" at exit) on their thread;
 *  - every other event is an instant ("i") on its thread with its payload
 *    as arguments (on its CPU when no thread is known);
 *  - perf counter contexts are counters ("C") of the thread's process;
 *  - process and thread names ("M") at the end, when they are known best.
 * Times are microseconds from the first event with three decimals, so
 * exact to the ns for a double; the first event's time from the Epoch is
 * otherData.trawl_origin_ns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"
#include "jsonw.h"
#include "model.h"

/* Above any pid (PID_MAX_LIMIT is 4194304): no process of the trace has it. */
#define CPU_PID 4194305

struct chrome {
	struct model *m;
	struct jsonw_names *names;	/* owned: the fields' names, escaped once */
	bool first;		/* no event written yet (no comma before it) */
	bool have_origin;
	int64_t origin, last;
	struct export_run *x;	/* for the counter callback */
	const struct model_event *ev;
	int err;
};

static int chrome_begin(struct export_run *x)
{
	struct chrome *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	x->fmt = c;
	c->m = model_create();
	c->names = jsonw_names_create();
	if (!c->m || !c->names)
		return -ENOMEM;
	c->first = true;
	return jsonw_lit(&x->out, "{\"traceEvents\":[\n");
}

/* '{"ph":"P","pid":..,"tid":..,"ts":..,' with the comma before it. */
static int head(struct export_run *x, struct chrome *c, const char *ph, int64_t pid,
		int64_t tid, int64_t ts)
{
	struct trawl_reader_buf *b = &x->out;
	int ret = c->first ? jsonw_lit(b, "{\"ph\":\"") : jsonw_lit(b, ",\n{\"ph\":\"");

	c->first = false;
	ret = ret || jsonw_raw(b, ph, strlen(ph)) || jsonw_lit(b, "\",\"pid\":") ||
	      jsonw_int(b, pid) || jsonw_lit(b, ",\"tid\":") || jsonw_int(b, tid);
	if (!ret && ts != INT64_MIN)
		ret = jsonw_lit(b, ",\"ts\":") || jsonw_us_of_ns(b, ts - c->origin);
	return ret ? -ENOMEM : 0;
}

static int name_kv(struct trawl_reader_buf *b, const char *key, const char *v)
{
	return jsonw_raw(b, key, strlen(key)) || jsonw_string(b, v, strlen(v)) ? -ENOMEM : 0;
}

static int64_t pid_of(const struct model_thread *t)
{
	return t->pid >= 0 ? t->pid : t->tid;
}

/* The payload as "args" (or nothing), and the closing brace. */
static int args_and_close(struct export_run *x)
{
	const struct trawl_reader_field *p;
	int ret = trawl_reader_event_field(x->r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, &p);

	if (ret == -ENODATA)
		return jsonw_lit(&x->out, "}");
	if (ret)
		return ret;
	if (jsonw_lit(&x->out, ",\"args\":") ||
	    jsonw_field_names(&x->out, p, ((struct chrome *)x->fmt)->names))
		return -ENOMEM;
	return jsonw_lit(&x->out, "}");
}

static int cpu_run(struct export_run *x, struct chrome *c, int64_t cpu,
		   const struct model_thread *t, int64_t begin, int64_t end)
{
	struct trawl_reader_buf *b = &x->out;

	if (!t || !t->tid)	/* the idle task: nothing runs */
		return 0;
	if (head(x, c, "X", CPU_PID, cpu, begin) || jsonw_lit(b, ",\"dur\":") ||
	    jsonw_us_of_ns(b, end - begin) || name_kv(b, ",\"cat\":\"sched\",\"name\":", t->name) ||
	    jsonw_lit(b, ",\"args\":{\"tid\":") || jsonw_int(b, t->tid) ||
	    jsonw_lit(b, ",\"pid\":") || jsonw_int(b, t->pid) || jsonw_lit(b, "}}"))
		return -ENOMEM;
	return 0;
}

static void on_counter(void *arg, const char *name, int64_t value)
{
	struct chrome *c = arg;
	struct export_run *x = c->x;
	const struct model_thread *t = c->ev->thread;
	struct trawl_reader_buf *b = &x->out;
	char label[160];

	snprintf(label, sizeof(label), "%s (tid %lld)", name, (long long)t->tid);
	if (head(x, c, "C", pid_of(t), t->tid, c->ev->ts) || name_kv(b, ",\"name\":", label) ||
	    jsonw_lit(b, ",\"args\":{\"value\":") || jsonw_int(b, value) || jsonw_lit(b, "}}"))
		c->err = -ENOMEM;
}

static int chrome_event(struct export_run *x)
{
	struct chrome *c = x->fmt;
	struct trawl_reader_buf *b = &x->out;
	struct model_event ev;
	const struct model_thread *t;
	int ret = model_update(c->m, x->r, &ev);

	if (ret)
		return ret;
	if (!c->have_origin) {
		c->origin = ev.ts;
		c->have_origin = true;
	}
	c->last = ev.ts;
	t = ev.thread;
	switch (ev.kind) {
	case MODEL_SCHED_SWITCH:
		return ev.run_begin >= 0 ? cpu_run(x, c, ev.cpu, ev.prev, ev.run_begin, ev.ts) : 0;
	case MODEL_PROCESS_INFO:
		return 0;
	case MODEL_SYSCALL_ENTRY:
		if (!t)
			return 0;
		if (head(x, c, "B", pid_of(t), t->tid, ev.ts) ||
		    name_kv(b, ",\"cat\":\"syscall\",\"name\":", ev.name))
			return -ENOMEM;
		return args_and_close(x);
	case MODEL_SYSCALL_EXIT:
		if (!t || !ev.matched)
			return 0;
		if (head(x, c, "E", pid_of(t), t->tid, ev.ts))
			return -ENOMEM;
		return args_and_close(x);
	case MODEL_OTHER:
		break;
	}
	if (t)
		ret = head(x, c, "i", pid_of(t), t->tid, ev.ts) || jsonw_lit(b, ",\"s\":\"t\"");
	else if (ev.cpu >= 0)
		ret = head(x, c, "i", CPU_PID, ev.cpu, ev.ts) || jsonw_lit(b, ",\"s\":\"t\"");
	else
		ret = head(x, c, "i", 0, 0, ev.ts) || jsonw_lit(b, ",\"s\":\"g\"");
	if (ret || name_kv(b, ",\"name\":", ev.name))
		return -ENOMEM;
	ret = args_and_close(x);
	if (!ret && t) {
		c->x = x;
		c->ev = &ev;
		ret = model_counters(c->m, x->r, on_counter, c);
		if (!ret)
			ret = c->err;
	}
	return ret;
}

static int meta(struct export_run *x, struct chrome *c, const char *what, int64_t pid,
		int64_t tid, const char *name)
{
	struct trawl_reader_buf *b = &x->out;

	if (head(x, c, "M", pid, tid, INT64_MIN) || jsonw_lit(b, ",\"name\":\"") ||
	    jsonw_raw(b, what, strlen(what)) || name_kv(b, "\",\"args\":{\"name\":", name) ||
	    jsonw_lit(b, "}}"))
		return -ENOMEM;
	return 0;
}

/* Open runs and system calls end with the trace; then every name. */
static int chrome_end(struct export_run *x)
{
	struct chrome *c = x->fmt;
	struct trawl_reader_buf *b = &x->out;
	int64_t cpu, since;
	size_t i;
	char label[32];
	int ret = 0;

	for (cpu = 0; cpu < model_cpu_count(c->m) && !ret; cpu++) {
		const struct model_thread *t = model_cpu_current(c->m, cpu, &since);

		ret = cpu_run(x, c, cpu, t, since, c->last);
		snprintf(label, sizeof(label), "CPU %lld", (long long)cpu);
		if (!ret)
			ret = meta(x, c, "thread_name", CPU_PID, cpu, label);
	}
	if (!ret && model_cpu_count(c->m))
		ret = meta(x, c, "process_name", CPU_PID, 0, "CPUs");
	for (i = 0; i < model_thread_count(c->m) && !ret; i++) {
		const struct model_thread *t = model_thread_at(c->m, i);

		if (!t->tid)
			continue;
		if (t->in_syscall)
			ret = head(x, c, "E", pid_of(t), t->tid, c->last) || jsonw_lit(b, "}");
		if (!ret && t->name[0])
			ret = meta(x, c, "thread_name", pid_of(t), t->tid, t->name);
		if (!ret && t->name[0] && pid_of(t) == t->tid)
			ret = meta(x, c, "process_name", t->tid, t->tid, t->name);
	}
	if (ret || jsonw_lit(b, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"trawl_origin_ns\":") ||
	    jsonw_int(b, c->origin) || jsonw_lit(b, "}}\n"))
		return -ENOMEM;
	return 0;
}

static void chrome_destroy(struct export_run *x)
{
	struct chrome *c = x->fmt;

	if (c) {
		model_destroy(c->m);
		jsonw_names_destroy(c->names);
	}
	free(c);
	x->fmt = NULL;
}

const struct export_ops export_chrome_ops = {
	.begin = chrome_begin,
	.event = chrome_event,
	.end = chrome_end,
	.destroy = chrome_destroy,
	.needs_fields = true,
};
