/* SPDX-License-Identifier: MIT */
/*
 * babeltrace2's text output (its sink.text.pretty), one event per line:
 * "[HH:MM:SS.nnnnnnnnn] (+S.nnnnnnnnn) host:procname:(vpid) name: " then
 * the packet context, the contexts and the payload as the decoder prints
 * them (plans print while they decode).
 *
 * Local time needs localtime_r(), which is slow; events come in time
 * order, so the "HH:MM:SS." (and date) text is cached per second and made
 * again only when the second changes. What follows the time depends only
 * on the trace, the event class and the options: it is made once per event
 * class and then copied.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "reader/decode_int.h"
#include "reader/reader_int.h"

#define NSEC_PER_SEC 1000000000LL

#define KNOWN_NAMES (TRAWL_READER_TEXT_NAMES_PAYLOAD | TRAWL_READER_TEXT_NAMES_CONTEXT | \
		     TRAWL_READER_TEXT_NAMES_SCOPE | TRAWL_READER_TEXT_NAMES_HEADER)
#define KNOWN_FIELDS 0xffu
#define KNOWN_FLAGS (TRAWL_READER_TEXT_NO_DELTA | TRAWL_READER_TEXT_CLOCK_CYCLES | \
		     TRAWL_READER_TEXT_CLOCK_DATE | TRAWL_READER_TEXT_CLOCK_GMT | \
		     TRAWL_READER_TEXT_CLOCK_SECONDS)

TRAWL_EXPORT void trawl_reader_text_options_init(struct trawl_reader_text_options *o)
{
	memset(o, 0, sizeof(*o));
	o->struct_size = sizeof(*o);
	o->names = TRAWL_READER_TEXT_NAMES_PAYLOAD | TRAWL_READER_TEXT_NAMES_CONTEXT;
	o->fields = TRAWL_READER_TEXT_FIELD_HOSTNAME | TRAWL_READER_TEXT_FIELD_PROCNAME |
		    TRAWL_READER_TEXT_FIELD_VPID;
}

static void line_set(struct rd_line *l, const struct trawl_reader_text_options *o)
{
	l->o = *o;
	l->names_payload = o->names & TRAWL_READER_TEXT_NAMES_PAYLOAD;
	l->names_context = o->names & TRAWL_READER_TEXT_NAMES_CONTEXT;
	l->names_scope = o->names & TRAWL_READER_TEXT_NAMES_SCOPE;
	l->names_header = o->names & TRAWL_READER_TEXT_NAMES_HEADER;
	l->fast = !l->names_header && !l->names_scope &&
		  !(o->flags & (TRAWL_READER_TEXT_NO_DELTA | TRAWL_READER_TEXT_CLOCK_CYCLES |
				TRAWL_READER_TEXT_CLOCK_SECONDS));
	l->cache_valid = false;
	l->cache_fast = false;
	l->tail_ec = NULL;
}

void rd_line_init(struct rd_line *l)
{
	struct trawl_reader_text_options o;

	memset(l, 0, sizeof(*l));
	l->last_ns = UINT64_MAX;
	l->last_cycles = UINT64_MAX;
	l->sub_hi = UINT32_MAX;
	trawl_reader_text_options_init(&o);
	line_set(l, &o);
}

void rd_line_fini(struct rd_line *l)
{
	free(l->tail.buf);
	l->tail.buf = NULL;
}

TRAWL_EXPORT int trawl_reader_set_text_options(struct trawl_reader *r,
					       const struct trawl_reader_text_options *o)
{
	struct trawl_reader_text_options n;

	/* the first version's fields are all a caller may leave out */
	if (o->struct_size < offsetof(struct trawl_reader_text_options, flags) +
			     sizeof(o->flags))
		return -EINVAL;
	trawl_reader_text_options_init(&n);
	memcpy(&n, o, TRAWL_MIN(o->struct_size, sizeof(n)));
	n.struct_size = sizeof(n);
	if ((n.names & ~KNOWN_NAMES) || (n.fields & ~KNOWN_FIELDS) ||
	    (n.flags & ~KNOWN_FLAGS))
		return -EINVAL;
	line_set(&r->line, &n);
	r->text_valid = false;
	return 0;
}

TRAWL_EXPORT void trawl_reader_set_warning_cb(struct trawl_reader *r,
					      trawl_reader_warning_fn fn, void *arg)
{
	r->warn_fn = fn;
	r->warn_arg = arg;
}

static void warn(struct trawl_reader *r, const char *msg)
{
	if (r->warn_fn)
		r->warn_fn(r->warn_arg, msg);
}

