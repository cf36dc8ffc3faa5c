/* SPDX-License-Identifier: MIT */
/*
 * From traces to the model, through <trawl/reader.h> alone. Each event
 * class is looked at once (its first event): which handler it has, where
 * its fields are and of which kind (the members its events are read by,
 * compiled into one trawl_reader_selection); every later event of the
 * class costs a cache or map lookup and one
 * trawl_reader_event_read_selection(), and the events trawltop does not
 * use are never decoded past their header. A system call's entry or exit
 * (most events of a busy trace) whose members all sit at fixed places in
 * the event's body is read in place: its few integers loaded straight
 * from trawl_reader_event_body(), as trawl_reader_selection_layout() said.
 */
#include "top.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum handler {
	H_IGNORE,
	H_SWITCH,
	H_WAKEUP,
	H_MIGRATE,
	H_FORK,
	H_EXEC,
	H_EXIT,
	H_SC_ENTRY,
	H_SC_EXIT,
	H_SD_PROC,
	H_SD_FD,
	H_UST,
};

/* Payload field slots, per handler (see class_payload()). */
enum { F0, F1, F2, F3, F4, F5, F6, F7, NF };

/* What an event of a class is read for: its values' slots. */
enum {
	V_TID, V_PID, V_VPID, V_PROCNAME,	/* common context */
	V_F0,					/* payload: V_F0 + F0... */
	V_PERF0 = V_F0 + NF,			/* perf counters (common context) */
	NV = V_PERF0 + TRAWL_TOP_MAX_PERF,
};

/* How a slot is loaded from an event's body (class_in_place()). */
enum slot_load {
	LD_ABSENT,	/* the class has none: the slot's default */
	LD_U8, LD_U16, LD_U32, LD_U64,
	LD_S8, LD_S16, LD_S32,
	LD_TEXT,	/* a text array of size bytes */
};

struct slot_ld {
	uint32_t off;	/* bytes from the body's first byte */
	uint32_t size;	/* LD_TEXT: bytes */
	uint8_t code;	/* enum slot_load */
};

struct class_info {
	enum handler h;
	/* the members read, in one trawl_reader_event_read_selection() per event */
	struct trawl_reader_member mem[NV];
	size_t nmem;
	struct trawl_reader_selection *sel;	/* owned: mem compiled */
	/*
	 * slot -> its index in mem, -1: the class has none of the kind the
	 * slot is read as (so an event's value needs no check)
	 */
	signed char at[NV];
	int f[NF];		/* payload member indexes, -1: absent */
	unsigned int fstr;	/* the payload slots read as strings (1 << F0...) */
	int need_cpu;		/* its events' CPU is used even with a tid context */
	int perf_idx[TRAWL_TOP_MAX_PERF];	/* model counter index */
	size_t nperf;
	uint32_t name;		/* interned: the call, or the ust event */
	enum trawl_top_sc_kind kind;
	int has_ctx;		/* its events' common context is read */
	/* a system call whose slots are all in place: how each is loaded (or absent) */
	int in_place;
	struct slot_ld ld[NV];
	int64_t env_vpid;	/* ust: the trace's vpid (per-pid buffers), -1 */
	const char *env_procname;
};

struct trawl_top_source {
	struct trawl_reader *r;
	struct trawl_top_map classes;	/* class pointer -> struct class_info */
	struct trawl_top_model *m;	/* for the discarded callback */
	int pending;		/* the reader's current event is not read yet */
	int at_end;
	int live;		/* a live session: no time range, no seeking */
	/* the last classes looked up, by their pointer's bits: most events skip the map */
	const struct trawl_reader_event_class *cc_ec[16];
	struct class_info *cc_ci[16];
	int64_t begin, end;	/* what the traces span */
	char err[256];
};

static void on_discarded(void *arg, const struct trawl_reader_discarded *d)
{
	struct trawl_top_source *s = arg;

	if (s->m) {
		s->m->discarded += d->count;
		s->m->discarded_total += d->count;
	}
}

int trawl_top_source_open(const char *const *paths, size_t n, struct trawl_top_source **out)
{
	struct trawl_top_source *s = calloc(1, sizeof(*s));
	int ret;

	*out = s;
	if (!s)
		return -ENOMEM;
	ret = trawl_reader_open(paths, n, &s->r);
	if (ret < 0) {
		snprintf(s->err, sizeof(s->err), "%s", trawl_reader_error(s->r));
		return ret;
	}
	trawl_reader_set_discarded_cb(s->r, on_discarded, s);
	ret = trawl_reader_time_range(s->r, &s->begin, &s->end);
	if (ret < 0) {
		snprintf(s->err, sizeof(s->err), "%s",
			 ret == -ENODATA ? "the traces hold no timed events"
					 : trawl_reader_error(s->r));
		return ret;
	}
	return 0;
}

