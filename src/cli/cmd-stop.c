/* SPDX-License-Identifier: MIT */
/* cmd-stop.c - `trawl stop`. */
#include "cli/cli.h"


static const struct cli_option_doc opts_doc[] = {
	{"--no-wait", "Accepted for LTTng compatibility; trawl always returns promptly."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	return cli_session_op(&cli_cmd_stop, argc, argv, trawl_ctl_session_stop,
			      "Tracing stopped for session");
}

const struct cli_cmd cli_cmd_stop = {
	.name = "stop",
	.summary = "Stop tracing",
	.synopsis = "[NAME]",
	.description = "Stops recording in session NAME (default: the current session) and returns once every event recorded so far is on disk, metadata and index included: the trace is then complete and readable.",
	.options = opts_doc,
	.run = run,
};
