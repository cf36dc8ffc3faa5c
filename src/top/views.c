/* SPDX-License-Identifier: MIT */
/*
 * The model's interval as tables, one per view, and the header above them.
 * A table's columns are typed, so that every front end (text, JSON, curses)
 * sorts, filters and formats any of them the same way.
 */
#include "top.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

static const char *const view_names[TRAWL_TOP_VIEW_COUNT] = {
	"processes", "threads", "syscalls", "calls", "files", "ust",
};

const char *trawl_top_view_name(enum trawl_top_view v)
{
	return v < TRAWL_TOP_VIEW_COUNT ? view_names[v] : "?";
}

int trawl_top_view_parse(const char *name)
{
	size_t n = strlen(name);

	for (int v = 0; v < TRAWL_TOP_VIEW_COUNT; v++)
		if (n && !strncmp(view_names[v], name, n))
			return v;
	return -1;
}

static void col(struct trawl_top_table *t, const char *head, const char *key,
		enum trawl_top_col_kind kind, int width)
{
	if (t->ncols < sizeof(t->cols) / sizeof(t->cols[0]))
		t->cols[t->ncols++] = (struct trawl_top_col){ head, key, kind, width };
}

static double pct(const struct trawl_top_model *m, uint64_t ns)
{
	int64_t len = m->end - m->begin;

	return len > 0 ? 100.0 * (double)ns / (double)len : 0.0;
}

static double rate(const struct trawl_top_model *m, uint64_t n)
{
	int64_t len = m->end - m->begin;

	return len > 0 ? (double)n * 1e9 / (double)len : 0.0;
}

static const char *comm_of(struct trawl_top_model *m, int64_t pid)
{
	struct trawl_top_proc *p = trawl_top_map_get(&m->procs, (uint64_t)pid);

	return p && p->comm[0] ? p->comm : "";
}

/* The perf counters as extra columns: "perf_cpu_page_fault" -> "page_fault". */
static void perf_cols(struct trawl_top_model *m, struct trawl_top_table *t)
{
	for (size_t k = 0; k < m->nperf; k++) {
		const char *n = m->perf_names[k], *s = n + 5;

		if (!strncmp(n, "perf_cpu_", 9))
			s = n + 9;
		else if (!strncmp(n, "perf_thread_", 12))
			s = n + 12;
		col(t, s, n, TRAWL_TOP_COL_INT, 10);
	}
}

static int counts_cells(struct trawl_top_model *m, struct trawl_top_cell *c,
			const struct trawl_top_counts *n)
{
	c[0].num = pct(m, n->cpu_ns);
	c[1].num = (double)n->cpu_ns;
	return 2;
}

static int procs_build(struct trawl_top_model *m, struct trawl_top_table *t)
{
	col(t, "PID", "pid", TRAWL_TOP_COL_INT, 7);
	col(t, "COMMAND", "command", TRAWL_TOP_COL_TEXT, -16);
	col(t, "CPU%", "cpu_pct", TRAWL_TOP_COL_PCT, 6);
	col(t, "CPU_MS", "cpu_ns", TRAWL_TOP_COL_MS, 9);
	col(t, "THR", "threads", TRAWL_TOP_COL_INT, 4);
	col(t, "PRIO", "prio", TRAWL_TOP_COL_INT, 4);
	col(t, "S", "state", TRAWL_TOP_COL_TEXT, 1);
	col(t, "WAKEUPS", "wakeups", TRAWL_TOP_COL_INT, 8);
	col(t, "MIGR", "migrations", TRAWL_TOP_COL_INT, 6);
	col(t, "SYSCALLS", "syscalls", TRAWL_TOP_COL_INT, 9);
	col(t, "ERRORS", "syscall_errors", TRAWL_TOP_COL_INT, 7);
	col(t, "READ", "read_bytes", TRAWL_TOP_COL_BYTES, 8);
	col(t, "WRITE", "write_bytes", TRAWL_TOP_COL_BYTES, 8);
	perf_cols(m, t);
	t->sort_col = 2;
	TRAWL_TOP_MAP_FOREACH(&m->procs, i) {
		struct trawl_top_proc *p = m->procs.vals[i];
		struct trawl_top_thread *main = trawl_top_map_get(&m->threads, (uint64_t)p->pid);
		struct trawl_top_cell *c;
		char st[2] = { main ? main->state : '?', 0 };

		if (!p->threads_seen)
			continue;
		if (!(c = trawl_top_table_row(t)))
			return -ENOMEM;
		c[0].num = (double)p->pid;
		if (trawl_top_cell_text(t, &c[1], p->comm) < 0 || trawl_top_cell_text(t, &c[6], st) < 0)
			return -ENOMEM;
		counts_cells(m, &c[2], &p->n);
		c[4].num = (double)p->threads_seen;
		c[5].num = main && main->has_prio ? (double)main->prio : 0;
		c[7].num = (double)p->n.wakeups;
		c[8].num = (double)p->n.migrations;
		c[9].num = (double)p->n.syscalls;
		c[10].num = (double)p->n.syscall_errors;
		c[11].num = (double)p->n.read_bytes;
		c[12].num = (double)p->n.write_bytes;
		for (size_t k = 0; k < m->nperf; k++)
			c[13 + k].num = (double)p->n.perf[k];
	}
	return 0;
}

