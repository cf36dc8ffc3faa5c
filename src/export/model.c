/* SPDX-License-Identifier: MIT */
/*
 * model.c - threads, processes and CPUs as a trace streams by (model.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

enum { CTX_TID, CTX_PID, CTX_PROCNAME, NCTX };
enum { F_PREV_COMM, F_PREV_TID, F_PREV_PRIO, F_PREV_STATE, F_NEXT_COMM, F_NEXT_TID,
       F_NEXT_PRIO, NSWITCH };
enum { P_TID, P_PID, P_NAME, NPROC };

/* What the model reads of every event of one class, found once. */
struct class_info {
	const struct trawl_reader_event_class *ec;
	enum model_kind kind;
	const char *sys_name;		/* into the class's name */
	bool kernel;			/* the trace's domain is "kernel" */
	int64_t env_vpid;		/* a per-process user-space trace's vpid, else -1 */
	const char *env_procname;
	/* positions: context fields in the common (0) and specific (1) contexts */
	int ctx[2][NCTX];
	int sw[NSWITCH];		/* sched_switch's payload */
	int proc[NPROC];		/* state dump, fork, exec: payload */
	bool proc_exec;			/* name is a path: keep its base name */
	bool has_perf;			/* a context has perf_* fields */
};

struct model {
	struct class_info *classes;	/* open addressing on ec */
	size_t nclasses, capclasses;
	struct model_thread **threads;	/* owned, in order of appearance */
	size_t nthreads, capthreads;
	uint32_t *tidx;			/* open addressing: index + 1 into threads, 0 empty */
	size_t captidx;
	struct {
		struct model_thread *cur;
		int64_t since;
	} *cpus;
	int64_t ncpus;
};

struct model *model_create(void)
{
	return calloc(1, sizeof(struct model));
}

void model_destroy(struct model *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nthreads; i++)
		free(m->threads[i]);
	free(m->threads);
	free(m->tidx);
	free(m->classes);
	free(m->cpus);
	free(m);
}

static size_t hash64(uint64_t v, size_t cap)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdULL;
	v ^= v >> 33;
	return (size_t)v & (cap - 1);
}

static int tidx_grow(struct model *m)
{
	size_t cap = m->captidx ? m->captidx * 2 : 256, i;
	uint32_t *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < m->nthreads; i++) {
		size_t h = hash64((uint64_t)m->threads[i]->tid, cap);

		while (t[h])
			h = (h + 1) & (cap - 1);
		t[h] = (uint32_t)i + 1;
	}
	free(m->tidx);
	m->tidx = t;
	m->captidx = cap;
	return 0;
}

/* The thread @tid, made when new. NULL when out of memory. */
static struct model_thread *thread_get(struct model *m, int64_t tid)
{
	struct model_thread *t;
	size_t h;

