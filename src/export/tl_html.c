/* SPDX-License-Identifier: MIT */
/*
 * tl_html.c - writes the timeline page: the style sheet, the trace's data
 * as one JSON document in a <script type="application/json"> element, and
 * the script that draws it (timeline.js). Nothing is fetched when the page
 * is opened: no network, no font, no other file.
 *
 * The data (its reader is timeline.js's load()):
 *   {"v":1, "title", "origin" (ns from the Epoch of time 0), "end" (ns),
 *    "events", "dropped" (levels finer than the first one written),
 *    "strings": [names], "threads": [[tid, pid, name]...],
 *    "lanes": [[kind, id, sub]...] (tl_lane_kind, CPU or tid, counter name),
 *    "levels": [{"shift" (bucket: 2^shift ns), "items": [[lane, [6 numbers
 *    per item]]...], "details": [fields of items]}...]}
 * An item's numbers: its start minus the lane's previous item's start, its
 * duration, then for counters value, lowest, highest, count, and for the
 * others name id, count (negative: of several names), index in "details"
 * (-1: none), and the tid of a CPU's run (else 0).
 *
 * '<' never appears raw: it is written \u003c, so that no text of the
 * trace can end the script element.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsonw.h"
#include "timeline.h"

/* @s (@n bytes of JSON) with each '<' as \u003c. */
static int raw_safe(struct trawl_reader_buf *b, const char *s, size_t n)
{
	const char *lt;

	while ((lt = memchr(s, '<', n))) {
		if (jsonw_raw(b, s, (size_t)(lt - s)) || jsonw_lit(b, "\\u003c"))
			return -ENOMEM;
		n -= (size_t)(lt - s) + 1;
		s = lt + 1;
	}
	return jsonw_raw(b, s, n) ? -ENOMEM : 0;
}

static int str_safe(struct trawl_reader_buf *b, struct trawl_reader_buf *tmp, const char *s)
{
	tmp->len = 0;
	if (jsonw_string(tmp, s, strlen(s)))
		return -ENOMEM;
	return raw_safe(b, tmp->data, tmp->len);
}

/* @s as HTML text. */
static int html_text(struct trawl_reader_buf *b, const char *s)
{
	for (; *s; s++) {
		int ret;

		switch (*s) {
		case '<': ret = jsonw_lit(b, "&lt;"); break;
		case '>': ret = jsonw_lit(b, "&gt;"); break;
		case '&': ret = jsonw_lit(b, "&amp;"); break;
		default: ret = jsonw_raw(b, s, 1); break;
		}
		if (ret)
			return -ENOMEM;
	}
	return 0;
}

static int put_num(struct trawl_reader_buf *b, int64_t v, bool comma)
{
	if (comma && jsonw_lit(b, ","))
		return -ENOMEM;
	if (v < 0) {
		if (jsonw_lit(b, "-"))
			return -ENOMEM;
		return jsonw_u64_plain(b, (uint64_t)-(v + 1) + 1) ? -ENOMEM : 0;
	}
	return jsonw_u64_plain(b, (uint64_t)v) ? -ENOMEM : 0;
}

static int item_nums(struct trawl_reader_buf *b, const struct tl_lane *l, const struct tl_item *it,
		     int64_t prev, int64_t det, bool first)
{
	int64_t n = it->mixed ? -(int64_t)it->n : (int64_t)it->n;

	if (put_num(b, it->t0 - prev, !first) || put_num(b, it->t1 - it->t0, true))
		return -ENOMEM;
	if (l->kind == TL_LANE_CTR)
		return put_num(b, it->v, true) || put_num(b, it->lo, true) ||
			       put_num(b, it->hi, true) || put_num(b, it->n, true) ? -ENOMEM : 0;
	return put_num(b, it->name, true) || put_num(b, n, true) || put_num(b, det, true) ||
		       put_num(b, l->kind == TL_LANE_CPU ? it->v : 0, true) ? -ENOMEM : 0;
}

static int level_items(struct export_run *x, struct timeline *t, int lv)
{
	struct trawl_reader_buf *b = &x->out;
	int64_t det = 0;
	bool first_lane = true;
	size_t i, k;

	if (jsonw_lit(b, "{\"shift\":") || put_num(b, TL_LEVEL_SHIFT(lv), false) ||
	    jsonw_lit(b, ",\"items\":["))
		return -ENOMEM;
	for (i = 0; i < t->lod.nlanes; i++) {
		const struct tl_lane *l = t->lod.lanes[i];
		const struct tl_vec *v = &l->lv[lv];
		int64_t prev = 0;

		if (!v->n)
			continue;
		if (jsonw_raw(b, first_lane ? "\n[" : ",\n[", first_lane ? 2 : 3) ||
		    put_num(b, (int64_t)i, false) ||
		    jsonw_lit(b, ",["))
			return -ENOMEM;
		first_lane = false;
		for (k = 0; k < v->n; k++) {
			const struct tl_item *it = &v->v[k];

			if (item_nums(b, l, it, prev, it->dlen ? det++ : -1, !k))
				return -ENOMEM;
			prev = it->t0;
			if (export_flush(x, false))
				return -EIO;
		}
		if (jsonw_lit(b, "]]"))
			return -ENOMEM;
	}
	return jsonw_lit(b, "],\n\"details\":[") ? -ENOMEM : 0;
}

