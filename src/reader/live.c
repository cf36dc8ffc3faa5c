/* SPDX-License-Identifier: MIT */
/*
 * A live reader: trawl_reader_next() over streams that a relay daemon
 * hands out packet by packet (trawl_reader_open_live() in reader.h).
 *
 * The merge is babeltrace2's lttng-live one. Each stream holds one of:
 * an event (its header decoded from the packet it is in), a quiet time
 * (an inactivity beacon: the relay daemon knows the stream holds nothing
 * before it), nothing yet (it must be asked), or its end. An event is
 * returned only when no stream must be asked and it comes first among the
 * events and quiet times of all streams: any stream could otherwise still
 * hold an earlier event. A quiet time that comes first is merged past (it
 * prints nothing) and its stream asked again. When a stream has nothing
 * new (RETRY, or the quiet time it gave already), the relay daemon is
 * asked again after a short sleep (wait_ms), as babeltrace2 does.
 *
 * A stream decodes one packet at a time with the reader's own decoder
 * (decode.c) from a buffer holding just that packet; the stream's state
 * between packets (discarded counts, sequence numbers, clock) carries
 * over, so discarded events are reported as from a file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "reader/live_int.h"

/* How long to wait before asking a relay daemon that had nothing new again. */
#define LIVE_POLL_MS 50u

static void lv_trace_free(struct lv_trace *t)
{
	struct lv_gen *g = t->old, *n;

	for (; g; g = n) {
		n = g->next;
		rd_dec_destroy(g->dec);
		trace_class_destroy(g->tc);
		free(g);
	}
	rd_trace_close(&t->t);
	free(t->md_raw);
	free(t);
}

void rd_live_destroy(struct rd_live *l)
{
	size_t i;

	if (!l)
		return;
	if (l->c.fd >= 0 && !l->failed)
		for (i = 0; i < l->nsess; i++)
			if (!l->sess[i]->closed && lv_detach(&l->c, l->sess[i]->id))
				break;
	lv_conn_close(&l->c);
	for (i = 0; i < l->nstreams; i++) {
		if (l->streams[i]->opened)
			rd_stream_close(&l->streams[i]->s);
		free(l->streams[i]->pkt);
		free(l->streams[i]);
	}
	for (i = 0; i < l->ntraces; i++)
		lv_trace_free(l->traces[i]);
	for (i = 0; i < l->nsess; i++)
		free(l->sess[i]);
	free(l->streams);
	free(l->traces);
	free(l->sess);
	free(l);
}

void rd_live_set_clock_offset(struct rd_live *l, int64_t seconds, int64_t ns)
{
	l->off_s = seconds;
	l->off_ns = ns;
}

TRAWL_EXPORT int trawl_reader_live_time(const struct trawl_reader *r, int64_t *ns)
{
	if (!r->live || !r->live->have_last)
		return -ENODATA;
	*ns = r->live->last_ns;
	return 0;
}

TRAWL_EXPORT void trawl_reader_set_idle_cb(struct trawl_reader *r, trawl_reader_idle_fn fn,
					   void *arg)
{
	r->idle_fn = fn;
	r->idle_arg = arg;
}

/* A reader with a live state not connected yet. */
static int live_create(struct trawl_reader **out)
{
	struct trawl_reader *r = calloc(1, sizeof(*r));

	*out = r;
	if (!r)
		return -ENOMEM;
	r->begin_ns = INT64_MIN;
	r->end_ns = INT64_MAX;
	r->cb.discarded = rd_reader_on_discarded;
	r->cb.arg = r;
	rd_line_init(&r->line);
	r->live = calloc(1, sizeof(*r->live));
	if (!r->live)
		return -ENOMEM;
	r->live->c.fd = -1;
	r->live->wait_ms = LIVE_POLL_MS;
	return 0;
}

int rd_live_open_fd(int fd, const char *hostname, const char *session, unsigned int wait_ms,
		    struct trawl_reader **out)
{
	struct trawl_reader *r;
	int ret = live_create(out);

