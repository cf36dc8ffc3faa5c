/* SPDX-License-Identifier: MIT */
/*
 * Flat decode plans.
 *
 * Walking a field class tree costs a recursive call and two switches per
 * node. The hot path instead runs a plan: the scope's tree compiled once
 * (per scope root and per output mode) into a flat array of operations that
 * a single loop interprets:
 *
 *   OP_INT8/16/32/64  byte-aligned integer: one load (+ byte swap)
 *   OP_INT            any other integer (bit-packed)
 *   OP_FLOAT, OP_STRING, OP_TEXT_ARRAY
 *   OP_TEXT           literal output ("{", " }", ", name = " ...)
 *   OP_ALIGN          struct alignment
 *   OP_VARIANT        read the tag's slot, jump to the selected option;
 *                     every option ends with OP_JUMP past the variant
 *   OP_LOOP/LOOP_END  arrays and sequences (a small loop stack)
 *   OP_TREE           fall back to field.c for a subtree (deep nesting)
 *   OP_PU8..OP_PS64   a printed byte-aligned little-endian decimal integer
 *                     that nothing else reads: load, prefix and digits in
 *                     one step (the text output's common field)
 *
 * Every value op carries the text printed before it (", name = "), so a
 * struct of scalars is one op per field. Printing follows babeltrace2
 * exactly as field.c does; tests/reader checks both agree on the corpus.
 *
 * Two shapes skip the interpreter altogether (its entry, exit and one
 * indirect jump per op cost more than the work for small events): the
 * common event header (rd_plan_hdr_fast_init(), struct rd_hdr_fast) and,
 * when nothing is printed, a body of fixed-size runs and strings
 * (body_fast_init(), struct rd_body_fast). decode.c runs them inline and
 * falls back to the plan for anything else, including every error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "reader/plan_int.h"

void rd_plan_destroy(struct plan *pl)
{
	uint32_t i;

	if (!pl)
		return;
	for (i = 0; i < pl->nstrs; i++)
		free(pl->strs[i]);
	free(pl->strs);
	free(pl->ops);
	free(pl->targets);
	free(pl);
}

/* ---- compiling -------------------------------------------------------- */

static char *plan_str(struct plan *pl, const char *a, size_t la, const char *b,
		      size_t lb)
{
	char **ns;
	char *s;

	if (pl->failed)
		return NULL;
	ns = realloc(pl->strs, (pl->nstrs + 1) * sizeof(*ns));
	/* padded: the interpreter copies a short text as 16 bytes (rd_copy_padded()) */
	s = calloc(1, la + lb + 1 + RD_COPY_PAD);
	if (!ns || !s) {
		if (ns)
			pl->strs = ns;
		free(s);
		pl->failed = true;
		return NULL;
	}
	pl->strs = ns;
	memcpy(s, a, la);
	memcpy(s + la, b, lb);
	s[la + lb] = '\0';
	pl->strs[pl->nstrs++] = s;
	return s;
}

static struct plan_op *emit(struct plan *pl, uint8_t code)
{
	struct plan_op *op;

	if (pl->failed)
		return NULL;
	if (pl->nops >= MAX_OPS) {
		pl->failed = true;
		return NULL;
	}
	if (trawl_array_grow((void **)&pl->ops, &pl->cap, (size_t)pl->nops + 1, sizeof(*pl->ops),
			     16)) {
		pl->failed = true;
		return NULL;
	}
	op = &pl->ops[pl->nops++];
	memset(op, 0, sizeof(*op));
	op->code = code;
	return op;
}

static void emit_text(struct plan *pl, const char *a, size_t la, const char *b,
		      size_t lb)
{
	struct plan_op *op;
	char *s;

	if (la + lb == 0)
		return;
	if (pl->nops > pl->barrier && pl->ops[pl->nops - 1].code == OP_TEXT) {
		/* merge with the text just before */
		op = &pl->ops[pl->nops - 1];
		s = plan_str(pl, op->prefix, op->plen, a, la);
		if (s && lb)
			s = plan_str(pl, s, op->plen + la, b, lb);
		if (!s)
			return;
		op->prefix = s;
		op->plen += (uint32_t)(la + lb);
		return;
	}
	s = plan_str(pl, a, la, b, lb);
	op = emit(pl, OP_TEXT);
	if (!op || !s)
		return;
	op->prefix = s;
	op->plen = (uint32_t)(la + lb);
}

