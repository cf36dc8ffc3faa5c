/* SPDX-License-Identifier: MIT */
/*
 * perfetto.c - Perfetto's protobuf trace format (protos/perfetto/trace in
 * Perfetto's sources; the field numbers used are in tests/export/
 * perfetto_min.proto, the subset written here), as the trace streams by:
 *  - sched_switch as Perfetto's ftrace events (FtraceEventBundle, one per
 *    CPU and up to 64 KiB of events), so its CPU tracks and thread states
 *    appear as for a trace Perfetto recorded;
 *  - system calls as slices (TrackEvent SLICE_BEGIN with the entry's fields
 *    as debug annotations, SLICE_END) on their thread's track;
 *  - every other event as an instant with its payload as annotations;
 *  - perf counter contexts as counter tracks under their thread;
 *  - processes and threads as track descriptors (again when a name
 *    changes) and one ProcessTree at the end.
 * Timestamps are the events' ns from the Epoch, exact.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_int.h"
#include "model.h"
#include "pb.h"

/* Field numbers (Perfetto's .proto files). */
enum {
	TRACE_PACKET = 1,
	PKT_FTRACE_EVENTS = 1, PKT_PROCESS_TREE = 2, PKT_TIMESTAMP = 8, PKT_SEQ_ID = 10,
	PKT_TRACK_EVENT = 11, PKT_SEQ_FLAGS = 13, PKT_TRACK_DESCRIPTOR = 60,
	BUNDLE_CPU = 1, BUNDLE_EVENT = 2,
	FTRACE_TIMESTAMP = 1, FTRACE_PID = 2, FTRACE_SCHED_SWITCH = 4,
	SW_PREV_COMM = 1, SW_PREV_PID, SW_PREV_PRIO, SW_PREV_STATE, SW_NEXT_COMM, SW_NEXT_PID,
	SW_NEXT_PRIO,
	TREE_PROCESS = 1, TREE_THREAD = 2, PROC_PID = 1, PROC_CMDLINE = 3,
	THR_TID = 1, THR_NAME = 2, THR_TGID = 3,
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5, TD_COUNTER = 8,
	PD_PID = 1, PD_NAME = 6, TDD_PID = 1, TDD_TID = 2, TDD_NAME = 5,
	TE_ANNOTATION = 4, TE_TYPE = 9, TE_TRACK = 11, TE_CATEGORY = 22, TE_NAME = 23,
	TE_COUNTER_VALUE = 30,
	DA_UINT = 3, DA_INT = 4, DA_DOUBLE = 5, DA_STRING = 6, DA_NAME = 10, DA_DICT = 11,
	DA_ARRAY = 12,
};
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
enum { SEQ_CLEARED = 1, SEQ_NEEDS = 2 };

#define SEQ_ID 1
#define BUNDLE_FLUSH_AT (64u << 10)

/* Track uuids: the kind in the top byte, so that no two kinds collide. */
#define UUID_PROCESS(pid) ((1ull << 56) | (uint64_t)(pid))
#define UUID_THREAD(tid) ((2ull << 56) | (uint64_t)(tid))
#define UUID_CPU_EVENTS(cpu) ((4ull << 56) | (uint64_t)(cpu))

struct bundle {
	struct trawl_reader_buf events;	/* FtraceEvent messages, each tagged BUNDLE_EVENT */
};

struct perfetto {
	struct model *m;
	struct bundle *cpus;
	int64_t ncpus;
	uint64_t *tracks;		/* open addressing: counter and CPU tracks described */
	size_t ntracks, captracks;
	bool first_packet;
	int64_t last;
	struct export_run *x;		/* for the counter callback */
	const struct model_event *ev;
	int err;
};

