/* SPDX-License-Identifier: MIT */
/*
 * filter-internal.h - the program both halves of src/filter share: parse.c
 * writes it, run.c binds and interprets it.
 *
 * A program is postfix code for a stack machine: each instruction pushes a
 * value, or pops one or two and pushes the result. && and || jump over
 * their right operand when the left one decides. Values are tagged (signed
 * or unsigned 64-bit integer, double, bounded string, literal pattern); a
 * mismatch found at run time ends the evaluation with "false".
 *
 * String literals are kept as written between their quotes (LTTng's
 * rule): "\\" is a backslash and "\*" a star, both as plain characters; an
 * unescaped '*' is a wildcard. A literal whose only wildcard ends it
 * ("abc*") compares as a prefix, with any operator; any other wildcard
 * makes it a star-glob pattern, for == and != only. A literal never holds a
 * NUL byte, nor any other backslash sequence (the parser refuses them).
 *
 * Values follow LTTng-UST 2.13's interpreter: every integer is a signed
 * 64-bit value (an unsigned field's bits), compared signed; bitwise
 * operators and shifts work on the 64 bits, ">>" is logical; a float
 * compares with an integer as doubles; the filter's result must be an
 * integer. A field whose type cannot take part in an operator (a string in
 * "&&", a float in "&") makes the whole filter false for that event, found
 * when the filter is bound.
 */
#ifndef TRAWL_FILTER_INTERNAL_H
#define TRAWL_FILTER_INTERNAL_H

#include <stdint.h>

#include "filter/filter.h"

enum filter_op {
	OP_INT = 1,   /* push imm.u (its 64 bits: a signed value) */
	OP_FLT,       /* push imm.d */
	OP_STR,       /* push literal: pool[idx .. idx+len) as written; a: 1 = star-glob pattern */
	OP_NAME,      /* unbound field: name pool[idx .. idx+len); a: 1 = indexed by imm.u;
			 a name no event has ("$ctx.zzz", "a.b") is never bound */
	OP_CTX,       /* push context idx (enum trawl_filter_ctx) */
	/* bound loads (trawl_filter_bind() turns OP_NAME into one of these) */
	OP_LD_S,      /* args[idx].i */
	OP_LD_U,      /* args[idx].i of an unsigned field: its bits, as a signed value */
	OP_LD_F,      /* args[idx].d */
	OP_LD_STR,    /* args[idx].p, NUL-terminated */
	OP_LD_TEXT,   /* args[idx].p, at most args[idx].n bytes */
	OP_LD_ELEM,   /* element imm.u of args[idx] (p, n elements of a bytes; b: 1 signed,
			 2 big-endian, 3 both) */
	/* unary */
	OP_NEG,
	OP_NOT,
	OP_BNOT,
	OP_BOOL,      /* top -> 0/1 */
	/* binary */
	OP_EQ,
	OP_NE,
	OP_LT,
	OP_LE,
	OP_GT,
	OP_GE,
	OP_BAND,
	OP_BOR,
	OP_BXOR,
	OP_SHL,
	OP_SHR,
	/* control: pop the top; if it decides (false for AND, true for OR)
	 * push 0 or 1 and jump to instruction idx */
	OP_AND,
	OP_OR,
	/* bound only: "field OP constant", the commonest filter, fused into
	 * one instruction by trawl_filter_bind(): load a (OP_LD_S, _U or _F)
	 * of args[idx], compare (b: OP_EQ .. OP_GE) with the constant imm of
	 * kind pad (0: integer, 2: double), push 0/1 */
	OP_CMP_CONST,
	/* bound only, fused likewise: "integer field BITOP constant" (a: the
	 * load, b: OP_BAND .. OP_SHR, pad: 1 if the constant is unsigned) */
	OP_BIT_CONST,
	/* bound only: "top OP constant" (b: OP_EQ .. OP_GE, pad as OP_CMP_CONST) */
	OP_CMP_TOP,
};

struct filter_insn {
	uint8_t op;   /* enum filter_op */
	uint8_t a;
	uint8_t b;
	uint8_t pad;
	uint32_t idx;
	uint32_t len;
	uint32_t pad2;
	union {
		uint64_t u;
		double d;
	} imm;
};

struct trawl_filter {
	struct filter_insn *code;
	uint32_t nr_code;
	uint32_t max_stack;
	char *pool; /* names and literals */
	uint32_t pool_len;
};

struct trawl_filter_prog {
	struct filter_insn *code; /* owned */
	uint32_t nr_code;
	int never;
	char *pool;               /* owned: the literals */
};

#endif /* TRAWL_FILTER_INTERNAL_H */