/* ---- times ------------------------------------------------------------- */

static void put_seconds(struct rd_text *t, bool neg, uint64_t sec, uint64_t ns)
{
	if (neg)
		rd_text_lit(t, "-");
	rd_text_u64(t, sec);
	rd_text_lit(t, ".");
	rd_text_u64_pad(t, ns, 9);
}

static bool fill_cache(struct rd_line *l, int64_t sec)
{
	struct tm tm;
	time_t ts = (time_t)sec;
	size_t n = 0;

	l->cache_valid = false;	/* until it is made again, whole */
	l->cache_fast = false;
	if (l->o.flags & TRAWL_READER_TEXT_CLOCK_GMT ? !gmtime_r(&ts, &tm) :
						       !localtime_r(&ts, &tm))
		return false;
	if (l->o.flags & TRAWL_READER_TEXT_CLOCK_DATE) {
		n = strftime(l->cache, sizeof(l->cache), "%Y-%m-%d ", &tm);
		if (!n)
			return false;
	}
	n += (size_t)snprintf(l->cache + n, sizeof(l->cache) - n,
			      "%02d:%02d:%02d.", tm.tm_hour, tm.tm_min, tm.tm_sec);
	l->cache_len = n;
	l->cache_sec = sec;
	l->cache_valid = true;
	return true;
}

/* @ns split as babeltrace2 does it, sign case for sign case. */
static bool split_time(int64_t ns, uint64_t *sec_abs, uint64_t *ns_abs)
{
	int64_t sec = ns / NSEC_PER_SEC, rem = ns % NSEC_PER_SEC;

	if (sec >= 0 && rem >= 0) {
		*sec_abs = (uint64_t)sec;
		*ns_abs = (uint64_t)rem;
		return false;
	}
	if (sec > 0 && rem < 0) {
		*sec_abs = (uint64_t)sec - 1;
		*ns_abs = (uint64_t)(NSEC_PER_SEC + rem);
		return false;
	}
	if (sec == 0 && rem < 0) {
		*sec_abs = 0;
		*ns_abs = (uint64_t)-rem;
	} else if (sec < 0 && rem > 0) {
		*sec_abs = (uint64_t)-(sec + 1);
		*ns_abs = (uint64_t)(NSEC_PER_SEC - rem);
	} else if (sec < 0 && rem == 0) {
		*sec_abs = (uint64_t)-sec;
		*ns_abs = 0;
	} else {
		*sec_abs = (uint64_t)-sec;
		*ns_abs = (uint64_t)-rem;
	}
	return true;
}

/* The cached "HH:MM:SS." and the nine digits of @ns_abs. */
static inline void put_cached_time(const struct rd_line *l, struct rd_text *t, uint64_t ns_abs)
{
	if (!rd_text_reserve(t, sizeof(l->cache) + 9))
		return;
	memcpy(t->buf + t->len, l->cache, sizeof(l->cache));	/* whole: a constant size */
	t->len += l->cache_len;
	rd_write_9digits(t->buf + t->len, (uint32_t)ns_abs);
	t->len += 9;
}

void rd_line_time(struct trawl_reader *r, struct rd_text *t, int64_t ns)
{
	struct rd_line *l = &r->line;
	uint64_t sec_abs, ns_abs;
	bool neg;

	/* events come in time order: most are in the second of the one before */
	if (trawl_likely(l->cache_fast && ns >= l->cache_base_ns &&
			 ns - l->cache_base_ns < NSEC_PER_SEC)) {
		put_cached_time(l, t, (uint64_t)(ns - l->cache_base_ns));
		return;
	}
	neg = split_time(ns, &sec_abs, &ns_abs);
	if (l->o.flags & TRAWL_READER_TEXT_CLOCK_SECONDS) {
		put_seconds(t, neg, sec_abs, ns_abs);
		return;
	}
	if (neg && !l->neg_warned) {
		warn(r, "[warning] Fallback to [sec.ns] to print negative time value. Use --clock-seconds.");
		l->neg_warned = true;
		put_seconds(t, neg, sec_abs, ns_abs);
		return;
	}
	if (!l->cache_valid || l->cache_sec != (int64_t)sec_abs) {
		if (!fill_cache(l, (int64_t)sec_abs)) {
			warn(r, "[warning] Unable to get localtime.");
			put_seconds(t, neg, sec_abs, ns_abs);
			return;
		}
	}
	/* a negative time's cache is its absolute value's: not one for the fast path */
	l->cache_fast = !neg && sec_abs <= (uint64_t)INT64_MAX / NSEC_PER_SEC;
	l->cache_base_ns = (int64_t)sec_abs * NSEC_PER_SEC;
	put_cached_time(l, t, ns_abs);
}

