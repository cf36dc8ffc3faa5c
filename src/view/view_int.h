/* SPDX-License-Identifier: MIT */
/*
 * trawl view internals: options (opts.c) and the main loop (view.c). The
 * view is built on <trawl/reader.h> alone: libtrawl-reader reads the traces
 * and prints babeltrace2's lines; the view parses babeltrace2's options,
 * writes the output, and adds trawl's own --count.
 */
#ifndef TRAWL_VIEW_INT_H
#define TRAWL_VIEW_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <trawl/reader.h>

enum view_output { OUT_TEXT, OUT_DUMMY, OUT_METADATA, OUT_COUNT, OUT_JSON };

struct view_opts {
	enum view_output output;
	/* -n/--names, -f/--fields, --no-delta, --clock-* */
	struct trawl_reader_text_options text;
	bool fields_set;	/* -f given: only the listed fields */
	int64_t clock_offset_s, clock_offset_ns;
	const char *begin, *end;
	bool stream_intersection;
	const char *output_path;
	const char *viewer;
	bool progress;		/* allowed (then only on a terminal) */
	bool live;		/* -i lttng-live: paths[0] is a live URL */
	const char **paths;
	int npaths;
};

/* Parses argv; returns 0, 1 when it printed help/version, or -1 (usage). */
int view_parse_opts(int argc, char **argv, struct view_opts *o);

/* --begin/--end parsing: "[YYYY-MM-DD ]HH:MM:SS[.ns]" or "[-]SEC[.ns]". */
int view_parse_time(const char *s, bool gmt, int64_t day_ref_ns,
		    int64_t *out);

#endif /* TRAWL_VIEW_INT_H */
