/* SPDX-License-Identifier: MIT */
/*
 * kernctl.h: what the kernel consumer (src/consumerd/kernel-*.c) uses to
 * read a session's kernel buffers and turn them into CTF, as ustctl.h is
 * what the daemons use to operate an app's buffers. The consumer runs as
 * root and everything it reads here (pages, perf rings, BPF records) was
 * written by the kernel on behalf of any process: the converters treat it
 * as untrusted (fuzzed in fuzz/kernel/).
 *
 * The session side (tracefs instances, probes, the consumer process as a
 * child) is kernel.h; the rest of src/kernel is private (internal.h).
 */
#ifndef TRAWL_KERNEL_KERNCTL_H
#define TRAWL_KERNEL_KERNCTL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/kernel.h"

struct trawl_kernel_instance;

/* The tracefs path of @rel ("instances/NAME/..."), in @buf of @len bytes: 0 or a negative errno. */
int trawl_kernel_path(char *buf, size_t len, const char *rel);

/*
 * The threads of trawl's own processes, whose records the consumer drops
 * (notrace.c): sorted tids. _collect() takes them again (as seen from the
 * consumer: itself, its executable's and its parent's processes; none with
 * TRAWL_KERNEL_NOTRACE=off); 0 or a negative errno (then the set is empty).
 */
struct trawl_kernel_hidden {
	int32_t *tids;
	uint32_t n;
	size_t cap;
};
int trawl_kernel_hidden_collect(struct trawl_kernel_hidden *h);
int trawl_kernel_hidden_has(const struct trawl_kernel_hidden *h, int32_t tid);
void trawl_kernel_hidden_free(struct trawl_kernel_hidden *h);

/*
 * The consumer's refresher (refresh.c): a thread that every second runs
 * @update(@arg) (may be NULL) and collects a new hidden set, off the thread
 * that drains the buffers. _take() swaps a set collected since the last call
 * into @h (freeing @h's old tids): 1 if it did, 0 if nothing new; called by
 * one thread only. _create(): 0 or a negative errno; the caller owns *@out
 * and ends the thread with _destroy() before freeing what @update touches.
 */
struct trawl_kernel_refresher;
int trawl_kernel_refresher_create(void (*update)(void *arg), void *arg,
				  struct trawl_kernel_refresher **out);
int trawl_kernel_refresher_take(struct trawl_kernel_refresher *r, struct trawl_kernel_hidden *h);
void trawl_kernel_refresher_destroy(struct trawl_kernel_refresher *r);

/* ---- event formats (format.c) ------------------------------------------ */

enum trawl_kernel_field_kind {
	TRAWL_KF_INT,        /* integer, ctf_size bytes (syscall args narrowed to their C type) */
	TRAWL_KF_HEX,        /* pointer: unsigned, printed in hex */
	TRAWL_KF_TEXT,       /* char name[N]: text array of N bytes */
	TRAWL_KF_ARRAY,      /* type name[N]: N integers of size/N bytes */
	TRAWL_KF_STRING,     /* __data_loc char[]: NUL-terminated string */
	TRAWL_KF_BYTES,      /* __data_loc other[]: u32 length + bytes */
	TRAWL_KF_SEQ_I32,    /* u8 length + that many s32 (sched_process_fork's vtids) */
	TRAWL_KF_DECODED,    /* a syscall structure LTTng decodes: its CTF type by xform (scdecode.c) */
};

/*
 * How an output field is made from its source (layout.c): most are copied
 * (integers narrowed or widened to LTTng's type), a few are derived.
 */