/* The fields of the level's items, in the order level_items() numbered them. */
static int level_details(struct export_run *x, struct timeline *t, int lv)
{
	struct trawl_reader_buf *b = &x->out;
	const struct trawl_reader_buf *arena = &t->lod.det[lv];
	bool first = true;
	size_t i, k;

	for (i = 0; i < t->lod.nlanes; i++) {
		const struct tl_vec *v = &t->lod.lanes[i]->lv[lv];

		for (k = 0; k < v->n; k++) {
			const struct tl_item *it = &v->v[k];

			if (!it->dlen)
				continue;
			if ((!first && jsonw_lit(b, ",\n")) ||
			    raw_safe(b, arena->data + it->doff, it->dlen))
				return -ENOMEM;
			first = false;
			if (export_flush(x, false))
				return -EIO;
		}
	}
	return jsonw_lit(b, "]}") ? -ENOMEM : 0;
}

static int head(struct export_run *x, struct timeline *t, struct trawl_reader_buf *tmp)
{
	struct trawl_reader_buf *b = &x->out;
	const char *title = x->o->npaths ? x->o->paths[0] : "trace";
	size_t i;

	if (jsonw_lit(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			 "<meta name=\"generator\" content=\"trawl timeline\">"
			 "<title>trawl timeline: ") || html_text(b, title) ||
	    jsonw_lit(b, "</title>\n<style>\n") ||
	    jsonw_raw(b, tl_asset_css, tl_asset_css_len) ||
	    jsonw_lit(b, "</style></head>\n<body>\n"
			 "<script id=\"trawl-data\" type=\"application/json\">\n{\"v\":1,\"title\":") ||
	    str_safe(b, tmp, title) || jsonw_lit(b, ",\"origin\":") ||
	    put_num(b, t->origin, false) || jsonw_lit(b, ",\"end\":") ||
	    put_num(b, tl_rel(t, t->last), false) || jsonw_lit(b, ",\"events\":") ||
	    put_num(b, (int64_t)t->events, false) || jsonw_lit(b, ",\"dropped\":") ||
	    put_num(b, t->lod.finest, false) || jsonw_lit(b, ",\n\"strings\":["))
		return -ENOMEM;
	for (i = 0; i < t->str.n; i++)
		if ((i && jsonw_lit(b, ",")) || str_safe(b, tmp, t->str.s[i]))
			return -ENOMEM;
	if (jsonw_lit(b, "],\n\"threads\":["))
		return -ENOMEM;
	for (i = 0; i < model_thread_count(t->m); i++) {
		const struct model_thread *th = model_thread_at(t->m, i);

		if ((i && jsonw_lit(b, ",")) || jsonw_lit(b, "[") || put_num(b, th->tid, false) ||
		    put_num(b, th->pid, true) || jsonw_lit(b, ",") || str_safe(b, tmp, th->name) ||
		    jsonw_lit(b, "]"))
			return -ENOMEM;
	}
	if (jsonw_lit(b, "],\n\"lanes\":["))
		return -ENOMEM;
	for (i = 0; i < t->lod.nlanes; i++) {
		const struct tl_lane *l = t->lod.lanes[i];

		if ((i && jsonw_lit(b, ",")) || jsonw_lit(b, "[") || put_num(b, l->kind, false) ||
		    put_num(b, l->id, true) || put_num(b, l->sub, true) || jsonw_lit(b, "]"))
			return -ENOMEM;
	}
	return jsonw_lit(b, "],\n\"levels\":[") ? -ENOMEM : 0;
}

int tl_html_write(struct export_run *x, struct timeline *t)
{
	struct trawl_reader_buf *b = &x->out, tmp = {0};
	int lv[TL_LEVELS], n, i, ret;

	ret = head(x, t, &tmp);
	free(tmp.data);
	n = tl_lod_pick(&t->lod, lv);
	for (i = 0; i < n && !ret; i++) {
		if (i && jsonw_lit(b, ",\n"))
			return -ENOMEM;
		ret = level_items(x, t, lv[i]);
		if (!ret)
			ret = level_details(x, t, lv[i]);
	}
	if (ret)
		return ret;
	if (jsonw_lit(b, "]}\n</script>\n<script>\n") ||
	    jsonw_raw(b, tl_asset_js, tl_asset_js_len) ||
	    jsonw_lit(b, "</script>\n</body></html>\n"))
		return -ENOMEM;
	return 0;
}
