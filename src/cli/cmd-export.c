/* SPDX-License-Identifier: MIT */
/*
 * cmd-export.c - `trawl export`: a session's (or a folder's) trace in
 * another tool's format (src/export).
 */
#include "cli/cli.h"
#include "export/export.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const struct cli_option_doc opts_doc[] = {
	{"-F, --format=FORMAT", "jsonl: one JSON object per event, every field typed (the "
				"default); chrome-json: Chrome's Trace Event Format, for "
				"chrome://tracing and Perfetto UI (CPU lanes from sched_switch, system "
				"calls as slices, other events as marks with their fields, perf "
				"counters); perfetto: Perfetto's protobuf trace (sched_switch as "
				"ftrace events, so Perfetto shows its CPU tracks; the rest as track "
				"events; times exact to the ns)."},
	{"-o, --output=FILE", "Write to FILE (default: standard output)."},
	{"-t, --trace-path=DIR", "Export DIR instead of a session's trace."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'F'},
		{"output", required_argument, NULL, 'o'},
		{"trace-path", required_argument, NULL, 't'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	struct trawl_export_opts eo = {.format = TRAWL_EXPORT_JSONL, .cmd = "trawl export"};
	const char *dir = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "hF:o:t:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_export);
			return 0;
		case 'F':
			if (trawl_export_format_parse(optarg, &eo.format))
				return cli_usage(&cli_cmd_export, "unknown format '%s'", optarg);
			break;
		case 'o':
			eo.output = optarg;
			break;
		case 't':
			dir = optarg;
			break;
		default:
			return cli_usage(&cli_cmd_export, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cli_cmd_export, "too many arguments");
	return cli_export_trace(&cli_cmd_export, argc > optind ? argv[optind] : NULL, dir, &eo);
}

int cli_export_trace(const struct cli_cmd *cmd, const char *arg, const char *dir,
		     struct trawl_export_opts *eo)
{
	char path[TRAWL_CTL_PATH_MAX];
	const char *paths[1];
	int ret = cli_trace_path(cmd, arg, dir, path, sizeof(path));

	if (ret)
		return ret;
	paths[0] = path;
	eo->paths = paths;
	eo->npaths = 1;
	return trawl_export_run(eo);
}

const struct cli_cmd cli_cmd_export = {
	.name = "export",
	.summary = "Write a trace in another tool's format",
	.synopsis = "[--format=FORMAT] [-o FILE] [SESSION | DIR]",
	.description = "Reads the trace of SESSION (default: the current session), or of the "
		       "trace folder DIR, once, in time order, and writes it as FORMAT. "
		       "Discarded events are reported on standard error as trawl view reports "
		       "them.",
	.options = opts_doc,
	.run = run,
};
