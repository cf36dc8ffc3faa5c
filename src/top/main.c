/* SPDX-License-Identifier: MIT */
/*
 * trawltop: what the system is doing, computed from a trace. Options, and
 * the one place where errors become a line on stderr and an exit code.
 */
#include "top_main.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: trawltop [OPTIONS] [TRACE_DIR...]\n"
	"       trawltop [OPTIONS] --live SESSION|net://HOST[/...]\n"
	"A top-like view of what a system does, computed exactly from a trace:\n"
	"processes and threads (CPU time from sched_switch), system calls, files and\n"
	"I/O, user-space events. With TRACE_DIR, a recorded trace; with none, as root\n"
	"or a member of group tracing, a kernel session of its own, removed on exit.\n"
	"\n"
	"  -b, --batch          print the views as text, interval after interval (top -b)\n"
	"      --json           with --batch: one JSON object per interval and line\n"
	"  -n, --iterations N   show N intervals, then exit (default: all of the trace)\n"
	"  -d, --delay SECONDS  the interval (default 1; 0: the whole trace as one)\n"
	"      --view NAME      processes, threads, syscalls, calls, files or ust\n"
	"                       (batch default: all of them)\n"
	"  -f, --filter TEXT    only rows of this pid/tid, or whose name or path holds TEXT\n"
	"  -s, --sort COLUMN    sort by this column (its header or JSON key)\n"
	"  -r, --rows N         at most N rows per view\n"
	"      --begin SECONDS  start at this time (seconds from the Epoch, as in --json)\n"
	"      --live TARGET    follow a live session of a relay daemon: a URL\n"
	"                       net://HOST[:PORT]/host/HOSTNAME/SESSION, or a session\n"
	"                       name (served by the relay daemon on this host);\n"
	"                       intervals of the trace's time (the UI, or --batch)\n"
	"  -h, --help           this help\n"
	"\n"
	"Keys (interactive): ? help, q quit, TAB/1-6 views, < > sort column, r reverse,\n"
	"/ filter, ENTER details, SPACE play/pause, n/p step, g seek, + - speed.\n";

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < 0 || v > 1e9)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "S[.NNNNNNNNN]" to ns exactly (a double has no ns left at today's seconds). */
static int parse_time_ns(const char *s, int64_t *out)
{
	int64_t sec = 0, frac = 0;
	const char *p = s;
	int digits = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (sec > (INT64_MAX / 1000000000 - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (*p - '0');
	}
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			if (digits < 9)
				frac = frac * 10 + (*p - '0');
	if (*p)
		return -EINVAL;
	for (; digits < 9; digits++)
		frac *= 10;
	*out = sec * 1000000000 + frac;
	return 0;
}

static int parse_opts(int argc, char **argv, struct trawl_top_opts *o)
{
	static const struct option lo[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'J' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "view", required_argument, NULL, 'V' },
		{ "filter", required_argument, NULL, 'f' },
		{ "sort", required_argument, NULL, 's' },
		{ "rows", required_argument, NULL, 'r' },
		{ "begin", required_argument, NULL, 'B' },
		{ "live", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	double sec;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "bn:d:f:s:r:h", lo, NULL)) != -1) {
		switch (c) {
		case 'b': o->batch = 1; break;
		case 'J': o->json = 1; break;
		case 'f': o->filter = optarg; break;
		case 's': o->sort_key = optarg; break;
		case 'L': o->live = optarg; break;
		case 'h': fputs(usage, stdout); exit(0);
		case 'n':
		case 'r':
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0) {
				fprintf(stderr, "trawltop: -%c %s: not a count\n", c, optarg);
				return -EINVAL;
			}
			if (c == 'n')
				o->count = v;
			else
				o->rows = (size_t)v;
			break;
		case 'd':
			if (parse_seconds(optarg, &sec) < 0) {
				fprintf(stderr, "trawltop: -d %s: not a number of seconds\n", optarg);
				return -EINVAL;
			}
			o->interval_ns = (int64_t)llround(sec * 1e9);
			break;
		case 'B':
			if (parse_time_ns(optarg, &o->begin_ns) < 0) {
				fprintf(stderr, "trawltop: --begin %s: not a number of seconds\n",
					optarg);
				return -EINVAL;
			}
			o->begin_set = 1;
			break;
		case 'V':
			o->view = trawl_top_view_parse(optarg);
			if (o->view < 0) {
				fprintf(stderr, "trawltop: --view %s: no such view (processes, threads, "
						"syscalls, calls, files, ust)\n", optarg);
				return -EINVAL;
			}
			break;
		default:
			fputs(usage, stderr);
			return -EINVAL;
		}
	}
	if (o->json && !o->batch) {
		fprintf(stderr, "trawltop: --json needs --batch\n");
		return -EINVAL;
	}
	o->paths = (const char *const *)argv + optind;
	o->npaths = (size_t)(argc - optind);
	return 0;
}

