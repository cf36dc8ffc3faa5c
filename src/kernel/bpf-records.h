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

enum { TRAWL_BPF_FORK = 1, TRAWL_BPF_SC_ENTER = 2, TRAWL_BPF_SC_EXIT = 3, TRAWL_BPF_CRED = 4 };

/*
 * Per syscall number, what the sys_enter / sys_exit programs record (the
 * consumer sets these in the maps trawl_sc_enter / trawl_sc_exit for the
 * syscalls its channels trace): bits 4i..4i+3 say what argument i points to
 * (TRAWL_BPF_RULE_*, 0: nothing); TRAWL_BPF_SC_ARGS: record the arguments
 * even without data (exit records carry the out arguments LTTng lists there).
 */
enum {
	TRAWL_BPF_RULE_STR = 1,     /* a NUL-terminated user string */
	TRAWL_BPF_RULE_INT2 = 2,    /* two ints, read at exit if ret >= 0 (pipe2's fildes) */
	TRAWL_BPF_RULE_INT1 = 3,    /* one int (accept's *upeer_addrlen) */
	TRAWL_BPF_RULE_SOCKADDR = 4, /* a struct sockaddr: 28 bytes, else 16, else 2 */
	TRAWL_BPF_RULE_POLLFDS = 5, /* struct pollfd[argument i + 1], at most 512 (LTTng's page) */
	TRAWL_BPF_RULE_EPOLL = 6,   /* exit: struct epoll_event[min(ret, argument i + 1, 341)] */
	TRAWL_BPF_RULE_FDSET = 7,   /* an fd_set of argument 0 fds, in longs (select's n <= 1024) */
	TRAWL_BPF_RULE_EPEV = 8,    /* entry: one struct epoll_event (12 bytes, packed: epoll_ctl's) */
};
#define TRAWL_BPF_SC_RULE(i, r) ((__u32)(r) << (4 * (i)))
#define TRAWL_BPF_SC_STR(i) TRAWL_BPF_SC_RULE(i, TRAWL_BPF_RULE_STR)
#define TRAWL_BPF_SC_INT2(i) TRAWL_BPF_SC_RULE(i, TRAWL_BPF_RULE_INT2)
#define TRAWL_BPF_SC_ARGS (1u << 24)
#define TRAWL_BPF_POLLFD_MAX 512   /* PAGE_SIZE / sizeof(struct pollfd), as LTTng caps */
#define TRAWL_BPF_EPOLL_MAX 341    /* PAGE_SIZE / sizeof(struct epoll_event) (12, packed) */
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
	/* What the process trackers look at (tracker.c), as LTTng reads them
	 * at each event: the child's process id in its own pid namespace,
	 * its real user and group ids in the root user namespace and in its
	 * own (65534, the overflow id, when unmapped there). */
	__s32 child_vpid;
	__u32 uid, gid, vuid, vgid;
};

/*
 * A thread's credentials changed (or were first seen) at a syscall's exit:
 * written by the sys_exit credential program (trawl_cred_exit) only when
 * they differ from what it last saw of the thread, for the trackers.
 */
struct trawl_bpf_cred {
	struct trawl_bpf_hdr hdr;
	__s32 tgid, vpid;
	__u32 uid, gid, vuid, vgid;
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