	if (m->captidx) {
		for (h = hash64((uint64_t)tid, m->captidx); m->tidx[h];
		     h = (h + 1) & (m->captidx - 1))
			if (m->threads[m->tidx[h] - 1]->tid == tid)
				return m->threads[m->tidx[h] - 1];
	}
	if ((m->nthreads + 1) * 2 > m->captidx && tidx_grow(m))
		return NULL;
	if (m->nthreads == m->capthreads) {
		size_t cap = m->capthreads ? m->capthreads * 2 : 64;
		void *n = realloc(m->threads, cap * sizeof(*m->threads));

		if (!n)
			return NULL;
		m->threads = n;
		m->capthreads = cap;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->pid = tid == 0 ? 0 : -1;
	t->changed = true;
	if (tid == 0)
		snprintf(t->name, sizeof(t->name), "swapper");
	for (h = hash64((uint64_t)tid, m->captidx); m->tidx[h]; h = (h + 1) & (m->captidx - 1))
		;
	m->threads[m->nthreads] = t;
	m->tidx[h] = (uint32_t)++m->nthreads;
	return t;
}

static void thread_set(struct model_thread *t, int64_t pid, const char *name, size_t len)
{
	if (pid >= 0 && t->pid != pid) {
		t->pid = pid;
		t->changed = true;
	}
	if (name && len) {
		if (len >= sizeof(t->name))
			len = sizeof(t->name) - 1;
		if (strncmp(t->name, name, len) || t->name[len]) {
			memcpy(t->name, name, len);
			t->name[len] = '\0';
			t->changed = true;
		}
	}
}

static int idx(const struct trawl_reader_event_class *ec, enum trawl_reader_scope s,
	       const char *a, const char *b)
{
	int i = trawl_reader_event_class_field_index(ec, s, a);

	return i >= 0 || !b ? i : trawl_reader_event_class_field_index(ec, s, b);
}

static void class_kind(struct class_info *ci, const char *name)
{
	static const char *const entry[] = {"syscall_entry_", "compat_syscall_entry_",
					    "syscalls:sys_enter_"};
	static const char *const exit_[] = {"syscall_exit_", "compat_syscall_exit_",
					    "syscalls:sys_exit_"};
	const struct trawl_reader_event_class *ec = ci->ec;
	const enum trawl_reader_scope P = TRAWL_READER_SCOPE_EVENT_PAYLOAD;
	size_t i;

	for (i = 0; i < 3; i++) {
		if (!strncmp(name, entry[i], strlen(entry[i]))) {
			ci->kind = MODEL_SYSCALL_ENTRY;
			ci->sys_name = name + strlen(entry[i]);
		} else if (!strncmp(name, exit_[i], strlen(exit_[i]))) {
			ci->kind = MODEL_SYSCALL_EXIT;
			ci->sys_name = name + strlen(exit_[i]);
		}
	}
	if (ci->kind != MODEL_OTHER)
		return;
	if (!strcmp(name, "sched_switch") || !strcmp(name, "sched:sched_switch")) {
		ci->sw[F_PREV_COMM] = idx(ec, P, "prev_comm", NULL);
		ci->sw[F_PREV_TID] = idx(ec, P, "prev_tid", "prev_pid");
		ci->sw[F_PREV_PRIO] = idx(ec, P, "prev_prio", NULL);
		ci->sw[F_PREV_STATE] = idx(ec, P, "prev_state", NULL);
		ci->sw[F_NEXT_COMM] = idx(ec, P, "next_comm", NULL);
		ci->sw[F_NEXT_TID] = idx(ec, P, "next_tid", "next_pid");
		ci->sw[F_NEXT_PRIO] = idx(ec, P, "next_prio", NULL);
		if (ci->sw[F_PREV_TID] >= 0 && ci->sw[F_NEXT_TID] >= 0)
			ci->kind = MODEL_SCHED_SWITCH;
	} else if (!strcmp(name, "lttng_statedump_process_state")) {
		ci->proc[P_TID] = idx(ec, P, "tid", NULL);
		ci->proc[P_PID] = idx(ec, P, "pid", NULL);
		ci->proc[P_NAME] = idx(ec, P, "name", NULL);
	} else if (!strcmp(name, "sched_process_fork") || !strcmp(name, "sched:sched_process_fork")) {
		/* LTTng: child_tid and child_pid (the process); ftrace: child_pid is the tid */
		ci->proc[P_TID] = idx(ec, P, "child_tid", "child_pid");
		ci->proc[P_PID] = ci->proc[P_TID] == idx(ec, P, "child_tid", NULL) ?
					  idx(ec, P, "child_pid", NULL) : -1;
		ci->proc[P_NAME] = idx(ec, P, "child_comm", NULL);
	} else if (!strcmp(name, "sched_process_exec") || !strcmp(name, "sched:sched_process_exec")) {
		ci->proc[P_TID] = idx(ec, P, "tid", "pid");
		ci->proc[P_PID] = -1;
		ci->proc[P_NAME] = idx(ec, P, "filename", NULL);
		ci->proc_exec = true;
	} else {
		return;
	}
	if (ci->kind == MODEL_OTHER && ci->proc[P_TID] >= 0)
		ci->kind = MODEL_PROCESS_INFO;
}

static int class_has_perf(const struct trawl_reader_event_class *ec, struct trawl_reader *r)
{
	static const enum trawl_reader_scope sc[2] = {TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT,
						      TRAWL_READER_SCOPE_EVENT_SPECIFIC_CONTEXT};
	const struct trawl_reader_field *f;
	size_t s, i;

	(void)ec;
	for (s = 0; s < 2; s++) {
		if (trawl_reader_event_field(r, sc[s], &f))
			continue;
		for (i = 0; i < trawl_reader_field_count(f); i++) {
			const char *n = trawl_reader_field_name(trawl_reader_field_at(f, i));

			if (n && !strncmp(n, "perf_", 5))
				return 1;
		}
	}
	return 0;
}

static void class_init(struct class_info *ci, const struct trawl_reader_event_class *ec,
		       struct trawl_reader *r)
{
	static const enum trawl_reader_scope sc[2] = {TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT,
						      TRAWL_READER_SCOPE_EVENT_SPECIFIC_CONTEXT};
	const struct trawl_reader_trace *t =
		trawl_reader_stream_trace(trawl_reader_event_stream(r));
	const char *domain = trawl_reader_trace_env_string(t, "domain");
	size_t s;

