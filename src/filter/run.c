/* SPDX-License-Identifier: MIT */
/*
 * run.c - binding a parsed filter to an event's fields, and the interpreter.
 *
 * Binding turns each field name into a typed load of the event's argument
 * array (filter-internal.h), once per (event, filter), so that evaluating an
 * event does no name lookup. It then follows the code once with the types
 * of what each instruction pushes: a name the event lacks, or an operator
 * given a type it cannot take (a string field with "&&", a float with "&",
 * a string with a number), makes a program that is always false, as
 * LTTng-UST's bytecode linker does with such a filter.
 *
 * The interpreter is a loop over the bound code with a fixed stack
 * (TRAWL_FILTER_STACK values, on the C stack: the parser proved the depth
 * fits). What can only fail with the values - an index past the end, a
 * shift by a negative count or by 64 bits or more, a context with no value
 * - ends the run with "false", LTTng's rule.
 *
 * Reads of the event's memory: a string is read up to its NUL, or up to
 * the bound that comes with it (text arrays and sequences, procname); an
 * element is read only when its index is below the element count.
 */
#include "filter/filter-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- binding ---- */

static const struct trawl_filter_field *find_field(const struct trawl_filter *f, const struct filter_insn *in,
						   const struct trawl_filter_field *fields, unsigned int nr,
						   unsigned int *index)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		const char *n = fields[i].name;

		if (n && strlen(n) == in->len && !memcmp(n, f->pool + in->idx, in->len)) {
			*index = i;
			return &fields[i];
		}
	}
	return NULL;
}

/* Binds one OP_NAME in place; 0, or -1 if it can never be evaluated. */
static int bind_name(const struct trawl_filter *f, struct filter_insn *in, const struct trawl_filter_field *fields,
		     unsigned int nr)
{
	const struct trawl_filter_field *fd;
	unsigned int i;

	fd = find_field(f, in, fields, nr, &i);
	if (!fd || in->a > 1)
		return -1;
	in->idx = i;
	switch (fd->kind) {
	case TRAWL_FILTER_FIELD_INT:
		if (in->a)
			return -1; /* an index on a scalar */
		in->op = fd->is_signed ? OP_LD_S : OP_LD_U;
		return 0;
	case TRAWL_FILTER_FIELD_FLOAT:
		if (in->a)
			return -1;
		in->op = OP_LD_F;
		return 0;
	case TRAWL_FILTER_FIELD_STRING:
		if (in->a)
			return -1;
		in->op = OP_LD_STR;
		return 0;
	case TRAWL_FILTER_FIELD_ARRAY:
	case TRAWL_FILTER_FIELD_SEQUENCE:
		if (!in->a) {
			/* A whole array is a value only as text. */
			if (!fd->is_text || fd->bits != 8)
				return -1;
			in->op = OP_LD_TEXT;
			return 0;
		}
		if (fd->bits != 8 && fd->bits != 16 && fd->bits != 32 && fd->bits != 64)
			return -1;
		in->op = OP_LD_ELEM;
		in->a = (uint8_t)(fd->bits / 8);
		in->b = (uint8_t)((fd->is_signed ? 1 : 0) | (fd->big_endian ? 2 : 0));
		return 0;
	default:
		return -1;
	}
}

/* What an instruction pushes, as far as binding knows. */
enum vkind {
	K_INT,
	K_DBL,
	K_STR,
};

/*
 * Follows the bound code with the kinds of the values (top comment): 0, or
 * -1 when an operator is given a kind it cannot take, or the filter's value
 * would not be an integer. The code is postfix and its jumps only skip a
 * "&&"/"||" operand ending with OP_BOOL, so one pass in order sees the
 * stack as every path does.
 */
