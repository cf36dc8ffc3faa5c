/* SPDX-License-Identifier: MIT */
/*
 * libtrawl-reader: read CTF 1.8 traces (trawl's, LTTng's, barectf's...).
 *
 * Open one or more paths; every folder below them holding a `metadata` file
 * is a trace. Events of all streams of all traces come out merged in time
 * order, as babeltrace2 orders them. Everything read from disk is untrusted:
 * a malformed trace gives an error naming the file, the offset and the
 * problem (trawl_reader_error()), never a crash.
 *
 *	struct trawl_reader *r;
 *	const char *paths[] = { "/path/to/trace" };
 *	if (trawl_reader_open(paths, 1, &r) < 0) { ... }
 *	while ((ret = trawl_reader_next(r)) > 0)
 *		printf("%s\n", trawl_reader_event_name(r));
 *	if (ret < 0) fprintf(stderr, "%s\n", trawl_reader_error(r));
 *	trawl_reader_destroy(r);
 *
 * Not thread-safe: one reader is used by one thread at a time.
 */
#ifndef TRAWL_READER_H
#define TRAWL_READER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct trawl_reader;

/*
 * trawl_reader_open - finds the traces under @paths (@npaths of them) and
 * opens them. On success *@out is a reader the caller frees with
 * trawl_reader_destroy(). On error returns a negative errno; if *@out is
 * not NULL it holds the error message (trawl_reader_error()) and must be
 * destroyed too.
 */
int trawl_reader_open(const char *const *paths, size_t npaths,
		      struct trawl_reader **out);

/* trawl_reader_destroy - closes every file and frees @r (NULL is fine). */
void trawl_reader_destroy(struct trawl_reader *r);

/* The last error as one line ("FILE: offset N: problem"), or "". */
const char *trawl_reader_error(const struct trawl_reader *r);

/*
 * trawl_reader_next - moves to the next event in time order. Returns 1 when
 * an event is current, 0 at the end, a negative errno on error.
 */
int trawl_reader_next(struct trawl_reader *r);

/* The current event's name (borrowed, valid until the next call). */
const char *trawl_reader_event_name(const struct trawl_reader *r);

/*
 * The current event's time in ns from the Epoch (the clock's origin). Returns
 * 0, or -ENODATA if its stream has no clock.
 */
int trawl_reader_event_time_ns(const struct trawl_reader *r, int64_t *ns);

/*
 * trawl_reader_event_text - decodes the current event's fields and returns
 * them as babeltrace2 prints them ("{ cpu_id = 0 }, { a = 1, s = \"x\" }"),
 * in a buffer owned by @r, valid until the next call. Returns 0 or a
 * negative errno.
 */
int trawl_reader_event_text(struct trawl_reader *r, const char **text,
			    size_t *len);

/*
 * trawl_reader_seek_ns - positions the reader so that the next event is the
 * first one at or after @ns (ns from the Epoch). Uses the packet index files
 * when present, else a binary search over packet contexts.
 */
int trawl_reader_seek_ns(struct trawl_reader *r, int64_t ns);

#ifdef __cplusplus
}
#endif

#endif /* TRAWL_READER_H */
