/* SPDX-License-Identifier: MIT */
/* cmd-add-context.c - `trawl add-context`: extra fields on every event of a channel. */
#include "cli/cli.h"

#include <ctype.h>
#include <getopt.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>

#include "common/common.h"

#define LTTNG_CMD_WARNING 4 /* lttng's exit when some of the contexts failed */

static const struct cli_option_doc opts_doc[] = {
	{"-k, --kernel", "Kernel channels."},
	{"-u, --userspace", "User-space channels."},
	{"-j, --jul", "The user-space channels, as LTTng's JUL domain: an application context "
		      "($app.PROVIDER:NAME) is also asked of the programs' JUL agents."},
	{"-l, --log4j", "As -j, for the log4j domain."},
	{"-s, --session=NAME", "The session (default: the current session)."},
	{"-c, --channel=NAME", "Only this channel (default: every channel of the domain)."},
	{"-t, --type=TYPE", "The context. User space (-u): vpid, vtid, pid, tid, procname, "
			    "pthread_id, ppid, ip, prio, nice, cgroup_ns, ipc_ns, mnt_ns, net_ns, pid_ns, "
			    "time_ns, user_ns, uts_ns (the namespaces' inode numbers), "
			    "perf:thread:COUNTER. Kernel (-k): pid, "
			    "tid, vpid, vtid, ppid, procname, prio, nice, the same namespaces, "
			    "perf:cpu:COUNTER. "
			    "COUNTER: page-fault (faults), minor-faults, major-faults, context-switches "
			    "(cs), cpu-migrations (migrations), task-clock, cpu-clock, alignment-faults, "
			    "emulation-faults; with a hardware PMU also cpu-cycles (cycles), "
			    "instructions, cache-references, cache-misses, branch-instructions "
			    "(branches), branch-misses, bus-cycles, ref-cycles, L1-dcache-load-misses "
			    "and the other perf cache counters, and raw:rHEX:NAME (a PMU event by its "
			    "number, field perf_thread_raw_rHEX_NAME). Application contexts (-u, -j, "
			    "-l): $app.PROVIDER:NAME (PROVIDER and NAME of A-Z a-z 0-9 _ .), the value "
			    "a program's provider gives (LTTng's Java agent: the IContextInfoRetriever "
			    "registered as PROVIDER), field _app_PROVIDER_NAME. Repeatable."},
	{"--list", "List the context types, the domains that offer them, and whether this "
		   "machine has each perf counter."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/* `--list`: one type a line, with the domains that take it (-k, -u). */
static int list_types(void)
{
	static const struct {
		const char *name, *domains;
	} plain[] = {
		{"pid", "-k -u"},  {"tid", "-k -u"},	  {"vpid", "-k -u"},	   {"vtid", "-k -u"},
		{"ppid", "-k -u"}, {"procname", "-k -u"}, {"prio", "-k -u"},	   {"nice", "-k -u"},
		{"ip", "-u"},	   {"pthread_id", "-u"},	   {"cgroup_ns", "-k -u"}, {"ipc_ns", "-k -u"},
		{"mnt_ns", "-k -u"}, {"net_ns", "-k -u"},	   {"pid_ns", "-k -u"},	   {"time_ns", "-k -u"},
		{"user_ns", "-k -u"}, {"uts_ns", "-k -u"},
	};
	/* Hardware counters need a PMU, which the kernel lists here. */
	int pmu = access("/sys/bus/event_source/devices/cpu", F_OK) == 0;
	char name[64];
	size_t i;
	int sw;

	for (i = 0; i < TRAWL_ARRAY_SIZE(plain); i++)
		printf("%-36s %s\n", plain[i].name, plain[i].domains);
	for (i = 0; !trawl_perf_counter_name(i, name, sizeof(name), &sw); i++) {
		const char *note = sw ? "" : pmu ? "  (hardware)" : "  (hardware: no PMU on this machine)";

		/* Both as "%-36s" of the whole type: the prefix's length taken off the width. */
		printf("perf:cpu:%-27s -k%s\n", name, note);
		printf("perf:thread:%-24s -u%s\n", name, note);
	}
	return 0;
}

/*
 * LTTng's <context>: its type (VPID...) or, for a perf counter, the
 * counter's perf type, config and name; then the symbol as given.
 */
static void mi_context(const char *type, int ok)
{
	const char *counter = !strncmp(type, "perf:cpu:", 9)      ? type + 9
			      : !strncmp(type, "perf:thread:", 12) ? type + 12
								   : NULL;
	char word[256];
	uint32_t ptype = 0;
	uint64_t config = 0;
	size_t i;

	cli_mi_open("context");
	if (!strncmp(type, "$app.", 5) && strchr(type + 5, ':')) {
		/* LTTng's <app><provider_name/><ctx_name/></app> */
		const char *colon = strchr(type + 5, ':');

		trawl_msg_fmt(word, sizeof(word), "%.*s", (int)(colon - (type + 5)), type + 5);
		cli_mi_open("app");
		cli_mi_str("provider_name", word);
		cli_mi_str("ctx_name", colon + 1);
		cli_mi_close();
	} else if (counter) {
		trawl_perf_counter_lookup(counter, &ptype, &config);
		cli_mi_open("perf");
		cli_mi_u64("type", ptype);
		cli_mi_u64("config", config);
		/* LTTng's field name: perf_thread_page_fault */
		for (i = 0; type[i] && i < sizeof(word) - 1; i++)
			word[i] = type[i] == ':' || type[i] == '-' ? '_' : type[i];
		word[i] = '\0';
		cli_mi_str("name", word);
		cli_mi_close();
	} else {
		for (i = 0; type[i] && i < sizeof(word) - 1; i++)
			word[i] = (char)toupper((unsigned char)type[i]);
		word[i] = '\0';
		cli_mi_str("type", word);
	}
	cli_mi_str("symbol", type);
	cli_mi_bool("success", ok);
	cli_mi_close();
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_TARGET_OPTIONS,
		CLI_AGENT_OPTIONS,
		CLI_CHANNEL_OPTION,
		{"type", required_argument, NULL, 't'},
		{"list", no_argument, NULL, 'L'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	struct cli_target t = {0};
	const char *types[64];
	struct trawl_ctl *ctl;
	int c, ret = 0, nr = 0, i, warn = 0;

	while ((c = getopt_long(argc, argv, "hkus:c:t:jlp", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			/* LTTng's add-context has no --python: its Python
			 * agent has no application contexts. */
			return cli_usage(&cli_cmd_add_context, "--python: the Python domain has no "
								"contexts (LTTng's Python agent records no "
								"application contexts)");
		case 'j':
		case 'l':
			cli_agent_opt(&t, c);
			break;
		case 'h':
			cli_help_print(&cli_cmd_add_context);
			return 0;
		case 'L':
			return list_types();
		case 't':
			if (nr == 64)
				return cli_usage(&cli_cmd_add_context, "too many -t");
			types[nr++] = optarg;
			break;
		default:
			if (!cli_target_opt(&t, c, optarg))
				return cli_usage(&cli_cmd_add_context, "bad option");
		}
	}
	if (t.domain == TRAWL_CTL_DOMAIN_NONE)
		return cli_usage(&cli_cmd_add_context, "give a domain: -k, -u, -j or -l");
	if (!nr)
		return cli_usage(&cli_cmd_add_context, "give at least one -t TYPE");
	if (argc > optind)
		return cli_usage(&cli_cmd_add_context, "unexpected argument '%s'", argv[optind]);
	ret = cli_target_connect(&cli_cmd_add_context, &t, &ctl);
	if (ret)
		return ret;
	cli_mi_open("contexts");
	for (i = 0; i < nr && !ret; i++) {
		ret = trawl_ctl_context_add(ctl, t.name, t.domain, t.channel, types[i]);
		if (cli_mi)
			mi_context(types[i], !ret);
		if (ret && cli_as_lttng) {
			/* LTTng's: each type the daemon refuses is said, the
			 * others are still added, and the exit is 4
			 * (CMD_WARNING: its scripts skip a context this
			 * machine lacks on it). */
			const char *line = trawl_ctl_last_error(ctl);

			fprintf(stderr, "Error: %s: %s\n", types[i], line[0] ? line : strerror(-ret));
			warn = 1;
			ret = 0;
		} else if (ret)
			ret = cli_fail(ctl, ret, "add-context");
		else if (!cli_quiet && t.channel)
			printf("%s context %s added to channel %s\n", cli_domain_word(t.domain), types[i],
			       t.channel);
		else if (!cli_quiet)
			printf("%s context %s added to all channels\n", cli_domain_word(t.domain),
			       types[i]);
	}
	trawl_ctl_disconnect(ctl);
	return !ret && warn ? LTTNG_CMD_WARNING : ret;
}

const struct cli_cmd cli_cmd_add_context = {
	.name = "add-context",
	.summary = "Add context fields to channels",
	.synopsis = "(-k | -u | -j | -l) [-s NAME] [-c CHANNEL] -t TYPE [-t TYPE...] | --list",
	.description = "Adds the context fields TYPE to every event recorded in the channel "
		       "(or in every channel of the domain), before the session first starts. "
		       "A user-space channel's apps all record the same contexts (shared "
		       "per-user buffers), written in the order listed under --type, whatever "
		       "the order they were added in; perf:thread counters come last, in the "
		       "order added. In user space prio and nice are read at every event, and "
		       "each thread opens its own perf:thread counter at its first event and "
		       "records what it counted since (18446744073709551615 when the thread "
		       "could not open it). perf:cpu counters are for the kernel (-k) only. "
		       "Application contexts come after the others, in the order added: each "
		       "a tag and a variant (_app_P_N_tag, _app_P_N), as LTTng lays them out; "
		       "an event of a thread whose process has no provider P, or whose "
		       "provider has no value for N, records the variant's _none. -j and -l "
		       "add to the user-space channels (-c: only lttng_jul_channel or "
		       "lttng_log4j_channel, made with the defaults if the session has no "
		       "user-space channel), as LTTng 2.13 does.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
