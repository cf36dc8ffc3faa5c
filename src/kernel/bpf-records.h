/* SPDX-License-Identifier: MIT */
/*
 * The records trawl.bpf.c writes to its ring buffer and bpf.c reads: shared
 * by the BPF program (built for the BPF target) and the consumer, so fixed
 * width types only. Every record starts with struct trawl_bpf_hdr.
 */
#ifndef TRAWL_KERNEL_BPF_RECORDS_H
#define TRAWL_KERNEL_BPF_RECORDS_H

#include <linux/types.h>

#define TRAWL_BPF_MAX_PID_NS 32

enum { TRAWL_BPF_FORK = 1 };

struct trawl_bpf_hdr {
	__u16 type;        /* TRAWL_BPF_* */
	__u16 size;        /* bytes of the whole record */
	__u32 tid;         /* the thread that hit the tracepoint */
	__u64 ts;          /* bpf_ktime_get_ns(): CLOCK_MONOTONIC, the trace clock */
};

struct trawl_bpf_fork {
	struct trawl_bpf_hdr hdr;
	__s32 child_tid;
	__s32 parent_pid, child_pid;   /* tgids */
	__u32 parent_ns, child_ns;     /* pid namespace inodes */
	__u32 nvtids;
	__s32 vtids[TRAWL_BPF_MAX_PID_NS]; /* the child's id in each namespace, root first */
};

#endif /* TRAWL_KERNEL_BPF_RECORDS_H */