	memset(ci, 0, sizeof(*ci));
	memset(ci->sw, 0xff, sizeof(ci->sw));
	memset(ci->proc, 0xff, sizeof(ci->proc));
	ci->ec = ec;
	ci->kernel = domain && !strcmp(domain, "kernel");
	ci->env_vpid = -1;
	if (trawl_reader_trace_env_int(t, "vpid", &ci->env_vpid))
		ci->env_vpid = -1;
	ci->env_procname = trawl_reader_trace_env_string(t, "procname");
	for (s = 0; s < 2; s++) {
		ci->ctx[s][CTX_TID] = idx(ec, sc[s], "vtid", "tid");
		ci->ctx[s][CTX_PID] = idx(ec, sc[s], "vpid", "pid");
		ci->ctx[s][CTX_PROCNAME] = idx(ec, sc[s], "procname", NULL);
	}
	class_kind(ci, trawl_reader_event_class_name(ec));
	ci->has_perf = class_has_perf(ec, r);
}

static int classes_grow(struct model *m)
{
	size_t cap = m->capclasses ? m->capclasses * 2 : 64, i;
	struct class_info *c = calloc(cap, sizeof(*c));

	if (!c)
		return -ENOMEM;
	for (i = 0; i < m->capclasses; i++) {
		size_t h;

		if (!m->classes[i].ec)
			continue;
		for (h = hash64((uintptr_t)m->classes[i].ec, cap); c[h].ec; h = (h + 1) & (cap - 1))
			;
		c[h] = m->classes[i];
	}
	free(m->classes);
	m->classes = c;
	m->capclasses = cap;
	return 0;
}

static struct class_info *class_of(struct model *m, struct trawl_reader *r)
{
	const struct trawl_reader_event_class *ec = trawl_reader_event_class_of(r);
	size_t h;

	if (m->capclasses) {
		for (h = hash64((uintptr_t)ec, m->capclasses); m->classes[h].ec;
		     h = (h + 1) & (m->capclasses - 1))
			if (m->classes[h].ec == ec)
				return &m->classes[h];
	}
	if ((m->nclasses + 1) * 2 > m->capclasses && classes_grow(m))
		return NULL;
	for (h = hash64((uintptr_t)ec, m->capclasses); m->classes[h].ec;
	     h = (h + 1) & (m->capclasses - 1))
		;
	class_init(&m->classes[h], ec, r);
	m->nclasses++;
	return &m->classes[h];
}

/* Member @i of @f as an integer, or @dflt. */
static int64_t member_int(const struct trawl_reader_field *f, int i, int64_t dflt)
{
	const struct trawl_reader_field *c = i >= 0 && f ? trawl_reader_field_at(f, (size_t)i) : NULL;

	if (!c)
		return dflt;
	switch (trawl_reader_field_kind(c)) {
	case TRAWL_READER_FIELD_INTEGER:
	case TRAWL_READER_FIELD_ENUM:
		return trawl_reader_field_int(c);
	default:
		return dflt;
	}
}

static const char *member_str(const struct trawl_reader_field *f, int i, size_t *len)
{
	const struct trawl_reader_field *c = i >= 0 && f ? trawl_reader_field_at(f, (size_t)i) : NULL;

	*len = 0;
	return c ? trawl_reader_field_string(c, len) : NULL;
}

static int cpu_slot(struct model *m, int64_t cpu)
{
	if (cpu < 0 || cpu > 65535)
		return -EINVAL;
	if (cpu >= m->ncpus) {
		void *n = realloc(m->cpus, (size_t)(cpu + 1) * sizeof(*m->cpus));

		if (!n)
			return -ENOMEM;
		m->cpus = n;
		memset(&m->cpus[m->ncpus], 0, (size_t)(cpu + 1 - m->ncpus) * sizeof(*m->cpus));
		m->ncpus = cpu + 1;
	}
	return 0;
}

/* The thread the event happened on: its contexts, else the CPU's, else the trace's process. */
static int event_thread(struct model *m, struct trawl_reader *r, struct class_info *ci,
			struct model_event *ev)
{
	static const enum trawl_reader_scope sc[2] = {TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT,
						      TRAWL_READER_SCOPE_EVENT_SPECIFIC_CONTEXT};
	int64_t tid = -1, pid = -1;
	const char *name = NULL;
	size_t s, len = 0;

