/* SPDX-License-Identifier: MIT */
/*
 * ctf_stream.c - the tests' stream files (ctf_stream.h): packets of events
 * encoded here, or packets built elsewhere. It reaches into src/ctf's
 * trace internals (ctf/internal.h) for the classes' alignments, as tests may.
 *
 * Encoding. The fields of the event being written are kept in a small log
 * (one entry per field: value, size, alignment, byte order; strings and
 * byte arrays are copied into a per-stream arena, so the caller's buffers
 * may change right after each call) and encoded into the packet by
 * event_end(). CTF aligns fields relative to the
 * packet start, so an event that does not fit at the end of one packet must
 * be encoded again, with other padding, at the start of the next: the log
 * lets event_end() do that without asking the caller to write the event
 * twice. The log and the arena are reused from event to event: no allocation
 * per event once they have grown to the largest event's size (the arena is
 * bounded by the packet size: a bigger event could not fit anyway).
 *
 * Packets on disk hold their content padded with zeros to the page size,
 * as LTTng's and trawl's consumers write them (ctf/packet.h).
 * Every packet, encoded here or appended, is written by packet_out() through
 * trawl_ctf_packet_prepare() (packet.h), the step the consumers take for
 * theirs: the golden tests of tests/ctf check what production writes.
 */
#include "ctf_stream.h"
#include "common/common.h"
#include "ctf/internal.h"
#include "ctf/packet.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

enum op_kind { OP_BITS, OP_STRING, OP_BYTES, OP_ALIGN };

struct op {
	uint8_t kind;
	uint8_t size_bits; /* OP_BITS: 1..64 */
	uint8_t align_bits;
	uint8_t be;
	uint64_t v;        /* OP_BITS; OP_STRING, OP_BYTES: offset in the arena */
	size_t len;        /* bytes, NUL included for strings */
};

struct trawl_ctf_stream {
	struct trawl_ctf_trace *trace; /* not owned */
	uint32_t stream_id;
	enum trawl_ctf_header_kind kind;
	int big_endian;
	uint64_t instance_id;
	uint32_t cpu_id;
	int fd, idx_fd;

	uint8_t *pkt;       /* owned, packet_size bytes */
	size_t packet_size; /* bytes */
	uint64_t pos;       /* bits used in the current packet */
	int nr_events;      /* in the current packet */
	uint64_t ts_begin, ts_end, last_ts;
	uint64_t seq;
	uint64_t discarded;  /* running count, as the packet context holds it */
	uint64_t file_off;

	unsigned ctx_align; /* 0: the stream class has no event context */
	uint8_t *align_cache; /* owned; payload alignment by event id (0: not looked up) */
	size_t align_cache_len;
	int ev_align; /* payload alignment of the event being written */

	int in_event;
	uint32_t ev_id;
	uint64_t ev_ts;
	struct op *ops; /* owned */
	size_t nr_ops, cap_ops;
	uint8_t *arena; /* owned: the event's strings and byte arrays */
	size_t arena_len, arena_cap;
	int err; /* first error met by a field writer, reported by event_end() */
};

#define PACKET_START_BITS ((uint64_t)sizeof(struct trawl_ctf_packet_start) * 8)

/* ------------------------------------------------------------------ */
/* Bit packing                                                        */
/* ------------------------------------------------------------------ */

/*
 * CTF packs little-endian bit fields from the least significant bit of each
 * byte, big-endian ones from the most significant bit. @buf is zeroed ahead
 * of the writes, so partial bytes are OR'ed in.
 */
