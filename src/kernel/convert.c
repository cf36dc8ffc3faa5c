/* SPDX-License-Identifier: MIT */
/*
 * From ftrace ring-buffer pages to CTF packets.
 *
 * A page as read from per_cpu/cpuN/trace_pipe_raw (x86-64 layout, see
 * events/header_page):
 *
 *   +0  u64 timestamp      absolute time of the page's first event (trace_clock, ns)
 *   +8  u64 commit         bytes of data (low 27 bits); bit 31: events were lost
 *                          before this page; bit 30: their count is stored as a
 *                          u64 right after the data
 *   +16 data               records, each 4-byte aligned:
 *         u32 header = type_len:5 | time_delta:27 << 5
 *         type_len 1..28   data of type_len*4 bytes follows
 *         type_len 0       u32 len (data bytes + 4), then the data
 *         type_len 29      padding: time_delta 0 = rest of the page; else u32 len, skip len
 *         type_len 30      time extend: u32 high bits, delta = high << 27 | time_delta
 *         type_len 31      absolute time stamp, same encoding
 *   Every data record starts with the common header (u16 common_type = the
 *   event id, flags, preempt count, s32 common_pid).
 *
 * Output (src/ctf/layout.h): each record becomes a compact 4-byte header (id <
 * 31 and less than 2^27 ns since the previous event of the stream) or an
 * extended 13-byte one, then the event context (the channel's contexts), then
 * the payload: the event's fields without the common header. Event ids are
 * given in order of first appearance, so the busiest events of a session (the
 * first ones seen) usually get compact headers; the caller's declare()
 * callback adds each event class to the metadata the first time it is used.
 *
 * A getppid() entry+exit pair costs 12 + 24 bytes in the ftrace buffer and
 * 4 + 12 bytes in the CTF stream.
 *
 * The task attributes of the pid, ppid, prio, nice, procname and namespace
 * contexts come from task.c's cache.
 *
 * Pages are untrusted input (fuzz/kernel): every length is checked against
 * the page end before use, as `off > size || len > size - off`.
 */
#define _GNU_SOURCE
#include "common/common.h"
#include "ctf/layout.h"
#include "kernel/internal.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE_HDR_SIZE 16u
#define COMMIT_MASK ((1u << 27) - 1)
#define MISSED_EVENTS (1ull << 31)
#define MISSED_STORED (1ull << 30)
#define CTX_MAX_BYTES (16u + 4u * TRAWL_KCTX_MAX + 8u * TRAWL_KCTX_PERF_MAX)

int trawl_kernel_ctx_parse(const char *name)
{
	static const char *const names[] = { "pid",     "tid",    "procname", "prio",
					      "ppid",    "vpid",   "vtid",     "nice",
					      "cgroup_ns", "ipc_ns", "mnt_ns",  "net_ns",
					      "pid_ns",  "time_ns", "user_ns", "uts_ns" };
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(names); i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -EINVAL;
}

int trawl_kernel_converter_init(struct trawl_kernel_converter *c, struct trawl_kernel_events *ev,
				const uint8_t uuid[16])
{
	memset(c, 0, sizeof(*c));
	c->events = ev;
	memcpy(c->uuid, uuid, 16);
	return 0;
}

void trawl_kernel_converter_fini(struct trawl_kernel_converter *c)
{
	free(c->tasks);
	c->tasks = NULL;
}

/* ---- streams ------------------------------------------------------------ */

int trawl_kernel_stream_init(struct trawl_kernel_stream *s, struct trawl_kernel_converter *conv,
			     uint32_t cpu, size_t packet_cap, trawl_kernel_emit_fn emit, void *arg)
{
	memset(s, 0, sizeof(*s));
	if (packet_cap < 8192)
		packet_cap = 8192;
	s->pkt = malloc(packet_cap);
	if (!s->pkt)
		return -ENOMEM;
	if (conv->nctx && !conv->tasks) {
		conv->tasks = malloc(sizeof(*conv->tasks));
		if (!conv->tasks) {
			free(s->pkt);
			return -ENOMEM;
		}
		for (size_t i = 0; i < TASK_SLOTS; i++)
			conv->tasks->e[i].tid = -1;
	}
	s->conv = conv;
	s->cpu = cpu;
	s->cap = packet_cap;
	s->len = sizeof(struct trawl_ctf_packet_start);
	s->emit = emit;
	s->emit_arg = arg;
	return 0;
}

