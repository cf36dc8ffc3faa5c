/* SPDX-License-Identifier: MIT */
/*
 * notify.c - the kernel's event notifiers: how a trigger's
 * event-rule-matches condition on kernel events (add-trigger
 * --type=kernel:tracepoint|kernel:syscall) sees them.
 *
 * LTTng's kernel module hands each matching event to its session daemon
 * through a notification ring. Here each tracepoint the rule matches is
 * opened with perf_event_open(2) on every CPU (PERF_TYPE_TRACEPOINT, the
 * tracefs id), sampling every event (period 1) with its time (CLOCK_MONOTONIC,
 * the clock of trawl's traces and notifications) and its raw ftrace record,
 * into a small mmap'ed ring per CPU that wakes its reader at each record
 * (wakeup_events 1): the daemon polls the fds in its loop, so a notification
 * is as late as one loop round, not a timer. The rule's filter (ftrace's
 * syntax, as kernel recording rules take it) goes to the kernel with
 * PERF_EVENT_IOC_SET_FILTER: filtered-out events never reach the ring.
 *
 * Why perf and not a tracefs instance: an instance is read by pages, which a
 * lone event does not fill; perf wakes the reader per record and needs no
 * consumer. A ring that fills (the daemon busy) loses records, which the
 * kernel counts (PERF_RECORD_LOST) and trawl_kernel_notifier_lost() sums.
 *
 * The captures are read from the raw record with the tracepoint's format
 * (format.c): integers (decimal; pointers in hex), strings (__data_loc and
 * char[N]), arrays (whole, or one element with NAME[N]); $ctx.pid and
 * $ctx.tid from the sample's ids; what the record lacks, other $ctx.
 * contexts and $app. captures are "<unavailable>". Each is a line typed
 * as common/capture.h says. The record comes from the kernel, but every
 * offset is still checked against its size.
 */
#define _GNU_SOURCE
#include "kernel/internal.h"
#include "kernel/kernel.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/capture.h"
#include "common/common.h"
#include "common/log.h"

#define RING_PAGES 8u         /* data pages per CPU ring (a power of 2) */
#define MAX_EVENTS 64         /* tracepoints one rule may match */
#define CAPTURES_MAX 2048     /* bytes of the captures' text */
#define UNAVAILABLE TRAWL_CAPTURE_UNAVAILABLE_TEXT

struct tp {
	struct trawl_kernel_event ev; /* its fields (parse_fields) */
	int parsed;
};

struct ring {
	int fd;
	uint32_t tp; /* index in n->tps */
	void *map;   /* the control page, then RING_PAGES data pages */
};

struct trawl_kernel_notifier {
	struct tp *tps;
	uint32_t nr_tps;
	struct ring *rings;
	uint32_t nr_rings;
	int *fds; /* the rings' fds, in order */
	char *captures; /* owned: descriptors joined by ',' */
	uint64_t lost;
	size_t page;
	/* a probe trigger's own dynamic event (probes.c), removed with the
	 * notifier once its perf events are closed; "" for none */
	char probe_group[TRAWL_KERNEL_GROUP_LEN];
	int uprobe;
};

struct match {
	const char *pattern;
	int syscall;
	char (*names)[2][128];
	uint32_t nr;
	int too_many;
};

static int match_one(const char *sys, const char *ev, void *arg)
{
	struct match *m = arg;
	const char *name = ev;

	if (m->syscall) {
		name = trawl_kernel_syscall_of(sys, ev);
		if (!name)
			return 0;
	} else if (!strcmp(sys, "syscalls") || !strcmp(sys, "ftrace")) {
		return 0; /* syscalls are the syscall rules'; ftrace's are no events */
	}
	if (fnmatch(m->pattern, name, 0))
		return 0;
	if (m->nr == MAX_EVENTS) {
		m->too_many = 1;
		return 1;
	}
	if (trawl_path_fmt(m->names[m->nr][0], sizeof(m->names[0][0]), "%s", sys) ||
	    trawl_path_fmt(m->names[m->nr][1], sizeof(m->names[0][1]), "%s", ev))
		return 0;
	m->nr++;
	return 0;
}

