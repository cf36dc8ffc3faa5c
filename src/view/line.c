/* SPDX-License-Identifier: MIT */
/*
 * The start of an event line, as babeltrace2's sink.text.pretty prints it:
 * "[HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) host:procname:(vpid) name: ".
 *
 * Local time needs localtime_r(), which is slow; events come in time order,
 * so the "HH:MM:SS" (and date) text is cached per second and rebuilt only
 * when the second changes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "view/view_int.h"

#define NSEC_PER_SEC 1000000000LL

void line_state_init(struct line_state *ls, const struct view_opts *o)
{
	memset(ls, 0, sizeof(*ls));
	ls->o = o;
	ls->last_ns = UINT64_MAX;
	ls->last_cycles = UINT64_MAX;
}

static void put_seconds(struct rd_text *t, bool neg, uint64_t sec, uint64_t ns)
{
	if (neg)
		rd_text_lit(t, "-");
	rd_text_u64(t, sec);
	rd_text_lit(t, ".");
	rd_text_u64_pad(t, ns, 9);
}

static bool fill_cache(struct line_state *ls, int64_t sec)
{
	struct tm tm;
	time_t ts = (time_t)sec;
	size_t n = 0;

	if (ls->o->clock_gmt ? !gmtime_r(&ts, &tm) : !localtime_r(&ts, &tm))
		return false;
	if (ls->o->clock_date) {
		n = strftime(ls->cache, sizeof(ls->cache), "%Y-%m-%d ", &tm);
		if (!n)
			return false;
	}
	n += (size_t)snprintf(ls->cache + n, sizeof(ls->cache) - n,
			      "%02d:%02d:%02d.", tm.tm_hour, tm.tm_min, tm.tm_sec);
	ls->cache_len = n;
	ls->cache_sec = sec;
	ls->cache_valid = true;
	return true;
}

void line_time(struct line_state *ls, struct rd_text *t, int64_t ts_nsec)
{
	int64_t ts_sec = ts_nsec / NSEC_PER_SEC;
	int64_t rem = ts_nsec % NSEC_PER_SEC;
	uint64_t sec_abs, ns_abs;
	bool neg;

	/* babeltrace2's sign handling, case for case */
	if (ts_sec >= 0 && rem >= 0) {
		neg = false;
		sec_abs = (uint64_t)ts_sec;
		ns_abs = (uint64_t)rem;
	} else if (ts_sec > 0 && rem < 0) {
		neg = false;
		sec_abs = (uint64_t)ts_sec - 1;
		ns_abs = (uint64_t)(NSEC_PER_SEC + rem);
	} else if (ts_sec == 0 && rem < 0) {
		neg = true;
		sec_abs = 0;
		ns_abs = (uint64_t)-rem;
	} else if (ts_sec < 0 && rem > 0) {
		neg = true;
		sec_abs = (uint64_t)-(ts_sec + 1);
		ns_abs = (uint64_t)(NSEC_PER_SEC - rem);
	} else if (ts_sec < 0 && rem == 0) {
		neg = true;
		sec_abs = (uint64_t)-ts_sec;
		ns_abs = 0;
	} else {
		neg = true;
		sec_abs = (uint64_t)-ts_sec;
		ns_abs = (uint64_t)-rem;
	}
	if (!ls->o->clock_seconds) {
		if (neg && !ls->neg_warned) {
			fprintf(stderr, "[warning] Fallback to [sec.ns] to print negative time value. Use --clock-seconds.\n");
			ls->neg_warned = true;
			put_seconds(t, neg, sec_abs, ns_abs);
			return;
		}
		if (!ls->cache_valid || ls->cache_sec != (int64_t)sec_abs) {
			if (!fill_cache(ls, (int64_t)sec_abs)) {
				fprintf(stderr, "[warning] Unable to get localtime.\n");
				put_seconds(t, neg, sec_abs, ns_abs);
				return;
			}
		}
		rd_text_put(t, ls->cache, ls->cache_len);
		rd_text_u64_pad(t, ns_abs, 9);
		return;
	}
	put_seconds(t, neg, sec_abs, ns_abs);
}

