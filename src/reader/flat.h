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

#endif /* TRAWL_READER_FLAT_H */
