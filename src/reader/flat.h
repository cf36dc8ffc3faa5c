/* SPDX-License-Identifier: MIT */
/*
 * An event's fields as a flat list (layer 3, beside values.h), for the
 * fast field accessors (trawl_reader_event_int() and kin): the shown
 * top-level members of each body scope, in order, one slot each. Scalars
 * hold their value; compound members are stepped over (a caller wanting
 * them lists the event with values.c). No tree, no per-event allocation
 * once the arrays have grown: a few loads per member. Built on demand from
 * the packet's bytes (flat.c), valid until the event or packet changes.
 */
#ifndef TRAWL_READER_FLAT_H
#define TRAWL_READER_FLAT_H

#include <errno.h>

#include "trawl/reader.h"
#include "reader/stream.h"

struct rd_flat_val {
	uint64_t u;		/* integers, enums (sign-extended); float bits; string length */
	const char *str;	/* strings: in the packet (NUL-terminated there), or NULL */
	size_t scratch_off;	/* strings with str NULL: their copy in the scratch */
	uint8_t kind;		/* enum trawl_reader_field_kind */
	bool is_signed;
	uint8_t fsize;		/* floats: 32 or 64 bits */
};

/* A shown member of a body whose layout is fixed (its offset never changes). */
struct rd_flat_slot {
	uint32_t off;		/* bytes from the body's start */
	uint32_t len;		/* text arrays: bytes */
	uint8_t bytes;		/* integers, floats: 1, 2, 4 or 8 */
	uint8_t kind;		/* enum trawl_reader_field_kind */
	bool is_signed, big_endian;
	uint8_t sign_shift;	/* signed integers: 64 - bits (sign-extends), else 0 */
};

/*
 * An event class whose contexts and payload hold only byte-sized integers
 * without side effects, floats and fixed text arrays: its members sit at
 * the same offsets in every event (once the body starts at a multiple of
 * @align), so reading one is a bounds check and a load, and the body need
 * not be decoded at all. Made once per class (rd_dec_event.flat_layout).
 */
struct rd_flat_layout {
	uint64_t body_bits;
	uint32_t align;		/* bits */
	uint32_t first[3], count[3];
	bool shown[3];
	uint32_t nslots;
	struct rd_flat_slot slots[];
};

struct rd_flat {
	/* a fixed layout: values are read from @base on demand */
	const struct rd_flat_layout *lay;
	const uint8_t *base;	/* the body's first byte, in the packet */
	/* otherwise: every member decoded by the walker */
	struct rd_flat_val *vals;	/* owned */
	uint32_t n;
	size_t cap;
	char *scratch;		/* owned: NUL-terminated copies of text arrays without a NUL */
	size_t slen, scap;
	/* the scopes (common context, specific context, payload): their members */
	uint32_t first[3], count[3];
	bool shown[3];		/* the scope shows something (a structure, maybe empty) */
};

/*
 * Makes @f the current event's of @s, and leaves the stream's position
 * after the body as rd_stream_body() does: with a fixed layout, by its
 * size alone; otherwise the walker decodes the body from its start.
 */
int rd_flat_body(struct rd_flat *f, struct rd_stream *s, struct rd_err *err);
/*
 * Member @index of body scope @which (0..2) of @f, made by rd_flat_body()
 * for @s's current event: *@out points into @f or to @tmp. Returns 0,
 * -ENODATA (no such member) or an error of the walker (a text array
 * without a NUL moves @f to it, so that its copy has a stable home).
 */
int rd_flat_get(struct rd_flat *f, struct rd_stream *s, struct rd_err *err, unsigned which,
		int index, struct rd_flat_val *tmp, const struct rd_flat_val **out);
void rd_flat_fini(struct rd_flat *f);