static int perf_open(uint32_t id, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = id;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	a.wakeup_events = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Opens tracepoint @k of @n on every CPU. 0, or -errno with @err. */
static int open_tp(struct trawl_kernel_notifier *n, uint32_t k, const char *sys, const char *ev,
		   const char *filter, char *err, size_t errlen)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	char rel[512], text[65536];
	unsigned long id;
	int cpu, opened = 0, ret;

	if (trawl_path_fmt(rel, sizeof(rel), "events/%s/%s/id", sys, ev) ||
	    trawl_kernel_read_file(rel, text, sizeof(text)) < 0 || sscanf(text, "%lu", &id) != 1) {
		trawl_msg_fmt(err, errlen, "cannot read the id of kernel event %s:%s", sys, ev);
		return -ENOENT;
	}
	if (!trawl_path_fmt(rel, sizeof(rel), "events/%s/%s/format", sys, ev) &&
	    trawl_kernel_read_file(rel, text, sizeof(text)) >= 0 &&
	    trawl_kernel_event_parse_fields(sys, ev, text, &n->tps[k].ev) >= 0)
		n->tps[k].parsed = 1;
	for (cpu = 0; cpu < cpus; cpu++) {
		struct ring *r = &n->rings[n->nr_rings];
		int fd = perf_open((uint32_t)id, cpu);

		if (fd < 0 && (errno == ENODEV || errno == EINVAL) && opened)
			continue; /* a CPU offline */
		if (fd < 0) {
			ret = -errno;
			trawl_msg_fmt(err, errlen, "cannot watch kernel event %s:%s on CPU %d "
				      "(perf_event_open: %s)", sys, ev, cpu, strerror(errno));
			return ret;
		}
		if (filter[0] && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0) {
			ret = errno;
			close(fd);
			trawl_msg_fmt(err, errlen, "the kernel refused the filter \"%s\" on %s:%s: %s",
				      filter, sys, ev, strerror(ret));
			return -EBADMSG; /* the caller's: this event cannot match */
		}
		r->map = mmap(NULL, n->page * (RING_PAGES + 1), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (r->map == MAP_FAILED) {
			ret = -errno;
			close(fd);
			trawl_msg_fmt(err, errlen, "cannot map the ring of kernel event %s:%s: %s", sys,
				      ev, strerror(-ret));
			return ret;
		}
		r->fd = fd;
		r->tp = k;
		n->fds[n->nr_rings++] = fd;
		opened = 1;
	}
	return 0;
}

static struct trawl_kernel_notifier *notifier_new(const char *captures)
{
	struct trawl_kernel_notifier *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->page = (size_t)sysconf(_SC_PAGESIZE);
	n->captures = strdup(captures ? captures : "");
	if (!n->captures) {
		free(n);
		return NULL;
	}
	return n;
}

/*
 * Opens the @nr tracepoints @names ({system, event}) in @n, on every CPU,
 * with @filter. 0, or -errno with @err.
 */
static int open_all(struct trawl_kernel_notifier *n, char (*names)[2][128], uint32_t nr,
		    const char *filter, char *err, size_t errlen)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	uint32_t k, refused = 0;
	int ret;

	if (cpus < 1)
		cpus = 1;
	n->tps = calloc(nr + 1, sizeof(*n->tps));
	n->rings = calloc((size_t)nr * (size_t)cpus + 1, sizeof(*n->rings));
	n->fds = calloc((size_t)nr * (size_t)cpus + 1, sizeof(*n->fds));
	if (!n->tps || !n->rings || !n->fds) {
		trawl_msg_fmt(err, errlen, "out of memory");
		return -ENOMEM;
	}
	n->nr_tps = nr;
	/* An event whose fields the filter does not name (a syscall's exit,
	 * with a filter on its arguments) cannot match it, as in LTTng: it is
	 * left out. If all are, the rule never matches, and is kept as LTTng
	 * keeps it (its bytecode fails to link to the event's fields, and the
	 * trigger is registered all the same): the filter is within ftrace's
	 * grammar (trawl_kernel_check_filter()), so only its fields or their
	 * types can be what the kernel refused. The kernel's reason is logged. */
	for (k = 0; k < nr; k++) {
		ret = open_tp(n, k, names[k][0], names[k][1], filter, err, errlen);
		if (ret == -EBADMSG)
			refused++;
		else if (ret)
			return ret;
	}
	if (nr && refused == nr)
		trawl_log(TRAWL_LOG_INFO, "trigger rule never matches: %s", err);
	if (errlen)
		err[0] = '\0';
	return 0;
}

