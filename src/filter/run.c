/* SPDX-License-Identifier: MIT */
/*
 * run.c - binding a parsed filter to an event's fields, and the interpreter.
 *
 * Binding turns each field name into a typed load of the event's argument
 * array (filter-internal.h), once per (event, filter), so that evaluating an
 * event does no name lookup. The interpreter is a loop over the bound code
 * with a fixed stack (TRAWL_FILTER_STACK values, on the C stack: the parser
 * proved the depth fits). Every run-time problem - a string where a number
 * is needed, an index past the end, an overlong shift - ends the run with
 * "false", LTTng's rule.
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
	if (!fd)
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
		in->b = fd->is_signed ? 1 : 0;
		return 0;
	default:
		return -1;
	}
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
			f.pad = in[1].op == OP_FLT ? 2 : in[1].a ? 1 : 0;
			f.imm = in[1].imm;
			to[i + 1] = to[i + 2] = n;
			p->code[n++] = f;
			i += 2;
			continue;
		}
		if (i + 1 < p->nr_code && is_const(in) && is_cmp(&in[1])) {
			f.op = OP_CMP_TOP;
			f.b = in[1].op;
			f.pad = in->op == OP_FLT ? 2 : in->a ? 1 : 0;
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
	V_S64,
	V_U64,
	V_DBL,
	V_STR, /* s, at most n bytes or up to a NUL */
	V_PAT, /* a literal in pattern form: exactly n bytes; glob: has a wildcard */
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

static int is_int(const struct val *v)
{
	return v->t == V_S64 || v->t == V_U64;
}

static int is_num(const struct val *v)
{
	return v->t <= V_DBL;
}

/* -1, 0, 1; or 2 if unordered (a NaN). Both numbers. */
static int num_cmp(const struct val *a, const struct val *b)
{
	if (a->t == V_DBL || b->t == V_DBL) {
		double x = a->t == V_DBL ? a->d : a->t == V_S64 ? (double)a->i : (double)a->u;
		double y = b->t == V_DBL ? b->d : b->t == V_S64 ? (double)b->i : (double)b->u;

		if (x < y)
			return -1;
		if (x > y)
			return 1;
		return x == y ? 0 : 2;
	}
	if (a->t == b->t) {
		if (a->t == V_S64)
			return a->i < b->i ? -1 : a->i > b->i;
		return a->u < b->u ? -1 : a->u > b->u;
	}
	/* Mixed signedness: compare the mathematical values. */
	if (a->t == V_S64)
		return a->i < 0 ? -1 : ((uint64_t)a->i < b->u ? -1 : (uint64_t)a->i > b->u);
	return b->i < 0 ? 1 : (a->u < (uint64_t)b->i ? -1 : a->u > (uint64_t)b->i);
}

/* Character @*i of a string value, advancing; -1 at its end. Patterns
 * are read unescaped (their wildcards must have been handled). */
static int str_next(const struct val *v, size_t *i)
{
	unsigned char c;

	if (*i >= v->n)
		return -1;
	c = (unsigned char)v->s[*i];
	if (v->t == V_STR) {
		if (!c)
			return -1;
		(*i)++;
		return c;
	}
	if (c == '\\' && *i + 1 < v->n) {
		c = (unsigned char)v->s[*i + 1];
		*i += 2;
		return c;
	}
	(*i)++;
	return c;
}

static int str_cmp(const struct val *a, const struct val *b)
{
	size_t i = 0, j = 0;

	for (;;) {
		int x = str_next(a, &i), y = str_next(b, &j);

		if (x != y)
			return x < y ? -1 : 1;
		if (x < 0)
			return 0;
	}
}

/* LTTng's star glob: @pat's '*' matches any run of characters. Linear in
 * practice; O(len(pat) * len(s)) at worst, with both bounded. */
