/* SPDX-License-Identifier: MIT */
/*
 * The text line's body without the interpreter.
 *
 * Most event bodies, printed, are a row of decimal integers and short
 * strings between constant texts: "{ a = ", digits, ", s = ", a quoted
 * string, " }". For such a plan (rd_plan_text_init() says which), one
 * reservation covers everything but the strings' bytes, and the ops write
 * through one pointer and read through one position kept in registers:
 * the interpreter stores the stream's position and the text's length to
 * memory at every op, and reloads them after every byte it writes (a char
 * store may alias them).
 *
 * Anything out of the ordinary (alignment or bounds failing, a string
 * without its NUL, out of memory) starts the event over in the
 * interpreter from the same position and text length: it writes the same
 * text and says the same error, so this runner needs no error path of its
 * own.
 */
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "reader/plan_int.h"

/*
 * The most an op writes (prefixes are copied 16 bytes at least, digits 8
 * bytes at a time, see rd_copy_padded() and rd_put_u64()), a string's
 * bytes aside. 0: not an op of this runner.
 */
static size_t op_text_max(const struct plan_op *op)
{
	const uint16_t int_ok = PF_PRINT | PF_SIGNED | PF_ALIGNED | PF_NOCHECK | PF_LAST;
	const uint16_t str_ok = PF_PRINT | PF_ALIGNED | PF_LAST;

	switch (op->code) {
	case OP_PU8: case OP_PU16: case OP_PU32: case OP_PU64:
	case OP_PS8: case OP_PS16: case OP_PS32: case OP_PS64:
		if (op->flags & ~int_ok)
			return 0;
		return (size_t)op->plen + 16 + 1 + 24;	/* prefix, sign, digits */
	case OP_STRING:
		if ((op->flags & ~str_ok) || !(op->flags & PF_PRINT))
			return 0;
		return (size_t)op->plen + 16 + 2 + 16;	/* prefix, quotes, a short string */
	case OP_TEXT:
	case OP_TEXT_END:
		return (size_t)op->plen + 16;
	case OP_END:
		return 1;
	default:
		return 0;
	}
}

void rd_plan_text_init(struct plan *pl)
{
	size_t rest = 0;
	uint32_t i;

	pl->text_simple = false;
	if (!pl->nops || pl->ops[pl->nops - 1].code != OP_END)
		return;
	for (i = pl->nops; i-- > 0;) {
		const struct plan_op *op = &pl->ops[i];
		size_t n = op_text_max(op);

		if (!n || (op->code == OP_END && i != pl->nops - 1) || rest > UINT32_MAX - n)
			return;
		rest += n;
	}
	/* a plan of this runner's: each string's arg is what the ops after it write */
	rest = 0;
	for (i = pl->nops; i-- > 0;) {
		struct plan_op *op = &pl->ops[i];

		if (op->code == OP_STRING)
			op->arg = (uint32_t)rest;
		rest += op_text_max(op);
	}
	pl->text_simple = true;
	pl->text_max = rest;
}

/* Each op jumps to the next op's code itself, as the interpreter does (plan_exec.h). */
#define NEXT() do { op++; goto *labels[op->code]; } while (0)

