/* SPDX-License-Identifier: MIT */
/*
 * filter.h - user-space event filters: `trawl enable-event -u NAME --filter EXPR`.
 *
 * Three steps, each one function:
 *
 *   trawl_filter_parse()  text -> program over field *names* (the session
 *                         daemon calls it to check a rule; the app calls it
 *                         on the text the daemon sends with the rule)
 *   trawl_filter_bind()   program + one event's field layout -> a program
 *                         over field *indexes* (the app, once per event and
 *                         filter, when the rule is applied)
 *   trawl_filter_run()    bound program + the event's argument values ->
 *                         record or not (the app, per event, before any
 *                         ring-buffer space is reserved)
 *
 * The language and its values are LTTng 2.13's (filter-internal.h has the
 * details): C expressions over the event's payload fields by name and the
 * context fields $ctx.NAME; integer (decimal, 0x hex, 0 octal), float and
 * string literals ('...' or "...", where an unescaped '*' is a wildcard and
 * "\*" a star); == != < <= > >=; && || !; & | ^ ~ << >> (binding tighter
 * than the comparisons, as in LTTng); unary minus; parentheses; field[N]
 * with a constant N on arrays and sequences. Integers are signed 64-bit
 * values (an unsigned field's bits), ">>" is logical; an integer and a
 * float compare as numbers; enums are their integer values; text arrays
 * and sequences (ctf_*_text) are strings.
 *
 * LTTng's rule for what cannot be evaluated: a field the event does not
 * have, an index out of bounds, a field whose type an operator cannot take
 * (a string with &&, a float with &), a shift by a negative count or by 64
 * bits or more, a float or a string as the filter's value - any of these
 * makes the whole filter false for that event, whatever the rest of it says.
 *
 * Nothing here reads outside the values it is handed: strings are read up
 * to their NUL or their bound, array elements only below the count given
 * with them. The bound program owns copies of everything it needs.
 *
 * All functions are reentrant; a bound program may be run by any number of
 * threads at once (it is read-only).
 */
#ifndef TRAWL_FILTER_H
#define TRAWL_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <trawl/tracepoint.h> /* struct trawl_ust_filter_arg: the argument values */

#define TRAWL_FILTER_MAX_LEN 1023u  /* bytes of expression (the CLI's 1024 with its NUL) */
#define TRAWL_FILTER_MAX_DEPTH 32u  /* nested parentheses and unary operators */
#define TRAWL_FILTER_STACK 64u      /* values the interpreter holds at once */

struct trawl_filter;      /* parsed; opaque */
struct trawl_filter_prog; /* bound to one event; opaque */

struct trawl_filter_error {
	unsigned int column; /* 1-based byte column of the offending token */
	char msg[160];       /* one line: "filter: unexpected ')' at column 14" */
};

/**
 * trawl_filter_parse - check and compile a filter expression
 * @text: NUL-terminated, at most TRAWL_FILTER_MAX_LEN bytes
 * @out: receives the program; free with trawl_filter_destroy()
 * @err: receives the one-line reason on -EINVAL (may be NULL)
 *
 * Returns 0, -EINVAL for a bad expression, -ENOMEM.
 */
int trawl_filter_parse(const char *text, struct trawl_filter **out, struct trawl_filter_error *err);
void trawl_filter_destroy(struct trawl_filter *f); /* NULL is a no-op */

/* The field kinds a bound program can read (an enum is an INT). */
enum trawl_filter_field_kind {
	TRAWL_FILTER_FIELD_INT = 1,
	TRAWL_FILTER_FIELD_FLOAT = 2,
	TRAWL_FILTER_FIELD_STRING = 3,
	TRAWL_FILTER_FIELD_ARRAY = 4,
	TRAWL_FILTER_FIELD_SEQUENCE = 5,
};

/* One field of an event, in payload order: args[i] of trawl_filter_run()
 * holds the value of fields[i]. */
struct trawl_filter_field {
	const char *name;
	uint8_t kind;      /* enum trawl_filter_field_kind */
	uint8_t bits;      /* integer size, or array/sequence element size: 8..64 */
	uint8_t is_signed;
	uint8_t is_text;   /* array/sequence of char meant as text: a string */
	uint8_t big_endian; /* array/sequence elements in network byte order */
};

/**
 * trawl_filter_bind - resolve a program's field names for one event
 * @fields: the event's fields (read during the call only)
 * @out: receives the program; free with trawl_filter_prog_destroy()
 *
 * A name the event lacks (or an index on a field that has none) binds to a
 * program that is always false. Returns 0 or -ENOMEM.
 */
int trawl_filter_bind(const struct trawl_filter *f, const struct trawl_filter_field *fields,
		      unsigned int nr_fields, struct trawl_filter_prog **out);
void trawl_filter_prog_destroy(struct trawl_filter_prog *p); /* NULL is a no-op */

/* 1 if the bound program can never be true (a field the event lacks). */
int trawl_filter_prog_never(const struct trawl_filter_prog *p);

/* Context fields, $ctx.NAME. */
enum trawl_filter_ctx {
	TRAWL_FILTER_CTX_VPID,
	TRAWL_FILTER_CTX_VTID,
	TRAWL_FILTER_CTX_PID,
	TRAWL_FILTER_CTX_TID,
	TRAWL_FILTER_CTX_PPID,
	TRAWL_FILTER_CTX_VPPID,
	TRAWL_FILTER_CTX_PROCNAME,   /* string */
	TRAWL_FILTER_CTX_PTHREAD_ID, /* unsigned */
	TRAWL_FILTER_CTX_CPU_ID,
	TRAWL_FILTER_CTX_PRIO,
	TRAWL_FILTER_CTX_NICE,
	TRAWL_FILTER_CTX_COUNT
};

/*
 * Fills @out with context @ctx's value: integers in i (PTHREAD_ID: its
 * bits), strings as p (need not be NUL-terminated) with n its
 * largest length in bytes. Returns 0, or non-zero when it has no value (the
 * filter is then false).
 */
typedef int (*trawl_filter_ctx_fn)(void *arg, unsigned int ctx, struct trawl_ust_filter_arg *out);

/**
 * trawl_filter_run - evaluate a bound program for one event
 * @args: the event's field values, one per field given to bind (integers
 *        sign- or zero-extended to 64 bits in i, floats in d, strings in p
 *        (NUL-terminated), arrays and sequences as p and n elements)
 * @ctx: context values, asked for only when the filter names one (NULL: none)
 *
 * Returns 1 to record the event, 0 not to. Never allocates, never blocks.
 */
int trawl_filter_run(const struct trawl_filter_prog *p, const struct trawl_ust_filter_arg *args,
		     trawl_filter_ctx_fn ctx, void *ctx_arg);

#endif /* TRAWL_FILTER_H */
