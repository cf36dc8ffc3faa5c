/* SPDX-License-Identifier: MIT */
/*
 * The decode plans' ops and the plan itself (see plan.c): shared by the
 * compiler and interpreter (plan.c) and the text line runner
 * (plan_text.c). Not part of the decoder's interface (decode_int.h).
 */
#ifndef TRAWL_READER_PLAN_INT_H
#define TRAWL_READER_PLAN_INT_H

#include "reader/decode_int.h"

#define MAX_OPS (1u << 16)

enum {
	OP_INT, OP_INT8, OP_INT16, OP_INT32, OP_INT64, OP_FLOAT, OP_STRING,
	OP_TEXT, OP_ALIGN, OP_VARIANT, OP_JUMP, OP_LOOP, OP_LOOP_END,
	OP_TEXT_ARRAY, OP_TREE, OP_END, OP_TEXT_END, OP_SKIP,
	/* printed byte-aligned little-endian decimal integers (specialize_prints()) */
	OP_PU8, OP_PU16, OP_PU32, OP_PU64, OP_PS8, OP_PS16, OP_PS32, OP_PS64,
};

#define PF_SIGNED 1u
#define PF_BE 2u
#define PF_EFFECTS 4u
#define PF_PRINT 8u
#define PF_ENUM 16u
#define PF_NAMES 32u
#define PF_ALIGNED 64u	/* statically known to need no alignment */
#define PF_NOCHECK 128u	/* bounds already checked by the run's first op */
#define PF_VARIANT_NEXT 256u	/* the next op is a variant tagged by this integer */
#define PF_LAST 512u		/* the plan ends after this op */
/* the side effects of an integer, decided at compile time (PF_EFFECTS: other) */
#define PF_SLOT 1024u		/* store in slots[arg] */
#define PF_CLOCK 2048u		/* update the stream clock (size bits) */
#define PF_EVENT_ID 4096u	/* the event class id */

struct plan_op {
	uint32_t run;		/* bits of the fixed-size run starting here */
	uint8_t code;
	uint8_t size;		/* bits, for integers and floats */
	uint16_t flags;
	uint32_t align;		/* bits */
	uint32_t arg;		/* jump target, loop end, or first variant target */
	uint32_t plen;
	const char *prefix;	/* printed before the value; OP_TEXT: the text */
	const struct fc *fc;
};

struct plan {
	struct plan_op *ops;
	uint32_t nops;
	size_t cap;
	uint32_t *targets;	/* variant option entry points */
	uint32_t ntargets;
	char **strs;		/* owned prefix strings */
	uint32_t nstrs;
	uint32_t barrier;	/* ops before this may be jump targets: no merging */
	uint32_t cur_align;	/* alignment the position is known to have, bits */
	uint32_t pending_align;	/* struct alignment the next field absorbs */
	bool failed;
	/*
	 * rd_plan_text_init(): plan_text.c runs this plan, writing at most
	 * text_max bytes besides its strings' (then an OP_STRING's arg is
	 * what the ops after it may write).
	 */
	bool text_simple;
	size_t text_max;
};

/* Sets @pl's text_simple, text_max and strings' args (plan_text.c). */
void rd_plan_text_init(struct plan *pl);

#endif /* TRAWL_READER_PLAN_INT_H */
