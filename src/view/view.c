/* SPDX-License-Identifier: MIT */
/*
 * trawl view: the main loop, on <trawl/reader.h> alone. libtrawl-reader
 * merges the events and appends each as babeltrace2's line to one large
 * output buffer, which goes out with write(2) once it holds about 1 MiB.
 * When an event fails to decode, nothing of it is in the buffer: the lines
 * before it are written, and the error is one line on stderr.
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

#include "export/jsonw.h"
#include "view.h"
#include "view_int.h"

#define FLUSH_AT (1u << 20)
#define PROGRESS_MIN_BYTES (64ull << 20)
#define NSEC_PER_SEC ((int64_t)1000000000)

struct count_entry {
	const struct trawl_reader_event_class *ec;
	uint64_t n;
};

struct view {
	struct view_opts o;
	struct trawl_reader *r;
	struct trawl_reader_buf out;
	struct jsonw_names *names;	/* owned: --format=json's names, escaped once */
	int fd;
	bool write_failed;
	const char *cmd;
	/* progress */
	bool progress;
	struct timespec last_progress;
	bool progress_shown;
	/* --count */
	struct count_entry *counts;
	uint32_t ncounts, capcounts;
	uint64_t nevents;
	bool have_span;
	int64_t first_ns, last_ns;
};

static void out_flush(struct view *v)
{
	size_t off = 0;

	while (off < v->out.len && !v->write_failed) {
		ssize_t n = write(v->fd, v->out.data + off, v->out.len - off);

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
	uint64_t done, total;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	if ((now.tv_sec - v->last_progress.tv_sec) * 1000 +
	    (now.tv_nsec - v->last_progress.tv_nsec) / 1000000 < 250)
		return;
	v->last_progress = now;
	trawl_reader_progress(v->r, &done, &total);
	fprintf(stderr, "\r%s: %3u%% (%" PRIu64 " events)", v->cmd,
		(unsigned)(done * 100 / (total ? total : 1)), events);
	v->progress_shown = true;
}

/* babeltrace2's warnings (discarded records, times it cannot show) on stderr. */
static void on_discarded(void *arg, const struct trawl_reader_discarded *d)
{
	struct view *v = arg;
	struct trawl_reader_buf t = { 0 };

	if (!trawl_reader_discarded_append_text(v->r, d, &t)) {
		progress_clear(v);
		fwrite(t.data, 1, t.len, stderr);
	}
	free(t.data);
}

static void on_warning(void *arg, const char *msg)
{
	progress_clear(arg);
	fprintf(stderr, "%s\n", msg);
}

static int count_event(struct view *v, const struct trawl_reader_event_class *ec)
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

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(trawl_reader_event_class_name(x->ec),
		      trawl_reader_event_class_name(y->ec));
}

