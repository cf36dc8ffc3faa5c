/* SPDX-License-Identifier: MIT */
/*
 * The BPF syscall records (trawl.bpf.c: strings and arguments at entry and
 * exit) kept until the ftrace records they complete are converted.
 *
 * The two are written by different probes on the same tracepoint, for the
 * same thread, microseconds apart, but read at different times: BPF's ring
 * buffer at every consumer round, ftrace's sub-buffers when full (a quiet
 * CPU's last page only at stop), and the entry and the exit of one call may
 * even be on two CPUs. So each thread keeps its BPF records in time order
 * (up to PER_TID), and an ftrace record takes the one of its thread with
 * the same syscall number and direction, and at entry the same pointer
 * values for its string arguments, that is nearest in time within 20 ms
 * (the two probes of one call run microseconds apart; a thread preempted
 * between them is the reason for the margin). Measured with 32 records per
 * thread: a make/cmake workload lost 464 of 64,277 openat paths to
 * overwritten records before their pages were read; a thread making more
 * than PER_TID marked calls while its ftrace records wait still loses the
 * oldest: their strings are empty, as LTTng's when it cannot read user
 * memory. Found by binary search on time, so a busy thread costs log(n).
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"
#include "kernel/bpf-records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RINGS 4096u
#define PROBES 8u
#define PER_TID 16384u
/*
 * All threads together: past this many records (or DATA_MAX bytes of
 * strings), the oldest of the thread adding one go. A session tracing every
 * syscall of a busy machine whose ftrace pages wait must not grow the root
 * consumer without bound (measured before the cap: 366 MB after 45 minutes
 * of a flood session); 262,144 records of ~100 bytes and 64 MiB of strings.
 */
#define TOTAL_MAX 262144u
#define DATA_MAX (64u << 20)
/*
 * Entries allocated over all threads' rings (~100 bytes each): a ring keeps
 * its array while records come and go, so without this 4,096 threads that
 * each once held PER_TID records would keep 6 GB.
 */
#define CAP_MAX (2u * TOTAL_MAX)
#define MATCH_NS 20000000ll

struct aux {
	uint64_t ts;
	uint32_t nr;
	uint16_t dir;
	uint16_t live;
	int32_t ret_lo;
	uint64_t args[6];
	uint16_t len[6];
	uint8_t *data;      /* owned */
};

/* One thread's records, oldest first: e[head..n) live or taken (live = 0). */
struct ring {
	int32_t tid;        /* -1: free */
	uint32_t head, n, cap;
	struct aux *e;      /* owned */
};

struct trawl_kernel_scaux {
	struct ring r[RINGS];
	uint64_t total;      /* records held (live or taken, not yet freed) */
	uint64_t data;       /* bytes of their strings */
	uint64_t cap;        /* entries allocated over all rings */
};

int trawl_kernel_scaux_create(struct trawl_kernel_scaux **out)
{
	struct trawl_kernel_scaux *s = calloc(1, sizeof(*s));
	uint32_t i;

	if (!s)
		return -ENOMEM;
	for (i = 0; i < RINGS; i++)
		s->r[i].tid = -1;
	*out = s;
	return 0;
}

static uint32_t aux_bytes(const struct aux *a)
{
	uint32_t n = 0;
	int i;

	for (i = 0; i < 6; i++)
		n += a->len[i];
	return a->data ? n : 0;
}

static void ring_clear(struct trawl_kernel_scaux *s, struct ring *r)
{
	uint32_t i;

	for (i = r->head; i < r->n; i++) {
		s->data -= aux_bytes(&r->e[i]);
		free(r->e[i].data);
	}
	s->total -= r->n - r->head;
	s->cap -= r->cap;
	free(r->e);
	r->e = NULL;
	r->head = r->n = r->cap = 0;
}

void trawl_kernel_scaux_destroy(struct trawl_kernel_scaux *s)
{
	uint32_t i;

	if (!s)
		return;
	for (i = 0; i < RINGS; i++)
		ring_clear(s, &s->r[i]);
	free(s);
}

/* The record at the head goes (taken, or the oldest). */
static void ring_pop(struct trawl_kernel_scaux *s, struct ring *r)
{
	s->data -= aux_bytes(&r->e[r->head]);
	s->total--;
	free(r->e[r->head].data);
	r->e[r->head].data = NULL;
	r->head++;
}

