/* SPDX-License-Identifier: MIT */
/*
 * trawl-kernel: kernel tracing without a kernel module.
 *
 * Everything here runs as root (in the root session daemon, or in the kernel
 * consumer it spawns). The kernel side of a session channel is one tracefs
 * instance, `instances/trawl-<daemon pid>-<n>-<session>-<channel>`, with its own
 * ring buffers, events, trace_clock (always "mono", i.e. CLOCK_MONOTONIC, so
 * kernel and user-space events share one clock) and overwrite mode. The name
 * carries the owner's pid so that a restarted daemon removes only instances
 * whose owner is dead (trawl_kernel_cleanup_dead()), and concurrent daemons or
 * tests never collide. Nothing outside trawl's own instances is ever written:
 * not the top-level instance, not another tool's instance, and the function
 * tracer's files (set_ftrace_*) are opened only when function tracing was asked
 * for, since this class of kernel answers EPERM there.
 *
 * Why ftrace and not BPF. bench/kernel measures both on 2 M getppid() calls
 * (sys_enter/sys_exit, CPU 0, medians of 3, the program's own CPU time per
 * call, on the 2-core dev VM): untraced 228 ns/call; this ftrace path +284 ns
 * per event, 0 lost, 8.0 bytes/event on disk, 70 ns of consumer CPU per
 * event; trace-cmd record +300 ns (the same kernel mechanism); perf record -a
 * +819 ns and 74 K events lost; a BPF raw_tracepoint pair that keeps getppid
 * and writes 16-byte records (time, return value) into a BPF ring buffer
 * +187 ns, 6 ns of consumer CPU, before any conversion. So BPF costs the
 * traced system about a third less for syscalls. We still record through
 * ftrace: it gives all ~2,300 tracepoints with their typed formats, per-CPU
 * buffers, overwrite mode (flight recorder), exact lost-event counts and
 * kernel-side filters, with no program to write per event; a BPF path for
 * syscalls only (the busiest events) is the next step the numbers suggest.
 * BPF serves today to diagnose fentry.
 *
 * Ownership: every *_create() result is freed by the matching *_destroy().
 * Functions return 0 or a negative errno; a failure that the user must read
 * (a refused mechanism) also fills an `err` buffer with one line.
 */
#ifndef TRAWL_KERNEL_H
#define TRAWL_KERNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TRAWL_KERNEL_ERR_LEN 256

/* ---- client text bound for tracefs (check.c) ------------------------------ */

/*
 * Every function below that writes to tracefs checks the client's text with
 * these first (callers may check earlier, e.g. to refuse before changing
 * anything). Each returns 0, or -EINVAL with one line in @err naming the
 * text, the offending character and the grammar (docs/SECURITY.md):
 *   probe name   [A-Za-z_][A-Za-z0-9_]*, at most TRAWL_KERNEL_PROBE_NAME_MAX
 *   event name   [A-Za-z0-9_*]+, or SYSTEM:EVENT of those (tracepoints, syscalls)
 *   kernel symbol [A-Za-z_][A-Za-z0-9_.]*
 *   kprobe       SYMBOL | SYMBOL+OFFSET (< 1 MiB) | 0xADDRESS
 *   uprobe       elf:PATH:SYMBOL | sdt:PATH:PROVIDER:NAME (PATH:SYMBOL means elf:),
 *                PATH absolute, of [A-Za-z0-9._+,=@%~/-]
 *   filter       ftrace's FIELD OP VALUE, joined by && || ! ( ), at most 1024 bytes,
 *                strings quoted with printable characters only
 */
#define TRAWL_KERNEL_PROBE_NAME_MAX 56 /* + "_return" stays within the kernel's 63 */
int trawl_kernel_check_probe_name(const char *name, char *err, size_t errlen);
int trawl_kernel_check_event_pattern(const char *pattern, char *err, size_t errlen);
int trawl_kernel_check_ksym(const char *sym, char *err, size_t errlen);
int trawl_kernel_check_filter(const char *filter, char *err, size_t errlen);

