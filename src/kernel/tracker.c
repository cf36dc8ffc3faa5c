/* SPDX-License-Identifier: MIT */
/*
 * tracker.c - LTTng's process trackers for kernel events, in the consumer.
 *
 * LTTng-modules checks, at each event, the task the event is made by
 * (current): its process id (tgid), its process id in its own pid
 * namespace, its real user and group ids, in the root user namespace and
 * in its own. An event is recorded only if every tracker of the session
 * includes the task's value. trawl records through ftrace, whose per-event
 * filters know the thread id (common_pid) and nothing of processes or
 * credentials; set_event_pid filters thread ids too, and its event-fork
 * option follows children into the set, which LTTng's pid tracker does not
 * (a child is another process). So the consumer applies the trackers as it
 * converts each record, from what the task was at the record's time:
 *
 *   identities  per thread id, a short history of (time, ids): what BPF
 *               saw at each fork (the child's ids, sched_process_fork) and
 *               at each syscall exit where the thread's credentials changed
 *               (trawl_cred_exit: credentials change only inside a
 *               syscall), and what /proc said when the trackers first
 *               needed them (every thread alive then). The ids of a record
 *               at time T are the newest entry not after T.
 *   versions    the trackers' sets, each from the time the consumer took it
 *               in: a change while tracing applies to what was recorded
 *               from then on, even to records still in the kernel's
 *               buffers, converted later (the daemon returns from `track`
 *               only after the consumer took it in, so the change is in
 *               effect when the command returns, as LTTng's is).
 *
 * Exact as long as BPF keeps up (its ring buffer's losses are counted)
 * with two known gaps: the exit record of the syscall that changes a
 * thread's credentials is judged with the old ones (LTTng, running after
 * the change, judges it with the new ones), and kernel code that borrows
 * credentials for a moment (override_creds(): overlayfs, nfsd) is not
 * seen. Without BPF, /proc is read when a thread is first met: exact for
 * threads alive then whose credentials did not change since. The sets'
 * history lives in the consumer that took the changes in: a consumer
 * started later (after a rotation or a clear, a snapshot's) applies the
 * sets in force at its start to all it reads, records that waited in the
 * buffers from before a change included.
 *
 * Cost: nothing when no tracker restricts; else one hash lookup per
 * record in the consumer, a map lookup per syscall of the machine while a
 * user or group tracker restricts, and a record per credential change.
 *
 * Threading: everything here runs on the consumer's draining thread (the
 * BPF ring buffer is drained there too).
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "kernel/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NR_ATTRS TRAWL_KERNEL_TRACKER_ATTRS
#define MAX_VERSIONS 64     /* older ones merge into the oldest kept */
#define HIST_MAX 8          /* identities kept per thread id */
#define BUCKETS 16384u
#define MAX_VALUES 4096     /* per tracker, as the daemon's TRAWL_CTL_TRACKER_MAX_VALUES */

static const char *const attr_names[NR_ATTRS] = {"pid", "vpid", "uid", "vuid", "gid", "vgid"};

struct tset {
	int restricted;     /* 0: every value */
	uint32_t nr;
	uint32_t *values;   /* owned, sorted */
};

struct version {
	uint64_t from_ts;   /* CLOCK_MONOTONIC ns */
	struct tset set[NR_ATTRS];
};

struct hist_entry {
	uint64_t ts;
	struct trawl_kernel_ident id;
};

/*
 * Most threads have one entry their whole life (their fork, or /proc), so
 * entries grow as needed: ~64 bytes per thread id seen while a tracker
 * restricts, at most pid_max of them (32768 here, up to 4 M on large
 * machines: 256 MiB if a session outlives every pid's reuse).
 */
struct ident_node {
	struct ident_node *next;
	int32_t tid;
	uint32_t n, cap;               /* entries used (oldest first), allocated */
	struct hist_entry *e;          /* owned */
	struct hist_entry one;         /* e's first home */
};

