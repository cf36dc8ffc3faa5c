/* SPDX-License-Identifier: MIT */
/* cmd-set-session.c - `trawl set-session`: choose the current session. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const struct cli_option_doc opts_doc[] = {
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	static const struct option opts[] = {CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
	struct trawl_ctl_list *list;
	struct trawl_ctl *ctl;
	size_t i;
	int c, ret, found = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			cli_help_print(&cli_cmd_set_session);
			return 0;
		}
		return cli_usage(&cli_cmd_set_session, "bad option");
	}
	if (argc - optind != 1)
		return cli_usage(&cli_cmd_set_session, "expected one session name");
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	ret = trawl_ctl_list_sessions(ctl, &list);
	if (ret) {
		ret = cli_fail(ctl, ret, "set-session");
		trawl_ctl_disconnect(ctl);
		return ret;
	}
	for (i = 0; i < trawl_ctl_list_count(list); i++) {
		struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

		found |= !trawl_ctl_list_session_at(list, i, &s) && !strcmp(s.name, argv[optind]);
	}
	trawl_ctl_list_destroy(list);
	trawl_ctl_disconnect(ctl);
	if (!found)
		return cli_error(-ENOENT, "no session named '%s'", argv[optind]);
	ret = trawl_ctl_current_session_set(argv[optind]);
	if (ret)
		return cli_error(ret, "cannot remember the current session: %s", strerror(-ret));
	cli_mi_open("sessions");
	cli_mi_open("session");
	cli_mi_str("name", argv[optind]);
	cli_mi_close();
	cli_mi_close();
	if (!cli_quiet)
		printf("Session set to %s\n", argv[optind]);
	return 0;
}

const struct cli_cmd cli_cmd_set_session = {
	.name = "set-session",
	.summary = "Set the current session",
	.synopsis = "NAME",
	.description = "Makes NAME the session that commands act on when none is given. "
		       "It is remembered in $HOME/.trawlrc.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
