/* SPDX-License-Identifier: MIT */
/*
 * export_int.h - what the export formats share: the run (reader, output
 * buffer, file) and each format's three steps.
 */
#ifndef TRAWL_EXPORT_INT_H
#define TRAWL_EXPORT_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <trawl/reader.h>

#include "export.h"

/* The output goes out with write(2) whenever the buffer holds this much. */
#define EXPORT_FLUSH_AT (1u << 20)

struct export_run {
	const struct trawl_export_opts *o;
	struct trawl_reader *r;
	struct trawl_reader_buf out;	/* owned: what is not yet written */
	int fd;
	bool write_failed;
	void *fmt;			/* the format's state, owned by its ops */
};

/*
 * A format: begin() before the first event (allocates ->fmt), event() for
 * each event (the reader's current one), end() after the last (writes what
 * the format writes at the end), destroy() always (frees ->fmt, NULL-safe).
 * begin, event and end return 0 or a negative errno; a failing call of the
 * reader leaves its message in trawl_reader_error().
 */
struct export_ops {
	int (*begin)(struct export_run *x);
	int (*event)(struct export_run *x);
	int (*end)(struct export_run *x);
	void (*destroy)(struct export_run *x);
	bool needs_fields;	/* false: the reader may skip decoding fields */
};

extern const struct export_ops export_jsonl_ops, export_chrome_ops, export_perfetto_ops,
	export_timeline_ops;

/* Writes the buffer out if it holds EXPORT_FLUSH_AT bytes (or @force). 0 or -EIO. */
int export_flush(struct export_run *x, bool force);

#endif /* TRAWL_EXPORT_INT_H */
