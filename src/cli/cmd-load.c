/* SPDX-License-Identifier: MIT */
/* cmd-load.c - `trawl load`: sessions from LTTng 2.13's session files. */
#include "cli/cli.h"
#include "config/config.h"

#include <getopt.h>
#include <stdio.h>

static const struct cli_option_doc opts_doc[] = {
	{"-a, --all", "Load every session of the files (the default without NAME)."},
	{"-i, --input-path=PATH", "A session file, or a folder whose *.lttng files are read. "
				  "Default: $LTTNG_HOME/.lttng/sessions (else $HOME's), then "
				  "/etc/lttng/sessions."},
	{"-f, --force", "Destroy a session of the same name first (else loading it fails)."},
	{"--override-url=URL", "The output of the sessions loaded: a folder, file://DIR or "
			       "net://HOST[:CTRL[:DATA]] (a snapshot session's snapshot output)."},
	{"--override-name=NAME", "The name of the session loaded (with a session NAME only)."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	enum { OPT_URL = 256, OPT_NAME };
	static const struct option opts[] = {
		{"all", no_argument, NULL, 'a'},
		{"input-path", required_argument, NULL, 'i'},
		{"force", no_argument, NULL, 'f'},
		{"override-url", required_argument, NULL, OPT_URL},
		{"override-name", required_argument, NULL, OPT_NAME},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	struct trawl_config_load_opts o = {0};
	const char *path = NULL;
	struct trawl_ctl *ctl;
	char err[TRAWL_CTL_PATH_MAX + 256];
	size_t loaded;
	int c, all = 0, ret;

	while ((c = getopt_long(argc, argv, "hai:f", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_load);
			return 0;
		case 'a':
			all = 1;
			break;
		case 'i':
			path = optarg;
			break;
		case 'f':
			o.overwrite = 1;
			break;
		case OPT_URL:
			o.override_url = optarg;
			break;
		case OPT_NAME:
			o.override_name = optarg;
			break;
		default:
			return cli_usage(&cli_cmd_load, "bad option");
		}
	}
	if (!all && optind < argc)
		o.session = argv[optind++];
	if (optind < argc)
		return cli_usage(&cli_cmd_load, "unknown argument: %s", argv[optind]);
	if (o.override_name && !o.session)
		return cli_usage(&cli_cmd_load,
				 "options --all and --override-name cannot be used simultaneously");
	if (path && !path[0])
		return cli_usage(&cli_cmd_load, "empty input path");
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	ret = trawl_config_load(ctl, path, &o, &loaded, err, sizeof(err));
	trawl_ctl_disconnect(ctl);
	/* LTTng's <load>, whether it worked or not. */
	if (cli_mi) {
		cli_mi_open("load");
		cli_mi_open("session");
		cli_mi_str("name", o.session ? o.session : "*");
		cli_mi_close();
		if (path)
			cli_mi_str("path", path);
		cli_mi_open("overrides");
		if (o.override_name)
			cli_mi_str("name", o.override_name);
		if (o.override_url)
			cli_mi_str("url", o.override_url);
		cli_mi_close();
		cli_mi_close();
	}
	if (ret)
		return cli_error(ret, "%s", err);
	if (o.session)
		trawl_ctl_current_session_set(o.override_name ? o.override_name : o.session);
	if (cli_quiet)
		return 0;
	if (o.session)
		printf("Session %s has been loaded successfully\n", o.session);
	else
		printf("All sessions have been loaded successfully\n");
	if (o.override_name)
		printf("Session name overridden with %s\n", o.override_name);
	if (o.override_url)
		printf("Session output url overridden with %s\n", o.override_url);
	return 0;
}

const struct cli_cmd cli_cmd_load = {
	.name = "load",
	.summary = "Load sessions from files",
	.synopsis = "[NAME] [-a] [-i PATH] [-f] [--override-url URL] [--override-name NAME]",
	.description = "Makes the sessions of LTTng 2.13 session files (`trawl save`'s or "
		       "`lttng save`'s) as the commands would: each file is checked whole first "
		       "(malformed XML, an unknown element or a value trawl cannot honour fails it "
		       "with its line), then each session is created, its channels, events, "
		       "contexts, trackers and rotation schedules added, and it is started if it "
		       "was. A session whose name is taken is not loaded unless -f is given. "
		       "Files are read by this command, as the user who runs it.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