/* What is known of the position after a field of @bits bits. */
static void advance_align(struct plan *pl, uint32_t bits)
{
	uint32_t low = bits ? bits & -bits : 1u << 30;

	if (low < pl->cur_align)
		pl->cur_align = low;
}

/*
 * A struct or array alignment: left pending so that the next field's own
 * alignment step does it (one op less per struct), unless something other
 * than a plain field comes first (flush_align()).
 */
static void emit_align(struct plan *pl, uint32_t align)
{
	if (align > pl->cur_align && align > pl->pending_align)
		pl->pending_align = align;
}

static void flush_align(struct plan *pl)
{
	uint32_t a = pl->pending_align;
	struct plan_op *op;

	pl->pending_align = 0;
	if (a <= pl->cur_align)
		return;
	op = emit(pl, OP_ALIGN);
	if (op)
		op->align = a;
	pl->cur_align = a;
}

static void mark_target(struct plan *pl)
{
	flush_align(pl);
	pl->barrier = pl->nops;
	pl->cur_align = 1;
}

static void compile_fc(struct plan *pl, const struct fc *fc, bool print,
		       bool names, const char *pfx, size_t plen, int loops);

static void set_prefix(struct plan *pl, struct plan_op *op, const char *pfx,
		       size_t plen)
{
	/* no text is 16 readable bytes too, for rd_copy_padded() */
	static const char none[RD_COPY_PAD];

	if (!op)
		return;
	if (!plen) {
		op->prefix = none;
		op->plen = 0;
		return;
	}
	op->prefix = plan_str(pl, pfx, plen, "", 0);
	op->plen = (uint32_t)plen;
}

static void compile_scalar(struct plan *pl, const struct fc *fc, bool print,
			   const char *pfx, size_t plen)
{
	struct plan_op *op;
	uint8_t code;

	if (fc->kind == FC_STRING)
		code = OP_STRING;
	else if (fc->kind == FC_FLOAT)
		code = OP_FLOAT;
	else if (fc->align >= 8 && (fc->size == 8 || fc->size == 16 ||
				    fc->size == 32 || fc->size == 64))
		code = fc->size == 8 ? OP_INT8 : fc->size == 16 ? OP_INT16 :
		       fc->size == 32 ? OP_INT32 : OP_INT64;
	else
		code = OP_INT;
	if (print && pl->nops > pl->barrier && pl->ops[pl->nops - 1].code == OP_TEXT) {
		/* the text just before ("{") becomes part of this field's prefix */
		struct plan_op *prev = &pl->ops[pl->nops - 1];
		char *np = plan_str(pl, prev->prefix, prev->plen, pfx, plen);

		if (!np)
			return;
		pl->nops--;
		pfx = np;
		plen += prev->plen;
	}
	op = emit(pl, code);
	if (!op)
		return;
	op->fc = fc;
	op->size = (uint8_t)(fc->size > 255 ? 0 : fc->size);
	op->align = fc->kind == FC_STRING ? 8 : fc->align;
	op->flags = (uint16_t)((fc->is_signed ? PF_SIGNED : 0) |
			      (fc->big_endian ? PF_BE : 0) |
			      (print ? PF_PRINT : 0) |
			      (fc->is_enum ? PF_ENUM : 0));
	if (fc->kind == FC_INT) {
		if (fc->slot >= 0) {
			op->flags |= PF_SLOT;
			op->arg = (uint32_t)fc->slot;
		}
		if (fc->map)
			op->flags |= PF_CLOCK;
		if (fc->meaning == M_EVENT_ID)
			op->flags |= PF_EVENT_ID;
		else if (fc->meaning != M_NONE)
			op->flags |= PF_EFFECTS;
	}
	if (print)
		set_prefix(pl, op, pfx, plen);
	if (pl->pending_align > op->align)
		op->align = pl->pending_align;
	pl->pending_align = 0;
	if (op->align <= pl->cur_align)
		op->flags |= PF_ALIGNED;
	else
		pl->cur_align = op->align;
	if (fc->kind == FC_STRING)
		pl->cur_align = 8;
	else
		advance_align(pl, fc->size);
}

