/* SPDX-License-Identifier: MIT */
/*
 * ctf_stream.h - the event encoder that makes test traces: one stream file
 * (<dir>/<name>) and its index (<dir>/index/<name>.idx), written packet by
 * packet, either from events encoded here or from packets built elsewhere
 * appended as they are. No installed program writes traces this way (the
 * consumers write what the ring buffers and the kernel converter made), so
 * it lives with the tests: the golden babeltrace2 tests of tests/ctf, the
 * sample trace (tests/ctf/sample-trace), fuzz/ctf's seeds and bench/writer.
 * Every packet it writes goes through src/ctf's trawl_ctf_packet_prepare(),
 * the production step, so those tests check what production writes.
 *
 * Errors as in ctf/ctf.h; an event too large for a packet gives -EMSGSIZE.
 */
#ifndef TRAWL_TESTS_CTF_STREAM_H
#define TRAWL_TESTS_CTF_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "ctf/ctf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Stream files                                                       */
/* ------------------------------------------------------------------ */

struct trawl_ctf_stream;

/**
 * trawl_ctf_stream_create - open a stream file and its index
 * @trace: the trace (must outlive the stream)
 * @stream_class_id: a declared stream class
 * @dir: the trace folder (index/ is created inside, mode 0750; files 0640:
 *       traces hold what programs did, not for every user to read)
 * @name: the file name, e.g. "channel0_0"
 * @stream_instance_id: unique per stream in the trace
 * @cpu_id: written in every packet context
 * @packet_size: bytes per packet when encoding events here (at least
 *               4096); packets appended ready-made may have any size
 *
 * Returns NULL with errno on failure. Close with trawl_ctf_stream_close().
 */
struct trawl_ctf_stream *trawl_ctf_stream_create(struct trawl_ctf_trace *trace,
						 uint32_t stream_class_id, const char *dir,
						 const char *name, uint64_t stream_instance_id,
						 uint32_t cpu_id, size_t packet_size);

/**
 * trawl_ctf_stream_close - flush the current packet, close files, free
 * Returns 0 or the first write error met while closing. NULL is a no-op.
 * An event begun and not ended is dropped (and counted as discarded).
 */
int trawl_ctf_stream_close(struct trawl_ctf_stream *s);

/*
 * Encoding events. Between event_begin() and event_end(), write the event
 * context fields (if the stream class has some), then the payload fields, in
 * their declared order, with the writer matching each field's type.
 * write_string() and write_bytes() copy their bytes: the caller's buffer may
 * change as soon as they return.
 *
 * event_begin() fails with -EINVAL for an event id the stream class does not
 * declare.
 *
 * event_end() places the event: in the current packet if it fits, else in a
 * new one. It returns -EMSGSIZE, and counts the event as discarded, if the
 * event cannot fit even in an empty packet. Timestamps must not go backwards
 * within a stream (-ERANGE).
 */
int trawl_ctf_event_begin(struct trawl_ctf_stream *s, uint32_t id, uint64_t timestamp);
/*
 * Marks the end of the event context and the start of the payload, which CTF
 * aligns to the payload struct's alignment. Needed only in streams with an
 * event context (without one, event_begin() already aligned the payload).
 */
int trawl_ctf_event_payload(struct trawl_ctf_stream *s);
/*
 * Aligns to @align_bits. CTF aligns a nested struct to its own alignment (the
 * largest of its minimum and its fields'), and an array or a sequence to its
 * element's, even when it has no element: write_align() there, or readers
 * lose their place (babeltrace2 rejects the packet).
 */
int trawl_ctf_write_align(struct trawl_ctf_stream *s, unsigned align_bits);
/* An integer of @size_bits (1..64), aligned to @align_bits, in byte order @bo. */
int trawl_ctf_write_uint(struct trawl_ctf_stream *s, uint64_t v, unsigned size_bits,
			 unsigned align_bits, enum trawl_ctf_byte_order bo);
int trawl_ctf_write_int(struct trawl_ctf_stream *s, int64_t v, unsigned size_bits,
			unsigned align_bits, enum trawl_ctf_byte_order bo);
int trawl_ctf_write_float(struct trawl_ctf_stream *s, float v, unsigned align_bits,
			  enum trawl_ctf_byte_order bo);
int trawl_ctf_write_double(struct trawl_ctf_stream *s, double v, unsigned align_bits,
			   enum trawl_ctf_byte_order bo);
/* The string and its NUL. */
int trawl_ctf_write_string(struct trawl_ctf_stream *s, const char *str);
/* Raw bytes (e.g. a text array), starting at an @align_bits boundary. */
int trawl_ctf_write_bytes(struct trawl_ctf_stream *s, const void *p, size_t len,
			  unsigned align_bits);
int trawl_ctf_event_end(struct trawl_ctf_stream *s);

/* Counts @n events lost before the next event (reported in the next packet's context). */
void trawl_ctf_stream_add_discarded(struct trawl_ctf_stream *s, uint64_t n);

/*
 * Closes the current packet now (if it holds an event) and writes it out.
 * -EBUSY between event_begin() and event_end().
 */
int trawl_ctf_stream_flush(struct trawl_ctf_stream *s);

/**
 * trawl_ctf_stream_append_packet - write a packet built elsewhere
 * @pkt, @len: a whole packet in the trace's byte order: trawl's packet
 *             header and context (layout.h) then events; @len >= its
 *             content_size / 8
 *
 * Checks the header and context (magic, uuid, stream id, sizes: the packet
 * may come from memory another process wrote), writes only the content
 * (packet_size is rewritten to the content rounded up to a byte, and
 * stream_instance_id to the stream's) and appends the index entry. Returns 0, -EINVAL for a malformed packet, or a write error.
 */
int trawl_ctf_stream_append_packet(struct trawl_ctf_stream *s, const void *pkt, size_t len);

/* Bytes written to the stream file so far. */
uint64_t trawl_ctf_stream_bytes(const struct trawl_ctf_stream *s);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_TESTS_CTF_STREAM_H */