struct trawl_kernel_kprobe_loc {
	char sym[256];   /* "" for an address */
	uint64_t offset; /* bytes after sym */
	uint64_t addr;   /* with sym "" */
};
int trawl_kernel_kprobe_loc_parse(const char *text, struct trawl_kernel_kprobe_loc *loc,
				  char *err, size_t errlen);
/*
 * The location as kprobe_events takes it, formatted from @loc's values.
 * 0, or -ENAMETOOLONG when it does not fit in @len bytes.
 */
int trawl_kernel_kprobe_loc_format(const struct trawl_kernel_kprobe_loc *loc, char *buf,
				   size_t len);

enum trawl_kernel_uprobe_kind { TRAWL_KERNEL_UPROBE_ELF, TRAWL_KERNEL_UPROBE_SDT };
struct trawl_kernel_uprobe_loc {
	enum trawl_kernel_uprobe_kind kind;
	char path[4096];
	char provider[128]; /* SDT only */
	char symbol[256];   /* ELF: the function; SDT: the probe's name */
};
int trawl_kernel_uprobe_loc_parse(const char *text, struct trawl_kernel_uprobe_loc *loc,
				  char *err, size_t errlen);

/* ---- tracefs (tracefs.c) ---------------------------------------------- */

/*
 * trawl_kernel_tracefs_dir - the tracefs mount point: the first tracefs in
 * /proc/mounts, else tracefs is mounted on /sys/kernel/tracing. The result is
 * a static string (never freed), or NULL with errno set.
 */
const char *trawl_kernel_tracefs_dir(void);

/* Reads a whole small tracefs file (relative to the tracefs dir) into @buf (NUL-terminated). */
int trawl_kernel_read_file(const char *rel, char *buf, size_t len);
/* Writes @val to a tracefs file (relative to the tracefs dir), truncating it unless @append. */
int trawl_kernel_write_file(const char *rel, const char *val, int append);

/*
 * trawl_kernel_cleanup_dead - removes trawl instances and trawl dynamic
 * events (uprobes, kprobes) whose owner pid is no longer alive. Touches
 * nothing else. Returns the number removed, or a negative errno.
 */
int trawl_kernel_cleanup_dead(void);

struct trawl_kernel_channel_attr {
	uint64_t subbuf_size;  /* bytes per sub-buffer (ftrace page) wanted; 0 = kernel default */
	uint64_t buffer_size;  /* bytes per CPU; 0 = 4 MiB */
	int overwrite;         /* 1: flight recorder (newest kept), 0: discard */
	uint64_t tracefile_size; /* 0, or bytes per stream file (the consumer's --tracefile-size) */
	uint32_t tracefile_count; /* 0, or files kept per stream */
};

struct trawl_kernel_instance;

/*
 * trawl_kernel_instance_create - makes the instance for one session channel:
 * name trawl-<getpid()>-<session>-<channel> (other characters than
 * [A-Za-z0-9_.] become '_'), trace_clock mono, tracing off, buffer size and
 * overwrite from @attr. Fails with -EEXIST if it already exists.
 * The result is freed (and the instance removed) by trawl_kernel_instance_destroy().
 */
int trawl_kernel_instance_create(const char *session, const char *channel,
				 const struct trawl_kernel_channel_attr *attr,
				 struct trawl_kernel_instance **out);
/* Disables everything, removes the instance and its dynamic events, frees @inst. NULL is a no-op. */
void trawl_kernel_instance_destroy(struct trawl_kernel_instance *inst);
/* The instance's name (owned by @inst) and its folder relative to the tracefs dir. */
const char *trawl_kernel_instance_name(const struct trawl_kernel_instance *inst);
const char *trawl_kernel_instance_path(const struct trawl_kernel_instance *inst);

/* tracing_on of the instance. */
int trawl_kernel_instance_set_tracing(struct trawl_kernel_instance *inst, int on);

/*
 * trawl_kernel_instance_enable_event - enables (or disables) every tracepoint
 * whose name matches @pattern (fnmatch; "sched_*", "sched_switch", or
 * "system:event"); "*" enables them all, syscalls included, as LTTng's
 * `enable-event -k --all` does. Returns the number of events changed,
 * -ENOENT when nothing matches (with @err filled).
 */