static void ring_compact(struct ring *r)
{
	memmove(r->e, r->e + r->head, (r->n - r->head) * sizeof(*r->e));
	r->n -= r->head;
	r->head = 0;
}

/*
 * Room for one more record at the end: taken ones at the head go, then the
 * oldest. The array is compacted only once its head is half of it, so a
 * record moves once on average: compacting whenever the array was full
 * moved PER_TID records per record added once a thread's ring was at its
 * cap (17% of the consumer's CPU in a flood of one thread's syscalls).
 */
static int ring_room(struct trawl_kernel_scaux *s, struct ring *r)
{
	uint32_t cap;
	struct aux *e;

	while (r->head < r->n && !r->e[r->head].live)
		ring_pop(s, r);
	while (r->head < r->n &&
	       (r->n - r->head >= PER_TID || s->total >= TOTAL_MAX || s->data >= DATA_MAX))
		ring_pop(s, r);
	if (r->head == r->n && r->cap > 256) { /* empty: a large array goes back */
		ring_clear(s, r);
		return ring_room(s, r);
	}
	if (r->head && (r->head == r->n || (r->n == r->cap && r->head >= r->cap / 2)))
		ring_compact(r);
	if (r->n < r->cap)
		return 0;
	cap = r->cap ? r->cap * 2 : 64;
	if (s->cap + cap - r->cap > CAP_MAX) {
		if (!r->n)
			return -ENOMEM;
		ring_pop(s, r); /* no array memory left for this thread: its oldest goes */
		ring_compact(r);
		return 0;
	}
	e = realloc(r->e, cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	s->cap += cap - r->cap;
	r->e = e;
	r->cap = cap;
	return 0;
}

/*
 * The ring of thread @tid (open addressing, PROBES slots). With @make, a
 * free slot is taken, or else the first probed one is emptied for it (that
 * thread's strings will be empty).
 */
static struct ring *ring_get(struct trawl_kernel_scaux *s, int32_t tid, int make)
{
	uint32_t h = (uint32_t)tid * 2654435761u, i;
	struct ring *free_slot = NULL;

	for (i = 0; i < PROBES; i++) {
		struct ring *r = &s->r[(h + i) % RINGS];

		if (r->tid == tid)
			return r;
		if (!free_slot && (r->tid < 0 || r->head == r->n))
			free_slot = r;
	}
	if (!make)
		return NULL;
	if (!free_slot)
		free_slot = &s->r[h % RINGS];
	if (free_slot->tid != tid) {
		ring_clear(s, free_slot);
		free_slot->tid = tid;
	}
	return free_slot;
}

void trawl_kernel_scaux_add(struct trawl_kernel_scaux *s, const void *data, size_t len)
{
	const struct trawl_bpf_sc *rec = data;
	struct ring *r;
	struct aux *a;
	uint32_t i, sum = 0;

	if (len < sizeof(*rec) || rec->data_len > len - sizeof(*rec))
		return;
	for (i = 0; i < 6; i++)
		sum += rec->len[i];
	if (sum != rec->data_len)
		return;
	r = ring_get(s, (int32_t)rec->hdr.tid, 1);
	if (ring_room(s, r) < 0 || s->total >= TOTAL_MAX + PER_TID)
		return; /* other threads hold the rest: this record is lost (its strings empty) */
	a = &r->e[r->n];
	memset(a, 0, sizeof(*a));
	if (rec->data_len) {
		a->data = malloc(rec->data_len);
		if (!a->data)
			return;
		memcpy(a->data, (const uint8_t *)data + sizeof(*rec), rec->data_len);
	}
	a->ts = rec->hdr.ts;
	a->nr = rec->nr;
	a->dir = rec->hdr.type;
	a->ret_lo = rec->ret_lo;
	memcpy(a->args, rec->args, sizeof(a->args));
	memcpy(a->len, rec->len, sizeof(a->len));
	a->live = 1;
	r->n++;
	s->total++;
	s->data += aux_bytes(a);
}

static int64_t dist(uint64_t a, uint64_t b)
{
	return a > b ? (int64_t)(a - b) : (int64_t)(b - a);
}

/* The entry's string pointers as the ftrace record holds them must be the BPF record's. */
static int same_pointers(const struct aux *a, const struct trawl_kernel_event *ev, const uint8_t *rec,
			 uint32_t len)
{
	int i;

	for (i = 0; i < ev->nfields; i++) {
		const struct trawl_kernel_field *f = &ev->fields[i];
		uint64_t v;

		if (f->xform != TRAWL_KX_SC_STR || f->size != 8 || (uint32_t)f->offset + 8 > len)
			continue;
		memcpy(&v, rec + f->offset, 8);
		if (v != a->args[f->sc_arg])
			return 0;
	}
	return 1;
}

static int aux_matches(const struct aux *a, uint32_t nr, const struct trawl_kernel_event *ev, const uint8_t *rec,
		       uint32_t len)
{
	if (!a->live || a->nr != nr || a->dir != ev->sc_dir)
		return 0;
	return ev->sc_dir != TRAWL_BPF_SC_ENTER || same_pointers(a, ev, rec, len);
}

/*
 * The thread's matching record nearest to @ts within MATCH_NS: from where
 * @ts falls (binary search), outwards, nearer side first, so the first match
 * is the nearest. The record of the same call is microseconds away: a
 * thread flooding syscalls has thousands of records in the window, and
 * scanning all of them for every ftrace record made the consumer fall behind.
 */
static struct aux *find(struct trawl_kernel_scaux *s, int32_t tid, uint32_t nr, const struct trawl_kernel_event *ev,
			const uint8_t *rec, uint32_t len, uint64_t ts)
{
	struct ring *r = ring_get(s, tid, 0);
	uint32_t lo, hi, left, right;

	if (!r)
		return NULL;
	lo = r->head;
	hi = r->n;
	while (lo < hi) { /* the first record at or after ts (records are in time order) */
		uint32_t mid = lo + (hi - lo) / 2;

		if (r->e[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	left = lo; /* candidates: e[left - 1] downwards, e[right] upwards */
	right = lo;
	for (;;) {
		int64_t dl = left > r->head ? dist(r->e[left - 1].ts, ts) : MATCH_NS + 1;
		int64_t dr = right < r->n ? dist(r->e[right].ts, ts) : MATCH_NS + 1;
		struct aux *a;

		if (dl > MATCH_NS && dr > MATCH_NS)
			return NULL;
		a = dr < dl ? &r->e[right++] : &r->e[--left];
		if (aux_matches(a, nr, ev, rec, len))
			return a;
	}
}

/* @a's strings are handed over: no longer counted as held */
static void s_data_sub(struct trawl_kernel_scaux *s, const struct aux *a)
{
	s->data -= aux_bytes(a);
}

void trawl_kernel_scaux_take(struct trawl_kernel_converter *c, const struct trawl_kernel_event *ev,
			     const uint8_t *rec, uint32_t len, uint64_t ts, struct trawl_kernel_scinfo *out)
{
	int32_t tid, nr;
	struct aux *a;

	memset(out, 0, sizeof(*out));
	if (!c->scaux || len < 12)
		return;
	memcpy(&tid, rec + 4, 4);
	memcpy(&nr, rec + 8, 4); /* __syscall_nr: the first field of every syscalls event */
	a = find(c->scaux, tid, (uint32_t)nr, ev, rec, len, ts);
	if (!a && c->bpf_drain) {
		c->bpf_drain(c->bpf_arg);
		a = find(c->scaux, tid, (uint32_t)nr, ev, rec, len, ts);
	}
	if (!a)
		return;
	/* handed over: freed by trawl_kernel_scinfo_fini() */
	out->found = 1;
	memcpy(out->args, a->args, sizeof(out->args));
	memcpy(out->len, a->len, sizeof(out->len));
	out->ret = a->ret_lo;
	out->data = a->data;
	s_data_sub(c->scaux, a);
	a->data = NULL;
	a->live = 0;
}

void trawl_kernel_scinfo_fini(struct trawl_kernel_scinfo *info)
{
	free(info->data);
	info->data = NULL;
}

const uint8_t *trawl_kernel_scinfo_arg_data(const struct trawl_kernel_scinfo *info, int arg, uint32_t *len)
{
	uint32_t off = 0;
	int i;

	*len = 0;
	if (!info->found || arg < 0 || arg > 5 || !info->data)
		return NULL;
	for (i = 0; i < arg; i++)
		off += info->len[i];
	*len = info->len[arg];
	return *len ? info->data + off : NULL;
}