static void compile_struct(struct plan *pl, const struct fc *fc, bool print,
			   bool names, const char *pfx, size_t plen, int loops)
{
	uint32_t i, printed = 0;
	char buf[512];

	emit_align(pl, fc->align);
	if (print)
		emit_text(pl, pfx, plen, "{", 1);
	for (i = 0; i < fc->nmembers; i++) {
		const struct member *m = &fc->members[i];
		bool mp = print && m->fc->shown;
		size_t n = 0;

		if (mp) {
			const char *name = m->name + (m->name[0] == '_');

			n = (size_t)snprintf(buf, sizeof(buf), "%s%s%s",
					     printed++ ? ", " : " ",
					     names ? name : "", names ? " = " : "");
			if (n >= sizeof(buf)) {
				pl->failed = true;
				return;
			}
		}
		compile_fc(pl, m->fc, mp, names, buf, n, loops);
	}
	if (print)
		emit_text(pl, " }", 2, "", 0);
}

static void compile_variant(struct plan *pl, const struct fc *fc, bool print,
			    bool names, const char *pfx, size_t plen, int loops)
{
	struct plan_op *op;
	uint32_t i, base, vop, *jumps, in_align, out_align;

	if (print)
		emit_text(pl, pfx, plen, "{ ", 2);
	flush_align(pl);
	op = emit(pl, OP_VARIANT);
	if (!op)
		return;
	op->fc = fc;
	vop = pl->nops - 1;
	base = pl->ntargets;
	{
		uint32_t *t = realloc(pl->targets,
				      (pl->ntargets + fc->nmembers + 1) * sizeof(*t));

		if (!t) {
			pl->failed = true;
			return;
		}
		pl->targets = t;
		pl->ntargets += fc->nmembers;
	}
	pl->ops[vop].arg = base;
	jumps = calloc(fc->nmembers + 1, sizeof(*jumps));
	if (!jumps) {
		pl->failed = true;
		return;
	}
	in_align = pl->cur_align;
	out_align = 1u << 30;
	for (i = 0; i < fc->nmembers && !pl->failed; i++) {
		mark_target(pl);
		pl->cur_align = in_align;	/* every option starts at the same spot */
		pl->targets[base + i] = pl->nops;
		compile_fc(pl, fc->members[i].fc, print && fc->members[i].fc->shown,
			   names, "", 0, loops);
		if (pl->cur_align < out_align)
			out_align = pl->cur_align;
		if (emit(pl, OP_JUMP))
			jumps[i] = pl->nops - 1;
	}
	mark_target(pl);
	pl->cur_align = fc->nmembers ? out_align : in_align;
	for (i = 0; i < fc->nmembers && !pl->failed; i++)
		pl->ops[jumps[i]].arg = pl->nops;
	free(jumps);
	if (print)
		emit_text(pl, " }", 2, "", 0);
}

static void compile_array(struct plan *pl, const struct fc *fc, bool print,
			  bool names, const char *pfx, size_t plen, int loops)
{
	struct plan_op *op;
	uint32_t lop;

	if (fc->is_text) {
		flush_align(pl);
		op = emit(pl, OP_TEXT_ARRAY);
		if (!op)
			return;
		op->fc = fc;
		op->flags = print ? PF_PRINT : 0;
		if (print)
			set_prefix(pl, op, pfx, plen);
		pl->cur_align = 8;
		return;
	}
	emit_align(pl, fc->align);
	if (print)
		emit_text(pl, pfx, plen, "[", 1);
	flush_align(pl);
	op = emit(pl, OP_LOOP);
	if (!op)
		return;
	op->fc = fc;
	op->flags = (uint16_t)((print ? PF_PRINT : 0) | (names ? PF_NAMES : 0));
	lop = pl->nops - 1;
	mark_target(pl);
	compile_fc(pl, fc->elem, print && fc->elem->shown, names, "", 0, loops + 1);
	op = emit(pl, OP_LOOP_END);
	if (!op)
		return;
	op->arg = lop + 1;
	op->fc = fc;
	op->flags = (uint16_t)((print ? PF_PRINT : 0) | (names ? PF_NAMES : 0));
	pl->ops[lop].arg = pl->nops;	/* past the loop end */
	mark_target(pl);
}

