/* SPDX-License-Identifier: MIT */
/*
 * The model's entities: threads, processes, CPUs, and the interval they are
 * counted over. Threads and processes live as long as the model (their
 * names, fd tables and pending system calls carry over from one interval
 * to the next); only their counters start again at each interval.
 */
#include "top.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int trawl_top_model_init(struct trawl_top_model *m)
{
	memset(m, 0, sizeof(*m));
	return 0;
}

static void free_proc(void *p)
{
	struct trawl_top_proc *pr = p;

	trawl_top_map_fini(&pr->fds, NULL);
	free(pr);
}

static void free_sc(void *p)
{
	struct trawl_top_sc *sc = p;

	trawl_top_samples_fini(&sc->lat);
	free(sc);
}

void trawl_top_model_fini(struct trawl_top_model *m)
{
	trawl_top_map_fini(&m->threads, free);
	trawl_top_map_fini(&m->procs, free_proc);
	trawl_top_map_fini(&m->scs, free_sc);
	trawl_top_map_fini(&m->files, free);
	trawl_top_map_fini(&m->usts, free);
	trawl_top_map_fini(&m->perf_last, NULL);
	trawl_top_intern_fini(&m->names);
	free(m->cpus);
	memset(m, 0, sizeof(*m));
}

/*
 * A call's row at a new interval: counted again from zero, keeping its
 * latency array (the same calls come back each interval: no allocation,
 * no page faulted in again); a row of the interval before that had no
 * call goes.
 */
static int sc_keep(void *val, void *arg)
{
	struct trawl_top_sc *sc = val;

	(void)arg;
	if (!sc->count) {
		free_sc(sc);
		return 0;
	}
	sc->count = sc->errors = sc->total_ns = sc->max_ns = 0;
	sc->min_ns = UINT64_MAX;
	trawl_top_samples_reset(&sc->lat);
	return 1;
}

void trawl_top_model_interval_begin(struct trawl_top_model *m, int64_t begin, int64_t end)
{
	int64_t ret;

	m->begin = begin;
	m->end = end;
	m->events = 0;
	m->discarded = 0;
	TRAWL_TOP_MAP_FOREACH(&m->threads, i) {
		struct trawl_top_thread *t = m->threads.vals[i];

		memset(&t->n, 0, sizeof(t->n));
	}
	TRAWL_TOP_MAP_FOREACH(&m->procs, i) {
		struct trawl_top_proc *p = m->procs.vals[i];

		memset(&p->n, 0, sizeof(p->n));
		p->threads_seen = 0;
	}
	/* Calls, files and events are the interval's alone (a row without calls is not shown). */
	ret = trawl_top_map_prune(&m->scs, sc_keep, NULL);
	if (ret < 0)
		trawl_top_map_fini(&m->scs, free_sc);
	if (ret)
		m->sc_gen++;	/* threads may point to the rows gone */
	trawl_top_map_fini(&m->files, free);
	trawl_top_map_fini(&m->usts, free);
	for (size_t c = 0; c < m->ncpus; c++) {
		m->cpus[c].busy_ns = 0;
		m->cpus[c].since = begin;
	}
}

/* Charges @tid with [since, until) on @cpu. */
static void charge(struct trawl_top_model *m, struct trawl_top_cpu *cpu, int64_t tid,
		   int64_t until)
{
	struct trawl_top_thread *t;
	uint64_t ns;

	if (until <= cpu->since)
		return;
	ns = (uint64_t)(until - cpu->since);
	cpu->since = until;
	if (tid <= 0)
		return;	/* the idle task (swapper) is not busy time */
	cpu->busy_ns += ns;
	t = trawl_top_model_thread(m, tid);
	if (t)
		t->n.cpu_ns += ns;
}

void trawl_top_model_interval_end(struct trawl_top_model *m)
{
	for (size_t c = 0; c < m->ncpus; c++) {
		struct trawl_top_cpu *cpu = &m->cpus[c];

		if (cpu->cur_tid >= 0)
			charge(m, cpu, cpu->cur_tid, m->end);
	}
	trawl_top_sys_interval_end(m);	/* no memory: some latencies are not in the sums */
	/* A process's counters are its threads' sums. */
	TRAWL_TOP_MAP_FOREACH(&m->threads, i) {
		struct trawl_top_thread *t = m->threads.vals[i];
		struct trawl_top_proc *p;

		if (!t->n.cpu_ns && !t->n.events && !t->n.wakeups)
			continue;
		p = trawl_top_model_proc_of(m, t);
		if (!p)
			continue;
		p->threads_seen++;
		p->n.cpu_ns += t->n.cpu_ns;
		p->n.wakeups += t->n.wakeups;
		p->n.migrations += t->n.migrations;
		p->n.switches += t->n.switches;
		p->n.syscalls += t->n.syscalls;
		p->n.syscall_errors += t->n.syscall_errors;
		p->n.read_bytes += t->n.read_bytes;
		p->n.write_bytes += t->n.write_bytes;
		p->n.events += t->n.events;
		for (size_t k = 0; k < TRAWL_TOP_MAX_PERF; k++)
			p->n.perf[k] += t->n.perf[k];
	}
}

void trawl_top_model_forget_cpus(struct trawl_top_model *m)
{
	for (size_t c = 0; c < m->ncpus; c++)
		m->cpus[c].cur_tid = -1;
	TRAWL_TOP_MAP_FOREACH(&m->threads, i) {
		struct trawl_top_thread *t = m->threads.vals[i];

		t->sc_pending = 0;	/* its exit may be far behind or ahead */
	}
	trawl_top_map_fini(&m->perf_last, NULL);
}