enum trawl_kernel_xform {
	TRAWL_KX_COPY,       /* the source field, converted to the output type */
	TRAWL_KX_PRIO,       /* kernel prio - MAX_RT_PRIO (100), as LTTng records prio */
	TRAWL_KX_RWBS,       /* block's rwbs text ("WS", "RA", ...) -> LTTng's RWBS_FLAG_* bits */
	/* sched_process_fork's fields that its ftrace record lacks (fork.c) */
	TRAWL_KX_FORK_PARENT_PID, TRAWL_KX_FORK_PARENT_NS, TRAWL_KX_FORK_VTIDS,
	TRAWL_KX_FORK_CHILD_PID, TRAWL_KX_FORK_CHILD_NS,
	/* syscall fields from trawl's BPF records (syscalls.c, scaux.c); sc_arg says which argument */
	TRAWL_KX_SC_STR,     /* the user string argument sc_arg points to */
	TRAWL_KX_SC_ARG,     /* argument sc_arg as BPF read it (exit fields) */
	TRAWL_KX_SC_INT2,    /* the two ints argument sc_arg points to, read at exit */
	/*
	 * Structures LTTng's overrides decode (scdecode.c), from the data BPF
	 * read at argument sc_arg; sc_aux: the argument holding their count or
	 * length (| TRAWL_KX_AUX_PTR: the int it points to, from BPF's data).
	 */
	TRAWL_KX_SC_INT1,    /* the int argument sc_arg points to (accept's upeer_addrlen) */
	TRAWL_KX_SC_ZERO,    /* 0 (select's overflow, which LTTng can never set) */
	TRAWL_KX_SA_FAMILY, TRAWL_KX_SA_PORT, TRAWL_KX_SA_V4LEN, TRAWL_KX_SA_V4,
	TRAWL_KX_SA_V6LEN, TRAWL_KX_SA_V6,
	TRAWL_KX_POLL_LEN, TRAWL_KX_POLL_OVF, TRAWL_KX_POLL_FDS,             /* at entry */
	TRAWL_KX_POLL_LEN_OUT, TRAWL_KX_POLL_OVF_OUT, TRAWL_KX_POLL_FDS_OUT, /* at exit */
	TRAWL_KX_EPOLL_LEN, TRAWL_KX_EPOLL_OVF, TRAWL_KX_EPOLL_FDS,
	TRAWL_KX_FDSET_LEN, TRAWL_KX_FDSET,
	TRAWL_KX_EPOLL_OP, TRAWL_KX_EPOLL_EVENT, /* epoll_ctl's op_enum and event */
};
#define TRAWL_KX_AUX_PTR 0x80

/*
 * One field of an event as trawl's trace holds it (LTTng's name, type and
 * order, layout.c), with where its value comes from in the ftrace record.
 */
struct trawl_kernel_field {
	char name[64];
	uint16_t offset;     /* bytes, in the ftrace record (common header included): the source */
	uint16_t size;       /* bytes of the source in the ftrace record */
	uint16_t ctf_size;   /* bytes of an integer (or of one element) in the CTF event */
	uint16_t count;      /* elements of an array */
	uint8_t kind;        /* enum trawl_kernel_field_kind: the output */
	uint8_t is_signed;
	uint8_t rel_loc;     /* __rel_loc: offset counts from the end of the field */
	uint8_t src_kind;    /* enum trawl_kernel_field_kind of the source */
	uint8_t src_signed;
	uint8_t xform;       /* enum trawl_kernel_xform */
	uint8_t big_endian;  /* LTTng's ctf_integer_network: the bytes are in network order */
	uint8_t sc_arg;      /* TRAWL_KX_SC_*: the syscall argument (0..5) */
	uint8_t sc_aux;      /* TRAWL_KX_SA_* .. FDSET: see enum trawl_kernel_xform */
};

/* How one op of the plan writes its bytes. */
enum trawl_kernel_op_kind {
	TRAWL_KOP_COPY,      /* len bytes copied (consecutive fixed fields merged) */
	TRAWL_KOP_INT,       /* an integer of len bytes -> dst bytes (sign- or zero-extended), + add */
	TRAWL_KOP_STRING,    /* __data_loc string -> NUL-terminated */
	TRAWL_KOP_BYTES,     /* __data_loc bytes -> u32 length + bytes */
	TRAWL_KOP_TEXT2STR,  /* char[len] -> NUL-terminated string */
	TRAWL_KOP_STR2TEXT,  /* __data_loc string -> char[dst], NUL-padded */
	TRAWL_KOP_RWBS,      /* char[len] rwbs -> u32 flags */
	TRAWL_KOP_FORK,      /* a sched_process_fork field from fork.c (xform says which) */
	TRAWL_KOP_SC,        /* a syscall field from BPF (xform, arg say which; dst: integer bytes) */
};

