/* SPDX-License-Identifier: MIT */
/*
 * timeline.h - what timeline.c (reading the trace) hands tl_html.c
 * (writing the page).
 */
#ifndef TRAWL_EXPORT_TIMELINE_H
#define TRAWL_EXPORT_TIMELINE_H

#include <stdint.h>

#include "export_int.h"
#include "jsonw.h"
#include "model.h"
#include "tl_lod.h"
#include "tl_str.h"

/* The page's script and style sheet (timeline.js, timeline.css), embedded at build time. */
extern const char tl_asset_js[], tl_asset_css[];
extern const unsigned long tl_asset_js_len, tl_asset_css_len;

struct timeline {
	struct model *m;
	struct tl_lod lod;
	struct tl_str str;
	bool have_origin;
	int64_t origin, last;		/* ns from the Epoch */
	uint64_t events;
	struct tl_lane **cpu_lanes, **cpu_ev_lanes;	/* by CPU, borrowed from lod */
	size_t ncpu_lanes;
	struct tl_lane *global;		/* events with no thread and no CPU */
	struct {			/* counters: (tid, name id) to lane, open addressing */
		int64_t tid;
		uint32_t name;
		struct tl_lane *lane;
	} *ctr;
	size_t nctr, capctr;
	struct trawl_reader_buf det;	/* the current event's fields, as JSON */
	struct jsonw_names *names;	/* owned: field names, escaped once */
	bool det_ok;			/* det holds the current event's */
	/* for the counter callback */
	struct export_run *x;
	const struct model_event *ev;
	int err;
};

/*
 * @ts in ns from the trace's origin: 0 before it (a time of the model from
 * before the first event, or none), and at most 2^61 (times of a hostile
 * trace 2^63 apart would overflow the difference).
 */
static inline int64_t tl_rel(const struct timeline *t, int64_t ts)
{
	uint64_t d = (uint64_t)ts - (uint64_t)t->origin;

	if (ts <= t->origin)
		return 0;
	return d > (UINT64_C(1) << 61) ? INT64_C(1) << 61 : (int64_t)d;
}

/* tl_html_write - the page, into x->out (flushed as it grows). 0 or a negative errno. */
int tl_html_write(struct export_run *x, struct timeline *t);

#endif /* TRAWL_EXPORT_TIMELINE_H */
