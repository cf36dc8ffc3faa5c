/* SPDX-License-Identifier: MIT */
/*
 * The TSDL parser's shared state and helpers: tsdl.c parses compound types
 * and declarations, tsdl_scalar.c integers, floats, strings and enums,
 * tsdl_blocks.c the trace/stream/event/clock/env blocks and the top level.
 */
#ifndef TRAWL_READER_TSDL_INT_H
#define TRAWL_READER_TSDL_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "reader/internal.h"
#include "reader/tsdl_lex.h"

#define MAX_DEPTH 64

struct alias {
	char *name;	/* "uint8_t", "struct foo", "enum bar", "variant v" */
	struct fc *fc;
};

struct scope {
	struct alias *a;
	uint32_t n;
	size_t cap;
};

struct parser {
	struct lexer lx;
	const char *path;
	struct rd_err *err;
	struct trace_class *tc;
	struct scope scopes[MAX_DEPTH];
	int nscopes;
	int depth;		/* type nesting, bounded */
	int trace_bo;		/* -1 unknown, 0 le, 1 be */
	struct event_parse *pending;	/* events attached at the end */
	uint32_t npending;
	uint64_t nodes;		/* field class nodes copied so far */
	bool trace_seen;
};

/* A value on the right of `name = value;` */
enum val_kind { V_INT, V_STR, V_PATH };

struct val {
	enum val_kind kind;
	uint64_t u;
	bool neg;	/* V_INT: value is -u */
	char s[256];	/* V_STR, V_PATH */
};


/* errors: "PATH: offset N (line L): what"; return -EINVAL */
int tp_err(struct parser *p, const char *what);
int tp_err_tok(struct parser *p, const char *what);
void tp_next(struct parser *p);
bool tp_is_punct(struct parser *p, int c);
bool tp_is_id(struct parser *p, const char *s);
int tp_expect(struct parser *p, int c);
int tp_scope_push(struct parser *p);
void tp_scope_pop(struct parser *p);
int tp_path_append(struct parser *p, char *buf, size_t cap, bool dot);
int tp_value(struct parser *p, struct val *v);
int tp_val_u64(struct parser *p, const struct val *v, uint64_t *out);
int tp_val_i64(struct parser *p, const struct val *v, int64_t *out);
int tp_val_bool(struct parser *p, const struct val *v, bool *out);
int tp_val_byte_order(struct parser *p, const struct val *v);
int tp_parse_uuid(const char *s, uint8_t out[16]);
struct clock_class *tp_find_clock(struct trace_class *tc, const char *name);
/* a type specifier; the caller owns the result (NULL on error) */
struct fc *tp_type_spec(struct parser *p);
int tp_typealias(struct parser *p);
/* an optional identifier after struct/variant/enum ("" when absent) */
int tp_opt_name(struct parser *p, char *buf, size_t cap);
/* a copy of the named type "KIND NAME" in scope, or NULL with the error set */
struct fc *tp_lookup_copy(struct parser *p, const char *kind, const char *name);
/* makes "KIND NAME" name a copy of @fc in the current scope */
int tp_register_named(struct parser *p, const char *kind, const char *name,
		      const struct fc *fc);
/* tsdl_scalar.c: after the keyword; the caller owns the result (NULL on error) */
struct fc *tp_parse_integer(struct parser *p);
struct fc *tp_parse_float(struct parser *p);
struct fc *tp_parse_string(struct parser *p);
struct fc *tp_parse_enum(struct parser *p);
int tp_typedef(struct parser *p);

#endif /* TRAWL_READER_TSDL_INT_H */