int trawl_kernel_notifier_create(const char *pattern, int syscall_rule, const char *filter,
				 const char *captures, struct trawl_kernel_notifier **out, char *err,
				 size_t errlen)
{
	struct match m = { pattern[0] ? pattern : "*", syscall_rule, NULL, 0, 0 };
	struct trawl_kernel_notifier *n;
	int ret;

	*out = NULL;
	if (filter[0] && (ret = trawl_kernel_check_filter(filter, err, errlen)))
		return ret;
	m.names = calloc(MAX_EVENTS, sizeof(*m.names));
	n = notifier_new(captures);
	if (!m.names || !n)
		goto err_nomem;
	if (syscall_rule && !strcmp(m.pattern, "*")) {
		/* Every system call: the two raw_syscalls tracepoints, not the
		 * ~700 per-call ones (captures then see id and args[]). */
		memcpy(m.names[0][0], "raw_syscalls", sizeof("raw_syscalls"));
		memcpy(m.names[0][1], "sys_enter", sizeof("sys_enter"));
		memcpy(m.names[1][0], "raw_syscalls", sizeof("raw_syscalls"));
		memcpy(m.names[1][1], "sys_exit", sizeof("sys_exit"));
		m.nr = 2;
		ret = 0;
	} else {
		ret = trawl_kernel_foreach_event("events", match_one, &m);
	}
	if (ret < 0 && !m.too_many) {
		trawl_msg_fmt(err, errlen, "cannot list kernel events: %s", strerror(-ret));
		goto err;
	}
	if (m.too_many) {
		ret = -E2BIG;
		trawl_msg_fmt(err, errlen, "'%s' matches more than %d kernel events: a trigger's "
			      "rule may match at most %d", m.pattern, MAX_EVENTS, MAX_EVENTS);
		goto err;
	}
	ret = open_all(n, m.names, m.nr, filter, err, errlen);
	if (ret)
		goto err;
	free(m.names);
	*out = n;
	return 0;
err_nomem:
	ret = -ENOMEM;
	trawl_msg_fmt(err, errlen, "out of memory");
err:
	free(m.names);
	trawl_kernel_notifier_destroy(n);
	return ret;
}

int trawl_kernel_notifier_create_probe(const struct trawl_kernel_trigger_probe *p,
				       const char *captures, struct trawl_kernel_notifier **out,
				       char *err, size_t errlen)
{
	char names[1][2][128];
	struct trawl_kernel_notifier *n;
	int ret;

	*out = NULL;
	n = notifier_new(captures);
	if (!n) {
		if (p->fd >= 0)
			close(p->fd);
		trawl_msg_fmt(err, errlen, "out of memory");
		return -ENOMEM;
	}
	n->uprobe = p->uprobe;
	ret = trawl_kernel_trigger_probe_define(p, n->probe_group, err, errlen);
	if (ret)
		goto err;
	memcpy(names[0][0], n->probe_group, sizeof(n->probe_group));
	memcpy(names[0][1], TRAWL_KERNEL_TRIGGER_PROBE, sizeof(TRAWL_KERNEL_TRIGGER_PROBE));
	ret = open_all(n, names, 1, "", err, errlen);
	if (ret)
		goto err;
	*out = n;
	return 0;
err:
	trawl_kernel_notifier_destroy(n);
	return ret;
}

