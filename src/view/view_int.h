/* SPDX-License-Identifier: MIT */
/*
 * trawl view internals: options (opts.c), the event line printer (line.c)
 * and the main loop (view.c).
 */
#ifndef TRAWL_VIEW_INT_H
#define TRAWL_VIEW_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "reader/reader_int.h"

enum view_output { OUT_TEXT, OUT_DUMMY, OUT_METADATA, OUT_COUNT };

struct view_opts {
	enum view_output output;
	/* -n/--names */
	bool names_payload, names_context, names_scope, names_header;
	/* -f/--fields */
	bool f_trace, f_hostname, f_domain, f_procname, f_vpid, f_loglevel,
	     f_emf, f_callsite;
	bool fields_set;	/* -f given: only the listed fields */
	bool no_delta, clock_cycles, clock_date, clock_gmt, clock_seconds;
	int64_t clock_offset_s, clock_offset_ns;
	const char *begin, *end;
	bool stream_intersection;
	const char *output_path;
	const char *viewer;
	bool progress;		/* allowed (then only on a terminal) */
	const char **paths;
	int npaths;
};

/* Parses argv; returns 0, 1 when it printed help/version, or -1 (usage). */
int view_parse_opts(int argc, char **argv, struct view_opts *o);

/* The state of babeltrace2's pretty printer across events. */
struct line_state {
	const struct view_opts *o;
	uint64_t last_ns, last_cycles;	/* UINT64_MAX until an event printed */
	bool neg_warned;
	/* cached "HH:MM:SS" (or date) for the last second printed */
	int64_t cache_sec;
	bool cache_valid;
	char cache[48];
	size_t cache_len;
	/* the header after the timestamp, for the last event class seen */
	const struct event_class *tail_ec;
	const struct rd_trace *tail_trace;
	struct rd_text tail;
};

void line_state_init(struct line_state *ls, const struct view_opts *o);
/* Appends an event's header ("[time] (+delta) host name: ") to @t. */
void line_header(struct line_state *ls, struct rd_text *t,
		 const struct rd_stream *s);
/* Appends a wall-clock time as babeltrace2 prints it (no update of deltas). */
void line_time(struct line_state *ls, struct rd_text *t, int64_t ns);

/* --begin/--end parsing: "[YYYY-MM-DD ]HH:MM:SS[.ns]" or "[-]SEC[.ns]". */
int view_parse_time(const char *s, bool gmt, int64_t day_ref_ns,
		    int64_t *out);

#endif /* TRAWL_VIEW_INT_H */