/* One step of converting a record to a CTF payload. */
struct trawl_kernel_op {
	uint8_t kind;        /* enum trawl_kernel_op_kind */
	uint8_t rel_loc;
	uint8_t is_signed;   /* KOP_INT: the source is signed */
	uint8_t xform;       /* KOP_FORK, KOP_SC: which field */
	uint8_t arg;         /* KOP_SC: the syscall argument */
	uint8_t aux;         /* KOP_SC: the field's sc_aux */
	int16_t add;         /* KOP_INT: added to the value */
	uint16_t src;        /* bytes into the record */
	uint16_t len;        /* bytes read (4 for a data_loc word) */
	uint16_t dst;        /* bytes written by KOP_INT and KOP_STR2TEXT */
};

enum { TRAWL_KHOOK_NONE, TRAWL_KHOOK_EXEC, TRAWL_KHOOK_COMM, TRAWL_KHOOK_SWITCH };

struct trawl_kernel_event {
	uint16_t ftrace_id;
	char system[64];
	char name[128];
	char ctf_name[192];
	int nfields;
	struct trawl_kernel_field *fields;  /* owned */
	int nops;
	struct trawl_kernel_op *ops;        /* owned */
	uint32_t min_len;                   /* record bytes the fixed fields need */
	/*
	 * Events that tell which name a thread has (exec, fork, sched_switch,
	 * task_rename) keep the task cache of the procname context fresh:
	 * hook says which, hook_off[] are the record offsets of its fields.
	 */
	uint8_t hook;
	uint8_t hook_loc;                   /* bit i: hook_off[i] is a __data_loc string */
	uint16_t hook_off[4];
	/*
	 * The record offsets of the s32 thread ids the event is about besides
	 * the current task's (a wakeup's wakee, a switch's prev and next, a
	 * fork's child): trawl's own records are dropped only when none of
	 * these is another program's (notrace.c).
	 */
	uint8_t nsubj;
	uint16_t subj_off[4];
	/* syscalls (syscalls.c): TRAWL_BPF_SC_ENTER/EXIT, string and int[2] arguments */
	uint16_t sc_dir;
	uint8_t sc_strmask, sc_int2mask;
	uint8_t sc_need_exit;               /* exit fields beyond ret: BPF records args at exit */
	uint8_t sc_has_ops;                 /* the plan has TRAWL_KOP_SC ops */
	uint8_t never_hidden;               /* trawl's own record by nature (the state dump) */
	int64_t ctf_id;                     /* -1 until the converter assigns one */
#define TRAWL_KERNEL_CTF_ID_BAD (-2)        /* its class could not be declared: skipped */
};

struct trawl_kernel_bpf;
#define TRAWL_KERNEL_SC_NR_MAX 512 /* = TRAWL_BPF_SC_NR_MAX (bpf-records.h) */
/* The consumer's record of the BPF syscall maps (zeroed at first). */
struct trawl_kernel_sc_bpf {
	uint64_t set[TRAWL_KERNEL_SC_NR_MAX];   /* what the maps hold: enter mask << 32 | exit mask */
	uint64_t masks[TRAWL_KERNEL_SC_NR_MAX]; /* the syscall's masks, same layout, once known */
	uint8_t known[TRAWL_KERNEL_SC_NR_MAX];  /* masks[] computed (from its format file) */
};
/*
 * Sets the BPF syscall maps for the syscalls the @n instances
 * ("instances/NAME") trace now. Returns the syscalls changed or -EIO.
 */
int trawl_kernel_syscall_bpf_update(struct trawl_kernel_bpf *b, const char *const *instances, int n,
				    struct trawl_kernel_sc_bpf *state);