int trawl_top_source_open_live(const char *url, struct trawl_top_source **out)
{
	struct trawl_top_source *s = calloc(1, sizeof(*s));
	int ret;

	*out = s;
	if (!s)
		return -ENOMEM;
	ret = trawl_reader_open_live(url, &s->r);
	if (ret < 0) {
		snprintf(s->err, sizeof(s->err), "%s", trawl_reader_error(s->r));
		return ret;
	}
	trawl_reader_set_discarded_cb(s->r, on_discarded, s);
	/* quiet times close intervals in which no event comes */
	trawl_reader_set_flags(s->r, TRAWL_READER_LIVE_QUIET);
	s->live = 1;
	s->begin = INT64_MIN;
	s->end = INT64_MAX - 1;
	return 0;
}

int trawl_top_source_first_ns(struct trawl_top_source *s, int64_t *ns)
{
	int ret;

	if (!s->live) {
		*ns = s->begin;
		return 0;
	}
	if (!s->pending && !s->at_end) {
		while ((ret = trawl_reader_next(s->r)) == 2)
			;	/* the first event, not quiet times before it */
		if (ret < 0) {
			snprintf(s->err, sizeof(s->err), "%s", trawl_reader_error(s->r));
			return ret;
		}
		s->pending = ret > 0;
		s->at_end = ret == 0;
	}
	if (!s->pending || trawl_reader_event_time_ns(s->r, ns) < 0)
		*ns = 0;
	return 0;
}

static void class_free(void *p)
{
	struct class_info *ci = p;

	trawl_reader_selection_destroy(ci->sel);
	free(ci);
}

void trawl_top_source_destroy(struct trawl_top_source *s)
{
	if (!s)
		return;
	trawl_reader_destroy(s->r);
	trawl_top_map_fini(&s->classes, class_free);
	free(s);
}

const char *trawl_top_source_error(const struct trawl_top_source *s)
{
	return s && s->err[0] ? s->err : "out of memory";
}

int trawl_top_source_range(struct trawl_top_source *s, int64_t *begin, int64_t *end)
{
	*begin = s->begin;
	*end = s->end;
	return 0;
}

#define PL TRAWL_READER_SCOPE_EVENT_PAYLOAD
#define CC TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT

/*
 * Slot @v of the class's events is member @index of @scope (none when
 * negative), when it is a string (@str) or an integer: its kind is the
 * same in every event of the class, so its values are not checked again.
 */
static void class_want(struct class_info *ci, const struct trawl_reader_event_class *ec, int v,
		       enum trawl_reader_scope scope, int index, int str)
{
	int kind = trawl_reader_event_class_field_kind(ec, scope, index);

	if (index < 0 || kind < 0)
		return;
	if (str ? kind != TRAWL_READER_FIELD_STRING :
		  kind != TRAWL_READER_FIELD_INTEGER && kind != TRAWL_READER_FIELD_ENUM)
		return;
	ci->at[v] = (signed char)ci->nmem;
	ci->mem[ci->nmem++] = (struct trawl_reader_member){ scope, index };
}

static int idx(const struct trawl_reader_event_class *ec, const char *a, const char *b)
{
	int i = trawl_reader_event_class_field_index(ec, TRAWL_READER_SCOPE_EVENT_PAYLOAD, a);

	if (i < 0 && b)
		i = trawl_reader_event_class_field_index(ec, TRAWL_READER_SCOPE_EVENT_PAYLOAD, b);
	return i;
}

static enum handler kernel_handler(const char *name)
{
	static const struct {
		const char *name;
		enum handler h;
	} map[] = {
		{ "sched_switch", H_SWITCH },
		{ "sched_wakeup", H_WAKEUP },
		{ "sched_wakeup_new", H_WAKEUP },
		{ "sched_migrate_task", H_MIGRATE },
		{ "sched_process_fork", H_FORK },
		{ "sched_process_exec", H_EXEC },
		{ "sched_process_exit", H_EXIT },
		{ "lttng_statedump_process_state", H_SD_PROC },
		{ "lttng_statedump_file_descriptor", H_SD_FD },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].name, name))
			return map[i].h;
	return H_IGNORE;
}

