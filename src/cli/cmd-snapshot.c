/* SPDX-License-Identifier: MIT */
/* cmd-snapshot.c - `trawl snapshot record`: write a flight-recorder session's buffers. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const struct cli_option_doc opts_doc[] = {
	{"-s, --session=NAME", "The session (default: the current session)."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"session", required_argument, NULL, 's'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	struct trawl_ctl_snapshot_info snap = {.struct_size = sizeof(snap)};
	char name[TRAWL_CTL_NAME_MAX];
	const char *session = NULL;
	struct trawl_ctl_list *l;
	struct trawl_ctl *ctl;
	int c, ret;

	while ((c = getopt_long(argc, argv, "hs:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_snapshot);
			return 0;
		case 's':
			session = optarg;
			break;
		default:
			return cli_usage(&cli_cmd_snapshot, "bad option");
		}
	}
	if (argc - optind != 1 || strcmp(argv[optind], "record"))
		return cli_usage(&cli_cmd_snapshot, "expected the action 'record'");
	ret = cli_session(session, name, sizeof(name));
	if (ret)
		return ret;
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	ret = trawl_ctl_snapshot_record(ctl, name, &l);
	if (ret) {
		ret = cli_fail(ctl, ret, "snapshot record");
	} else {
		if (!trawl_ctl_list_snapshot_at(l, 0, &snap) && !cli_quiet)
			printf("Snapshot recorded successfully for session %s in %s\n", snap.session,
			       snap.path);
		trawl_ctl_list_destroy(l);
	}
	trawl_ctl_disconnect(ctl);
	return ret;
}

const struct cli_cmd cli_cmd_snapshot = {
	.name = "snapshot",
	.summary = "Record a snapshot of a flight-recorder session",
	.synopsis = "record [-s NAME]",
	.description = "Writes the current content of the session's buffers as a complete "
		       "trace in a new folder snapshot-N-YYYYMMDD-HHMMSS-0 of its output. The "
		       "session must have been created with --snapshot.",
	.options = opts_doc,
	.run = run,
};