/* BPF syscall records waiting for their ftrace records (scaux.c). */
struct trawl_kernel_scaux;
int trawl_kernel_scaux_create(struct trawl_kernel_scaux **out);
void trawl_kernel_scaux_destroy(struct trawl_kernel_scaux *s);
/* One record as trawl.bpf.c wrote it (struct trawl_bpf_sc + data), checked. */
void trawl_kernel_scaux_add(struct trawl_kernel_scaux *s, const void *data, size_t len);
/* The BPF record that completes a syscall record, handed over (found = 0 if none). */
struct trawl_kernel_scinfo {
	int found;
	uint64_t args[6];
	uint16_t len[6];
	int64_t ret;     /* exit: the return value (its low 32 bits, sign-extended) */
	uint8_t *data;   /* owned: trawl_kernel_scinfo_fini() */
};
struct trawl_kernel_converter;
void trawl_kernel_scaux_take(struct trawl_kernel_converter *c, const struct trawl_kernel_event *ev,
			     const uint8_t *rec, uint32_t len, uint64_t ts, struct trawl_kernel_scinfo *out);
void trawl_kernel_scinfo_fini(struct trawl_kernel_scinfo *info);
/* The bytes BPF read for argument @arg (NULL, *@len 0 if none). */
const uint8_t *trawl_kernel_scinfo_arg_data(const struct trawl_kernel_scinfo *info, int arg, uint32_t *len);
/*
 * A decoded syscall field (TRAWL_KX_SC_INT1 and after, scdecode-data.c) of
 * BPF's record @sc at @o; returns the end. Writes at most twice the bytes
 * of @sc's data, or TRAWL_KERNEL_OP_MAX_OUT.
 */
uint8_t *trawl_kernel_scdecode_write(const struct trawl_kernel_op *op, const struct trawl_kernel_scinfo *sc,
				     uint8_t *o);
struct trawl_ctf_type;
/* The CTF type of a TRAWL_KF_DECODED field, as LTTng declares it (NULL: no memory). */
struct trawl_ctf_type *trawl_kernel_scdecode_type(const struct trawl_kernel_field *f);

/* The id -> event table of one instance's tracepoints, loaded on demand. */
struct trawl_kernel_events;
int trawl_kernel_events_create(const char *instance_path, struct trawl_kernel_events **out);
void trawl_kernel_events_destroy(struct trawl_kernel_events *t);
/*
 * Puts an already parsed event in the table (tests, fuzzing): @ev becomes the
 * table's. With @no_scan the table never reads tracefs for unknown ids.
 */
int trawl_kernel_events_add(struct trawl_kernel_events *t, struct trawl_kernel_event *ev, int no_scan);
/* The event with ftrace id @id, parsed on first use; NULL if unknown. */
struct trawl_kernel_event *trawl_kernel_events_get(struct trawl_kernel_events *t, uint16_t id);

/* ---- sched_process_fork's missing fields (fork.c) ------------------------ */

#define TRAWL_KERNEL_MAX_PID_NS 32          /* vtids kept, as LTTng's LTTNG_MAX_PID_NS_LEVEL */
/* Most bytes one op writes beyond the record bytes it reads (vtids: 1 + 4 * 32). */
#define TRAWL_KERNEL_OP_MAX_OUT 160u

/*
 * What LTTng's sched_process_fork records and the kernel's ftrace record
 * lacks: the parent's and child's process ids (tgid), the inode of their
 * active pid namespaces, and the child's thread id in each pid namespace
 * from the root down (vtids).
 */
struct trawl_kernel_fork_info {
	int32_t parent_pid, child_pid;
	uint32_t parent_ns, child_ns;
	uint8_t nvtids;
	int32_t vtids[TRAWL_KERNEL_MAX_PID_NS];
};

/*
 * What BPF recorded at each fork (fork.c): the table the converter reads,
 * keyed by the child's thread id. Filled by trawl_kernel_forks_add(), which
 * the consumer calls for each record its BPF program wrote.
 */
struct trawl_kernel_forks;
int trawl_kernel_forks_create(struct trawl_kernel_forks **out);
void trawl_kernel_forks_destroy(struct trawl_kernel_forks *f);
void trawl_kernel_forks_add(struct trawl_kernel_forks *f, int32_t child_tid,
			    const struct trawl_kernel_fork_info *info);
