/* SPDX-License-Identifier: MIT */
/*
 * trawl view: the main loop. Events come merged from libtrawl-reader; each
 * line is built in one large output buffer (header, cached packet context,
 * then the contexts and payload printed while they are decoded) and the
 * buffer goes out with write(2) once it holds about 1 MiB. When an event
 * fails to decode, its partial line is dropped, the lines before it are
 * written, and the error is one line on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "view/view.h"
#include "view/view_int.h"

#define FLUSH_AT (1u << 20)
#define PROGRESS_MIN_BYTES (64ull << 20)

struct view {
	struct view_opts o;
	struct trawl_reader *r;
	struct line_state ls;
	struct rd_text out;
	int fd;
	bool write_failed;
	const char *cmd;
	/* --begin/--end, absolute ns */
	bool has_begin, has_end;
	int64_t begin_ns, end_ns;
	/* --stream-intersection, per trace */
	int64_t *isect_begin, *isect_end;
	/* progress */
	bool progress;
	uint64_t total_bytes;
	struct timespec last_progress;
	bool progress_shown;
	/* --count */
	struct count_entry *counts;
	uint32_t ncounts, capcounts;
	uint64_t nevents;
	bool have_span;
	int64_t first_ns, last_ns;
};

struct count_entry {
	const struct event_class *ec;
	uint64_t n;
};

static void out_flush(struct view *v)
{
	size_t off = 0;

	while (off < v->out.len && !v->write_failed) {
		ssize_t n = write(v->fd, v->out.buf + off, v->out.len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (errno != EPIPE)
				fprintf(stderr, "%s: cannot write the output: %s\n",
					v->cmd, strerror(errno));
			v->write_failed = true;
			break;
		}
		off += (size_t)n;
	}
	v->out.len = 0;
}

static void progress_clear(struct view *v)
{
	if (v->progress_shown) {
		fprintf(stderr, "\r\033[K");
		v->progress_shown = false;
	}
}

static void progress_tick(struct view *v, uint64_t events)
{
	struct timespec now;
	uint64_t done = 0;
	uint32_t t, i;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if ((now.tv_sec - v->last_progress.tv_sec) * 1000 +
	    (now.tv_nsec - v->last_progress.tv_nsec) / 1000000 < 250)
		return;
	v->last_progress = now;
	for (t = 0; t < v->r->ntraces; t++)
		for (i = 0; i < v->r->traces[t].nstreams; i++)
			done += v->r->traces[t].streams[i].pkt_off;
	fprintf(stderr, "\r%s: %3u%% (%" PRIu64 " events)", v->cmd,
		(unsigned)(done * 100 / (v->total_bytes ? v->total_bytes : 1)),
		events);
	v->progress_shown = true;
}

static void print_warning_time(struct view *v, struct rd_text *t,
			       const struct rd_stream *s, int64_t ns_or_cycles,
			       bool is_ns)
{
	int64_t ns;

	/* always wall-clock time, even with --clock-cycles, as babeltrace2 */
	if (is_ns)
		ns = ns_or_cycles;
	else if (rd_stream_cycles_to_ns(s, (uint64_t)ns_or_cycles, &ns)) {
		rd_text_lit(t, "Error");
		return;
	}
	line_time(&v->ls, t, ns);
}