/*
 * Where each handler's fields are. LTTng-modules names threads "tid" and
 * processes "pid"; ftrace's formats name threads "pid": both are read.
 */
static void class_payload(struct class_info *ci, const struct trawl_reader_event_class *ec)
{
	int *f = ci->f;

	switch (ci->h) {
	case H_SWITCH:
		f[F0] = idx(ec, "prev_tid", "prev_pid");
		f[F1] = idx(ec, "prev_comm", NULL);
		f[F2] = idx(ec, "prev_prio", NULL);
		f[F3] = idx(ec, "prev_state", NULL);
		f[F4] = idx(ec, "next_tid", "next_pid");
		f[F5] = idx(ec, "next_comm", NULL);
		f[F6] = idx(ec, "next_prio", NULL);
		ci->fstr = 1u << F1 | 1u << F5;
		break;
	case H_WAKEUP:
	case H_MIGRATE:
		f[F0] = idx(ec, "tid", "pid");
		f[F1] = idx(ec, "comm", NULL);
		f[F2] = idx(ec, "prio", NULL);
		f[F3] = idx(ec, "dest_cpu", NULL);
		ci->fstr = 1u << F1;
		break;
	case H_FORK:
		/* LTTng: parent_tid/child_tid threads, parent_pid/child_pid tgids */
		f[F0] = idx(ec, "parent_tid", NULL);
		f[F1] = idx(ec, "parent_pid", NULL);
		f[F2] = idx(ec, "child_tid", NULL);
		f[F3] = idx(ec, "child_pid", NULL);
		f[F4] = idx(ec, "child_comm", NULL);
		ci->fstr = 1u << F4;
		break;
	case H_EXEC:
		f[F0] = idx(ec, "tid", "pid");
		f[F1] = idx(ec, "filename", NULL);
		ci->fstr = 1u << F1;
		break;
	case H_EXIT:
		f[F0] = idx(ec, "tid", "pid");
		break;
	case H_SD_PROC:
		f[F0] = idx(ec, "tid", NULL);
		f[F1] = idx(ec, "pid", NULL);
		f[F2] = idx(ec, "name", NULL);
		ci->fstr = 1u << F2;
		break;
	case H_SD_FD:
		f[F0] = idx(ec, "pid", NULL);
		f[F1] = idx(ec, "fd", NULL);
		f[F2] = idx(ec, "filename", NULL);
		ci->fstr = 1u << F2;
		break;
	case H_SC_ENTRY:
		f[F0] = idx(ec, "fd", "fildes");
		if (f[F0] < 0)
			f[F0] = idx(ec, "oldfd", "out_fd");
		f[F1] = idx(ec, "newfd", "in_fd");
		f[F2] = idx(ec, "filename", "pathname");
		ci->fstr = 1u << F2;
		break;
	case H_SC_EXIT:
		f[F0] = idx(ec, "ret", NULL);
		break;
	default:
		break;
	}
}

static const char *skip_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) ? NULL : s + n;
}

/* The perf counter contexts (perf_*) of the class, from its first event. */
static void class_perf(struct trawl_top_source *s, struct trawl_top_model *m,
		       struct class_info *ci)
{
	const struct trawl_reader_field *ctx;

	if (trawl_reader_event_field(s->r, TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT, &ctx) < 0)
		return;
	ci->has_ctx = 1;
	for (size_t i = 0; i < trawl_reader_field_count(ctx) && ci->nperf < TRAWL_TOP_MAX_PERF;
	     i++) {
		const struct trawl_reader_field *f = trawl_reader_field_at(ctx, i);
		const char *name = trawl_reader_field_name(f);
		int k;

		if (!name || strncmp(name, "perf_", 5) ||
		    trawl_reader_field_kind(f) != TRAWL_READER_FIELD_INTEGER)
			continue;
		k = trawl_top_model_perf_index(m, name);
		if (k < 0)
			continue;
		class_want(ci, trawl_reader_event_class_of(s->r), V_PERF0 + (int)ci->nperf, CC,
			   (int)i, 0);
		ci->perf_idx[ci->nperf++] = k;
	}
}

static int class_ust(struct trawl_top_model *m, struct class_info *ci, const char *name,
		     const struct trawl_reader_trace *tr)
{
	int64_t id = trawl_top_intern_id(&m->names, name, strlen(name));

	if (id < 0)
		return (int)id;
	ci->h = H_UST;
	ci->name = (uint32_t)id;
	if (trawl_reader_trace_env_int(tr, "vpid", &ci->env_vpid) < 0)
		ci->env_vpid = -1;
	ci->env_procname = trawl_reader_trace_env_string(tr, "procname");
	return 0;
}

