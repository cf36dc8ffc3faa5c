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
	{"--live[=US]", "Live session: streams to trawl-relayd (default net://127.0.0.1) and "
			"closes partial packets every US microseconds (default 1000000) so live "
			"viewers see events promptly."},
	{"-U, --set-url=URL", "Where the trace goes: file://PATH (same as --output PATH), or "
			      "net://HOST[:CTRLPORT[:DATAPORT]] (net6:// for IPv6) to stream to "
			      "trawl-relayd (ports 5342 and 5343 by default)."},
	{"-C, --ctrl-url=URL", "trawl-relayd's control port, tcp://HOST:PORT (with -D)."},
	{"-D, --data-url=URL", "trawl-relayd's data port, tcp://HOST:PORT (with -C)."},
	{"--no-output", "Record nothing to disk (snapshot sessions)."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/*
 * -C tcp://HOST:PORT -D tcp://HOST:PORT (LTTng's spelling) as one
 * net://HOST:CTRL:DATA URL. Both are needed, on one host.
 */
static int urls_join(const char *ctrl, const char *data, const char *output, char *buf,
		     size_t len)
{
	const char *hp[2] = {ctrl, data}, *names[2] = {"control", "data"};
	char host[2][300];
	unsigned long port[2];
	int i, v6 = 0;

	if (output)
		return cli_error(-EINVAL, "-C/-D and --set-url/--output are exclusive");
	if (!ctrl || !data)
		return cli_error(-EINVAL, "-C (control URL) and -D (data URL) go together");
	for (i = 0; i < 2; i++) {
		const char *p = hp[i], *colon;
		char *end;

		if (!strncmp(p, "tcp://", 6)) {
			p += 6;
		} else if (!strncmp(p, "tcp6://", 7)) {
			p += 7;
			v6 = 1;
		} else {
			return cli_error(-EINVAL, "%s URL '%s': expected tcp://HOST:PORT", names[i],
					 hp[i]);
		}
		colon = strrchr(p, ':');
		if (!colon || colon == p || (size_t)(colon - p) >= sizeof(host[i]))
			return cli_error(-EINVAL, "%s URL '%s': expected tcp://HOST:PORT", names[i],
					 hp[i]);
		snprintf(host[i], sizeof(host[i]), "%.*s", (int)(colon - p), p);
		errno = 0;
		port[i] = strtoul(colon + 1, &end, 10);
		if (errno || *end || port[i] < 1 || port[i] > 65535)
			return cli_error(-EINVAL, "%s URL '%s': port is not 1-65535", names[i],
					 hp[i]);
	}
	if (strcmp(host[0], host[1]))
		return cli_error(-EINVAL, "control and data URLs name different hosts (%s, %s): "
					  "one trawl-relayd serves both", host[0], host[1]);
	snprintf(buf, len, "net%s://%s:%lu:%lu", v6 ? "6" : "", host[0], port[0], port[1]);
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
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	char name[256], path[1024], abs[PATH_MAX], url[600];
	const char *output = NULL, *ctrl_url = NULL, *data_url = NULL;
	unsigned long live_us = 0;
	struct trawl_ctl *ctl;
	unsigned flags = 0;
	int c, ret;

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
			flags |= TRAWL_CTL_CREATE_SNAPSHOT;
			break;
		case 'L':
			flags |= TRAWL_CTL_CREATE_LIVE;
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
			flags |= TRAWL_CTL_CREATE_NO_OUTPUT;
			break;
		default:
			return cli_usage(&cli_cmd_create, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cli_cmd_create, "too many arguments");
	if (ctrl_url || data_url) {
		ret = urls_join(ctrl_url, data_url, output, url, sizeof(url));
		if (ret)
			return ret;
		output = url;
	}
	if ((flags & TRAWL_CTL_CREATE_LIVE) && output && strncmp(output, "net", 3))
		return cli_error(-EINVAL, "a live session streams to trawl-relayd: give it a "
					  "net://HOST URL, not an output folder");
	if ((flags & TRAWL_CTL_CREATE_SNAPSHOT) && output && !strncmp(output, "net", 3))
		return cli_error(-EOPNOTSUPP, "snapshot sessions cannot stream to trawl-relayd "
					      "(yet): give them a local --output");
	if (output && output[0] != '/' && strncmp(output, "net", 3)) {
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
	if (flags & TRAWL_CTL_CREATE_LIVE)
		ret = trawl_ctl_session_create_live(ctl, argc > optind ? argv[optind] : NULL, output,
						    (uint32_t)live_us, name, sizeof(name), path,
						    sizeof(path));
	else
		ret = trawl_ctl_session_create(ctl, argc > optind ? argv[optind] : NULL, output,
					       flags, name, sizeof(name), path, sizeof(path));
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
		if (!strncmp(path, "net", 3))
			printf("Traces will be streamed to trawl-relayd at %s%s\n", path,
			       flags & TRAWL_CTL_CREATE_LIVE ? " (live)" : "");
		else if (path[0])
			printf("Traces will be written in %s\n", path);
	}
	return 0;
}

const struct cli_cmd cli_cmd_create = {
	.name = "create",
	.summary = "Create a tracing session",
	.synopsis = "[NAME] [--output DIR | --snapshot | --live[=US] | --set-url URL | -C URL -D URL]",
	.description = "Creates a session named NAME (default: auto-YYYYMMDD-HHMMSS) in the "
		       "session daemon, starting the daemon if needed, and makes it the current "
		       "session. Tracing starts with `trawl start`.",
	.options = opts_doc,
	.run = run,
};
