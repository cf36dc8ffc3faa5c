/* SPDX-License-Identifier: MIT */
/*
 * export.h - `trawl export` and `trawl timeline`: a trace in other tools'
 * formats, written as it is read (one pass, in time order; what is kept
 * between events is the state of threads and CPUs, never the events).
 */
#ifndef TRAWL_EXPORT_H
#define TRAWL_EXPORT_H

#include <stddef.h>

enum trawl_export_format {
	TRAWL_EXPORT_JSONL,		/* one JSON object per event (jsonw.h) */
	TRAWL_EXPORT_CHROME_JSON,	/* Chrome's Trace Event Format */
	TRAWL_EXPORT_PERFETTO,		/* Perfetto's protobuf trace */
	TRAWL_EXPORT_TIMELINE,		/* one self-contained HTML page */
};

struct trawl_export_opts {
	enum trawl_export_format format;
	const char *const *paths;	/* trace folders (borrowed) */
	size_t npaths;
	const char *output;		/* file to write; NULL: standard output */
	const char *cmd;		/* for messages: "trawl export" */
	size_t detail;			/* timeline: items a level of detail may hold (0: default) */
};

/*
 * trawl_export_format_parse - "jsonl", "chrome-json", "perfetto", "timeline" to *@out.
 * Returns 0 or -EINVAL.
 */
int trawl_export_format_parse(const char *name, enum trawl_export_format *out);

/*
 * trawl_export_run - reads the traces and writes them as @o says. Errors are
 * one line on stderr (discarded events too, as babeltrace2 warns of them).
 * Returns the exit status: 0, or 1 (the output file, if any, is removed
 * unless events were written to standard output).
 */
int trawl_export_run(const struct trawl_export_opts *o);

#endif /* TRAWL_EXPORT_H */