static int class_syscall(struct trawl_top_model *m, struct class_info *ci, const char *name)
{
	const char *call;
	int64_t id;

	if ((call = skip_prefix(name, "syscall_entry_")) ||
	    (call = skip_prefix(name, "compat_syscall_entry_")))
		ci->h = H_SC_ENTRY;
	else if ((call = skip_prefix(name, "syscall_exit_")) ||
		 (call = skip_prefix(name, "compat_syscall_exit_")))
		ci->h = H_SC_EXIT;
	else
		return 0;
	id = trawl_top_intern_id(&m->names, call, strlen(call));
	if (id < 0)
		return (int)id;
	ci->name = (uint32_t)id;
	ci->kind = trawl_top_sc_kind_of(call);
	return 0;
}

/*
 * A system call's class is read in place when every slot it reads sits at
 * a fixed place in the body, as an integer (or a text array for its string
 * slots), and it needs no CPU (a tid context, no perf counters).
 */
static void class_in_place(struct class_info *ci)
{
	static const uint8_t codes[2][9] = {
		{ [1] = LD_U8, [2] = LD_U16, [4] = LD_U32, [8] = LD_U64 },
		{ [1] = LD_S8, [2] = LD_S16, [4] = LD_S32, [8] = LD_U64 },	/* same bits */
	};
	struct trawl_reader_layout lay;

	if ((ci->h != H_SC_ENTRY && ci->h != H_SC_EXIT) || ci->nperf || ci->at[V_TID] < 0)
		return;
	for (int v = 0; v < NV; v++) {
		int str = v == V_PROCNAME ||
			  (v >= V_F0 && v < V_F0 + NF && (ci->fstr >> (v - V_F0) & 1));
		struct slot_ld *ld = &ci->ld[v];

		ld->code = LD_ABSENT;
		if (ci->at[v] < 0)
			continue;
		if (trawl_reader_selection_layout(ci->sel, (size_t)ci->at[v], &lay) < 0)
			return;
		if (str && lay.load == TRAWL_READER_LOAD_TEXT)
			ld->code = LD_TEXT;
		else if (!str && (lay.load == TRAWL_READER_LOAD_UINT ||
				  lay.load == TRAWL_READER_LOAD_INT) && lay.size <= 8)
			ld->code = codes[lay.load == TRAWL_READER_LOAD_INT][lay.size];
		if (ld->code == LD_ABSENT)
			return;
		ld->off = lay.offset;
		ld->size = lay.size;
	}
	ci->in_place = 1;
}

static struct class_info *class_learn(struct trawl_top_source *s, struct trawl_top_model *m,
				      const struct trawl_reader_event_class *ec)
{
	struct class_info *ci = calloc(1, sizeof(*ci));
	const struct trawl_reader_stream *st = trawl_reader_event_stream(s->r);
	const struct trawl_reader_trace *tr = st ? trawl_reader_stream_trace(st) : NULL;
	const char *domain = tr ? trawl_reader_trace_env_string(tr, "domain") : NULL;
	const char *name = trawl_reader_event_class_name(ec);
	enum trawl_reader_scope cc = TRAWL_READER_SCOPE_EVENT_COMMON_CONTEXT;

	if (!ci)
		return NULL;
	for (int i = 0; i < NF; i++)
		ci->f[i] = -1;
	memset(ci->at, -1, sizeof(ci->at));
	if (domain && !strcmp(domain, "ust")) {
		if (class_ust(m, ci, name, tr) < 0)
			goto fail;
	} else {
		ci->h = kernel_handler(name);
		if (ci->h == H_IGNORE && class_syscall(m, ci, name) < 0)
			goto fail;
		class_payload(ci, ec);
	}
	class_perf(s, m, ci);
	if (ci->has_ctx) {
		int tid = trawl_reader_event_class_field_index(ec, cc, "tid");
		int pid = trawl_reader_event_class_field_index(ec, cc, "pid");
		int vpid = trawl_reader_event_class_field_index(ec, cc, "vpid");

		/* user space: its process; the kernel: the thread and its process */
		if (ci->h == H_UST) {
			class_want(ci, ec, V_VPID, cc, vpid, 0);
		} else {
			class_want(ci, ec, V_TID, cc, tid, 0);
			class_want(ci, ec, V_PID, cc, pid, 0);
		}
		class_want(ci, ec, V_PROCNAME, cc,
			   trawl_reader_event_class_field_index(ec, cc, "procname"), 1);
		ci->has_ctx = tid >= 0 || pid >= 0 || vpid >= 0 || ci->nperf;
	}
	for (int i = 0; i < NF; i++)
		class_want(ci, ec, V_F0 + i, PL, ci->f[i], (int)(ci->fstr >> i & 1));
	/* the CPU: who runs there (no tid), a switch's CPU, per-CPU counters */
	ci->need_cpu = ci->at[V_TID] < 0 || ci->h == H_SWITCH || ci->nperf;
	if (trawl_reader_selection_create(ec, ci->mem, ci->nmem, &ci->sel) < 0 ||
	    trawl_top_map_put(&s->classes, (uint64_t)(uintptr_t)ec, ci) < 0)
		goto fail;
	class_in_place(ci);
	return ci;
fail:
	class_free(ci);
	return NULL;
}

