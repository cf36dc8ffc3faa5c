/* SPDX-License-Identifier: MIT */
/* cmd-save.c - `trawl save`: sessions into LTTng 2.13's session files. */
#include "cli/cli.h"
#include "config/config.h"

#include <getopt.h>
#include <stdio.h>

static const struct cli_option_doc opts_doc[] = {
	{"-a, --all", "Save every session of this user (the default without NAME)."},
	{"-o, --output-path=DIR", "Save into DIR (made if missing): DIR/NAME.lttng. Default: "
				  "$LTTNG_HOME/.lttng/sessions, else $HOME/.lttng/sessions."},
	{"-f, --force", "Replace a file that exists."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"all", no_argument, NULL, 'a'},
		{"output-path", required_argument, NULL, 'o'},
		{"force", no_argument, NULL, 'f'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	const char *dir = NULL, *name = NULL;
	struct trawl_ctl *ctl;
	char err[TRAWL_CTL_PATH_MAX + 256];
	int c, all = 0, force = 0, ret;

	while ((c = getopt_long(argc, argv, "hao:f", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_save);
			return 0;
		case 'a':
			all = 1;
			break;
		case 'o':
			dir = optarg;
			break;
		case 'f':
			force = 1;
			break;
		default:
			return cli_usage(&cli_cmd_save, "bad option");
		}
	}
	if (!all && optind < argc)
		name = argv[optind++];
	if (optind < argc)
		return cli_usage(&cli_cmd_save, "unknown argument: %s", argv[optind]);
	if (dir && !dir[0])
		return cli_usage(&cli_cmd_save, "empty output path");
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	ret = trawl_config_save(ctl, name, dir, force, err, sizeof(err));
	trawl_ctl_disconnect(ctl);
	/* LTTng's <save>, whether it worked or not: the session ("*" for
	 * all) and the folder if given. */
	if (cli_mi) {
		cli_mi_open("save");
		cli_mi_open("session");
		cli_mi_str("name", name ? name : "*");
		cli_mi_close();
		if (dir)
			cli_mi_str("path", dir);
		cli_mi_close();
	}
	if (ret)
		return cli_error(ret, "%s", err);
	if (cli_quiet)
		return 0;
	if (name && dir)
		printf("Session %s saved successfully in %s.\n", name, dir);
	else if (name)
		printf("Session %s saved successfully.\n", name);
	else if (dir)
		printf("All sessions have been saved successfully in %s.\n", dir);
	else
		printf("All sessions have been saved successfully.\n");
	return 0;
}

const struct cli_cmd cli_cmd_save = {
	.name = "save",
	.summary = "Save sessions to files",
	.synopsis = "[NAME] [-a] [-o DIR] [-f]",
	.description =
		"Writes session NAME (without NAME: every session of this user) to "
		"DIR/NAME.lttng in LTTng 2.13's session XML, valid against its session.xsd: "
		"its output, mode (snapshot, live), rotation schedules, channels with their "
		"attributes, events (kind, filter, log level, probe location), contexts, "
		"trackers, and whether it was started. `trawl load` and `lttng load` make the "
		"sessions again. The file is written by this command, as the user who runs it.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