int rd_plan_exec_text(struct dctx *d, const struct plan *pl, struct rd_text *t)
{
	static const void *const labels[] = {
		[OP_INT] = &&l_other, [OP_INT8] = &&l_other, [OP_INT16] = &&l_other,
		[OP_INT32] = &&l_other, [OP_INT64] = &&l_other, [OP_FLOAT] = &&l_other,
		[OP_STRING] = &&l_string, [OP_TEXT] = &&l_text, [OP_ALIGN] = &&l_other,
		[OP_VARIANT] = &&l_other, [OP_JUMP] = &&l_other, [OP_LOOP] = &&l_other,
		[OP_LOOP_END] = &&l_other, [OP_TEXT_ARRAY] = &&l_other, [OP_TREE] = &&l_other,
		[OP_END] = &&l_end, [OP_TEXT_END] = &&l_text_end, [OP_SKIP] = &&l_other,
		[OP_PU8] = &&l_pu8, [OP_PU16] = &&l_pu16, [OP_PU32] = &&l_pu32,
		[OP_PU64] = &&l_pu64, [OP_PS8] = &&l_ps8, [OP_PS16] = &&l_ps16,
		[OP_PS32] = &&l_ps32, [OP_PS64] = &&l_ps64,
	};
	struct rd_stream *s = d->s;
	const struct plan_op *op = pl->ops;
	const uint8_t *pkt = d->pkt;
	uint64_t pos = s->pos, end = d->end, u;
	int64_t sv;
	size_t len0 = t->len;
	bool neg;
	char *p;

	if (!pl->text_simple || !rd_text_reserve(t, pl->text_max))
		return rd_plan_exec(d, pl, t);
	p = t->buf + t->len;
	goto *labels[op->code];

	/* the checks of the interpreter's integers (FAST_INT) */
#define PRINT_INT(label, type, sgn, stype)					\
label:										\
	{									\
		type x_;							\
										\
		if (!(op->flags & PF_ALIGNED)) {				\
			pos = (pos + op->align - 1) & ~((uint64_t)op->align - 1); \
			if (pos > end)						\
				goto slow;					\
		}								\
		if (!(op->flags & PF_NOCHECK) && (pos > end || op->run > end - pos)) \
			goto slow;						\
		memcpy(&x_, pkt + (pos >> 3), sizeof(x_));			\
		pos += 8 * sizeof(x_);						\
		sv = sgn ? (int64_t)(stype)x_ : 0;				\
		neg = sv < 0;							\
		u = neg ? 0 - (uint64_t)sv : (uint64_t)x_;			\
	}									\
	goto put_int;
	PRINT_INT(l_pu8, uint8_t, 0, uint8_t)
	PRINT_INT(l_pu16, uint16_t, 0, uint16_t)
	PRINT_INT(l_pu32, uint32_t, 0, uint32_t)
	PRINT_INT(l_pu64, uint64_t, 0, uint64_t)
	PRINT_INT(l_ps8, uint8_t, 1, int8_t)
	PRINT_INT(l_ps16, uint16_t, 1, int16_t)
	PRINT_INT(l_ps32, uint32_t, 1, int32_t)
	PRINT_INT(l_ps64, uint64_t, 1, int64_t)
#undef PRINT_INT
put_int:
	rd_copy_padded(p, op->prefix, op->plen);
	p += op->plen;
	*p = '-';
	p += neg;
	p += rd_put_u64(p, u);
	NEXT();
l_string: {
	const uint8_t *start, *nul;
	size_t n;

	if (!(op->flags & PF_ALIGNED))
		pos = (pos + 7) & ~(uint64_t)7;
	if (pos > end)
		goto slow;
	start = pkt + (pos >> 3);
#ifdef __SSE2__
	/*
	 * A string of up to 15 bytes with 16 bytes of content from its start:
	 * its NUL and whether it needs escapes from one 16-byte load, and the
	 * 16 bytes stored whole (the closing quote goes over what follows).
	 */
	if (trawl_likely(end - pos >= 128)) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)start);
		unsigned z = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128()));

		if (trawl_likely(z)) {
			n = (size_t)__builtin_ctz(z);
			if (!(rd_escape_mask16(v) & ((1u << n) - 1))) {
				pos += (uint64_t)(n + 1) * 8;
				rd_copy_padded(p, op->prefix, op->plen);
				p += op->plen;
				p[0] = '"';
				_mm_storeu_si128((__m128i *)(void *)(p + 1), v);
				p[n + 1] = '"';
				p += n + 2;
				NEXT();
			}
		}
	}
#endif
	nul = rd_find_nul(start, (end - pos) / 8);
	if (!nul)
		goto slow;
	n = (size_t)(nul - start);
	pos += (uint64_t)(n + 1) * 8;
	rd_copy_padded(p, op->prefix, op->plen);
	p += op->plen;
#ifdef __SSE2__
	if (n <= 16 && (!n || !rd_needs_escape_short((const char *)start, n))) {
		p[0] = '"';
		rd_copy_short(p + 1, (const char *)start, n);
		p[n + 1] = '"';
		p += n + 2;
		NEXT();
	}
#endif
	/* escapes or a long string: then room for the ops after it again */
	t->len = (size_t)(p - t->buf);
	rd_text_escaped(t, (const char *)start, n);
	if (!rd_text_reserve(t, op->arg))
		goto slow;
	p = t->buf + t->len;
	NEXT();
}
l_text:
	rd_copy_padded(p, op->prefix, op->plen);
	p += op->plen;
	NEXT();
l_text_end:
	rd_copy_padded(p, op->prefix, op->plen);
	p += op->plen;
l_end:
	s->pos = pos;
	t->len = (size_t)(p - t->buf);
	return 0;
l_other:	/* not an op of a text_simple plan: never here */
slow:
	t->len = len0;
	return rd_plan_exec(d, pl, t);
}

#undef NEXT
