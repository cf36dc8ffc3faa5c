/* SPDX-License-Identifier: MIT */
/*
 * trawltop's front ends: options (main.c), batch output (batch.c), the
 * curses UI (ui.c, ui_draw.c) and the live session (live.c).
 */
#ifndef TRAWL_TOP_MAIN_H
#define TRAWL_TOP_MAIN_H

#include "top.h"

struct trawl_top_opts {
	int batch, json;
	long count;		/* -n: intervals to show; 0: all */
	int64_t interval_ns;	/* -d; 0: the whole trace as one interval */
	int view;		/* --view; -1: all (batch) */
	const char *filter;	/* --filter: pid or name */
	const char *sort_key;	/* --sort: a column's key or header */
	size_t rows;		/* --rows: at most this many rows per view; 0: all */
	int begin_set;
	int64_t begin_ns;	/* --begin, ns from the Epoch */
	const char *live;	/* --live URL or session name */
	const char *const *paths;
	size_t npaths;
};

/* Writes @m's interval as the options say (text or JSON). */
int trawl_top_interval_print(struct trawl_top_model *m, const struct trawl_top_opts *o);
/* --batch over a recorded trace. */
int trawl_top_batch_trace(struct trawl_top_source *src, const struct trawl_top_opts *o);
/* The interactive view of a recorded trace (curses). */
int trawl_top_ui_trace(struct trawl_top_source *src, const struct trawl_top_opts *o);

/* trawltop's own kernel session (live.c). */
struct trawl_top_live;

/*
 * Creates and starts the session (*@out, to stop with trawl_top_live_stop(),
 * even on error). On error, @err holds one line saying why.
 */
int trawl_top_live_start(struct trawl_top_live **out, char *err, size_t len);
/* Destroys the session and its folder; frees @l. NULL is fine. */
void trawl_top_live_stop(struct trawl_top_live *l);
/* Reads the events since the previous call into @m as one interval. */
int trawl_top_live_interval(struct trawl_top_live *l, struct trawl_top_model *m, char *err,
			    size_t len);
/* --batch on the live session: -n intervals of -d seconds. */
int trawl_top_batch_live(const struct trawl_top_opts *o);
/* The interactive view of the live session. */
int trawl_top_ui_live(const struct trawl_top_opts *o);
/* The curses UI on a relay daemon's live session (--live URL|SESSION). */
int trawl_top_ui_net(struct trawl_top_source *src, const struct trawl_top_opts *o);

#endif /* TRAWL_TOP_MAIN_H */
