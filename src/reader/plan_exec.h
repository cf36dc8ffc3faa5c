/* SPDX-License-Identifier: MIT */
/*
 * The plan interpreter's body, included twice by plan.c with a different
 * PLAN_EXEC_NAME (see there why). Not a header: no include guard.
 */
#define DISPATCH() do { op = &ops[pc++]; goto *labels[op->code]; } while (0)

/*
 * The interpreter: one indirect jump per op, taken from the op itself
 * ("threaded code"), so each op's successor gets its own branch prediction.
 */

int PLAN_EXEC_NAME(struct dctx *d, const struct plan *pl, struct rd_text *t)
{
	static const void *const labels[] = {
		[OP_INT] = &&l_int, [OP_INT8] = &&l_int8, [OP_INT16] = &&l_int16,
		[OP_INT32] = &&l_int32, [OP_INT64] = &&l_int64,
		[OP_FLOAT] = &&l_float, [OP_STRING] = &&l_string,
		[OP_TEXT] = &&l_text, [OP_ALIGN] = &&l_align,
		[OP_VARIANT] = &&l_variant, [OP_JUMP] = &&l_jump,
		[OP_LOOP] = &&l_loop, [OP_LOOP_END] = &&l_loop_end,
		[OP_TEXT_ARRAY] = &&l_text_array, [OP_TREE] = &&l_tree,
		[OP_END] = &&l_end, [OP_TEXT_END] = &&l_text_end, [OP_SKIP] = &&l_skip,
		[OP_PU8] = &&l_pu8, [OP_PU16] = &&l_pu16, [OP_PU32] = &&l_pu32,
		[OP_PU64] = &&l_pu64, [OP_PS8] = &&l_ps8, [OP_PS16] = &&l_ps16,
		[OP_PS32] = &&l_ps32, [OP_PS64] = &&l_ps64,
	};
	struct rd_stream *s = d->s;
	const struct plan_op *ops = pl->ops, *op;
	struct plan_loop *loops = s->loops;
	int nl = 0;
	uint32_t pc = 0;
	uint64_t v, tag;

	DISPATCH();

/*
 * Byte-aligned integers, one handler per size so that the load is known
 * at compile time. The common case (aligned, bounds checked by the run's
 * first field, no side effect, not printed) is three well-predicted tests.
 */
#define FAST_INT(label, type, bswap)						\
label:										\
	if (!(op->flags & PF_ALIGNED) && do_align(d, op->align))		\
		return -EINVAL;							\
	if (!(op->flags & PF_NOCHECK) && need(d, op->run))			\
		return -EINVAL;							\
	{									\
		type x;								\
										\
		memcpy(&x, d->pkt + (s->pos >> 3), sizeof(x));			\
		v = trawl_unlikely(op->flags & PF_BE) ? bswap(x) : x;		\
	}									\
	s->pos += 8 * sizeof(type);						\
	if (trawl_likely(!(op->flags & (PF_SIGNED | PF_EFFECTS | PF_PRINT |	\
					 PF_VARIANT_NEXT | PF_LAST | PF_SLOT |	\
					 PF_CLOCK | PF_EVENT_ID))))		\
		DISPATCH();							\
	goto int_done;

#define NO_SWAP(x) (x)
	FAST_INT(l_int8, uint8_t, NO_SWAP)
	FAST_INT(l_int16, uint16_t, __builtin_bswap16)
	FAST_INT(l_int32, uint32_t, __builtin_bswap32)
	FAST_INT(l_int64, uint64_t, __builtin_bswap64)
#undef NO_SWAP
#undef FAST_INT
l_int:
	if (!(op->flags & PF_ALIGNED) && do_align(d, op->align))
		return -EINVAL;
	if (!(op->flags & PF_NOCHECK) && need(d, op->run))
		return -EINVAL;
	v = read_bits(d->pkt, s->pos, op->size, op->flags & PF_BE);
	s->pos += op->size;
int_done:
	if (op->flags & PF_SIGNED)
		v = sign_extend(v, op->size);
	if (op->flags & PF_SLOT)
		s->slots[op->arg] = v;
	if (op->flags & PF_CLOCK) {
		if (op->size >= 64) {
			s->clock = v;
		} else {
			/* CTF: a compact timestamp that went down has wrapped */
			uint64_t mask = (1ULL << op->size) - 1;
			uint64_t nv = (s->clock & ~mask) | v;

			if (v < (s->clock & mask))
				nv += mask + 1;
			s->clock = nv;
		}
	}
	if (op->flags & PF_EVENT_ID)
		s->cur_event_id = v;
	if (op->flags & PF_EFFECTS)
		int_side_effects(s, op->fc, v);
	if (op->flags & PF_PRINT)
		print_value(t, op, v);
	if (op->flags & (PF_VARIANT_NEXT | PF_LAST)) {
		if (op->flags & PF_LAST)
			return 0;
		op = &ops[pc++];
		tag = v;
		goto variant_select;
	}
	DISPATCH();
l_string: {
	const uint8_t *start, *nul;

	if (!(op->flags & PF_ALIGNED) && do_align(d, 8))
		return -EINVAL;
	start = d->pkt + s->pos / 8;
	nul = rd_find_nul(start, (d->end - s->pos) / 8);
	if (!nul)
		return rd_derr(d, "string is not terminated before the end of the packet content");
	if (op->flags & PF_PRINT) {
		size_t n = (size_t)(nul - start);

#ifdef __SSE2__
		/* most strings are short and need no escape: one reservation, no call */
		if (n && n <= 16 && !rd_needs_escape_short((const char *)start, n) &&
		    rd_text_reserve(t, (size_t)op->plen + 16 + n + 2)) {
			char *p = t->buf + t->len;

			rd_copy_padded(p, op->prefix, op->plen);
			p += op->plen;
			p[0] = '"';
			rd_copy_short(p + 1, (const char *)start, n);
			p[n + 1] = '"';
			t->len = (size_t)(p + n + 2 - t->buf);
		} else
#endif
		{
			rd_text_put(t, op->prefix, op->plen);
			rd_text_escaped(t, (const char *)start, n);
		}
	}
	s->pos += (uint64_t)(nul - start + 1) * 8;
	if (op->flags & PF_LAST)
		return 0;
	DISPATCH();
}
l_float:
	if (!(op->flags & PF_ALIGNED) && do_align(d, op->align))
		return -EINVAL;
	if (!(op->flags & PF_NOCHECK) && need(d, op->run))
		return -EINVAL;
	v = read_bits(d->pkt, s->pos, op->size, op->flags & PF_BE);
	s->pos += op->size;
	if (op->flags & PF_PRINT) {
		rd_text_put(t, op->prefix, op->plen);
		if (op->size == 32) {
			float f;
			uint32_t u = (uint32_t)v;

			memcpy(&f, &u, 4);
			rd_print_float(t, (double)f);
		} else {
			double x;

			memcpy(&x, &v, 8);
			rd_print_float(t, x);
		}
	}
	DISPATCH();
l_text:
	rd_text_put(t, op->prefix, op->plen);
	DISPATCH();
l_align:
	if (do_align(d, op->align))
		return -EINVAL;
	DISPATCH();
l_variant:
	tag = s->slots[op->fc->ref->slot];
variant_select: {
	const struct fc *fc = op->fc;
	bool sgn = fc->ref->is_signed;
	uint32_t i;

	for (i = 0; i < fc->nchoices; i++) {
		const struct var_choice *c = &fc->choices[i];

		if (sgn ? (int64_t)tag >= c->lo && (int64_t)tag <= c->hi :
			  tag >= (uint64_t)c->lo && tag <= (uint64_t)c->hi)
			break;
	}
	if (i == fc->nchoices)
		return rd_variant_error(d, tag);
	pc = pl->targets[op->arg + fc->choices[i].option];
	DISPATCH();
}
l_jump:
	pc = op->arg;
	DISPATCH();
l_loop: {
	const struct fc *fc = op->fc;
	uint64_t n = fc->kind == FC_ARRAY ? fc->length : s->slots[fc->ref->slot];

	if (n > d->end - s->pos &&
	    (n > RD_MAX_EMPTY_ELEMS || !rd_fc_is_empty(fc->elem)))
		return rd_derr(d, "array or sequence length exceeds the packet content");
	if (n == 0) {
		if (op->flags & PF_PRINT)
			rd_text_lit(t, " ]");
		pc = op->arg;
		DISPATCH();
	}
	loops[nl].i = 0;
	loops[nl].n = n;
	nl++;
	if (op->flags & PF_PRINT)
		loop_elem_prefix(t, op, 0);
	DISPATCH();
}
l_loop_end: {
	struct plan_loop *l = &loops[nl - 1];

	if (++l->i < l->n) {
		if (op->flags & PF_PRINT)
			loop_elem_prefix(t, op, l->i);
		pc = op->arg;
	} else {
		nl--;
		if (op->flags & PF_PRINT)
			rd_text_lit(t, " ]");
	}
	DISPATCH();
}
l_text_array:
	if (run_text_array(d, op, t))
		return -EINVAL;
	DISPATCH();
l_tree:
	if (op->flags & PF_PRINT) {
		rd_text_put(t, op->prefix, op->plen);
		if (rd_decode_fc(d, op->fc, t))
			return -EINVAL;
	} else if (rd_decode_fc(d, op->fc, NULL)) {
		return -EINVAL;
	}
	DISPATCH();
l_skip:
	if (!(op->flags & PF_ALIGNED) && do_align(d, op->align))
		return -EINVAL;
	if (need(d, op->run))
		return -EINVAL;
	s->pos += op->arg;
	if (op->flags & PF_LAST)
		return 0;
	DISPATCH();
/*
 * Printed decimal integers (specialize_prints()): the prefix and at most
 * a sign and 20 digits in one reservation. Out of memory, the text is
 * left as it is (t->oom says so) and decoding goes on. Here, after the
 * decoding ops, not before them: placed there, they cost decode-only
 * 1.05 M instructions on bench/top's kernel trace (gcc's code layout).
 */
#define PRINT_INT(label, type, sgn, stype)						\
label:										\
	if (!(op->flags & PF_ALIGNED) && do_align(d, op->align))		\
		return -EINVAL;							\
	if (!(op->flags & PF_NOCHECK) && need(d, op->run))			\
		return -EINVAL;							\
	{									\
		type x;								\
										\
		memcpy(&x, d->pkt + (s->pos >> 3), sizeof(x));			\
		s->pos += 8 * sizeof(type);					\
		if (trawl_likely(rd_text_reserve(t, (size_t)op->plen + 16 + 25))) { \
			char *p = t->buf + t->len;				\
			int64_t sv = sgn ? (int64_t)(stype)x : 0;		\
			uint64_t u = x;						\
										\
			rd_copy_padded(p, op->prefix, op->plen);		\
			p += op->plen;						\
			if (sv < 0) {						\
				*p++ = '-';					\
				u = 0 - (uint64_t)sv;				\
			}							\
			t->len = (size_t)(p - t->buf) + rd_put_u64(p, u);	\
		}								\
	}									\
	if (op->flags & PF_LAST)						\
		return 0;							\
	DISPATCH();

	PRINT_INT(l_pu8, uint8_t, 0, uint8_t)
	PRINT_INT(l_pu16, uint16_t, 0, uint16_t)
	PRINT_INT(l_pu32, uint32_t, 0, uint32_t)
	PRINT_INT(l_pu64, uint64_t, 0, uint64_t)
	PRINT_INT(l_ps8, uint8_t, 1, int8_t)
	PRINT_INT(l_ps16, uint16_t, 1, int16_t)
	PRINT_INT(l_ps32, uint32_t, 1, int32_t)
	PRINT_INT(l_ps64, uint64_t, 1, int64_t)
#undef PRINT_INT
l_text_end:
	if (trawl_likely(rd_text_reserve(t, (size_t)op->plen + 16))) {
		rd_copy_padded(t->buf + t->len, op->prefix, op->plen);
		t->len += op->plen;
	}
l_end:
	return 0;
}


#undef DISPATCH