static void on_discarded(void *arg, struct rd_stream *s, bool packets,
			 uint64_t count, bool have_range, uint64_t b, uint64_t e)
{
	struct view *v = arg;
	struct rd_text t = { 0 };
	const struct trace_class *tc = s->trace->tc;
	char num[32];

	int64_t bns = 0, ens = 0;
	bool unknown = count == RD_COUNT_UNKNOWN;

	if (unknown)	/* the summary counts what the stream's first packet says */
		count = s->disc;
	if (packets)
		v->r->disc_packets += count;
	else
		v->r->disc_events += count;
	if (v->o.output == OUT_COUNT)
		return;
	bool has_lo = v->has_begin, has_hi = v->has_end;
	int64_t lo = v->begin_ns, hi = v->end_ns;

	if (v->isect_begin) {	/* --stream-intersection trims per trace too */
		int64_t ib = v->isect_begin[s->trace->index];
		int64_t ie = v->isect_end[s->trace->index];

		lo = has_lo && lo > ib ? lo : ib;
		hi = has_hi && hi < ie ? hi : ie;
		has_lo = has_hi = true;
	}
	if (have_range && s->sc->clock &&
	    !rd_stream_cycles_to_ns(s, b, &bns) && !rd_stream_cycles_to_ns(s, e, &ens) &&
	    (has_lo || has_hi)) {
		/* --begin/--end trim the range as babeltrace2's trimmer does */
		if ((has_lo && ens < lo) || (has_hi && bns > hi))
			return;
		if (has_lo && bns < lo) {
			bns = lo;
			unknown = true;
		}
		if (has_hi && ens > hi) {
			ens = hi;
			unknown = true;
		}
	} else if (have_range && s->sc->clock) {
		rd_stream_cycles_to_ns(s, b, &bns);
		rd_stream_cycles_to_ns(s, e, &ens);
	}
	if (unknown) {
		rd_text_lit(&t, "WARNING: Tracer may have discarded ");
		rd_text_str(&t, packets ? "packets" : "events");
	} else {
		rd_text_lit(&t, "WARNING: Tracer discarded ");
		snprintf(num, sizeof(num), "%" PRIu64 " ", count);
		rd_text_str(&t, num);
		rd_text_str(&t, packets ? "packet" : "event");
		if (count != 1)
			rd_text_lit(&t, "s");
	}
	rd_text_lit(&t, " ");
	if (have_range && s->sc->clock) {
		rd_text_lit(&t, "between [");
		print_warning_time(v, &t, s, bns, true);
		rd_text_lit(&t, "] and [");
		print_warning_time(v, &t, s, ens, true);
		rd_text_lit(&t, "]");
	} else {
		rd_text_lit(&t, "(unknown time range)");
	}
	rd_text_lit(&t, " in trace \"");
	rd_text_str(&t, s->trace->name);
	rd_text_lit(&t, "\" ");
	if (tc->has_uuid) {
		char u[64];
		const uint8_t *x = tc->uuid;

		snprintf(u, sizeof(u),
			 "(UUID: %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x) ",
			 x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8],
			 x[9], x[10], x[11], x[12], x[13], x[14], x[15]);
		rd_text_str(&t, u);
	} else {
		rd_text_lit(&t, "(no UUID) ");
	}
	rd_text_lit(&t, "within stream \"");
	rd_text_str(&t, s->stream_name);
	snprintf(num, sizeof(num), "%" PRIu64, s->sc->id);
	rd_text_lit(&t, "\" (stream class ID: ");
	rd_text_str(&t, num);
	snprintf(num, sizeof(num), "%" PRIu64, s->id);
	rd_text_lit(&t, ", stream ID: ");
	rd_text_str(&t, num);
	rd_text_lit(&t, ").\n");
	if (!t.oom) {
		progress_clear(v);
		fwrite(t.buf, 1, t.len, stderr);
	}
	free(t.buf);
}

static int count_event(struct view *v, const struct event_class *ec)
{
	uint32_t i;

	for (i = 0; i < v->ncounts; i++) {
		if (v->counts[i].ec == ec) {
			v->counts[i].n++;
			return 0;
		}
	}
	if (v->ncounts == v->capcounts) {
		uint32_t cap = v->capcounts ? v->capcounts * 2 : 64;
		struct count_entry *c = realloc(v->counts, cap * sizeof(*c));

		if (!c)
			return -ENOMEM;
		v->counts = c;
		v->capcounts = cap;
	}
	v->counts[v->ncounts].ec = ec;
	v->counts[v->ncounts].n = 1;
	v->ncounts++;
	return 0;
}

static int cmp_count(const void *a, const void *b)
{
	const struct count_entry *x = a, *y = b;
	const char *nx = x->ec->name ? x->ec->name : "";
	const char *ny = y->ec->name ? y->ec->name : "";

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(nx, ny);
}