static int check_kinds(const struct trawl_filter_prog *p)
{
	enum vkind st[TRAWL_FILTER_STACK];
	uint32_t i;
	int sp = 0;

	for (i = 0; i < p->nr_code; i++) {
		const struct filter_insn *in = &p->code[i];
		enum vkind k;

		switch (in->op) {
		case OP_INT:
		case OP_LD_S:
		case OP_LD_U:
		case OP_LD_ELEM:
			k = K_INT;
			goto push;
		case OP_FLT:
		case OP_LD_F:
			k = K_DBL;
			goto push;
		case OP_STR:
		case OP_LD_STR:
		case OP_LD_TEXT:
			k = K_STR;
			goto push;
		case OP_CTX:
			k = in->idx == TRAWL_FILTER_CTX_PROCNAME ? K_STR : K_INT;
push:
			if (sp >= (int)TRAWL_FILTER_STACK)
				return -1;
			st[sp++] = k;
			continue;
		default:
			break;
		}
		if (sp < 1)
			return -1;
		switch (in->op) {
		case OP_NEG:
			if (st[sp - 1] == K_STR)
				return -1;
			break;
		case OP_NOT:
		case OP_BOOL:
			if (st[sp - 1] == K_STR)
				return -1;
			st[sp - 1] = K_INT;
			break;
		case OP_BNOT:
			if (st[sp - 1] != K_INT)
				return -1;
			break;
		case OP_AND:
		case OP_OR:
			if (st[sp - 1] == K_STR)
				return -1;
			sp--; /* the right operand replaces it (then OP_BOOL) */
			break;
		default: /* binary */
			if (sp < 2)
				return -1;
			if (in->op >= OP_EQ && in->op <= OP_GE) {
				if ((st[sp - 2] == K_STR) != (st[sp - 1] == K_STR))
					return -1;
			} else if (st[sp - 2] != K_INT || st[sp - 1] != K_INT) {
				return -1;
			}
			st[sp - 2] = K_INT;
			sp--;
			break;
		}
	}
	return sp == 1 && st[0] == K_INT ? 0 : -1;
}

static int is_const(const struct filter_insn *in)
{
	return in->op == OP_INT || in->op == OP_FLT;
}

static int is_cmp(const struct filter_insn *in)
{
	return in->op >= OP_EQ && in->op <= OP_GE;
}

/*
 * Peephole fusion, in place, renumbering the jumps, so that the commonest
 * filters run as one or two instructions instead of three to five:
 *   load number; constant; compare     -> OP_CMP_CONST
 *   load integer; constant; bitwise op -> OP_BIT_CONST
 *   constant; compare                  -> OP_CMP_TOP
 * No jump lands inside a fused group: a jump lands after an OP_BOOL, and
 * a group's second and third instructions follow a load or a constant.
 */
static void fuse(struct trawl_filter_prog *p)
{
	uint32_t *to = malloc((p->nr_code + 1) * sizeof(*to));
	uint32_t i, n = 0;

	if (!to)
		return; /* unfused: the same results, a little slower */
	for (i = 0; i < p->nr_code; i++) {
		struct filter_insn *in = &p->code[i], f = *in;
		int ld_int = in->op == OP_LD_S || in->op == OP_LD_U;

		to[i] = n;
		if (i + 2 < p->nr_code && (ld_int || in->op == OP_LD_F) && is_const(&in[1]) &&
		    (is_cmp(&in[2]) || (ld_int && in[1].op == OP_INT && in[2].op >= OP_BAND &&
					in[2].op <= OP_SHR))) {
			f.op = is_cmp(&in[2]) ? OP_CMP_CONST : OP_BIT_CONST;
			f.a = in->op;
			f.b = in[2].op;
			f.pad = in[1].op == OP_FLT ? 2 : 0;
			f.imm = in[1].imm;
			to[i + 1] = to[i + 2] = n;
			p->code[n++] = f;
			i += 2;
			continue;
		}
		if (i + 1 < p->nr_code && is_const(in) && is_cmp(&in[1])) {
			f.op = OP_CMP_TOP;
			f.b = in[1].op;
			f.pad = in->op == OP_FLT ? 2 : 0;
			to[i + 1] = n;
			p->code[n++] = f;
			i += 1;
			continue;
		}
		p->code[n++] = *in;
	}
	to[p->nr_code] = n;
	for (i = 0; i < n; i++)
		if (p->code[i].op == OP_AND || p->code[i].op == OP_OR)
			p->code[i].idx = p->code[i].idx <= p->nr_code ? to[p->code[i].idx] : 0;
	p->nr_code = n;
	free(to);
}

int trawl_filter_bind(const struct trawl_filter *f, const struct trawl_filter_field *fields, unsigned int nr_fields,
		      struct trawl_filter_prog **out)
{
	struct trawl_filter_prog *p = calloc(1, sizeof(*p));
	uint32_t i;

	if (!p)
		return -ENOMEM;
	p->code = malloc((f->nr_code ? f->nr_code : 1) * sizeof(*p->code));
	p->pool = malloc(f->pool_len ? f->pool_len : 1);
	if (!p->code || !p->pool) {
		trawl_filter_prog_destroy(p);
		return -ENOMEM;
	}
	memcpy(p->code, f->code, f->nr_code * sizeof(*p->code));
	if (f->pool_len)
		memcpy(p->pool, f->pool, f->pool_len);
	p->nr_code = f->nr_code;
	for (i = 0; i < p->nr_code; i++)
		if (p->code[i].op == OP_NAME && bind_name(f, &p->code[i], fields, nr_fields))
			p->never = 1;
	if (!p->never && check_kinds(p))
		p->never = 1;
	if (!p->never)
		fuse(p);
	*out = p;
	return 0;
}