static void put_bits(uint8_t *buf, uint64_t pos, uint64_t v, unsigned n, int be)
{
	if (n < 64)
		v &= (UINT64_C(1) << n) - 1;
	if (!(pos & 7) && !(n & 7)) {
		uint64_t x = be ? htobe64(v << (64 - n)) : htole64(v);

		memcpy(buf + (pos >> 3), &x, n >> 3);
		return;
	}
	while (n) {
		unsigned off = pos & 7;
		unsigned take = 8 - off < n ? 8 - off : n;
		unsigned mask = (1u << take) - 1;

		if (be) {
			buf[pos >> 3] |= (uint8_t)(((v >> (n - take)) & mask) << (8 - off - take));
		} else {
			buf[pos >> 3] |= (uint8_t)((v & mask) << off);
			v >>= take;
		}
		pos += take;
		n -= take;
	}
}

/*
 * put_bits() at the end of the data being encoded, where the packet is still
 * zero from @pos on. Past the value's n / 8 bytes x holds zeros too, so a
 * whole 8-byte store (one instruction, where a store of n / 8 bytes is a
 * call) changes nothing more. Not for rewriting a packet's start.
 */
static inline void put_bits_fresh(uint8_t *buf, size_t buf_len, uint64_t pos, uint64_t v,
				  unsigned n, int be)
{
	if (!(pos & 7) && !(n & 7) && (pos >> 3) + 8 <= buf_len) {
		uint64_t x;

		if (n < 64)
			v &= (UINT64_C(1) << n) - 1;
		x = be ? htobe64(v << (64 - n)) : htole64(v);
		memcpy(buf + (pos >> 3), &x, 8);
		return;
	}
	put_bits(buf, pos, v, n, be);
}

static int op_be(const struct trawl_ctf_stream *s, enum trawl_ctf_byte_order bo)
{
	return bo == TRAWL_CTF_BO_NATIVE ? s->big_endian : bo != TRAWL_CTF_BO_LE;
}

/* ------------------------------------------------------------------ */
/* Files                                                              */
/* ------------------------------------------------------------------ */