void trawl_kernel_stream_fini(struct trawl_kernel_stream *s)
{
	free(s->pkt);
	s->pkt = NULL;
}

static int stream_emit(struct trawl_kernel_stream *s)
{
	struct trawl_ctf_packet_start *ps = (struct trawl_ctf_packet_start *)s->pkt;
	int ret;

	if (!s->has_events)
		s->ts_begin = s->ts_last; /* an empty packet (losses only) spans no time */
	ps->header.magic = TRAWL_CTF_MAGIC;
	memcpy(ps->header.uuid, s->conv->uuid, 16);
	ps->header.stream_id = s->conv->stream_id;
	/* unique per stream file of the trace: one file per channel and CPU */
	ps->header.stream_instance_id = (uint64_t)s->conv->stream_id << 32 | s->cpu;
	ps->context.timestamp_begin = s->ts_begin;
	ps->context.timestamp_end = s->ts_last;
	ps->context.content_size = (uint64_t)s->len * 8;
	ps->context.packet_size = (uint64_t)s->len * 8;
	ps->context.packet_seq_num = s->seq;
	ps->context.events_discarded = s->discarded;
	ps->context.cpu_id = s->cpu;
	ret = s->emit(s, s->pkt, s->len, s->emit_arg);
	s->discarded_emitted = s->discarded;
	s->seq++;
	s->len = sizeof(struct trawl_ctf_packet_start);
	s->has_events = 0;
	return ret;
}

int trawl_kernel_stream_flush(struct trawl_kernel_stream *s)
{
	/* An empty packet still reports losses that followed the last event. */
	if (!s->has_events && s->discarded == s->discarded_emitted)
		return 0;
	return stream_emit(s);
}

int trawl_kernel_stream_beacon(struct trawl_kernel_stream *s, uint64_t ts)
{
	int ret = trawl_kernel_stream_flush(s);

	if (ret < 0)
		return ret;
	/* Never behind what the stream already holds: its clock never goes back. */
	if (ts > s->ts_last)
		s->ts_last = ts;
	return stream_emit(s);
}

/*
 * Lost events sit between the packet already written and the next one, so a
 * packet with events is closed first. Readers take a stream's first packet's
 * count as the starting point, not as losses: when events are lost before
 * anything was written, an empty packet (count 0, at @ts) goes first.
 */
static void stream_lost_at(struct trawl_kernel_stream *s, uint64_t n, uint64_t ts)
{
	if (!n)
		return;
	if (s->has_events) {
		stream_emit(s);
	} else if (s->seq == 0) {
		if (ts > s->ts_last)
			s->ts_last = ts;
		stream_emit(s);
	}
	s->discarded += n;
}

void trawl_kernel_stream_add_lost(struct trawl_kernel_stream *s, uint64_t n)
{
	stream_lost_at(s, n, 0);
}

/*
 * A record the kernel kept but that is not written (an event we cannot
 * name or describe, a record shorter than its format, a torn page) is a
 * lost event like one the kernel dropped. It goes into the packet being
 * filled, not a packet of its own: a stream of such records must not cut a
 * packet per record. Only the first packet must stay free of losses
 * (readers take its count as the starting point).
 */
static void stream_unconverted(struct trawl_kernel_stream *s, uint64_t n, uint64_t ts)
{
	s->unconverted += n;
	if (s->seq == 0)
		stream_lost_at(s, n, ts);
	else
		s->discarded += n;
}

