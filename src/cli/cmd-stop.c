/* SPDX-License-Identifier: MIT */
/* cmd-stop.c - `trawl stop`. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>

static const struct cli_option_doc opts_doc[] = {
	{"--no-wait", "Accepted for LTTng compatibility; trawl always returns promptly."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"no-wait", no_argument, NULL, 'n'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	char name[256];
	struct trawl_ctl *ctl;
	int c, ret;

	while ((c = getopt_long(argc, argv, "hn", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_stop);
			return 0;
		case 'n':
			break;
		default:
			return cli_usage(&cli_cmd_stop, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cli_cmd_stop, "too many arguments");
	ret = cli_session(argc > optind ? argv[optind] : NULL, name, sizeof(name));
	if (ret)
		return ret;
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	ret = trawl_ctl_session_stop(ctl, name);
	if (ret)
		ret = cli_fail(ctl, ret, "stop");
	else if (!cli_quiet)
		printf("Tracing stopped for session %s.\n", name);
	trawl_ctl_disconnect(ctl);
	return ret;
}

const struct cli_cmd cli_cmd_stop = {
	.name = "stop",
	.summary = "Stop tracing",
	.synopsis = "[NAME]",
	.description = "Stops recording in session NAME (default: the current session) and returns once every event recorded so far is on disk, metadata and index included: the trace is then complete and readable.",
	.options = opts_doc,
	.run = run,
};