static void compile_fc(struct plan *pl, const struct fc *fc, bool print,
		       bool names, const char *pfx, size_t plen, int loops)
{
	if (pl->failed)
		return;
	switch (fc->kind) {
	case FC_INT:
	case FC_FLOAT:
	case FC_STRING:
		compile_scalar(pl, fc, print, pfx, plen);
		return;
	case FC_STRUCT:
		compile_struct(pl, fc, print, names, pfx, plen, loops);
		return;
	case FC_VARIANT:
		compile_variant(pl, fc, print, names, pfx, plen, loops);
		return;
	case FC_ARRAY:
	case FC_SEQ:
		if (loops < MAX_LOOPS || fc->is_text) {
			compile_array(pl, fc, print, names, pfx, plen, loops);
		} else {
			struct plan_op *op;

			flush_align(pl);
			op = emit(pl, OP_TREE);

			if (op) {
				op->fc = fc;
				op->flags = print ? PF_PRINT : 0;
				if (print)
					set_prefix(pl, op, pfx, plen);
			}
			pl->cur_align = 1;
		}
		return;
	}
}

static bool is_fixed(const struct plan_op *op)
{
	return op->code == OP_INT || op->code == OP_INT8 ||
	       op->code == OP_INT16 || op->code == OP_INT32 ||
	       op->code == OP_INT64 || op->code == OP_FLOAT;
}

/*
 * Fixed-size fields that follow each other with no padding are one run:
 * its first op checks the bounds for all of them. A jump target ends a run.
 */
static void find_runs(struct plan *pl)
{
	bool *target = calloc(pl->nops + 1, sizeof(bool));
	uint32_t i, j;

	if (!target)
		return;
	for (i = 0; i < pl->nops; i++) {
		const struct plan_op *op = &pl->ops[i];

		if (op->code == OP_JUMP || op->code == OP_LOOP ||
		    op->code == OP_LOOP_END)
			target[op->arg] = true;
		if (op->code == OP_LOOP)
			target[i + 1] = true;
	}
	for (i = 0; i < pl->ntargets; i++)
		target[pl->targets[i]] = true;
	for (i = 0; i < pl->nops; i++) {
		struct plan_op *op = &pl->ops[i];
		uint64_t bits;

		if (!is_fixed(op))
			continue;
		bits = op->size;
		for (j = i + 1; j < pl->nops; j++) {
			struct plan_op *n = &pl->ops[j];

			if (target[j])
				break;
			if (n->code == OP_TEXT)
				continue;
			if (!is_fixed(n) || !(n->flags & PF_ALIGNED))
				break;
			n->flags |= PF_NOCHECK;
			bits += n->size;
		}
		op->run = (uint32_t)bits;
		i = j - 1;
	}
	free(target);
}

static bool is_int_op(const struct plan_op *op)
{
	return op->code == OP_INT || op->code == OP_INT8 ||
	       op->code == OP_INT16 || op->code == OP_INT32 ||
	       op->code == OP_INT64;
}

/*
 * Peephole: a jump to the end is the end; an integer followed by the
 * variant it tags selects the option itself; the last field returns.
 */
static void peephole(struct plan *pl)
{
	uint32_t i;

	for (i = 0; i < pl->nops; i++) {
		struct plan_op *op = &pl->ops[i];

		if (op->code == OP_JUMP && pl->ops[op->arg].code == OP_END)
			op->code = OP_END;
		if (op->code == OP_VARIANT && i > 0 && is_int_op(op - 1) &&
		    (op - 1)->fc == op->fc->ref)
			(op - 1)->flags |= PF_VARIANT_NEXT;
	}
	if (pl->nops >= 2) {
		struct plan_op *last = &pl->ops[pl->nops - 2];
		uint32_t j;
		bool target = false;

		for (j = 0; j < pl->nops; j++)
			if ((pl->ops[j].code == OP_JUMP || pl->ops[j].code == OP_LOOP ||
			     pl->ops[j].code == OP_LOOP_END) &&
			    pl->ops[j].arg == pl->nops - 1)
				target = true;
		for (j = 0; j < pl->ntargets; j++)
			if (pl->targets[j] == pl->nops - 1)
				target = true;
		if (!target && (is_int_op(last) || last->code == OP_STRING ||
				last->code == OP_SKIP) &&
		    !(last->flags & PF_VARIANT_NEXT))
			last->flags |= PF_LAST;
		if (!target && last->code == OP_TEXT)
			last->code = OP_TEXT_END;
	}
}

/*
 * A printed integer that is only printed (no tag, length, clock or
 * meaning), byte-aligned, little-endian and shown in decimal, not as an
 * enum, gets an op of its own: the interpreter loads it, copies its
 * prefix and writes its digits without testing a flag for each.
 */