int trawl_kernel_instance_enable_event(struct trawl_kernel_instance *inst, const char *pattern,
				       int enable, char *err, size_t errlen);

/*
 * trawl_kernel_instance_enable_syscall - the entry and exit events of the
 * syscalls matching @pattern ("*" = all), shown in traces as
 * syscall_entry_<name> / syscall_exit_<name>.
 */
int trawl_kernel_instance_enable_syscall(struct trawl_kernel_instance *inst, const char *pattern,
					 int enable, char *err, size_t errlen);

/*
 * Sets a filter expression (ftrace syntax) on the events matching @pattern.
 * An event that lacks a field it names (or whose types do not fit) gets an
 * always-false filter instead: it is never recorded, as with LTTng. Returns
 * the number of events given a filter, or a negative errno with @err.
 */
int trawl_kernel_instance_set_filter(struct trawl_kernel_instance *inst, const char *pattern,
				     const char *filter, char *err, size_t errlen);
/* The same on the entry and exit events of the syscalls matching @pattern
 * (NULL: all): an exit lacks the arguments an entry filter names. */
int trawl_kernel_instance_set_syscall_filter(struct trawl_kernel_instance *inst,
					     const char *pattern, const char *filter, char *err,
					     size_t errlen);

/*
 * trawl_kernel_instance_rule - enables (or disables) one of LTTng's kernel
 * event rules in @inst: tracepoints matching @pattern (as above), or the
 * entry and exit events of the syscalls matching it when @syscalls, with
 * @filter (ftrace syntax) or NULL. Each event the rule matches is then
 * recomputed from the instance's enabled rules, as LTTng records an event
 * any of them matches: enabled while one matches it, filtered by the OR of
 * their filters (none if one has none); a rule's filter naming fields an
 * event lacks is false there (rules.c). Returns the number of events the
 * rule matches, or a negative errno with @err (-E2BIG: a union of filters
 * past ftrace's limit; the rule is then not enabled and nothing changed).
 */
int trawl_kernel_instance_rule(struct trawl_kernel_instance *inst, const char *pattern,
			       const char *filter, int syscalls, int enable, char *err,
			       size_t errlen);

/*
 * Dynamic probes (probes.c). @name is the event name users see in the trace.
 * Each creates a dynamic event in group trawl_<pid> and enables it in @inst.
 *   kprobe:   @target is SYM[+OFF] or 0xADDR; @retprobe adds the return event.
 *   function: entry and return of @target (kprobe + kretprobe where the kernel
 *             has kprobes, else BPF fentry/fexit, else the error names both).
 *   uprobe:   @target is "elf:PATH:SYMBOL" (the probe records the first
 *             @nargs integer arguments, x86-64 calling convention, as
 *             a0..a5) or "sdt:PATH:PROVIDER:NAME" (no arguments). PATH is
 *             opened as user @uid/@gid (the client asking), so it must be
 *             a regular file they can read; the probe goes on that file.
 * @name and @target are client text: checked first (check.c).
 * On failure @err holds one line naming the missing mechanism and why.
 */
int trawl_kernel_probe_add(struct trawl_kernel_instance *inst, const char *name,
			   const char *target, int retprobe, char *err, size_t errlen);
int trawl_kernel_function_add(struct trawl_kernel_instance *inst, const char *name,
			      const char *target, char *err, size_t errlen);
int trawl_kernel_uprobe_add(struct trawl_kernel_instance *inst, const char *name,
			    const char *target, int nargs, uid_t uid, gid_t gid, char *err,
			    size_t errlen);

/*
 * A user-space probe's sites found apart, by a process the caller runs as
 * the requesting user and does not wait for (the root daemon: the file may
 * be on a file system that holds whoever reads it):
 * trawl_kernel_uprobe_locate() runs in that process: it parses @target,
 * opens its file and locates the sites into @s (a buffer of
 * trawl_kernel_uprobe_sites_size() bytes the caller can read back, e.g.
 * shared memory); 0 and *@fd the open file, or a negative errno (@s says
 * why). trawl_kernel_uprobe_add_located() is trawl_kernel_uprobe_add()
 * with that process's result (@located_ret, the file @fd it handed over,
 * taken: closed here, and @s), which it trusts no further than the file
 * itself confirms.
 */
