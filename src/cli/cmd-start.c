/* SPDX-License-Identifier: MIT */
/* cmd-start.c - `trawl start`. */
#include "cli/cli.h"

#include <stdio.h>

static const struct cli_option_doc opts_doc[] = {
	{"--no-wait", "Accepted for LTTng compatibility; trawl always returns promptly."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int start(struct trawl_ctl *ctl, const char *name)
{
	int ret;

	cli_mi_open("sessions");
	ret = trawl_ctl_session_start(ctl, name);
	if (ret)
		return cli_fail(ctl, ret, "start");
	cli_mi_open("session");
	cli_mi_str("name", name);
	cli_mi_bool("enabled", 1);
	cli_mi_close();
	if (!cli_quiet)
		printf("Tracing started for session %s\n", name);
	return 0;
}

static int run(int argc, char **argv)
{
	return cli_session_run(&cli_cmd_start, argc, argv, start);
}

const struct cli_cmd cli_cmd_start = {
	.name = "start",
	.summary = "Start tracing",
	.synopsis = "[NAME]",
	.description = "Starts recording the events enabled in session NAME (default: the current session).",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