static void specialize_prints(struct plan *pl)
{
	const uint16_t ok = PF_PRINT | PF_SIGNED | PF_ALIGNED | PF_NOCHECK | PF_LAST;
	uint32_t i;

	for (i = 0; i < pl->nops; i++) {
		struct plan_op *op = &pl->ops[i];
		unsigned k;

		if (op->code < OP_INT8 || op->code > OP_INT64 || !(op->flags & PF_PRINT) ||
		    (op->flags & ~ok) || op->fc->base != 10)
			continue;
		k = (unsigned)(op->code - OP_INT8);
		op->code = (uint8_t)((op->flags & PF_SIGNED ? OP_PS8 : OP_PU8) + k);
	}
}

/* TRAWL_READER_DUMP_PLAN=1 prints each plan as it is compiled (debugging). */
static void plan_dump(const struct plan *pl)
{
	static const char *const names[] = {
		"INT", "INT8", "INT16", "INT32", "INT64", "FLOAT", "STRING",
		"TEXT", "ALIGN", "VARIANT", "JUMP", "LOOP", "LOOP_END",
		"TEXT_ARRAY", "TREE", "END", "TEXT_END", "SKIP",
		"PU8", "PU16", "PU32", "PU64", "PS8", "PS16", "PS32", "PS64",
	};
	uint32_t i;

	for (i = 0; i < pl->nops; i++) {
		const struct plan_op *op = &pl->ops[i];

		fprintf(stderr, "%3u %-10s size %2u align %2u run %3u arg %3u flags %03x %.*s\n",
			i, names[op->code], op->size, op->align, op->run, op->arg,
			op->flags, (int)(op->plen > 40 ? 40 : op->plen),
			op->prefix ? op->prefix : "");
	}
	fprintf(stderr, "---\n");
}

static bool is_unread(const struct plan_op *op)
{
	return is_fixed(op) &&
	       !(op->flags & (PF_PRINT | PF_SLOT | PF_CLOCK | PF_EVENT_ID |
			      PF_EFFECTS | PF_VARIANT_NEXT));
}

/*
 * Fixed-width fields that nothing reads (not printed, no length, tag,
 * clock or meaning) are bounds-checked and stepped over in one op: any bit
 * pattern is a valid integer or float, so reading them cannot fail and
 * their values go nowhere. Ops are removed, so jump targets are remapped.
 */
static void fuse_skips(struct plan *pl)
{
	uint32_t *map = calloc(pl->nops + 1, sizeof(*map));
	bool *target = calloc(pl->nops + 1, sizeof(bool));
	uint32_t i, j, n = 0;

	if (!map || !target) {
		free(map);
		free(target);
		return;
	}
	for (i = 0; i < pl->nops; i++) {
		const struct plan_op *op = &pl->ops[i];

		if (op->code == OP_JUMP || op->code == OP_LOOP ||
		    op->code == OP_LOOP_END)
			target[op->arg] = true;
		if (op->code == OP_LOOP)
			target[i + 1] = true;
	}
	for (i = 0; i < pl->ntargets; i++)
		target[pl->targets[i]] = true;
	for (i = 0; i < pl->nops; i = j) {
		struct plan_op op = pl->ops[i];
		uint64_t bits = op.size;

		j = i + 1;
		map[i] = n;
		if (is_unread(&op) && !(op.flags & PF_NOCHECK)) {
			while (j < pl->nops && !target[j] && is_unread(&pl->ops[j]) &&
			       (pl->ops[j].flags & PF_NOCHECK)) {
				bits += pl->ops[j].size;
				map[j] = n;
				j++;
			}
			op.code = OP_SKIP;
			op.arg = (uint32_t)bits;
			op.flags &= PF_ALIGNED;
		}
		pl->ops[n++] = op;
	}
	map[pl->nops] = n;
	for (i = 0; i < n; i++) {
		struct plan_op *op = &pl->ops[i];

		if (op->code == OP_JUMP || op->code == OP_LOOP ||
		    op->code == OP_LOOP_END)
			op->arg = map[op->arg];
	}
	for (i = 0; i < pl->ntargets; i++)
		pl->targets[i] = map[pl->targets[i]];
	pl->nops = n;
	free(map);
	free(target);
}

static struct plan *plan_finish(struct plan *pl)
{
	mark_target(pl);
	emit(pl, OP_END);
	if (!pl->failed) {
		find_runs(pl);
		fuse_skips(pl);
		peephole(pl);
		specialize_prints(pl);
		rd_plan_text_init(pl);
		if (getenv("TRAWL_READER_DUMP_PLAN"))
			plan_dump(pl);
	}
	if (pl->failed) {
		rd_plan_destroy(pl);
		return NULL;
	}
	return pl;
}