struct trawl_kernel_uprobe_sites;
size_t trawl_kernel_uprobe_sites_size(void);
int trawl_kernel_uprobe_locate(const char *target, struct trawl_kernel_uprobe_sites *s, int *fd);
int trawl_kernel_uprobe_add_located(struct trawl_kernel_instance *inst, const char *name,
				    const char *target, int nargs, uid_t uid, int located_ret,
				    int fd, const struct trawl_kernel_uprobe_sites *s, char *err,
				    size_t errlen);

/*
 * A trigger's probe (add-trigger --type=kernel:kprobe|kernel:uprobe): a
 * dynamic event of its own, in a new group trawl_<pid>_<n> (which
 * trawl_kernel_cleanup_dead() removes once the daemon is gone), named
 * TRAWL_KERNEL_TRIGGER_PROBE, enabled in no instance: the trigger's
 * notifier watches it through perf. @target is checked exactly as
 * enable-event's (check.c); a uprobe's file is the one a process of @uid's
 * opened and read (trawl_kernel_uprobe_locate(): @located_ret, @fd taken,
 * @sites), as trawl_kernel_uprobe_add_located() takes it. 0 with @group
 * set, or a negative errno with @err one line (@fd closed either way).
 */
#define TRAWL_KERNEL_GROUP_LEN 64
#define TRAWL_KERNEL_TRIGGER_PROBE "trigger"
struct trawl_kernel_trigger_probe {
	int uprobe;         /* 1: @target is elf:PATH:SYM, [/]PATH:SYM or sdt:...; 0: a kprobe */
	const char *target; /* the location, as the client gave it */
	uid_t uid;          /* uprobes: the requesting user */
	gid_t gid;          /* uprobes without @sites: their group */
	int located_ret;    /* uprobes: the locating process's result */
	int fd;             /* uprobes: the file it opened (taken), or -1 */
	/* uprobes: what it found; NULL: the file is read here, as @uid/@gid, waited for */
	const struct trawl_kernel_uprobe_sites *sites;
};
int trawl_kernel_trigger_probe_define(const struct trawl_kernel_trigger_probe *p,
				      char group[TRAWL_KERNEL_GROUP_LEN], char *err, size_t errlen);
/* Removes what trawl_kernel_trigger_probe_define() made (nothing if @group is ""). */
void trawl_kernel_trigger_probe_remove(int uprobe, const char *group);

/* Disables the probe (or the function probe's two events) called @name in @inst. */
int trawl_kernel_probe_disable(struct trawl_kernel_instance *inst, const char *name, char *err,
			       size_t errlen);

/* ---- listing (list.c) --------------------------------------------------- */

/* One available event, for `trawl list --kernel [--fields]` / `--syscall`. */
struct trawl_kernel_list_item {
	char name[128];     /* event name as it appears in traces (sched_switch), or syscall name */
	char system[64];    /* tracefs system (sched, syscalls) */
	char *fields;       /* with @fields: "name kind\n" lines, malloc'd; else NULL */
};
/*
 * trawl_kernel_list - every tracepoint (or, with @syscalls, every syscall),
 * sorted by name, read from the top-level events folder (read only).
 * *@items is malloc'd: free it with trawl_kernel_list_free(). Returns the
 * count or a negative errno.
 */
int trawl_kernel_list(int syscalls, int fields, struct trawl_kernel_list_item **items);
void trawl_kernel_list_free(struct trawl_kernel_list_item *items, int n);

/* ---- sessions (session.c) --------------------------------------------- */

/*
 * A kernel session: its channels (one instance each) and its consumer
 * process, which writes @output (the trace's kernel/ folder). Used by the
 * root session daemon's kernel domain and by trawl-ktrace.
 *
 * Lifecycle: create, add_channel*, (enable events on the channels' instances,
 * add_context*), start (spawns the consumer at the first start, waits until
 * it has opened every buffer, then turns tracing on), stop (tracing off,
 * then returns once the consumer wrote everything to disk), destroy.
 */
struct trawl_kernel_session;

int trawl_kernel_session_create(const char *name, const char *output, uid_t uid, gid_t gid,
				struct trawl_kernel_session **out);