	r = *out;
	if (ret) {
		close(fd);
		return ret;
	}
	r->live->wait_ms = wait_ms;
	if (trawl_path_fmt(r->live->url.hostname, sizeof(r->live->url.hostname), "%s", hostname) ||
	    trawl_path_fmt(r->live->url.session, sizeof(r->live->url.session), "%s", session)) {
		rd_err_set(&r->err, "host name '%s' or session name '%s' too long", hostname,
			   session);
		close(fd);
		return -ENAMETOOLONG;
	}
	ret = lv_conn_adopt(&r->live->c, fd, "(fd)", &r->err);
	return ret ? ret : lv_attach_all(r);
}

TRAWL_EXPORT int trawl_reader_open_live(const char *url, struct trawl_reader **out)
{
	struct trawl_reader *r;
	const char *why;
	int ret = live_create(out);

	r = *out;
	if (ret)
		return ret;
	if (lv_url_parse(url, &r->live->url, &why)) {
		rd_err_set(&r->err, "bad live URL '%s' (%s)", url, why);
		return -EINVAL;
	}
	if (!r->live->url.session[0]) {
		rd_err_set(&r->err, "live URL '%s' names no session (wanted "
			   "net://HOST[:PORT]/host/HOSTNAME/SESSION)", url);
		return -EINVAL;
	}
	ret = lv_conn_open(&r->live->c, &r->live->url, &r->err);
	if (!ret)
		ret = lv_attach_all(r);
	if (ret == -ENOMEM && !r->err.set)
		rd_err_set(&r->err, "out of memory");
	return ret;
}

/* ---- the merge ----------------------------------------------------------- */

/* The stream whose event or quiet time comes first (NULL: none has either). */
static struct lv_stream *first_stream(const struct rd_live *l)
{
	struct lv_stream *best = NULL;
	int64_t best_ns = 0;

	for (size_t i = 0; i < l->nstreams; i++) {
		struct lv_stream *s = l->streams[i];
		int64_t ns;

		if (s->state == LV_EVENT)
			ns = s->s.ev_ns;
		else if (s->state == LV_QUIET)
			ns = s->quiet_ns;
		else
			continue;
		if (best && (ns > best_ns || (ns == best_ns && (s->state == LV_QUIET ||
		    (best->state == LV_EVENT && rd_stream_cmp(&s->s, &best->s) >= 0)))))
			continue;
		best = s;
		best_ns = ns;
	}
	return best;
}

static bool all_ended(const struct rd_live *l)
{
	for (size_t i = 0; i < l->nsess; i++)
		if (!l->sess[i]->closed || l->sess[i]->nstreams)
			return false;
	return true;
}