/*
 * TRAWL_READER_NO_PLAN=1 turns plans off, so that tests can check that the
 * tree walker (field.c) prints the same thing.
 */
static bool plans_disabled(void)
{
	static int disabled = -1;

	if (disabled < 0) {
		const char *e = getenv("TRAWL_READER_NO_PLAN");

		disabled = e && *e && *e != '0';
	}
	return disabled;
}

static struct plan *plan_compile(const struct fc *root, int mode)
{
	struct plan *pl;

	if (plans_disabled())
		return NULL;
	pl = calloc(1, sizeof(*pl));

	if (!pl)
		return NULL;
	pl->cur_align = 1;
	compile_fc(pl, root, mode != 0 && root->shown, mode == 2, "", 0, 0);
	return plan_finish(pl);
}

/*
 * An event's body: stream event context, event context and payload, with
 * the ", " and scope names babeltrace2 puts between them.
 */
static struct plan *plan_compile_body(const struct event_class *ec,
				      unsigned key)
{
	static const char *const scope_names[3] = {
		"stream.event.context = ", "event.context = ", "event.fields = ",
	};
	const struct fc *scopes[3] = { ec->sc->event_context, ec->context,
				       ec->payload };
	struct plan *pl;
	bool print = key & RD_BODY_PRINT, sep = key & RD_BODY_SEP_FIRST;
	int i;

	if (plans_disabled())
		return NULL;
	pl = calloc(1, sizeof(*pl));
	if (!pl)
		return NULL;
	pl->cur_align = 1;
	for (i = 0; i < 3; i++) {
		const struct fc *fc = scopes[i];
		bool p = print && fc && fc->shown;
		char pfx[64];
		size_t n = 0;

		if (!fc)
			continue;
		if (p) {
			n = (size_t)snprintf(pfx, sizeof(pfx), "%s%s", sep ? ", " : "",
					     key & RD_BODY_SCOPE_NAMES ? scope_names[i] : "");
			sep = true;
		}
		compile_fc(pl, fc, p, i < 2 ? key & RD_BODY_CTX_NAMES :
					   key & RD_BODY_PAYLOAD_NAMES,
			   pfx, n, 0);
	}
	return plan_finish(pl);
}

struct plan *rd_plan_scope(struct plan **cache, const struct fc *root, int mode)
{
	if (trawl_unlikely(!cache[mode]))
		cache[mode] = plan_compile(root, mode);
	return cache[mode];
}

/*
 * The shape of struct rd_body_fast: SKIP ops of whole bytes aligned to at
 * most a byte, and STRING ops, nothing printed or stored, then END.
 */
static void body_fast_init(const struct plan *pl, struct rd_body_fast *bf)
{
	uint32_t i;

	memset(bf, 0, sizeof(*bf));
	if (!pl)
		return;
	for (i = 0; i < pl->nops; i++) {
		const struct plan_op *op = &pl->ops[i];

		if (op->code == OP_END)
			break;
		if (op->flags & ~(PF_ALIGNED | PF_NOCHECK | PF_LAST))
			return;
		if (op->code == OP_SKIP && op->align <= 8 && op->arg % 8 == 0) {
			if (bf->nsteps && !bf->string[bf->nsteps - 1]) {
				bf->skip[bf->nsteps - 1] += op->arg;
				continue;
			}
			if (bf->nsteps == RD_BODY_FAST_STEPS)
				return;
			bf->skip[bf->nsteps++] = op->arg;
		} else if (op->code == OP_STRING) {
			if (!bf->nsteps || bf->string[bf->nsteps - 1]) {
				if (bf->nsteps == RD_BODY_FAST_STEPS)
					return;
				bf->skip[bf->nsteps++] = 0;
			}
			bf->string[bf->nsteps - 1] = true;
		} else {
			return;
		}
	}
	if (i == pl->nops)	/* no END: not a plan this knows */
		return;
	bf->ok = true;
}

struct plan *rd_plan_body_compile(struct rd_dec_event *dev, unsigned key)
{
	dev->plans[key] = plan_compile_body(dev->ec, key);
	if (key == 0)
		body_fast_init(dev->plans[0], &dev->body_fast);
	return dev->plans[key];
}

/* ---- running ---------------------------------------------------------- */

