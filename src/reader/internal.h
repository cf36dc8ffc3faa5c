/* SPDX-License-Identifier: MIT */
/*
 * libtrawl-reader internals, layer 1: the model of a CTF 1.8 trace class
 * (what the TSDL metadata describes). The reader is built in layers, each
 * including only the ones below it:
 *
 *   1. model      internal.h, tsdl_lex.h, tsdl_int.h: tsdl*.c (the TSDL
 *                 parser), resolve.c, metadata.c, fc.c
 *   2. text       text.h: text.c (the output buffer, numbers, babeltrace2's
 *                 escaping and value formats)
 *   3. decoder    stream.h, decode_int.h, decode_fast.h, plan_int.h,
 *                 plan_exec.h, values.h, flat.h: stream_open.c (a stream
 *                 file mapped, its stream class), stream_read.c (packets
 *                 read into a reused window), decode.c (packets, event
 *                 headers), decode_skip.c (decode-only batches), cache.c (the
 *                 decoder's own caches of what it derives from the model),
 *                 and four walkers of a scope: plan.c (flat decode plans, the
 *                 hot path, printing as they decode; plan_text.c runs the
 *                 printed bodies of integers and strings), field.c (the tree walker:
 *                 the reference and the fallback), values.c (fields as a
 *                 tree of values) and flat.c (top-level members as a flat
 *                 list, or read in place through a class's fixed layout)
 *   4. traces     trace.h: trace.c (a folder, its metadata and stream files)
 *   5. reader     reader_int.h: discover.c, reader.c (the merge), seek.c,
 *                 range.c, api.c (accessors), line.c and warn.c (babeltrace2's
 *                 text lines and warnings)
 *   6. live       live_wire.h, live_net.h, live_int.h: live_wire.c (the
 *                 lttng-live replies checked), live_net.c (the socket),
 *                 live_sess.c and live.c (a relay daemon's session as a
 *                 reader's streams, merged as babeltrace2's lttng-live does;
 *                 reader.c calls into it through reader_int.h)
 *
 * tests/reader/layers.py checks that no file includes a layer above its own.
 *
 * The model is data only: what the metadata says, resolved. The parser
 * (tsdl.c) builds a tree of field classes per scope (packet header, packet
 * context, event header, event contexts, payload); named types are deep-
 * copied at each use, so every node has exactly one position in one scope.
 * resolve.c then binds every sequence length and variant tag to the integer
 * node it names and gives that node a "slot": while decoding, the last value
 * read by the node is stored in the stream's slots[slot], so a sequence or
 * variant finds its length or tag with one array load instead of a path
 * walk (the packet header's magic, stream_id and stream_instance_id and the
 * packet context's cpu_id get slots too, for the decoder to read back).
 * resolve.c also decides which fields babeltrace2 shows (fc->shown).
 *
 * Nothing here knows how fields are decoded: the decoder keeps what it
 * derives from the model (decode plans, fast paths, id tables) in its own
 * caches (struct rd_dec, stream.h), built from a trace class it only reads.
 */
#ifndef TRAWL_READER_INTERNAL_H
#define TRAWL_READER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

#define RD_ERR_MAX 512

/* An error message buffer: "FILE: offset N: problem" (first error wins). */
struct rd_err {
	char msg[RD_ERR_MAX];
	int set;
};