static inline uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint8_t *write_context(struct trawl_kernel_stream *s, uint8_t *o, int32_t tid,
			      const uint64_t *perf)
{
	struct trawl_kernel_converter *c = s->conv;
	struct task_entry *t = NULL;
	int32_t v;
	int i;

	for (i = 0; i < c->nctx; i++) {
		int k = c->ctx[i];

		if (k >= TRAWL_KCTX_PERF) {
			uint64_t pv = perf ? perf[k - TRAWL_KCTX_PERF] : 0;

			memcpy(o, &pv, 8);
			o += 8;
			continue;
		}
		if (k == TRAWL_KCTX_TID || k == TRAWL_KCTX_VTID) {
			memcpy(o, &tid, 4);
			o += 4;
			continue;
		}
		if (!t) {
			t = trawl_kernel_task_get(c->tasks, tid);
			if (__builtin_expect(t->gone, 0))
				trawl_kernel_task_ids_of_gone(c, t);
		}
		switch (k) {
		case TRAWL_KCTX_PROCNAME:
			memcpy(o, t->comm, 16);
			o += 16;
			continue;
		case TRAWL_KCTX_PID:
		case TRAWL_KCTX_VPID:
			v = t->pid;
			break;
		case TRAWL_KCTX_PPID:
			v = t->ppid;
			break;
		case TRAWL_KCTX_NICE:
			v = t->nice;
			break;
		case TRAWL_KCTX_CGROUP_NS:
		case TRAWL_KCTX_IPC_NS:
		case TRAWL_KCTX_MNT_NS:
		case TRAWL_KCTX_NET_NS:
		case TRAWL_KCTX_PID_NS:
		case TRAWL_KCTX_TIME_NS:
		case TRAWL_KCTX_USER_NS:
		case TRAWL_KCTX_UTS_NS:
			if (!t->ns_loaded)
				trawl_kernel_task_load_ns(t);
			memcpy(o, &t->ns[k - TRAWL_KCTX_CGROUP_NS], 4);
			o += 4;
			continue;
		default:
			v = t->prio;
			break;
		}
		memcpy(o, &v, 4);
		o += 4;
	}
	return o;
}

/*
 * LTTng's RWBS_FLAG_* bits from block's rwbs text, which the kernel's
 * blk_fill_rwbs() writes as: 'F' if REQ_PREFLUSH, then the operation (W
 * write, D discard, DE secure erase, F flush, R read, N other), then F
 * (FUA), A (read-ahead), S (sync), M (meta). LTTng's blk_rwbs_ctf_integer
 * sets the same flags from the request itself. The one text that can mean
 * two things, "FF", is a flush with a preflush or with FUA: both are read
 * as PREFLUSH | FLUSH.
 */
enum {
	RWBS_WRITE = 1 << 0, RWBS_DISCARD = 1 << 1, RWBS_READ = 1 << 2, RWBS_RAHEAD = 1 << 3,
	RWBS_SYNC = 1 << 5, RWBS_META = 1 << 6, RWBS_SECURE = 1 << 7, RWBS_FLUSH = 1 << 8,
	RWBS_FUA = 1 << 9, RWBS_PREFLUSH = 1 << 10,
};

static uint32_t rwbs_flags(const uint8_t *t, size_t n)
{
	uint32_t v = 0;
	size_t i = 0;

	n = strnlen((const char *)t, n);
	if (n >= 2 && t[0] == 'F' && strchr("WDFRN", t[1]))
		v |= RWBS_PREFLUSH, i = 1;
	if (i < n) {
		switch (t[i++]) {
		case 'W': v |= RWBS_WRITE; break;
		case 'D':
			v |= RWBS_DISCARD;
			if (i < n && t[i] == 'E')
				v |= RWBS_SECURE, i++;
			break;
		case 'F': v |= RWBS_FLUSH; break;
		case 'R': v |= RWBS_READ; break;
		default: break;
		}
	}
	for (; i < n; i++) {
		switch (t[i]) {
		case 'F': v |= RWBS_FUA; break;
		case 'A': v |= RWBS_RAHEAD; break;
		case 'S': v |= RWBS_SYNC; break;
		case 'M': v |= RWBS_META; break;
		default: break;
		}
	}
	return v;
}

/* An integer of @len bytes (signed or not) widened to 8 bytes. */
static int64_t rd_int(const uint8_t *p, unsigned len, int is_signed)
{
	switch (len) {
	case 1: return is_signed ? (int64_t)(int8_t)p[0] : (int64_t)p[0];
	case 2: {
		uint16_t v;

		memcpy(&v, p, 2);
		return is_signed ? (int64_t)(int16_t)v : (int64_t)v;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, p, 4);
		return is_signed ? (int64_t)(int32_t)v : (int64_t)v;
	}
	default: {
		int64_t v;

		memcpy(&v, p, 8);
		return v;
	}
	}
}

/* The bytes a __data_loc word at @op->src points to, within the record (else empty). */
static const uint8_t *loc_bytes(const struct trawl_kernel_op *op, const uint8_t *rec, uint32_t len,
				uint32_t *l_out)
{
	uint32_t loc = rd32(rec + op->src);
	uint32_t off = (loc & 0xffff) + (op->rel_loc ? op->src + 4u : 0u), l = loc >> 16;

	if (off > len || l > len - off)
		l = 0, off = len;
	*l_out = l;
	return rec + off;
}

