/* SPDX-License-Identifier: MIT */
/*
 * sched.c - the user-space consumer asks the scheduler for a short time
 * slice, so that it runs soon after an app wakes it.
 *
 * Why: an app records into a ring buffer of a few MiB per CPU; at trawl's
 * speed one thread fills the default channel (4 MiB a CPU) in 6-8 ms. The
 * consumer, woken when a packet closes, must drain before the app laps it,
 * or the app drops events. On a busy 2-CPU machine it does not wait for the
 * CPU time it needs (1-2 ms for those 8 MiB) but for its turn: measured
 * with bpftrace at load ~18 (bench/ust/run.sh's 1-thread default channel),
 * 1.8 ms on average from its wake-up to running, 17 ms at most, and its
 * drains, preempted by the slices of every other runnable task, took 9.8 ms
 * on average and 147 ms at most; each drain left the buffer empty and every
 * closed packet woke it, so the discards were its lateness alone.
 *
 * The kernel's EEVDF scheduler (Linux 6.12 and later) takes a fair task's
 * sched_attr.sched_runtime as the slice it wants (0.1 to 100 ms; 0: the
 * default, sysctl base_slice, 1.4 ms on a 2-CPU machine). A shorter slice
 * gives earlier virtual deadlines: woken, the task preempts one with a
 * longer slice (PREEMPT_SHORT), and it gets its turns in smaller, more
 * frequent pieces. It gets no more CPU time than before (its weight, its
 * nice value, is unchanged), and no privilege is needed. Older kernels
 * accept the call and ignore the value.
 */
#include "consumerd/consumerd.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sched_attr (include/uapi/linux/sched/types.h),
 * version 1: its size travels in the first field. */
struct cons_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime; /* ns: a fair task's slice request */
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

#define CONS_SCHED_OTHER 0u
#define CONS_SCHED_BATCH 3u

int trawl_cons_sched_slice(uint64_t ns)
{
	struct cons_sched_attr a;

	memset(&a, 0, sizeof(a));
	/* What the thread has now (policy, nice), so that only the slice
	 * changes: sched_setattr() sets every field it is given. */
	if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof(a), 0))
		return -errno;
	if (a.sched_policy != CONS_SCHED_OTHER && a.sched_policy != CONS_SCHED_BATCH)
		return 0; /* real-time or idle: whoever chose that knew better */
	a.size = sizeof(a);
	a.sched_flags = 0;
	a.sched_runtime = ns;
	a.sched_deadline = a.sched_period = 0;
	/* (the utilisation clamps are only applied with their flags) */
	if (syscall(SYS_sched_setattr, 0, &a, 0))
		return -errno;
	return 0;
}
