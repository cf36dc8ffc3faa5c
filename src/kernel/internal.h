/* SPDX-License-Identifier: MIT */
/*
 * trawl-kernel's internal pieces, shared by its files only. What the kernel
 * consumer (src/consumerd) uses is in kernctl.h.
 */
#ifndef TRAWL_KERNEL_INTERNAL_H
#define TRAWL_KERNEL_INTERNAL_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kernel/kernel.h"
#include "kernel/kernctl.h"

struct trawl_kernel_instance {
	char name[160];
	char path[192];   /* "instances/<name>", relative to the tracefs dir */
	int created;
	int overwrite;
	int statedump;     /* an lttng_statedump_* event is enabled: the consumer dumps (statedump.c) */
	char probe_group[64]; /* trawl_<pid>_<n>: group of this instance's dynamic events */
	/* dynamic events this instance defined: "group/name" lines, to remove on destroy */
	char **probes;
	int nprobes;
	struct trawl_kernel_rule *rules; /* owned: the enabled event rules (rules.c) */
};

/*
 * What an event gets when the kernel refuses a rule's filter on it (a field
 * it lacks, a string compared with a number): false for every record, as no
 * task's pid is negative. LTTng keeps such an event too: its filter bytecode
 * fails to link to the event's fields and then rejects every record
 * (lttng-modules' lttng_bytecode_interpret_error()), so the event is enabled
 * and never recorded; left unfiltered it would record everything.
 */
#define NEVER_FILTER "common_pid < 0"

/*
 * 1 if tracefs event @sys/@ev is one LTTng's kernel rule @pattern names
 * (its syscalls' entry or exit when @syscalls), 0 if not, or a negative
 * errno.
 */
int trawl_kernel_event_matches(const char *pattern, int syscalls, const char *sys, const char *ev);
/* Frees the rules of @inst (rules.c), at its destruction. */
void trawl_kernel_rules_free(struct trawl_kernel_instance *inst);

int trawl_kernel_instance_write(struct trawl_kernel_instance *inst, const char *file,
				const char *val);
pid_t trawl_kernel_owner_pid(const char *name);
int trawl_kernel_pid_alive(pid_t pid);
int trawl_kernel_dynevents_remove(const char *file, pid_t only_pid);
int trawl_kernel_foreach_event(const char *events_rel,
			       int (*fn)(const char *sys, const char *ev, void *arg), void *arg);
void trawl_kernel_probes_release(struct trawl_kernel_instance *inst);

/* ---- user-space probe sites (uprobe-elf.c) --------------------------------- */

#define TRAWL_KERNEL_UPROBE_SITES_MAX 64
/* Where one user-space probe goes: file offsets (what uprobe_events takes). */
struct trawl_kernel_uprobe_sites {
	uint32_t n;
	uint64_t offset[TRAWL_KERNEL_UPROBE_SITES_MAX];  /* first instruction of each site */
	uint64_t ref_ctr[TRAWL_KERNEL_UPROBE_SITES_MAX]; /* SDT semaphore's offset, 0 if none */
	char err[TRAWL_KERNEL_ERR_LEN];                  /* why not, when it fails */
};
/*
 * trawl_kernel_elf_locate - the sites of @loc (a function's first
 * instruction, or every site of an SDT probe) in the ELF file @e, which is
 * untrusted, of @fsize bytes: every offset found is below @fsize. 0, or a
 * negative errno with @s->err filled.
 */
int trawl_kernel_elf_locate(Elf *e, uint64_t fsize, const struct trawl_kernel_uprobe_loc *loc,
			    struct trawl_kernel_uprobe_sites *s);
/*
 * trawl_kernel_uprobe_resolve - opens @loc's file as user @uid/@gid would
 * (so only a regular file they can read) and locates its sites there.
 * Returns 0 and *@fd, the open file (the caller closes it), or a negative
 * errno with one line in @err.
 */
int trawl_kernel_uprobe_resolve(const struct trawl_kernel_uprobe_loc *loc, uid_t uid, gid_t gid,
				int *fd, struct trawl_kernel_uprobe_sites *s, char *err,
				size_t errlen);
/*
 * trawl_kernel_uprobe_check - what a process of user @uid said of @loc
 * (@ret, *@fd and @s, from trawl_kernel_uprobe_locate() or the child of
 * trawl_kernel_uprobe_resolve()), checked against the file itself: 0, or
 * a negative errno with one line in @err and *@fd closed (-1).
 */
int trawl_kernel_uprobe_check(const struct trawl_kernel_uprobe_loc *loc, uid_t uid, int ret,
			      int *fd, struct trawl_kernel_uprobe_sites *s, char *err, size_t errlen);
/*
 * The name an event has in trawl's traces (LTTng's names): the tracepoint's
 * own name, except syscalls:sys_enter_X -> syscall_entry_X and
 * syscalls:sys_exit_X -> syscall_exit_X. 0, or -ENAMETOOLONG when it does
 * not fit in @len bytes.
 */
int trawl_kernel_event_ctf_name(const char *sys, const char *ev, char *buf, size_t len);

