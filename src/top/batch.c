/* SPDX-License-Identifier: MIT */
/*
 * `trawltop --batch`: each interval's header and views as text (like
 * `top -b`), or as one JSON object per line with --json.
 */
#include "top_main.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

static int view_print(struct trawl_top_model *m, const struct trawl_top_opts *o,
		      enum trawl_top_view v)
{
	struct trawl_top_table t = { 0 };
	int ret = trawl_top_view_build(m, v, &t);

	if (ret < 0)
		return ret;
	if (o->sort_key) {
		for (size_t c = 0; c < t.ncols; c++)
			if (!strcasecmp(o->sort_key, t.cols[c].key) ||
			    !strcasecmp(o->sort_key, t.cols[c].head))
				trawl_top_table_sort(&t, c, 0);
	}
	trawl_top_table_filter(&t, o->filter);
	if (o->json) {
		fprintf(stdout, ",\"%s\":", t.name);
		trawl_top_table_json(&t, stdout);
	} else {
		fprintf(stdout, "\n== %s ==\n", t.name);
		trawl_top_table_print(&t, stdout, o->rows);
	}
	trawl_top_table_fini(&t);
	return 0;
}

int trawl_top_interval_print(struct trawl_top_model *m, const struct trawl_top_opts *o)
{
	int ret;

	if (o->json) {
		fputc('{', stdout);
		trawl_top_header_json(m, stdout);
	} else {
		trawl_top_header_print(m, stdout);
	}
	for (int v = 0; v < TRAWL_TOP_VIEW_COUNT; v++) {
		if (o->view >= 0 && v != o->view)
			continue;
		ret = view_print(m, o, (enum trawl_top_view)v);
		if (ret < 0)
			return ret;
	}
	fputs(o->json ? "}\n" : "\n", stdout);
	return ferror(stdout) ? -EIO : 0;
}

int trawl_top_batch_trace(struct trawl_top_source *src, const struct trawl_top_opts *o)
{
	struct trawl_top_model m;
	int64_t begin, end;
	int ret = 0;

	trawl_top_model_init(&m);
	trawl_top_source_range(src, &begin, &end);
	if (o->live && (ret = trawl_top_source_first_ns(src, &begin)) < 0)
		goto out;
	if (o->begin_set)
		begin = o->begin_ns;
	if (begin != end && o->begin_set && (ret = trawl_top_source_seek(src, &m, begin)) < 0)
		goto out;
	for (long i = 0; o->count <= 0 || i < o->count; i++) {
		ret = trawl_top_source_interval(src, &m, begin, o->interval_ns);
		if (ret <= 0)
			break;
		ret = trawl_top_interval_print(&m, o);
		if (ret < 0)
			break;
		fflush(stdout);
		if (o->interval_ns <= 0)
			break;
		begin += o->interval_ns;
	}
out:
	trawl_top_model_fini(&m);
	return ret < 0 ? ret : 0;
}

static volatile sig_atomic_t batch_stop;

static void on_stop(int sig)
{
	batch_stop = 1;
}

/* Sleeps @ns unless a signal asks to stop. */
static void nap(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };

	while (!batch_stop && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int trawl_top_batch_live(const struct trawl_top_opts *o)
{
	/* SA_RESTART: a signal must not cut a daemon call short (nanosleep still returns) */
	struct sigaction sa = { .sa_handler = on_stop, .sa_flags = SA_RESTART };
	struct trawl_top_live *l = NULL;
	struct trawl_top_model m;
	char err[512] = "";
	int ret;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	trawl_top_model_init(&m);
	ret = trawl_top_live_start(&l, err, sizeof(err));
	/* the first snapshot only says where the intervals begin */
	if (ret == 0)
		ret = trawl_top_live_interval(l, &m, err, sizeof(err));
	for (long i = 0; ret == 0 && !batch_stop && (o->count <= 0 || i < o->count); i++) {
		nap(o->interval_ns > 0 ? o->interval_ns : 1000000000);
		if (batch_stop)
			break;
		ret = trawl_top_live_interval(l, &m, err, sizeof(err));
		if (ret == 0)
			ret = trawl_top_interval_print(&m, o);
		fflush(stdout);
	}
	trawl_top_live_stop(l);
	trawl_top_model_fini(&m);
	if (ret < 0 && err[0])
		fprintf(stderr, "trawltop: %s\n", err);
	return ret < 0 ? -ECANCELED : 0;	/* said already */
}
