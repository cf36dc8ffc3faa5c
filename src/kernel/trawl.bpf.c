/* SPDX-License-Identifier: MIT */
/*
 * The kernel consumer's BPF programs (loaded by bpf.c): what LTTng-modules
 * records and the kernel's ftrace records lack, read at the tracepoint and
 * written to one BPF ring buffer that the consumer joins with the ftrace
 * records as it converts them.
 *
 *   sched_process_fork  the parent's and child's tgid, pid namespace inode
 *                       and the child's ids in each pid namespace (fork.c)
 *   sys_enter, sys_exit for the syscalls the consumer marks in trawl_sc_enter
 *                       / trawl_sc_exit: the user strings, arrays and
 *                       structures (sockaddr, pollfd, epoll_event, fd_set)
 *                       their arguments point to, and the arguments
 *                       (syscalls.c, scdecode.c)
 *   sys_exit (again)    a thread's credentials when they changed since it
 *                       last left a syscall, and every fork's child's
 *                       (with the sched_process_fork record): what the
 *                       process trackers need (tracker.c)
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

struct pt_regs {
	unsigned long di, si, dx, r10, r8, r9, orig_ax;
} __attribute__((preserve_access_index));

typedef struct {
	unsigned int val;
} kuid_t;

typedef struct {
	unsigned int val;
} kgid_t;

struct uid_gid_extent {
	unsigned int first, lower_first, count;
} __attribute__((preserve_access_index));

struct uid_gid_map {
	unsigned int nr_extents;
	union {
		struct uid_gid_extent extent[5];
		struct {
			struct uid_gid_extent *forward;
			struct uid_gid_extent *reverse;
		};
	};
} __attribute__((preserve_access_index));

struct user_namespace {
	struct uid_gid_map uid_map;
	struct uid_gid_map gid_map;
} __attribute__((preserve_access_index));

struct cred {
	kuid_t uid;
	kgid_t gid;
	struct user_namespace *user_ns;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	struct pid *thread_pid;
	struct task_struct *group_leader;
	const struct cred *cred;
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

/*
 * The ids of a task as LTTng's trackers read them at each event
 * (lttng_current_uid() and friends): task_tgid_vnr(), and from the task's
 * subjective credentials (current_cred()) the real user and group ids,
 * in the root user namespace and mapped into the credentials' own
 * (from_kuid_munged(): 65534 when unmapped).
 */
struct ident_val {
	__u32 uid, gid, vuid, vgid;
};

#define UID_GID_MAP_MAX_BASE_EXTENTS 5
#define UID_GID_MAP_MAX_EXTENTS 340 /* the kernel's bound on a namespace's map */
#define OVERFLOW_ID 65534

/* map_id_up(): @id of the parent namespace as the map's namespace sees it. */
static __always_inline __u32 map_id_up(const struct uid_gid_map *map, __u32 id)
{
	unsigned int n = BPF_CORE_READ(map, nr_extents), i;
	const struct uid_gid_extent *e;
	__u32 first, lower, count;

	if (n <= UID_GID_MAP_MAX_BASE_EXTENTS) {
		for (i = 0; i < UID_GID_MAP_MAX_BASE_EXTENTS && i < n; i++) {
			first = BPF_CORE_READ(map, extent[i].first);
			lower = BPF_CORE_READ(map, extent[i].lower_first);
			count = BPF_CORE_READ(map, extent[i].count);
			if (id >= lower && id - lower < count)
				return first + (id - lower);
		}
		return OVERFLOW_ID;
	}
	e = BPF_CORE_READ(map, forward);
	for (i = 0; i < UID_GID_MAP_MAX_EXTENTS && i < n; i++) {
		first = BPF_CORE_READ(e + i, first);
		lower = BPF_CORE_READ(e + i, lower_first);
		count = BPF_CORE_READ(e + i, count);
		if (id >= lower && id - lower < count)
			return first + (id - lower);
	}
	return OVERFLOW_ID;
}