static int glob_match(const struct val *pat, const struct val *s)
{
	size_t p = 0, i = 0, star_p = 0, star_i = 0;
	int star = 0;

	for (;;) {
		size_t ni = i;
		int c = str_next(s, &ni);

		if (c < 0)
			break;
		if (p < pat->n && pat->s[p] == '*') {
			star = 1;
			star_p = ++p;
			star_i = i;
			continue;
		}
		if (p < pat->n) {
			size_t np = p;
			int pc = str_next(pat, &np);

			if (pc == c) {
				p = np;
				i = ni;
				continue;
			}
		}
		if (!star)
			return 0;
		p = star_p;
		ni = star_i;
		if (str_next(s, &ni) < 0)
			return 0;
		i = star_i = ni;
	}
	while (p < pat->n && pat->s[p] == '*')
		p++;
	return p == pat->n;
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
	} else if (!is_num(a) && !is_num(b)) {
		const struct val *pat = a->t == V_PAT && a->glob ? a : b->t == V_PAT && b->glob ? b : NULL;

		if (pat) {
			const struct val *s = pat == a ? b : a;

			if ((op != OP_EQ && op != OP_NE) || (s->t == V_PAT && s->glob))
				return -1;
			c = glob_match(pat, s) ? 0 : 1;
		} else {
			c = str_cmp(a, b);
		}
	} else {
		return -1;
	}
	return cmp_result(op, c);
}

/* compare(), with the commonest case (two signed integers) inline. */
static inline int compare_fast(enum filter_op op, const struct val *a, const struct val *b)
{
	if (a->t == V_S64 && b->t == V_S64)
		return cmp_result(op, a->i < b->i ? -1 : a->i > b->i);
	return compare(op, a, b);
}

/* 0/1, or -1 for a string. */
static int truth(const struct val *v)
{
	switch (v->t) {
	case V_S64:
	case V_U64:
		return v->u != 0;
	case V_DBL:
		return v->d != 0;
	default:
		return -1;
	}
}

static int load_elem(const struct filter_insn *in, const struct trawl_ust_filter_arg *arg, struct val *v)
{
	const char *p = (const char *)arg->p;
	uint64_t k = in->imm.u;

	if (k >= arg->n || !p)
		return -1;
	p += k * in->a;
	v->t = in->b ? V_S64 : V_U64;
	switch (in->a) {
	case 1: {
		uint8_t x;

		memcpy(&x, p, 1);
		v->u = in->b ? (uint64_t)(int64_t)(int8_t)x : x;
		break;
	}
	case 2: {
		uint16_t x;

		memcpy(&x, p, 2);
		v->u = in->b ? (uint64_t)(int64_t)(int16_t)x : x;
		break;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, p, 4);
		v->u = in->b ? (uint64_t)(int64_t)(int32_t)x : x;
		break;
	}
	default:
		memcpy(&v->u, p, 8);
		break;
	}
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
	} else if (which == TRAWL_FILTER_CTX_PTHREAD_ID) {
		v->t = V_U64;
		v->u = (uint64_t)a.i;
	} else {
		v->t = V_S64;
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
		v->t = V_S64;
		v->i = op == OP_NOT ? !t : t;
		return 0;
	case OP_BNOT:
		if (!is_int(v))
			return -1;
		v->u = ~v->u;
		return 0;
	default: /* OP_NEG */
		if (v->t == V_DBL) {
			v->d = -v->d;
		} else if (v->t == V_S64) {
			if (v->i == INT64_MIN) {
				v->t = V_U64; /* 2^63 */
			} else {
				v->i = -v->i;
			}
		} else if (v->t == V_U64) {
			if (v->u > (uint64_t)INT64_MAX + 1)
				return -1;
			v->t = V_S64;
			v->u = 0 - v->u; /* -(2^63) is INT64_MIN: exact */
		} else {
			return -1;
		}
		return 0;
	}
}

