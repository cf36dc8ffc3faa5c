/* SPDX-License-Identifier: MIT */
/*
 * The packet and event decoder. See stream.h for the shape.
 *
 * Integers: a byte-aligned 8/16/32/64-bit integer is one unaligned load
 * (plus a byte swap when the field's byte order is not the host's); any
 * other integer reads at most 9 bytes into a 128-bit accumulator and
 * shifts. CTF bit order follows the byte order: little-endian fields fill
 * from the least significant bit of each byte, big-endian ones from the
 * most significant.
 *
 * Every read is checked against the packet's content size first, so a
 * corrupt length or size can only produce an error, never a read outside
 * the mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/stream.h"
#include "reader/trace.h"

#define CTF_MAGIC 0xC1FC1FC1u
/* More elements than this in an array of zero-sized elements is corrupt. */
#define MAX_EMPTY_ELEMS (1u << 20)

struct dctx {
	struct rd_stream *s;
	struct rd_err *err;
	const uint8_t *pkt;
	uint64_t end;		/* content end, bits */
	int depth;
};

static int derr(struct dctx *d, const char *what)
{
	struct rd_stream *s = d->s;

	rd_err_set(d->err, "%s: offset %" PRIu64 ": %s", s->path,
		   s->pkt_off + s->pos / 8, what);
	return -EINVAL;
}

static inline uint64_t align_up(uint64_t pos, uint32_t align)
{
	return (pos + align - 1) & ~((uint64_t)align - 1);
}

static inline uint64_t read_bits(const uint8_t *p, uint64_t pos, uint32_t size,
				 bool be)
{
	const uint8_t *b = p + (pos >> 3);
	unsigned shift = pos & 7;
	unsigned nbytes = (shift + size + 7) >> 3;
	unsigned __int128 acc = 0;
	unsigned i;
	uint64_t mask = size == 64 ? ~0ULL : (1ULL << size) - 1;

	if (!shift && !(size & 7)) {
		uint64_t v = 0;

		switch (size) {
		case 8:
			return b[0];
		case 16: {
			uint16_t x;

			memcpy(&x, b, 2);
			return be ? __builtin_bswap16(x) : x;
		}
		case 32: {
			uint32_t x;

			memcpy(&x, b, 4);
			return be ? __builtin_bswap32(x) : x;
		}
		case 64:
			memcpy(&v, b, 8);
			return be ? __builtin_bswap64(v) : v;
		default:
			break;
		}
	}
	if (be) {
		for (i = 0; i < nbytes; i++)
			acc = acc << 8 | b[i];
		return (uint64_t)(acc >> (nbytes * 8 - shift - size)) & mask;
	}
	for (i = nbytes; i-- > 0;)
		acc = acc << 8 | b[i];
	return (uint64_t)(acc >> shift) & mask;
}

/* ---- text helpers ---------------------------------------------------- */

void rd_text_reserve_slow(struct rd_text *t, size_t n)
{
	size_t cap = t->cap ? t->cap : 4096;
	char *b;

	if (t->oom)
		return;
	while (cap - t->len < n)
		cap *= 2;
	b = realloc(t->buf, cap);
	if (!b) {
		t->oom = true;
		return;
	}
	t->buf = b;
	t->cap = cap;
}

void rd_text_str(struct rd_text *t, const char *s)
{
	rd_text_put(t, s, strlen(s));
}

static const char digits2[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

void rd_text_u64(struct rd_text *t, uint64_t v)
{
	char tmp[24];
	char *e = tmp + sizeof(tmp), *p = e;

	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		p -= 2;
		memcpy(p, digits2 + r * 2, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, digits2 + v * 2, 2);
	} else {
		*--p = (char)('0' + v);
	}
	rd_text_put(t, p, (size_t)(e - p));
}

void rd_text_i64(struct rd_text *t, int64_t v)
{
	if (v < 0) {
		rd_text_lit(t, "-");
		rd_text_u64(t, 0 - (uint64_t)v);
	} else {
		rd_text_u64(t, (uint64_t)v);
	}
}

void rd_text_u64_pad(struct rd_text *t, uint64_t v, int width)
{
	char tmp[24];
	int i = (int)sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while ((int)sizeof(tmp) - i < width && i > 0)
		tmp[--i] = '0';
	rd_text_put(t, tmp + i, sizeof(tmp) - (size_t)i);
}

