/* SPDX-License-Identifier: MIT */
/*
 * timeline.c - `trawl timeline`: the trace as one HTML page. This file
 * reads: each event goes through the model (model.h) and becomes an item
 * of a lane at every level of detail kept (tl_lod.h):
 *  - a CPU's lane holds the runs of threads, from sched_switch;
 *  - a thread's system calls are slices from entry to exit;
 *  - its other events (user-space ones, other kernel ones) are marks;
 *  - its perf counter contexts are samples of counter lanes;
 *  - events with no thread are marks of their CPU (or of the trace).
 * The fields of an event are formatted only when it starts an item at
 * some level kept (tl_lod_opens()), so a dense trace costs little more
 * than reading it. tl_html.c writes the page at the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "timeline.h"

/* Items a level may hold when the command does not say (about 25 bytes of page each, and their fields). */
#define TL_DEFAULT_BUDGET 100000

static int tl_begin(struct export_run *x)
{
	struct timeline *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	x->fmt = t;
	t->m = model_create();
	t->names = jsonw_names_create();
	if (!t->m || !t->names)
		return -ENOMEM;
	tl_lod_init(&t->lod, x->o->detail ? x->o->detail : TL_DEFAULT_BUDGET);
	return 0;
}

static void tl_destroy(struct export_run *x)
{
	struct timeline *t = x->fmt;

	if (!t)
		return;
	model_destroy(t->m);
	tl_lod_fini(&t->lod);
	tl_str_fini(&t->str);
	free(t->cpu_lanes);
	free(t->cpu_ev_lanes);
	free(t->ctr);
	free(t->det.data);
	jsonw_names_destroy(t->names);
	free(t);
	x->fmt = NULL;
}

/*
 * The current event's fields as one JSON object in t->det, made once per
 * event: its contexts and payload ({"common_context", "specific_context",
 * "payload"}, each when present, as trawl view --format=json writes them).
 * Its name and time are the item's; the packet context is left out (it is
 * the packet's, and it would double the page).
 */
static int fields(struct export_run *x, struct timeline *t)
{
	static const struct {
		enum trawl_reader_scope scope;
		const char *key;
	} scopes[] = {
		{TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT, "\"common_context\":"},
		{TRAWL_READER_SCOPE_EVENT_SPECIFIC_CONTEXT, "\"specific_context\":"},
		{TRAWL_READER_SCOPE_EVENT_PAYLOAD, "\"payload\":"},
	};
	size_t i;

	if (t->det_ok)
		return 0;
	t->det.len = 0;
	for (i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		const struct trawl_reader_field *f;
		int ret = trawl_reader_event_field(x->r, scopes[i].scope, &f);

		if (ret == -ENODATA)
			continue;
		if (ret)
			return ret;
		if (jsonw_raw(&t->det, t->det.len ? "," : "{", 1) ||
		    jsonw_raw(&t->det, scopes[i].key, strlen(scopes[i].key)) ||
		    jsonw_field_names(&t->det, f, t->names))
			return -ENOMEM;
	}
	if (jsonw_raw(&t->det, t->det.len ? "}" : "{}", t->det.len ? 1 : 2))
		return -ENOMEM;
	t->det_ok = true;
	return 0;
}

/* Adds @it to @l, with the event's fields if it starts an item somewhere. */
static int add(struct export_run *x, struct timeline *t, struct tl_lane *l,
	       const struct tl_item *it)
{
	int ret;

	if (!tl_lod_opens(&t->lod, l, it->t0))
		return tl_lod_add(&t->lod, l, it, NULL, 0);
	ret = fields(x, t);
	if (ret)
		return ret;
	return tl_lod_add(&t->lod, l, it, t->det.data, t->det.len);
}

