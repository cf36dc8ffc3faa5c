/* SPDX-License-Identifier: MIT */
/*
 * trawl-ctf: describe and write CTF 1.8 traces.
 *
 * Two objects (a third, for tests, in tests/lib/ctf_stream.h):
 *
 *   struct trawl_ctf_type    a field type (integer, float, string, enum,
 *                            array, sequence, struct). Single owner: a type
 *                            handed to a struct, array, sequence, enum, stream
 *                            class or event class belongs to it from then on,
 *                            *even when the call fails* (so builder chains
 *                            never leak). A type nobody took is freed with
 *                            trawl_ctf_type_destroy().
 *
 *   struct trawl_ctf_trace   the trace's description: byte order, uuid, env,
 *                            clocks, stream classes, event classes; produces
 *                            the TSDL metadata (whole, or what was added since
 *                            the previous call, for metadata that grows while
 *                            tracing).
 *
 * Packets reach stream files through packet.h's trawl_ctf_packet_prepare(),
 * the one step of every writer of trawl's traces (the consumers' output,
 * consumerd/output-stream.c). The event encoder that makes test traces (struct
 * trawl_ctf_stream) is the tests', in tests/lib/ctf_stream.h.
 *
 * Every stream class uses trawl's packet header and packet context
 * (src/ctf/layout.h). Every field is described with an explicit alignment in
 * bits; trawl's own traces use 8 (byte-aligned, no padding).
 *
 * Errors: functions returning int return 0 or a negative errno; functions
 * returning a pointer return NULL and set errno. Invalid names give -EINVAL.
 */
#ifndef TRAWL_CTF_H
#define TRAWL_CTF_H

#include <stddef.h>
#include <stdint.h>

#include "ctf/layout.h"