/* The values of the current event, as its class_info's slots say. */
struct event_vals {
	const struct class_info *ci;
	struct trawl_reader_value v[NV];
};

/*
 * Slot @slot as an integer (@dflt: the class has none). class_want() took
 * only members of the slot's kind, and such a member's value is there in
 * every event that reads (trawl_reader_event_class_field_kind()).
 */
static inline int64_t v_int(const struct event_vals *ev, int slot, int64_t dflt)
{
	int k = ev->ci->at[slot];

	return k < 0 ? dflt : ev->v[k].i;
}

static inline const char *v_str(const struct event_vals *ev, int slot)
{
	int k = ev->ci->at[slot];

	return k < 0 ? NULL : ev->v[k].str;
}

/* The @n < TRAWL_TOP_COMM_LEN bytes at @a and @b are the same (overlapping loads, no call). */
static inline int comm_bytes_eq(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	uint32_t x4, y4, x4b, y4b;
	uint16_t x2, y2, x2b, y2b;

	if (n >= 8) {
		for (size_t i = 0; i + 8 < n; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return 0;
		}
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		return x == y;
	}
	if (n >= 4) {
		memcpy(&x4, a, 4);
		memcpy(&y4, b, 4);
		memcpy(&x4b, a + n - 4, 4);
		memcpy(&y4b, b + n - 4, 4);
		return x4 == y4 && x4b == y4b;
	}
	if (n >= 2) {
		memcpy(&x2, a, 2);
		memcpy(&y2, b, 2);
		memcpy(&x2b, a + n - 2, 2);
		memcpy(&y2b, b + n - 2, 2);
		return x2 == y2 && x2b == y2b;
	}
	return n == 0 || a[0] == b[0];
}

/*
 * The thread's name is already @comm (@len bytes, no NUL among them), as
 * strncmp(t->comm, comm, TRAWL_TOP_COMM_LEN - 1) == 0 says, without the
 * call: nearly every event of a thread carries the name it has.
 */
static inline int comm_same(const struct trawl_top_thread *t, const char *comm, size_t len)
{
	if (len >= TRAWL_TOP_COMM_LEN - 1)
		return !strncmp(t->comm, comm, TRAWL_TOP_COMM_LEN - 1);
	return t->comm[len] == '\0' && comm_bytes_eq(t->comm, comm, len);
}

#define F(i) (V_F0 + (i))

/* The thread an event is of: its tid context, else who runs on its CPU. */
static struct trawl_top_thread *event_thread(struct trawl_top_source *s,
					     struct trawl_top_model *m,
					     const struct event_vals *ev, int64_t *cpu)
{
	const struct class_info *ci = ev->ci;
	struct trawl_top_thread *t;
	uint64_t c;
	int64_t tid = ci->has_ctx ? v_int(ev, V_TID, -1) : -1, pid;

	*cpu = -1;
	if ((ci->need_cpu || tid < 0) && trawl_reader_event_cpu(s->r, &c) == 0)
		*cpu = (int64_t)c;
	if (tid < 0 && *cpu >= 0 && (size_t)*cpu < m->ncpus)
		tid = m->cpus[*cpu].cur_tid;
	if (tid <= 0 || !(t = trawl_top_model_thread(m, tid)))
		return NULL;
	if (ci->has_ctx) {
		int k = ci->at[V_PROCNAME];

		pid = v_int(ev, V_PID, -1);
		if (pid > 0 && pid != t->pid)
			trawl_top_model_set_pid(m, t, pid);
		if (k >= 0 && ev->v[k].i > 0 &&
		    !comm_same(t, ev->v[k].str, (size_t)ev->v[k].i))
			trawl_top_model_set_comm(m, t, ev->v[k].str, (size_t)ev->v[k].i);
	}
	return t;
}