/*
 * The process id of thread @tid (and, for a process, its parent's, else 0)
 * as a fork record gave them: kept for the pid, vpid and ppid contexts of a
 * thread that is gone from /proc when its records are converted (a record
 * of sched_process_fork takes its entry, this one stays until a later fork
 * of the same slot). Returns 0 or -ENOENT.
 */
int trawl_kernel_forks_ids(const struct trawl_kernel_forks *f, int32_t tid, int32_t *tgid,
			   int32_t *ppid);

/*
 * The consumer's BPF programs (bpf.c, trawl.bpf.c). Created (loaded, not
 * attached) once; NULL with @err filled when this kernel or build cannot
 * (callers then fall back to /proc). Records drained go to @forks.
 */
struct trawl_kernel_bpf;
int trawl_kernel_bpf_create(struct trawl_kernel_forks *forks, struct trawl_kernel_scaux *scaux,
			    struct trawl_kernel_bpf **out, char *err, size_t errlen);
/*
 * Sets what the syscall programs record for syscall number @nr at entry and
 * exit (bpf-records.h flags; 0 = nothing) and attaches them once any is set.
 */
int trawl_kernel_bpf_syscall_set(struct trawl_kernel_bpf *b, int nr, uint32_t enter, uint32_t exit);
void trawl_kernel_bpf_destroy(struct trawl_kernel_bpf *b);
/* Attaches the sched_process_fork program (once). 0 or a negative errno. */
int trawl_kernel_bpf_attach_fork(struct trawl_kernel_bpf *b);
/* Reads every record in the ring buffer now; returns how many, or a negative errno. */
int trawl_kernel_bpf_drain(struct trawl_kernel_bpf *b);
/* Records the programs could not write (ring buffer full), all CPUs. */
uint64_t trawl_kernel_bpf_lost(const struct trawl_kernel_bpf *b);

/* ---- LTTng's process trackers, applied as records convert (tracker.c) ---- */

/* TRAWL_KERNEL_TRACKER_ATTRS (kernel.h): pid vpid uid vuid gid vgid, enum trawl_ctl_process_attr's order */
/* What the trackers look at of the task making an event. */
struct trawl_kernel_ident {
	int32_t tgid, vpid;
	uint32_t uid, gid, vuid, vgid; /* real ids; v*: in the task's user namespace */
};
struct trawl_kernel_trackers;
int trawl_kernel_trackers_create(struct trawl_kernel_trackers **out);
void trawl_kernel_trackers_destroy(struct trawl_kernel_trackers *t);
/* BPF's records must be read before a record's ids are looked up: @drain does it. */
void trawl_kernel_trackers_set_drain(struct trawl_kernel_trackers *t, void (*drain)(void *arg),
				     void *arg);
/*
 * The trackers from @from_ts (CLOCK_MONOTONIC ns; the first set given
 * applies from the start): @spec (@len bytes, untrusted) holds one line
 * "ATTR:V,V,..." per tracker that does not include all (ATTR pid, vpid,
 * uid, vuid, gid or vgid; no values: it includes none); the others include
 * all. 0, or -EINVAL with @err set, or -ENOMEM.
 */
int trawl_kernel_trackers_set(struct trawl_kernel_trackers *t, const char *spec, size_t len,
			      uint64_t from_ts, char *err, size_t errlen);
/* Bit (1 << attr) for each tracker that restricts in some set kept. NULL: 0. */
uint32_t trawl_kernel_trackers_attrs(const struct trawl_kernel_trackers *t);
/* Thread @tid had ids @id from @ts on (BPF's records, /proc). */
void trawl_kernel_trackers_ident_add(struct trawl_kernel_trackers *t, int32_t tid, uint64_t ts,
				     const struct trawl_kernel_ident *id);
/* Every thread alive now, from /proc, with ids from @ts on. The count or -errno. */
int trawl_kernel_trackers_prime(struct trawl_kernel_trackers *t, uint64_t ts);
/* 1 if the trackers let thread @tid's record of @ts be recorded, else 0 (counted). */
int trawl_kernel_trackers_keep(struct trawl_kernel_trackers *t, int32_t tid, uint64_t ts);
/* Records left out so far, and of those the ones whose thread's ids nothing knew. */
void trawl_kernel_trackers_counts(const struct trawl_kernel_trackers *t, uint64_t *dropped,
				  uint64_t *unknown);