/*
 * `--live URL|SESSION`: a relay daemon's live session through
 * libtrawl-reader's lttng-live client, as batch intervals of trace time.
 */
static int top_live_net(struct trawl_top_opts *o)
{
	struct trawl_top_source *src = NULL;
	char url[1024], host[256];
	int ret, n;

	if (o->begin_set || o->npaths) {
		fprintf(stderr, "trawltop: --live follows a session as it records: no --begin, "
				"no TRACE_DIR\n");
		return 2;
	}
	if (strstr(o->live, "://")) {
		n = snprintf(url, sizeof(url), "%s", o->live);
	} else {
		if (gethostname(host, sizeof(host)))
			snprintf(host, sizeof(host), "localhost");
		host[sizeof(host) - 1] = '\0';
		n = snprintf(url, sizeof(url), "net://127.0.0.1:5344/host/%s/%s", host, o->live);
	}
	if (n < 0 || (size_t)n >= sizeof(url)) {
		fprintf(stderr, "trawltop: --live: URL too long (at most %zu bytes)\n",
			sizeof(url) - 1);
		return 2;
	}
	ret = trawl_top_source_open_live(url, &src);
	if (ret < 0) {
		fprintf(stderr, "trawltop: --live %s: %s\n", o->live, trawl_top_source_error(src));
		trawl_top_source_destroy(src);
		return 1;
	}
	if (o->batch || !isatty(STDOUT_FILENO))
		ret = trawl_top_batch_trace(src, o);
	else
		ret = trawl_top_ui_net(src, o);
	if (ret < 0)
		fprintf(stderr, "trawltop: --live %s: %s\n", o->live,
			ret == -ENOMEM ? "out of memory" :
			ret == -ENOTTY ? "cannot use this terminal (TERM)" :
			ret == -EIO ? "cannot write the output" : trawl_top_source_error(src));
	trawl_top_source_destroy(src);
	return ret < 0;
}

int main(int argc, char **argv)
{
	struct trawl_top_opts o = { .view = -1, .interval_ns = 1000000000 };
	struct trawl_top_source *src = NULL;
	int ret;

	if (parse_opts(argc, argv, &o) < 0)
		return 2;
	if (o.live)
		return top_live_net(&o);
	if (!o.npaths) {
		ret = o.batch || !isatty(STDOUT_FILENO) ? trawl_top_batch_live(&o)
							: trawl_top_ui_live(&o);
		if (ret < 0 && ret != -ECANCELED)
			fprintf(stderr, "trawltop: %s\n", ret == -ENOTTY ?
				"cannot use this terminal (TERM)" : strerror(-ret));
		return ret < 0;
	}
	ret = trawl_top_source_open(o.paths, o.npaths, &src);
	if (ret < 0) {
		fprintf(stderr, "trawltop: %s: %s\n", o.paths[0],
			src && trawl_top_source_error(src)[0] ? trawl_top_source_error(src)
							      : strerror(-ret));
		trawl_top_source_destroy(src);
		return 1;
	}
	if (o.batch || !isatty(STDOUT_FILENO))
		ret = trawl_top_batch_trace(src, &o);
	else
		ret = trawl_top_ui_trace(src, &o);
	if (ret < 0)
		fprintf(stderr, "trawltop: %s\n",
			ret == -ENOMEM ? "out of memory" :
			ret == -ENOTTY ? "cannot use this terminal (TERM)" :
			ret == -EIO ? "cannot write the output" : trawl_top_source_error(src));
	trawl_top_source_destroy(src);
	return ret < 0;
}