void rd_err_set(struct rd_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A new operation starts: its first error will be the one reported. */
static inline void rd_err_clear(struct rd_err *err)
{
	if (__builtin_expect(err->set, 0))
		err->set = 0;
}

enum fc_kind {
	FC_INT,		/* integer or enum (is_enum) */
	FC_FLOAT,
	FC_STRING,
	FC_STRUCT,
	FC_VARIANT,
	FC_ARRAY,
	FC_SEQ,
};

enum fc_meaning {
	M_NONE,
	M_TS_BEGIN,
	M_TS_END,
	M_CONTENT_SIZE,
	M_PACKET_SIZE,
	M_DISCARDED,
	M_SEQ_NUM,
	M_EVENT_ID,
	M_MAGIC,
	M_STREAM_ID,
	M_STREAM_INSTANCE_ID,
	M_UUID,
};

struct clock_class;

struct enum_range {
	int64_t lo, hi;		/* compared as unsigned when the enum is */
	uint32_t label;		/* index into labels */
};

struct fc;

struct member {
	char *name;
	struct fc *fc;
};

/* A variant's choice table: tag ranges -> option index. */
struct var_choice {
	int64_t lo, hi;
	uint32_t option;
};

struct fc {
	enum fc_kind kind;
	uint32_t align;		/* in bits */
	bool shown;		/* printed by the text output (in babeltrace2's IR) */
	bool is_target;		/* a sequence length or variant tag reads it */
	int32_t slot;		/* -1, or where its last value is stored */
	enum fc_meaning meaning;

	/* FC_INT */
	uint32_t size;		/* in bits, 1..64 */
	bool is_signed;
	bool big_endian;
	bool is_enum;
	uint8_t base;		/* 2, 8, 10, 16 */
	uint8_t encoding;	/* 0 none, 1 UTF8/ASCII */
	struct clock_class *map;
	char *map_name;		/* `map = clock.NAME.value`, bound in resolve.c */
	char **labels;		/* enum labels, in order of first appearance */
	uint32_t nlabels;
	struct enum_range *ranges;
	uint32_t nranges;

	/* FC_FLOAT */
	uint32_t exp_dig, mant_dig;

	/* FC_STRUCT, FC_VARIANT */
	struct member *members;
	uint32_t nmembers;

	/* FC_VARIANT tag, FC_SEQ length */
	char *ref_path;
	struct fc *ref;		/* resolved target (not owned) */
	struct var_choice *choices;
	uint32_t nchoices;

	/* FC_ARRAY, FC_SEQ */
	struct fc *elem;
	uint64_t length;	/* FC_ARRAY */
	bool is_text;
};

struct clock_class {
	char *name;
	char *description;
	uint64_t freq;
	uint64_t precision;
	int64_t offset_s;
	int64_t offset;		/* cycles */
	bool absolute;
	bool has_uuid;
	uint8_t uuid[16];
	/* derived */
	int64_t base_offset_ns;
};

struct event_class {
	char *name;
	uint64_t id;
	int64_t loglevel;
	bool has_loglevel;
	char *emf_uri;
	struct fc *context;	/* may be NULL */
	struct fc *payload;	/* may be NULL */
	struct stream_class *sc;
	uint32_t index;		/* in sc->events */
};

struct stream_class {
	uint64_t id;
	struct fc *packet_context;
	struct fc *event_header;
	struct fc *event_context;
	struct event_class **events;
	uint32_t nevents;
	/* small direct table for ids below 256, else linear search */
	struct event_class *by_id[256];
	struct clock_class *clock;	/* default clock, or NULL */
	uint32_t index;			/* in trace_class->streams */
	int32_t slot_cpu_id;		/* packet context cpu_id's slot, or -1 */
};

enum env_type { ENV_STR, ENV_INT };

struct env_entry {
	char *name;
	enum env_type type;
	char *str;
	int64_t i;
};

struct trace_class {
	uint32_t major, minor;
	bool has_uuid;
	uint8_t uuid[16];
	bool big_endian;	/* trace default byte order */
	bool byte_order_set;
	struct fc *packet_header;
	struct stream_class **streams;
	uint32_t nstreams;
	struct clock_class **clocks;
	uint32_t nclocks;
	struct env_entry *env;
	uint32_t nenv;
	uint32_t nslots;
	/* the packet header fields the decoder reads back, or -1 */
	int32_t slot_magic, slot_stream_id, slot_stream_instance_id;
	bool is_lttng;
	char *text;		/* the metadata text, for -o ctf-metadata */
};

/* tsdl.c: parses metadata text (NUL-terminated, @len bytes). */
int tsdl_parse(const char *text, size_t len, const char *path,
	       struct trace_class **out, struct rd_err *err);
void trace_class_destroy(struct trace_class *tc);
const struct env_entry *trace_class_env(const struct trace_class *tc,
					const char *name);
struct event_class *stream_class_event(const struct stream_class *sc,
				       uint64_t id);

/* resolve.c: binds references, assigns slots, computes shown fields. */
int tsdl_resolve(struct trace_class *tc, const char *path, struct rd_err *err);

/* metadata.c: reads a metadata file (plain text or packetized). */
int metadata_read(const char *path, char **text, size_t *len,
		  struct rd_err *err);
/* Same from a buffer (@path names it in errors); *@text is the caller's. */
int metadata_from_buf(const char *path, const unsigned char *buf, size_t blen, char **text,
		      size_t *len, struct rd_err *err);

/* fc helpers (fc.c) */
struct fc *fc_new(enum fc_kind kind);
struct fc *fc_copy(const struct fc *fc);
void fc_destroy(struct fc *fc);
struct fc *fc_struct_member(const struct fc *st, const char *name);

/* clock conversion, babeltrace2's arithmetic */
int64_t clock_ns_from_origin(const struct clock_class *cc, uint64_t cycles,
			     bool *overflow);
void clock_class_finish(struct clock_class *cc);
void clock_class_apply_offset(struct clock_class *cc, int64_t offset_s,
			      int64_t offset_ns);

#endif /* TRAWL_READER_INTERNAL_H */