/*
 * Copies a record's fields as the event's plan says: merged fixed fields by
 * memcpy, integers converted to LTTng's sizes, __data_loc strings
 * NUL-terminated, __data_loc byte arrays with their u32 length, derived
 * fields (layout.c). Returns the end of what was written. The caller made
 * room for 2 * @len + OP_MAX_OUT bytes per op.
 */
/* A syscall field from BPF's record @sc (scaux.c); nothing found: "" or 0, as LTTng on a fault. */
static uint8_t *write_sc(const struct trawl_kernel_op *op, const struct trawl_kernel_scinfo *sc, uint8_t *o)
{
	uint32_t l;
	const uint8_t *p = trawl_kernel_scinfo_arg_data(sc, op->arg, &l);
	uint64_t v;

	switch (op->xform) {
	case TRAWL_KX_SC_STR: {
		const uint8_t *nul = p ? memchr(p, 0, l) : NULL;

		l = nul ? (uint32_t)(nul - p) : (p ? l : 0);
		if (l)
			memcpy(o, p, l);
		o[l] = '\0';
		return o + l + 1;
	}
	case TRAWL_KX_SC_INT2:
		if (p && l == 8)
			memcpy(o, p, 8);
		else
			memset(o, 0, 8);
		return o + 8;
	case TRAWL_KX_SC_ARG:
		v = sc->found ? sc->args[op->arg] : 0;
		memcpy(o, &v, op->dst); /* little-endian: the low bytes */
		return o + op->dst;
	default:
		return trawl_kernel_scdecode_write(op, sc, o);
	}
}

static uint8_t *write_payload(struct trawl_kernel_stream *s, const struct trawl_kernel_event *ev,
			      const uint8_t *rec, uint32_t len, const struct trawl_kernel_scinfo *sc,
			      uint8_t *o)
{
	struct trawl_kernel_fork_info fork;
	int have_fork = 0, i;

	for (i = 0; i < ev->nops; i++) {
		const struct trawl_kernel_op *op = &ev->ops[i];
		const uint8_t *p;
		uint32_t l;
		int64_t v;

		switch (op->kind) {
		case TRAWL_KOP_COPY:
			memcpy(o, rec + op->src, op->len);
			o += op->len;
			break;
		case TRAWL_KOP_INT:
			v = rd_int(rec + op->src, op->len, op->is_signed) + op->add;
			memcpy(o, &v, op->dst); /* little-endian: the low bytes */
			o += op->dst;
			break;
		case TRAWL_KOP_RWBS: {
			uint32_t f = rwbs_flags(rec + op->src, op->len);

			memcpy(o, &f, 4);
			o += 4;
			break;
		}
		case TRAWL_KOP_TEXT2STR:
			l = (uint32_t)strnlen((const char *)rec + op->src, op->len);
			memcpy(o, rec + op->src, l);
			o[l] = '\0';
			o += l + 1;
			break;
		case TRAWL_KOP_STRING:
		case TRAWL_KOP_STR2TEXT: {
			const uint8_t *nul;

			p = loc_bytes(op, rec, len, &l);
			nul = memchr(p, 0, l);
			if (nul)
				l = (uint32_t)(nul - p);
			if (op->kind == TRAWL_KOP_STR2TEXT) {
				l = TRAWL_MIN(l, op->dst);
				memcpy(o, p, l);
				memset(o + l, 0, op->dst - l);
				o += op->dst;
				break;
			}
			memcpy(o, p, l);
			o[l] = '\0';
			o += l + 1;
			break;
		}
		case TRAWL_KOP_BYTES:
			p = loc_bytes(op, rec, len, &l);
			memcpy(o, &l, 4);
			memcpy(o + 4, p, l);
			o += 4 + l;
			break;
		case TRAWL_KOP_FORK:
			if (!have_fork) {
				trawl_kernel_fork_info_get(s->conv, ev, rec, len, &fork);
				have_fork = 1;
			}
			o = trawl_kernel_fork_info_write(&fork, op->xform, o);
			break;
		case TRAWL_KOP_SC:
			o = write_sc(op, sc, o);
			break;
		}
	}
	return o;
}

/*
 * A record of trawl's own (notrace.c): made by one of trawl's threads and
 * about no other program's. A switch to or from another program, or a
 * wakeup of a traced program by the consumer (writing to a pipe it reads),
 * is kept: it tells about that program.
 */