uint32_t trawl_kernel_notifier_fds(const struct trawl_kernel_notifier *n, const int **fds)
{
	*fds = n->fds;
	return n->nr_rings;
}

uint64_t trawl_kernel_notifier_lost(const struct trawl_kernel_notifier *n)
{
	return n->lost;
}

void trawl_kernel_notifier_destroy(struct trawl_kernel_notifier *n)
{
	uint32_t i;

	if (!n)
		return;
	for (i = 0; i < n->nr_rings; i++) {
		munmap(n->rings[i].map, n->page * (RING_PAGES + 1));
		close(n->rings[i].fd);
	}
	for (i = 0; i < n->nr_tps; i++)
		if (n->tps[i].parsed)
			trawl_kernel_event_fini(&n->tps[i].ev);
	/* (after its perf events are closed: the kernel keeps an event in use) */
	trawl_kernel_trigger_probe_remove(n->uprobe, n->probe_group);
	free(n->tps);
	free(n->rings);
	free(n->fds);
	free(n->captures);
	free(n);
}

/* ---- captures ---- */

struct text {
	char *buf;
	size_t cap, used;
};

/* Appends @s (@n bytes at most, up to a NUL), control characters escaped. */
static void put(struct text *t, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		char esc[4] = { (char)c };
		size_t el = 1;

		if (c == '\n' || c == '\\') {
			esc[0] = '\\';
			esc[1] = c == '\n' ? 'n' : '\\';
			el = 2;
		} else if (c < 0x20 || c == 0x7f) {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[c >> 4];
			esc[3] = hex[c & 15];
			el = 4;
		}
		if (t->used + el + 2 > t->cap) /* room for the line's end and the NUL */
			return;
		memcpy(t->buf + t->used, esc, el);
		t->used += el;
		t->buf[t->used] = '\0';
	}
}

/* Appends @n bytes of @s as they are (a line's type tag, a tab). */
static void put_raw(struct text *t, const char *s, size_t n)
{
	if (t->used + n + 2 > t->cap) /* room for the line's end and the NUL */
		return;
	memcpy(t->buf + t->used, s, n);
	t->used += n;
	t->buf[t->used] = '\0';
}

static void put_tag(struct text *t, char tag)
{
	put_raw(t, &tag, 1);
}

/* The integer of @bytes at @p: masked to its width, or sign-extended. */
static uint64_t int_at(const unsigned char *p, uint32_t bytes, int is_signed)
{
	uint64_t u = 0;

	memcpy(&u, p, bytes); /* the kernel's byte order is ours */
	if (bytes < 8) {
		u &= (UINT64_C(1) << (bytes * 8)) - 1;
		if (is_signed && (u >> (bytes * 8 - 1)) & 1)
			u |= ~((UINT64_C(1) << (bytes * 8)) - 1);
	}
	return u;
}

/* An integer's text (decimal, or @hex: 0x and its @bytes' bits in hex). */
static void put_int(struct text *t, const unsigned char *p, uint32_t bytes, int is_signed, int hex)
{
	uint64_t u = int_at(p, bytes, is_signed);
	char buf[32];

	if (hex && bytes < 8)
		u &= (UINT64_C(1) << (bytes * 8)) - 1;
	if (hex)
		snprintf(buf, sizeof(buf), "0x%" PRIx64, u);
	else if (is_signed)
		snprintf(buf, sizeof(buf), "%" PRId64, (int64_t)u);
	else
		snprintf(buf, sizeof(buf), "%" PRIu64, u);
	put(t, buf, sizeof(buf));
}