TRAWL_EXPORT int trawl_reader_append_time(struct trawl_reader *r, int64_t ns,
					  struct trawl_reader_buf *buf)
{
	struct rd_text t = rd_text_from_buf(buf);
	size_t mark = buf->len;

	rd_line_time(r, &t, ns);
	return rd_text_to_buf(&t, buf, mark);
}

static void put_delta(struct rd_line *l, struct rd_text *t, const struct rd_stream *s)
{
	bool cycles = l->o.flags & TRAWL_READER_TEXT_CLOCK_CYCLES;

	if (l->names_header)
		rd_text_lit(t, ", delta = ");
	else
		rd_text_lit(t, "(");
	if (cycles) {
		if (l->last_cycles == UINT64_MAX) {
			rd_text_lit(t, "+??????????\?\?");
		} else {
			rd_text_lit(t, "+");
			rd_text_u64_pad(t, s->ev_cycles - l->last_cycles, 12);
		}
	} else if (l->last_ns != UINT64_MAX) {
		uint64_t delta = (uint64_t)s->ev_ns - l->last_ns;

		if (delta < NSEC_PER_SEC && rd_text_reserve(t, 12)) {
			/* most deltas: "+0." and nine digits */
			memcpy(t->buf + t->len, "+0.", 3);
			rd_write_9digits(t->buf + t->len + 3, (uint32_t)delta);
			t->len += 12;
		} else {
			rd_text_lit(t, "+");
			rd_text_u64(t, delta / NSEC_PER_SEC);
			rd_text_lit(t, ".");
			rd_text_u64_pad(t, delta % NSEC_PER_SEC, 9);
		}
	} else {
		rd_text_lit(t, "+?.?????????");
	}
	if (!l->names_header)
		rd_text_lit(t, ") ");
}

/* "[time] (+delta) "; false when the stream has no clock (nothing printed). */
static bool put_timestamp(struct trawl_reader *r, struct rd_text *t,
			  const struct rd_stream *s)
{
	struct rd_line *l = &r->line;

	if (!s->sc->clock)
		return false;
	if (l->names_header)
		rd_text_lit(t, "timestamp = ");
	else
		rd_text_lit(t, "[");
	if (l->o.flags & TRAWL_READER_TEXT_CLOCK_CYCLES)
		rd_text_u64_pad(t, s->ev_cycles, 20);
	else
		rd_line_time(r, t, s->ev_ns);
	if (!l->names_header)
		rd_text_lit(t, "] ");
	if (!(l->o.flags & TRAWL_READER_TEXT_NO_DELTA))
		put_delta(l, t, s);
	l->last_ns = (uint64_t)s->ev_ns;
	l->last_cycles = s->ev_cycles;
	return true;
}

/* ---- what follows the time ----------------------------------------------- */

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

/* The trace's fields: "host:procname:(vpid)"; true when something was put. */
static bool put_trace_fields(const struct rd_line *l, struct rd_text *t,
			     const struct rd_trace *tr, bool start_line)
{
	unsigned int f = l->o.fields;
	bool names = l->names_header, dom = false;

	if ((f & TRAWL_READER_TEXT_FIELD_TRACE) && tr->name) {
		if (!start_line)
			rd_text_lit(t, ", ");
		if (names)
			rd_text_lit(t, "trace = ");
		rd_text_str(t, tr->name);
		if (names)
			rd_text_lit(t, ", ");
	}
	if ((f & TRAWL_READER_TEXT_FIELD_HOSTNAME) && tr->hostname) {
		if (!start_line)
			rd_text_lit(t, ", ");
		if (names)
			rd_text_lit(t, "trace:hostname = ");
		rd_text_str(t, tr->hostname);
		dom = true;
	}
	if ((f & TRAWL_READER_TEXT_FIELD_DOMAIN) && tr->domain) {
		field_sep(t, names, start_line, dom, "trace:domain");
		rd_text_str(t, tr->domain);
		dom = true;
	}
	if ((f & TRAWL_READER_TEXT_FIELD_PROCNAME) && tr->procname) {
		field_sep(t, names, start_line, dom, "trace:procname");
		rd_text_str(t, tr->procname);
		dom = true;
	}
	if ((f & TRAWL_READER_TEXT_FIELD_VPID) && tr->has_vpid) {
		field_sep(t, names, start_line, dom, "trace:vpid");
		rd_text_lit(t, "(");
		rd_text_i64(t, tr->vpid);
		rd_text_lit(t, ")");
		dom = true;
	}
	return dom;
}