/* babeltrace2's string escaping (print_escape_string), byte for byte. */
void rd_text_escaped(struct rd_text *t, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, run = 0;

	rd_text_reserve(t, n + 2);
	rd_text_lit(t, "\"");
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		const char *esc = NULL;
		char xb[4];

		if (c >= 0x20 && c != 0x7f && c != '\\' && c != '\'' &&
		    c != '"' && c != '?') {
			run++;
			continue;
		}
		if (run) {
			rd_text_put(t, s + i - run, run);
			run = 0;
		}
		switch (c) {
		case '\\': esc = "\\\\"; break;
		case '\'': esc = "\\'"; break;
		case '"': esc = "\\\""; break;
		case '?': esc = "\\?"; break;
		case '\a': esc = "\\a"; break;
		case '\b': esc = "\\b"; break;
		case 27: esc = "\\e"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\v': esc = "\\v"; break;
		default:
			break;
		}
		if (esc) {
			rd_text_str(t, esc);
		} else {
			xb[0] = '\\';
			xb[1] = 'x';
			xb[2] = hex[c >> 4];
			xb[3] = hex[c & 15];
			rd_text_put(t, xb, 4);
		}
	}
	if (run)
		rd_text_put(t, s + n - run, run);
	rd_text_lit(t, "\"");
}

/* ---- integer printing ------------------------------------------------ */

static void print_int(struct rd_text *t, const struct fc *fc, uint64_t v)
{
	static const char hexu[] = "0123456789ABCDEF";
	char tmp[80];
	int i = (int)sizeof(tmp);
	uint32_t len = fc->size;

	switch (fc->base) {
	case 16:
		if (len < 64) {
			uint32_t r = (len + 3) & ~3u;

			if (r < 64)
				v &= (1ULL << r) - 1;
		}
		do {
			tmp[--i] = hexu[v & 15];
			v >>= 4;
		} while (v);
		rd_text_lit(t, "0x");
		rd_text_put(t, tmp + i, sizeof(tmp) - (size_t)i);
		return;
	case 8:
		if (fc->is_signed && len < 64) {
			uint32_t r = ((len - 1) / 3 + 1) * 3;

			if (r < 64)
				v &= (1ULL << r) - 1;
		}
		do {
			tmp[--i] = (char)('0' + (v & 7));
			v >>= 3;
		} while (v);
		tmp[--i] = '0';
		rd_text_put(t, tmp + i, sizeof(tmp) - (size_t)i);
		return;
	case 2: {
		uint32_t b;

		rd_text_lit(t, "0b");
		rd_text_reserve(t, len);
		for (b = len; b-- > 0;) {
			char c = (v >> b) & 1 ? '1' : '0';

			rd_text_put(t, &c, 1);
		}
		return;
	}
	default:
		if (fc->is_signed)
			rd_text_i64(t, (int64_t)v);
		else
			rd_text_u64(t, v);
	}
}

static void print_enum(struct rd_text *t, const struct fc *fc, uint64_t v)
{
	uint32_t l, r, n = 0;

	rd_text_lit(t, "( ");
	for (l = 0; l < fc->nlabels; l++) {
		for (r = 0; r < fc->nranges; r++) {
			const struct enum_range *rg = &fc->ranges[r];
			bool in;

			if (rg->label != l)
				continue;
			in = fc->is_signed ?
				(int64_t)v >= rg->lo && (int64_t)v <= rg->hi :
				v >= (uint64_t)rg->lo && v <= (uint64_t)rg->hi;
			if (in)
				break;
		}
		if (r == fc->nranges)
			continue;
		if (n++)
			rd_text_lit(t, ", ");
		rd_text_escaped(t, fc->labels[l], strlen(fc->labels[l]));
	}
	if (!n)
		rd_text_lit(t, "<unknown>");
	rd_text_lit(t, " : container = ");
	print_int(t, fc, v);
	rd_text_lit(t, " )");
}

static void print_float(struct rd_text *t, double d)
{
	char tmp[64];
	int n = snprintf(tmp, sizeof(tmp), "%g", d);

	if (n > 0)
		rd_text_put(t, tmp, (size_t)n);
}

/* ---- the field decoder ----------------------------------------------- */

static int decode_fc(struct dctx *d, const struct fc *fc, struct rd_text *t);

