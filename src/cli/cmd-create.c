/* SPDX-License-Identifier: MIT */
/* cmd-create.c - `trawl create`: a new session, which becomes the current one. */
#include "common/common.h"
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct cli_option_doc opts_doc[] = {
	{"-o, --output=DIR", "Write the trace to DIR (default: "
			     "~/trawl-traces/NAME-YYYYMMDD-HHMMSS; "
			     "$LTTNG_HOME/lttng-traces/... when LTTNG_HOME is set, as LTTng's)."},
	{"--snapshot", "Flight-recorder session: channels default to overwrite mode and "
		       "`trawl snapshot record` writes their content."},
	{"--live[=US], --live US", "Live session: streams to trawl-relayd (default net://127.0.0.1) and "
			"closes partial packets every US microseconds (default 1000000) so live "
			"viewers see events promptly."},
	{"-U, --set-url=URL", "Where the trace goes: file://PATH (same as --output PATH), or "
			      "net://HOST[:CTRLPORT[:DATAPORT]][/PATH] (net6:// for IPv6) to stream "
			      "to trawl-relayd (ports 5342 and 5343 by default), into its "
			      "OUTPUT/HOSTNAME/PATH (default: OUTPUT/HOSTNAME/NAME-DATE-TIME)."},
	{"-C, --ctrl-url=URL", "trawl-relayd's control port, tcp://HOST:PORT[/PATH] (with -D); "
			       "PATH as --set-url's."},
	{"-D, --data-url=URL", "trawl-relayd's data port, tcp://HOST:PORT (with -C)."},
	{"--no-output", "Record nothing to disk (snapshot sessions)."},
	{"--shm-path=DIR", "Keep the user-space buffers in files under DIR/NAME-YYYYMMDD-HHMMSS "
			   "instead of anonymous memory, so that `trawl crash` can read them after "
			   "the app or the daemons crashed."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/*
 * --shm-path DIR: DIR/NAME-YYYYMMDD-HHMMSS (an automatic NAME has its date
 * already), as `lttng create` makes it, set for session @name; on failure
 * the session is destroyed again (LTTng's way). 0 or the exit status.
 */
static int shm_path_set(struct trawl_ctl *ctl, const char *dir, const char *name, int auto_name,
			char *buf, size_t len)
{
	char stamp[32] = "";
	time_t now = time(NULL);
	struct tm tm;
	int n, ret;

	if (!auto_name && localtime_r(&now, &tm))
		strftime(stamp, sizeof(stamp), "-%Y%m%d-%H%M%S", &tm);
	n = snprintf(buf, len, "%s/%s%s", dir, name, stamp);
	ret = n < 0 || (size_t)n >= len ? -ENAMETOOLONG : trawl_ctl_session_set_shm_path(ctl, name, buf);
	if (!ret)
		return 0;
	trawl_ctl_session_destroy(ctl, name);
	if (ret == -ENAMETOOLONG)
		return cli_error(ret, "shared memory path too long: %s/%s%s", dir, name, stamp);
	return cli_fail(ctl, ret, "set the shared memory path");
}

/* Prints what create made: its name, where its trace goes and its shm path. */
static void created(const struct trawl_ctl_list *l, int live, const char *shm)
{
	struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

	if (trawl_ctl_list_session_at(l, 0, &s))
		return;
	trawl_ctl_current_session_set(s.name);
	if (cli_mi) {
		cli_mi_session_open(&s);
		cli_mi_close();
	}
	if (cli_quiet)
		return;
	if (s.snapshot) {
		/* LTTng's three lines */
		printf("Snapshot session %s created.\n", s.name);
		if (s.output[0])
			printf("Default snapshot output set to %s\n", s.output);
		printf("Every channel enabled for this session will be set to mmap output and "
		       "default to overwrite mode.\n");
		if (shm)
			printf("Shared memory path set to %s\n", shm);
		return;
	}
	printf("Session %s created.\n", s.name);
	if (!strncmp(s.output, "net", 3))
		printf("Traces will be streamed to trawl-relayd at %s%s\n", s.output,
		       live ? " (live)" : "");
	else if (s.output[0])
		printf("Traces will be output to %s\n", s.output);
	if (shm)
		printf("Shared memory path set to %s\n", shm);
}

/* The session described by the command line, into @attr; 0 or the exit status. */
static int attr_fill(struct trawl_ctl_session_attr *attr, const char *name, const char *output)
{
	int ret;

	if (name && !name[0])
		return cli_error(-EINVAL, "empty session name");
	ret = trawl_ctl_session_attr_set_name(attr, name);
	if (ret)
		return cli_error(ret, "bad session name '%s': use letters, digits, '_', '-', "
				      "'.', ':' (at most 255)", name);
	ret = trawl_ctl_session_attr_set_output(attr, output);
	if (ret == -ENAMETOOLONG)
		return cli_error(ret, "output path too long (at most %d bytes): %s",
				 TRAWL_CTL_OUTPUT_MAX - 1, output);
	if (ret)
		return cli_error(ret, "bad output '%s': %s", output, strerror(-ret));
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"snapshot", no_argument, NULL, 'S'},
		{"live", optional_argument, NULL, 'L'},
		{"set-url", required_argument, NULL, 'U'},
		{"no-output", no_argument, NULL, 'N'},
		{"ctrl-url", required_argument, NULL, 'C'},
		{"data-url", required_argument, NULL, 'D'},
		{"shm-path", required_argument, NULL, 'P'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	char url[TRAWL_CTL_OUTPUT_MAX], shm[TRAWL_CTL_PATH_MAX];
	const char *output = NULL, *shm_dir = NULL, *ctrl_url = NULL, *data_url = NULL;
	struct trawl_ctl_session_attr *attr;
	unsigned long live_us = 0;
	struct trawl_ctl_list *l;
	struct trawl_ctl *ctl;
	int c, ret, live = 0, snapshot = 0, no_output = 0;

	while ((c = getopt_long(argc, argv, "ho:U:C:D:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_create);
			return 0;
		case 'o':
			output = optarg;
			break;
		case 'U':
			if (!strncmp(optarg, "file://", 7)) {
				output = optarg + 7;
				if (!output[0])
					return cli_error(-EINVAL, "URL '%s': no path after file://",
							 optarg);
			} else if (!strncmp(optarg, "net://", 6) || !strncmp(optarg, "net6://", 7)) {
				output = optarg; /* the daemon checks it and says what is wrong */
			} else {
				return cli_error(-EINVAL, "URL '%s': expected file://PATH, "
							  "net://HOST[:CTRLPORT[:DATAPORT]] or net6://...",
						 optarg);
			}
			break;
		case 'C':
			ctrl_url = optarg;
			break;
		case 'D':
			data_url = optarg;
			break;
		case 'S':
			snapshot = 1;
			break;
		case 'L':
			live = 1;
			live_us = TRAWL_CTL_LIVE_TIMER_DEFAULT;
			/* `--live 2000000` as LTTng's popt takes it: the next word, when a number */
			if (!optarg && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9')
				optarg = argv[optind++];
			if (optarg) {
				char *end;

				errno = 0;
				live_us = strtoul(optarg, &end, 10);
				if (errno || *end || !optarg[0] || optarg[0] == '-' || live_us == 0 ||
				    live_us > UINT32_MAX)
					return cli_error(-EINVAL, "bad live timer '%s': microseconds, "
								  "1 to %u", optarg, UINT32_MAX);
			}
			break;
		case 'N':
			no_output = 1;
			break;
		case 'P':
			if (!optarg[0])
				return cli_error(-EINVAL, "empty shared memory path");
			shm_dir = optarg;
			break;
		default:
			return cli_usage(&cli_cmd_create, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cli_cmd_create, "too many arguments");
	if (ctrl_url || data_url) {
		if (output)
			return cli_error(-EINVAL, "-C/-D and --set-url/--output are exclusive");
		ret = cli_relay_urls_join(ctrl_url, data_url, url, sizeof(url));
		if (ret)
			return ret;
		output = url;
	}
	if (live && output && strncmp(output, "net", 3))
		return cli_error(-EINVAL, "a live session streams to trawl-relayd: give it a "
					  "net://HOST URL, not an output folder");
	attr = trawl_ctl_session_attr_create();
	if (!attr)
		return cli_error(-ENOMEM, "create: %s", strerror(ENOMEM));
	ret = attr_fill(attr, argc > optind ? argv[optind] : NULL, output);
	if (!ret) {
		trawl_ctl_session_attr_set_snapshot(attr, snapshot);
		trawl_ctl_session_attr_set_no_output(attr, no_output);
		trawl_ctl_session_attr_set_live(attr, (uint32_t)live_us);
		ret = cli_connect(&ctl);
	}
	if (ret) {
		trawl_ctl_session_attr_destroy(attr);
		return ret;
	}
	ret = trawl_ctl_session_create(ctl, attr, &l);
	trawl_ctl_session_attr_destroy(attr);
	if (ret) {
		ret = cli_fail(ctl, ret, "create");
	} else {
		struct trawl_ctl_session_info si = {.struct_size = sizeof(si)};

		if (shm_dir && !trawl_ctl_list_session_at(l, 0, &si))
			ret = shm_path_set(ctl, shm_dir, si.name, argc <= optind, shm, sizeof(shm));
		if (!ret)
			created(l, live, shm_dir ? shm : NULL);
		trawl_ctl_list_destroy(l);
	}
	trawl_ctl_disconnect(ctl);
	return ret;
}

const struct cli_cmd cli_cmd_create = {
	.name = "create",
	.summary = "Create a tracing session",
	.synopsis = "[NAME] [--output DIR | --snapshot | --live[=US] | --set-url URL | -C URL -D URL] "
		    "[--shm-path DIR]",
	.description = "Creates a session named NAME (default: auto-YYYYMMDD-HHMMSS) in the "
		       "session daemon, starting the daemon if needed, and makes it the current "
		       "session. Tracing starts with `trawl start`.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