void trawl_kernel_session_destroy(struct trawl_kernel_session *s);
int trawl_kernel_session_add_channel(struct trawl_kernel_session *s, const char *channel,
				     const struct trawl_kernel_channel_attr *attr, char *err,
				     size_t errlen);
/* The channel's instance (owned by the session), or NULL. */
struct trawl_kernel_instance *trawl_kernel_session_instance(struct trawl_kernel_session *s,
							    const char *channel);
/*
 * 1 if @channel records perf counters (so through perf, see perf.c) and its
 * consumer already opened its events: enabling or disabling events there
 * would change nothing, and callers refuse it. 0 otherwise.
 */
int trawl_kernel_session_channel_fixed(struct trawl_kernel_session *s, const char *channel);
/*
 * Adds context @ctx ("pid", "tid", "procname", "prio", "ppid", "vpid", "vtid",
 * or "perf:cpu:<counter>" with LTTng's counter names) to @channel's events.
 * A perf counter is opened once here to check it: one that this machine
 * lacks (hardware counters without a PMU) fails with @err saying so. A
 * channel with perf counters is recorded through perf (perf.c).
 */
int trawl_kernel_session_add_context(struct trawl_kernel_session *s, const char *channel,
				     const char *ctx, char *err, size_t errlen);
/*
 * @consumer is the program to run with "--kernel" and the consumer's
 * options (trawl-consumerd, or trawl-ktrace which dispatches the same way).
 */
int trawl_kernel_session_start(struct trawl_kernel_session *s, const char *consumer, char *err,
			       size_t errlen);
/*
 * The same in halves, for a caller that must not block (the root daemon's
 * loop): _send spawns the consumer (@consumer must live until the start is
 * over) or, with one running, turns tracing on; it returns an fd to wait
 * on (readable once the consumer answers), 0 once started, or a negative
 * errno with @err set. Once the fd is readable, _recv (@failed 0; else a
 * negative errno: no answer within trawl_kernel_session_consumer_timeout_ms(),
 * the consumer is killed) reads the answer and returns the same: another
 * fd to wait on (the perf channels' start), 0, or an error.
 */
int trawl_kernel_session_start_send(struct trawl_kernel_session *s, const char *consumer,
				    char *err, size_t errlen);
int trawl_kernel_session_start_recv(struct trawl_kernel_session *s, int failed, char *err,
				    size_t errlen);
int trawl_kernel_session_stop(struct trawl_kernel_session *s, char *err, size_t errlen);
/*
 * The same in two halves, for a caller that must not block (the root
 * daemon's loop): _send turns tracing off and tells the consumer to drain;
 * it returns the fd to wait on (readable once the consumer answers), 0 when
 * there is no consumer (stopped), or a negative errno with @err set. Once
 * the fd is readable, _recv (@failed 0) reads the answer and returns what
 * trawl_kernel_session_stop() would; with @failed a negative errno (no
 * answer within trawl_kernel_session_consumer_timeout_ms()), it kills the
 * consumer and says so.
 */
int trawl_kernel_session_stop_send(struct trawl_kernel_session *s, char *err, size_t errlen);
int trawl_kernel_session_stop_recv(struct trawl_kernel_session *s, int failed, char *err,
				   size_t errlen);
int trawl_kernel_session_consumer_timeout_ms(void);
/*
 * Makes the consumer drain, exit and be reaped (destroy does it too);
 * afterwards trawl_kernel_session_consumer_cpu_ns() is the CPU time (user +
 * system, ns) the consumer used.
 */
void trawl_kernel_session_consumer_finish(struct trawl_kernel_session *s);
/*
 * trawl_kernel_session_switch - ends the consumer's trace (clear, rotate)
 * @tracing_off: clear: tracing is turned off first, and once the consumer
 *               is gone what the buffers still hold is thrown away; 0
 *               (rotate): tracing goes on, what is recorded meanwhile waits
 *               in the kernel's buffers for the next consumer
 * @output: NULL, or the folder the session writes in from now on
 *
 * The consumer drains everything, writes it and exits (its files are
 * complete); trawl_kernel_session_start() starts the next one (a clear
 * while tracing) or the session's next start does. Returns 0 or a negative
 * errno with @err set.
 */