static int need(struct dctx *d, uint64_t bits)
{
	struct rd_stream *s = d->s;

	if (s->pos > d->end || bits > d->end - s->pos)
		return derr(d, "field extends past the end of the packet content");
	return 0;
}

static int do_align(struct dctx *d, uint32_t align)
{
	struct rd_stream *s = d->s;
	uint64_t p = align_up(s->pos, align);

	if (p > d->end)
		return derr(d, "alignment padding extends past the end of the packet content");
	s->pos = p;
	return 0;
}

static void clock_update(struct rd_stream *s, const struct fc *fc, uint64_t v)
{
	if (fc->size >= 64) {
		s->clock = v;
	} else {
		uint64_t mask = (1ULL << fc->size) - 1;
		uint64_t low = s->clock & mask;
		uint64_t nv = (s->clock & ~mask) | v;

		if (v < low)
			nv += mask + 1;
		s->clock = nv;
	}
}

static void int_side_effects(struct rd_stream *s, const struct fc *fc,
			     uint64_t v)
{
	if (fc->slot >= 0)
		s->slots[fc->slot] = v;
	if (fc->map)
		clock_update(s, fc, v);
	switch (fc->meaning) {
	case M_NONE:
		break;
	case M_EVENT_ID:
		s->cur_event_id = v;
		break;
	case M_TS_BEGIN:
		s->has_ts_begin = true;
		s->ts_begin = v;
		break;
	case M_TS_END:
		s->has_ts_end = true;
		s->ts_end = v;
		break;
	case M_CONTENT_SIZE:
		s->content_bits = v;
		break;
	case M_PACKET_SIZE:
		s->pkt_bits = v;
		break;
	case M_DISCARDED:
		s->has_disc = true;
		s->disc = v;
		break;
	case M_SEQ_NUM:
		s->has_seq = true;
		s->seq = v;
		break;
	default:
		break;
	}
}

static int decode_int(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	struct rd_stream *s = d->s;
	uint64_t v;

	if (fc->align > 1 && do_align(d, fc->align))
		return -EINVAL;
	if (need(d, fc->size))
		return -EINVAL;
	v = read_bits(d->pkt, s->pos, fc->size, fc->big_endian);
	s->pos += fc->size;
	if (fc->is_signed && fc->size < 64 && (v >> (fc->size - 1)) & 1)
		v |= ~0ULL << fc->size;
	if (fc->slot >= 0 || fc->map || fc->meaning)
		int_side_effects(s, fc, v);
	if (t && fc->shown) {
		if (fc->is_enum)
			print_enum(t, fc, v);
		else
			print_int(t, fc, v);
	}
	return 0;
}

static int decode_float(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	struct rd_stream *s = d->s;
	uint64_t v;

	if (do_align(d, fc->align) || need(d, fc->size))
		return -EINVAL;
	v = read_bits(d->pkt, s->pos, fc->size, fc->big_endian);
	s->pos += fc->size;
	if (t && fc->shown) {
		if (fc->size == 32) {
			float f;
			uint32_t u = (uint32_t)v;

			memcpy(&f, &u, 4);
			print_float(t, (double)f);
		} else {
			double x;

			memcpy(&x, &v, 8);
			print_float(t, x);
		}
	}
	return 0;
}

static int decode_string(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	struct rd_stream *s = d->s;
	const uint8_t *start, *nul;
	uint64_t avail;

	if (do_align(d, 8))
		return -EINVAL;
	start = d->pkt + s->pos / 8;
	avail = (d->end - s->pos) / 8;
	nul = memchr(start, 0, avail);
	if (!nul)
		return derr(d, "string is not terminated before the end of the packet content");
	if (t && fc->shown)
		rd_text_escaped(t, (const char *)start, (size_t)(nul - start));
	s->pos += (uint64_t)(nul - start + 1) * 8;
	return 0;
}

static int decode_struct(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	uint32_t i, printed = 0;
	bool show = t && fc->shown;

	if (fc->align > 1 && do_align(d, fc->align))
		return -EINVAL;
	if (show)
		rd_text_lit(t, "{");
	for (i = 0; i < fc->nmembers; i++) {
		const struct member *m = &fc->members[i];

		if (show && m->fc->shown) {
			if (printed++)
				rd_text_lit(t, ", ");
			else
				rd_text_lit(t, " ");
			if (t->names) {
				/* a leading underscore is not shown */
				rd_text_str(t, m->name + (m->name[0] == '_'));
				rd_text_lit(t, " = ");
			}
		}
		if (decode_fc(d, m->fc, show ? t : NULL))
			return -EINVAL;
	}
	if (show)
		rd_text_lit(t, " }");
	return 0;
}

