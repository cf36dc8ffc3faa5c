/* SPDX-License-Identifier: MIT */
/*
 * trawltop's analysis core, with no terminal in it: events in, per-interval
 * tables out.
 *
 *   source.c   reads traces with <trawl/reader.h> (the public API only),
 *              knows each event class once (which handler, which fields)
 *              and cuts time into intervals
 *   map.c      hash maps and interned strings
 *   samples.c  latencies, for exact percentiles
 *   model.c    threads, processes and CPUs: who runs where, since when
 *   sched.c    sched_switch, wake-ups, migrations, fork/exec/exit, state dump
 *   sys.c      system calls (entry -> exit latency) and the files they touch
 *   views.c    the model's interval as tables (processes, threads, syscalls,
 *              calls, files, ust) with typed columns
 *   table.c    tables: sort, filter, text and JSON
 *
 * Time is ns from the Epoch throughout. An interval is [begin, end): a
 * thread on a CPU when an interval ends is charged up to its end, so the
 * CPU times of an interval add up to exactly the time its CPUs ran.
 */
#ifndef TRAWL_TOP_H
#define TRAWL_TOP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <trawl/reader.h>

/* ---- small containers (map.c) ------------------------------------------- */

/* An open-addressing hash map from a 64-bit key to a pointer (linear probing). */
struct trawl_top_map {
	uint64_t *keys;
	void **vals;		/* NULL: empty slot (values are never NULL) */
	size_t cap, len;	/* cap is a power of two or 0 */
};