/* A byte-sized integer or float at @p, as slot @sl says (bounds checked before). */
static inline uint64_t rd_flat_slot_load(const uint8_t *p, const struct rd_flat_slot *sl)
{
	uint64_t x;

	switch (sl->bytes) {
	case 1:
		x = p[0];
		break;
	case 2: {
		uint16_t y;

		memcpy(&y, p, 2);
		x = trawl_unlikely(sl->big_endian) ? __builtin_bswap16(y) : y;
		break;
	}
	case 4: {
		uint32_t y;

		memcpy(&y, p, 4);
		x = trawl_unlikely(sl->big_endian) ? __builtin_bswap32(y) : y;
		break;
	}
	default:
		memcpy(&x, p, 8);
		if (trawl_unlikely(sl->big_endian))
			x = __builtin_bswap64(x);
		break;
	}
	return (uint64_t)((int64_t)(x << sl->sign_shift) >> sl->sign_shift);
}

/*
 * The fast way to member @index of body scope @which: a fixed layout read
 * in place. Returns its slot, or NULL with *@ret -ENODATA (no such
 * member) or 0 (take rd_flat_get()).
 */
static inline const struct rd_flat_slot *rd_flat_slot_of(const struct rd_flat *f,
							 unsigned which, int index, int *ret)
{
	const struct rd_flat_layout *lay = f->lay;

	*ret = 0;
	if (!lay || which > 2)
		return NULL;
	if ((uint32_t)index >= lay->count[which]) {	/* negative ones too */
		*ret = -ENODATA;
		return NULL;
	}
	return &lay->slots[lay->first[which] + (uint32_t)index];
}

/* A string member's NUL-terminated bytes. */
static inline const char *rd_flat_str(const struct rd_flat *f, const struct rd_flat_val *v)
{
	return v->str ? v->str : f->scratch + v->scratch_off;
}

/* ---- selections: a class's members compiled once (trawl_reader_selection) -- */

/* How a member of a selection is read when its class has a fixed layout. */
enum rd_sel_code {
	RD_SEL_U8, RD_SEL_U16, RD_SEL_U32, RD_SEL_U64,	/* little-endian integers, */
	RD_SEL_S8, RD_SEL_S16, RD_SEL_S32,		/* read in place */
	RD_SEL_SLOT,	/* another integer (big-endian): rd_flat_slot_load() */
	RD_SEL_FLOAT,	/* a float, in place */
	RD_SEL_TEXT,	/* a text array in place, cut at its NUL (none: the walker) */
	RD_SEL_NONE,	/* no value: ret says why, the same for every event */
	RD_SEL_WALK,	/* the packet context, or no fixed layout: trawl_reader_event_read() */
};

struct rd_sel_op {
	uint32_t off;		/* bytes from the body's start (RD_SEL_U8..RD_SEL_TEXT) */
	uint8_t code;		/* enum rd_sel_code */
	int32_t ret;		/* the value's ret for every event: 0, -ENODATA, -ENOMSG, -EINVAL */
	int32_t kind;		/* with ret 0: the value's kind (enum trawl_reader_field_kind) */
	struct rd_flat_slot slot;	/* RD_SEL_SLOT, RD_SEL_FLOAT, RD_SEL_TEXT */
};

/*
 * The public struct trawl_reader_selection: what each member of a list is
 * for one event class, worked out once. Nothing of the reader is read
 * through it but @ec's name, in an error, so that it may be freed after
 * the reader.
 */
struct rd_flat_sel {
	const struct event_class *ec;	/* the class it was made for (not owned) */
	bool fixed;			/* the class's bodies have a fixed layout: */
	uint32_t align;			/* ... starting at a multiple of @align bits */
	uint64_t body_bits;		/* ... and this long */
	size_t n;
	struct trawl_reader_member *members;	/* as the caller listed them (in this block) */
	struct rd_sel_op ops[];
};

/*
 * Member @index of scope @scope (enum trawl_reader_scope) of every event of
 * @ec, as trawl_reader_event_class_field_index() counts them, or NULL.
 */
