/* SPDX-License-Identifier: MIT */
/* cmd-enable-channel.c - `trawl enable-channel`: create or re-enable channels. */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_option_doc opts_doc[] = {
	{"-k, --kernel", "A kernel channel."},
	{"-u, --userspace", "A user-space channel."},
	{"-s, --session=NAME", "The session (default: the current session)."},
	{"--subbuf-size=SIZE", "Bytes per sub-buffer (a power of two; suffixes k, M, G)."},
	{"--num-subbuf=N", "Sub-buffers per CPU (a power of two, at least 2)."},
	{"--overwrite", "Overwrite the oldest data when full (flight recorder)."},
	{"--discard", "Drop new events when full, counting them (the default)."},
	{"--switch-timer=US", "Close the current packet every US microseconds."},
	{"--read-timer=US", "Check for full packets every US microseconds."},
	{"--buffers-uid", "One buffer per user, shared by the user's apps (user space default)."},
	{"--buffers-pid", "One buffer per process (user space)."},
	{"--tracefile-size=SIZE", "Split each stream's file: at most SIZE bytes a file (suffixes "
				  "k, M, G), the next one at a packet boundary, named "
				  "CHANNEL_CPU_N (at least the sub-buffer size)."},
	{"--tracefile-count=COUNT", "Keep the newest COUNT files of each stream (with "
				    "--tracefile-size): the oldest is overwritten."},
	{"--buffers-global", "One buffer for the whole system (the kernel's only mode; not for "
			     "user space)."},
	{"--blocking-timeout=TIMEOUT", "User space, discard mode: how long a writer finding the "
				       "buffer full waits for room before it drops the event: 0 "
				       "never (the default), inf without end, else microseconds (or "
				       "with a suffix us, ms, s, m, h). The app must allow it: "
				       "LTTNG_UST_ALLOW_BLOCKING (or TRAWL_UST_ALLOW_BLOCKING) set in "
				       "its environment."},
	{"--monitor-timer=US", "Sample how full the channel's buffers are every US microseconds "
			       "(or with a suffix us, ms, s, m, h; 0: never; default 1 s): what "
			       "buffer-usage and session-consumed-size triggers see."},
	{"--output=TYPE", "mmap or splice, as LTTng's: user-space channels are mmap only, kernel "
			  "channels splice by default (mmap in a snapshot session). The channel "
			  "says so (list, --mi xml, save); trawl's consumers write every channel "
			  "the same way whichever is chosen."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/*
 * LTTng 2.13's --output words, matched as its client does: by their
 * prefix ("mmapX" is mmap). 0, or -1 if neither.
 */
static int parse_output(const char *s, enum trawl_ctl_output *out)
{
	if (!strncmp(s, "mmap", 4))
		*out = TRAWL_CTL_OUTPUT_MMAP;
	else if (!strncmp(s, "splice", 6))
		*out = TRAWL_CTL_OUTPUT_SPLICE;
	else
		return -1;
	return 0;
}

/*
 * LTTng 2.13's time values (utils_parse_time_suffix()): a number of µs with
 * an optional suffix us, ms, s, m or h, never negative. 0 or -1.
 */
static int parse_time_us(const char *s, uint64_t *us)
{
	uint64_t v, mult = 1;
	char *end;

	if (strchr(s, '-') || !*s)
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	if (!strcmp(end, "us") || !*end)
		mult = 1;
	else if (!strcmp(end, "ms"))
		mult = 1000;
	else if (!strcmp(end, "s"))
		mult = 1000000;
	else if (!strcmp(end, "m"))
		mult = 60000000;
	else if (!strcmp(end, "h"))
		mult = 3600000000ull;
	else
		return -1;
	if (v > UINT64_MAX / mult)
		return -1;
	*us = v * mult;
	return 0;
}

/*
 * LTTng 2.13's --blocking-timeout value: "inf" (-1), or a time (above)
 * whose milliseconds fit a 32-bit int. 0 or -1 (bad value) or -2 (too large).
 */
static int parse_blocking(const char *s, int64_t *us)
{
	uint64_t v;

	if (!strcmp(s, "inf")) {
		*us = TRAWL_CTL_BLOCKING_INF;
		return 0;
	}
	if (parse_time_us(s, &v))
		return -1;
	if (v > (uint64_t)TRAWL_CTL_BLOCKING_MAX_US)
		return -2;
	*us = (int64_t)v;
	return 0;
}

/*
 * LTTng's <channel> for a channel enable-channel made (or failed to): its
 * attributes as the daemon has them when it has the channel, else as
 * asked (@asked: 0 for a default).
 */
static void mi_channel(struct trawl_ctl *ctl, const char *session,
		       const struct trawl_ctl_channel_info *asked, int ok)
{
	struct trawl_ctl_channel_info c = {.struct_size = sizeof(c)};
	struct trawl_ctl_list *l;
	size_t i;
	int found = 0;

	if (!trawl_ctl_list_session(ctl, session, &l)) {
		for (i = 0; !found && i < trawl_ctl_list_count(l); i++)
			found = trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_CHANNEL &&
				!trawl_ctl_list_channel_at(l, i, &c) && c.domain == asked->domain &&
				!strcmp(c.name, asked->name);
		if (found) {
			c.enabled = ok || c.enabled;
			c.discarded_events = c.lost_packets = 0; /* LTTng's answer has none */
			cli_mi_channel_open(&c);
		}
		trawl_ctl_list_destroy(l);
	}
	if (!found)
		cli_mi_channel_open(asked);
	cli_mi_bool("success", ok);
	cli_mi_close();
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_TARGET_OPTIONS,
		{"subbuf-size", required_argument, NULL, 'B'},
		{"num-subbuf", required_argument, NULL, 'N'},
		{"overwrite", no_argument, NULL, 'O'},
		{"discard", no_argument, NULL, 'D'},
		{"switch-timer", required_argument, NULL, 'S'},
		{"read-timer", required_argument, NULL, 'R'},
		{"buffers-uid", no_argument, NULL, 'I'},
		{"buffers-pid", no_argument, NULL, 'P'},
		{"buffers-global", no_argument, NULL, 'G'},
		{"tracefile-size", required_argument, NULL, 'C'},
		{"tracefile-count", required_argument, NULL, 'W'},
		{"blocking-timeout", required_argument, NULL, 'b'},
		{"output", required_argument, NULL, 'o'},
		{"monitor-timer", required_argument, NULL, 'M'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	struct trawl_ctl_channel_attr *attr;
	struct cli_target t = {0};
	struct trawl_ctl *ctl;
	char *names, *tok, *save;
	uint64_t subbuf = 0, subbuf_eff, tf_size = 0;
	uint32_t num = 0, sw = 0, rd = 0, tf_count = 0;
	enum trawl_ctl_buffers buffers = TRAWL_CTL_BUFFERS_DEFAULT;
	enum trawl_ctl_output output = TRAWL_CTL_OUTPUT_DEFAULT;
	int c, ret = 0, first = 0, ok, overwrite = -1, blocking_set = 0;
	int64_t blocking = 0;
	uint64_t monitor = TRAWL_CTL_MONITOR_DEFAULT_US;
	int monitor_set = 0;

	while ((c = getopt_long(argc, argv, "hkus:C:W:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_enable_channel);
			return 0;
		case 'B':
			if (cli_parse_size(optarg, &subbuf))
				return cli_error(-EINVAL, "bad sub-buffer size '%s'", optarg);
			break;
		case 'N':
			if (cli_parse_u32(optarg, &num))
				return cli_error(-EINVAL, "bad number of sub-buffers '%s'", optarg);
			break;
		case 'O':
			overwrite = 1;
			break;
		case 'D':
			overwrite = 0;
			break;
		case 'S':
			if (cli_parse_u32(optarg, &sw))
				return cli_error(-EINVAL, "bad switch timer '%s'", optarg);
			break;
		case 'R':
			if (cli_parse_u32(optarg, &rd))
				return cli_error(-EINVAL, "bad read timer '%s'", optarg);
			break;
		case 'I':
			buffers = TRAWL_CTL_BUFFERS_PER_UID;
			break;
		case 'P':
			buffers = TRAWL_CTL_BUFFERS_PER_PID;
			break;
		case 'G':
			buffers = TRAWL_CTL_BUFFERS_GLOBAL;
			break;
		case 'C':
			if (cli_parse_size(optarg, &tf_size))
				return cli_error(-EINVAL, "bad trace file size '%s'", optarg);
			break;
		case 'W':
			if (cli_parse_u32(optarg, &tf_count))
				return cli_error(-EINVAL, "bad trace file count '%s'", optarg);
			break;
		case 'b':
			ret = parse_blocking(optarg, &blocking);
			if (ret == -2)
				return cli_error(-EINVAL, "32-bit milliseconds overflow in "
							  "--blocking-timeout parameter: %s", optarg);
			if (ret)
				return cli_error(-EINVAL, "Wrong value for --blocking-timeout "
							  "parameter: %s", optarg);
			blocking_set = 1;
			break;
		case 'M':
			/* LTTng's words; trawl takes up to TRAWL_CTL_MONITOR_MAX_US */
			if (parse_time_us(optarg, &monitor) || monitor > TRAWL_CTL_MONITOR_MAX_US)
				return cli_error(-EINVAL, "Wrong value for --monitor-timer parameter: %s",
						 optarg);
			monitor_set = 1;
			break;
		case 'o':
			if (parse_output(optarg, &output))
				return cli_error(-EINVAL, "Unknown output type %s. Possible values are: "
							  "mmap, splice", optarg);
			break;
		default:
			if (!cli_target_opt(&t, c, optarg))
				return cli_usage(&cli_cmd_enable_channel, "bad option");
		}
	}
	if (t.domain == TRAWL_CTL_DOMAIN_NONE)
		return cli_usage(&cli_cmd_enable_channel, "give a domain: -k or -u");
	if (argc - optind != 1)
		return cli_usage(&cli_cmd_enable_channel, "expected one channel name (or a comma list)");
	/* LTTng 2.13's checks and words. */
	if (blocking_set && t.domain == TRAWL_CTL_DOMAIN_KERNEL)
		return cli_error(-EINVAL, "Retry timeout option not supported for kernel domain (-k)");
	if (overwrite == 1 && blocking)
		return cli_error(-EINVAL, "You cannot specify --overwrite and --blocking-timeout=N, "
					  "where N is different than 0");
	if ((buffers == TRAWL_CTL_BUFFERS_PER_UID || buffers == TRAWL_CTL_BUFFERS_PER_PID) &&
	    t.domain == TRAWL_CTL_DOMAIN_KERNEL)
		return cli_error(-EINVAL, "--buffers-uid/--buffers-pid apply to user space only");
	/* LTTng 2.13's rules and lines (its client's, before anything is asked) */
	if (!tf_size && tf_count) {
		fprintf(stderr, "Error: Missing option --tracefile-size. A file count without a "
				"size won't do anything.\n");
		return 1;
	}
	subbuf_eff = subbuf ? subbuf : CLI_DEFAULT_SUBBUF_SIZE(t.domain);
	if (tf_size && tf_size < subbuf_eff) {
		fprintf(stderr,
			"Warning: Tracefile size rounded up from (%llu) to subbuffer size "
			"(%llu)\n",
			(unsigned long long)tf_size, (unsigned long long)subbuf_eff);
		tf_size = subbuf_eff;
	}
	ret = cli_target_connect(&cli_cmd_enable_channel, &t, &ctl);
	if (ret)
		return ret;
	names = strdup(argv[optind]);
	cli_mi_open("channels");
	for (tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		ret = 0;
		attr = trawl_ctl_channel_attr_create(tok);
		if (!attr) {
			cli_list_note(cli_error(-EINVAL, "bad channel name '%s'", tok), &first);
			continue;
		}
		if (subbuf && trawl_ctl_channel_attr_set_subbuf_size(attr, subbuf))
			ret = cli_error(-EINVAL, "bad sub-buffer size %llu: a power of two, at "
						 "least 4096", (unsigned long long)subbuf);
		else if (num && trawl_ctl_channel_attr_set_num_subbuf(attr, num))
			ret = cli_error(-EINVAL, "bad number of sub-buffers %u: a power of two, at "
						 "least 2", num);
		if (ret) {
			/* The same for every channel of the list: said once. */
			cli_list_note(ret, &first);
			trawl_ctl_channel_attr_destroy(attr);
			break;
		}
		if (overwrite >= 0)
			trawl_ctl_channel_attr_set_overwrite(attr, overwrite);
		trawl_ctl_channel_attr_set_buffers(attr, buffers);
		trawl_ctl_channel_attr_set_switch_timer(attr, sw);
		trawl_ctl_channel_attr_set_read_timer(attr, rd);
		trawl_ctl_channel_attr_set_tracefile_size(attr, tf_size);
		trawl_ctl_channel_attr_set_tracefile_count(attr, tf_count);
		trawl_ctl_channel_attr_set_blocking_timeout(attr, blocking);
		trawl_ctl_channel_attr_set_output(attr, output);
		if (monitor_set)
			trawl_ctl_channel_attr_set_monitor_timer(attr, monitor);
		ret = trawl_ctl_channel_enable(ctl, t.name, t.domain, attr);
		ok = !ret;
		if (ret && cli_list_fail(ctl, ret, "enable-channel", &first)) {
			trawl_ctl_channel_attr_destroy(attr);
			break;
		}
		if (ok && !cli_quiet)
			printf("%s channel %s enabled for session %s\n",
			       cli_domain_word(t.domain), tok, t.name);
		if (cli_mi) {
			struct trawl_ctl_channel_info asked = {
				.domain = t.domain,
				.name = tok,
				.enabled = 1,
				.overwrite = overwrite > 0,
				.subbuf_size = subbuf,
				.num_subbuf = num,
				.switch_timer_us = sw,
				.read_timer_us = rd,
				.buffers = buffers,
				.tracefile_size = tf_size,
				.tracefile_count = tf_count,
				.blocking_timeout_us = blocking,
				.output = output,
				.monitor_timer_us = monitor,
			};

			mi_channel(ctl, t.name, &asked, ok);
		}
		trawl_ctl_channel_attr_destroy(attr);
	}
	free(names);
	trawl_ctl_disconnect(ctl);
	return first;
}

const struct cli_cmd cli_cmd_enable_channel = {
	.name = "enable-channel",
	.summary = "Create or enable channels",
	.synopsis = "(-k | -u) [-s NAME] [--subbuf-size SIZE] [--num-subbuf N] [--overwrite | "
		    "--discard] [--switch-timer US] [--read-timer US] [--buffers-uid | "
		    "--buffers-pid] [--tracefile-size SIZE [--tracefile-count COUNT]] "
		    "[--blocking-timeout TIMEOUT] [--monitor-timer US] [--output mmap|splice] "
		    "CHANNEL[,CHANNEL...]",
	.description = "Creates each CHANNEL (a set of per-CPU ring buffers) in the session, or "
		       "enables it again after disable-channel. Channels are created before the "
		       "session first starts.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