static int ust_event(struct trawl_top_source *s, struct trawl_top_model *m,
		     const struct event_vals *ev)
{
	const struct class_info *ci = ev->ci;
	int64_t pid = ci->has_ctx ? v_int(ev, V_VPID, ci->env_vpid) : ci->env_vpid;
	const char *comm = ci->has_ctx ? v_str(ev, V_PROCNAME) : NULL;
	uint64_t key = ((uint64_t)pid << 32) ^ ci->name;
	struct trawl_top_ust *u = trawl_top_map_get(&m->usts, key);

	if (!comm)
		comm = ci->env_procname;
	if (!u) {
		u = calloc(1, sizeof(*u));
		if (!u || trawl_top_map_put(&m->usts, key, u) < 0) {
			free(u);
			return -ENOMEM;
		}
		u->pid = pid;
		u->name = ci->name;
		snprintf(u->comm, sizeof(u->comm), "%s", comm ? comm : "");
	}
	u->count++;
	return 0;
}

static void kernel_event(struct trawl_top_model *m, const struct event_vals *ev,
			 struct trawl_top_thread *t, int64_t ts, int64_t cpu)
{
	const struct class_info *ci = ev->ci;
	int64_t path = -1;
	const char *str;

	switch (ci->h) {
	case H_SWITCH:
		trawl_top_sched_switch(m, ts, cpu, v_int(ev, F(F0), -1), v_str(ev, F(F1)),
				       v_int(ev, F(F2), 0), v_int(ev, F(F3), -1),
				       v_int(ev, F(F4), -1), v_str(ev, F(F5)), v_int(ev, F(F6), 0));
		break;
	case H_WAKEUP:
		trawl_top_sched_wakeup(m, v_int(ev, F(F0), -1), v_str(ev, F(F1)),
				       v_int(ev, F(F2), 0));
		break;
	case H_MIGRATE:
		trawl_top_sched_migrate(m, v_int(ev, F(F0), -1), v_str(ev, F(F1)),
					v_int(ev, F(F3), -1));
		break;
	case H_FORK:
		if (ci->f[F0] >= 0) /* LTTng's layout */
			trawl_top_sched_fork(m, v_int(ev, F(F0), -1), v_int(ev, F(F1), -1),
					     v_int(ev, F(F2), -1), v_int(ev, F(F3), -1),
					     v_str(ev, F(F4)));
		else
			trawl_top_sched_fork(m, v_int(ev, F(F1), -1), -1, v_int(ev, F(F3), -1),
					     -1, v_str(ev, F(F4)));
		break;
	case H_EXEC:
		trawl_top_sched_exec(m, v_int(ev, F(F0), -1), v_str(ev, F(F1)));
		break;
	case H_EXIT:
		trawl_top_sched_exit(m, v_int(ev, F(F0), -1));
		break;
	case H_SD_PROC:
		trawl_top_statedump_process(m, v_int(ev, F(F0), -1), v_int(ev, F(F1), -1),
					    v_str(ev, F(F2)));
		break;
	case H_SD_FD:
		trawl_top_statedump_fd(m, v_int(ev, F(F0), -1), v_int(ev, F(F1), -1),
				       v_str(ev, F(F2)));
		break;
	case H_SC_ENTRY:
		if (!t)
			break;
		if ((str = v_str(ev, F(F2))))	/* a string's value has its length */
			path = trawl_top_intern_id(&m->names, str, (size_t)v_int(ev, F(F2), 0));
		trawl_top_sys_entry(m, t, ts, ci->name, v_int(ev, F(F0), -1),
				    v_int(ev, F(F1), -1), path);
		break;
	case H_SC_EXIT:
		if (t)
			trawl_top_sys_exit(m, t, ts, ci->name, ci->kind, v_int(ev, F(F0), 0));
		break;
	default:
		break;
	}
}