static void print_count(struct view *v)
{
	struct rd_text *t = &v->out;
	uint32_t i, j, n = 0;
	char line[512];

	/* merge classes with the same name (several streams or traces) */
	for (i = 0; i < v->ncounts; i++) {
		for (j = 0; j < n; j++) {
			const char *a = v->counts[j].ec->name ? v->counts[j].ec->name : "";
			const char *b = v->counts[i].ec->name ? v->counts[i].ec->name : "";

			if (!strcmp(a, b)) {
				v->counts[j].n += v->counts[i].n;
				break;
			}
		}
		if (j == n)
			v->counts[n++] = v->counts[i];
	}
	qsort(v->counts, n, sizeof(*v->counts), cmp_count);
	rd_text_lit(t, "      events  name\n");
	for (i = 0; i < n; i++) {
		snprintf(line, sizeof(line), "%12" PRIu64 "  %s\n", v->counts[i].n,
			 v->counts[i].ec->name ? v->counts[i].ec->name : "<unknown>");
		rd_text_str(t, line);
	}
	snprintf(line, sizeof(line),
		 "%12" PRIu64 "  total (%u event names)\n"
		 "discarded: %" PRIu64 " events, %" PRIu64 " packets\n",
		 v->nevents, n, v->r->disc_events, v->r->disc_packets);
	rd_text_str(t, line);
	if (v->have_span) {
		int64_t d = v->last_ns - v->first_ns;

		rd_text_lit(t, "time span: [");
		line_time(&v->ls, t, v->first_ns);
		rd_text_lit(t, "] to [");
		line_time(&v->ls, t, v->last_ns);
		snprintf(line, sizeof(line), "] (%" PRId64 ".%09" PRId64 " s)\n",
			 d / (int64_t)1000000000, d % (int64_t)1000000000);
		rd_text_str(t, line);
	} else {
		rd_text_lit(t, "time span: (no timestamps)\n");
	}
}

/* Applies --clock-offset/--clock-offset-ns to every clock of every trace. */
static void apply_clock_offset(struct view *v)
{
	uint32_t t, c;

	for (t = 0; t < v->r->ntraces; t++) {
		struct trace_class *tc = v->r->traces[t].tc;

		for (c = 0; c < tc->nclocks; c++)
			clock_class_apply_offset(tc->clocks[c], v->o.clock_offset_s,
						 v->o.clock_offset_ns);
	}
}

static int setup_range(struct view *v)
{
	int64_t ref = 0;

	if (v->o.begin || v->o.end) {
		/* a time of day without a date means the day of the first event */
		struct trawl_reader *probe;
		int ret = trawl_reader_open(v->o.paths, (size_t)v->o.npaths, &probe);

		if (!ret && trawl_reader_next(probe) > 0) {
			int64_t ns;

			if (!trawl_reader_event_time_ns(probe, &ns))
				ref = ns + v->o.clock_offset_s * 1000000000LL + v->o.clock_offset_ns;
		}
		trawl_reader_destroy(probe);
	}
	if (v->o.begin) {
		if (view_parse_time(v->o.begin, v->o.clock_gmt, ref, &v->begin_ns)) {
			fprintf(stderr, "%s: invalid --begin time: %s\n", v->cmd, v->o.begin);
			return -EINVAL;
		}
		v->has_begin = true;
	}
	if (v->o.end) {
		if (view_parse_time(v->o.end, v->o.clock_gmt, ref, &v->end_ns)) {
			fprintf(stderr, "%s: invalid --end time: %s\n", v->cmd, v->o.end);
			return -EINVAL;
		}
		v->has_end = true;
	}
	if (v->has_begin && v->has_end && v->begin_ns > v->end_ns) {
		fprintf(stderr, "%s: --begin is after --end\n", v->cmd);
		return -EINVAL;
	}
	return 0;
}

/*
 * Per trace: [latest stream begin, earliest stream end] of packet times.
 * Folders sharing a trace UUID are one trace (one rd_trace.index), and a
 * data stream continued over several files spans from its first file's
 * begin to its last file's end.
 */