void trawl_filter_prog_destroy(struct trawl_filter_prog *p)
{
	if (!p)
		return;
	free(p->code);
	free(p->pool);
	free(p);
}

int trawl_filter_prog_never(const struct trawl_filter_prog *p)
{
	return p->never;
}

/* ---- values ---- */

enum vtype {
	V_INT, /* i: every integer, as a signed 64-bit value */
	V_DBL,
	V_STR, /* a field or context string: s, at most n bytes or up to a NUL */
	V_LIT, /* a literal as written: exactly n bytes; glob: a star-glob pattern */
};

struct val {
	enum vtype t;
	int glob;
	union {
		int64_t i;
		uint64_t u;
		double d;
	};
	const char *s;
	size_t n;
};

static int is_num(const struct val *v)
{
	return v->t == V_INT || v->t == V_DBL;
}

/* -1, 0, 1; or 2 if unordered (a NaN). Both numbers. */
static int num_cmp(const struct val *a, const struct val *b)
{
	if (a->t == V_DBL || b->t == V_DBL) {
		double x = a->t == V_DBL ? a->d : (double)a->i;
		double y = b->t == V_DBL ? b->d : (double)b->i;

		if (x < y)
			return -1;
		if (x > y)
			return 1;
		return x == y ? 0 : 2;
	}
	return a->i < b->i ? -1 : a->i > b->i;
}

/* Whether position @k of string value @v is past its end. */
static int str_end(const struct val *v, size_t k)
{
	return k >= v->n || v->s[k] == '\0';
}

/*
 * Character at @*k of a literal, LTTng's way: "\\" and "\*" are their
 * second character (returned, *k moved onto it); an unescaped '*' returns
 * -1: the rest of the other string matches.
 */
static int lit_char(const struct val *v, size_t *k)
{
	if (v->s[*k] == '*')
		return -1;
	if (v->s[*k] == '\\' && *k + 1 < v->n)
		++*k;
	return (unsigned char)v->s[*k];
}

/*
 * Two strings in order, as LTTng-UST's interpreter compares them: bytes as
 * (signed) chars, a field's raw, a literal's with its escapes, and a
 * literal's unescaped '*' matching whatever remains of the other one.
 */
static int str_cmp(const struct val *a, const struct val *b)
{
	size_t i = 0, j = 0;

	for (;;) {
		int d;

		if (str_end(a, i)) {
			if (str_end(b, j) || (b->t == V_LIT && b->s[j] == '*'))
				return 0;
			return -1;
		}
		if (str_end(b, j))
			return a->t == V_LIT && a->s[i] == '*' ? 0 : 1;
		if ((a->t == V_LIT && lit_char(a, &i) < 0) || (b->t == V_LIT && lit_char(b, &j) < 0))
			return 0;
		d = (signed char)a->s[i] - (signed char)b->s[j];
		if (d)
			return d < 0 ? -1 : 1;
		i++;
		j++;
	}
}

/*
 * LTTng's star-glob match of the string @c (raw bytes) by the pattern @pat
 * (its '*' matches any run of bytes, "\X" is X): each '*' is tried at the
 * next byte after a mismatch. O(len(pat) * len(c)) at worst, both bounded.
 */
static int glob_match(const struct val *pat, const struct val *c)
{
	size_t retry_c = 0, retry_p = 0, i, k;
	int star = 0;

retry:
	i = retry_c;
	k = retry_p;
	while (!str_end(c, i)) {
		if (str_end(pat, k))
			goto mismatch;
		if (pat->s[k] == '*') {
			star = 1;
			retry_c = i;
			retry_p = k + 1;
			if (str_end(pat, retry_p))
				return 1;
			goto retry;
		}
		if (pat->s[k] == '\\')
			k++;
		if (str_end(pat, k) || c->s[i] != pat->s[k]) {
mismatch:
			if (!star)
				return 0;
			retry_c++;
			goto retry;
		}
		i++;
		k++;
	}
	if (str_end(pat, k))
		return 1;
	return pat->s[k] == '*' && str_end(pat, k + 1);
}

/* @op's result for a comparison that gave @c (-1, 0, 1). */
static inline int cmp_result(enum filter_op op, int c)
{
	switch (op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	default: return c >= 0;
	}
}