static int decode_variant(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	uint64_t tag = d->s->slots[fc->ref->slot];
	const struct fc *tagfc = fc->ref;
	uint32_t i;
	bool show = t && fc->shown;

	for (i = 0; i < fc->nchoices; i++) {
		const struct var_choice *c = &fc->choices[i];
		bool in = tagfc->is_signed ?
			(int64_t)tag >= c->lo && (int64_t)tag <= c->hi :
			tag >= (uint64_t)c->lo && tag <= (uint64_t)c->hi;

		if (in)
			break;
	}
	if (i == fc->nchoices) {
		char msg[128];

		snprintf(msg, sizeof(msg),
			 "variant tag value %" PRId64 " selects no option",
			 (int64_t)tag);
		return derr(d, msg);
	}
	if (show)
		rd_text_lit(t, "{ ");
	if (decode_fc(d, fc->members[fc->choices[i].option].fc, show ? t : NULL))
		return -EINVAL;
	if (show)
		rd_text_lit(t, " }");
	return 0;
}

static bool fc_is_empty(const struct fc *fc)
{
	uint32_t i;

	if (fc->kind == FC_STRUCT) {
		for (i = 0; i < fc->nmembers; i++)
			if (!fc_is_empty(fc->members[i].fc))
				return false;
		return true;
	}
	if (fc->kind == FC_ARRAY)
		return fc->length == 0 || fc_is_empty(fc->elem);
	return false;
}

static int decode_text_array(struct dctx *d, uint64_t n, struct rd_text *t,
			     bool show)
{
	struct rd_stream *s = d->s;
	const uint8_t *start;
	const void *nul;

	if (do_align(d, 8))
		return -EINVAL;
	if (n > (d->end - s->pos) / 8)
		return derr(d, "text array extends past the end of the packet content");
	start = d->pkt + s->pos / 8;
	if (show) {
		nul = memchr(start, 0, n);
		rd_text_escaped(t, (const char *)start,
				nul ? (size_t)((const uint8_t *)nul - start) : n);
	}
	s->pos += n * 8;
	return 0;
}

static int decode_array(struct dctx *d, const struct fc *fc, uint64_t n,
			struct rd_text *t)
{
	struct rd_stream *s = d->s;
	bool show = t && fc->shown;
	uint64_t i;

	if (fc->is_text)
		return decode_text_array(d, n, t, show);
	if (fc->align > 1 && do_align(d, fc->align))
		return -EINVAL;
	if (n > d->end - s->pos && (n > MAX_EMPTY_ELEMS || !fc_is_empty(fc->elem)))
		return derr(d, "array or sequence length exceeds the packet content");
	if (show)
		rd_text_lit(t, "[");
	for (i = 0; i < n; i++) {
		if (show) {
			if (i)
				rd_text_lit(t, ", ");
			else
				rd_text_lit(t, " ");
			if (t->names) {
				rd_text_lit(t, "[");
				rd_text_u64(t, i);
				rd_text_lit(t, "] = ");
			}
		}
		if (decode_fc(d, fc->elem, show ? t : NULL))
			return -EINVAL;
	}
	if (show)
		rd_text_lit(t, " ]");
	return 0;
}

static int decode_fc(struct dctx *d, const struct fc *fc, struct rd_text *t)
{
	int ret;

	switch (fc->kind) {
	case FC_INT:
		return decode_int(d, fc, t);
	case FC_STRING:
		return decode_string(d, fc, t);
	case FC_FLOAT:
		return decode_float(d, fc, t);
	default:
		break;
	}
	if (++d->depth > 200) {
		d->depth--;
		return derr(d, "fields nested too deeply");
	}
	switch (fc->kind) {
	case FC_STRUCT:
		ret = decode_struct(d, fc, t);
		break;
	case FC_VARIANT:
		ret = decode_variant(d, fc, t);
		break;
	case FC_ARRAY:
		ret = decode_array(d, fc, fc->length, t);
		break;
	case FC_SEQ:
		ret = decode_array(d, fc, d->s->slots[fc->ref->slot], t);
		break;
	default:
		ret = derr(d, "unknown field class");
	}
	d->depth--;
	return ret;
}