#ifdef __cplusplus
extern "C" {
#endif

enum trawl_ctf_byte_order {
	TRAWL_CTF_BO_NATIVE = 0, /* the trace's byte order */
	TRAWL_CTF_BO_LE = 1,
	TRAWL_CTF_BO_BE = 2,
	TRAWL_CTF_BO_NETWORK = 3, /* big-endian, printed as "network" in TSDL */
};

/* ------------------------------------------------------------------ */
/* Field types                                                        */
/* ------------------------------------------------------------------ */

struct trawl_ctf_type;

/**
 * trawl_ctf_type_integer_create - an integer type
 * @size_bits: 1 to 64
 * @is_signed: 0 or 1
 * @align_bits: a power of two from 1 to 64 (8 = byte-aligned)
 *
 * Base 10, trace byte order, no encoding, no clock: change them with the
 * setters below before handing the type to a parent. Returns NULL (errno
 * EINVAL) on bad sizes. Free with trawl_ctf_type_destroy() unless a parent
 * takes it.
 */
struct trawl_ctf_type *trawl_ctf_type_integer_create(unsigned size_bits, int is_signed,
						     unsigned align_bits);
/*
 * @base: 2, 8, 10 or 16. Returns 0 or -EINVAL (also when @t is not an integer).
 * An explicit byte order needs a whole-byte size and byte alignment (CTF
 * changes byte order only at byte boundaries): -EINVAL otherwise.
 */
int trawl_ctf_type_integer_set_base(struct trawl_ctf_type *t, unsigned base);
int trawl_ctf_type_integer_set_byte_order(struct trawl_ctf_type *t, enum trawl_ctf_byte_order bo);
/* Marks an 8-bit integer as a UTF-8 code unit (for text arrays and sequences). */
int trawl_ctf_type_integer_set_utf8(struct trawl_ctf_type *t);
/*
 * Maps the integer to a clock's value (@clock_name is copied). The clock must
 * be declared when the type reaches the trace (add_stream_class() or
 * add_event_class() return -EINVAL otherwise).
 */
int trawl_ctf_type_integer_set_clock(struct trawl_ctf_type *t, const char *clock_name);

/* @size_bits: 32 or 64 (IEEE 754 binary32/binary64). Trace byte order. */
struct trawl_ctf_type *trawl_ctf_type_float_create(unsigned size_bits, unsigned align_bits);
int trawl_ctf_type_float_set_byte_order(struct trawl_ctf_type *t, enum trawl_ctf_byte_order bo);

/* A NUL-terminated UTF-8 string (always byte-aligned). */
struct trawl_ctf_type *trawl_ctf_type_string_create(void);

/**
 * trawl_ctf_type_enum_create - an enumeration over @container (an integer
 * type, which the enum takes). Returns NULL (EINVAL) if @container is not an
 * integer; @container is freed then. An enum left without labels is written
 * as its container integer (TSDL has no empty enum).
 */
struct trawl_ctf_type *trawl_ctf_type_enum_create(struct trawl_ctf_type *container);
/**
 * trawl_ctf_type_enum_add - map [@start, @end] (inclusive) to @label
 * @label: any string (it is quoted in TSDL); copied
 *
 * For an unsigned container, pass the values' uint64_t bit patterns.
 * Returns 0, -EINVAL (start > end, or a value outside the container) or -ENOMEM.
 */
int trawl_ctf_type_enum_add(struct trawl_ctf_type *t, const char *label, int64_t start,
			    int64_t end);

/* A static array of @length elements of @elem (taken; any type but an array or sequence). */
struct trawl_ctf_type *trawl_ctf_type_array_create(struct trawl_ctf_type *elem, uint64_t length);

/**
 * trawl_ctf_type_sequence_create - a sequence of @elem (taken)
 * @length_field: the name of an unsigned integer field that comes earlier
 *                in the same struct and holds the element count (copied)
 */
struct trawl_ctf_type *trawl_ctf_type_sequence_create(struct trawl_ctf_type *elem,
						      const char *length_field);

/* A struct whose alignment is at least @min_align_bits (1 = as its fields need). */
struct trawl_ctf_type *trawl_ctf_type_struct_create(unsigned min_align_bits);
/**
 * trawl_ctf_type_struct_add - append field @name of type @field (taken,
 * also on failure) to struct @s. @name: identifier syntax, TSDL keywords
 * included ("align", "struct": tracepoints have such fields), at most 255
 * characters (copied); it is written with a leading '_' in TSDL, which
 * readers strip, as LTTng does. Returns 0, -EINVAL (bad name, duplicate, not
 * a struct, sequence whose length field is missing or not an unsigned
 * integer, variant whose tag field is missing or not an enum) or -ENOMEM.
 * On a variant (trawl_ctf_type_variant_create()), it adds an option.
 */
int trawl_ctf_type_struct_add(struct trawl_ctf_type *s, const char *name,
			      struct trawl_ctf_type *field);

/**
 * trawl_ctf_type_variant_create - a variant chosen by enumeration field
 * @tag_field (copied): an enum field that comes earlier in the same struct,
 * whose labels name the options (TSDL's "variant <_TAG> { ... }", as
 * LTTng-UST describes an application context). Add the options with
 * trawl_ctf_type_struct_add(); the variant is aligned as its options say
 * (8: trawl's byte-aligned layout). Returns NULL (errno EINVAL, ENOMEM).
 */
struct trawl_ctf_type *trawl_ctf_type_variant_create(const char *tag_field);

/* Frees @t and everything it holds. NULL is a no-op. */
void trawl_ctf_type_destroy(struct trawl_ctf_type *t);

/* ------------------------------------------------------------------ */
/* The trace and its metadata                                         */
/* ------------------------------------------------------------------ */

struct trawl_ctf_trace;

enum trawl_ctf_header_kind {
	/* 4 bytes: 5-bit id (31 = extended) + 27-bit timestamp; extended 13 bytes. */
	TRAWL_CTF_HEADER_COMPACT = 0,
	/* 6 bytes: 16-bit id (65535 = extended) + 32-bit timestamp; extended 2 + 4 + 8 = 14 bytes. */
	TRAWL_CTF_HEADER_LARGE = 1,
};

struct trawl_ctf_clock_desc {
	const char *name;        /* identifier, e.g. "monotonic" */
	const char *description; /* or NULL */
	uint64_t freq;           /* Hz; 1000000000 for ns */
	uint64_t precision;      /* in clock cycles */
	int64_t offset_s;        /* seconds from the Epoch at clock value 0 */
	int64_t offset;          /* plus this many cycles */
	int absolute;            /* 1 if comparable across machines */
	/*
	 * 16 bytes, or NULL for the trace's uuid. Readers merge traces only when
	 * their clocks share a uuid: every trace of one machine's boot should
	 * use the boot id (as trawl_ctf_trace_add_monotonic_clock() does).
	 */
	const uint8_t *uuid;
	int no_uuid; /* 1: declare no uuid at all (uuid ignored): a clock no
		      * other is known to be the same as */
};

/**
 * trawl_ctf_trace_create - an empty trace description with a random uuid
 * @big_endian: 0 for a little-endian trace, 1 for big-endian
 * Free with trawl_ctf_trace_destroy().
 */
struct trawl_ctf_trace *trawl_ctf_trace_create(int big_endian);
void trawl_ctf_trace_destroy(struct trawl_ctf_trace *trace);

int trawl_ctf_trace_set_uuid(struct trawl_ctf_trace *trace, const uint8_t uuid[16]);
const uint8_t *trawl_ctf_trace_uuid(const struct trawl_ctf_trace *trace);
int trawl_ctf_trace_big_endian(const struct trawl_ctf_trace *trace);

/* Env entries; @key must be an identifier. -EBUSY once the metadata was emitted. */
int trawl_ctf_trace_env_add_string(struct trawl_ctf_trace *trace, const char *key,
				   const char *value);
int trawl_ctf_trace_env_add_int(struct trawl_ctf_trace *trace, const char *key, int64_t value);

/* Adds a clock (strings copied); the first clock added is the default one. */
int trawl_ctf_trace_add_clock(struct trawl_ctf_trace *trace, const struct trawl_ctf_clock_desc *c);

/**
 * trawl_ctf_trace_add_stream_class - declare stream class @id
 * @kind: the event header
 * @event_context: a struct type (taken) or NULL
 * @clock_name: the clock its timestamps map to (added before)
 *
 * Packet header and packet context are trawl's (layout.h). Returns 0,
 * -EEXIST, -EINVAL or -ENOMEM.
 */
int trawl_ctf_trace_add_stream_class(struct trawl_ctf_trace *trace, uint32_t id,
				     enum trawl_ctf_header_kind kind,
				     struct trawl_ctf_type *event_context, const char *clock_name);

struct trawl_ctf_event_class_desc {
	const char *name;    /* any string, e.g. "provider:event" (quoted in TSDL) */
	uint32_t id;         /* unique in its stream class */
	uint32_t stream_id;
	int loglevel;        /* LTTng's 0 (EMERG) .. 14 (DEBUG), or -1 for none */
	const char *emf_uri; /* model.emf.uri, or NULL */
};

/*
 * Declares an event class; @payload is a struct type (taken) or NULL (no
 * fields). Returns 0, -EINVAL (empty name, unknown stream class, log level
 * out of range, payload not a struct or mapping to an undeclared clock),
 * -EEXIST (id taken) or -ENOMEM.
 */
int trawl_ctf_trace_add_event_class(struct trawl_ctf_trace *trace,
				    const struct trawl_ctf_event_class_desc *d,
				    struct trawl_ctf_type *payload);

/**
 * trawl_ctf_trace_metadata - the whole TSDL text
 * @len: receives the length in bytes (no NUL counted)
 *
 * Returns a NUL-terminated malloc'd string the caller frees, or NULL (errno).
 * Marks everything as emitted (see trawl_ctf_trace_metadata_new()).
 */
char *trawl_ctf_trace_metadata(struct trawl_ctf_trace *trace, size_t *len);

/**
 * trawl_ctf_trace_metadata_new - the TSDL added since the previous call
 *
 * The first call returns the whole text; later calls return the clocks,
 * stream classes and event classes added since (possibly ""), to append to
 * the metadata file of a trace being written. Caller frees.
 */
char *trawl_ctf_trace_metadata_new(struct trawl_ctf_trace *trace, size_t *len);

/**
 * trawl_ctf_metadata_packetize - wrap TSDL text in metadata packets
 * @text, @len: TSDL text
 * @uuid: the trace's uuid; @big_endian: the trace's byte order
 * @out, @out_len: receive a malloc'd buffer the caller frees
 *
 * Packets of at most 4 KiB, magic 0x75D11D57, version 1.8, no compression;
 * each as long as its content (the last one shorter, not padded). Text
 * added later can go in packets of its own, appended (the consumer's
 * metadata file: what is written never changes).
 */
int trawl_ctf_metadata_packetize(const char *text, size_t len, const uint8_t uuid[16],
				 int big_endian, void **out, size_t *out_len);

/* Writes the whole metadata to @path (created 0640 or truncated), plain or packetized. */
int trawl_ctf_trace_write_metadata(struct trawl_ctf_trace *trace, const char *path,
				   int packetized);

/* ------------------------------------------------------------------ */
/* Helpers                                                            */
/* ------------------------------------------------------------------ */

/*
 * 1 if @name is a TSDL identifier that is not a keyword: what clock names and
 * env keys must be. (Field names may also be keywords: see struct_add().)
 */
int trawl_ctf_identifier_valid(const char *name);

/* Reads this boot's id (/proc/sys/kernel/random/boot_id). Returns 0 or -errno. */
int trawl_ctf_boot_id(uint8_t uuid[16]);

/* Fills @uuid with a random (version 4) uuid. Returns 0 or -errno. */
int trawl_ctf_uuid_generate(uint8_t uuid[16]);
/* Formats @uuid as 36 characters plus NUL into @buf. */
void trawl_ctf_uuid_format(const uint8_t uuid[16], char buf[37]);

/**
 * trawl_ctf_clock_offset_measure - CLOCK_REALTIME minus CLOCK_MONOTONIC, in ns
 *
 * Takes the tightest of several samples (the realtime reading with the
 * shortest monotonic window around it).
 */
int64_t trawl_ctf_clock_offset_measure(void);

/*
 * trawl_ctf_clock_offset - the offset traces should declare: the value of
 * $TRAWL_CLOCK_OFFSET_NS when set, else a fresh measurement. A session
 * daemon sets the variable so that every trace it and its consumers write
 * (kernel and user space alike) declares the very same offset: two
 * measurements differ by their jitter, which would misorder events of the
 * two domains that are closer than that.
 */
int64_t trawl_ctf_clock_offset(void);

/*
 * Adds the standard "monotonic" clock: 1 GHz, offset measured now, uuid =
 * this boot's id (/proc/sys/kernel/random/boot_id), so the kernel and
 * user-space traces of a session merge in one view.
 */
int trawl_ctf_trace_add_monotonic_clock(struct trawl_ctf_trace *trace);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_CTF_H */
