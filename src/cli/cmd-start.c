/* SPDX-License-Identifier: MIT */
/* cmd-start.c - `trawl start`. */
#include "cli/cli.h"


static const struct cli_option_doc opts_doc[] = {
	{"--no-wait", "Accepted for LTTng compatibility; trawl always returns promptly."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	return cli_session_op(&cli_cmd_start, argc, argv, trawl_ctl_session_start,
			      "Tracing started for session");
}

const struct cli_cmd cli_cmd_start = {
	.name = "start",
	.summary = "Start tracing",
	.synopsis = "[NAME]",
	.description = "Starts recording the events enabled in session NAME (default: the current session).",
	.options = opts_doc,
	.run = run,
};
