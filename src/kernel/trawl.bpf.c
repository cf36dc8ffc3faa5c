/* SPDX-License-Identifier: MIT */
/*
 * The kernel consumer's BPF programs (loaded by bpf.c): what LTTng-modules
 * records and the kernel's ftrace records lack, read at the tracepoint and
 * written to one BPF ring buffer that the consumer joins with the ftrace
 * records as it converts them.
 *
 *   sched_process_fork  the parent's and child's tgid, pid namespace inode
 *                       and the child's ids in each pid namespace (fork.c)
 *
 * The kernel structures are declared here with only the fields read, and
 * preserve_access_index: libbpf relocates each access to the running
 * kernel's layout from its BTF (CO-RE), so no kernel headers are needed to
 * build and the object runs on any kernel with BTF.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "kernel/bpf-records.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

struct ns_common {
	unsigned int inum;
} __attribute__((preserve_access_index));

struct pid_namespace {
	struct ns_common ns;
} __attribute__((preserve_access_index));

struct upid {
	int nr;
	struct pid_namespace *ns;
} __attribute__((preserve_access_index));

struct pid {
	unsigned int level;
	struct upid numbers[1];
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	struct pid *thread_pid;
} __attribute__((preserve_access_index));

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} trawl_rb SEC(".maps");

/* Records the ring buffer had no room for (the consumer reports them). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} trawl_lost SEC(".maps");

static __always_inline void count_lost(void)
{
	__u32 k = 0;
	__u64 *n = bpf_map_lookup_elem(&trawl_lost, &k);

	if (n)
		(*n)++;
}

/* task_active_pid_ns(t)->ns.inum, as LTTng's lttng_ns_inum */
static __always_inline __u32 pid_ns_inum(struct pid *p)
{
	unsigned int level = BPF_CORE_READ(p, level);

	if (level >= TRAWL_BPF_MAX_PID_NS)
		return 0;
	return BPF_CORE_READ(p, numbers[level].ns, ns.inum);
}

SEC("raw_tracepoint/sched_process_fork")
int trawl_fork(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx->args[0];
	struct task_struct *child = (struct task_struct *)ctx->args[1];
	struct trawl_bpf_fork *r;
	struct pid *cp;
	unsigned int level, i;

	r = bpf_ringbuf_reserve(&trawl_rb, sizeof(*r), 0);
	if (!r) {
		count_lost();
		return 0;
	}
	r->hdr.type = TRAWL_BPF_FORK;
	r->hdr.size = sizeof(*r);
	r->hdr.ts = bpf_ktime_get_ns();
	r->hdr.tid = (__u32)bpf_get_current_pid_tgid();
	r->child_tid = BPF_CORE_READ(child, pid);
	r->parent_pid = BPF_CORE_READ(parent, tgid);
	r->child_pid = BPF_CORE_READ(child, tgid);
	r->parent_ns = pid_ns_inum(BPF_CORE_READ(parent, thread_pid));
	cp = BPF_CORE_READ(child, thread_pid);
	r->child_ns = pid_ns_inum(cp);
	level = BPF_CORE_READ(cp, level);
	r->nvtids = 0;
	for (i = 0; i < TRAWL_BPF_MAX_PID_NS; i++) {
		if (i > level)
			break;
		r->vtids[i] = BPF_CORE_READ(cp, numbers[i].nr);
		r->nvtids = i + 1;
	}
	bpf_ringbuf_submit(r, 0);
	return 0;
}