static int run_text_array(struct dctx *d, const struct plan_op *op,
			  struct rd_text *t)
{
	const struct fc *fc = op->fc;
	uint64_t n = fc->kind == FC_ARRAY ? fc->length : d->s->slots[fc->ref->slot];
	const char *str = NULL;
	size_t len = 0;

	if (rd_decode_text_array(d, n, &str, &len))
		return -EINVAL;
	if (t && (op->flags & PF_PRINT)) {
		rd_text_put(t, op->prefix, op->plen);
		rd_text_escaped(t, str, len);
	}
	return 0;
}

static void loop_elem_prefix(struct rd_text *t, const struct plan_op *op,
			     uint64_t i)
{
	if (i)
		rd_text_lit(t, ", ");
	else
		rd_text_lit(t, " ");
	if (op->flags & PF_NAMES) {
		rd_text_lit(t, "[");
		rd_text_u64(t, i);
		rd_text_lit(t, "] = ");
	}
}

static inline uint64_t sign_extend(uint64_t v, unsigned size)
{
	if (size < 64 && (v >> (size - 1)) & 1)
		v |= ~0ULL << size;
	return v;
}

static inline void print_value(struct rd_text *t, const struct plan_op *op,
			       uint64_t v)
{
	rd_text_put(t, op->prefix, op->plen);
	if (op->flags & PF_ENUM)
		rd_print_enum(t, op->fc, v);
	else if (op->fc->base == 10)
		if (op->flags & PF_SIGNED)
			rd_text_i64(t, (int64_t)v);
		else
			rd_text_u64(t, v);
	else
		rd_print_int(t, op->fc, v);
}

int rd_plan_run(struct dctx *d, struct plan **cache, const struct fc *root,
		struct rd_text *t)
{
	int mode = !t ? 0 : t->names ? 2 : 1;
	const struct plan *pl = rd_plan_scope(cache, root, mode);

	if (trawl_unlikely(!pl))
		return rd_decode_fc(d, root, t);
	return rd_plan_exec(d, pl, t);
}

/*
 * Two instances of the interpreter (plan_exec.h): event headers go through
 * one, bodies and other scopes through the other, so that each keeps its
 * own branch history (a header plan and a body plan start with different
 * ops; one shared entry jump would be mispredicted at every event).
 */
#define PLAN_EXEC_NAME rd_plan_exec
#include "reader/plan_exec.h"
#undef PLAN_EXEC_NAME

#define PLAN_EXEC_NAME rd_plan_exec_hdr_impl
#include "reader/plan_exec.h"
#undef PLAN_EXEC_NAME

int rd_plan_exec_header(struct dctx *d, const struct plan *pl)
{
	return rd_plan_exec_hdr_impl(d, pl, NULL);
}

static unsigned int_op_bytes(const struct plan_op *op)
{
	switch (op->code) {
	case OP_INT8: return 1;
	case OP_INT16: return 2;
	case OP_INT32: return 4;
	case OP_INT64: return 8;
	default: return 0;
	}
}

/*
 * A packed header's extended option (struct rd_hdr_fast's ext): one tag
 * whose option is a byte-aligned 32-bit event id, then a 64-bit
 * timestamp, nothing else.
 */
static void hdr_fast_ext_init(const struct plan *pl, const struct plan_op *id,
			      const struct plan_op *var, struct rd_hdr_fast *hf)
{
	const uint16_t eid_ok = PF_EVENT_ID | PF_ALIGNED | PF_NOCHECK;
	const uint16_t ts_ok = PF_CLOCK | PF_ALIGNED | PF_NOCHECK | PF_LAST;
	const struct fc *vfc = var->fc;
	uint32_t i;

	for (i = 0; i < vfc->nchoices; i++) {
		const struct var_choice *c = &vfc->choices[i];
		uint32_t t = pl->targets[var->arg + c->option];
		const struct plan_op *eid, *ts;

		if (c->lo != c->hi || (uint64_t)c->lo - hf->lo <= hf->span || t + 2 >= pl->nops)
			continue;
		eid = &pl->ops[t];
		ts = &pl->ops[t + 1];
		if (eid->code != OP_INT32 || eid->align != 8 || (eid->flags & ~eid_ok) ||
		    !(eid->flags & PF_EVENT_ID) || ts->code != OP_INT64 ||
		    (ts->flags & ~ts_ok) || !(ts->flags & PF_CLOCK) || ts->align > 8 ||
		    (!(ts->flags & PF_LAST) && pl->ops[t + 2].code != OP_END))
			continue;
		hf->ext = true;
		hf->ext_tag = (uint64_t)c->lo;
		hf->ext_off = (uint8_t)((id->size + 7) / 8);	/* the tag's bits, then alignment */
		return;
	}
}

