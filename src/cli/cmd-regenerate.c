/* SPDX-License-Identifier: MIT */
/*
 * cmd-regenerate.c - `trawl regenerate metadata|statedump` and LTTng's older
 * spelling `trawl metadata regenerate`, with LTTng 2.13's messages.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const struct cli_option_doc opts_doc[] = {
	{"-s, --session=NAME", "The session (default: the current session)."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/* Runs regenerate @what ("metadata" or "statedump") on the session. */
static int regenerate(const struct cli_cmd *cmd, const char *session, const char *what)
{
	int metadata = !strcmp(what, "metadata");
	char name[TRAWL_CTL_NAME_MAX];
	struct trawl_ctl *ctl;
	int ret;

	ret = cli_session(session, name, sizeof(name));
	if (ret)
		return ret;
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	/* LTTng's <regenerate_action><name>metadata</name> (metadata: <metadata_action>). */
	if (cmd == &cli_cmd_metadata) {
		cli_mi_open("metadata_action");
		cli_mi_str("name", "regenerate");
	} else {
		cli_mi_open("regenerate_action");
		cli_mi_str("name", what);
	}
	ret = metadata ? trawl_ctl_regenerate_metadata(ctl, name)
		       : trawl_ctl_regenerate_statedump(ctl, name);
	if (ret)
		ret = cli_fail(ctl, ret, cmd->name);
	else if (!cli_quiet)
		printf("%s successfully regenerated for session %s\n",
		       metadata ? "Metadata" : "State dump", name);
	trawl_ctl_disconnect(ctl);
	return ret;
}

/* The options, then exactly one word: *@word. Returns 0, -1 (help shown) or the usage error. */
static int parse(const struct cli_cmd *cmd, int argc, char **argv, const char **session,
		 const char **word)
{
	static const struct option opts[] = {
		{"session", required_argument, NULL, 's'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	int c;

	while ((c = getopt_long(argc, argv, "hs:", opts, NULL)) != -1) {
		if (c == 'h') {
			cli_help_print(cmd);
			return -1;
		}
		if (c != 's')
			return cli_usage(cmd, "bad option");
		*session = optarg;
	}
	if (argc - optind != 1)
		return cli_usage(cmd, argc == optind ? "say what to regenerate" : "too many arguments");
	*word = argv[optind];
	return 0;
}

static int run_regenerate(int argc, char **argv)
{
	const char *session = NULL, *what = NULL;
	int ret = parse(&cli_cmd_regenerate, argc, argv, &session, &what);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (strcmp(what, "metadata") && strcmp(what, "statedump"))
		return cli_usage(&cli_cmd_regenerate, "unknown object '%s': metadata or statedump",
				 what);
	return regenerate(&cli_cmd_regenerate, session, what);
}

static int run_metadata(int argc, char **argv)
{
	const char *session = NULL, *action = NULL;
	int ret = parse(&cli_cmd_metadata, argc, argv, &session, &action);

	if (ret)
		return ret < 0 ? 0 : ret;
	if (strcmp(action, "regenerate"))
		return cli_usage(&cli_cmd_metadata, "unknown action '%s': regenerate", action);
	return regenerate(&cli_cmd_metadata, session, "metadata");
}

const struct cli_cmd cli_cmd_regenerate = {
	.name = "regenerate",
	.summary = "Write a started session's metadata or state dump again",
	.synopsis = "(metadata | statedump) [-s NAME]",
	.description = "metadata: every metadata file of the session's traces is written again "
		       "whole (not for live sessions or per-process user-space buffers, as in "
		       "LTTng). statedump: the kernel domain records LTTng's lttng_statedump_* "
		       "events again, describing the processes, threads, files and memory maps "
		       "of now (trawl's user space has no state dump). The session must be "
		       "started.",
	.options = opts_doc,
	.run = run_regenerate,
	.mi = CLI_MI_RESULT,
};

const struct cli_cmd cli_cmd_metadata = {
	.name = "metadata",
	.summary = "LTTng's older spelling of `regenerate metadata`",
	.synopsis = "regenerate [-s NAME]",
	.description = "The same as trawl regenerate metadata.",
	.options = opts_doc,
	.run = run_metadata,
	.mi = CLI_MI_RESULT,
};