/*
 * Parses a tracefs format file's text; fills @ev (free with
 * trawl_kernel_event_fini()) with LTTng-modules' layout of the event
 * (layout.c) when it has one.
 */
int trawl_kernel_event_parse(const char *sys, const char *name, const char *text,
			     struct trawl_kernel_event *ev);
void trawl_kernel_event_fini(struct trawl_kernel_event *ev);
/* Only the kernel's fields of a format text (no LTTng layout, no plan); freed by _fini(). */
int trawl_kernel_event_parse_fields(const char *sys, const char *name, const char *text,
				    struct trawl_kernel_event *ev);
/*
 * Gives syscalls:sys_exit_X @ev (parsed) LTTng's exit layout, which lists
 * output arguments: @enter_text is sys_enter_X's format. 0 or a negative errno.
 */
int trawl_kernel_event_syscall_exit(struct trawl_kernel_event *ev, const char *enter_text);

/*
 * LTTng-modules 2.13's layout of @ev (layout.c): its name and fields in
 * LTTng's order and types, each pointing at its source in the ftrace record
 * (@ev->fields holds the ftrace fields on entry, the output fields after).
 * Events LTTng does not know keep ftrace's fields. 0 or a negative errno.
 */
int trawl_kernel_layout_apply(struct trawl_kernel_event *ev);
/* LTTng's name of the tracepoint @ev of system @sys, or NULL when it is the tracepoint's own. */
const char *trawl_kernel_layout_name(const char *sys, const char *ev);
/* The tracepoint ("sys", "event") LTTng calls @lttng_name; 0 if found, -ENOENT. */
int trawl_kernel_layout_find(const char *lttng_name, const char **sys, const char **ev);

/*
 * syscalls:sys_enter_X (@enter NULL) or sys_exit_X (@enter: the parsed
 * sys_enter_X) as LTTng's syscall_entry_X / syscall_exit_X (syscalls.c).
 */
int trawl_kernel_syscall_layout(struct trawl_kernel_event *ev, const struct trawl_kernel_event *enter);
/* What trawl.bpf.c must record for syscall @name at entry or exit (bpf-records.h flags). */
uint32_t trawl_kernel_syscall_bpf_mask(const char *name, int at_exit, const struct trawl_kernel_event *enter);
/*
 * The fields of syscall @sys LTTng decodes structures of (scdecode.c), at
 * entry or exit, into @out (room for @max); @enter: the parsed
 * sys_enter_@sys (its kernel fields). The count, or -ENOENT when LTTng
 * decodes nothing of @sys, or another negative errno.
 */
int trawl_kernel_scdecode_fields(const char *sys, int at_exit, const struct trawl_kernel_event *enter,
				 struct trawl_kernel_field *out, int max);
/* What trawl.bpf.c must read for such a syscall (bpf-records.h's rules); -ENOENT for others. */
int trawl_kernel_scdecode_bpf_mask(const char *sys, int at_exit, uint32_t *mask);
/* x86-64's number of syscall @name, or -1 (sc_numbers.h, from the build's asm/unistd_64.h). */
int trawl_kernel_syscall_nr(const char *name);
/* The syscall tracefs event @sys:@ev is of (syscalls:sys_enter_X, :sys_exit_X -> X), or NULL. */
const char *trawl_kernel_syscall_of(const char *sys, const char *ev);

/*
 * task.c: the converter's cache of task attributes (pid, ppid, prio, nice,
 * procname, namespaces), read from /proc once per thread; see task.c.
 */
#define TASK_SLOTS 8192u

#define TASK_NS (TRAWL_KCTX_UTS_NS - TRAWL_KCTX_CGROUP_NS + 1)

struct task_entry {
	int32_t tid;     /* -1: empty */
	int32_t pid, ppid, prio, nice;
	char comm[16];
	bool gone;       /* no /proc entry when loaded: pid and ppid from a fork record, if any */
	bool ns_loaded;  /* ns[] read (trawl_kernel_task_load_ns()) */
	uint32_t ns[TASK_NS]; /* inode numbers, in enum trawl_kernel_ctx's order */
};

struct trawl_kernel_task_cache {
	struct task_entry e[TASK_SLOTS];
};

/* The entry of thread @tid, loaded from /proc if it is not cached. */
struct task_entry *trawl_kernel_task_get(struct trawl_kernel_task_cache *c, int32_t tid);
/* Reads @t's namespace inode numbers (ns[]). */
void trawl_kernel_task_load_ns(struct task_entry *t);
/* @t had no /proc entry: its pid and ppid from the fork records, if any. */
void trawl_kernel_task_ids_of_gone(struct trawl_kernel_converter *c, struct task_entry *t);
/* Keeps the task cache in step with the names the trace itself reports (@ev's hook). */
void trawl_kernel_task_hook(struct trawl_kernel_task_cache *c, const struct trawl_kernel_event *ev,
			    const uint8_t *rec, uint32_t len);

#endif /* TRAWL_KERNEL_INTERNAL_H */