int trawl_kernel_session_switch(struct trawl_kernel_session *s, int tracing_off,
				const char *output, char *err, size_t errlen);
/* The same in two halves (see trawl_kernel_session_stop_send()): _send tells
 * the consumer to drain and exit and returns the fd that turns readable when
 * it has (0: none running); _recv reaps it (@failed: kills it first). */
int trawl_kernel_session_finish_send(struct trawl_kernel_session *s);
void trawl_kernel_session_finish_recv(struct trawl_kernel_session *s, int failed);
/* trawl_kernel_session_switch() in halves: _send returns the fd that turns
 * readable once the consumer exited (0: none ran), or an error; _recv
 * (@failed: no answer in time, the consumer killed) does the rest. */
int trawl_kernel_session_switch_send(struct trawl_kernel_session *s, int tracing_off, char *err,
				     size_t errlen);
int trawl_kernel_session_switch_recv(struct trawl_kernel_session *s, int failed,
				     int tracing_off, const char *output, char *err,
				     size_t errlen);
uint64_t trawl_kernel_session_consumer_cpu_ns(const struct trawl_kernel_session *s);
/*
 * Snapshot sessions (flight recorder): start and stop only switch tracing;
 * no consumer runs. trawl_kernel_session_snapshot() writes what the buffers
 * hold now as a complete trace under @dir, by a one-shot consumer reading at
 * most one buffer's worth of pages per CPU. This kernel class has no ftrace
 * snapshot buffer (CONFIG_TRACER_SNAPSHOT), so the read consumes the pages:
 * a second snapshot holds only what was recorded after the first.
 */
void trawl_kernel_session_set_snapshot(struct trawl_kernel_session *s, int snapshot);
int trawl_kernel_session_snapshot(struct trawl_kernel_session *s, const char *consumer,
				  const char *dir, char *err, size_t errlen);
/* The same in halves, as trawl_kernel_session_start_send()/_recv(): each
 * returns an fd to wait on, 0 once the snapshot is written, or an error. */
int trawl_kernel_session_snapshot_send(struct trawl_kernel_session *s, const char *consumer,
				       const char *dir, char *err, size_t errlen);
int trawl_kernel_session_snapshot_recv(struct trawl_kernel_session *s, int failed, char *err,
				       size_t errlen);
/*
 * `regenerate statedump`: the consumer writes LTTng's state dump again (in
 * the channels that enabled lttng_statedump_* events) and answers when it is
 * in its buffers. 0, or a negative errno with @err filled.
 */
int trawl_kernel_session_regenerate_statedump(struct trawl_kernel_session *s, char *err, size_t errlen);
/* `regenerate metadata`: the consumer writes what it has recorded so far,
 * then the trace's metadata file again whole. 0 or -errno with @err set. */
int trawl_kernel_session_regenerate_metadata(struct trawl_kernel_session *s, char *err, size_t errlen);
/*
 * The same in two halves (see trawl_kernel_session_stop_send()): _send asks
 * the consumer (@statedump: the state dump, else the metadata) and returns
 * the fd that turns readable once it answers, or a negative errno with
 * @err set; _recv reads the answer (@failed 0) or says why none came
 * (@failed a negative errno: nothing is killed). The answer is due within
 * trawl_kernel_session_regenerate_timeout_ms().
 */
int trawl_kernel_session_regenerate_send(struct trawl_kernel_session *s, int statedump,
					 char *err, size_t errlen);
int trawl_kernel_session_regenerate_recv(struct trawl_kernel_session *s, int statedump,
					 int failed, char *err, size_t errlen);
int trawl_kernel_session_regenerate_timeout_ms(int statedump);
/*
 * The session's process trackers (LTTng's): @spec holds one line
 * "ATTR:V,V,..." (ATTR pid, vpid, uid, vuid, gid or vgid; no values: none
 * included) per tracker that does not include every process. Consumers
 * started later apply them from their start; a running one takes them in
 * before this returns, for every record made from then on (the consumer's
 * tracker.c). 0, or a negative errno with @err set.
 */