static void put_str(struct trawl_reader_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->cap - b->len < n) {
		size_t cap = b->cap ? b->cap : 4096;
		char *d;

		while (cap - b->len < n)
			cap *= 2;
		d = realloc(b->data, cap);
		if (!d)
			return;
		b->data = d;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

static void print_count(struct view *v)
{
	struct trawl_reader_buf *t = &v->out;
	uint64_t disc_events, disc_packets;
	uint32_t i, j, n = 0;
	char line[512];

	/* merge classes with the same name (several streams or traces) */
	for (i = 0; i < v->ncounts; i++) {
		const char *name = trawl_reader_event_class_name(v->counts[i].ec);

		for (j = 0; j < n; j++) {
			if (!strcmp(trawl_reader_event_class_name(v->counts[j].ec), name)) {
				v->counts[j].n += v->counts[i].n;
				break;
			}
		}
		if (j == n)
			v->counts[n++] = v->counts[i];
	}
	qsort(v->counts, n, sizeof(*v->counts), cmp_count);
	put_str(t, "      events  name\n");
	for (i = 0; i < n; i++) {
		/* The name comes from the trace, of any length: not cut into @line. */
		snprintf(line, sizeof(line), "%12" PRIu64 "  ", v->counts[i].n);
		put_str(t, line);
		put_str(t, trawl_reader_event_class_name(v->counts[i].ec));
		put_str(t, "\n");
	}
	trawl_reader_discarded_totals(v->r, &disc_events, &disc_packets);
	snprintf(line, sizeof(line),
		 "%12" PRIu64 "  total (%u event names)\n"
		 "discarded: %" PRIu64 " events, %" PRIu64 " packets\n",
		 v->nevents, n, disc_events, disc_packets);
	put_str(t, line);
	if (v->have_span) {
		int64_t d = v->last_ns - v->first_ns;

		put_str(t, "time span: [");
		trawl_reader_append_time(v->r, v->first_ns, t);
		put_str(t, "] to [");
		trawl_reader_append_time(v->r, v->last_ns, t);
		snprintf(line, sizeof(line), "] (%" PRId64 ".%09" PRId64 " s)\n",
			 d / NSEC_PER_SEC, d % NSEC_PER_SEC);
		put_str(t, line);
	} else {
		put_str(t, "time span: (no timestamps)\n");
	}
}

/* --begin/--end; a time of day without a date means the day of the first event. */
static int setup_range(struct view *v)
{
	int64_t ref = 0, begin = INT64_MIN, end = INT64_MAX;

	if (!v->o.begin && !v->o.end)
		return 0;
	{
		struct trawl_reader *probe;
		int ret = trawl_reader_open(v->o.paths, (size_t)v->o.npaths, &probe);

		if (!ret)
			ret = trawl_reader_set_clock_offset(probe, v->o.clock_offset_s,
							    v->o.clock_offset_ns);
		if (!ret && trawl_reader_set_flags(probe, TRAWL_READER_NO_FIELDS) == 0 &&
		    trawl_reader_next(probe) > 0)
			trawl_reader_event_time_ns(probe, &ref);
		trawl_reader_destroy(probe);
	}
	if (v->o.begin && view_parse_time(v->o.begin, v->o.text.flags & TRAWL_READER_TEXT_CLOCK_GMT,
					  ref, &begin)) {
		fprintf(stderr, "%s: invalid --begin time: %s\n", v->cmd, v->o.begin);
		return -EINVAL;
	}
	if (v->o.end && view_parse_time(v->o.end, v->o.text.flags & TRAWL_READER_TEXT_CLOCK_GMT,
					ref, &end)) {
		fprintf(stderr, "%s: invalid --end time: %s\n", v->cmd, v->o.end);
		return -EINVAL;
	}
	if (begin > end) {
		fprintf(stderr, "%s: --begin is after --end\n", v->cmd);
		return -EINVAL;
	}
	return trawl_reader_set_time_range(v->r, begin, end);
}

static int count_one(struct view *v)
{
	int64_t ns;

	if (count_event(v, trawl_reader_event_class_of(v->r)))
		return -ENOMEM;
	if (!trawl_reader_event_time_ns(v->r, &ns)) {
		if (!v->have_span || ns < v->first_ns)
			v->first_ns = ns;
		if (!v->have_span || ns > v->last_ns)
			v->last_ns = ns;
		v->have_span = true;
	}
	return 0;
}

/* --format=json's loop: one event at a time (the text's is in the library). */
static int print_json(struct view *v, uint64_t *n)
{
	struct trawl_reader *r = v->r;
	int ret;

	while ((ret = trawl_reader_next(r)) > 0) {
		if (__builtin_expect(v->progress && !(++*n & 0xffff), 0))
			progress_tick(v, *n);
		ret = jsonw_event(r, &v->out, v->names);
		if (ret)
			break;
		if (v->out.len >= FLUSH_AT) {
			out_flush(v);
			if (v->write_failed)
				break;
		}
	}
	return ret;
}

/* One loop per output. */
static int run_events(struct view *v)
{
	struct trawl_reader *r = v->r;
	uint64_t n = 0;
	int ret;

	switch (v->o.output) {
	case OUT_TEXT:	/* 4 Ki lines a call, or up to the flush, progress between them */
		for (;;) {
			uint64_t k;

			ret = trawl_reader_append_lines(r, &v->out, 0x1000, FLUSH_AT, &k);
			n += k;
			if (v->out.len >= FLUSH_AT)
				out_flush(v);
			if (ret != 1 || v->write_failed)
				break;
			if (v->progress)
				progress_tick(v, n);
		}
		break;
	case OUT_JSON:
		v->names = jsonw_names_create();	/* NULL: every name escaped each time */
		ret = print_json(v, &n);
		break;
	case OUT_COUNT:
		while ((ret = trawl_reader_next(r)) > 0) {
			n++;
			ret = count_one(v);
			if (ret)
				break;
		}
		break;
	default:	/* decode only: 64 Ki events a call, progress between them */
		for (;;) {
			uint64_t k;

			ret = trawl_reader_next_n(r, 0x10000, &k);
			n += k;
			if (ret <= 0)
				break;
			if (v->progress)
				progress_tick(v, n);
		}
		break;
	}
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

static void print_metadata(struct view *v)
{
	size_t t;

	/* the text as decoded, then a newline, as babeltrace2 prints it */
	for (t = 0; t < trawl_reader_trace_count(v->r); t++) {
		put_str(&v->out, trawl_reader_trace_metadata(trawl_reader_trace_at(v->r, t), NULL));
		put_str(&v->out, "\n");
	}
}

/* A live reader waits for the relay daemon: what it printed goes out first. */
static void on_idle(void *arg)
{
	out_flush(arg);
}

/*
 * `-i lttng-live net://HOST[:PORT]`: the sessions, as babeltrace2 lists
 * them: one line per host and name (LTTng's relay daemon serves one
 * session per consumer under one name), streams summed, the most clients.
 */
static int list_live(struct view *v)
{
	struct trawl_reader_live_session *s;
	char err[512];
	size_t n, i, j;
	int ret;

	ret = trawl_reader_live_sessions(v->o.paths[0], &s, &n, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s: error: %s\n", v->cmd, err);
		return 1;
	}
	for (i = 0; i < n; i++) {
		uint64_t streams = 0, clients = 0;

		for (j = 0; j < i; j++)
			if (!strcmp(s[j].hostname, s[i].hostname) && !strcmp(s[j].name, s[i].name))
				break;
		if (j < i)
			continue;
		for (j = i; j < n; j++) {
			if (strcmp(s[j].hostname, s[i].hostname) || strcmp(s[j].name, s[i].name))
				continue;
			streams += s[j].streams;
			if (s[j].clients > clients)
				clients = s[j].clients;
		}
		snprintf(err, sizeof(err), " (timer = %" PRIu32 ", %" PRIu64 " stream(s), %" PRIu64
			 " client(s) connected)\n", s[i].live_timer_us, streams, clients);
		put_str(&v->out, s[i].url);
		put_str(&v->out, err);
	}
	free(s);
	return 0;
}

/* Opens the traces, or the live session; 0, or 1 (the error was printed). */
static int open_reader(struct view *v)
{
	const char *bad = v->o.begin || v->o.end ? "--begin/--end/--timerange" :
			  v->o.stream_intersection ? "--stream-intersection" :
			  v->o.output == OUT_METADATA ? "-o ctf-metadata" : NULL;
	int ret;

	if (!v->o.live)
		return trawl_reader_open(v->o.paths, (size_t)v->o.npaths, &v->r);
	if (bad) {
		fprintf(stderr, "%s: error: %s is not available with lttng-live\n", v->cmd, bad);
		return 1;
	}
	ret = trawl_reader_open_live(v->o.paths[0], &v->r);
	if (!ret)
		trawl_reader_set_idle_cb(v->r, on_idle, v);
	return ret;
}

/* The reader set up as the options say; 0, or 1 (the error was printed). */
static int setup_reader(struct view *v)
{
	uint64_t total;
	int ret;

	ret = open_reader(v);
	if (ret == 1)
		return 1;
	if (!ret)
		ret = trawl_reader_set_clock_offset(v->r, v->o.clock_offset_s,
						    v->o.clock_offset_ns);
	if (!ret)
		ret = trawl_reader_set_text_options(v->r, &v->o.text);
	if (ret) {
		fprintf(stderr, "%s: error: %s\n", v->cmd, trawl_reader_error(v->r));
		return 1;
	}
	if (v->o.output == OUT_METADATA)
		return 0;
	if (setup_range(v))
		return 1;
	if (v->o.stream_intersection && trawl_reader_set_stream_intersection(v->r)) {
		fprintf(stderr, "%s: %s\n", v->cmd, trawl_reader_error(v->r));
		return 1;
	}
	/* --count and --decode-only look at no field */
	if (v->o.output != OUT_TEXT && v->o.output != OUT_JSON)
		trawl_reader_set_flags(v->r, TRAWL_READER_NO_FIELDS);
	if (v->o.output != OUT_COUNT)
		trawl_reader_set_discarded_cb(v->r, on_discarded, v);
	trawl_reader_set_warning_cb(v->r, on_warning, v);
	trawl_reader_progress(v->r, NULL, &total);
	v->progress = v->o.progress && total >= PROGRESS_MIN_BYTES &&
		      isatty(STDERR_FILENO) && !isatty(v->fd);
	return 0;
}

int trawl_view_main(int argc, char **argv)
{
	struct view v;
	int ret, rc = 0;

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
	if (v.o.live && !strstr(v.o.paths[0], "/host/")) {
		rc = list_live(&v);
		out_flush(&v);
		goto out;
	}
	rc = setup_reader(&v);
	if (rc)
		goto out;
	if (v.o.output == OUT_METADATA) {
		print_metadata(&v);
	} else {
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
	}
	out_flush(&v);
	if (v.write_failed && errno != EPIPE)
		rc = 1;
out:
	if (v.fd >= 0 && v.fd != STDOUT_FILENO)
		close(v.fd);
	jsonw_names_destroy(v.names);
	trawl_reader_destroy(v.r);
	free(v.out.data);
	free(v.counts);
	return rc;
}
