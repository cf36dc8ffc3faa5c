/* SPDX-License-Identifier: MIT */
/*
 * cmd-view.c - `trawl view`: show a session's (or a folder's) trace with
 * trawl's viewer (src/view) when built in, babeltrace2 otherwise, or any
 * viewer given with -e.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef TRAWL_HAVE_VIEW
#include "view/view.h"
#endif

static const struct cli_option_doc opts_doc[] = {
	{"-e, --viewer=CMD", "Run CMD (split at spaces) with the trace folder as last argument."},
	{"-t, --trace-path=DIR", "View DIR instead of a session's trace."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/* The trace folder of session @name, into @buf. */
static int session_path(const char *name, char *buf, size_t len)
{
	struct trawl_ctl_list *l;
	struct trawl_ctl *ctl;
	size_t i;
	int ret, found = 0;

	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	ret = trawl_ctl_list_sessions(ctl, &l);
	if (ret) {
		ret = cli_fail(ctl, ret, "view");
		trawl_ctl_disconnect(ctl);
		return ret;
	}
	for (i = 0; i < trawl_ctl_list_count(l); i++) {
		if (!strcmp(trawl_ctl_list_name(l, i), name)) {
			snprintf(buf, len, "%s", trawl_ctl_list_text(l, i));
			found = 1;
		}
	}
	trawl_ctl_list_destroy(l);
	trawl_ctl_disconnect(ctl);
	if (!found)
		return cli_error(-ENOENT, "no session named '%s'", name);
	if (!buf[0])
		return cli_error(-ENOENT, "session '%s' has no trace on disk", name);
	return 0;
}

static int run_viewer(const char *viewer, const char *path)
{
	char *copy = strdup(viewer), *tok, *save, *args[64];
	int n = 0;

	for (tok = strtok_r(copy, " \t", &save); tok && n < 62; tok = strtok_r(NULL, " \t", &save))
		args[n++] = tok;
	if (!n)
		return cli_error(-EINVAL, "empty viewer command");
	args[n++] = (char *)path;
	args[n] = NULL;
	fflush(stdout);
	execvp(args[0], args);
	return cli_error(-errno, "cannot run viewer '%s': %s", args[0], strerror(errno));
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"viewer", required_argument, NULL, 'e'},
		{"trace-path", required_argument, NULL, 't'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	const char *viewer = NULL, *dir = NULL;
	char name[256], path[1024];
	struct stat st;
	int c, ret;

	while ((c = getopt_long(argc, argv, "he:t:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_view);
			return 0;
		case 'e':
			viewer = optarg;
			break;
		case 't':
			dir = optarg;
			break;
		default:
			return cli_usage(&cli_cmd_view, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cli_cmd_view, "too many arguments");
	if (!dir && argc > optind && (strchr(argv[optind], '/') ||
				      (stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode))))
		dir = argv[optind];
	if (dir) {
		snprintf(path, sizeof(path), "%s", dir);
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			return cli_error(-ENOENT, "no trace folder %s", path);
	} else {
		ret = cli_session(argc > optind ? argv[optind] : NULL, name, sizeof(name));
		if (ret)
			return ret;
		ret = session_path(name, path, sizeof(path));
		if (ret)
			return ret;
		if (!strncmp(path, "net://", 6) || !strncmp(path, "net6://", 7))
			return cli_error(-EOPNOTSUPP, "session '%s' streams to trawl-relayd at %s: "
						      "view the trace where relayd writes it "
						      "(trawl view DIR)", name, path);
	}
	if (viewer)
		return run_viewer(viewer, path);
#ifdef TRAWL_HAVE_VIEW
	{
		char *vargv[] = {(char *)"view", path, NULL};

		optind = 1;
		return trawl_view_main(2, vargv);
	}
#else
	return run_viewer("babeltrace2", path);
#endif
}

const struct cli_cmd cli_cmd_view = {
	.name = "view",
	.summary = "Show a trace",
	.synopsis = "[SESSION | DIR] [-e VIEWER] [-t DIR]",
	.description = "Prints the trace of SESSION (default: the current session), or of the "
		       "trace folder DIR, as text in babeltrace2's format.",
	.options = opts_doc,
	.run = run,
};