/*
 * The shape rd_stream_next() decodes by itself (see struct rd_hdr_fast):
 *   0 INTn  id, align 8, flags within ENUM|SLOT|EVENT_ID|VARIANT_NEXT
 *   1 VARIANT on that id, unsigned
 *   t INTn  timestamp, ALIGNED, flags within CLOCK|NOCHECK|LAST, then END
 * for the option t of the widest choice that no earlier choice overlaps
 * (the interpreter takes the first matching choice).
 */
void rd_plan_hdr_fast_init(const struct plan *pl, struct rd_hdr_fast *hf)
{
	const uint16_t id_ok = PF_ENUM | PF_SLOT | PF_EVENT_ID | PF_VARIANT_NEXT |
			       PF_NOCHECK;
	const uint16_t ts_ok = PF_CLOCK | PF_ALIGNED | PF_NOCHECK | PF_LAST;
	const struct plan_op *id, *var;
	const struct fc *vfc;
	uint64_t best = 0;
	uint32_t i, j, total = 0;
	bool packed;

	memset(hf, 0, sizeof(*hf));
	if (!pl || pl->nops < 4)
		return;
	id = &pl->ops[0];
	var = &pl->ops[1];
	/* LTTng's compact header packs a 5-bit id and a 27-bit timestamp in 4 bytes */
	packed = id->code == OP_INT && !(id->flags & PF_BE) && id->size && id->size < 64;
	if ((!int_op_bytes(id) && !packed) || id->align != 8 || (id->flags & ~id_ok) ||
	    !(id->flags & PF_EVENT_ID) || !(id->flags & PF_VARIANT_NEXT) ||
	    var->code != OP_VARIANT || var->fc->ref->is_signed)
		return;
	vfc = var->fc;
	for (i = 0; i < vfc->nchoices; i++) {
		const struct var_choice *c = &vfc->choices[i];
		uint32_t t = pl->targets[var->arg + c->option];
		const struct plan_op *ts;

		uint64_t lo = (uint64_t)c->lo, hi = (uint64_t)c->hi;

		if (t + 1 >= pl->nops || lo > hi)
			continue;
		ts = &pl->ops[t];
		if ((ts->flags & ~ts_ok) || !(ts->flags & PF_CLOCK) ||
		    (!(ts->flags & PF_LAST) && pl->ops[t + 1].code != OP_END))
			continue;
		if (packed) {
			/* right after the id, both in one native load of 1, 2, 4 or 8 bytes */
			total = id->size + ts->size;
			if (ts->code != OP_INT || (ts->flags & PF_BE) || ts->align > 1 ||
			    (total != 8 && total != 16 && total != 32 && total != 64))
				continue;
		} else if (!int_op_bytes(ts) || !(ts->flags & PF_ALIGNED)) {
			continue;
		}
		for (j = 0; j < i; j++)
			if ((uint64_t)vfc->choices[j].lo <= hi &&
			    lo <= (uint64_t)vfc->choices[j].hi)
				break;
		if (j < i || ((hf->ok || hf->packed) && hi - lo <= best))
			continue;
		best = hi - lo;
		hf->ok = !packed;
		hf->packed = packed;
		hf->id_slot = id->flags & PF_SLOT ? (int32_t)id->arg : -1;
		hf->lo = lo;
		hf->span = hi - lo;
		if (packed) {
			hf->id_bits = (uint8_t)id->size;
			hf->id_bytes = (uint8_t)(total / 8);	/* the load of both */
			hf->ts_bytes = 0;
			hf->bits = total;
			hf->ts_mask = (1ULL << ts->size) - 1;	/* ts->size < 64 */
			continue;
		}
		hf->id_bits = 0;
		hf->id_bytes = (uint8_t)int_op_bytes(id);
		hf->ts_bytes = (uint8_t)int_op_bytes(ts);
		hf->bits = 8u * (hf->id_bytes + hf->ts_bytes);
		hf->ts_mask = hf->ts_bytes == 8 ? 0 : (1ULL << (8 * hf->ts_bytes)) - 1;
	}
	if (hf->packed)
		hdr_fast_ext_init(pl, id, var, hf);
}