static inline int bitwise(enum filter_op op, struct val *a, const struct val *b)
{
	if (!is_int(a) || !is_int(b))
		return -1;
	switch (op) {
	case OP_BAND: a->u &= b->u; break;
	case OP_BOR: a->u |= b->u; break;
	case OP_BXOR: a->u ^= b->u; break;
	case OP_SHL:
	case OP_SHR:
		if ((b->t == V_S64 && b->i < 0) || b->u > 63)
			return -1;
		if (op == OP_SHL)
			a->u <<= b->u;
		else if (a->t == V_S64 && a->i < 0)
			a->u = ~(~a->u >> b->u); /* arithmetic shift, spelled out */
		else
			a->u >>= b->u;
		return 0;
	default:
		return -1;
	}
	if (b->t == V_U64)
		a->t = V_U64;
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
			if (sp >= (int)TRAWL_FILTER_STACK)
				return 0;
			v = &st[sp++];
			v->glob = 0;
			switch (in->op) {
			case OP_INT:
				v->t = in->a ? V_U64 : V_S64;
				v->u = in->imm.u;
				break;
			case OP_FLT:
				v->t = V_DBL;
				v->d = in->imm.d;
				break;
			case OP_STR:
				v->t = V_PAT;
				v->glob = in->a;
				v->s = p->pool + in->idx;
				v->n = in->len;
				break;
			case OP_CTX:
				if (load_ctx(in->idx, ctx, ctx_arg, v))
					return 0;
				break;
			case OP_LD_S:
				v->t = V_S64;
				v->i = args[in->idx].i;
				break;
			case OP_LD_U:
				v->t = V_U64;
				v->u = (uint64_t)args[in->idx].i;
				break;
			case OP_LD_F:
				v->t = V_DBL;
				v->d = args[in->idx].d;
				break;
			case OP_LD_STR:
				v->t = V_STR;
				v->s = args[in->idx].p ? (const char *)args[in->idx].p : "";
				v->n = SIZE_MAX;
				break;
			case OP_LD_TEXT:
				v->t = V_STR;
				v->s = (const char *)args[in->idx].p;
				v->n = v->s ? (size_t)args[in->idx].n : 0;
				break;
			case OP_LD_ELEM:
				if (load_elem(in, &args[in->idx], v))
					return 0;
				break;
			default: /* OP_NAME: unbound, cannot happen */
				return 0;
			}
			continue;
		}
		if (in->op >= OP_CMP_CONST) { /* fused (fuse()) */
			struct val a, b;

			b.t = in->pad == 2 ? V_DBL : in->pad == 1 ? V_U64 : V_S64;
			b.u = in->imm.u; /* the bits of the constant, whatever its kind */
			if (in->op == OP_CMP_TOP) {
				if (sp < 1)
					return 0;
				v = &st[sp - 1];
				r = compare_fast((enum filter_op)in->b, v, &b);
				if (r < 0)
					return 0;
				v->t = V_S64;
				v->i = r;
				continue;
			}
			if (sp >= (int)TRAWL_FILTER_STACK)
				return 0;
			a.t = in->a == OP_LD_S ? V_S64 : in->a == OP_LD_U ? V_U64 : V_DBL;
			if (a.t == V_DBL)
				a.d = args[in->idx].d;
			else
				a.i = args[in->idx].i;
			v = &st[sp++];
			if (in->op == OP_BIT_CONST) {
				if (bitwise((enum filter_op)in->b, &a, &b))
					return 0;
				v->t = a.t;
				v->u = a.u;
			} else {
				v->t = V_S64;
				v->i = compare_fast((enum filter_op)in->b, &a, &b); /* numbers: 0 or 1 */
			}
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
				v->t = V_S64;
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
				st[sp - 2].t = V_S64;
				st[sp - 2].i = r;
			} else if (bitwise(in->op, &st[sp - 2], v)) {
				return 0;
			}
			sp--;
			break;
		}
	}
	if (sp != 1)
		return 0;
	r = truth(&st[0]);
	return r > 0;
}
