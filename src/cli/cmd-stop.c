/* SPDX-License-Identifier: MIT */
/* cmd-stop.c - `trawl stop`. */
#include "cli/cli.h"

#include <stdio.h>

static const struct cli_option_doc opts_doc[] = {
	{"--no-wait", "Accepted for LTTng compatibility; trawl always returns promptly."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/*
 * Stops, then says in one line if the trace lacks data (loss.c): the
 * session is stopped either way; the exit status tells a script which.
 */
static int stop_and_count(struct trawl_ctl *ctl, const char *name)
{
	int lost, ret;

	cli_mi_open("sessions");
	ret = cli_loss_stop(ctl, name, &lost);
	if (ret)
		return ret;
	cli_mi_open("session");
	cli_mi_str("name", name);
	cli_mi_bool("enabled", 0);
	cli_mi_close();
	if (!cli_quiet)
		printf("Tracing stopped for session %s\n", name);
	return lost ? CLI_EXIT_LOST : 0;
}

static int run(int argc, char **argv)
{
	return cli_session_run(&cli_cmd_stop, argc, argv, stop_and_count);
}

const struct cli_cmd cli_cmd_stop = {
	.name = "stop",
	.summary = "Stop tracing",
	.synopsis = "[NAME]",
	.description = "Stops recording in session NAME (default: the current session) and returns once every event recorded so far is on disk, metadata and index included: the trace is then complete and readable. Events discarded (buffers full, dropped by the kernel, or lost on the way to the trace: a full disk, a lost relayd) are counted in the trace, where they happened, and said in one line on standard error; the exit status is then 11 (stopped, data lost), not 0 (run as `lttng`, in LTTng's place, it is 0 as LTTng's).",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
