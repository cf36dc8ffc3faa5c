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

enum { TRAWL_BPF_FORK = 1, TRAWL_BPF_SC_ENTER = 2, TRAWL_BPF_SC_EXIT = 3 };

/*
 * Per syscall number, what the sys_enter / sys_exit programs record (the
 * consumer sets these in the maps trawl_sc_enter / trawl_sc_exit for the
 * syscalls its channels trace): bit i (0..5) of the low byte: argument i is
 * a NUL-terminated user string; bit 8 + i: argument i points to two ints
 * (pipe2's fildes, socketpair's socket), read at exit; TRAWL_BPF_SC_ARGS:
 * record the arguments even without data (exit records carry the out
 * arguments LTTng lists there).
 */
#define TRAWL_BPF_SC_STR(i) (1u << (i))
#define TRAWL_BPF_SC_INT2(i) (1u << (8 + (i)))
#define TRAWL_BPF_SC_ARGS (1u << 16)
#define TRAWL_BPF_SC_NR_MAX 512
#define TRAWL_BPF_STR_MAX 4096     /* bytes of one string, NUL included (PATH_MAX) */
#define TRAWL_BPF_DATA_MAX 16384   /* bytes of all of a record's data */

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

/* A syscall's arguments and what they point to, at entry or at exit. */
struct trawl_bpf_sc {
	struct trawl_bpf_hdr hdr;
	__u32 nr;
	__s32 ret_lo;                  /* exit: the low 32 bits of the return value */
	__u64 args[6];
	__u16 len[6];                  /* bytes of data[] for argument i (0: none; strings with NUL) */
	__u16 pad;
	__u32 data_len;                /* bytes of data following the record, in argument order */
};

#endif /* TRAWL_KERNEL_BPF_RECORDS_H */