struct trawl_top_thread *trawl_top_model_thread_slow(struct trawl_top_model *m, int64_t tid)
{
	struct trawl_top_thread *t = trawl_top_map_get(&m->threads, (uint64_t)tid);

	if (t) {
		m->tcache[(uint64_t)tid & 255] = t;	/* threads live as long as the model */
		return t;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->pid = tid;
	t->cpu = -1;
	t->state = '?';
	t->sc_fd = t->sc_fd2 = t->sc_path = -1;
	if (trawl_top_map_put(&m->threads, (uint64_t)tid, t) < 0) {
		free(t);
		return NULL;
	}
	m->tcache[(uint64_t)tid & 255] = t;
	return t;
}

struct trawl_top_proc *trawl_top_model_proc(struct trawl_top_model *m, int64_t pid)
{
	struct trawl_top_proc *p = trawl_top_map_get(&m->procs, (uint64_t)pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	if (trawl_top_map_put(&m->procs, (uint64_t)pid, p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

struct trawl_top_proc *trawl_top_model_proc_of_slow(struct trawl_top_model *m,
						    struct trawl_top_thread *t)
{
	struct trawl_top_proc *p = t->proc;

	if (!p || t->proc_gen != m->proc_gen || p->pid != t->pid) {
		p = trawl_top_model_proc(m, t->pid);
		t->proc = p;
		t->proc_gen = m->proc_gen;
	}
	if (p && !p->comm_known && !p->comm[0] && t->comm[0])
		memcpy(p->comm, t->comm, sizeof(p->comm));
	return p;
}

struct trawl_top_cpu *trawl_top_model_cpu(struct trawl_top_model *m, int64_t cpu)
{
	if (cpu < 0 || cpu >= 65536)
		return NULL;	/* a CPU number no machine has: hostile or broken */
	if ((size_t)cpu >= m->ncpus) {
		size_t n = (size_t)cpu + 1;
		struct trawl_top_cpu *cpus = realloc(m->cpus, n * sizeof(*cpus));

		if (!cpus)
			return NULL;
		for (size_t c = m->ncpus; c < n; c++) {
			memset(&cpus[c], 0, sizeof(cpus[c]));
			cpus[c].cur_tid = -1;
			cpus[c].since = m->begin;
		}
		m->cpus = cpus;
		m->ncpus = n;
	}
	m->cpus[cpu].seen = 1;
	return &m->cpus[cpu];
}

int trawl_top_model_set_pid(struct trawl_top_model *m, struct trawl_top_thread *t, int64_t pid)
{
	if (pid <= 0 || t->pid == pid)
		return 0;
	t->pid = pid;
	if (t->tid != pid) {
		/* a thread: the "process" of its own tid was a guess; drop it if empty */
		struct trawl_top_proc *own = trawl_top_map_get(&m->procs, (uint64_t)t->tid);

		if (own && !own->fds.len && !own->n.cpu_ns && !own->comm_known) {
			free_proc(trawl_top_map_del(&m->procs, (uint64_t)t->tid));
			m->proc_gen++;	/* threads may point to it */
		}
	}
	return trawl_top_model_proc(m, pid) ? 0 : -ENOMEM;
}

void trawl_top_model_set_comm(struct trawl_top_model *m, struct trawl_top_thread *t,
			      const char *comm, size_t len)
{
	if (len >= TRAWL_TOP_COMM_LEN)
		len = TRAWL_TOP_COMM_LEN - 1;
	memcpy(t->comm, comm, len);
	/* NUL-padded: source.c compares a procname context with it as bytes */
	memset(t->comm + len, 0, TRAWL_TOP_COMM_LEN - len);
	if (t->tid == t->pid) {
		struct trawl_top_proc *p = trawl_top_model_proc(m, t->pid);

		if (p) {
			memcpy(p->comm, t->comm, sizeof(p->comm));
			p->comm_known = 1;
		}
	}
}

int trawl_top_model_perf_index(struct trawl_top_model *m, const char *name)
{
	int64_t id;

	for (size_t i = 0; i < m->nperf; i++)
		if (!strcmp(m->perf_names[i], name))
			return (int)i;
	if (m->nperf == TRAWL_TOP_MAX_PERF)
		return -1;
	id = trawl_top_intern_id(&m->names, name, strlen(name));
	if (id < 0)
		return -1;
	m->perf_names[m->nperf] = trawl_top_intern_str(&m->names, (uint32_t)id);
	return (int)m->nperf++;
}

void trawl_top_model_perf_value(struct trawl_top_model *m, struct trawl_top_thread *t,
				int64_t cpu, size_t idx, uint64_t value)
{
	/*
	 * perf:cpu:* counters count for the whole CPU: the increase since the
	 * CPU's previous event belongs to the thread running now. perf:thread:*
	 * counters follow their thread: the increase since its previous event.
	 */
	int per_thread = !strncmp(m->perf_names[idx], "perf_thread_", 12);
	uint64_t who = per_thread ? (uint64_t)t->tid : (uint64_t)cpu;
	uint64_t key = ((uint64_t)idx << 56) | (who & 0x00ffffffffffffffull);
	uintptr_t last = (uintptr_t)trawl_top_map_get(&m->perf_last, key);

	/* values are stored + 1 so that 0 is a value, not an empty slot */
	if (last && value >= last - 1)
		t->n.perf[idx] += value - (last - 1);
	trawl_top_map_put(&m->perf_last, key, (void *)(uintptr_t)(value + 1));
}