/* A whole integer's line: its tag, its decimal value first if shown in hex. */
static void put_int_line(struct text *t, const unsigned char *p, uint32_t bytes, int is_signed,
			 int hex)
{
	put_tag(t, is_signed ? TRAWL_CAPTURE_SIGNED : TRAWL_CAPTURE_UNSIGNED);
	if (hex) {
		put_int(t, p, bytes, is_signed, 0);
		put_raw(t, "\t", 1);
	}
	put_int(t, p, bytes, is_signed, hex);
}

/* Field @f of record @rec (@len bytes), element @index (-1: whole): 0, or -1 if unavailable. */
static int put_field(struct text *t, const struct trawl_kernel_field *f, const unsigned char *rec,
		     size_t len, long index)
{
	uint32_t off = f->offset, size = f->size, eb, i;

	if (off > len || size > len - off)
		return -1;
	switch (f->src_kind) {
	case TRAWL_KF_INT:
	case TRAWL_KF_HEX:
		if (index >= 0 || !size || size > 8 || (size & (size - 1)))
			return -1;
		put_int_line(t, rec + off, size, f->src_signed, f->src_kind == TRAWL_KF_HEX);
		return 0;
	case TRAWL_KF_TEXT:
		if (index >= 0)
			return -1;
		put_tag(t, TRAWL_CAPTURE_STRING);
		put(t, (const char *)rec + off, size);
		return 0;
	case TRAWL_KF_STRING: {
		uint32_t loc, soff, slen;

		if (index >= 0 || size != 4)
			return -1;
		memcpy(&loc, rec + off, 4);
		soff = (loc & 0xffff) + (f->rel_loc ? off + 4 : 0);
		slen = loc >> 16;
		if (soff > len || slen > len - soff)
			return -1;
		put_tag(t, TRAWL_CAPTURE_STRING);
		put(t, (const char *)rec + soff, slen);
		return 0;
	}
	case TRAWL_KF_ARRAY:
		eb = f->count ? size / f->count : 0;
		if (!eb || eb > 8 || (eb & (eb - 1)))
			return -1;
		if (index >= 0) {
			if ((unsigned long)index >= f->count)
				return -1;
			put_int_line(t, rec + off + (size_t)index * eb, eb, f->src_signed, 0);
			return 0;
		}
		put_tag(t, TRAWL_CAPTURE_ARRAY);
		put_tag(t, f->src_signed ? TRAWL_CAPTURE_SIGNED : TRAWL_CAPTURE_UNSIGNED);
		put(t, "[", 1);
		for (i = 0; i < f->count; i++) {
			if (i)
				put(t, ", ", 2);
			put_int(t, rec + off + (size_t)i * eb, eb, f->src_signed, 0);
		}
		put(t, "]", 1);
		return 0;
	default:
		return -1;
	}
}

/* A sample's thread, as perf gives it (PERF_SAMPLE_TID). */
struct sample_ids {
	uint32_t pid, tid;
};

/* $ctx.NAME of the event's thread: 0, or -1 if trawl has no such context. */
static int put_context(struct text *t, const char *name, const struct sample_ids *ids)
{
	int id = (int)(name[0] == 'p' ? ids->pid : ids->tid);
	char buf[24];

	if (strcmp(name, "pid") && strcmp(name, "tid"))
		return -1;
	put_tag(t, TRAWL_CAPTURE_SIGNED);
	snprintf(buf, sizeof(buf), "%d", id);
	put(t, buf, sizeof(buf));
	return 0;
}

/* The captures of @n from tracepoint @tp's record @rec: one line each. */
static uint32_t captures_format(const struct trawl_kernel_notifier *n, const struct tp *tp,
				const unsigned char *rec, size_t len, const struct sample_ids *ids,
				struct text *t)
{
	const char *d = n->captures, *end;
	uint32_t nr = 0;