const struct fc *rd_scope_member(const struct event_class *ec, unsigned int scope, int index);
/* What the public API calls @fc's kind (enum trawl_reader_field_kind). */
int rd_fc_kind(const struct fc *fc);
/*
 * Compiles @members[0..@n) of @ec into *@out (freed with free()). Returns
 * 0, -EINVAL (@n too large) or -ENOMEM.
 */
int rd_flat_sel_make(const struct event_class *ec, const struct trawl_reader_member *members,
		     size_t n, struct rd_flat_sel **out);
/* The first NUL of a text array of @len bytes at @p, or NULL. */
static inline const uint8_t *rd_flat_text_nul(const uint8_t *p, uint32_t len)
{
	uint32_t k;

	/* eight bytes at a time (SWAR): procname and comm arrays are 16 */
	for (k = 0; k + 8 <= len; k += 8) {
		uint64_t x, z;

		memcpy(&x, p + k, 8);
		z = (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;
		if (z)
			return p + k + (__builtin_ctzll(z) >> 3);
	}
	return memchr(p + k, 0, len - k);
}

/*
 * Reads the members of @sel from @k on out of the fixed-layout body at
 * @base (checked to fit the packet) into @values, up to one that needs the
 * walker (RD_SEL_WALK, or a text array without a NUL): returns its index,
 * or @sel->n when all were read. Inline: it is most of what a read costs.
 */
static inline size_t rd_flat_sel_read(const struct rd_flat_sel *sel, size_t k,
				       const uint8_t *base, struct trawl_reader_value *values)
{
	/* pointers, not sel->n: the stores to @values may alias it for the compiler */
	const struct rd_sel_op *op = sel->ops + k, *end = sel->ops + sel->n;
	struct trawl_reader_value *v = values + k;

	for (; op < end; op++, v++) {
		const uint8_t *p = base + op->off, *nul;

		v->ret = op->ret;
		v->kind = op->kind;
		switch ((enum rd_sel_code)op->code) {
		case RD_SEL_U8:
			v->i = p[0];
			break;
		case RD_SEL_U16: {
			uint16_t x;

			memcpy(&x, p, sizeof(x));
			v->i = x;
			break;
		}
		case RD_SEL_U32: {
			uint32_t x;

			memcpy(&x, p, sizeof(x));
			v->i = x;
			break;
		}
		case RD_SEL_U64: {
			uint64_t x;

			memcpy(&x, p, sizeof(x));
			v->i = (int64_t)x;
			break;
		}
		case RD_SEL_S8:
			v->i = (int8_t)p[0];
			break;
		case RD_SEL_S16: {
			int16_t x;

			memcpy(&x, p, sizeof(x));
			v->i = x;
			break;
		}
		case RD_SEL_S32: {
			int32_t x;

			memcpy(&x, p, sizeof(x));
			v->i = x;
			break;
		}
		case RD_SEL_SLOT:
			v->i = (int64_t)rd_flat_slot_load(p, &op->slot);
			break;
		case RD_SEL_FLOAT: {
			uint64_t u = rd_flat_slot_load(p, &op->slot);

			if (op->slot.bytes == 4) {
				uint32_t w = (uint32_t)u;
				float x;

				memcpy(&x, &w, sizeof(x));
				v->d = (double)x;
			} else {
				memcpy(&v->d, &u, sizeof(v->d));
			}
			break;
		}
		case RD_SEL_TEXT:
			nul = rd_flat_text_nul(p, op->slot.len);
			if (trawl_unlikely(!nul))
				return (size_t)(op - sel->ops);	/* its copy: the walker's */
			v->str = (const char *)p;
			v->i = nul - p;
			break;
		case RD_SEL_NONE:
			break;
		case RD_SEL_WALK:
			return (size_t)(op - sel->ops);
		default:
			__builtin_unreachable();
		}
	}
	return sel->n;
}

#endif /* TRAWL_READER_FLAT_H */
