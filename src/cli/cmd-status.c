/* SPDX-License-Identifier: MIT */
/* cmd-status.c - `trawl status`: the current session's details. */
#include "cli/cli.h"
#include "cli/show.h"

#include <getopt.h>
#include <stdio.h>

static const struct cli_option_doc opts_doc[] = {
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	static const struct option opts[] = {CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
	struct trawl_ctl_list *l;
	struct trawl_ctl *ctl;
	char name[TRAWL_CTL_NAME_MAX];
	int c, ret;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			cli_help_print(&cli_cmd_status);
			return 0;
		}
		return cli_usage(&cli_cmd_status, "bad option");
	}
	if (argc > optind)
		return cli_usage(&cli_cmd_status, "unexpected argument '%s'", argv[optind]);
	ret = cli_session(NULL, name, sizeof(name));
	if (ret)
		return ret;
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	cli_mi_open("sessions");
	ret = trawl_ctl_list_session(ctl, name, &l);
	if (ret) {
		ret = cli_fail(ctl, ret, "status");
	} else {
		cli_show_session(l);
		trawl_ctl_list_destroy(l);
		fflush(stdout);
		ret = cli_loss_status(ctl, name);
	}
	trawl_ctl_disconnect(ctl);
	return ret;
}

const struct cli_cmd cli_cmd_status = {
	.name = "status",
	.summary = "Show the current session's status",
	.synopsis = "",
	.description = "Shows the current session as `trawl list SESSION` does: whether it "
		       "traces, its output, channels, event rules, events discarded, and whether "
		       "its consumers are alive. If the session lost data (events discarded), one "
		       "line on standard error says how much and the exit status is 11.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_LISTING,
	.mi_name = "list", /* LTTng's status is its list of the current session */
};