static int setup_intersection(struct view *v)
{
	uint32_t t, i;

	v->isect_begin = calloc(v->r->ntraces + 1, sizeof(int64_t));
	v->isect_end = calloc(v->r->ntraces + 1, sizeof(int64_t));
	if (!v->isect_begin || !v->isect_end)
		return -ENOMEM;
	for (t = 0; t < v->r->ntraces; t++) {
		v->isect_begin[t] = INT64_MIN;
		v->isect_end[t] = INT64_MAX;
	}
	for (t = 0; t < v->r->ntraces; t++) {
		struct rd_trace *tr = &v->r->traces[t];
		int64_t *b = &v->isect_begin[tr->index], *e = &v->isect_end[tr->index];

		if (!tr->nstreams) {
			fprintf(stderr, "%s: %s: trace has no streams\n", v->cmd, tr->dir);
			return -EINVAL;
		}
		for (i = 0; i < tr->nstreams; i++) {
			struct rd_stream *s = &tr->streams[i];
			int64_t sb, se, nb;
			int ret;

			if (s->continued)	/* counted with its first file */
				continue;
			ret = rd_stream_time_range(s, &sb, &se, &v->r->err);
			while (!ret && s->next_file) {
				s = s->next_file;
				ret = rd_stream_time_range(s, &nb, &se, &v->r->err);
			}
			if (ret) {
				fprintf(stderr, "%s: %s\n", v->cmd, trawl_reader_error(v->r));
				return ret;
			}
			if (sb > *b)
				*b = sb;
			if (se < *e)
				*e = se;
		}
	}
	for (t = 0; t < v->r->ntraces; t++) {
		struct rd_trace *tr = &v->r->traces[t];

		if (tr->index == t && v->isect_begin[t] > v->isect_end[t]) {
			fprintf(stderr, "%s: %s: the streams have no time range in common\n",
				v->cmd, tr->dir);
			return -EINVAL;
		}
	}
	return 0;
}

static bool in_range(struct view *v, const struct rd_stream *s)
{
	if (v->has_begin && s->ev_ns < v->begin_ns)
		return false;
	if (v->isect_begin) {
		uint32_t t = s->trace->index;

		if (s->ev_ns < v->isect_begin[t] || s->ev_ns > v->isect_end[t])
			return false;
	}
	return true;
}

static int print_event(struct view *v, struct rd_stream *s)
{
	struct rd_text *t = &v->out;
	size_t mark = t->len;
	const struct fc *pc = s->sc->packet_context;
	struct rd_body_fmt fmt = {
		.scope_names = v->o.names_scope,
		.ctx_names = v->o.names_context,
		.payload_names = v->o.names_payload,
	};
	int ret;

	ret = rd_stream_pc_text(s, v->o.names_context, &v->r->err);
	if (ret)
		return ret;
	line_header(&v->ls, t, s);
	if (pc && pc->shown) {
		if (v->o.names_scope)
			rd_text_lit(t, "stream.packet.context = ");
		rd_text_put(t, s->pc_text.buf, s->pc_text.len);
	}
	fmt.sep_first = pc && pc->shown;
	ret = rd_stream_body(s, t, &fmt, &v->r->err);
	if (ret) {
		t->len = mark;
		return ret;
	}
	rd_text_lit(t, "\n");
	if (t->oom)
		return -ENOMEM;
	return 0;
}

/* --decode-only with no time range: nothing but decoding in the loop. */
static int run_decode_only(struct view *v)
{
	struct trawl_reader *r = v->r;
	uint64_t n = 0;
	int ret;

	rd_reader_set_decode_only(r);
	while ((ret = trawl_reader_next(r)) > 0) {
		if (trawl_unlikely(v->progress && !(++n & 0xffff)))
			progress_tick(v, n);
	}
	return ret;
}

static int run_events(struct view *v)
{
	struct trawl_reader *r = v->r;
	uint64_t n = 0;
	int ret;

	if (v->o.output == OUT_DUMMY && !v->has_begin && !v->has_end &&
	    !v->isect_begin)
		return run_decode_only(v);
	while ((ret = trawl_reader_next(r)) > 0) {
		struct rd_stream *s = r->cur;

		if (v->has_end && s->ev_ns > v->end_ns && s->sc->clock)
			break;
		if (!in_range(v, s))
			continue;
		n++;
		if (v->progress && !(n & 0xffff))
			progress_tick(v, n);
		switch (v->o.output) {
		case OUT_TEXT:
			ret = print_event(v, s);
			if (ret)
				goto out;
			if (v->out.len >= FLUSH_AT) {
				out_flush(v);
				if (v->write_failed)
					goto out;
			}
			break;
		case OUT_COUNT:
			if (count_event(v, s->dev->ec))
				return -ENOMEM;
			if (s->sc->clock) {
				if (!v->have_span || s->ev_ns < v->first_ns)
					v->first_ns = s->ev_ns;
				if (!v->have_span || s->ev_ns > v->last_ns)
					v->last_ns = s->ev_ns;
				v->have_span = true;
			}
			/* the body must still be decoded */
			__attribute__((fallthrough));
		default:
			ret = rd_stream_body(s, NULL, NULL, &r->err);
			if (ret)
				goto out;
			break;
		}
	}
out:
	v->nevents = n;
	return ret;
}