#define TRAWL_KERNEL_TRACKER_ATTRS 6
int trawl_kernel_session_set_trackers(struct trawl_kernel_session *s, const char *spec, char *err,
				      size_t errlen);
/* 0 if the session's consumer was started and is gone (it died), else 1 (running,
 * or none started yet: a session never started lists no dead consumer). */
int trawl_kernel_session_consumer_alive(struct trawl_kernel_session *s);
/* What the last stop found lost (a full disk, relayd gone), one line; "" if nothing. */
const char *trawl_kernel_session_problem(const struct trawl_kernel_session *s);
/*
 * Events lost so far: the channels' per-CPU stats (dropped events, or overrun
 * in overwrite mode, and commit overrun) plus what the consumer lost itself
 * (records it could not convert, perf's lost samples) as of its last flush.
 * The trace's events_discarded say the same once the session is stopped.
 */
uint64_t trawl_kernel_session_lost(struct trawl_kernel_session *s);
/*
 * Channel @channel's part of it: its per-CPU stats only (the consumer's own
 * losses are the session's). 0, or -ENOENT.
 */
int trawl_kernel_session_channel_lost(struct trawl_kernel_session *s, const char *channel,
				      uint64_t *lost);
/*
 * Channel @channel's buffer usage now: the bytes its fullest per-CPU tracefs
 * buffer holds unread (its stats' "bytes:"), LTTng's highest usage, which
 * buffer-usage triggers compare. 0, -ENOENT, or -ENODATA (no CPU's stats).
 */
int trawl_kernel_session_channel_usage(struct trawl_kernel_session *s, const char *channel,
				       uint64_t *high);

/* ---- event notifiers of triggers (notify.c) ---- */

struct trawl_kernel_notifier;
/*
 * trawl_kernel_notifier_create - watches every kernel event an event rule
 * matches, on every CPU, each of its events read back one by one
 * @pattern: LTTng's name pattern (a star glob): tracepoint names, or with
 *           @syscall_rule system call names (their sys_enter_ and sys_exit_)
 * @filter: ftrace's filter syntax, "" for none
 * @captures: capture descriptors joined by ',' ("" for none); copied
 *
 * A pattern matching no event gives a notifier that never fires. Root only
 * (perf_event_open of tracepoints). Return: 0 and *@out (free with
 * _destroy()), or a negative errno with one line in @err.
 */
int trawl_kernel_notifier_create(const char *pattern, int syscall_rule, const char *filter,
				 const char *captures, struct trawl_kernel_notifier **out, char *err,
				 size_t errlen);
/* The fds to poll for reading (owned by @n): their count, the array in *@fds. */
/*
 * trawl_kernel_notifier_create_probe - the same for a probe rule (kprobe or
 * uprobe): the probe defined (trawl_kernel_trigger_probe_define(), which
 * takes @p->fd), watched, and removed again with the notifier. Its
 * captures see the probe's fields: a uprobe's a0..a5 (the function's first
 * six integer arguments; none at an SDT probe), both's __probe_ip.
 */
int trawl_kernel_notifier_create_probe(const struct trawl_kernel_trigger_probe *p,
				       const char *captures, struct trawl_kernel_notifier **out,
				       char *err, size_t errlen);
uint32_t trawl_kernel_notifier_fds(const struct trawl_kernel_notifier *n, const int **fds);
/*
 * trawl_kernel_notifier_read - the events fd @fd (one of @n's) holds: @fn is
 * called for each with its time (CLOCK_MONOTONIC ns) and its captures
 * (@nr_captures '\n'-terminated lines, NULL without captures; valid during
 * the call). Return: how many.
 */
uint32_t trawl_kernel_notifier_read(struct trawl_kernel_notifier *n, int fd,
				    void (*fn)(uint64_t ts_ns, uint32_t nr_captures,
					       const char *captures, void *arg),
				    void *arg);
/* Events the kernel dropped because a ring was full. */
uint64_t trawl_kernel_notifier_lost(const struct trawl_kernel_notifier *n);
void trawl_kernel_notifier_destroy(struct trawl_kernel_notifier *n);

#endif /* TRAWL_KERNEL_H */