/* BPF's fork and credential records go to @t too (NULL: not). */
void trawl_kernel_bpf_set_trackers(struct trawl_kernel_bpf *b, struct trawl_kernel_trackers *t);
/* Attaches the credential program (trawl_cred_exit), once. 0 or a negative errno. */
int trawl_kernel_bpf_attach_cred(struct trawl_kernel_bpf *b);

struct trawl_kernel_converter;
/*
 * The fork info of the sched_process_fork record @rec: what BPF recorded
 * for its child, else read from /proc while both tasks live (exact then),
 * else only what the record itself says (vtids = the child's tid, ids 0).
 */
void trawl_kernel_fork_info_get(struct trawl_kernel_converter *c, const struct trawl_kernel_event *ev,
				const uint8_t *rec, uint32_t len, struct trawl_kernel_fork_info *info);
/* Writes the field @xform (TRAWL_KX_FORK_*) of @info at @o; returns the end. */
uint8_t *trawl_kernel_fork_info_write(const struct trawl_kernel_fork_info *info, int xform, uint8_t *o);

/* ---- LTTng's state dump (statedump.c) ------------------------------------ */

/* The i-th statedump event's name (0..), NULL past the last. */
const char *trawl_kernel_statedump_name(int i);
/*
 * Enables (or disables) the statedump events matching @pattern (fnmatch, or
 * "*"): they are no tracefs events, the consumer writes them. Returns how
 * many matched.
 */
int trawl_kernel_statedump_enable(struct trawl_kernel_instance *inst, const char *pattern, int enable);
/* Describes the statedump events to table @t (ids past the kernel's). */
int trawl_kernel_statedump_register(struct trawl_kernel_events *t);
struct trawl_kernel_stream;
/*
 * Writes a whole state dump into @s, each event at the time it is written;
 * @pause (may be NULL) is called every few processes. Returns the events written.
 */
int trawl_kernel_statedump_write(struct trawl_kernel_stream *s, void (*pause)(void *arg), void *arg);

/* ---- raw page to CTF conversion (convert.c) ----------------------------- */

enum trawl_kernel_ctx {
	TRAWL_KCTX_PID, TRAWL_KCTX_TID, TRAWL_KCTX_PROCNAME, TRAWL_KCTX_PRIO,
	TRAWL_KCTX_PPID, TRAWL_KCTX_VPID, TRAWL_KCTX_VTID, TRAWL_KCTX_NICE,
	/* the thread's namespaces' inode numbers (u32, as LTTng-modules records them) */
	TRAWL_KCTX_CGROUP_NS, TRAWL_KCTX_IPC_NS, TRAWL_KCTX_MNT_NS, TRAWL_KCTX_NET_NS,
	TRAWL_KCTX_PID_NS, TRAWL_KCTX_TIME_NS, TRAWL_KCTX_USER_NS, TRAWL_KCTX_UTS_NS,
	TRAWL_KCTX_MAX,
	/*
	 * A channel's context list holds TRAWL_KCTX_PERF + j for its j-th perf
	 * counter (u64, the value the sample carried: see perf.c).
	 */
	TRAWL_KCTX_PERF = 32,
};
#define TRAWL_KCTX_PERF_MAX 8                        /* perf counters per channel */
#define TRAWL_KCTX_SLOTS (TRAWL_KCTX_MAX + TRAWL_KCTX_PERF_MAX)
/* pid, tid, ... -> enum trawl_kernel_ctx; -EINVAL for anything else (perf:cpu:X included). */
int trawl_kernel_ctx_parse(const char *name);

/* ---- perf counter contexts (perf.c) --------------------------------------- */

/*
 * trawl_kernel_perf_counter_check - @ctx is "perf:cpu:<counter>" with one of
 * LTTng's counter names or aliases. 0 if the counter can be opened on this
 * machine; else a negative errno and one line in @err (unknown name, no
 * hardware PMU, permission).
 */