static __always_inline void task_ident(struct task_struct *t, struct ident_val *v)
{
	const struct cred *c = BPF_CORE_READ(t, cred);
	struct user_namespace *ns = BPF_CORE_READ(c, user_ns);

	v->uid = BPF_CORE_READ(c, uid.val);
	v->gid = BPF_CORE_READ(c, gid.val);
	v->vuid = map_id_up(&ns->uid_map, v->uid);
	v->vgid = map_id_up(&ns->gid_map, v->gid);
}

/* task_tgid_vnr(@t): its process's id in its own (active) pid namespace. */
static __always_inline __s32 task_vpid(struct task_struct *t)
{
	struct pid *p = BPF_CORE_READ(t, thread_pid);
	struct pid *lp = BPF_CORE_READ(t, group_leader, thread_pid);
	unsigned int level = BPF_CORE_READ(p, level);

	if (level >= TRAWL_BPF_MAX_PID_NS)
		return 0;
	return BPF_CORE_READ(lp, numbers[level].nr);
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
	{
		struct ident_val v;

		task_ident(child, &v);
		r->uid = v.uid;
		r->gid = v.gid;
		r->vuid = v.vuid;
		r->vgid = v.vgid;
		r->child_vpid = task_vpid(child);
	}
	bpf_ringbuf_submit(r, 0);
	return 0;
}

/*
 * The consumer's own process (set before loading): its reads of the trace
 * buffers are syscalls too, and their records would only be made to be
 * thrown away (the converter drops the consumer's own ftrace records, so
 * nothing ever took them: they filled its thread's queue in scaux.c).
 */
const volatile __u32 trawl_self_tgid = 0;

/* What to record per syscall number (bpf-records.h), set by the consumer. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRAWL_BPF_SC_NR_MAX);
	__type(key, __u32);
	__type(value, __u32);
} trawl_sc_enter SEC(".maps"), trawl_sc_exit SEC(".maps");

/* data has room for one more read past DATA_MAX, so a masked offset and length always fit */
struct sc_buf {
	struct trawl_bpf_sc r;
	__u8 data[TRAWL_BPF_DATA_MAX + 2 * TRAWL_BPF_STR_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sc_buf);
} trawl_sc_buf SEC(".maps");

/*
 * @off & (DATA_MAX - 1) in a way clang cannot drop: it knows off is already
 * below that, the verifier does not, and needs the mask to bound the write.
 */
static __always_inline __u32 bound_off(__u32 off)
{
	asm volatile("%0 &= 0x3fff" : "+r"(off));
	return off;
}

/* The same for a length already at most STR_MAX (4096): the verifier's bound is 8191. */
static __always_inline __u32 bound_len(__u32 n)
{
	asm volatile("%0 &= 0x1fff" : "+r"(n));
	return n;
}

static __always_inline __u64 sc_arg(struct pt_regs *regs, int i)
{
	switch (i) {
	case 0: return BPF_CORE_READ(regs, di);
	case 1: return BPF_CORE_READ(regs, si);
	case 2: return BPF_CORE_READ(regs, dx);
	case 3: return BPF_CORE_READ(regs, r10);
	case 4: return BPF_CORE_READ(regs, r8);
	default: return BPF_CORE_READ(regs, r9);
	}
}

/*
 * The bytes to read for argument @i under @rule (not strings), 0 for none:
 * the sizes LTTng-modules 2.13's overrides copy (syscalls_pointers_override.h),
 * so the consumer decodes the same values (scdecode.c). At most STR_MAX.
 */