static inline size_t trawl_top_map_slot(uint64_t key, size_t cap)
{
	/*
	 * tids and (pid << 32 | id) keys are far from random: every bit of the
	 * key must reach the slot's bits (a product's low bits see only the
	 * key's low bits: all processes' rows of one call fell on one run of
	 * slots). murmur3's 64-bit finalizer.
	 */
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

/* The value under @key, or NULL (inline: a lookup or more per event). */
static inline void *trawl_top_map_get(const struct trawl_top_map *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = trawl_top_map_slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}
/* Stores @val (not NULL) under @key, replacing. Returns 0 or -ENOMEM. */
int trawl_top_map_put(struct trawl_top_map *m, uint64_t key, void *val);
/* Removes @key; returns its value (the caller's to free) or NULL. */
void *trawl_top_map_del(struct trawl_top_map *m, uint64_t key);
/* Frees the map's arrays, and each value with @free_val when not NULL. */
void trawl_top_map_fini(struct trawl_top_map *m, void (*free_val)(void *));
/*
 * Keeps the entries whose value @keep(value, @arg) says to keep (non-zero);
 * @keep frees the others. Returns how many went, or -ENOMEM (then @keep
 * was not called: the map is as it was).
 */
int64_t trawl_top_map_prune(struct trawl_top_map *m, int (*keep)(void *val, void *arg),
			    void *arg);

#define TRAWL_TOP_MAP_FOREACH(m, i) \
	for (size_t i = 0; i < (m)->cap; i++) if ((m)->vals[i])

/* Strings to small ids and back; ids are dense from 0. */
struct trawl_top_intern {
	struct trawl_top_map by_hash;	/* hash -> struct intern_entry chain */
	char **strs;			/* id -> string (owned) */
	size_t *lens;			/* id -> its length */
	size_t len, cap;
};

/* The id of @s (length @len), added when new. Returns it or -ENOMEM. */
int64_t trawl_top_intern_id(struct trawl_top_intern *in, const char *s, size_t len);
const char *trawl_top_intern_str(const struct trawl_top_intern *in, uint32_t id);
void trawl_top_intern_fini(struct trawl_top_intern *in);

/* ---- latencies (samples.c) ---------------------------------------------- */

/*
 * Values below it are counted (one counter per ns) once a row has many:
 * syscall latencies are mostly a few µs, so a busy call's samples cost an
 * increment in a few cache lines, not 8 bytes of new memory each.
 */
#define TRAWL_TOP_SAMPLES_COUNTED 65536
/* The values kept in the array before the small ones are counted instead. */
#define TRAWL_TOP_SAMPLES_PROMOTE 8192

/*
 * Latencies (ns) with an exact nearest-rank percentile: every value is
 * kept, in the array or, once there are TRAWL_TOP_SAMPLES_PROMOTE of them,
 * the ones below TRAWL_TOP_SAMPLES_COUNTED as counts.
 */
struct trawl_top_samples {
	uint64_t *v;		/* the values not counted */
	size_t len, cap;
	uint64_t *counts;	/* NULL, or TRAWL_TOP_SAMPLES_COUNTED counters */
	uint64_t ncounted;	/* values in counts */
	uint64_t lo, hi;	/* the smallest and largest value counted (lo > hi: none) */
};

/* trawl_top_samples_add() when the array is full: grows it, then adds. */
int trawl_top_samples_grow(struct trawl_top_samples *s, uint64_t ns);

/* Adds @ns. Returns 0 or -ENOMEM (inline: one or two per system call). */
static inline int trawl_top_samples_add(struct trawl_top_samples *s, uint64_t ns)
{
	if (s->counts && ns < TRAWL_TOP_SAMPLES_COUNTED) {
		s->counts[ns]++;
		s->ncounted++;
		s->lo = ns < s->lo ? ns : s->lo;
		s->hi = ns > s->hi ? ns : s->hi;
		return 0;
	}
	if (s->len == s->cap)
		return trawl_top_samples_grow(s, ns);
	s->v[s->len++] = ns;
	return 0;
}
/* Adds the values of @src to @dst. Returns 0 or -ENOMEM (then some may be missing). */
int trawl_top_samples_merge(struct trawl_top_samples *dst, const struct trawl_top_samples *src);
/* The @pct percentile (nearest rank) of the samples; reorders them. 0 when empty. */
uint64_t trawl_top_samples_pct(struct trawl_top_samples *s, double pct);
/* Empties @s, keeping its memory for the next values (as much as it needs). */
void trawl_top_samples_reset(struct trawl_top_samples *s);
void trawl_top_samples_fini(struct trawl_top_samples *s);

/* ---- the model (model.c, sched.c, sys.c) -------------------------------- */

#define TRAWL_TOP_COMM_LEN 32
#define TRAWL_TOP_MAX_PERF 8	/* perf counter contexts followed */

/* Per-interval counters of a thread or process (zeroed at each interval). */
struct trawl_top_counts {
	uint64_t cpu_ns;
	uint64_t wakeups, migrations, switches;
	uint64_t syscalls, syscall_errors;
	uint64_t read_bytes, write_bytes;
	uint64_t events;
	uint64_t perf[TRAWL_TOP_MAX_PERF];	/* counter increases */
};

struct trawl_top_thread {
	int64_t tid;
	int64_t pid;		/* its process (tgid); the tid while unknown */
	char comm[TRAWL_TOP_COMM_LEN];	/* NUL-padded to its end */
	int64_t prio;		/* as the trace says it (LTTng: 20 for nice 0) */
	int has_prio;
	char state;		/* R running, S, D, T, Z, I..., '?' */
	int64_t cpu;		/* last CPU seen on, -1 */
	int exited;
	/* a system call entered and not yet left */
	int sc_pending;
	uint32_t sc_id;		/* interned call name */
	int64_t sc_begin;
	int64_t sc_fd;		/* its fd argument, or -1 */
	int64_t sc_fd2;		/* dup2's new fd / sendfile's in_fd, or -1 */
	int64_t sc_path;	/* interned path argument (open*), or -1 */
	struct trawl_top_counts n;
	/* caches, valid while their generation is the model's */
	struct trawl_top_proc *proc;	/* its process (proc_gen) */
	uint64_t proc_gen;
	struct trawl_top_sc *sc_mine;	/* its last call's row (sc_gen) */
	uint64_t sc_gen;
};

struct trawl_top_proc {
	int64_t pid;
	char comm[TRAWL_TOP_COMM_LEN];
	int comm_known;		/* comm came from the process itself */
	struct trawl_top_map fds;	/* fd -> interned path id + 1 (as a pointer) */
	struct trawl_top_counts n;
	uint64_t threads_seen;	/* threads that ran or acted this interval */
};

struct trawl_top_cpu {
	int64_t cur_tid;	/* -1: not known yet */
	int64_t since;		/* when cur_tid's time starts counting (in this interval) */
	uint64_t busy_ns;	/* non-idle time this interval */
	int seen;		/* the CPU appeared in the trace */
};

/* One system call of one process (pid >= 0), or of all (pid == -1). */
struct trawl_top_sc {
	int64_t pid;
	uint32_t id;
	uint64_t count, errors, total_ns, min_ns, max_ns;
	struct trawl_top_samples lat;
};

/* One file of one process. */
struct trawl_top_file {
	int64_t pid;
	uint32_t path;
	uint64_t read_bytes, write_bytes, reads, writes, calls, total_ns, max_ns;
};

/* One user-space event (by name) of one process. */
struct trawl_top_ust {
	int64_t pid;
	uint32_t name;
	char comm[TRAWL_TOP_COMM_LEN];
	uint64_t count;
};

struct trawl_top_model {
	struct trawl_top_map threads;	/* tid -> thread */
	struct trawl_top_map procs;	/* pid -> proc */
	struct trawl_top_cpu *cpus;
	size_t ncpus;
	struct trawl_top_map scs;	/* (pid, id) -> sc; pid -1 for the totals */
	struct trawl_top_map files;	/* (pid, path) -> file */
	struct trawl_top_map usts;	/* (pid, name) -> ust */
	struct trawl_top_intern names;	/* call names, paths, event names */
	const char *perf_names[TRAWL_TOP_MAX_PERF];	/* interned, by counter index */
	size_t nperf;
	struct trawl_top_map perf_last;	/* (counter, cpu or tid) -> last value + 1 */
	/* the interval */
	int64_t begin, end;
	uint64_t events, discarded;
	uint64_t discarded_total;
	int overwritten;	/* live: events before this interval were overwritten */
	/* what the caches of threads hold stays valid while these stay */
	uint64_t proc_gen;	/* bumped when a process is freed */
	uint64_t sc_gen;	/* bumped when the calls are dropped (each interval) */
	struct trawl_top_thread *tcache[256];	/* by tid's low bits: the last ones looked up */
};

int trawl_top_model_init(struct trawl_top_model *m);
void trawl_top_model_fini(struct trawl_top_model *m);
/* Starts the interval [begin, end): zeroes every counter. */
void trawl_top_model_interval_begin(struct trawl_top_model *m, int64_t begin, int64_t end);
/* Charges the threads on CPU up to the interval's end. */
void trawl_top_model_interval_end(struct trawl_top_model *m);
/* Forgets who runs where (after a seek: the next switches say it again). */
void trawl_top_model_forget_cpus(struct trawl_top_model *m);

/* The thread @tid, created when new (NULL: out of memory). */
struct trawl_top_thread *trawl_top_model_thread_slow(struct trawl_top_model *m, int64_t tid);

static inline struct trawl_top_thread *trawl_top_model_thread(struct trawl_top_model *m,
							      int64_t tid)
{
	struct trawl_top_thread *t = m->tcache[(uint64_t)tid & 255];

	return t && t->tid == tid ? t : trawl_top_model_thread_slow(m, tid);
}
struct trawl_top_proc *trawl_top_model_proc(struct trawl_top_model *m, int64_t pid);
struct trawl_top_cpu *trawl_top_model_cpu(struct trawl_top_model *m, int64_t cpu);
/* Says @t belongs to process @pid (from a pid context, fork or state dump). */
int trawl_top_model_set_pid(struct trawl_top_model *m, struct trawl_top_thread *t, int64_t pid);
/* Sets a name: the thread's, and the process's when @t is its main thread. */
void trawl_top_model_set_comm(struct trawl_top_model *m, struct trawl_top_thread *t,
			      const char *comm, size_t len);
/* trawl_top_model_proc_of() when @t's cached process is not valid. */
struct trawl_top_proc *trawl_top_model_proc_of_slow(struct trawl_top_model *m,
						    struct trawl_top_thread *t);

/* The process of @t, created when new (inline: its cache, checked per system call). */
static inline struct trawl_top_proc *trawl_top_model_proc_of(struct trawl_top_model *m,
							     struct trawl_top_thread *t)
{
	struct trawl_top_proc *p = t->proc;

	if (p && t->proc_gen == m->proc_gen && p->pid == t->pid &&
	    (p->comm_known || p->comm[0] || !t->comm[0]))
		return p;
	return trawl_top_model_proc_of_slow(m, t);
}
/* Adds the perf counter named @name (interned) or finds it: index or -1 when full. */
int trawl_top_model_perf_index(struct trawl_top_model *m, const char *name);
/* Counter @idx read @value in thread @t on @cpu: adds the increase since the last one. */
void trawl_top_model_perf_value(struct trawl_top_model *m, struct trawl_top_thread *t,
				int64_t cpu, size_t idx, uint64_t value);

/* sched.c: the arguments each handler gets, read by source.c. */
void trawl_top_sched_switch(struct trawl_top_model *m, int64_t ts, int64_t cpu,
			    int64_t prev_tid, const char *prev_comm, int64_t prev_prio,
			    int64_t prev_state, int64_t next_tid, const char *next_comm,
			    int64_t next_prio);
void trawl_top_sched_wakeup(struct trawl_top_model *m, int64_t tid, const char *comm,
			    int64_t prio);
void trawl_top_sched_migrate(struct trawl_top_model *m, int64_t tid, const char *comm,
			     int64_t dest_cpu);
void trawl_top_sched_fork(struct trawl_top_model *m, int64_t parent_tid, int64_t parent_pid,
			  int64_t child_tid, int64_t child_pid, const char *child_comm);
void trawl_top_sched_exec(struct trawl_top_model *m, int64_t tid, const char *filename);
void trawl_top_sched_exit(struct trawl_top_model *m, int64_t tid);
void trawl_top_statedump_process(struct trawl_top_model *m, int64_t tid, int64_t pid,
				 const char *name);
int trawl_top_statedump_fd(struct trawl_top_model *m, int64_t pid, int64_t fd,
			   const char *path);

/* sys.c: what a system call is to the files view. */
enum trawl_top_sc_kind {
	TRAWL_TOP_SC_OTHER,	/* counted; no file */
	TRAWL_TOP_SC_FD,	/* acts on its fd argument */
	TRAWL_TOP_SC_READ,	/* reads ret bytes from fd */
	TRAWL_TOP_SC_WRITE,	/* writes ret bytes to fd */
	TRAWL_TOP_SC_OPEN,	/* opens its path argument; ret is the fd */
	TRAWL_TOP_SC_CLOSE,	/* closes fd */
	TRAWL_TOP_SC_DUP,	/* ret (or fd2) becomes a copy of fd */
};

enum trawl_top_sc_kind trawl_top_sc_kind_of(const char *call);
void trawl_top_sys_entry(struct trawl_top_model *m, struct trawl_top_thread *t, int64_t ts,
			 uint32_t id, int64_t fd, int64_t fd2, int64_t path);
void trawl_top_sys_exit(struct trawl_top_model *m, struct trawl_top_thread *t, int64_t ts,
			uint32_t id, enum trawl_top_sc_kind kind, int64_t ret);
/*
 * At the interval's end: each call's row of all processes (pid -1) becomes
 * the sum of its rows of each process (counted there alone, not twice per
 * call). Returns 0 or -ENOMEM (then some latencies may be missing).
 */
int trawl_top_sys_interval_end(struct trawl_top_model *m);

/* ---- tables (views.c, table.c) ------------------------------------------ */

enum trawl_top_col_kind {
	TRAWL_TOP_COL_TEXT,
	TRAWL_TOP_COL_INT,	/* a count or an id */
	TRAWL_TOP_COL_PCT,	/* percent, 1 decimal */
	TRAWL_TOP_COL_NS,	/* ns, shown in µs */
	TRAWL_TOP_COL_MS,	/* ns, shown in ms */
	TRAWL_TOP_COL_BYTES,
	TRAWL_TOP_COL_RATE,	/* per second, 1 decimal */
};

struct trawl_top_col {
	const char *head;	/* text header ("CPU%") */
	const char *key;	/* JSON key ("cpu_pct") */
	enum trawl_top_col_kind kind;
	int width;		/* text width; negative: left-aligned */
};

struct trawl_top_cell {
	double num;
	char *text;		/* in the table's strings; NULL for numbers */
};

/* A block of a table's strings (they never move: cells point into them). */
struct trawl_top_strblock {
	struct trawl_top_strblock *next;
	size_t used, cap;
	char data[];
};

struct trawl_top_table {
	const char *name;	/* the view's name ("processes") */
	struct trawl_top_col cols[24];
	size_t ncols;
	struct trawl_top_cell *cells;	/* nrows * ncols */
	size_t nrows, cap;
	size_t sort_col;	/* the default sort */
	struct trawl_top_strblock *strs;	/* the cells' texts, newest block first */
};

enum trawl_top_view {
	TRAWL_TOP_VIEW_PROCS,
	TRAWL_TOP_VIEW_THREADS,
	TRAWL_TOP_VIEW_SYSCALLS,
	TRAWL_TOP_VIEW_CALLS,
	TRAWL_TOP_VIEW_FILES,
	TRAWL_TOP_VIEW_UST,
	TRAWL_TOP_VIEW_COUNT,
};

const char *trawl_top_view_name(enum trawl_top_view v);
/* The view named @name (or a prefix of one's name), or -1. */
int trawl_top_view_parse(const char *name);
/* Builds view @v of @m's interval into @t (emptied first). Returns 0 or -ENOMEM. */
int trawl_top_view_build(struct trawl_top_model *m, enum trawl_top_view v,
			 struct trawl_top_table *t);

void trawl_top_table_fini(struct trawl_top_table *t);
/* A new row at the end (cells zero). NULL: out of memory. */
struct trawl_top_cell *trawl_top_table_row(struct trawl_top_table *t);
/* Sets @c's text to a copy of @s (NULL: ""), kept with @t's strings. */
int trawl_top_cell_text(struct trawl_top_table *t, struct trawl_top_cell *c, const char *s);
/* Sorts rows by column @col: numbers largest first, text in order (@reverse flips). */
void trawl_top_table_sort(struct trawl_top_table *t, size_t col, int reverse);
/*
 * Keeps only the rows whose pid/tid column equals @filter or whose
 * name/path/event contains it (empty or NULL: all rows).
 */
void trawl_top_table_filter(struct trawl_top_table *t, const char *filter);
/* Formats a cell as the text view shows it into @buf. */
void trawl_top_cell_format(const struct trawl_top_col *c, const struct trawl_top_cell *cell,
			   char *buf, size_t len);
/* Writes the header line of the columns, then @max rows (0: all). */
void trawl_top_table_print(const struct trawl_top_table *t, FILE *f, size_t max);
/* Writes the table as a JSON array of objects. */
void trawl_top_table_json(const struct trawl_top_table *t, FILE *f);
void trawl_top_json_string(FILE *f, const char *s);

/* ---- the source (source.c) ---------------------------------------------- */

struct trawl_top_source;

/* Opens the traces under @paths. On error *@out may hold a message (see _error). */
int trawl_top_source_open(const char *const *paths, size_t n, struct trawl_top_source **out);
/*
 * A live session of a relay daemon (trawl_reader_open_live()'s URL): its
 * events as they come; no time range (trawl_top_source_range() is of no
 * use) and no seeking. trawl_top_source_first_ns() waits for its first
 * event and gives its time: where the first interval begins.
 */
int trawl_top_source_open_live(const char *url, struct trawl_top_source **out);
int trawl_top_source_first_ns(struct trawl_top_source *s, int64_t *ns);
void trawl_top_source_destroy(struct trawl_top_source *s);
const char *trawl_top_source_error(const struct trawl_top_source *s);
/* The time the traces span. */
int trawl_top_source_range(struct trawl_top_source *s, int64_t *begin, int64_t *end);
/*
 * Reads the events of [@begin, @begin + @len) into @m's interval (@m's
 * counters are zeroed first; the end is clipped to the trace's). Events
 * must come in order: after a jump, call trawl_top_source_seek() first.
 * Returns 1 with an interval, 0 when @begin is past the end, or a negative
 * errno (trawl_top_source_error()).
 */
int trawl_top_source_interval(struct trawl_top_source *s, struct trawl_top_model *m,
			      int64_t begin, int64_t len);
/* Reads only the events from @ns on (before the first interval). */
int trawl_top_source_set_begin(struct trawl_top_source *s, int64_t ns);
/* Moves to @ns: the next interval starts there; who runs where is forgotten. */
int trawl_top_source_seek(struct trawl_top_source *s, struct trawl_top_model *m, int64_t ns);

/* ---- the header line (views.c) ------------------------------------------ */

/* The interval's header as text lines (time, events/s, discarded, CPUs). */
void trawl_top_header_print(const struct trawl_top_model *m, FILE *f);
void trawl_top_header_json(const struct trawl_top_model *m, FILE *f);

#endif /* TRAWL_TOP_H */