static int run_viewer(const char *viewer, const struct view_opts *o)
{
	char **argv = calloc((size_t)o->npaths + 2, sizeof(char *));
	int i;

	if (!argv)
		return 1;
	argv[0] = (char *)viewer;
	for (i = 0; i < o->npaths; i++)
		argv[i + 1] = (char *)o->paths[i];
	execvp(viewer, argv);
	fprintf(stderr, "view: cannot run viewer %s: %s\n", viewer, strerror(errno));
	free(argv);
	return 1;
}

static int print_metadata(struct view *v)
{
	uint32_t t;

	/* the text as decoded, then a newline, as babeltrace2 prints it */
	for (t = 0; t < v->r->ntraces; t++) {
		rd_text_str(&v->out, v->r->traces[t].tc->text);
		rd_text_lit(&v->out, "\n");
	}
	return 0;
}

int trawl_view_main(int argc, char **argv)
{
	struct view v;
	struct rd_stream_cb cb;
	int ret, rc = 0;
	uint32_t t, i;

	memset(&v, 0, sizeof(v));
	v.cmd = argc > 0 && argv[0] ? argv[0] : "view";
	if (strrchr(v.cmd, '/'))
		v.cmd = strrchr(v.cmd, '/') + 1;
	if (!strcmp(v.cmd, "view"))
		v.cmd = "trawl view";
	ret = view_parse_opts(argc, argv, &v.o);
	if (ret)
		return ret > 0 ? 0 : 2;
	if (v.o.viewer)
		return run_viewer(v.o.viewer, &v.o);
	line_state_init(&v.ls, &v.o);
	v.fd = STDOUT_FILENO;
	if (v.o.output_path) {
		v.fd = open(v.o.output_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (v.fd < 0) {
			fprintf(stderr, "%s: cannot create %s: %s\n", v.cmd,
				v.o.output_path, strerror(errno));
			return 1;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	v.out.names = true;
	ret = trawl_reader_open(v.o.paths, (size_t)v.o.npaths, &v.r);
	if (ret) {
		fprintf(stderr, "%s: error: %s\n", v.cmd, trawl_reader_error(v.r));
		rc = 1;
		goto out;
	}
	apply_clock_offset(&v);
	if (v.o.output == OUT_METADATA) {
		print_metadata(&v);
		goto flush;
	}
	if (setup_range(&v) ||
	    (v.o.stream_intersection && setup_intersection(&v))) {
		rc = 1;
		goto out;
	}
	cb.discarded = on_discarded;
	cb.arg = &v;
	rd_reader_set_discarded_cb(v.r, &cb);
	for (t = 0; t < v.r->ntraces; t++) {
		for (i = 0; i < v.r->traces[t].nstreams; i++) {
			struct rd_stream *s = &v.r->traces[t].streams[i];

			v.total_bytes += s->size;
		}
	}
	v.progress = v.o.progress && v.total_bytes >= PROGRESS_MIN_BYTES &&
		     isatty(STDERR_FILENO) && !isatty(v.fd);
	ret = 0;
	if (v.has_begin)
		ret = trawl_reader_seek_ns(v.r, v.begin_ns);
	if (!ret)
		ret = run_events(&v);
	progress_clear(&v);
	if (ret < 0) {
		out_flush(&v);
		fprintf(stderr, "%s: error: %s\n", v.cmd, trawl_reader_error(v.r));
		rc = 1;
		goto out;
	}
	if (v.o.output == OUT_COUNT)
		print_count(&v);
flush:
	out_flush(&v);
	if (v.write_failed && errno != EPIPE)
		rc = 1;
out:
	if (v.fd >= 0 && v.fd != STDOUT_FILENO)
		close(v.fd);
	trawl_reader_destroy(v.r);
	free(v.out.buf);
	free(v.ls.tail.buf);
	free(v.counts);
	free(v.isect_begin);
	free(v.isect_end);
	return rc;
}