/* Slot @l of the body at @b as an integer (@dflt: the class has none). */
static inline int64_t ld_int(const unsigned char *b, const struct slot_ld *l, int64_t dflt)
{
	const unsigned char *p = b + l->off;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	/* LTTng's tids, pids and fds first, then its return values: a branch, not a jump table */
	if (__builtin_expect(l->code == LD_S32, 1)) {
		memcpy(&u32, p, sizeof(u32));
		return (int32_t)u32;
	}
	if (__builtin_expect(l->code == LD_U64, 1)) {
		memcpy(&u64, p, sizeof(u64));
		return (int64_t)u64;
	}
	switch ((enum slot_load)l->code) {
	case LD_U8:
		return p[0];
	case LD_U16:
		memcpy(&u16, p, sizeof(u16));
		return u16;
	case LD_U32:
		memcpy(&u32, p, sizeof(u32));
		return u32;
	case LD_S8:
		return (int8_t)p[0];
	case LD_S16:
		memcpy(&u16, p, sizeof(u16));
		return (int16_t)u16;
	default:
		return dflt;	/* LD_ABSENT (LD_TEXT is never read as an integer) */
	}
}

/* The length of text slot @l of the body at @b: up to its NUL, or all of it. */
static inline size_t ld_text_len(const unsigned char *b, const struct slot_ld *l)
{
	const unsigned char *nul = memchr(b + l->off, 0, l->size);

	return nul ? (size_t)(nul - (b + l->off)) : l->size;
}

/*
 * What event_thread() does with a procname context, from the text array at
 * @p (@size bytes). A 16-byte one (the kernel's comm) equal to the first
 * 16 bytes of the thread's name, NUL-padded (trawl_top_model_set_comm()),
 * with a NUL among them, is that name: two compares, no search.
 */
static inline void procname_in_place(struct trawl_top_model *m, struct trawl_top_thread *t,
				     const unsigned char *p, uint32_t size)
{
	const unsigned char *nul;
	size_t len;

	if (size == 16) {
		uint64_t a[2], b[2];

		memcpy(a, p, 16);
		memcpy(b, t->comm, 16);
		if (a[0] == b[0] && a[1] == b[1] && !t->comm[15])
			return;
	}
	nul = memchr(p, 0, size);
	len = nul ? (size_t)(nul - p) : size;
	if (len > 0 && !comm_same(t, (const char *)p, len))
		trawl_top_model_set_comm(m, t, (const char *)p, len);
}

/*
 * A system call's entry or exit read in place (class_in_place()): what
 * event_thread() and kernel_event() do with it, the slots loaded from the
 * body @b. Returns 1, having changed nothing, when the event needs the
 * general path (no tid: who runs on its CPU), else 0.
 */
static inline int sc_in_place(struct trawl_top_model *m, const struct class_info *ci,
			      const unsigned char *b, int64_t ts)
{
	int64_t tid = ld_int(b, &ci->ld[V_TID], -1), pid, path = -1;
	struct trawl_top_thread *t;

	if (tid <= 0)
		return tid < 0;
	if (!(t = trawl_top_model_thread(m, tid)))
		return 0;
	pid = ld_int(b, &ci->ld[V_PID], -1);
	if (pid > 0 && pid != t->pid)
		trawl_top_model_set_pid(m, t, pid);
	if (ci->ld[V_PROCNAME].code == LD_TEXT)
		procname_in_place(m, t, b + ci->ld[V_PROCNAME].off, ci->ld[V_PROCNAME].size);
	t->n.events++;
	if (ci->h == H_SC_EXIT) {
		trawl_top_sys_exit(m, t, ts, ci->name, ci->kind, ld_int(b, &ci->ld[F(F0)], 0));
		return 0;
	}
	if (ci->ld[F(F2)].code == LD_TEXT)
		path = trawl_top_intern_id(&m->names, (const char *)b + ci->ld[F(F2)].off,
					   ld_text_len(b, &ci->ld[F(F2)]));
	trawl_top_sys_entry(m, t, ts, ci->name, ld_int(b, &ci->ld[F(F0)], -1),
			    ld_int(b, &ci->ld[F(F1)], -1), path);
	return 0;
}

static int field_error(struct trawl_top_source *s, int ret)
{
	snprintf(s->err, sizeof(s->err), "%s", trawl_reader_error(s->r));
	return ret;
}

/*
 * The class of the current event, @ec, when the cache of the last ones
 * (slot @cc) missed: from the map, or learnt from this, its first event.
 */
static __attribute__((noinline)) struct class_info *
class_find(struct trawl_top_source *s, struct trawl_top_model *m,
	   const struct trawl_reader_event_class *ec, size_t cc)
{
	struct class_info *ci = trawl_top_map_get(&s->classes, (uint64_t)(uintptr_t)ec);

	if (!ci && !(ci = class_learn(s, m, ec)))
		return NULL;
	s->cc_ec[cc] = ec;
	s->cc_ci[cc] = ci;
	return ci;
}

