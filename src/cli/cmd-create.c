/* SPDX-License-Identifier: MIT */
/* cmd-create.c - `trawl create`: a new session, which becomes the current one. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct cli_option_doc opts_doc[] = {
	{"-o, --output=DIR", "Write the trace to DIR (default: "
			     "~/trawl-traces/NAME-YYYYMMDD-HHMMSS)."},
	{"--snapshot", "Flight-recorder session: channels default to overwrite mode and "
		       "`trawl snapshot record` writes their content."},
	{"--live[=US]", "Live session (for live viewers)."},
	{"-U, --set-url=URL", "file://PATH is the same as --output PATH."},
	{"--no-output", "Record nothing to disk (snapshot sessions)."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"snapshot", no_argument, NULL, 'S'},
		{"live", optional_argument, NULL, 'L'},
		{"set-url", required_argument, NULL, 'U'},
		{"no-output", no_argument, NULL, 'N'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	char name[256], path[1024], abs[PATH_MAX];
	const char *output = NULL;
	struct trawl_ctl *ctl;
	unsigned flags = 0;
	int c, ret;

	while ((c = getopt_long(argc, argv, "ho:U:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_create);
			return 0;
		case 'o':
			output = optarg;
			break;
		case 'U':
			if (strncmp(optarg, "file://", 7))
				return cli_error(-EOPNOTSUPP, "URL '%s': only file:// URLs are "
							      "supported (no relay daemon yet)", optarg);
			output = optarg + 7;
			break;
		case 'S':
			flags |= TRAWL_CTL_CREATE_SNAPSHOT;
			break;
		case 'L':
			flags |= TRAWL_CTL_CREATE_LIVE;
			break;
		case 'N':
			flags |= TRAWL_CTL_CREATE_NO_OUTPUT;
			break;
		default:
			return cli_usage(&cli_cmd_create, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cli_cmd_create, "too many arguments");
	if (output && output[0] != '/') {
		/* The daemon may run elsewhere: send an absolute path. */
		int n;

		if (!getcwd(abs, sizeof(abs) - 1))
			return cli_error(-errno, "cannot resolve %s: %s", output, strerror(errno));
		n = snprintf(path, sizeof(path), "%s/%s", abs, output);
		if (n < 0 || (size_t)n >= sizeof(path))
			return cli_error(-ENAMETOOLONG, "output path too long: %s", output);
		snprintf(abs, sizeof(abs), "%s", path);
		output = abs;
	}
	if (argc > optind && !argv[optind][0])
		return cli_error(-EINVAL, "empty session name");
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	ret = trawl_ctl_session_create(ctl, argc > optind ? argv[optind] : NULL, output, flags, name,
				       sizeof(name), path, sizeof(path));
	if (ret == -EINVAL && !trawl_ctl_last_error(ctl)[0] && argc > optind) {
		trawl_ctl_disconnect(ctl);
		return cli_error(ret, "bad session name '%s': use letters, digits, '_', '-', "
				      "'.', ':' (at most 255)", argv[optind]);
	}
	if (ret) {
		ret = cli_fail(ctl, ret, "create");
		trawl_ctl_disconnect(ctl);
		return ret;
	}
	trawl_ctl_disconnect(ctl);
	trawl_ctl_current_session_set(name);
	if (!cli_quiet) {
		printf("Session %s created.\n", name);
		if (path[0])
			printf("Traces will be written in %s\n", path);
	}
	return 0;
}

const struct cli_cmd cli_cmd_create = {
	.name = "create",
	.summary = "Create a tracing session",
	.synopsis = "[NAME] [--output DIR | --snapshot | --live | --set-url URL]",
	.description = "Creates a session named NAME (default: auto-YYYYMMDD-HHMMSS) in the "
		       "session daemon, starting the daemon if needed, and makes it the current "
		       "session. Tracing starts with `trawl start`.",
	.options = opts_doc,
	.run = run,
};