static int threads_build(struct trawl_top_model *m, struct trawl_top_table *t)
{
	col(t, "TID", "tid", TRAWL_TOP_COL_INT, 7);
	col(t, "PID", "pid", TRAWL_TOP_COL_INT, 7);
	col(t, "COMMAND", "command", TRAWL_TOP_COL_TEXT, -16);
	col(t, "CPU%", "cpu_pct", TRAWL_TOP_COL_PCT, 6);
	col(t, "CPU_MS", "cpu_ns", TRAWL_TOP_COL_MS, 9);
	col(t, "PRIO", "prio", TRAWL_TOP_COL_INT, 4);
	col(t, "S", "state", TRAWL_TOP_COL_TEXT, 1);
	col(t, "CPU", "last_cpu", TRAWL_TOP_COL_INT, 3);
	col(t, "WAKEUPS", "wakeups", TRAWL_TOP_COL_INT, 8);
	col(t, "MIGR", "migrations", TRAWL_TOP_COL_INT, 6);
	col(t, "SWITCHES", "switches", TRAWL_TOP_COL_INT, 8);
	col(t, "SYSCALLS", "syscalls", TRAWL_TOP_COL_INT, 9);
	perf_cols(m, t);
	t->sort_col = 3;
	TRAWL_TOP_MAP_FOREACH(&m->threads, i) {
		struct trawl_top_thread *th = m->threads.vals[i];
		struct trawl_top_cell *c;
		char st[2] = { th->state, 0 };

		if (!th->n.cpu_ns && !th->n.events && !th->n.wakeups)
			continue;
		if (!(c = trawl_top_table_row(t)))
			return -ENOMEM;
		c[0].num = (double)th->tid;
		c[1].num = (double)th->pid;
		if (trawl_top_cell_text(t, &c[2], th->comm) < 0 || trawl_top_cell_text(t, &c[6], st) < 0)
			return -ENOMEM;
		counts_cells(m, &c[3], &th->n);
		c[5].num = th->has_prio ? (double)th->prio : 0;
		c[7].num = (double)th->cpu;
		c[8].num = (double)th->n.wakeups;
		c[9].num = (double)th->n.migrations;
		c[10].num = (double)th->n.switches;
		c[11].num = (double)th->n.syscalls;
		for (size_t k = 0; k < m->nperf; k++)
			c[12 + k].num = (double)th->n.perf[k];
	}
	return 0;
}

static void latency_cols(struct trawl_top_table *t)
{
	col(t, "COUNT", "count", TRAWL_TOP_COL_INT, 9);
	col(t, "ERRORS", "errors", TRAWL_TOP_COL_INT, 7);
	col(t, "TOTAL_US", "total_ns", TRAWL_TOP_COL_NS, 11);
	col(t, "MIN_US", "min_ns", TRAWL_TOP_COL_NS, 9);
	col(t, "MAX_US", "max_ns", TRAWL_TOP_COL_NS, 10);
	col(t, "P99_US", "p99_ns", TRAWL_TOP_COL_NS, 10);
	col(t, "RATE/S", "per_s", TRAWL_TOP_COL_RATE, 9);
}