/* ---- packets --------------------------------------------------------- */

static int rd_stream_cycles_to_ns_int(const struct rd_stream *s,
				      uint64_t cycles, int64_t *ns)
{
	bool ovf;

	*ns = clock_ns_from_origin(s->sc->clock, cycles, &ovf);
	return ovf ? -ERANGE : 0;
}

static uint64_t header_member_u64(struct rd_stream *s, const char *name,
				  bool *found)
{
	(void)s;
	(void)name;
	*found = false;
	return 0;
}

/* Decodes the packet header and context at s->next_pkt_off. */
static int packet_begin(struct rd_stream *s, const struct rd_stream_cb *cb,
			struct rd_err *err)
{
	struct trace_class *tc = s->trace->tc;
	struct stream_class *sc;
	struct dctx d = { .s = s, .err = err };
	uint64_t remaining_bits;
	bool found;

	(void)header_member_u64;
	(void)found;
	s->pkt_off = s->next_pkt_off;
	s->pkt = s->base + s->pkt_off;
	remaining_bits = (s->size - s->pkt_off) * 8;
	s->pos = 0;
	s->pkt_bits = UINT64_MAX;
	s->content_bits = UINT64_MAX;
	s->has_ts_begin = s->has_ts_end = s->has_disc = s->has_seq = false;
	s->cur_event_id = UINT64_MAX;
	d.pkt = s->pkt;
	d.end = remaining_bits;
	if (tc->packet_header) {
		struct fc *magic = fc_struct_member(tc->packet_header, "magic");
		struct fc *sid = fc_struct_member(tc->packet_header, "stream_id");
		struct fc *iid = fc_struct_member(tc->packet_header, "stream_instance_id");

		if (decode_fc(&d, tc->packet_header, NULL))
			return -EINVAL;
		/* the header's meaningful fields are read back through slots */
		(void)magic;
		(void)sid;
		(void)iid;
	}
	sc = s->sc;
	if (!sc)
		return derr(&d, "no stream class for this stream");
	s->pc_text.len = 0;
	if (sc->packet_context) {
		if (decode_fc(&d, sc->packet_context,
			      sc->packet_context->shown ? &s->pc_text : NULL))
			return -EINVAL;
	}
	if (s->pkt_bits == UINT64_MAX)
		s->pkt_bits = remaining_bits;
	if (s->content_bits == UINT64_MAX)
		s->content_bits = s->pkt_bits;
	if (s->pkt_bits > remaining_bits) {
		rd_err_set(err, "%s: offset %" PRIu64 ": packet size (%" PRIu64
			   " bits) exceeds the file size", s->path, s->pkt_off,
			   s->pkt_bits);
		return -EINVAL;
	}
	if (s->content_bits > s->pkt_bits || s->pos > s->content_bits) {
		rd_err_set(err, "%s: offset %" PRIu64 ": invalid packet content size (%" PRIu64
			   " bits, packet %" PRIu64 " bits, header %" PRIu64 " bits)",
			   s->path, s->pkt_off, s->content_bits, s->pkt_bits, s->pos);
		return -EINVAL;
	}
	if (s->pkt_bits % 8 || (s->pkt_bits == 0)) {
		rd_err_set(err, "%s: offset %" PRIu64 ": packet size %" PRIu64
			   " bits is not a positive multiple of 8", s->path,
			   s->pkt_off, s->pkt_bits);
		return -EINVAL;
	}
	s->next_pkt_off = s->pkt_off + s->pkt_bits / 8;
	if (s->has_ts_begin)
		s->clock = s->ts_begin;
	if (cb && cb->discarded && s->prev_valid) {
		if (s->has_disc && s->disc > s->prev_disc)
			cb->discarded(cb->arg, s, false, s->disc - s->prev_disc,
				      s->has_ts_end, s->prev_ts_end, s->ts_end);
		if (s->has_seq && s->seq > s->prev_seq + 1)
			cb->discarded(cb->arg, s, true, s->seq - s->prev_seq - 1,
				      s->has_ts_begin, s->prev_ts_end, s->ts_begin);
	} else if (cb && cb->discarded && s->has_disc && s->disc) {
		cb->discarded(cb->arg, s, false, s->disc, false, 0, 0);
	}
	s->prev_valid = true;
	if (s->has_disc)
		s->prev_disc = s->disc;
	if (s->has_seq)
		s->prev_seq = s->seq;
	if (s->has_ts_end)
		s->prev_ts_end = s->ts_end;
	s->in_packet = true;
	s->pkt_count++;
	return 0;
}

