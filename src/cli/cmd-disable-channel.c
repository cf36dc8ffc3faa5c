/* SPDX-License-Identifier: MIT */
/* cmd-disable-channel.c - `trawl disable-channel`: pause recording in channels. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_option_doc opts_doc[] = {
	{"-k, --kernel", "A kernel channel."},
	{"-u, --userspace", "A user-space channel."},
	{"-s, --session=NAME", "The session (default: the current session)."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_TARGET_OPTIONS,
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	struct cli_target t = {0};
	struct trawl_ctl *ctl;
	char *names, *tok, *save;
	int c, ret = 0, first = 0;

	while ((c = getopt_long(argc, argv, "hkus:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_disable_channel);
			return 0;
		default:
			if (!cli_target_opt(&t, c, optarg))
				return cli_usage(&cli_cmd_disable_channel, "bad option");
		}
	}
	if (argc - optind != 1)
		return cli_usage(&cli_cmd_disable_channel, "expected one channel name (or a comma list)");
	ret = cli_target_connect(&cli_cmd_disable_channel, &t, &ctl);
	if (ret)
		return ret;
	names = strdup(argv[optind]);
	cli_mi_open("channels");
	for (tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		ret = trawl_ctl_channel_disable(ctl, t.name, t.domain, tok);
		cli_mi_open("channel");
		cli_mi_str("name", tok);
		cli_mi_bool("enabled", !!ret);
		cli_mi_bool("success", !ret);
		cli_mi_close();
		if (ret && cli_list_fail(ctl, ret, "disable-channel", &first))
			break;
		if (!ret && !cli_quiet)
			printf("%s channel %s disabled for session %s\n", cli_domain_word(t.domain),
			       tok, t.name);
	}
	free(names);
	trawl_ctl_disconnect(ctl);
	return first;
}

const struct cli_cmd cli_cmd_disable_channel = {
	.name = "disable-channel",
	.summary = "Disable channels",
	.synopsis = "(-k | -u) [-s NAME] CHANNEL[,CHANNEL...]",
	.description = "Stops recording into each CHANNEL until enable-channel enables it again.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