static void latency_cells(struct trawl_top_model *m, struct trawl_top_sc *sc,
			  struct trawl_top_cell *c)
{
	c[0].num = (double)sc->count;
	c[1].num = (double)sc->errors;
	c[2].num = (double)sc->total_ns;
	c[3].num = sc->min_ns != UINT64_MAX ? (double)sc->min_ns : 0;	/* none timed: 0 */
	c[4].num = (double)sc->max_ns;
	c[5].num = (double)trawl_top_samples_pct(&sc->lat, 99.0);
	c[6].num = rate(m, sc->count);
}

static int syscalls_build(struct trawl_top_model *m, struct trawl_top_table *t, int totals)
{
	size_t first = totals ? 1 : 3;

	if (!totals) {
		col(t, "PID", "pid", TRAWL_TOP_COL_INT, 7);
		col(t, "COMMAND", "command", TRAWL_TOP_COL_TEXT, -16);
	}
	col(t, "SYSCALL", "syscall", TRAWL_TOP_COL_TEXT, -18);
	latency_cols(t);
	t->sort_col = first;
	TRAWL_TOP_MAP_FOREACH(&m->scs, i) {
		struct trawl_top_sc *sc = m->scs.vals[i];
		struct trawl_top_cell *c;

		if ((sc->pid < 0) != !!totals || !sc->count)
			continue;	/* a row kept from an interval before */
		if (!(c = trawl_top_table_row(t)))
			return -ENOMEM;
		if (!totals) {
			c[0].num = (double)sc->pid;
			if (trawl_top_cell_text(t, &c[1], comm_of(m, sc->pid)) < 0)
				return -ENOMEM;
		}
		if (trawl_top_cell_text(t, &c[first - 1], trawl_top_intern_str(&m->names, sc->id)) < 0)
			return -ENOMEM;
		latency_cells(m, sc, &c[first]);
	}
	return 0;
}

static int files_build(struct trawl_top_model *m, struct trawl_top_table *t)
{
	col(t, "PID", "pid", TRAWL_TOP_COL_INT, 7);
	col(t, "COMMAND", "command", TRAWL_TOP_COL_TEXT, -16);
	col(t, "BYTES", "bytes", TRAWL_TOP_COL_BYTES, 8);
	col(t, "READ", "read_bytes", TRAWL_TOP_COL_BYTES, 8);
	col(t, "WRITE", "write_bytes", TRAWL_TOP_COL_BYTES, 8);
	col(t, "READS", "reads", TRAWL_TOP_COL_INT, 7);
	col(t, "WRITES", "writes", TRAWL_TOP_COL_INT, 7);
	col(t, "CALLS", "calls", TRAWL_TOP_COL_INT, 7);
	col(t, "TOTAL_US", "total_ns", TRAWL_TOP_COL_NS, 11);
	col(t, "MAX_US", "max_ns", TRAWL_TOP_COL_NS, 10);
	col(t, "PATH", "path", TRAWL_TOP_COL_TEXT, -40);
	t->sort_col = 2;
	TRAWL_TOP_MAP_FOREACH(&m->files, i) {
		struct trawl_top_file *f = m->files.vals[i];
		struct trawl_top_cell *c = trawl_top_table_row(t);

		if (!c)
			return -ENOMEM;
		c[0].num = (double)f->pid;
		if (trawl_top_cell_text(t, &c[1], comm_of(m, f->pid)) < 0 ||
		    trawl_top_cell_text(t, &c[10], trawl_top_intern_str(&m->names, f->path)) < 0)
			return -ENOMEM;
		c[2].num = (double)(f->read_bytes + f->write_bytes);
		c[3].num = (double)f->read_bytes;
		c[4].num = (double)f->write_bytes;
		c[5].num = (double)f->reads;
		c[6].num = (double)f->writes;
		c[7].num = (double)f->calls;
		c[8].num = (double)f->total_ns;
		c[9].num = (double)f->max_ns;
	}
	return 0;
}