/* Compares two values for @op; 0/1, or -1 when they cannot be compared. */
static int compare(enum filter_op op, const struct val *a, const struct val *b)
{
	int c;

	if (is_num(a) && is_num(b)) {
		c = num_cmp(a, b);
		if (c == 2) /* NaN: only != holds */
			return op == OP_NE;
		return cmp_result(op, c);
	}
	if (is_num(a) || is_num(b))
		return -1;
	if (a->glob || b->glob) {
		/* The right operand is the pattern when it is one (LTTng's). */
		const struct val *pat = b->glob ? b : a;

		if ((op != OP_EQ && op != OP_NE) || (a->glob && b->glob))
			return -1;
		return glob_match(pat, pat == b ? a : b) == (op == OP_EQ);
	}
	return cmp_result(op, str_cmp(a, b));
}

/* compare(), with the commonest case (two integers) inline. */
static inline int compare_fast(enum filter_op op, const struct val *a, const struct val *b)
{
	if (a->t == V_INT && b->t == V_INT)
		return cmp_result(op, a->i < b->i ? -1 : a->i > b->i);
	return compare(op, a, b);
}

/* 0/1, or -1 for a string. */
static int truth(const struct val *v)
{
	switch (v->t) {
	case V_INT:
		return v->i != 0;
	case V_DBL:
		return v->d != 0;
	default:
		return -1;
	}
}

static int load_elem(const struct filter_insn *in, const struct trawl_ust_filter_arg *arg, struct val *v)
{
	const unsigned char *p = (const unsigned char *)arg->p;
	uint64_t k = in->imm.u, x = 0;
	unsigned int i, size = in->a;

	if (k >= arg->n || !p)
		return -1;
	p += k * size;
	/* Big-endian elements (ctf_array_network) read in network order,
	 * the others in the host's. */
	for (i = 0; i < size; i++) {
		int big = (in->b & 2) || __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

		x |= (uint64_t)p[i] << (big ? 8 * (size - 1 - i) : 8 * i);
	}
	if ((in->b & 1) && size < 8 && (x >> (size * 8 - 1)) & 1)
		x |= ~(uint64_t)0 << (size * 8); /* sign extension */
	v->t = V_INT;
	v->u = x;
	return 0;
}

static int load_ctx(unsigned int which, trawl_filter_ctx_fn ctx, void *ctx_arg, struct val *v)
{
	struct trawl_ust_filter_arg a;

	memset(&a, 0, sizeof(a));
	if (!ctx || ctx(ctx_arg, which, &a))
		return -1;
	if (which == TRAWL_FILTER_CTX_PROCNAME) {
		v->t = V_STR;
		v->s = (const char *)a.p;
		v->n = v->s ? (size_t)a.n : 0;
	} else {
		v->t = V_INT;
		v->i = a.i;
	}
	return 0;
}

static int unary(enum filter_op op, struct val *v)
{
	int t;

	switch (op) {
	case OP_NOT:
	case OP_BOOL:
		t = truth(v);
		if (t < 0)
			return -1;
		v->t = V_INT;
		v->i = op == OP_NOT ? !t : t;
		return 0;
	case OP_BNOT:
		if (v->t != V_INT)
			return -1;
		v->u = ~v->u;
		return 0;
	default: /* OP_NEG: two's complement, as LTTng's 64-bit registers */
		if (v->t == V_DBL)
			v->d = -v->d;
		else if (v->t == V_INT)
			v->u = 0 - v->u;
		else
			return -1;
		return 0;
	}
}

static inline int bitwise(enum filter_op op, struct val *a, const struct val *b)
{
	if (a->t != V_INT || b->t != V_INT)
		return -1;
	switch (op) {
	case OP_BAND: a->u &= b->u; return 0;
	case OP_BOR: a->u |= b->u; return 0;
	case OP_BXOR: a->u ^= b->u; return 0;
	case OP_SHL:
	case OP_SHR:
		if (b->i < 0 || b->i > 63)
			return -1;
		if (op == OP_SHL)
			a->u <<= b->u;
		else
			a->u >>= b->u; /* logical, as LTTng's */
		return 0;
	default:
		return -1;
	}
}