static int cpu_lanes_grow(struct timeline *t, int64_t cpu)
{
	size_t n = (size_t)cpu + 1;
	struct tl_lane **a, **b;

	if (n <= t->ncpu_lanes)
		return 0;
	a = realloc(t->cpu_lanes, n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	t->cpu_lanes = a;
	b = realloc(t->cpu_ev_lanes, n * sizeof(*b));
	if (!b)
		return -ENOMEM;
	t->cpu_ev_lanes = b;
	memset(a + t->ncpu_lanes, 0, (n - t->ncpu_lanes) * sizeof(*a));
	memset(b + t->ncpu_lanes, 0, (n - t->ncpu_lanes) * sizeof(*b));
	t->ncpu_lanes = n;
	return 0;
}

/* The lane of CPU @cpu (runs, or events with no thread when @ev); NULL when out of memory. */
static struct tl_lane *cpu_lane(struct timeline *t, int64_t cpu, bool ev)
{
	struct tl_lane **slot;

	if (cpu < 0 || cpu > 65535) {
		if (!ev)
			return NULL;
		if (!t->global)
			t->global = tl_lod_lane(&t->lod, TL_LANE_CPU_EV, -1, 0);
		return t->global;
	}
	if (cpu_lanes_grow(t, cpu))
		return NULL;
	slot = ev ? &t->cpu_ev_lanes[cpu] : &t->cpu_lanes[cpu];
	if (!*slot)
		*slot = tl_lod_lane(&t->lod, ev ? TL_LANE_CPU_EV : TL_LANE_CPU, cpu, 0);
	return *slot;
}

/* A thread's system calls (@which 0) or marks (1). */
static struct tl_lane *thread_lane(struct timeline *t, struct model_thread *th, int which)
{
	struct tl_lane *l;

	if (th->fmt_lane[which])
		return t->lod.lanes[th->fmt_lane[which] - 1];
	l = tl_lod_lane(&t->lod, which ? TL_LANE_EV : TL_LANE_SYS, th->tid, 0);
	if (l)
		th->fmt_lane[which] = (uint32_t)t->lod.nlanes;
	return l;
}

static int name_id(struct timeline *t, const char *s, uint32_t *id)
{
	return tl_str_id(&t->str, s, strlen(s), 1, id);
}

static int on_run(struct export_run *x, struct timeline *t, const struct model_event *ev)
{
	struct tl_item it = {.t0 = tl_rel(t, ev->run_begin), .t1 = tl_rel(t, ev->ts),
			     .v = ev->prev->tid};
	struct tl_lane *l;

	if (ev->run_begin < 0 || !ev->prev->tid)	/* unknown, or the idle task */
		return 0;
	l = cpu_lane(t, ev->cpu, false);
	if (!l || tl_str_id(&t->str, ev->prev->name, strlen(ev->prev->name), 0, &it.name))
		return -ENOMEM;
	(void)x;
	return tl_lod_add(&t->lod, l, &it, NULL, 0);
}

static size_t ctr_hash(int64_t tid, uint32_t name, size_t cap)
{
	uint64_t v = (uint64_t)tid * 0x9e3779b97f4a7c15ULL ^ name;

	v ^= v >> 31;
	return (size_t)(v * 0xff51afd7ed558ccdULL >> 17) & (cap - 1);
}

static int ctr_grow(struct timeline *t)
{
	size_t cap = t->capctr ? t->capctr * 2 : 64, i, h;
	__typeof__(t->ctr) c = calloc(cap, sizeof(*c));

	if (!c)
		return -ENOMEM;
	for (i = 0; i < t->capctr; i++) {
		if (!t->ctr[i].lane)
			continue;
		for (h = ctr_hash(t->ctr[i].tid, t->ctr[i].name, cap); c[h].lane; h = (h + 1) & (cap - 1))
			;
		c[h] = t->ctr[i];
	}
	free(t->ctr);
	t->ctr = c;
	t->capctr = cap;
	return 0;
}

/* The lane of counter @name of thread @tid, made when new; NULL when out of memory. */
static struct tl_lane *ctr_lane(struct timeline *t, int64_t tid, uint32_t name)
{
	size_t h;

	if ((t->nctr + 1) * 2 > t->capctr && ctr_grow(t))
		return NULL;
	for (h = ctr_hash(tid, name, t->capctr); t->ctr[h].lane; h = (h + 1) & (t->capctr - 1))
		if (t->ctr[h].tid == tid && t->ctr[h].name == name)
			return t->ctr[h].lane;
	t->ctr[h].lane = tl_lod_lane(&t->lod, TL_LANE_CTR, tid, name);
	if (!t->ctr[h].lane)
		return NULL;
	t->ctr[h].tid = tid;
	t->ctr[h].name = name;
	t->nctr++;
	return t->ctr[h].lane;
}

static void on_counter(void *arg, const char *name, int64_t value)
{
	struct timeline *t = arg;
	struct tl_item it = {.t0 = tl_rel(t, t->ev->ts), .t1 = tl_rel(t, t->ev->ts), .v = value};
	struct tl_lane *l;
	uint32_t id;

	if (t->err)
		return;
	if (tl_str_id(&t->str, name, strlen(name), 0, &id)) {
		t->err = -ENOMEM;
		return;
	}
	l = ctr_lane(t, t->ev->thread->tid, id);
	it.name = id;
	t->err = l ? tl_lod_add(&t->lod, l, &it, NULL, 0) : -ENOMEM;
}

static int on_syscall_entry(struct export_run *x, struct timeline *t, struct model_event *ev)
{
	struct tl_lane *l = thread_lane(t, ev->thread, 0);
	int ret;

	if (!l)
		return -ENOMEM;
	l->pend_ok = false;
	if (!tl_lod_opens(&t->lod, l, tl_rel(t, ev->ts)))
		return 0;
	ret = fields(x, t);
	if (ret)
		return ret;
	l->pend.len = 0;
	if (jsonw_lit(&l->pend, "{\"entry\":") || jsonw_raw(&l->pend, t->det.data, t->det.len))
		return -ENOMEM;
	l->pend_ok = true;
	return 0;
}

static int on_syscall_exit(struct export_run *x, struct timeline *t, struct model_event *ev)
{
	struct tl_lane *l = thread_lane(t, ev->thread, 0);
	struct tl_item it = {.t0 = tl_rel(t, ev->sys_begin), .t1 = tl_rel(t, ev->ts)};
	int ret;

	if (!l || name_id(t, ev->name, &it.name))
		return -ENOMEM;
	if (!l->pend_ok)
		return tl_lod_add(&t->lod, l, &it, NULL, 0);
	l->pend_ok = false;
	ret = fields(x, t);
	if (ret)
		return ret;
	if (jsonw_lit(&l->pend, ",\"exit\":") || jsonw_raw(&l->pend, t->det.data, t->det.len) ||
	    jsonw_lit(&l->pend, "}"))
		return -ENOMEM;
	return tl_lod_add(&t->lod, l, &it, l->pend.data, l->pend.len);
}

/* Any other event: a mark of its thread, else of its CPU, else of the trace. */
static int on_mark(struct export_run *x, struct timeline *t, struct model_event *ev)
{
	struct tl_item it = {.t0 = tl_rel(t, ev->ts), .t1 = tl_rel(t, ev->ts)};
	struct tl_lane *l;
	int ret;

	l = ev->thread ? thread_lane(t, ev->thread, 1) : cpu_lane(t, ev->cpu, true);
	if (!l || name_id(t, trawl_reader_event_name(x->r), &it.name))
		return -ENOMEM;
	ret = add(x, t, l, &it);
	if (ret || !ev->thread)
		return ret;
	t->ev = ev;
	ret = model_counters(t->m, x->r, on_counter, t);
	return ret ? ret : t->err;
}

static int tl_event(struct export_run *x)
{
	struct timeline *t = x->fmt;
	struct model_event ev;
	int ret = model_update(t->m, x->r, &ev);

	if (ret)
		return ret;
	t->det_ok = false;
	if (!t->have_origin) {
		t->origin = ev.ts;
		t->have_origin = true;
	}
	if (ev.ts < t->origin)	/* no clock: everything at the origin */
		ev.ts = t->origin;
	t->last = ev.ts;
	t->events++;
	switch (ev.kind) {
	case MODEL_SCHED_SWITCH:
		return on_run(x, t, &ev);
	case MODEL_PROCESS_INFO:
		return 0;
	case MODEL_SYSCALL_ENTRY:
		if (ev.thread)
			return on_syscall_entry(x, t, &ev);
		break;
	case MODEL_SYSCALL_EXIT:
		if (ev.thread && ev.matched)
			return on_syscall_exit(x, t, &ev);
		break;
	case MODEL_OTHER:
		break;
	}
	return on_mark(x, t, &ev);
}

/* What is open when the trace ends (runs, system calls) ends with it. */
static int tl_end(struct export_run *x)
{
	struct timeline *t = x->fmt;
	int64_t cpu, since;
	size_t i;
	int ret = 0;

	for (cpu = 0; cpu < model_cpu_count(t->m) && !ret; cpu++) {
		struct model_event ev = {.cpu = cpu, .ts = t->last};

		ev.prev = model_cpu_current(t->m, cpu, &since);
		ev.run_begin = since;
		if (ev.prev)
			ret = on_run(x, t, &ev);
	}
	for (i = 0; i < model_thread_count(t->m) && !ret; i++) {
		struct model_thread *th = model_thread_at(t->m, i);
		struct tl_item it = {.t0 = tl_rel(t, th->sys_begin), .t1 = tl_rel(t, t->last)};
		struct tl_lane *l;

		if (!th->in_syscall)
			continue;
		l = thread_lane(t, th, 0);
		if (!l || name_id(t, th->sys_name, &it.name))
			return -ENOMEM;
		ret = tl_lod_add(&t->lod, l, &it, NULL, 0);
	}
	return ret ? ret : tl_html_write(x, t);
}

const struct export_ops export_timeline_ops = {
	.begin = tl_begin,
	.event = tl_event,
	.end = tl_end,
	.destroy = tl_destroy,
	.needs_fields = true,
};