static __always_inline __u32 sc_len(const __u64 *args, int i, __u32 rule, long ret, int at_exit)
{
	long n, m;

	switch (rule) {
	case TRAWL_BPF_RULE_INT2:
		return at_exit && ret >= 0 ? 8 : 0;
	case TRAWL_BPF_RULE_INT1:
		return 4;
	case TRAWL_BPF_RULE_SOCKADDR:
		return 28; /* sizeof(struct sockaddr_in6) */
	case TRAWL_BPF_RULE_POLLFDS:
		n = (long)(__u32)args[i < 5 ? i + 1 : 5]; /* nfds: unsigned int */
		if (at_exit && ret <= 0)
			return 0;
		return (__u32)(n > TRAWL_BPF_POLLFD_MAX ? TRAWL_BPF_POLLFD_MAX : n) * 8;
	case TRAWL_BPF_RULE_EPOLL:
		m = (long)(int)args[i < 5 ? i + 1 : 5]; /* maxevents */
		if (!at_exit || m <= 0 || ret <= 0 || ret > m)
			return 0;
		if (m > TRAWL_BPF_EPOLL_MAX)
			m = TRAWL_BPF_EPOLL_MAX;
		return (__u32)(ret > m ? m : ret) * 12;
	case TRAWL_BPF_RULE_EPEV:
		return at_exit ? 0 : 12;
	case TRAWL_BPF_RULE_FDSET:
		n = (long)(int)args[0];
		if (n <= 0 || n > 1024 || (at_exit && ret <= 0))
			return 0;
		return (((__u32)n + 63) / 64) * 8;
	default:
		return 0;
	}
}

/* Reads @n bytes of @src to @dst; for a sockaddr, 16 then 2 bytes when 28 fault. Returns the bytes read. */
static __always_inline long sc_read(__u8 *dst, __u32 n, const void *src, __u32 rule)
{
	if (!n)
		return 0;
	if (!bpf_probe_read_user(dst, bound_len(n), src))
		return n;
	if (rule != TRAWL_BPF_RULE_SOCKADDR)
		return 0;
	/* a sockaddr_in at the end of a mapping: 28 bytes fault where 16 do not */
	if (!bpf_probe_read_user(dst, 16, src))
		return 16;
	return bpf_probe_read_user(dst, 2, src) ? 0 : 2;
}

/*
 * One record: the arguments, then for each marked argument its data:
 * strings by bpf_probe_read_user_str (a fault, e.g. a page not yet touched,
 * gives an empty string, as LTTng's copy with page faults disabled does),
 * other data by sc_len()'s size (a fault: none). Returns 0.
 */
static __always_inline int sc_record(struct pt_regs *regs, __u32 nr, __u32 mask, __u16 type, long ret)
{
	__u32 k = 0, off = 0;
	struct sc_buf *b = bpf_map_lookup_elem(&trawl_sc_buf, &k);
	int i, at_exit = type == TRAWL_BPF_SC_EXIT;

	if (!b)
		return 0;
	b->r.hdr.type = type;
	b->r.hdr.ts = bpf_ktime_get_ns();
	b->r.hdr.tid = (__u32)bpf_get_current_pid_tgid();
	b->r.nr = nr;
	b->r.ret_lo = (__s32)ret;
	_Static_assert(TRAWL_BPF_DATA_MAX == 0x4000, "bound_off() masks with DATA_MAX - 1");
	_Static_assert(TRAWL_BPF_STR_MAX <= 0x1fff, "bound_len() masks with 0x1fff");
#pragma unroll
	for (i = 0; i < 6; i++)
		b->r.args[i] = sc_arg(regs, i);
#pragma unroll
	for (i = 0; i < 6; i++) {
		__u32 rule = (mask >> (4 * i)) & 0xf;
		long n = 0;

		b->r.len[i] = 0;
		if (!rule || off > TRAWL_BPF_DATA_MAX - TRAWL_BPF_STR_MAX)
			continue;
		/* the masks keep the verifier's bounds; the test above keeps the data whole */
		if (rule == TRAWL_BPF_RULE_STR) {
			n = bpf_probe_read_user_str(b->data + bound_off(off),
						    TRAWL_BPF_STR_MAX, (const void *)b->r.args[i]);
			if (n < 0)
				n = 0;
		} else {
			n = sc_read(b->data + bound_off(off), sc_len(b->r.args, i, rule, ret, at_exit),
				    (const void *)b->r.args[i], rule);
		}
		b->r.len[i] = (__u16)n;
		off += (__u32)n;
	}
	if (off > TRAWL_BPF_DATA_MAX)
		return 0;
	b->r.data_len = off;
	b->r.hdr.size = sizeof(b->r); /* the fixed part: data_len bytes follow */
	if (bpf_ringbuf_output(&trawl_rb, b, sizeof(b->r) + off, 0) < 0)
		count_lost();
	return 0;
}