/* Pushes the value of one load instruction (op <= OP_LD_ELEM); 0 or -1. */
static int push_value(const struct trawl_filter_prog *p, const struct filter_insn *in,
		      const struct trawl_ust_filter_arg *args, trawl_filter_ctx_fn ctx, void *ctx_arg, struct val *v)
{
	v->glob = 0;
	switch (in->op) {
	case OP_INT:
		v->t = V_INT;
		v->u = in->imm.u;
		return 0;
	case OP_FLT:
		v->t = V_DBL;
		v->d = in->imm.d;
		return 0;
	case OP_STR:
		v->t = V_LIT;
		v->glob = in->a;
		v->s = p->pool + in->idx;
		v->n = in->len;
		return 0;
	case OP_CTX:
		return load_ctx(in->idx, ctx, ctx_arg, v);
	case OP_LD_S:
	case OP_LD_U:
		v->t = V_INT;
		v->i = args[in->idx].i;
		return 0;
	case OP_LD_F:
		v->t = V_DBL;
		v->d = args[in->idx].d;
		return 0;
	case OP_LD_STR:
		v->t = V_STR;
		v->s = args[in->idx].p ? (const char *)args[in->idx].p : "";
		v->n = SIZE_MAX;
		return 0;
	case OP_LD_TEXT:
		v->t = V_STR;
		v->s = (const char *)args[in->idx].p;
		v->n = v->s ? (size_t)args[in->idx].n : 0;
		return 0;
	case OP_LD_ELEM:
		return load_elem(in, &args[in->idx], v);
	default: /* OP_NAME: unbound, cannot happen */
		return -1;
	}
}

/* A fused instruction (fuse()); 0, or -1 to end the run with "false". */
static int run_fused(const struct filter_insn *in, const struct trawl_ust_filter_arg *args, struct val *st, int *sp)
{
	struct val a, b;
	int r;

	b.t = in->pad == 2 ? V_DBL : V_INT;
	b.u = in->imm.u; /* the bits of the constant, whatever its kind */
	if (in->op == OP_CMP_TOP) {
		if (*sp < 1)
			return -1;
		r = compare_fast((enum filter_op)in->b, &st[*sp - 1], &b);
		if (r < 0)
			return -1;
		st[*sp - 1].t = V_INT;
		st[*sp - 1].i = r;
		return 0;
	}
	if (*sp >= (int)TRAWL_FILTER_STACK)
		return -1;
	a.t = in->a == OP_LD_F ? V_DBL : V_INT;
	if (a.t == V_DBL)
		a.d = args[in->idx].d;
	else
		a.i = args[in->idx].i;
	if (in->op == OP_BIT_CONST) {
		if (bitwise((enum filter_op)in->b, &a, &b))
			return -1;
		st[*sp].t = V_INT;
		st[*sp].u = a.u;
	} else {
		st[*sp].t = V_INT;
		st[*sp].i = compare_fast((enum filter_op)in->b, &a, &b); /* numbers: 0 or 1 */
	}
	(*sp)++;
	return 0;
}

int trawl_filter_run(const struct trawl_filter_prog *p, const struct trawl_ust_filter_arg *args,
		     trawl_filter_ctx_fn ctx, void *ctx_arg)
{
	struct val st[TRAWL_FILTER_STACK];
	uint32_t pc = 0;
	int sp = 0, r;

	if (p->never)
		return 0;
	while (pc < p->nr_code) {
		const struct filter_insn *in = &p->code[pc++];
		struct val *v;

		if (in->op <= OP_LD_ELEM) { /* a push */
			if (sp >= (int)TRAWL_FILTER_STACK || push_value(p, in, args, ctx, ctx_arg, &st[sp]))
				return 0;
			sp++;
			continue;
		}
		if (in->op >= OP_CMP_CONST) {
			if (run_fused(in, args, st, &sp))
				return 0;
			continue;
		}
		if (sp < 1)
			return 0;
		v = &st[sp - 1];
		switch (in->op) {
		case OP_NEG:
		case OP_NOT:
		case OP_BNOT:
		case OP_BOOL:
			if (unary(in->op, v))
				return 0;
			break;
		case OP_AND:
		case OP_OR:
			r = truth(v);
			if (r < 0)
				return 0;
			if (r == (in->op == OP_OR)) {
				/* Decided: the result replaces the operand. */
				v->t = V_INT;
				v->i = r;
				if (in->idx <= pc - 1)
					return 0; /* never backwards */
				pc = in->idx;
			} else {
				sp--;
			}
			break;
		default: /* binary */
			if (sp < 2)
				return 0;
			if (in->op >= OP_EQ && in->op <= OP_GE) {
				r = compare_fast(in->op, &st[sp - 2], v);
				if (r < 0)
					return 0;
				st[sp - 2].t = V_INT;
				st[sp - 2].i = r;
			} else if (bitwise(in->op, &st[sp - 2], v)) {
				return 0;
			}
			sp--;
			break;
		}
	}
	/* LTTng records on a non-zero integer only. */
	return sp == 1 && st[0].t == V_INT && st[0].i != 0;
}