int trawl_kernel_perf_counter_check(const char *ctx, char *err, size_t errlen);
/*
 * The trace field of a counter context, as LTTng names it:
 * perf_cpu_<name, '-' -> '_'>. 0, or -ENAMETOOLONG when it does not fit.
 */
int trawl_kernel_perf_field_name(const char *ctx, char *buf, size_t len);

/*
 * The perf recording of one channel (a channel with perf counter contexts):
 * per CPU, perf groups of the channel's counters and its enabled tracepoints,
 * one mmap ring per CPU. Created by the consumer, freed by
 * trawl_kernel_perf_destroy().
 */
struct trawl_kernel_perf;
/*
 * trawl_kernel_perf_create - opens (disabled) the counters @ctxs[0..nc-1]
 * ("perf:cpu:X") and every tracepoint enabled in the tracefs instance
 * @instance_rel ("instances/NAME"), with its filter, on @ncpus CPUs; rings of
 * about @buffer_bytes per CPU. Events of thread @hide (the consumer) are
 * filtered out. On failure @err holds one line.
 */
int trawl_kernel_perf_create(const char *instance_rel, char (*ctxs)[64], int nc, int ncpus,
			     uint64_t buffer_bytes, pid_t hide, struct trawl_kernel_perf **out,
			     char *err, size_t errlen);
void trawl_kernel_perf_destroy(struct trawl_kernel_perf *p);
/* The fd to poll for CPU @cpu's ring (POLLIN past a quarter full), or -1 (offline CPU, no events). */
int trawl_kernel_perf_poll_fd(const struct trawl_kernel_perf *p, int cpu);
/*
 * After a stop and a drain: makes each ring write the losses the kernel still
 * holds (a PERF_RECORD_LOST is written only before a later record), so that a
 * second drain counts them. Returns the rings flushed or a negative errno.
 */
int trawl_kernel_perf_flush_lost(struct trawl_kernel_perf *p);
/* Starts (@on) or stops every group of every CPU. Returns 0 or a negative errno. */
int trawl_kernel_perf_enable(struct trawl_kernel_perf *p, int on);
struct trawl_kernel_stream;
/*
 * trawl_kernel_perf_drain - converts what CPU @cpu's ring holds into @s
 * (samples become events, lost records events_discarded); at most @max
 * records unless 0. Returns the records taken or a negative errno.
 */
int trawl_kernel_perf_drain(struct trawl_kernel_perf *p, int cpu, struct trawl_kernel_stream *s,
			    int max);
/*
 * Without the kernel (fuzz/kernel): a recording of @nc counters and the
 * tracepoints @ids[0..ntp-1] on one CPU whose ring (@ring_bytes, a power of
 * two) is plain memory; trawl_kernel_perf_fake_fill() puts @len bytes of
 * records in it from position @tail, as the kernel would have.
 */
int trawl_kernel_perf_create_fake(int nc, const uint16_t *ids, int ntp, size_t ring_bytes,
				  struct trawl_kernel_perf **out);
void trawl_kernel_perf_fake_fill(struct trawl_kernel_perf *p, uint64_t tail, const uint8_t *buf,
				 size_t len);

struct trawl_kernel_stream;

/*
 * Called for each finished CTF packet: @pkt (len bytes, starting with
 * struct trawl_ctf_packet_start, context filled in) is the caller's to write,
 * valid only during the call. Returns 0 or a negative errno.
 */
typedef int (*trawl_kernel_emit_fn)(struct trawl_kernel_stream *s, const uint8_t *pkt, size_t len,
				    void *arg);
/* Called when the converter gives an event its CTF id (so the metadata must declare it). */
typedef int (*trawl_kernel_declare_fn)(struct trawl_kernel_event *ev, void *arg);