SEC("raw_tracepoint/sys_enter")
int trawl_sys_enter(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 nr = (__u32)ctx->args[1];
	__u32 *mask;

	if (nr >= TRAWL_BPF_SC_NR_MAX || (__u32)(bpf_get_current_pid_tgid() >> 32) == trawl_self_tgid)
		return 0;
	mask = bpf_map_lookup_elem(&trawl_sc_enter, &nr);
	if (!mask || !*mask)
		return 0;
	return sc_record((struct pt_regs *)ctx->args[0], nr, *mask, TRAWL_BPF_SC_ENTER, 0);
}

SEC("raw_tracepoint/sys_exit")
int trawl_sys_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx->args[0];
	__u32 nr = (__u32)BPF_CORE_READ(regs, orig_ax);
	__u32 *mask;

	if (nr >= TRAWL_BPF_SC_NR_MAX || (__u32)(bpf_get_current_pid_tgid() >> 32) == trawl_self_tgid)
		return 0;
	mask = bpf_map_lookup_elem(&trawl_sc_exit, &nr);
	if (!mask || !*mask)
		return 0;
	return sc_record(regs, nr, *mask, TRAWL_BPF_SC_EXIT, (long)ctx->args[1]);
}

/*
 * What trawl_cred_exit last saw of each thread: its credentials' address
 * and their ids, in a direct-mapped table (slot: tid % CRED_SLOTS). An
 * array, because the verifier inlines an array lookup (no helper call):
 * with an LRU hash the program cost twice as much. Two live threads
 * sharing a slot (tids CRED_SLOTS apart) only make redundant records.
 */
#define CRED_SLOTS 65536

struct cred_seen {
	__u32 tid;
	__u32 pad;
	__u64 cred;
	struct ident_val v;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CRED_SLOTS);
	__type(key, __u32);
	__type(value, struct cred_seen);
} trawl_creds SEC(".maps");

/*
 * A thread's credentials change only inside a syscall (setuid and its
 * kind, unshare, setns; a fork's child is the fork record's), so looking
 * at each syscall's exit tells the trackers every change, at the time of
 * the exit. The kernel never changes a struct cred in place
 * (commit_creds() installs a new one), so the common case is one read of
 * the task's cred pointer and one map lookup; the ids are read only when
 * the pointer changed, and a record written only when they changed.
 * Attached only while a user or group tracker includes less than all
 * (bpf.c). Cost: see bpf.c.
 */
SEC("raw_tracepoint/sys_exit")
int trawl_cred_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u64 pt = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pt;
	__u32 slot = tid % CRED_SLOTS;
	struct cred_seen *old;
	struct ident_val v;
	__u64 cred;
	struct trawl_bpf_cred *r;

	(void)ctx;
	if ((__u32)(pt >> 32) == trawl_self_tgid)
		return 0;
	old = bpf_map_lookup_elem(&trawl_creds, &slot);
	if (!old)
		return 0;
	cred = (__u64)BPF_CORE_READ(t, cred);
	if (old->tid == tid && old->cred == cred)
		return 0;
	task_ident(t, &v);
	if (old->tid == tid && old->v.uid == v.uid && old->v.gid == v.gid &&
	    old->v.vuid == v.vuid && old->v.vgid == v.vgid) {
		old->cred = cred; /* new credentials, the same ids: nothing to tell */
		return 0;
	}
	r = bpf_ringbuf_reserve(&trawl_rb, sizeof(*r), 0);
	if (!r) {
		count_lost();
		old->tid = 0; /* told again at its next exit */
		return 0;
	}
	old->tid = tid;
	old->cred = cred;
	old->v = v;
	r->hdr.type = TRAWL_BPF_CRED;
	r->hdr.size = sizeof(*r);
	r->hdr.ts = bpf_ktime_get_ns();
	r->hdr.tid = tid;
	r->tgid = (__s32)(pt >> 32);
	r->vpid = task_vpid(t);
	r->uid = v.uid;
	r->gid = v.gid;
	r->vuid = v.vuid;
	r->vgid = v.vgid;
	bpf_ringbuf_submit(r, 0);
	return 0;
}
