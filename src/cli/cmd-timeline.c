/* SPDX-License-Identifier: MIT */
/*
 * cmd-timeline.c - `trawl timeline`: a session's (or a folder's) trace as
 * one self-contained HTML page (src/export/timeline.c).
 */
#include "cli/cli.h"
#include "export/export.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_option_doc opts_doc[] = {
	{"-o, --output=FILE", "Write the page to FILE (required; any browser opens it, "
			      "nothing else is needed)."},
	{"-d, --detail=ITEMS", "Keep at most ITEMS slices and marks per level of detail "
			       "(default 100000; an item is about 25 bytes of page and its first "
			       "event's fields): finer levels are merged, so the page's size "
			       "follows the trace's duration and ITEMS, not its count of events."},
	{"-t, --trace-path=DIR", "Draw DIR instead of a session's trace."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int parse_detail(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < 1000 || v > 100000000)
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"detail", required_argument, NULL, 'd'},
		{"trace-path", required_argument, NULL, 't'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	struct trawl_export_opts eo = {.format = TRAWL_EXPORT_TIMELINE, .cmd = "trawl timeline"};
	const char *dir = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "ho:d:t:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_timeline);
			return 0;
		case 'o':
			eo.output = optarg;
			break;
		case 'd':
			if (parse_detail(optarg, &eo.detail))
				return cli_usage(&cli_cmd_timeline,
						 "--detail wants a count from 1000 to 100000000, not '%s'",
						 optarg);
			break;
		case 't':
			dir = optarg;
			break;
		default:
			return cli_usage(&cli_cmd_timeline, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cli_cmd_timeline, "too many arguments");
	if (!eo.output)
		return cli_usage(&cli_cmd_timeline, "the page needs a file: -o FILE.html");
	return cli_export_trace(&cli_cmd_timeline, argc > optind ? argv[optind] : NULL, dir, &eo);
}

const struct cli_cmd cli_cmd_timeline = {
	.name = "timeline",
	.summary = "Draw a trace as one HTML page",
	.synopsis = "-o FILE.html [--detail=ITEMS] [SESSION | DIR]",
	.description = "Reads the trace of SESSION (default: the current session), or of the "
		       "trace folder DIR, once, and writes one HTML page that any browser "
		       "opens with nothing else: a lane per CPU with the threads it ran "
		       "(sched_switch), coloured by process; per thread, its system calls as "
		       "slices and its other events as marks, grouped by process; perf "
		       "counters as line charts. Zoom with the wheel and Ctrl (or W/S, +/-), "
		       "pan by dragging (or A/D, arrows), select a range with Shift and drag; "
		       "hover or click an item for its fields; search names of events, "
		       "processes and threads.",
	.options = opts_doc,
	.run = run,
};