struct trawl_kernel_converter {
	struct trawl_kernel_events *events;    /* not owned */
	uint8_t uuid[16];
	uint32_t stream_id;                    /* the channel's stream class */
	uint32_t next_ctf_id;
	int ctx[TRAWL_KCTX_SLOTS];             /* context fields in order (enum trawl_kernel_ctx) */
	int nctx;
	trawl_kernel_declare_fn declare;
	void *arg;
	struct trawl_kernel_task_cache *tasks; /* owned; for procname/pid/ppid/prio contexts */
	const struct trawl_kernel_hidden *hidden; /* not owned: records of these tids are dropped */
	struct trawl_kernel_forks *forks;      /* not owned, may be NULL: what BPF saw of forks */
	struct trawl_kernel_scaux *scaux;      /* not owned, may be NULL: BPF's syscall records */
	struct trawl_kernel_trackers *trackers; /* not owned, may be NULL: LTTng's trackers */
	/* the converter needs another look at BPF's records (the consumer's, may be NULL) */
	void (*bpf_drain)(void *arg);
	void *bpf_arg;
};

struct trawl_kernel_stream {
	struct trawl_kernel_converter *conv;   /* not owned */
	uint32_t cpu;
	uint8_t *pkt;          /* owned: packet being filled */
	size_t cap, len;
	uint64_t ts_begin, ts_last;
	int has_events;
	uint64_t discarded;    /* running count of lost events */
	uint64_t discarded_emitted; /* the count the last written packet carried */
	uint64_t seq;
	uint64_t events;       /* events converted so far */
	uint64_t unconverted;  /* records kept by the kernel but not written: in discarded too */
	uint64_t hidden;       /* records of trawl's own threads, left out by design (notrace.c) */
	uint64_t untracked;    /* records the trackers left out (tracker.c): not lost either */
	trawl_kernel_emit_fn emit;
	void *emit_arg;
};

int trawl_kernel_stream_init(struct trawl_kernel_stream *s, struct trawl_kernel_converter *conv,
			     uint32_t cpu, size_t packet_cap, trawl_kernel_emit_fn emit, void *arg);
void trawl_kernel_stream_fini(struct trawl_kernel_stream *s);
/*
 * Converts one raw ring-buffer page (@len bytes as read from trace_pipe_raw)
 * into CTF events of the stream's current packet, emitting packets as they
 * fill. Untrusted input: a malformed page is cut where it stops making sense.
 * Returns the number of events converted, or a negative errno from emit.
 */
int trawl_kernel_stream_convert_page(struct trawl_kernel_stream *s, const uint8_t *page, size_t len);
/*
 * Converts one ftrace-layout record (common header + fields: a page's record
 * or a perf sample's raw data) taken at @ts (ns); @perf holds the values of
 * the channel's perf counter contexts (NULL without). Returns 1 if an event
 * was written, 0 if skipped, or a negative errno from emit.
 */
int trawl_kernel_stream_convert_record(struct trawl_kernel_stream *s, uint64_t ts, const uint8_t *rec,
				       uint32_t len, const uint64_t *perf);
/* Adds lost events (counted outside the pages) to the next packet's running count. */
void trawl_kernel_stream_add_lost(struct trawl_kernel_stream *s, uint64_t n);
/* Emits the current packet if it holds events (or lost events to report). */
int trawl_kernel_stream_flush(struct trawl_kernel_stream *s);
/*
 * Live: emits the current packet as trawl_kernel_stream_flush() does, then an
 * empty packet (a beacon: header and context, timestamp_begin ==
 * timestamp_end, the running events_discarded) at @ts (ns, the trace clock),
 * or at the stream's last time if that is later. The caller promises that no
 * event of this stream older than @ts is still to come: the live server
 * tells viewers the stream is quiet up to there. Events converted later
 * with an older time are clamped to it, as any stream's clock going back.
 * Returns 0 or a negative errno from emit.
 */
int trawl_kernel_stream_beacon(struct trawl_kernel_stream *s, uint64_t ts);

int trawl_kernel_converter_init(struct trawl_kernel_converter *c, struct trawl_kernel_events *ev,
				const uint8_t uuid[16]);
void trawl_kernel_converter_fini(struct trawl_kernel_converter *c);

#endif /* TRAWL_KERNEL_KERNCTL_H */
