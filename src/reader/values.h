/* SPDX-License-Identifier: MIT */
/*
 * An event's fields as values (layer 3, see internal.h), for the public
 * field API: the shown fields of a scope decoded into one array of nodes,
 * a compound's children contiguous (so member i is one index away). Built
 * on demand from the packet's bytes (values.c), valid until the event or
 * packet changes.
 */
#ifndef TRAWL_READER_VALUES_H
#define TRAWL_READER_VALUES_H

#include "reader/stream.h"

/* A node: the public struct trawl_reader_field (opaque to callers). */
struct trawl_reader_field {
	const struct fc *fc;	/* its class (not owned) */
	const char *name;	/* as shown, or NULL (elements, scopes); not owned */
	const struct trawl_reader_field *children;	/* count of them, contiguous */
	const char *str;	/* strings: NUL-terminated, in the packet or the scratch */
	union {
		uint64_t u;	/* integers and enums (sign-extended) */
		double d;	/* floats */
		uint64_t len;	/* strings: bytes before the NUL */
	} v;
	uint32_t count;
	uint32_t first;		/* while decoding: index of the first child */
	uint64_t scratch_off;	/* while decoding: a text array's copy in the scratch */
	uint8_t kind;		/* enum trawl_reader_field_kind */
	bool in_scratch;
};

/* Nodes for up to three scopes (a body: the two contexts, the payload). */
struct rd_values {
	struct trawl_reader_field *nodes;	/* owned */
	uint32_t n;
	size_t cap;
	char *scratch;		/* owned: NUL-terminated copies of text arrays */
	size_t slen, scap;
	const struct trawl_reader_field *roots[3];	/* NULL: nothing shown */
	uint32_t root_node[3];	/* while decoding: their nodes, or UINT32_MAX */
};

/*
 * Decodes @s's current event body (event common context, specific context,
 * payload) into @v->roots[0..2], from the body's start; the stream's
 * position is left after the body, as rd_stream_body() leaves it.
 */
int rd_values_body(struct rd_values *v, struct rd_stream *s, struct rd_err *err);
/* @s's current packet context into @v->roots[0] (@s does not move). */
int rd_values_packet_context(struct rd_values *v, struct rd_stream *s,
			     struct rd_err *err);
void rd_values_fini(struct rd_values *v);

#endif /* TRAWL_READER_VALUES_H */