int rd_stream_next(struct rd_stream *s, const struct rd_stream_cb *cb,
		   struct rd_err *err)
{
	struct stream_class *sc = s->sc;
	struct dctx d = { .s = s, .err = err };
	uint64_t id;

	for (;;) {
		if (s->in_packet && s->pos < s->content_bits)
			break;
		s->in_packet = false;
		if (s->next_pkt_off >= s->size)
			return 0;
		if (packet_begin(s, cb, err))
			return -EINVAL;
	}
	d.pkt = s->pkt;
	d.end = s->content_bits;
	s->ev_pos = s->pos;
	s->cur_event_id = UINT64_MAX;
	if (sc->event_header && decode_fc(&d, sc->event_header, NULL))
		return -EINVAL;
	id = s->cur_event_id == UINT64_MAX ? 0 : s->cur_event_id;
	s->ec = stream_class_event(sc, id);
	if (!s->ec) {
		char msg[96];

		snprintf(msg, sizeof(msg), "unknown event class id %" PRIu64, id);
		s->pos = s->ev_pos;
		return derr(&d, msg);
	}
	s->ev_cycles = s->clock;
	if (sc->clock) {
		bool ovf;

		s->ev_ns = clock_ns_from_origin(sc->clock, s->clock, &ovf);
		if (ovf) {
			s->pos = s->ev_pos;
			return derr(&d, "timestamp out of range");
		}
	} else {
		s->ev_ns = 0;
	}
	s->events++;
	s->body_pending = true;
	return 1;
}

int rd_stream_body(struct rd_stream *s, struct rd_text *t,
		   const struct rd_body_fmt *fmt, struct rd_err *err)
{
	static const char *const scope_names[3] = {
		"stream.event.context = ", "event.context = ", "event.fields = ",
	};
	struct stream_class *sc = s->sc;
	struct event_class *ec = s->ec;
	struct dctx d = { .s = s, .err = err, .pkt = s->pkt, .end = s->content_bits };
	const struct fc *scopes[3] = { sc->event_context, ec->context, ec->payload };
	bool sep = fmt && fmt->sep_first;
	int i;

	s->body_pending = false;
	for (i = 0; i < 3; i++) {
		const struct fc *fc = scopes[i];

		if (!fc)
			continue;
		if (t && fc->shown) {
			if (sep)
				rd_text_lit(t, ", ");
			sep = true;
			if (fmt && fmt->scope_names)
				rd_text_str(t, scope_names[i]);
			t->names = fmt ? (i < 2 ? fmt->ctx_names : fmt->payload_names) :
					 true;
			if (decode_fc(&d, fc, t))
				return -EINVAL;
		} else if (decode_fc(&d, fc, NULL)) {
			return -EINVAL;
		}
	}
	if (s->pos == s->ev_pos)
		return derr(&d, "event has zero size");
	return 0;
}

int rd_stream_seek_packet(struct rd_stream *s, uint64_t byte_off,
			  struct rd_err *err)
{
	if (byte_off > s->size) {
		rd_err_set(err, "%s: seek beyond the end of the file", s->path);
		return -EINVAL;
	}
	s->in_packet = false;
	s->next_pkt_off = byte_off;
	s->prev_valid = false;
	return 0;
}

int rd_stream_time_range(struct rd_stream *s, int64_t *begin, int64_t *end,
			 struct rd_err *err)
{
	bool have_b = false, have_e = false;
	uint64_t b = 0, e = 0;
	int ret = 0;

