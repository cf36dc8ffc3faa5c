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
		{"kernel", no_argument, NULL, 'k'},
		{"userspace", no_argument, NULL, 'u'},
		{"session", required_argument, NULL, 's'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	enum trawl_ctl_domain domain = TRAWL_CTL_DOMAIN_NONE;
	const char *session = NULL;
	struct trawl_ctl *ctl;
	char name[256], *names, *tok, *save;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "hkus:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_disable_channel);
			return 0;
		case 'k':
			domain = TRAWL_CTL_DOMAIN_KERNEL;
			break;
		case 'u':
			domain = TRAWL_CTL_DOMAIN_UST;
			break;
		case 's':
			session = optarg;
			break;
		default:
			return cli_usage(&cli_cmd_disable_channel, "bad option");
		}
	}
	if (domain == TRAWL_CTL_DOMAIN_NONE)
		return cli_usage(&cli_cmd_disable_channel, "give a domain: -k or -u");
	if (argc - optind != 1)
		return cli_usage(&cli_cmd_disable_channel, "expected one channel name (or a comma list)");
	ret = cli_session(session, name, sizeof(name));
	if (ret)
		return ret;
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	names = strdup(argv[optind]);
	for (tok = strtok_r(names, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		ret = trawl_ctl_channel_disable(ctl, name, domain, tok);
		if (ret)
			ret = cli_fail(ctl, ret, "disable-channel");
		else if (!cli_quiet)
			printf("%s channel %s disabled for session %s\n",
			       domain == TRAWL_CTL_DOMAIN_KERNEL ? "Kernel" : "UST", tok, name);
	}
	free(names);
	trawl_ctl_disconnect(ctl);
	return ret;
}

const struct cli_cmd cli_cmd_disable_channel = {
	.name = "disable-channel",
	.summary = "Disable channels",
	.synopsis = "(-k | -u) [-s NAME] CHANNEL[,CHANNEL...]",
	.description = "Stops recording into each CHANNEL until enable-channel enables it again.",
	.options = opts_doc,
	.run = run,
};