	for (s = 0; s < 2; s++) {
		const struct trawl_reader_field *f;

		if (ci->ctx[s][CTX_TID] < 0 && ci->ctx[s][CTX_PID] < 0 && ci->ctx[s][CTX_PROCNAME] < 0)
			continue;
		if (trawl_reader_event_field(r, sc[s], &f))
			continue;
		tid = member_int(f, ci->ctx[s][CTX_TID], tid);
		pid = member_int(f, ci->ctx[s][CTX_PID], pid);
		if (ci->ctx[s][CTX_PROCNAME] >= 0)
			name = member_str(f, ci->ctx[s][CTX_PROCNAME], &len);
	}
	if (tid < 0 && ci->kernel && ev->cpu >= 0 && ev->cpu < m->ncpus && m->cpus[ev->cpu].cur) {
		ev->thread = m->cpus[ev->cpu].cur;
		return 0;
	}
	if (tid < 0 && ci->env_vpid >= 0) {
		tid = pid = ci->env_vpid;
		name = ci->env_procname;
		len = name ? strlen(name) : 0;
	}
	if (tid < 0 && pid >= 0)
		tid = pid;
	if (tid < 0)
		return 0;
	ev->thread = thread_get(m, tid);
	if (!ev->thread)
		return -ENOMEM;
	thread_set(ev->thread, pid, name, len);
	return 0;
}

static int on_switch(struct model *m, const struct trawl_reader_field *p, struct class_info *ci,
		     struct model_event *ev)
{
	const char *s;
	size_t len;
	int64_t prev_tid = member_int(p, ci->sw[F_PREV_TID], -1);
	int64_t next_tid = member_int(p, ci->sw[F_NEXT_TID], -1);
	int ret;

	if (prev_tid < 0 || next_tid < 0) {
		ev->kind = MODEL_OTHER;	/* a switch that says nothing: a mark */
		return 0;
	}
	ev->prev = thread_get(m, prev_tid);
	ev->next = thread_get(m, next_tid);
	if (!ev->prev || !ev->next)
		return -ENOMEM;
	s = member_str(p, ci->sw[F_PREV_COMM], &len);
	if (ev->prev->tid)
		thread_set(ev->prev, -1, s, len);
	s = member_str(p, ci->sw[F_NEXT_COMM], &len);
	if (ev->next->tid)
		thread_set(ev->next, -1, s, len);
	ev->prev_prio = member_int(p, ci->sw[F_PREV_PRIO], 0);
	ev->next_prio = member_int(p, ci->sw[F_NEXT_PRIO], 0);
	ev->prev_state = member_int(p, ci->sw[F_PREV_STATE], 0);
	ev->run_begin = -1;
	if (ev->cpu < 0)
		return 0;
	ret = cpu_slot(m, ev->cpu);
	if (ret)
		return ret == -EINVAL ? 0 : ret;
	if (m->cpus[ev->cpu].cur == ev->prev)
		ev->run_begin = m->cpus[ev->cpu].since;
	m->cpus[ev->cpu].cur = ev->next;
	m->cpus[ev->cpu].since = ev->ts;
	ev->thread = ev->prev;
	return 0;
}

static int on_process_info(struct model *m, const struct trawl_reader_field *p,
			   struct class_info *ci)
{
	struct model_thread *t;
	const char *s, *slash;
	size_t len;
	int64_t tid = member_int(p, ci->proc[P_TID], -1);