static void print_timestamp(struct line_state *ls, struct rd_text *t,
			    const struct rd_stream *s, bool *start_line)
{
	const struct view_opts *o = ls->o;
	bool names = o->names_header;

	if (!s->sc->clock)
		return;
	if (names)
		rd_text_lit(t, "timestamp = ");
	else
		rd_text_lit(t, "[");
	if (o->clock_cycles) {
		rd_text_u64_pad(t, s->ev_cycles, 20);
	} else {
		line_time(ls, t, s->ev_ns);
	}
	if (!names)
		rd_text_lit(t, "] ");
	if (!o->no_delta) {
		if (names)
			rd_text_lit(t, ", delta = ");
		else
			rd_text_lit(t, "(");
		if (o->clock_cycles) {
			if (ls->last_cycles == UINT64_MAX) {
				rd_text_lit(t, "+??????????\?\?");
			} else {
				rd_text_lit(t, "+");
				rd_text_u64_pad(t, s->ev_cycles - ls->last_cycles, 12);
			}
		} else if (ls->last_ns != UINT64_MAX) {
			uint64_t delta = (uint64_t)s->ev_ns - ls->last_ns;

			rd_text_lit(t, "+");
			rd_text_u64(t, delta / NSEC_PER_SEC);
			rd_text_lit(t, ".");
			rd_text_u64_pad(t, delta % NSEC_PER_SEC, 9);
		} else {
			rd_text_lit(t, "+?.?????????");
		}
		if (!names)
			rd_text_lit(t, ") ");
	}
	ls->last_ns = (uint64_t)s->ev_ns;
	ls->last_cycles = s->ev_cycles;
	*start_line = !names;
}

static const char *const loglevel_names[] = {
	"TRACE_EMERG", "TRACE_ALERT", "TRACE_CRIT", "TRACE_ERR",
	"TRACE_WARNING", "TRACE_NOTICE", "TRACE_INFO", "TRACE_DEBUG_SYSTEM",
	"TRACE_DEBUG_PROGRAM", "TRACE_DEBUG_PROCESS", "TRACE_DEBUG_MODULE",
	"TRACE_DEBUG_UNIT", "TRACE_DEBUG_FUNCTION", "TRACE_DEBUG_LINE",
	"TRACE_DEBUG",
};

/* One "trace:xxx" header field: ", " unless first, name or ':' separator. */
static void field_sep(struct rd_text *t, bool names, bool start_line,
		      bool dom_print, const char *name)
{
	if (!start_line)
		rd_text_lit(t, ", ");
	if (names) {
		rd_text_str(t, name);
		rd_text_lit(t, " = ");
	} else if (dom_print) {
		rd_text_lit(t, ":");
	}
}

/*
 * What follows the timestamp depends only on the trace, the event class
 * and the options: it is built once per event class and then copied.
 */