static int perfetto_begin(struct export_run *x)
{
	struct perfetto *p = calloc(1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	x->fmt = p;
	p->m = model_create();
	p->first_packet = true;
	return p->m ? 0 : -ENOMEM;
}

/* Starts a TracePacket of sequence SEQ_ID at @ts (INT64_MIN: none). */
static int packet_begin(struct perfetto *p, struct trawl_reader_buf *b, int64_t ts, size_t *slot)
{
	int ret = pb_begin(b, TRACE_PACKET, slot);

	if (!ret && ts != INT64_MIN)
		ret = pb_uint(b, PKT_TIMESTAMP, (uint64_t)ts);
	if (!ret)
		ret = pb_uint(b, PKT_SEQ_ID, SEQ_ID);
	if (!ret)
		ret = pb_uint(b, PKT_SEQ_FLAGS, p->first_packet ? SEQ_CLEARED : SEQ_NEEDS);
	p->first_packet = false;
	return ret;
}

static int64_t pid_of(const struct model_thread *t)
{
	return t->pid >= 0 ? t->pid : t->tid;
}

/* Returns 1 if @uuid was already described, else records it and returns 0 (-ENOMEM). */
static int track_seen(struct perfetto *p, uint64_t uuid)
{
	size_t h, i;

	if (p->captracks) {
		for (h = uuid * 0x9e3779b97f4a7c15ULL >> 20 & (p->captracks - 1); p->tracks[h];
		     h = (h + 1) & (p->captracks - 1))
			if (p->tracks[h] == uuid)
				return 1;
	}
	if ((p->ntracks + 1) * 2 > p->captracks) {
		size_t cap = p->captracks ? p->captracks * 2 : 64;
		uint64_t *t = calloc(cap, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (i = 0; i < p->captracks; i++) {
			if (!p->tracks[i])
				continue;
			for (h = p->tracks[i] * 0x9e3779b97f4a7c15ULL >> 20 & (cap - 1); t[h];
			     h = (h + 1) & (cap - 1))
				;
			t[h] = p->tracks[i];
		}
		free(p->tracks);
		p->tracks = t;
		p->captracks = cap;
	}
	for (h = uuid * 0x9e3779b97f4a7c15ULL >> 20 & (p->captracks - 1); p->tracks[h];
	     h = (h + 1) & (p->captracks - 1))
		;
	p->tracks[h] = uuid;
	p->ntracks++;
	return 0;
}

/* The thread's track (and its process's), described again when a name changed. */
static int describe_thread(struct export_run *x, struct perfetto *p, struct model_thread *t)
{
	struct trawl_reader_buf *b = &x->out;
	size_t pk = 0, td = 0, sub = 0;
	int ret;

	if (!t->changed)
		return 0;
	t->changed = false;
	ret = packet_begin(p, b, INT64_MIN, &pk) || pb_begin(b, PKT_TRACK_DESCRIPTOR, &td) ||
	      pb_uint(b, TD_UUID, UUID_PROCESS(pid_of(t))) || pb_begin(b, TD_PROCESS, &sub) ||
	      pb_int(b, PD_PID, pid_of(t));
	if (!ret && pid_of(t) == t->tid && t->name[0])
		ret = pb_string(b, PD_NAME, t->name);
	ret = ret || pb_end(b, sub) || pb_end(b, td) || pb_end(b, pk);
	ret = ret || packet_begin(p, b, INT64_MIN, &pk) ||
	      pb_begin(b, PKT_TRACK_DESCRIPTOR, &td) || pb_uint(b, TD_UUID, UUID_THREAD(t->tid)) ||
	      pb_uint(b, TD_PARENT, UUID_PROCESS(pid_of(t))) || pb_begin(b, TD_THREAD, &sub) ||
	      pb_int(b, TDD_PID, pid_of(t)) || pb_int(b, TDD_TID, t->tid);
	if (!ret && t->name[0])
		ret = pb_string(b, TDD_NAME, t->name);
	return ret || pb_end(b, sub) || pb_end(b, td) || pb_end(b, pk) ? -ENOMEM : 0;
}

static int annotation(struct trawl_reader_buf *b, uint32_t tag, const char *name,
		      const struct trawl_reader_field *f);

static int annotation_children(struct trawl_reader_buf *b, const struct trawl_reader_field *f,
			       bool named)
{
	size_t i, n = trawl_reader_field_count(f);
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		const struct trawl_reader_field *c = trawl_reader_field_at(f, i);

		ret = annotation(b, named ? DA_DICT : DA_ARRAY, named ? trawl_reader_field_name(c) : NULL,
				 c);
	}
	return ret;
}

/* A field as a DebugAnnotation (field @tag of the message being written). */
static int annotation(struct trawl_reader_buf *b, uint32_t tag, const char *name,
		      const struct trawl_reader_field *f)
{
	const char *labels[1], *s;
	size_t slot = 0, len;
	int ret = pb_begin(b, tag, &slot);

	if (!ret && name)
		ret = pb_string(b, DA_NAME, name);
	if (ret)
		return ret;
	switch (trawl_reader_field_kind(f)) {
	case TRAWL_READER_FIELD_INTEGER:
		ret = trawl_reader_field_is_signed(f) ? pb_int(b, DA_INT, trawl_reader_field_int(f))
						      : pb_uint(b, DA_UINT, trawl_reader_field_uint(f));
		break;
	case TRAWL_READER_FIELD_ENUM: {
		/* {label, value}, as the JSON forms write it */
		size_t d = 0;

		ret = pb_begin(b, DA_DICT, &d) || pb_string(b, DA_NAME, "label") ||
		      pb_string(b, DA_STRING,
				trawl_reader_field_enum_labels(f, labels, 1) ? labels[0] : "<unknown>") ||
		      pb_end(b, d) || pb_begin(b, DA_DICT, &d) || pb_string(b, DA_NAME, "value") ||
		      (trawl_reader_field_is_signed(f) ? pb_int(b, DA_INT, trawl_reader_field_int(f))
						       : pb_uint(b, DA_UINT, trawl_reader_field_uint(f))) ||
		      pb_end(b, d);
		break;
	}
	case TRAWL_READER_FIELD_FLOAT:
		ret = pb_double(b, DA_DOUBLE, trawl_reader_field_double(f));
		break;
	case TRAWL_READER_FIELD_STRING:
		s = trawl_reader_field_string(f, &len);
		ret = pb_bytes(b, DA_STRING, s ? s : "", s ? len : 0);
		break;
	case TRAWL_READER_FIELD_STRUCT:
	case TRAWL_READER_FIELD_VARIANT:
		ret = annotation_children(b, f, true);
		break;
	case TRAWL_READER_FIELD_ARRAY:
	case TRAWL_READER_FIELD_SEQUENCE:
		ret = annotation_children(b, f, false);
		break;
	}
	return ret || pb_end(b, slot) ? -ENOMEM : 0;
}

/* A TrackEvent of @type named @name on @track, with the payload as annotations. */
static int track_event(struct export_run *x, struct perfetto *p, int64_t ts, int type,
		       uint64_t track, const char *cat, const char *name, bool args)
{
	struct trawl_reader_buf *b = &x->out;
	const struct trawl_reader_field *pl;
	size_t pk = 0, te = 0, i;
	int ret = packet_begin(p, b, ts, &pk) || pb_begin(b, PKT_TRACK_EVENT, &te) ||
		  pb_uint(b, TE_TYPE, (uint64_t)type) || pb_uint(b, TE_TRACK, track);

	if (!ret && cat)
		ret = pb_string(b, TE_CATEGORY, cat);
	if (!ret && name)
		ret = pb_string(b, TE_NAME, name);
	if (ret)
		return -ENOMEM;
	if (args && !trawl_reader_event_field(x->r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, &pl)) {
		for (i = 0; i < trawl_reader_field_count(pl) && !ret; i++) {
			const struct trawl_reader_field *c = trawl_reader_field_at(pl, i);

			ret = annotation(b, TE_ANNOTATION, trawl_reader_field_name(c), c);
		}
	}
	return ret || pb_end(b, te) || pb_end(b, pk) ? -ENOMEM : 0;
}

static int bundle_flush(struct export_run *x, struct perfetto *p, int64_t cpu)
{
	struct trawl_reader_buf *b = &x->out, *e = &p->cpus[cpu].events;
	size_t pk = 0, bu = 0;

	if (!e->len)
		return 0;
	if (packet_begin(p, b, INT64_MIN, &pk) || pb_begin(b, PKT_FTRACE_EVENTS, &bu) ||
	    pb_uint(b, BUNDLE_CPU, (uint64_t)cpu) || jsonw_raw(b, e->data, e->len) ||
	    pb_end(b, bu) || pb_end(b, pk))
		return -ENOMEM;
	e->len = 0;
	return 0;
}

static int sched_switch(struct export_run *x, struct perfetto *p, const struct model_event *ev)
{
	struct trawl_reader_buf *e;
	size_t fe = 0, sw = 0;

	if (ev->cpu < 0 || ev->cpu > 65535)
		return 0;
	if (ev->cpu >= p->ncpus) {
		void *n = realloc(p->cpus, (size_t)(ev->cpu + 1) * sizeof(*p->cpus));

		if (!n)
			return -ENOMEM;
		p->cpus = n;
		memset(&p->cpus[p->ncpus], 0, (size_t)(ev->cpu + 1 - p->ncpus) * sizeof(*p->cpus));
		p->ncpus = ev->cpu + 1;
	}
	e = &p->cpus[ev->cpu].events;
	if (pb_begin(e, BUNDLE_EVENT, &fe) || pb_uint(e, FTRACE_TIMESTAMP, (uint64_t)ev->ts) ||
	    pb_uint(e, FTRACE_PID, (uint64_t)ev->prev->tid) ||
	    pb_begin(e, FTRACE_SCHED_SWITCH, &sw) || pb_string(e, SW_PREV_COMM, ev->prev->name) ||
	    pb_int(e, SW_PREV_PID, ev->prev->tid) || pb_int(e, SW_PREV_PRIO, ev->prev_prio) ||
	    pb_int(e, SW_PREV_STATE, ev->prev_state) || pb_string(e, SW_NEXT_COMM, ev->next->name) ||
	    pb_int(e, SW_NEXT_PID, ev->next->tid) || pb_int(e, SW_NEXT_PRIO, ev->next_prio) ||
	    pb_end(e, sw) || pb_end(e, fe))
		return -ENOMEM;
	return e->len >= BUNDLE_FLUSH_AT ? bundle_flush(x, p, ev->cpu) : 0;
}

static void on_counter(void *arg, const char *name, int64_t value)
{
	struct perfetto *p = arg;
	struct trawl_reader_buf *b = &p->x->out;
	const struct model_thread *t = p->ev->thread;
	uint64_t h = 1469598103934665603ULL, uuid;
	size_t pk = 0, td = 0;
	const char *c;
	int seen;

	for (c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	uuid = (3ull << 56) | ((h ^ (uint64_t)t->tid * 0x9e3779b97f4a7c15ULL) & ((1ull << 56) - 1));
	seen = track_seen(p, uuid);
	if (seen < 0 ||
	    (!seen && (packet_begin(p, b, INT64_MIN, &pk) ||
		       pb_begin(b, PKT_TRACK_DESCRIPTOR, &td) || pb_uint(b, TD_UUID, uuid) ||
		       pb_uint(b, TD_PARENT, UUID_THREAD(t->tid)) || pb_string(b, TD_NAME, name) ||
		       pb_bytes(b, TD_COUNTER, "", 0) || pb_end(b, td) || pb_end(b, pk)))) {
		p->err = -ENOMEM;
		return;
	}
	if (packet_begin(p, b, p->ev->ts, &pk) || pb_begin(b, PKT_TRACK_EVENT, &td) ||
	    pb_uint(b, TE_TYPE, TYPE_COUNTER) || pb_uint(b, TE_TRACK, uuid) ||
	    pb_int(b, TE_COUNTER_VALUE, value) || pb_end(b, td) || pb_end(b, pk))
		p->err = -ENOMEM;
}

static int cpu_events_track(struct export_run *x, struct perfetto *p, int64_t cpu)
{
	struct trawl_reader_buf *b = &x->out;
	char name[32];
	size_t pk = 0, td = 0;
	int seen = track_seen(p, UUID_CPU_EVENTS(cpu));

	if (seen)
		return seen < 0 ? seen : 0;
	snprintf(name, sizeof(name), "CPU %lld events", (long long)cpu);
	return packet_begin(p, b, INT64_MIN, &pk) || pb_begin(b, PKT_TRACK_DESCRIPTOR, &td) ||
	       pb_uint(b, TD_UUID, UUID_CPU_EVENTS(cpu)) || pb_string(b, TD_NAME, name) ||
	       pb_end(b, td) || pb_end(b, pk) ? -ENOMEM : 0;
}

static int perfetto_event(struct export_run *x)
{
	struct perfetto *p = x->fmt;
	struct model_event ev;
	struct model_thread *t;
	int ret = model_update(p->m, x->r, &ev);

	if (ret)
		return ret;
	p->last = ev.ts;
	t = ev.thread;
	if (ev.kind == MODEL_SCHED_SWITCH)
		return sched_switch(x, p, &ev);
	if (ev.kind == MODEL_PROCESS_INFO)
		return 0;
	if (t && (ret = describe_thread(x, p, t)))
		return ret;
	if (ev.kind == MODEL_SYSCALL_ENTRY)
		return t ? track_event(x, p, ev.ts, TYPE_SLICE_BEGIN, UUID_THREAD(t->tid), "syscall",
				       ev.name, true) : 0;
	if (ev.kind == MODEL_SYSCALL_EXIT)
		return t && ev.matched ? track_event(x, p, ev.ts, TYPE_SLICE_END, UUID_THREAD(t->tid),
						     NULL, NULL, false) : 0;
	if (t) {
		ret = track_event(x, p, ev.ts, TYPE_INSTANT, UUID_THREAD(t->tid), NULL, ev.name, true);
		p->x = x;
		p->ev = &ev;
		if (!ret)
			ret = model_counters(p->m, x->r, on_counter, p);
		return ret ? ret : p->err;
	}
	if (ev.cpu < 0)
		return 0;	/* no thread, no CPU: nowhere to show it */
	ret = cpu_events_track(x, p, ev.cpu);
	return ret ? ret : track_event(x, p, ev.ts, TYPE_INSTANT, UUID_CPU_EVENTS(ev.cpu), NULL,
				       ev.name, true);
}

/* Every process and thread with its name, as Perfetto's process scraper writes them. */
static int process_tree(struct export_run *x, struct perfetto *p)
{
	struct trawl_reader_buf *b = &x->out;
	size_t pk = 0, tree = 0, e = 0, i;
	int ret = packet_begin(p, b, p->last, &pk) || pb_begin(b, PKT_PROCESS_TREE, &tree);

	for (i = 0; i < model_thread_count(p->m) && !ret; i++) {
		const struct model_thread *t = model_thread_at(p->m, i);

		if (!t->tid)
			continue;
		if (pid_of(t) == t->tid) {
			ret = pb_begin(b, TREE_PROCESS, &e) || pb_int(b, PROC_PID, t->tid) ||
			      (t->name[0] && pb_string(b, PROC_CMDLINE, t->name)) || pb_end(b, e);
			if (ret)
				break;
		}
		ret = pb_begin(b, TREE_THREAD, &e) || pb_int(b, THR_TID, t->tid) ||
		      pb_int(b, THR_TGID, pid_of(t)) || (t->name[0] && pb_string(b, THR_NAME, t->name)) ||
		      pb_end(b, e);
	}
	return ret || pb_end(b, tree) || pb_end(b, pk) ? -ENOMEM : 0;
}

static int perfetto_end(struct export_run *x)
{
	struct perfetto *p = x->fmt;
	int64_t cpu;
	size_t i;
	int ret = 0;

	for (cpu = 0; cpu < p->ncpus && !ret; cpu++)
		ret = bundle_flush(x, p, cpu);
	/* system calls still open end with the trace */
	for (i = 0; i < model_thread_count(p->m) && !ret; i++) {
		const struct model_thread *t = model_thread_at(p->m, i);

		if (t->tid && t->in_syscall)
			ret = track_event(x, p, p->last, TYPE_SLICE_END, UUID_THREAD(t->tid), NULL, NULL,
					  false);
	}
	/* names learnt late (state dump, sched_switch) reach the tracks too */
	for (i = 0; i < model_thread_count(p->m) && !ret; i++) {
		struct model_thread *t = model_thread_at(p->m, i);

		if (t->tid && t->changed)
			ret = describe_thread(x, p, t);
	}
	return ret ? ret : process_tree(x, p);
}

static void perfetto_destroy(struct export_run *x)
{
	struct perfetto *p = x->fmt;
	int64_t cpu;

	if (!p)
		return;
	for (cpu = 0; cpu < p->ncpus; cpu++)
		free(p->cpus[cpu].events.data);
	free(p->cpus);
	free(p->tracks);
	model_destroy(p->m);
	free(p);
	x->fmt = NULL;
}

const struct export_ops export_perfetto_ops = {
	.begin = perfetto_begin,
	.event = perfetto_event,
	.end = perfetto_end,
	.destroy = perfetto_destroy,
	.needs_fields = true,
};