/* The current event, of class @ci, read through its selection. */
static __attribute__((noinline)) int class_event(struct trawl_top_source *s,
						 struct trawl_top_model *m,
						 const struct class_info *ci, int64_t ts)
{
	struct trawl_top_thread *t = NULL;
	struct event_vals ev;
	int64_t cpu = -1;
	int ret;

	/*
	 * The members the class is read by, in one call: an error is a
	 * malformed event; a member this event lacks has its value's ret
	 * set, and the reads below take their defaults.
	 */
	ev.ci = ci;
	ret = trawl_reader_event_read_selection(s->r, ci->sel, ev.v);
	if (ret < 0)
		return field_error(s, ret);
	if (ci->h == H_UST)
		return ust_event(s, m, &ev);
	t = event_thread(s, m, &ev, &cpu);
	if (t) {
		t->n.events++;
		for (size_t k = 0; k < ci->nperf; k++)
			trawl_top_model_perf_value(m, t, cpu, (size_t)ci->perf_idx[k],
						   (uint64_t)v_int(&ev, V_PERF0 + (int)k, 0));
	}
	kernel_event(m, &ev, t, ts, cpu);
	return 0;
}

/*
 * The current event into @m. Inline in the loop over events, with the
 * system calls read in place: the rest is out of line (class_find(),
 * class_event()), so that the common event pays no call of its own.
 */
static inline int source_event(struct trawl_top_source *s, struct trawl_top_model *m, int64_t ts)
{
	const struct trawl_reader_event_class *ec = trawl_reader_event_class_of(s->r);
	size_t cc = ((uintptr_t)ec >> 4 ^ (uintptr_t)ec >> 8) & 15;
	struct class_info *ci = s->cc_ci[cc];
	int ret;

	m->events++;
	if (__builtin_expect(s->cc_ec[cc] != ec, 0) && !(ci = class_find(s, m, ec, cc)))
		return -ENOMEM;
	if (ci->h == H_IGNORE && !ci->nperf)
		return 0;	/* not decoded at all */
	if (ci->in_place) {
		const unsigned char *b = trawl_reader_event_body(s->r, ci->sel);

		if (b && (ret = sc_in_place(m, ci, b, ts)) <= 0)
			return ret;
	}
	return class_event(s, m, ci, ts);
}

int trawl_top_source_set_begin(struct trawl_top_source *s, int64_t ns)
{
	int ret = trawl_reader_set_time_range(s->r, ns, INT64_MAX);

	if (ret < 0)
		snprintf(s->err, sizeof(s->err), "cannot read from %lld: %s", (long long)ns,
			 strerror(-ret));
	return ret;
}

int trawl_top_source_seek(struct trawl_top_source *s, struct trawl_top_model *m, int64_t ns)
{
	int ret = trawl_reader_seek_ns(s->r, ns);

	if (ret < 0) {
		snprintf(s->err, sizeof(s->err), "%s", trawl_reader_error(s->r));
		return ret;
	}
	s->pending = 0;
	s->at_end = 0;
	trawl_top_model_forget_cpus(m);
	return 0;
}

int trawl_top_source_interval(struct trawl_top_source *s, struct trawl_top_model *m,
			      int64_t begin, int64_t len)
{
	int64_t end = begin + len, ts;
	int ret;

	if (begin > s->end || (s->live && s->at_end && !s->pending))
		return 0;
	if (end > s->end || len <= 0)
		end = s->end + 1;	/* the last interval holds the trace's last event */
	s->m = m;
	trawl_top_model_interval_begin(m, begin, end);
	for (;;) {
		if (!s->pending) {
			if (s->at_end)
				break;
			ret = trawl_reader_next(s->r);
			if (ret < 0) {
				snprintf(s->err, sizeof(s->err), "%s", trawl_reader_error(s->r));
				return ret;
			}
			if (ret == 0) {
				s->at_end = 1;
				break;
			}
			if (ret == 2) {	/* live: no event, but the time moved on */
				if (trawl_reader_live_time(s->r, &ts) == 0 && ts >= end)
					break;
				continue;
			}
			s->pending = 1;
		}
		if (trawl_reader_event_time_ns(s->r, &ts) < 0)
			ts = begin;	/* a stream without a clock: counted, never timed */
		else if (ts >= end)
			break;	/* the next interval's */
		s->pending = 0;
		ret = source_event(s, m, ts);
		if (ret < 0)
			return ret;
	}
	trawl_top_model_interval_end(m);
	return 1;
}