static int ust_build(struct trawl_top_model *m, struct trawl_top_table *t)
{
	col(t, "PID", "pid", TRAWL_TOP_COL_INT, 7);
	col(t, "COMMAND", "command", TRAWL_TOP_COL_TEXT, -16);
	col(t, "COUNT", "count", TRAWL_TOP_COL_INT, 9);
	col(t, "RATE/S", "per_s", TRAWL_TOP_COL_RATE, 10);
	col(t, "EVENT", "event", TRAWL_TOP_COL_TEXT, -40);
	t->sort_col = 2;
	TRAWL_TOP_MAP_FOREACH(&m->usts, i) {
		struct trawl_top_ust *u = m->usts.vals[i];
		struct trawl_top_cell *c = trawl_top_table_row(t);

		if (!c)
			return -ENOMEM;
		c[0].num = (double)u->pid;
		if (trawl_top_cell_text(t, &c[1], u->comm) < 0 ||
		    trawl_top_cell_text(t, &c[4], trawl_top_intern_str(&m->names, u->name)) < 0)
			return -ENOMEM;
		c[2].num = (double)u->count;
		c[3].num = rate(m, u->count);
	}
	return 0;
}

int trawl_top_view_build(struct trawl_top_model *m, enum trawl_top_view v,
			 struct trawl_top_table *t)
{
	int ret;

	trawl_top_table_fini(t);
	t->name = trawl_top_view_name(v);
	switch (v) {
	case TRAWL_TOP_VIEW_PROCS: ret = procs_build(m, t); break;
	case TRAWL_TOP_VIEW_THREADS: ret = threads_build(m, t); break;
	case TRAWL_TOP_VIEW_SYSCALLS: ret = syscalls_build(m, t, 0); break;
	case TRAWL_TOP_VIEW_CALLS: ret = syscalls_build(m, t, 1); break;
	case TRAWL_TOP_VIEW_FILES: ret = files_build(m, t); break;
	case TRAWL_TOP_VIEW_UST: ret = ust_build(m, t); break;
	default: return -EINVAL;
	}
	if (ret == 0)
		trawl_top_table_sort(t, t->sort_col, 0);
	return ret;
}

static uint64_t busy_total(const struct trawl_top_model *m, size_t *ncpus)
{
	uint64_t busy = 0;

	*ncpus = 0;
	for (size_t c = 0; c < m->ncpus; c++) {
		if (!m->cpus[c].seen)
			continue;
		busy += m->cpus[c].busy_ns;
		(*ncpus)++;
	}
	return busy;
}

void trawl_top_header_print(const struct trawl_top_model *m, FILE *f)
{
	size_t ncpus, shown = 0;
	uint64_t busy = busy_total(m, &ncpus);

	fprintf(f, "trawltop: interval %" PRId64 ".%09" PRId64 " +%.3f s, %" PRIu64
		   " events (%.0f/s), %" PRIu64 " discarded\n",
		m->begin / 1000000000, m->begin % 1000000000,
		(double)(m->end - m->begin) / 1e9, m->events, rate(m, m->events), m->discarded);
	if (m->overwritten)
		fprintf(f, "warning: the buffers were overwritten before this interval was read: "
			   "events are missing\n");
	fprintf(f, "CPU %5.1f%%", ncpus ? pct(m, busy) / (double)ncpus : 0.0);
	for (size_t c = 0; c < m->ncpus; c++) {
		if (!m->cpus[c].seen)
			continue;
		fprintf(f, "%s cpu%zu %5.1f%%", shown % 8 == 7 ? "\n   " : "", c,
			pct(m, m->cpus[c].busy_ns));
		shown++;
	}
	fprintf(f, "\n");
}

void trawl_top_header_json(const struct trawl_top_model *m, FILE *f)
{
	size_t ncpus, first = 1;
	uint64_t busy = busy_total(m, &ncpus);

	fprintf(f, "\"begin_ns\":%" PRId64 ",\"end_ns\":%" PRId64 ",\"events\":%" PRIu64
		   ",\"events_per_s\":%.1f,\"discarded\":%" PRIu64 ",\"overwritten\":%s"
		   ",\"cpu_pct\":%.2f,\"cpus\":[",
		m->begin, m->end, m->events, rate(m, m->events), m->discarded,
		m->overwritten ? "true" : "false",
		ncpus ? pct(m, busy) / (double)ncpus : 0.0);
	for (size_t c = 0; c < m->ncpus; c++) {
		if (!m->cpus[c].seen)
			continue;
		fprintf(f, "%s{\"cpu\":%zu,\"busy_ns\":%" PRIu64 ",\"usage_pct\":%.2f}",
			first ? "" : ",", c, m->cpus[c].busy_ns, pct(m, m->cpus[c].busy_ns));
		first = 0;
	}
	fprintf(f, "]");
}