static int writev_all(int fd, struct iovec *iov, int cnt)
{
	while (cnt) {
		ssize_t w = writev(fd, iov, cnt);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (cnt && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/*
 * Writes packet @pkt (@len bytes readable) and its index entry, checked and
 * rewritten by trawl_ctf_packet_prepare(): the very step the consumers'
 * outputs take (packet.h), for the packets encoded here as for those
 * appended, which must be whole (closed: struct trawl_ctf_packet_expect).
 */
static int packet_out(struct trawl_ctf_stream *s, const void *pkt, size_t len)
{
	const size_t hl = sizeof(struct trawl_ctf_packet_start);
	const struct trawl_ctf_packet_expect exp = {
		.big_endian = s->big_endian,
		.uuid = trawl_ctf_trace_uuid(s->trace),
		.stream_id = s->stream_id,
		.closed = 1,
	};
	struct trawl_ctf_packet p;
	struct iovec iov[3];
	int ret;

	ret = trawl_ctf_packet_prepare(&p, pkt, len, &exp, s->instance_id, s->file_off);
	if (ret)
		return ret;
	iov[0] = (struct iovec){&p.head, hl};
	iov[1] = (struct iovec){(uint8_t *)pkt + hl, p.bytes - hl};
	iov[2] = (struct iovec){(void *)trawl_ctf_packet_zeros, p.size - p.bytes};
	ret = writev_all(s->fd, iov, 3);
	if (!ret)
		ret = trawl_write_all(s->idx_fd, &p.entry, sizeof(p.entry));
	if (ret)
		return ret;
	s->file_off += p.size;
	return 0;
}

struct trawl_ctf_stream *trawl_ctf_stream_create(struct trawl_ctf_trace *trace,
						 uint32_t stream_class_id, const char *dir,
						 const char *name, uint64_t stream_instance_id,
						 uint32_t cpu_id, size_t packet_size)
{
	struct trawl_ctf_index_header ih;
	struct trawl_ctf_stream *s;
	char path[PATH_MAX];
	int kind, ret;

	kind = ctf_trace_stream_kind(trace, stream_class_id);
	if (kind < 0 || !name || !*name || strchr(name, '/') || packet_size < 4096 ||
	    packet_size > (SIZE_MAX >> 4)) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->fd = s->idx_fd = -1;
	s->trace = trace;
	s->stream_id = stream_class_id;
	s->kind = (enum trawl_ctf_header_kind)kind;
	s->big_endian = trawl_ctf_trace_big_endian(trace);
	s->instance_id = stream_instance_id;
	s->cpu_id = cpu_id;
	s->packet_size = packet_size;
	s->ctx_align = ctf_trace_context_align(trace, stream_class_id);
	s->pos = PACKET_START_BITS;
	s->pkt = calloc(1, packet_size);
	if (!s->pkt)
		goto err;
	ret = snprintf(path, sizeof(path), "%s/index", dir);
	if (ret < 0 || (size_t)ret >= sizeof(path)) {
		errno = ENAMETOOLONG;
		goto err;
	}
	if (mkdir(path, 0750) && errno != EEXIST)
		goto err;
	ret = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (ret < 0 || (size_t)ret >= sizeof(path)) {
		errno = ENAMETOOLONG;
		goto err;
	}
	s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (s->fd < 0)
		goto err;
	ret = snprintf(path, sizeof(path), "%s/index/%s.idx", dir, name);
	if (ret < 0 || (size_t)ret >= sizeof(path)) {
		errno = ENAMETOOLONG;
		goto err;
	}
	s->idx_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (s->idx_fd < 0)
		goto err;
	trawl_ctf_index_header_init(&ih);
	ret = trawl_write_all(s->idx_fd, &ih, sizeof(ih));
	if (ret) {
		errno = -ret;
		goto err;
	}
	return s;
err:
	ret = errno;
	if (s->fd >= 0)
		close(s->fd);
	if (s->idx_fd >= 0)
		close(s->idx_fd);
	free(s->pkt);
	free(s);
	errno = ret;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Packets encoded here                                               */
/* ------------------------------------------------------------------ */

static int packet_write(struct trawl_ctf_stream *s)
{
	uint64_t content = s->pos;
	uint64_t bytes = (content + 7) / 8;
	int be = s->big_endian;
	uint8_t *p = s->pkt;
	const uint8_t *uuid = trawl_ctf_trace_uuid(s->trace);
	uint64_t pos = 0;
	unsigned i;
	int ret;

	/* Header and context, in the trace's byte order (all byte-aligned). */
	memset(p, 0, sizeof(struct trawl_ctf_packet_start));
	put_bits(p, pos, TRAWL_CTF_MAGIC, 32, be), pos += 32;
	for (i = 0; i < 16; i++)
		put_bits(p, pos, uuid[i], 8, be), pos += 8;
	put_bits(p, pos, s->stream_id, 32, be), pos += 32;
	put_bits(p, pos, s->instance_id, 64, be), pos += 64;
	put_bits(p, pos, s->ts_begin, 64, be), pos += 64;
	put_bits(p, pos, s->ts_end, 64, be), pos += 64;
	put_bits(p, pos, content, 64, be), pos += 64;
	put_bits(p, pos, bytes * 8, 64, be), pos += 64;
	put_bits(p, pos, s->seq, 64, be), pos += 64;
	put_bits(p, pos, s->discarded, 64, be), pos += 64;
	put_bits(p, pos, s->cpu_id, 32, be);

	ret = packet_out(s, p, bytes);
	if (ret)
		return ret;
	s->seq++;
	memset(p, 0, bytes);
	s->pos = PACKET_START_BITS;
	s->nr_events = 0;
	return 0;
}

int trawl_ctf_stream_flush(struct trawl_ctf_stream *s)
{
	if (s->in_event)
		return -EBUSY; /* an event is half written */
	if (!s->nr_events)
		return 0;
	return packet_write(s);
}

int trawl_ctf_stream_close(struct trawl_ctf_stream *s)
{
	int ret;

	if (!s)
		return 0;
	if (s->in_event) {
		/* An event never ended is dropped, and counted. */
		s->in_event = 0;
		s->discarded++;
	}
	ret = trawl_ctf_stream_flush(s);
	if (close(s->fd) && !ret)
		ret = -errno;
	if (close(s->idx_fd) && !ret)
		ret = -errno;
	free(s->ops);
	free(s->arena);
	free(s->align_cache);
	free(s->pkt);
	free(s);
	return ret;
}

void trawl_ctf_stream_add_discarded(struct trawl_ctf_stream *s, uint64_t n)
{
	s->discarded += n;
}

uint64_t trawl_ctf_stream_bytes(const struct trawl_ctf_stream *s)
{
	return s->file_off;
}

/* The payload alignment of event @id, cached: event_begin() is on the hot path. */
static int event_align(struct trawl_ctf_stream *s, uint32_t id)
{
	int a;

	if (id < s->align_cache_len && s->align_cache[id])
		return s->align_cache[id];
	a = ctf_trace_event_align(s->trace, s->stream_id, id);
	if (a < 0)
		return a;
	if (id < 65536 && id >= s->align_cache_len) {
		size_t n = (size_t)id + 64;
		uint8_t *c = realloc(s->align_cache, n);

		if (!c)
			return a;
		memset(c + s->align_cache_len, 0, n - s->align_cache_len);
		s->align_cache = c;
		s->align_cache_len = n;
	}
	if (id < s->align_cache_len)
		s->align_cache[id] = (uint8_t)a;
	return a;
}

static struct op *op_add(struct trawl_ctf_stream *s, enum op_kind kind, unsigned align_bits);

int trawl_ctf_event_begin(struct trawl_ctf_stream *s, uint32_t id, uint64_t timestamp)
{
	int a;

	if (s->in_event)
		return -EBUSY;
	a = event_align(s, id);
	if (a < 0)
		return a;
	s->in_event = 1;
	s->ev_id = id;
	s->ev_ts = timestamp;
	s->ev_align = a;
	s->nr_ops = 0;
	s->arena_len = 0;
	s->err = 0;
	/* CTF aligns the context struct, then the payload struct, to their alignment. */
	op_add(s, OP_ALIGN, s->ctx_align ? s->ctx_align : (unsigned)a);
	return s->err;
}

int trawl_ctf_event_payload(struct trawl_ctf_stream *s)
{
	if (!s->in_event)
		return -EINVAL;
	if (s->ctx_align)
		op_add(s, OP_ALIGN, (unsigned)s->ev_align);
	return s->err;
}

int trawl_ctf_write_align(struct trawl_ctf_stream *s, unsigned align_bits)
{
	op_add(s, OP_ALIGN, align_bits);
	return s->err;
}

static struct op *op_add(struct trawl_ctf_stream *s, enum op_kind kind, unsigned align_bits)
{
	struct op *o;

	if (!s->in_event) {
		s->err = -EINVAL;
		return NULL;
	}
	if (align_bits < 1 || align_bits > 64 || (align_bits & (align_bits - 1))) {
		s->err = -EINVAL;
		return NULL;
	}
	if (s->nr_ops == s->cap_ops) {
		size_t cap = s->cap_ops ? 2 * s->cap_ops : 32;

		o = realloc(s->ops, cap * sizeof(*o));
		if (!o) {
			s->err = -ENOMEM;
			return NULL;
		}
		s->ops = o;
		s->cap_ops = cap;
	}
	o = &s->ops[s->nr_ops++];
	o->kind = kind;
	o->align_bits = (uint8_t)align_bits;
	return o;
}

int trawl_ctf_write_uint(struct trawl_ctf_stream *s, uint64_t v, unsigned size_bits,
			 unsigned align_bits, enum trawl_ctf_byte_order bo)
{
	struct op *o;

	if (size_bits < 1 || size_bits > 64) {
		s->err = -EINVAL;
		return -EINVAL;
	}
	o = op_add(s, OP_BITS, align_bits);
	if (!o)
		return s->err;
	o->size_bits = (uint8_t)size_bits;
	o->be = (uint8_t)op_be(s, bo);
	o->v = v;
	return 0;
}

int trawl_ctf_write_int(struct trawl_ctf_stream *s, int64_t v, unsigned size_bits,
			unsigned align_bits, enum trawl_ctf_byte_order bo)
{
	return trawl_ctf_write_uint(s, (uint64_t)v, size_bits, align_bits, bo);
}

int trawl_ctf_write_float(struct trawl_ctf_stream *s, float v, unsigned align_bits,
			  enum trawl_ctf_byte_order bo)
{
	uint32_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return trawl_ctf_write_uint(s, bits, 32, align_bits, bo);
}

int trawl_ctf_write_double(struct trawl_ctf_stream *s, double v, unsigned align_bits,
			   enum trawl_ctf_byte_order bo)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	return trawl_ctf_write_uint(s, bits, 64, align_bits, bo);
}

/*
 * Copies @len bytes into the arena for op @o. An event whose strings and
 * arrays alone exceed the packet cannot be written: -EMSGSIZE, which
 * event_end() reports (and counts as a discarded event).
 */
static int arena_put(struct trawl_ctf_stream *s, struct op *o, const void *p, size_t len)
{
	if (len > s->packet_size - s->arena_len) {
		s->err = -EMSGSIZE;
		return s->err;
	}
	if (s->arena_len + len > s->arena_cap) {
		size_t cap = s->arena_cap ? s->arena_cap : 256;
		uint8_t *a;

		while (cap < s->arena_len + len)
			cap *= 2;
		a = realloc(s->arena, cap);
		if (!a) {
			s->err = -ENOMEM;
			return s->err;
		}
		s->arena = a;
		s->arena_cap = cap;
	}
	memcpy(s->arena + s->arena_len, p, len);
	o->v = s->arena_len;
	o->len = len;
	s->arena_len += len;
	return 0;
}

int trawl_ctf_write_string(struct trawl_ctf_stream *s, const char *str)
{
	struct op *o;

	if (!str) {
		s->err = -EINVAL;
		return s->err;
	}
	o = op_add(s, OP_STRING, 8);
	if (!o)
		return s->err;
	return arena_put(s, o, str, strlen(str) + 1);
}

int trawl_ctf_write_bytes(struct trawl_ctf_stream *s, const void *p, size_t len,
			  unsigned align_bits)
{
	struct op *o = op_add(s, OP_BYTES, align_bits < 8 ? 8 : align_bits);

	if (!o)
		return s->err;
	if (!p && len) {
		s->err = -EINVAL;
		return s->err;
	}
	if (!len) {
		o->len = 0;
		return 0;
	}
	return arena_put(s, o, p, len);
}

/* Advances @pos to @align and reserves @n bits; -ENOSPC past the packet. */
static int reserve(const struct trawl_ctf_stream *s, uint64_t *pos, unsigned align, uint64_t n)
{
	uint64_t p = (*pos + align - 1) & ~(uint64_t)(align - 1);
	uint64_t cap = (uint64_t)s->packet_size * 8;

	if (p > cap || n > cap - p)
		return -ENOSPC;
	*pos = p;
	return 0;
}

#define PUT(pos, v, n, al, be)                                        \
	do {                                                          \
		if (reserve(s, &(pos), (al), (n)))                    \
			return -ENOSPC;                               \
		put_bits_fresh(s->pkt, s->packet_size, (pos), (v), (n), (be)); \
		(pos) += (n);                                         \
	} while (0)

/* Encodes the logged event at the end of the current packet. */
static int encode(struct trawl_ctf_stream *s, uint64_t last_ts)
{
	uint64_t pos = s->pos, delta = s->ev_ts - last_ts;
	uint32_t id = s->ev_id;
	int be = s->big_endian;
	size_t i;

	if (s->kind == TRAWL_CTF_HEADER_COMPACT) {
		if (id <= TRAWL_CTF_COMPACT_ID_MAX && delta < (UINT64_C(1) << 27)) {
			/*
			 * The 5-bit id and the 27-bit timestamp fill one 32-bit
			 * word: id in the low bits little-endian, the high bits
			 * big-endian (CTF's bit order follows the byte order).
			 */
			uint64_t ts27 = s->ev_ts & ((UINT64_C(1) << 27) - 1);

			PUT(pos, be ? (uint64_t)id << 27 | ts27 : ts27 << 5 | id, 32, 8, be);
		} else {
			PUT(pos, TRAWL_CTF_EXTENDED_ID, 5, 8, be);
			PUT(pos, id, 32, 8, be);
			PUT(pos, s->ev_ts, 64, 8, be);
		}
	} else {
		if (id < 65535 && delta < (UINT64_C(1) << 32)) {
			PUT(pos, id, 16, 8, be);
			PUT(pos, s->ev_ts, 32, 8, be);
		} else {
			PUT(pos, 65535, 16, 8, be);
			PUT(pos, id, 32, 8, be);
			PUT(pos, s->ev_ts, 64, 8, be);
		}
	}
	for (i = 0; i < s->nr_ops; i++) {
		const struct op *o = &s->ops[i];

		if (o->kind == OP_BITS) {
			PUT(pos, o->v, o->size_bits, o->align_bits, o->be);
			continue;
		}
		if (o->kind == OP_ALIGN) {
			if (reserve(s, &pos, o->align_bits, 0))
				return -ENOSPC;
			continue;
		}
		if (o->len > (SIZE_MAX >> 4) || reserve(s, &pos, o->align_bits, (uint64_t)o->len * 8))
			return -ENOSPC;
		if (o->len)
			memcpy(s->pkt + (pos >> 3), s->arena + o->v, o->len);
		pos += (uint64_t)o->len * 8;
	}
	s->pos = pos;
	return 0;
}

int trawl_ctf_event_end(struct trawl_ctf_stream *s)
{
	uint64_t start = s->pos;
	/* The byte at @start may hold the previous event's last bits. */
	uint8_t keep = start / 8 < s->packet_size ? s->pkt[start / 8] : 0;
	int ret;

	if (!s->in_event)
		return -EINVAL;
	s->in_event = 0;
	if (s->err) {
		if (s->err == -EMSGSIZE)
			s->discarded++;
		return s->err;
	}
	if (s->nr_events && s->ev_ts < s->last_ts)
		return -ERANGE;
	if (s->nr_events) {
		ret = encode(s, s->last_ts);
		if (!ret)
			goto placed;
		/* Undo the partial encoding, close the packet, retry in a new one. */
		if (start / 8 < s->packet_size) {
			memset(s->pkt + start / 8, 0, s->packet_size - start / 8);
			s->pkt[start / 8] = keep;
		}
		s->pos = start;
		ret = packet_write(s);
		if (ret)
			return ret;
	}
	/* First event of a packet: the packet's timestamp_begin is its time. */
	ret = encode(s, s->ev_ts);
	if (ret) {
		memset(s->pkt, 0, s->packet_size);
		s->pos = PACKET_START_BITS;
		s->discarded++;
		return -EMSGSIZE;
	}
	s->ts_begin = s->ev_ts;
placed:
	s->ts_end = s->ev_ts;
	s->last_ts = s->ev_ts;
	s->nr_events++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Packets built elsewhere                                            */
/* ------------------------------------------------------------------ */

int trawl_ctf_stream_append_packet(struct trawl_ctf_stream *s, const void *pkt, size_t len)
{
	return packet_out(s, pkt, len);
}