static void nap(struct trawl_reader *r)
{
	struct timespec ts = { 0, (long)r->live->wait_ms * 1000000L };

	if (r->idle_fn)
		r->idle_fn(r->idle_arg);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The stream of the event just returned moves to its next event header. */
static int advance(struct trawl_reader *r)
{
	struct rd_stream *rs = r->cur;
	struct lv_stream *s = (struct lv_stream *)(void *)rs;	/* s is its first member */
	int ret;

	r->cur = NULL;
	if (rs->body_pending) {
		ret = rd_stream_body(rs, NULL, NULL, &r->err);
		if (ret < 0)
			return ret;
	}
	ret = rd_stream_next(rs, &r->cb, &r->err);
	if (ret < 0)
		return ret;
	s->state = ret ? LV_EVENT : LV_NEED_INDEX;
	return 0;
}

/*
 * Merged past @s's quiet time or event: a time before what was merged past
 * already would put lines out of order (babeltrace2 stops there too).
 */
static int monotonic(struct trawl_reader *r, struct lv_stream *s, int64_t ns)
{
	struct rd_live *l = r->live;

	if (l->have_last && ns < l->last_ns) {
		rd_err_set(&r->err, "relay daemon at %s: %s: data at %" PRId64 " ns came after "
			   "the merge went past %" PRId64 " ns (the relay daemon said the "
			   "stream was quiet)", l->c.where, s->name, ns, l->last_ns);
		return -EPROTO;
	}
	l->last_ns = ns;
	l->have_last = true;
	return 0;
}

static int live_step(struct trawl_reader *r)
{
	struct rd_live *l = r->live;
	struct lv_stream *s;
	unsigned int blocked;
	int ret;

	for (;;) {
		ret = lv_update(r, &blocked);
		if (ret)
			return ret;
		s = blocked ? NULL : first_stream(l);
		if (!s) {
			if (!blocked && all_ended(l))
				return 0;
			nap(r);
			continue;
		}
		if (s->state == LV_QUIET) {
			ret = monotonic(r, s, s->quiet_ns);
			if (ret)
				return ret;
			s->last_quiet_cycles = s->quiet_cycles;
			s->quiet_shown = true;
			s->state = LV_NEED_INDEX;
			if (r->flags & TRAWL_READER_LIVE_QUIET)
				return 2;
			continue;
		}
		ret = monotonic(r, s, s->s.ev_ns);
		if (ret)
			return ret;
		r->cur = &s->s;
		return 1;
	}
}

int rd_live_next(struct trawl_reader *r)
{
	struct rd_live *l = r->live;
	int ret = 0;

	if (l->failed)
		return 0;
	if (r->cur)
		ret = advance(r);
	if (!ret)
		ret = live_step(r);
	if (ret == 2) {		/* a quiet time, no event (TRAWL_READER_LIVE_QUIET) */
		if (r->ndisc)
			rd_reader_discarded_flush(r, l->last_ns);
		return 2;
	}
	if (ret > 0) {
		if (trawl_unlikely(r->ndisc))
			rd_reader_discarded_flush(r, r->cur->ev_ns);
		return 1;
	}
	/* what was lost before the end or the error is still said */
	rd_reader_discarded_flush(r, INT64_MAX);
	r->cur = NULL;
	if (ret < 0) {
		l->failed = true;
		if (ret == -ENOMEM && !r->err.set)
			rd_err_set(&r->err, "out of memory");
	}
	return ret;
}

/* ---- listing ------------------------------------------------------------- */

TRAWL_EXPORT int trawl_reader_live_sessions(const char *url,
					    struct trawl_reader_live_session **out, size_t *n,
					    char *err, size_t errlen)
{
	struct rd_err e = { .set = 0 };
	struct lv_session_info *list = NULL;
	struct trawl_reader_live_session *o = NULL;
	struct lv_conn c;
	struct lv_url u;
	const char *why;
	size_t cnt = 0, i;
	int ret;

	*out = NULL;
	*n = 0;
	if (lv_url_parse(url, &u, &why)) {
		rd_err_set(&e, "bad live URL '%s' (%s)", url, why);
		ret = -EINVAL;
		goto out;
	}
	ret = lv_conn_open(&c, &u, &e);
	if (ret)
		goto out;
	ret = lv_list(&c, &list, &cnt);
	lv_conn_close(&c);
	if (!ret && cnt && !(o = calloc(cnt, sizeof(*o))))
		ret = -ENOMEM;
	for (i = 0; !ret && i < cnt; i++) {
		snprintf(o[i].hostname, sizeof(o[i].hostname), "%s", list[i].hostname);
		snprintf(o[i].name, sizeof(o[i].name), "%s", list[i].name);
		/* the URL as given, then the session: babeltrace2 lists them so */
		snprintf(o[i].url, sizeof(o[i].url), "%.300s/host/%s/%s", url, list[i].hostname,
			 list[i].name);
		o[i].id = list[i].id;
		o[i].live_timer_us = list[i].live_timer_us;
		o[i].streams = list[i].streams;
		o[i].clients = list[i].clients;
	}
	free(list);
	if (!ret) {
		*out = o;
		*n = cnt;
	} else if (ret == -ENOMEM && !e.set) {
		rd_err_set(&e, "out of memory");
	}
out:
	if (err && errlen)
		trawl_msg_fmt(err, errlen, "%s", e.set ? e.msg : "");
	return ret;
}