	s->next_pkt_off = 0;
	s->in_packet = false;
	while (s->next_pkt_off < s->size) {
		ret = packet_begin(s, NULL, err);
		if (ret)
			break;
		if (!have_b && s->has_ts_begin) {
			b = s->ts_begin;
			have_b = true;
		}
		if (s->has_ts_end) {
			e = s->ts_end;
			have_e = true;
		}
	}
	s->next_pkt_off = 0;
	s->in_packet = false;
	s->prev_valid = false;
	s->clock = 0;
	s->pkt_count = 0;
	if (ret)
		return ret;
	if (!have_b || !have_e || !s->sc->clock) {
		rd_err_set(err, "%s: packets have no beginning and end times", s->path);
		return -EINVAL;
	}
	if (rd_stream_cycles_to_ns_int(s, b, begin) ||
	    rd_stream_cycles_to_ns_int(s, e, end)) {
		rd_err_set(err, "%s: packet time out of range", s->path);
		return -ERANGE;
	}
	return 0;
}

/* ---- opening --------------------------------------------------------- */

static int identify_stream(struct rd_stream *s, struct rd_err *err)
{
	struct trace_class *tc = s->trace->tc;
	struct fc *ph = tc->packet_header;
	struct dctx d = { .s = s, .err = err, .pkt = s->base, .end = s->size * 8 };
	struct fc *sid, *iid, *magic;
	uint64_t id = 0;

	s->pos = 0;
	s->pkt_off = 0;
	if (!ph) {
		if (tc->nstreams != 1) {
			rd_err_set(err, "%s: no packet header to tell which of %u stream classes this stream belongs to",
				   s->path, tc->nstreams);
			return -EINVAL;
		}
		s->sc = tc->streams[0];
		return 0;
	}
	sid = fc_struct_member(ph, "stream_id");
	iid = fc_struct_member(ph, "stream_instance_id");
	magic = fc_struct_member(ph, "magic");
	/* temporarily give the interesting fields slots to read them back */
	if (sid && sid->kind == FC_INT && sid->slot < 0)
		sid->slot = (int32_t)tc->nslots;
	if (iid && iid->kind == FC_INT && iid->slot < 0)
		iid->slot = (int32_t)tc->nslots + 1;
	if (magic && magic->kind == FC_INT && magic->slot < 0)
		magic->slot = (int32_t)tc->nslots + 2;
	if (decode_fc(&d, ph, NULL))
		return -EINVAL;
	if (magic && magic->kind == FC_INT &&
	    s->slots[magic->slot] != CTF_MAGIC) {
		s->pos = 0;
		return derr(&d, "bad packet magic number");
	}
	if (sid && sid->kind == FC_INT)
		id = s->slots[sid->slot];
	if (iid && iid->kind == FC_INT) {
		s->has_instance_id = true;
		s->id = s->slots[iid->slot];
	}
	s->sc = NULL;
	{
		uint32_t i;

		for (i = 0; i < tc->nstreams; i++)
			if (tc->streams[i]->id == id)
				s->sc = tc->streams[i];
	}
	if (!s->sc) {
		char msg[96];

		snprintf(msg, sizeof(msg), "unknown stream class id %" PRIu64, id);
		s->pos = 0;
		return derr(&d, msg);
	}
	return 0;
}

int rd_stream_open(struct rd_stream *s, struct rd_trace *trace,
		   const char *path, uint64_t file_index, struct rd_err *err)
{
	struct stat st;
	int fd, ret;

	memset(s, 0, sizeof(*s));
	s->trace = trace;
	s->id = file_index;
	s->pc_text.names = true;
	s->path = strdup(path);
	/* three extra slots: stream_id, stream_instance_id, magic */
	s->slots = calloc(trace->tc->nslots + 3, sizeof(uint64_t));
	if (!s->path || !s->slots)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		rd_err_set(err, "%s: cannot open: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		close(fd);
		rd_err_set(err, "%s: cannot stat: %s", path, strerror(-ret));
		return ret;
	}
	s->size = (uint64_t)st.st_size;
	if (s->size) {
		void *m = mmap(NULL, s->size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m == MAP_FAILED) {
			ret = -errno;
			close(fd);
			rd_err_set(err, "%s: cannot map: %s", path, strerror(-ret));
			return ret;
		}
		madvise(m, s->size, MADV_SEQUENTIAL);
		s->base = m;
	}
	close(fd);
	if (s->size)
		return identify_stream(s, err);
	return 0;
}

void rd_stream_close(struct rd_stream *s)
{
	if (s->base)
		munmap((void *)s->base, s->size);
	free(s->path);
	free(s->slots);
	free(s->pc_text.buf);
	memset(s, 0, sizeof(*s));
}