static int hidden_record(const struct trawl_kernel_hidden *h, const struct trawl_kernel_event *ev,
			 const uint8_t *rec, uint32_t len)
{
	int32_t pid;
	int i;

	memcpy(&pid, rec + 4, 4);
	if (!trawl_kernel_hidden_has(h, pid))
		return 0;
	for (i = 0; i < ev->nsubj; i++) {
		if ((uint32_t)ev->subj_off[i] + 4 > len)
			return 0;
		memcpy(&pid, rec + ev->subj_off[i], 4);
		if (!trawl_kernel_hidden_has(h, pid))
			return 0;
	}
	return 1;
}

/* Room for @need bytes in the packet: 1, 0 (a record larger than a packet), or an emit error. */
static int make_room(struct trawl_kernel_stream *s, size_t need)
{
	int ret;

	if (s->cap - s->len >= need)
		return 1;
	if (s->has_events) {
		ret = stream_emit(s);
		if (ret < 0)
			return ret;
	}
	/* larger than a packet: cannot happen with 4 KiB..1 MiB pages */
	return s->cap - s->len >= need;
}

/* The event header: compact (id < 31, < 2^27 ns since the last event) or extended. */
static uint8_t *write_header(const struct trawl_kernel_stream *s, const struct trawl_kernel_event *ev,
			     uint64_t ts, uint8_t *o)
{
	uint32_t id = (uint32_t)ev->ctf_id;

	if (ev->ctf_id <= TRAWL_CTF_COMPACT_ID_MAX && ts - s->ts_last < (1ull << TRAWL_CTF_COMPACT_TS_BITS)) {
		uint32_t w = (uint32_t)((ts & ((1u << TRAWL_CTF_COMPACT_TS_BITS) - 1)) << 5) | id;

		memcpy(o, &w, 4);
		return o + 4;
	}
	*o++ = TRAWL_CTF_EXTENDED_ID;
	memcpy(o, &id, 4);
	memcpy(o + 4, &ts, 8);
	return o + 12;
}

/* Gives @ev its CTF id (and metadata) at its first record; 0 if it cannot be described. */
static int event_declare(struct trawl_kernel_stream *s, struct trawl_kernel_event *ev)
{
	if (trawl_likely(ev->ctf_id >= 0))
		return 1;
	if (ev->ctf_id == TRAWL_KERNEL_CTF_ID_BAD)
		return 0;
	ev->ctf_id = s->conv->next_ctf_id++;
	if (s->conv->declare && s->conv->declare(ev, s->conv->arg) < 0) {
		/* an event we cannot describe is left out, not the whole trace */
		ev->ctf_id = TRAWL_KERNEL_CTF_ID_BAD;
		s->conv->next_ctf_id--;
		return 0;
	}
	return 1;
}

int trawl_kernel_stream_convert_record(struct trawl_kernel_stream *s, uint64_t ts, const uint8_t *rec,
				       uint32_t len, const uint64_t *perf)
{
	struct trawl_kernel_scinfo sc = { 0 };
	struct trawl_kernel_event *ev;
	size_t need, sc_bytes = 0;
	uint8_t *o;
	int32_t tid;
	int i, ret;

	if (len < 8)
		goto unconverted;
	ev = trawl_kernel_events_get(s->conv->events, (uint16_t)(rec[0] | rec[1] << 8));
	if (!ev || len < ev->min_len)
		goto unconverted;
	if (s->conv->hidden && s->conv->hidden->n && !ev->never_hidden &&
	    hidden_record(s->conv->hidden, ev, rec, len)) {
		s->hidden++; /* trawl's own: left out by design, not lost (notrace.c) */
		return 0;
	}
	if (s->conv->trackers && !ev->never_hidden) {
		memcpy(&tid, rec + 4, 4); /* common_pid: the task making the event, as LTTng's current */
		if (!trawl_kernel_trackers_keep(s->conv->trackers, tid, ts)) {
			s->untracked++; /* a tracker leaves it out (tracker.c) */
			return 0;
		}
	}
	if (!event_declare(s, ev))
		goto unconverted;
	/* a syscall's strings and arrays from BPF (scaux.c), fetched once */
	if (ev->sc_has_ops)
		trawl_kernel_scaux_take(s->conv, ev, rec, len, ts, &sc);
	for (i = 0; i < 6; i++)
		sc_bytes += sc.len[i];
	/*
	 * Output bound: header, contexts, copies (<= len), strings (<= len + 1 each), derived
	 * fields, BPF's data (decoded structures: at most twice their bytes, scdecode-data.c).
	 */
	need = TRAWL_CTF_EXTENDED_HEADER_SIZE + CTX_MAX_BYTES + 2 * (size_t)len +
	       TRAWL_KERNEL_OP_MAX_OUT * (size_t)ev->nops + 2 * sc_bytes;
	ret = make_room(s, need);
	if (ret <= 0) {
		trawl_kernel_scinfo_fini(&sc);
		if (ret == 0)
			goto unconverted;
		return ret;
	}
	if (ts < s->ts_last)
		ts = s->ts_last; /* a stream's clock never goes back */
	if (!s->has_events) {
		s->ts_begin = ts;
		s->ts_last = ts;
	}
	o = write_header(s, ev, ts, s->pkt + s->len);
	if (s->conv->nctx) {
		if (ev->hook && s->conv->tasks)
			trawl_kernel_task_hook(s->conv->tasks, ev, rec, len);
		memcpy(&tid, rec + 4, 4);
		o = write_context(s, o, tid, perf);
	}
	o = write_payload(s, ev, rec, len, &sc, o);
	trawl_kernel_scinfo_fini(&sc);
	s->len = (size_t)(o - s->pkt);
	s->ts_last = ts;
	s->has_events = 1;
	s->events++;
	return 1;
unconverted:
	stream_unconverted(s, 1, ts);
	return 0;
}

