/* SPDX-License-Identifier: MIT */
/*
 * pb.h - writing protocol buffers straight into a struct trawl_reader_buf.
 *
 * Why hand-written and not protobuf-c: protobuf-c packs a message from a
 * tree of C structs built (and allocated) first, so every event would cost
 * a struct tree and a pack. An export writes millions of small messages
 * once each, in order; here each field is appended as it is known. A nested
 * message gets a 4-byte length slot that is filled when it ends: a varint
 * padded to 4 bytes (0x80 0x80 0x80 0x00 for 0), which every protobuf
 * parser accepts (Perfetto's own protozero writes lengths this way), so no
 * message is ever copied. Nested messages are limited to 2^28 - 1 bytes.
 *
 * Errors: functions return 0 or -ENOMEM (then the buffer holds a part).
 */
#ifndef TRAWL_EXPORT_PB_H
#define TRAWL_EXPORT_PB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <trawl/reader.h>

#include "jsonw.h"

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2 };

static inline int pb_varint(struct trawl_reader_buf *b, uint64_t v)
{
	if (b->cap - b->len < 10 && jsonw_reserve(b, 10))
		return -12;	/* -ENOMEM */
	while (v >= 0x80) {
		b->data[b->len++] = (char)(v | 0x80);
		v >>= 7;
	}
	b->data[b->len++] = (char)v;
	return 0;
}

static inline int pb_tag(struct trawl_reader_buf *b, uint32_t field, int wire)
{
	return pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

/* An integer field (int32, int64, uint32, uint64, bool, enum: all varints). */
static inline int pb_uint(struct trawl_reader_buf *b, uint32_t field, uint64_t v)
{
	return pb_tag(b, field, PB_VARINT) || pb_varint(b, v) ? -12 : 0;
}

static inline int pb_int(struct trawl_reader_buf *b, uint32_t field, int64_t v)
{
	return pb_uint(b, field, (uint64_t)v);	/* negative: ten bytes, as protobuf says */
}

static inline int pb_double(struct trawl_reader_buf *b, uint32_t field, double v)
{
	uint64_t bits;
	int i;

	memcpy(&bits, &v, sizeof(bits));
	if (pb_tag(b, field, PB_I64) || (b->cap - b->len < 8 && jsonw_reserve(b, 8)))
		return -12;
	for (i = 0; i < 8; i++)	/* little-endian, whatever the host */
		b->data[b->len++] = (char)(bits >> (8 * i));
	return 0;
}

static inline int pb_bytes(struct trawl_reader_buf *b, uint32_t field, const void *p, size_t n)
{
	return pb_tag(b, field, PB_LEN) || pb_varint(b, n) || jsonw_raw(b, p, n) ? -12 : 0;
}

static inline int pb_string(struct trawl_reader_buf *b, uint32_t field, const char *s)
{
	return pb_bytes(b, field, s, strlen(s));
}

/*
 * pb_begin - starts nested message @field; *@slot is where its length goes,
 * for pb_end(). pb_end - ends it. Returns 0, -ENOMEM, or -EFBIG (pb_end:
 * longer than 2^28 - 1 bytes).
 */
static inline int pb_begin(struct trawl_reader_buf *b, uint32_t field, size_t *slot)
{
	if (pb_tag(b, field, PB_LEN) || (b->cap - b->len < 4 && jsonw_reserve(b, 4)))
		return -12;
	*slot = b->len;
	b->len += 4;
	return 0;
}

static inline int pb_end(struct trawl_reader_buf *b, size_t slot)
{
	size_t n = b->len - slot - 4;

	if (n >= (1u << 28))
		return -27;	/* -EFBIG */
	b->data[slot] = (char)(n | 0x80);
	b->data[slot + 1] = (char)(n >> 7 | 0x80);
	b->data[slot + 2] = (char)(n >> 14 | 0x80);
	b->data[slot + 3] = (char)(n >> 21);
	return 0;
}

#endif /* TRAWL_EXPORT_PB_H */
