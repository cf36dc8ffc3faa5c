/* SPDX-License-Identifier: MIT */
/*
 * The loads the decoder's fast paths share (decode.c's one event at a
 * time, decode_skip.c's batches): little-endian integers of a size known
 * where they are inlined, the end of a string, the end of a body shaped as
 * struct rd_body_fast.
 */
#ifndef TRAWL_READER_DECODE_FAST_H
#define TRAWL_READER_DECODE_FAST_H

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "reader/stream.h"

static inline uint64_t load_le(const uint8_t *p, unsigned bytes)
{
	uint8_t b8;
	uint16_t b16;
	uint32_t b32;
	uint64_t b64;

	switch (bytes) {
	case 1:
		memcpy(&b8, p, 1);
		return b8;
	case 2:
		memcpy(&b16, p, 2);
		return b16;
	case 4:
		memcpy(&b32, p, 4);
		return b32;
	default:
		memcpy(&b64, p, 8);
		return b64;
	}
}

/*
 * The end of the string at byte @p (bit position just past its NUL), or
 * UINT64_MAX when it has no NUL before @end. @avail bytes are readable.
 * Short strings (most of them) in one or two 16-byte compares (SSE2,
 * x86-64's baseline) or 8-byte words (SWAR), never past the end.
 */
static inline uint64_t string_end(const uint8_t *p, uint64_t pos, uint64_t avail)
{
	const uint8_t *nul = NULL;
	uint64_t k = 0, lim = avail < 64 ? avail : 64;

#ifdef __SSE2__
	for (; k + 16 <= lim; k += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + k));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()));

		if (m) {
			nul = p + k + __builtin_ctz(m);
			break;
		}
	}
#endif
	for (; !nul && k + 8 <= lim; k += 8) {
		uint64_t x, z;

		memcpy(&x, p + k, 8);
		z = (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;
		if (z)
			nul = p + k + (__builtin_ctzll(z) >> 3);
	}
	if (!nul)
		nul = memchr(p + k, 0, avail - k);
	if (!nul)
		return UINT64_MAX;
	return pos + (uint64_t)(nul - p + 1) * 8;
}

/*
 * A body nothing reads, shaped as struct rd_body_fast, from bit @pos of
 * @pkt (content ends at bit @end): the bit position after it, or
 * UINT64_MAX when it does not fit the packet (the plan then reports the
 * error).
 */
static inline uint64_t body_fast_end(const uint8_t *pkt, uint64_t pos, uint64_t end,
				     const struct rd_body_fast *bf)
{
	unsigned i;

	if ((pos & 7) || pos > end)
		return UINT64_MAX;
	for (i = 0; i < bf->nsteps; i++) {
		if (bf->skip[i] > end - pos)
			return UINT64_MAX;
		pos += bf->skip[i];
		if (bf->string[i]) {
			pos = string_end(pkt + (pos >> 3), pos, (end - pos) >> 3);
			if (pos == UINT64_MAX)
				return UINT64_MAX;
		}
	}
	return pos;
}

#endif /* TRAWL_READER_DECODE_FAST_H */
