/* SPDX-License-Identifier: MIT */
/*
 * The scheduler's events: sched_switch says exactly who ran on a CPU and
 * until when (CPU time, priorities, states); wake-ups and migrations are
 * counted per thread; fork, exec, exit and LTTng's state dump say which
 * thread belongs to which process, and its name.
 */
#include "top.h"

#include <string.h>

/* The one-letter state of `ps` for a prev_state value (TASK_REPORT bits). */
static char state_letter(int64_t prev_state)
{
	static const char letters[] = "SDTtXZPI";

	if (prev_state == 0)
		return 'R';	/* preempted: still runnable */
	for (int b = 0; b < 8; b++)
		if (prev_state & (1 << b))
			return letters[b];
	return '?';
}

static void set_name(struct trawl_top_model *m, struct trawl_top_thread *t, const char *comm)
{
	if (comm && comm[0] && strncmp(t->comm, comm, TRAWL_TOP_COMM_LEN - 1))
		trawl_top_model_set_comm(m, t, comm, strlen(comm));
}

void trawl_top_sched_switch(struct trawl_top_model *m, int64_t ts, int64_t cpu_nr,
			    int64_t prev_tid, const char *prev_comm, int64_t prev_prio,
			    int64_t prev_state, int64_t next_tid, const char *next_comm,
			    int64_t next_prio)
{
	struct trawl_top_cpu *cpu = trawl_top_model_cpu(m, cpu_nr);
	struct trawl_top_thread *prev, *next;

	if (!cpu)
		return;
	/*
	 * Before a CPU's first switch we do not know who ran; the first
	 * switch says it: prev ran since the interval began (or since the
	 * trace did), so charge it from there.
	 */
	if (ts > cpu->since) {
		uint64_t ns = (uint64_t)(ts - cpu->since);

		if (prev_tid > 0) {
			cpu->busy_ns += ns;
			prev = trawl_top_model_thread(m, prev_tid);
			if (prev)
				prev->n.cpu_ns += ns;
		}
		cpu->since = ts;
	}
	cpu->cur_tid = next_tid;
	if (prev_tid > 0 && (prev = trawl_top_model_thread(m, prev_tid))) {
		set_name(m, prev, prev_comm);
		prev->prio = prev_prio;
		prev->has_prio = 1;
		prev->state = state_letter(prev_state);
		prev->cpu = cpu_nr;
	}
	if (next_tid > 0 && (next = trawl_top_model_thread(m, next_tid))) {
		set_name(m, next, next_comm);
		next->prio = next_prio;
		next->has_prio = 1;
		next->state = 'R';
		next->n.switches++;
		next->cpu = cpu_nr;
	}
}

void trawl_top_sched_wakeup(struct trawl_top_model *m, int64_t tid, const char *comm,
			    int64_t prio)
{
	struct trawl_top_thread *t = trawl_top_model_thread(m, tid);

	if (!t || tid <= 0)
		return;
	set_name(m, t, comm);
	t->n.wakeups++;
	t->prio = prio;
	t->has_prio = 1;
	if (t->state != 'R')
		t->state = 'W';	/* woken, waiting for a CPU */
}

void trawl_top_sched_migrate(struct trawl_top_model *m, int64_t tid, const char *comm,
			     int64_t dest_cpu)
{
	struct trawl_top_thread *t = trawl_top_model_thread(m, tid);

	if (!t || tid <= 0)
		return;
	set_name(m, t, comm);
	t->n.migrations++;
	t->cpu = dest_cpu;
}

static void copy_fds(struct trawl_top_proc *from, struct trawl_top_proc *to)
{
	TRAWL_TOP_MAP_FOREACH(&from->fds, i)
		trawl_top_map_put(&to->fds, from->fds.keys[i], from->fds.vals[i]);
}

void trawl_top_sched_fork(struct trawl_top_model *m, int64_t parent_tid, int64_t parent_pid,
			  int64_t child_tid, int64_t child_pid, const char *child_comm)
{
	struct trawl_top_thread *parent = trawl_top_model_thread(m, parent_tid);
	struct trawl_top_thread *child = trawl_top_model_thread(m, child_tid);
	struct trawl_top_proc *pp, *cp;

	if (!parent || !child)
		return;
	if (parent_pid > 0)
		trawl_top_model_set_pid(m, parent, parent_pid);
	/* ftrace's sched_process_fork has no tgid: the child is then its own process */
	if (child_pid > 0)
		trawl_top_model_set_pid(m, child, child_pid);
	set_name(m, child, child_comm);
	if (child->pid != parent->pid) {
		/* a new process starts with a copy of its parent's files */
		pp = trawl_top_model_proc(m, parent->pid);
		cp = trawl_top_model_proc(m, child->pid);
		if (pp && cp)
			copy_fds(pp, cp);
	}
}

void trawl_top_sched_exec(struct trawl_top_model *m, int64_t tid, const char *filename)
{
	struct trawl_top_thread *t = trawl_top_model_thread(m, tid);
	const char *base;

	if (!t || !filename || !filename[0])
		return;
	base = strrchr(filename, '/');
	base = base ? base + 1 : filename;
	trawl_top_model_set_comm(m, t, base, strlen(base));
}

void trawl_top_sched_exit(struct trawl_top_model *m, int64_t tid)
{
	struct trawl_top_thread *t = trawl_top_model_thread(m, tid);

	if (t) {
		t->exited = 1;
		t->state = 'Z';
	}
}

void trawl_top_statedump_process(struct trawl_top_model *m, int64_t tid, int64_t pid,
				 const char *name)
{
	struct trawl_top_thread *t = trawl_top_model_thread(m, tid);

	if (!t)
		return;
	trawl_top_model_set_pid(m, t, pid);
	set_name(m, t, name);
}
