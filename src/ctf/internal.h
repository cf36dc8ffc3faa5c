/* SPDX-License-Identifier: MIT */
/* Internals of trawl-ctf shared by its files. */
#ifndef TRAWL_CTF_INTERNAL_H
#define TRAWL_CTF_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"
#include "ctf/ctf.h"

enum ctf_kind {
	CTF_INTEGER,
	CTF_FLOAT,
	CTF_STRING,
	CTF_ENUM,
	CTF_ARRAY,
	CTF_SEQUENCE,
	CTF_STRUCT,
	CTF_VARIANT,
};

struct ctf_enum_entry {
	char *label;  /* owned */
	int64_t start;
	int64_t end;
};

struct ctf_struct_field {
	char *name;                 /* owned, without the TSDL '_' prefix */
	struct trawl_ctf_type *type; /* owned */
};

struct trawl_ctf_type {
	enum ctf_kind kind;
	unsigned align_bits;
	union {
		struct {
			unsigned size_bits;
			int is_signed;
			unsigned base;
			enum trawl_ctf_byte_order bo;
			int utf8;
			char *clock; /* owned, or NULL */
		} integer;
		struct {
			unsigned size_bits;
			enum trawl_ctf_byte_order bo;
		} flt;
		struct {
			struct trawl_ctf_type *container; /* owned */
			struct ctf_enum_entry *entries;   /* owned array */
			size_t nr, cap;
		} enumeration;
		struct {
			struct trawl_ctf_type *elem; /* owned */
			uint64_t length;
			char *length_field; /* owned; sequences only */
		} array;
		struct {
			struct ctf_struct_field *fields; /* owned array */
			size_t nr, cap;
			char *tag; /* owned; variants only: the tag field's name */
		} strct; /* structs and variants (the options are fields) */
	} u;
};


/*
 * 1 if @name has identifier syntax (keywords allowed): field and length-field
 * names, which TSDL gets with a leading '_' (readers strip it), so "align" or
 * "struct" (tracepoint fields have such names) are safe.
 */
int ctf_name_valid(const char *name);

/* TSDL of a field declaration "<type> _<name>[...];" at @depth tabs. */
void ctf_type_tsdl_field(struct trawl_strbuf *sb, const struct trawl_ctf_type *t, const char *name,
			 int depth);
/* TSDL of a struct's body "{ ... }" (for stream/event scopes). */
void ctf_type_tsdl_struct(struct trawl_strbuf *sb, const struct trawl_ctf_type *t, int depth);

/*
 * The three below serve the tests' event encoder (tests/lib/ctf_stream.c).
 * Alignment in bits of event class @id's payload in stream class @sid
 * (1 if it has no fields), or -EINVAL if undeclared. */
int ctf_trace_event_align(const struct trawl_ctf_trace *t, uint32_t sid, uint32_t id);
/* Alignment of stream class @sid's event context, 0 if it has none. */
unsigned ctf_trace_context_align(const struct trawl_ctf_trace *t, uint32_t sid);

/* The event header kind of stream class @id, or -EINVAL if undeclared. */
int ctf_trace_stream_kind(const struct trawl_ctf_trace *t, uint32_t id);

#endif /* TRAWL_CTF_INTERNAL_H */