	for (; *d; d = *end ? end + 1 : end) {
		char name[128], *br, *stop;
		long index = -1;
		size_t dl;
		int k, ok = -1;

		end = strchr(d, ',');
		if (!end)
			end = d + strlen(d);
		dl = (size_t)(end - d);
		if (t->used + 2 > t->cap)
			break;
		nr++;
		if (dl < sizeof(name)) {
			memcpy(name, d, dl);
			name[dl] = '\0';
			br = strchr(name, '[');
			if (br) {
				index = strtol(br + 1, &stop, 10);
				if (stop == br + 1 || *stop != ']' || stop[1] || index < 0)
					index = -2;
				*br = '\0';
			}
			if (!strncmp(name, "$ctx.", 5) && index == -1)
				ok = put_context(t, name + 5, ids);
			for (k = 0; tp->parsed && name[0] != '$' && index != -2 && k < tp->ev.nfields;
			     k++) {
				if (!strcmp(tp->ev.fields[k].name, name)) {
					size_t mark = t->used;

					ok = put_field(t, &tp->ev.fields[k], rec, len, index);
					if (ok) {
						t->used = mark;
						t->buf[mark] = '\0';
					}
					break;
				}
			}
		}
		if (ok) {
			put_tag(t, TRAWL_CAPTURE_UNAVAILABLE);
			put(t, UNAVAILABLE, sizeof(UNAVAILABLE));
		}
		t->buf[t->used++] = '\n';
		t->buf[t->used] = '\0';
	}
	return nr;
}

/* ---- reading ---- */

/* Copies @len bytes at ring offset @pos (wrapping) into @dst. */
static void ring_copy(const struct ring *r, size_t page, uint64_t pos, void *dst, size_t len)
{
	const unsigned char *data = (const unsigned char *)r->map + page;
	size_t size = page * RING_PAGES, off = (size_t)(pos % size), first = size - off;

	if (first >= len) {
		memcpy(dst, data + off, len);
	} else {
		memcpy(dst, data + off, first);
		memcpy((unsigned char *)dst + first, data, len - first);
	}
}

uint32_t trawl_kernel_notifier_read(struct trawl_kernel_notifier *n, int fd,
				    void (*fn)(uint64_t ts_ns, uint32_t nr_captures,
					       const char *captures, void *arg),
				    void *arg)
{
	struct perf_event_mmap_page *mp;
	size_t size = n->page * RING_PAGES;
	unsigned char rec[65536];
	char caps[CAPTURES_MAX];
	struct ring *r = NULL;
	uint64_t head, tail;
	uint32_t i, seen = 0;

	for (i = 0; i < n->nr_rings; i++)
		if (n->rings[i].fd == fd)
			r = &n->rings[i];
	if (!r)
		return 0;
	mp = r->map;
	/* Acquire: pairs with the kernel's store of data_head after the records. */
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	while (tail < head) {
		struct perf_event_header h;

		ring_copy(r, n->page, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail || h.size > size)
			break; /* never from the kernel: drop what is left */
		if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t v[2];

			ring_copy(r, n->page, tail + sizeof(h), v, sizeof(v));
			n->lost += v[1];
		} else if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 20) {
			/* pid, tid (u32 each), time (u64), raw size (u32), raw */
			struct text t = { caps, sizeof(caps), 0 };
			struct sample_ids ids;
			uint32_t raw, nr = 0;
			uint64_t ts;

			ring_copy(r, n->page, tail, rec, h.size);
			memcpy(&ids, rec + sizeof(h), 8);
			memcpy(&ts, rec + sizeof(h) + 8, 8);
			memcpy(&raw, rec + sizeof(h) + 16, 4);
			if (raw > h.size - sizeof(h) - 20)
				raw = (uint32_t)(h.size - sizeof(h) - 20);
			caps[0] = '\0';
			if (n->captures[0])
				nr = captures_format(n, &n->tps[r->tp], rec + sizeof(h) + 20, raw, &ids, &t);
			fn(ts, nr, n->captures[0] ? caps : NULL, arg);
			seen++;
		}
		tail += h.size;
	}
	/* Release: our reads of the records before the kernel may reuse them. */
	__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
	return seen;
}
