/* SPDX-License-Identifier: MIT */
/* cmd-disable-event.c - `trawl disable-event`: disable event rules. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_option_doc opts_doc[] = {
	{"-k, --kernel", "Kernel events."},
	{"-u, --userspace", "User-space events."},
	{"-s, --session=NAME", "The session (default: the current session)."},
	{"-c, --channel=NAME", "The channel (default: channel0)."},
	{"-a, --all", "Every enabled rule of the channel."},
	{"--syscall", "NAMEs are system-call rules."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_TARGET_OPTIONS,
		CLI_CHANNEL_OPTION,
		CLI_AGENT_OPTIONS,
		{"all", no_argument, NULL, 'a'},
		{"all-events", no_argument, NULL, 'a'},
		{"syscall", no_argument, NULL, 'Y'},
		{"tracepoint", no_argument, NULL, 'T'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	enum trawl_ctl_event_kind kind = TRAWL_CTL_EVENT_TRACEPOINT;
	const char *type = "any"; /* LTTng's word for the type asked */
	struct cli_target t = {0};
	struct trawl_ctl *ctl;
	char *names, *tok, *save;
	int c, ret = 0, first = 0, all = 0;

	while ((c = getopt_long(argc, argv, "hkujlps:c:a", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_disable_event);
			return 0;
		case 'a':
			all = 1;
			break;
		case 'Y':
			kind = TRAWL_CTL_EVENT_SYSCALL;
			type = "syscall";
			break;
		case 'T':
			kind = TRAWL_CTL_EVENT_TRACEPOINT;
			type = "tracepoint";
			break;
		default:
			if (!cli_target_opt(&t, c, optarg) && !cli_agent_opt(&t, c))
				return cli_usage(&cli_cmd_disable_event, "bad option");
		}
	}
	if (all == (argc > optind) || argc - optind > 1)
		return cli_usage(&cli_cmd_disable_event, "expected event names or --all");
	if (t.domains_given > 1)
		return cli_error(-EINVAL, "only one domain must be specified");
	if (t.domain == TRAWL_CTL_DOMAIN_UST && strcmp(type, "any"))
		return cli_error(-EINVAL, "disabling user-space events by type (--%s) is not "
					  "supported, as in LTTng 2.13", type);
	ret = cli_target_connect(&cli_cmd_disable_event, &t, &ctl);
	if (ret)
		return ret;
	names = strdup(all ? "*" : argv[optind]);
	cli_mi_open("channel");
	cli_mi_str("name", t.channel ? t.channel : "channel0");
	cli_mi_open("events");
	for (tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct trawl_ctl_event *ev = trawl_ctl_event_create(kind, tok);

		if (!ev) {
			cli_list_note(cli_error(-EINVAL, "bad event name '%s'", tok), &first);
			continue;
		}
		ret = trawl_ctl_event_disable(ctl, t.name, t.domain, t.channel, ev);
		trawl_ctl_event_destroy(ev);
		cli_mi_open("event");
		cli_mi_str("name", tok);
		cli_mi_bool("enabled", !!ret);
		cli_mi_bool("success", !ret);
		cli_mi_close();
		if (ret && cli_list_fail(ctl, ret, "disable-event", &first))
			break;
		if (!ret && !cli_quiet && all)
			printf("All %s events of type %s are disabled in channel %s\n",
			       cli_domain_word(t.domain), type, t.channel ? t.channel : "channel0");
		else if (!ret && !cli_quiet)
			printf("%s %s of type %s disabled in channel %s for session %s\n",
			       cli_domain_word(t.domain), tok, type,
			       t.channel ? t.channel : "channel0", t.name);
	}
	free(names);
	trawl_ctl_disconnect(ctl);
	return first;
}

const struct cli_cmd cli_cmd_disable_event = {
	.name = "disable-event",
	.summary = "Disable event rules",
	.synopsis = "(-k | -u | -j | -l | -p) [-s NAME] [-c CHANNEL] [--syscall] (NAME[,NAME...] | --all)",
	.description = "Disables the rules enabled with these names in the channel.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