struct trawl_kernel_trackers {
	struct version v[MAX_VERSIONS];
	int nv;
	struct ident_node *bucket[BUCKETS];
	uint64_t drained_at;           /* BPF's records up to about then are in */
	void (*drain)(void *arg);
	void *drain_arg;
	uint64_t dropped, unknown;     /* records left out; of those, ids unknown */
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int trawl_kernel_trackers_create(struct trawl_kernel_trackers **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	return 0;
}

static void version_fini(struct version *v)
{
	int a;

	for (a = 0; a < NR_ATTRS; a++)
		free(v->set[a].values);
	memset(v, 0, sizeof(*v));
}

void trawl_kernel_trackers_destroy(struct trawl_kernel_trackers *t)
{
	uint32_t b;
	int i;

	if (!t)
		return;
	for (i = 0; i < t->nv; i++)
		version_fini(&t->v[i]);
	for (b = 0; b < BUCKETS; b++) {
		struct ident_node *n = t->bucket[b], *next;

		for (; n; n = next) {
			next = n->next;
			if (n->e != &n->one)
				free(n->e);
			free(n);
		}
	}
	free(t);
}

void trawl_kernel_trackers_set_drain(struct trawl_kernel_trackers *t, void (*drain)(void *arg),
				     void *arg)
{
	t->drain = drain;
	t->drain_arg = arg;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* "ATTR:V,V,..." (an empty list: none) into @v. 0 or -EINVAL with @err set. */
static int parse_line(struct version *v, const char *line, size_t len, char *err, size_t errlen)
{
	const char *colon = memchr(line, ':', len), *p, *end = line + len;
	struct tset *s = NULL;
	int a;

	for (a = 0; colon && a < NR_ATTRS; a++)
		if ((size_t)(colon - line) == strlen(attr_names[a]) &&
		    !memcmp(line, attr_names[a], (size_t)(colon - line)))
			s = &v->set[a];
	if (!s || s->restricted) {
		trawl_msg_fmt(err, errlen, "bad tracker '%.*s'", (int)TRAWL_MIN(len, 64), line);
		return -EINVAL;
	}
	s->restricted = 1;
	for (p = colon + 1; p < end;) {
		unsigned long long x = 0;
		const char *q = p;
		uint32_t *nv;

		while (q < end && *q >= '0' && *q <= '9' && x <= UINT32_MAX)
			x = x * 10 + (unsigned)(*q++ - '0');
		if (q == p || x > UINT32_MAX || (q < end && (*q != ',' || q + 1 == end)) ||
		    s->nr >= MAX_VALUES) {
			trawl_msg_fmt(err, errlen, "bad value in tracker '%.*s'",
				      (int)TRAWL_MIN(len, 64), line);
			return -EINVAL;
		}
		nv = realloc(s->values, (s->nr + 1) * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		s->values = nv;
		s->values[s->nr++] = (uint32_t)x;
		p = q < end ? q + 1 : q;
	}
	if (s->nr)
		qsort(s->values, s->nr, sizeof(*s->values), cmp_u32);
	return 0;
}

int trawl_kernel_trackers_set(struct trawl_kernel_trackers *t, const char *spec, size_t len,
			      uint64_t from_ts, char *err, size_t errlen)
{
	struct version v;
	const char *p = spec, *end = spec + len;
	int ret = 0;

	memset(&v, 0, sizeof(v));
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (l)
			ret = parse_line(&v, p, l, err, errlen);
		p += l + 1;
	}
	if (ret) {
		version_fini(&v);
		return ret;
	}
	if (t->nv && from_ts <= t->v[t->nv - 1].from_ts) {
		/* (the same instant: the newer replaces it) */
		version_fini(&t->v[--t->nv]);
	}
	if (t->nv == MAX_VERSIONS) {
		/* the oldest goes, the next covers its time (records that old are long converted) */
		version_fini(&t->v[0]);
		memmove(&t->v[0], &t->v[1], sizeof(t->v[0]) * (MAX_VERSIONS - 1));
		t->nv--;
		t->v[0].from_ts = 0;
	}
	v.from_ts = t->nv ? from_ts : 0;
	t->v[t->nv++] = v;
	return 0;
}

uint32_t trawl_kernel_trackers_attrs(const struct trawl_kernel_trackers *t)
{
	uint32_t m = 0;
	int i, a;

	for (i = 0; t && i < t->nv; i++)
		for (a = 0; a < NR_ATTRS; a++)
			if (t->v[i].set[a].restricted)
				m |= 1u << a;
	return m;
}

static struct ident_node *node_get(struct trawl_kernel_trackers *t, int32_t tid, int create)
{
	uint32_t b = (uint32_t)tid % BUCKETS;
	struct ident_node *n;

	for (n = t->bucket[b]; n; n = n->next)
		if (n->tid == tid)
			return n;
	if (!create)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->tid = tid;
	n->e = &n->one;
	n->cap = 1;
	n->next = t->bucket[b];
	t->bucket[b] = n;
	return n;
}

void trawl_kernel_trackers_ident_add(struct trawl_kernel_trackers *t, int32_t tid, uint64_t ts,
				     const struct trawl_kernel_ident *id)
{
	struct ident_node *n = node_get(t, tid, 1);
	uint32_t i;

	if (!n)
		return; /* (out of memory: the thread's ids are read from /proc, or unknown) */
	if (n->n == n->cap && n->cap < HIST_MAX) {
		struct hist_entry *e = malloc(2 * n->cap * sizeof(*e));

		if (e) {
			memcpy(e, n->e, n->n * sizeof(*e));
			if (n->e != &n->one)
				free(n->e);
			n->e = e;
			n->cap *= 2;
		}
	}
	if (n->n == n->cap) {
		memmove(&n->e[0], &n->e[1], sizeof(n->e[0]) * (n->cap - 1));
		n->n--;
	}
	/* sorted by time: a record drained late goes in its place */
	for (i = n->n; i > 0 && n->e[i - 1].ts > ts; i--)
		n->e[i] = n->e[i - 1];
	n->e[i].ts = ts;
	n->e[i].id = *id;
	n->n++;
}

/* An id list of /proc's status ("Uid:\t0\t0\t0\t0"): its @nth value (0: the first). */
static int status_field(const char *buf, const char *name, int last, int64_t *out)
{
	const char *p = strstr(buf, name), *eol;
	char *end;
	long long v = -1;

	if (!p)
		return -ENOENT;
	p += strlen(name);
	eol = strchr(p, '\n');
	do {
		v = strtoll(p, &end, 10);
		if (end == p)
			return -ENOENT;
		p = end;
		while (*p == '\t' || *p == ' ')
			p++;
	} while (last && *p && p != eol && *p != '\n');
	*out = v;
	return 0;
}

/* @id of the root user namespace mapped by @pid's uid_map or gid_map (65534 unmapped). */
static uint32_t map_up(int32_t pid, const char *file, uint32_t id)
{
	char path[64], buf[8192];
	unsigned long long first, lower, count;
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%.8s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return id;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 65534;
	buf[n] = '\0';
	for (p = buf; p && sscanf(p, "%llu %llu %llu", &first, &lower, &count) == 3;
	     p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (id >= lower && id - lower < count)
			return (uint32_t)(first + (id - lower));
	return 65534;
}

/* Thread @tid's ids from /proc now. 0 or -ENOENT (gone). */
static int proc_ident(int32_t tid, struct trawl_kernel_ident *id)
{
	char path[64], buf[4096];
	int64_t tgid, vpid, uid, gid;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	if (status_field(buf, "\nTgid:", 0, &tgid) || status_field(buf, "\nUid:", 0, &uid) ||
	    status_field(buf, "\nGid:", 0, &gid))
		return -ENOENT;
	if (status_field(buf, "\nNStgid:", 1, &vpid))
		vpid = tgid; /* (a kernel without pid namespaces) */
	id->tgid = (int32_t)tgid;
	id->vpid = (int32_t)vpid;
	id->uid = (uint32_t)uid;
	id->gid = (uint32_t)gid;
	id->vuid = map_up((int32_t)tid, "uid_map", id->uid);
	id->vgid = map_up((int32_t)tid, "gid_map", id->gid);
	return 0;
}

int trawl_kernel_trackers_prime(struct trawl_kernel_trackers *t, uint64_t ts)
{
	DIR *d = opendir("/proc"), *td;
	struct dirent *de, *te;
	struct trawl_kernel_ident id;
	char path[64];
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/task", de->d_name);
		td = opendir(path);
		if (!td)
			continue;
		while ((te = readdir(td))) {
			int32_t tid = (int32_t)atoi(te->d_name);

			if (tid > 0 && !proc_ident(tid, &id)) {
				trawl_kernel_trackers_ident_add(t, tid, ts, &id);
				n++;
			}
		}
		closedir(td);
	}
	closedir(d);
	return n;
}

static int tset_has(const struct tset *s, uint32_t v)
{
	uint32_t lo = 0, hi = s->nr;

	if (!s->restricted)
		return 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->values[mid] == v)
			return 1;
		if (s->values[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* The ids of @tid at @ts: 0, or -ENOENT when nothing knows them. */
static int ident_at(struct trawl_kernel_trackers *t, int32_t tid, uint64_t ts,
		    struct trawl_kernel_ident *id)
{
	struct ident_node *n;
	uint32_t i;

	if (tid == 0) {
		memset(id, 0, sizeof(*id)); /* the idle tasks: pid 0, root's credentials */
		return 0;
	}
	/* BPF's records up to @ts first (a margin for ones reserved, not yet submitted) */
	if (t->drain && ts + 1000000u >= t->drained_at) {
		t->drained_at = now_ns();
		t->drain(t->drain_arg);
	}
	n = node_get(t, tid, 0);
	if (!n || !n->n) {
		if (proc_ident(tid, id))
			return -ENOENT;
		trawl_kernel_trackers_ident_add(t, tid, 0, id);
		return 0;
	}
	/* the newest entry not after @ts; one before any: the oldest known */
	for (i = n->n; i > 1 && n->e[i - 1].ts > ts; i--)
		;
	*id = n->e[i - 1].id;
	return 0;
}

int trawl_kernel_trackers_keep(struct trawl_kernel_trackers *t, int32_t tid, uint64_t ts)
{
	const struct version *v = NULL;
	struct trawl_kernel_ident id;
	uint32_t val[NR_ATTRS];
	int i, a, any = 0;

	for (i = t->nv - 1; i >= 0 && !v; i--)
		if (t->v[i].from_ts <= ts || i == 0)
			v = &t->v[i];
	if (!v)
		return 1;
	for (a = 0; a < NR_ATTRS; a++) {
		if (!v->set[a].restricted)
			continue;
		if (!v->set[a].nr)
			goto drop; /* an empty set: nothing is recorded */
		any = 1;
	}
	if (!any)
		return 1;
	if (ident_at(t, tid, ts, &id)) {
		t->unknown++;
		goto drop;
	}
	val[0] = (uint32_t)id.tgid;
	val[1] = (uint32_t)id.vpid;
	val[2] = id.uid;
	val[3] = id.vuid;
	val[4] = id.gid;
	val[5] = id.vgid;
	for (a = 0; a < NR_ATTRS; a++)
		if (!tset_has(&v->set[a], val[a]))
			goto drop;
	return 1;
drop:
	t->dropped++;
	return 0;
}

void trawl_kernel_trackers_counts(const struct trawl_kernel_trackers *t, uint64_t *dropped,
				  uint64_t *unknown)
{
	*dropped = t ? t->dropped : 0;
	*unknown = t ? t->unknown : 0;
}