static void put_tail(const struct rd_line *l, struct rd_text *t,
		     const struct rd_trace *tr, const struct event_class *ec,
		     bool start_line)
{
	unsigned int f = l->o.fields;
	bool names = l->names_header;
	bool dom = put_trace_fields(l, t, tr, start_line);

	if ((f & TRAWL_READER_TEXT_FIELD_LOGLEVEL) && ec->has_loglevel &&
	    ec->loglevel >= 0 &&
	    ec->loglevel < (int64_t)TRAWL_ARRAY_SIZE(loglevel_names)) {
		field_sep(t, names, start_line, dom, "loglevel");
		rd_text_str(t, loglevel_names[ec->loglevel]);
		rd_text_lit(t, " (");
		rd_text_i64(t, ec->loglevel);
		rd_text_lit(t, ")");
		dom = true;
	}
	if ((f & TRAWL_READER_TEXT_FIELD_EMF) && ec->emf_uri) {
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

static void put_header(struct trawl_reader *r, struct rd_text *t,
		       const struct rd_stream *s)
{
	struct rd_line *l = &r->line;
	const struct event_class *ec = s->dev->ec;
	/* the trace fields start the line unless a named timestamp came first */
	bool start_line = !put_timestamp(r, t, s) || !l->names_header;

	if (ec != l->tail_ec || s->trace != l->tail_trace) {
		l->tail.len = 0;
		put_tail(l, &l->tail, s->trace, ec, start_line);
		if (l->tail.oom) {
			l->tail_ec = NULL;
			put_tail(l, t, s->trace, ec, start_line);
			return;
		}
		l->tail_ec = ec;
		l->tail_trace = s->trace;
	}
	rd_text_put(t, l->tail.buf, l->tail.len);
}

/* ---- the line -------------------------------------------------------------- */

/* The packet context and the body, as the line shows them. */
static int put_fields(struct trawl_reader *r, struct rd_text *t, struct rd_stream *s)
{
	const struct rd_line *l = &r->line;
	const struct fc *pc = s->sc->packet_context;
	bool pc_shown = pc && pc->shown;
	struct rd_body_fmt fmt = {
		.sep_first = pc_shown,
		.scope_names = l->names_scope,
		.ctx_names = l->names_context,
		.payload_names = l->names_payload,
	};
	int ret;

	if (pc_shown) {
		ret = rd_stream_pc_text(s, l->names_context, &r->err);
		if (ret)
			return ret;
		if (l->names_scope)
			rd_text_lit(t, "stream.packet.context = ");
		rd_text_put(t, s->pc_text.buf, s->pc_text.len);
	}
	return rd_stream_body(s, t, &fmt, &r->err);
}

/* The current event's stream, or the reason there is none to print. */
static int printable(struct trawl_reader *r, struct rd_stream **s)
{
	rd_err_clear(&r->err);
	*s = r->cur;
	if (!*s)
		return -ENODATA;
	if ((*s)->eager_body)
		return -EPERM;
	return 0;
}

/*
 * The usual line, when its time is in the cached second, its delta under
 * a second, its tail and packet context made: "[", the cached time, the
 * nine digits, "] (+0.", nine digits, ") ", the tail, the packet context,
 * written through one pointer after one reservation (stores through a
 * char pointer would otherwise make the compiler reload t's fields after
 * each), then the body. False when this line is not such a line: nothing
 * was written then.
 */
static inline __attribute__((always_inline)) bool line_fast(struct trawl_reader *r, struct rd_text *t,
							    const struct rd_stream *s)
{
	struct rd_line *l = &r->line;
	const struct fc *pc = s->sc->packet_context;
	const struct rd_text *pct = &s->pc_text;
	uint64_t ns = (uint64_t)s->ev_ns, in_sec = ns - (uint64_t)l->cache_base_ns;
	uint64_t delta = ns - l->last_ns;
	size_t pclen = 0;
	uint32_t hi;
	char *p;

	if (!l->fast || !l->cache_fast || s->ev_ns < l->cache_base_ns || in_sec >= NSEC_PER_SEC ||
	    l->last_ns == UINT64_MAX || delta >= NSEC_PER_SEC || !s->sc->clock ||
	    s->dev->ec != l->tail_ec || s->trace != l->tail_trace)
		return false;
	if (pc && pc->shown) {
		if (s->pc_text_pkt != s->pkt_count || s->pc_text_names != l->names_context)
			return false;
		pclen = pct->len;
	}
	if (!rd_text_reserve(t, 1 + sizeof(l->cache) + 9 + 6 + 9 + 2 + l->tail.len + pclen))
		return false;
	p = t->buf + t->len;
	p[0] = '[';
	memcpy(p + 1, l->cache, sizeof(l->cache));	/* whole: a constant size */
	p += 1 + l->cache_len;
	hi = (uint32_t)in_sec / 10000u;
	if (trawl_unlikely(hi != l->sub_hi)) {
		rd_store8(l->sub_text, rd_swar8(hi) >> 24);	/* "000ddddd": its last 5 */
		l->sub_hi = hi;
	}
	memcpy(p, l->sub_text, 8);
	rd_write_4digits(p + 5, (uint32_t)in_sec - hi * 10000u);
	/* most deltas are under 10 us: "+0.00000" and four digits */
	if (trawl_likely(delta < 10000)) {
		memcpy(p + 9, "] (+0.00000", 11);
		rd_write_4digits(p + 20, (uint32_t)delta);
	} else {
		memcpy(p + 9, "] (+0.", 6);
		rd_write_9digits(p + 15, (uint32_t)delta);
	}
	memcpy(p + 24, ") ", 2);
	p += 26;
	rd_copy(p, l->tail.buf, l->tail.len);
	p += l->tail.len;
	rd_copy(p, pct->buf, pclen);
	t->len = (size_t)(p + pclen - t->buf);
	l->last_ns = ns;
	l->last_cycles = s->ev_cycles;
	return true;
}

/* trawl_reader_event_append_line(), inline in trawl_reader_append_lines()'s loop. */
static inline __attribute__((always_inline)) int append_line(struct trawl_reader *r,
							     struct trawl_reader_buf *buf)
{
	struct rd_text t = rd_text_from_buf(buf);
	struct rd_line saved;
	struct rd_stream *s;
	int ret = printable(r, &s);

	if (ret)
		return ret;
	/* the deltas count from the line before, whatever happens to this one */
	saved.last_ns = r->line.last_ns;
	saved.last_cycles = r->line.last_cycles;
	if (trawl_likely(line_fast(r, &t, s))) {
		/* put_fields()'s body, without a scope name (line_fast() has none) */
		const struct fc *pc = s->sc->packet_context;
		unsigned key = RD_BODY_PRINT | (pc && pc->shown ? RD_BODY_SEP_FIRST : 0) |
			       (r->line.names_context ? RD_BODY_CTX_NAMES : 0) |
			       (r->line.names_payload ? RD_BODY_PAYLOAD_NAMES : 0);

		ret = rd_stream_body_text(s, &t, key, &r->err);
	} else {
		put_header(r, &t, s);
		ret = put_fields(r, &t, s);
	}
	if (ret) {
		r->line.last_ns = saved.last_ns;
		r->line.last_cycles = saved.last_cycles;
		buf->data = t.buf;
		buf->cap = t.cap;
		return ret;
	}
	rd_text_lit(&t, "\n");
	return rd_text_to_buf(&t, buf, buf->len);
}

TRAWL_EXPORT int trawl_reader_event_append_line(struct trawl_reader *r,
						struct trawl_reader_buf *buf)
{
	return append_line(r, buf);
}

TRAWL_EXPORT int trawl_reader_append_lines(struct trawl_reader *r, struct trawl_reader_buf *buf,
					   uint64_t max, size_t limit, uint64_t *n)
{
	uint64_t done = 0;
	int ret;

	*n = 0;
	if (!max)
		return -EINVAL;
	for (;;) {
		ret = trawl_reader_next(r);
		if (ret != 1)
			break;
		ret = append_line(r, buf);
		if (ret)
			break;
		ret = 1;
		if (++done == max || buf->len >= limit)
			break;
	}
	*n = done;
	return ret;
}

TRAWL_EXPORT int trawl_reader_event_text(struct trawl_reader *r, const char **text,
					 size_t *len)
{
	struct rd_stream *s;
	int ret = printable(r, &s);

	if (ret)
		return ret;
	if (!r->text_valid) {	/* not asked twice for the same event */
		r->text.len = 0;
		r->text.oom = false;
		ret = put_fields(r, &r->text, s);
		if (!ret && !rd_text_reserve(&r->text, 1))
			ret = -ENOMEM;
		if (ret)
			return ret;
		r->text.buf[r->text.len] = '\0';
		r->text_valid = true;
	}
	*text = r->text.buf;
	*len = r->text.len;
	return 0;
}