int trawl_kernel_stream_convert_page(struct trawl_kernel_stream *s, const uint8_t *page, size_t len)
{
	uint64_t ts, commit;
	uint32_t size, off;
	int count = 0, ret;

	if (len < PAGE_HDR_SIZE)
		return 0;
	ts = rd64(page);
	commit = rd64(page + 8);
	size = (uint32_t)(commit & COMMIT_MASK);
	if (size > len - PAGE_HDR_SIZE)
		size = (uint32_t)(len - PAGE_HDR_SIZE);
	if (commit & MISSED_EVENTS) {
		uint64_t lost = 1; /* at least one; the count is stored when there was room */

		if ((commit & MISSED_STORED) && PAGE_HDR_SIZE + (size_t)size + 8 <= len)
			lost = rd64(page + PAGE_HDR_SIZE + size);
		stream_lost_at(s, lost, ts);
	}
	page += PAGE_HDR_SIZE;
	off = 0;
	while (off <= size && size - off >= 4) {
		uint32_t hdr = rd32(page + off);
		uint32_t type_len = hdr & 31, delta = hdr >> 5, dlen, arr;

		switch (type_len) {
		case 29: /* padding or a discarded record */
			if (delta == 0)
				return count; /* the page's end */
			if (size - off < 8)
				goto torn;
			arr = rd32(page + off + 4);
			if (arr > size - off - 4)
				goto torn;
			off += 4 + TRAWL_ALIGN_UP(arr, 4u);
			continue;
		case 30: /* time extend */
			if (size - off < 8)
				goto torn;
			ts += ((uint64_t)rd32(page + off + 4) << 27) + delta;
			off += 8;
			continue;
		case 31: { /* absolute time stamp: 59 bits, the top bits from the page */
			uint64_t abs;

			if (size - off < 8)
				goto torn;
			abs = ((uint64_t)rd32(page + off + 4) << 27) | delta;
			ts = abs | (ts & ~((1ull << 59) - 1));
			off += 8;
			continue;
		}
		case 0:
			if (size - off < 8)
				goto torn;
			arr = rd32(page + off + 4);
			if (arr < 4)
				goto torn;
			dlen = arr - 4;
			if (dlen > size - off - 8)
				goto torn;
			ts += delta;
			ret = trawl_kernel_stream_convert_record(s, ts, page + off + 8, dlen, NULL);
			off += 8 + TRAWL_ALIGN_UP(dlen, 4u);
			break;
		default:
			dlen = type_len * 4;
			if (dlen > size - off - 4)
				goto torn;
			ts += delta;
			ret = trawl_kernel_stream_convert_record(s, ts, page + off + 4, dlen, NULL);
			off += 4 + dlen;
			break;
		}
		if (ret < 0)
			return ret;
		count += ret;
	}
	return count;
torn:
	/* a record that does not fit its page: at least one event is lost */
	stream_unconverted(s, 1, ts);
	return count;
}