	if (tid < 0)
		return 0;
	t = thread_get(m, tid);
	if (!t)
		return -ENOMEM;
	s = member_str(p, ci->proc[P_NAME], &len);
	if (s && ci->proc_exec && (slash = memrchr(s, '/', len))) {
		len -= (size_t)(slash + 1 - s);
		s = slash + 1;
		if (len > 15)	/* the kernel's comm after exec: TASK_COMM_LEN - 1 */
			len = 15;
	}
	thread_set(t, member_int(p, ci->proc[P_PID], -1), s, len);
	return 0;
}

int model_update(struct model *m, struct trawl_reader *r, struct model_event *ev)
{
	struct class_info *ci = class_of(m, r);
	const struct trawl_reader_field *p = NULL;
	uint64_t cpu;
	int ret = 0;

	if (!ci)
		return -ENOMEM;
	memset(ev, 0, sizeof(*ev));
	ev->kind = ci->kind;
	ev->name = ci->sys_name ? ci->sys_name : trawl_reader_event_class_name(ci->ec);
	if (trawl_reader_event_time_ns(r, &ev->ts))
		ev->ts = 0;
	ev->cpu = trawl_reader_event_cpu(r, &cpu) ? -1 : (int64_t)cpu;
	if (ci->kind == MODEL_SCHED_SWITCH || ci->kind == MODEL_PROCESS_INFO) {
		ret = trawl_reader_event_field(r, TRAWL_READER_SCOPE_EVENT_PAYLOAD, &p);
		if (ret)
			return ret == -ENODATA ? 0 : ret;
		return ci->kind == MODEL_SCHED_SWITCH ? on_switch(m, p, ci, ev)
						      : on_process_info(m, p, ci);
	}
	ret = event_thread(m, r, ci, ev);
	if (ret || !ev->thread)
		return ret;
	if (ci->kind == MODEL_SYSCALL_ENTRY) {
		ev->thread->in_syscall = true;
		ev->thread->sys_begin = ev->ts;
		ev->thread->sys_name = ci->sys_name;
	} else if (ci->kind == MODEL_SYSCALL_EXIT && ev->thread->in_syscall) {
		ev->matched = true;
		ev->sys_begin = ev->thread->sys_begin;
		ev->thread->in_syscall = false;
	}
	return 0;
}

int model_counters(struct model *m, struct trawl_reader *r,
		   void (*fn)(void *arg, const char *name, int64_t value), void *arg)
{
	static const enum trawl_reader_scope sc[2] = {TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT,
						      TRAWL_READER_SCOPE_EVENT_SPECIFIC_CONTEXT};
	struct class_info *ci = class_of(m, r);
	const struct trawl_reader_field *f;
	size_t s, i;

	if (!ci)
		return -ENOMEM;
	if (!ci->has_perf)
		return 0;
	for (s = 0; s < 2; s++) {
		if (trawl_reader_event_field(r, sc[s], &f))
			continue;
		for (i = 0; i < trawl_reader_field_count(f); i++) {
			const struct trawl_reader_field *c = trawl_reader_field_at(f, i);
			const char *n = trawl_reader_field_name(c);

			if (n && !strncmp(n, "perf_", 5))
				fn(arg, n + 5, trawl_reader_field_int(c));
		}
	}
	return 0;
}

size_t model_thread_count(const struct model *m)
{
	return m->nthreads;
}

struct model_thread *model_thread_at(struct model *m, size_t i)
{
	return i < m->nthreads ? m->threads[i] : NULL;
}

int64_t model_cpu_count(const struct model *m)
{
	return m->ncpus;
}

struct model_thread *model_cpu_current(struct model *m, int64_t cpu, int64_t *since)
{
	if (cpu < 0 || cpu >= m->ncpus)
		return NULL;
	if (since)
		*since = m->cpus[cpu].since;
	return m->cpus[cpu].cur;
}
