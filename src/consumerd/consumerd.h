/* SPDX-License-Identifier: MIT */
/* consumerd.h - the consumers trawl-consumerd dispatches to. */
#ifndef TRAWL_CONSUMERD_H
#define TRAWL_CONSUMERD_H

/* The user-space consumer: `trawl-consumerd --ust --fd N` (ust-consumer.c). */
int trawl_ust_consumer_main(int argc, char **argv);

#include <stdint.h>

/*
 * trawl_cons_sched_slice - asks the scheduler for time slices of @ns (0:
 * its default) for the calling thread and the threads it creates after
 * (sched.c says why). Its policy and nice value are kept; a real-time or
 * idle thread is left alone. Returns 0 (a kernel without slice requests
 * ignores them) or a negative errno.
 */
int trawl_cons_sched_slice(uint64_t ns);

/* The kernel consumer (kernel-consumer.c, over src/kernel's kernctl.h). */
/*
 * trawl_kernel_consumer_main - the kernel consumer process:
 *   trawl-consumerd --kernel --instance NAME --output DIR [--channel CH]
 *                   [--ctl-fd N] [--context pid,tid,procname,...] [--once]
 * reads every CPU's raw ring-buffer pages of instance NAME and writes
 * DIR/metadata, DIR/<CH>_<cpu> and DIR/index/<CH>_<cpu>.idx. Control on
 * --ctl-fd (a socket; stdin when absent): the byte 'F' makes it drain every
 * buffer to disk, write the metadata and answer 'K'; 'Q' (or EOF) drains and
 * exits. With --once it reads at most one buffer's worth of pages per CPU,
 * writes the trace and exits (snapshots). Returns the process exit code.
 */
int trawl_kernel_consumer_main(int argc, char **argv);

#endif /* TRAWL_CONSUMERD_H */