static void header_tail(struct line_state *ls, struct rd_text *t,
			const struct rd_stream *s, bool start_line)
{
	const struct view_opts *o = ls->o;
	const struct rd_trace *tr = s->trace;
	const struct event_class *ec = s->dev->ec;
	bool names = o->names_header, dom = false;
	if (o->f_trace && tr->name) {
		if (!start_line)
			rd_text_lit(t, ", ");
		if (names)
			rd_text_lit(t, "trace = ");
		rd_text_str(t, tr->name);
		if (names)
			rd_text_lit(t, ", ");
	}
	if (o->f_hostname && tr->hostname) {
		if (!start_line)
			rd_text_lit(t, ", ");
		if (names)
			rd_text_lit(t, "trace:hostname = ");
		rd_text_str(t, tr->hostname);
		dom = true;
	}
	if (o->f_domain && tr->domain) {
		field_sep(t, names, start_line, dom, "trace:domain");
		rd_text_str(t, tr->domain);
		dom = true;
	}
	if (o->f_procname && tr->procname) {
		field_sep(t, names, start_line, dom, "trace:procname");
		rd_text_str(t, tr->procname);
		dom = true;
	}
	if (o->f_vpid && tr->has_vpid) {
		field_sep(t, names, start_line, dom, "trace:vpid");
		rd_text_lit(t, "(");
		rd_text_i64(t, tr->vpid);
		rd_text_lit(t, ")");
		dom = true;
	}
	if (o->f_loglevel && ec->has_loglevel && ec->loglevel >= 0 &&
	    ec->loglevel < (int64_t)TRAWL_ARRAY_SIZE(loglevel_names)) {
		field_sep(t, names, start_line, dom, "loglevel");
		rd_text_str(t, loglevel_names[ec->loglevel]);
		rd_text_lit(t, " (");
		rd_text_i64(t, ec->loglevel);
		rd_text_lit(t, ")");
		dom = true;
	}
	if (o->f_emf && ec->emf_uri) {
		field_sep(t, names, start_line, dom, "model.emf.uri");
		rd_text_str(t, ec->emf_uri);
		dom = true;
	}
	if (dom && !names)
		rd_text_lit(t, " ");
	if (!start_line)
		rd_text_lit(t, ", ");
	if (names)
		rd_text_lit(t, "name = ");
	rd_text_str(t, ec->name ? ec->name : "<unknown>");
	if (!names)
		rd_text_lit(t, ": ");
	else
		rd_text_lit(t, ", ");
}

void line_header(struct line_state *ls, struct rd_text *t,
		 const struct rd_stream *s)
{
	bool start_line = true;

	print_timestamp(ls, t, s, &start_line);
	if (s->dev->ec != ls->tail_ec || s->trace != ls->tail_trace) {
		ls->tail.len = 0;
		header_tail(ls, &ls->tail, s, start_line);
		if (ls->tail.oom) {
			ls->tail_ec = NULL;
			header_tail(ls, t, s, start_line);
			return;
		}
		ls->tail_ec = s->dev->ec;
		ls->tail_trace = s->trace;
	}
	rd_text_put(t, ls->tail.buf, ls->tail.len);
}

/* ---- time arguments -------------------------------------------------- */

static int parse_frac(const char *s, int64_t *ns, const char **end)
{
	int digits = 0;
	int64_t v = 0;

	while (*s >= '0' && *s <= '9') {
		if (digits < 9) {
			v = v * 10 + (*s - '0');
			digits++;
		}
		s++;
	}
	if (!digits)
		return -1;
	while (digits++ < 9)
		v *= 10;
	*ns = v;
	*end = s;
	return 0;
}

int view_parse_time(const char *s, bool gmt, int64_t day_ref_ns, int64_t *out)
{
	int y, mo, d, h, mi, sec, n = 0;
	int64_t frac = 0;
	const char *rest;
	struct tm tm;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	if (sscanf(s, "%d-%d-%d %d:%d:%d%n", &y, &mo, &d, &h, &mi, &sec, &n) == 6) {
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
	} else if (sscanf(s, "%d:%d:%d%n", &h, &mi, &sec, &n) == 3) {
		time_t ref = (time_t)(day_ref_ns / NSEC_PER_SEC);

		if (gmt ? !gmtime_r(&ref, &tm) : !localtime_r(&ref, &tm))
			return -1;
	} else {
		/* [-]SEC[.NS] */
		char *end;
		long long v;
		bool neg = s[0] == '-';

		v = strtoll(s, &end, 10);
		if (end == s)
			return -1;
		if (*end == '.') {
			if (parse_frac(end + 1, &frac, &rest) || *rest)
				return -1;
		} else if (*end) {
			return -1;
		}
		*out = v * NSEC_PER_SEC + (neg ? -frac : frac);
		return 0;
	}
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	rest = s + n;
	if (*rest == '.') {
		if (parse_frac(rest + 1, &frac, &rest))
			return -1;
	}
	if (*rest)
		return -1;
	t = gmt ? timegm(&tm) : mktime(&tm);
	if (t == (time_t)-1)
		return -1;
	*out = (int64_t)t * NSEC_PER_SEC + frac;
	return 0;
}
