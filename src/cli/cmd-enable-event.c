/* SPDX-License-Identifier: MIT */
/* cmd-enable-event.c - `trawl enable-event`: event rules. */
#include "cli/cli.h"
#include "common/common.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct cli_option_doc opts_doc[] = {
	{"-k, --kernel", "Kernel events."},
	{"-u, --userspace", "User-space (application) events."},
	{"-j, --jul", "java.util.logging loggers (NAME: a logger name)."},
	{"-l, --log4j", "log4j loggers."},
	{"-p, --python", "Python logging loggers."},
	{"-s, --session=NAME", "The session (default: the current session)."},
	{"-c, --channel=NAME", "The channel (default: channel0, created when needed)."},
	{"-a, --all", "Every event (same as the name \"*\")."},
	{"--tracepoint", "NAMEs are tracepoints (the default); '*' is a wildcard."},
	{"--syscall", "NAMEs are system calls (kernel): entry and exit events."},
	{"--probe=SYM[+OFF]|ADDR", "A dynamic probe named NAME at this kernel location."},
	{"--function=SYM", "Entry and return probes named NAME on kernel function SYM."},
	{"--userspace-probe=elf:PATH:SYMBOL", "A user-space probe named NAME (kernel domain) at the "
	 "start of function SYMBOL of the ELF file PATH (a relative PATH from here, a bare "
	 "name from $PATH)."},
	{"--userspace-probe=sdt:PATH:PROVIDER:NAME", "A user-space probe at the SDT probe "
	 "PROVIDER:NAME (sys/sdt.h) of PATH."},
	{"--loglevel=LEVEL", "Events of LEVEL or more severe (TRACE_EMERG .. TRACE_DEBUG; -j: "
	 "SEVERE .. FINEST, -l: FATAL .. TRACE, -p: CRITICAL .. NOTSET, LTTng's names)."},
	{"--loglevel-only=LEVEL", "Events of exactly LEVEL."},
	{"-f, --filter=EXPR", "Record only events for which EXPR is true."},
	{"-x, --exclude=NAME[,NAME...]", "User space: leave out these events (names or '*' "
	 "patterns) of a NAME pattern's rule."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/* @name (no '/') found in $PATH as an executable: 0 with @buf filled, else -ENOENT. */
static int path_search(const char *name, char *buf, size_t len)
{
	char *dirs = strdup(getenv("PATH") ? getenv("PATH") : ""), *dir, *save = NULL;
	int ret = -ENOENT;

	if (!dirs)
		return -ENOMEM;
	for (dir = strtok_r(dirs, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		int n = snprintf(buf, len, "%s/%s", dir, name);

		if (n > 0 && (size_t)n < len && access(buf, X_OK) == 0) {
			ret = 0;
			break;
		}
	}
	free(dirs);
	return ret;
}

/*
 * The daemon takes absolute paths only (it has no working directory of
 * ours): a relative PATH in LOC becomes absolute from here, and a bare
 * name is looked up in $PATH, as a shell would. Writes the location to
 * @buf; 0, or an exit status from cli_error().
 */
static int uprobe_location(const char *loc, char *buf, size_t len)
{
	const char *body = loc, *colon;
	char path[PATH_MAX], found[PATH_MAX], real[PATH_MAX];
	size_t plen;

	if (!strncmp(loc, "elf:", 4) || !strncmp(loc, "sdt:", 4))
		body = loc + 4;
	colon = strchr(body, ':');
	if (body[0] == '/' || !colon) {
		if (trawl_path_fmt(buf, len, "%s", loc))
			return cli_error(-ENAMETOOLONG, "user-space probe: location too long");
		return 0;
	}
	plen = (size_t)(colon - body);
	if (plen >= sizeof(path))
		return cli_error(-ENAMETOOLONG, "user-space probe: path too long");
	memcpy(path, body, plen);
	path[plen] = '\0';
	if (!strchr(path, '/')) {
		if (path_search(path, found, sizeof(found)) < 0)
			return cli_error(-ENOENT, "user-space probe: no program \"%s\" in $PATH", path);
		memcpy(path, found, sizeof(path));
	}
	if (!realpath(path, real))
		return cli_error(-errno, "user-space probe: %s: %s", path, strerror(errno));
	if ((size_t)snprintf(buf, len, "%.*s%s%s", (int)(body - loc), loc, real, colon) >= len)
		return cli_error(-ENAMETOOLONG, "user-space probe: location too long");
	return 0;
}

/* LTTng's star globs: a '*' not escaped by '\\'. */
static int is_star_glob(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '*')
			return 1;
	}
	return 0;
}

/* A star glob whose only star is its last character. */
static int is_star_at_end_only(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\' && p[1])
			p++;
		else if (*p == '*')
			return p[1] == '\0';
	}
	return 0;
}

/*
 * LTTng 2.13's check of one exclusion @x against a rule @name ending in its
 * only '*' (enable_events.c, check_exclusion_subsets): 2 when @x takes every
 * event of @name (refused), 1 when it cannot take any (a warning), else 0.
 */
static int exclusion_subset(const char *name, const char *x)
{
	const char *e = name;

	for (;;) {
		if (*e == '\\') {
			if (*x != *e)
				return 1;
			e++;
			x++;
		} else if (*x == '*') {
			return 2;
		} else if (*e == '*') {
			return 0;
		}
		if (*x != *e)
			return 1;
		x++;
		e++;
	}
}

/*
 * The exclusions of @arg ("a,b*") for rule @name, checked as LTTng's client
 * checks them, added to @ev; the text " excluding \"a\", \"b*\"" LTTng
 * prints goes to @say. 0, or an exit status.
 */
static int exclusions_set(struct trawl_ctl_event *ev, const char *name, const char *arg,
			  char *say, size_t saylen)
{
	char *list = strdup(arg), *x, *save = NULL;
	int ret = 0;
	size_t used = 0;

	if (!list)
		return cli_error(-ENOMEM, "out of memory");
	say[0] = '\0';
	if (!is_star_glob(name))
		ret = cli_error(-EINVAL, "event %s: exclusions can only be used with a globbing "
					 "pattern", name);
	for (x = strtok_r(list, ",", &save); x && !ret; x = strtok_r(NULL, ",", &save)) {
		int sub = 0;

		if (is_star_at_end_only(name) && (!is_star_glob(x) || is_star_at_end_only(x)))
			sub = exclusion_subset(name, x);
		if (sub == 2) {
			ret = cli_error(-EINVAL, "event %s: %s excludes all events from %s", name, x,
					name);
			break;
		}
		if (sub == 1)
			fprintf(stderr, "Warning: Event %s: %s does not exclude any events from %s\n",
				name, x, name);
		if (trawl_ctl_event_add_exclusion(ev, x))
			ret = cli_error(-ENAMETOOLONG, "event %s: exclusions too long (%d bytes at "
						       "most)", name, TRAWL_CTL_EXCLUSIONS_MAX - 1);
		else if (used < saylen)
			used += (size_t)snprintf(say + used, saylen - used, "%s\"%s\"",
						 used ? ", " : " excluding ", x);
	}
	free(list);
	return ret;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_TARGET_OPTIONS,
		CLI_CHANNEL_OPTION,
		CLI_AGENT_OPTIONS,
		{"all", no_argument, NULL, 'a'},
		{"tracepoint", no_argument, NULL, 'T'},
		{"syscall", no_argument, NULL, 'Y'},
		{"probe", required_argument, NULL, 'P'},
		{"function", required_argument, NULL, 'F'},
		{"userspace-probe", required_argument, NULL, 'U'},
		{"loglevel", required_argument, NULL, 'V'},
		{"loglevel-only", required_argument, NULL, 'L'},
		{"filter", required_argument, NULL, 'f'},
		{"exclude", required_argument, NULL, 'x'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	enum trawl_ctl_event_kind kind = TRAWL_CTL_EVENT_TRACEPOINT;
	enum trawl_ctl_loglevel_type lt = TRAWL_CTL_LOGLEVEL_ALL;
	const char *target = NULL, *filter = NULL, *exclude = NULL, *level_name = NULL;
	char uloc[PATH_MAX + 600], excluding[4 * TRAWL_CTL_EXCLUSIONS_MAX];
	struct cli_target t = {0};
	struct trawl_ctl *ctl;
	char *names, *tok, *save;
	int c, ret = 0, first = 0, all = 0, level = 0, agent;

	while ((c = getopt_long(argc, argv, "hkujlps:c:af:x:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_enable_event);
			return 0;
		case 'a':
			all = 1;
			break;
		case 'T':
			kind = TRAWL_CTL_EVENT_TRACEPOINT;
			break;
		case 'Y':
			kind = TRAWL_CTL_EVENT_SYSCALL;
			break;
		case 'P':
			kind = TRAWL_CTL_EVENT_PROBE;
			target = optarg;
			break;
		case 'F':
			kind = TRAWL_CTL_EVENT_FUNCTION;
			target = optarg;
			break;
		case 'U':
			kind = TRAWL_CTL_EVENT_USERSPACE_PROBE;
			ret = uprobe_location(optarg, uloc, sizeof(uloc));
			if (ret)
				return ret;
			target = uloc;
			break;
		case 'V':
		case 'L':
			/* (parsed below: the domain's names, the domain maybe after) */
			level_name = optarg;
			lt = c == 'V' ? TRAWL_CTL_LOGLEVEL_RANGE : TRAWL_CTL_LOGLEVEL_SINGLE;
			break;
		case 'f':
			filter = optarg;
			break;
		case 'x':
			exclude = optarg;
			break;
		default:
			if (!cli_target_opt(&t, c, optarg) && !cli_agent_opt(&t, c))
				return cli_usage(&cli_cmd_enable_event, "bad option");
		}
	}
	if (t.domain == TRAWL_CTL_DOMAIN_NONE)
		return cli_usage(&cli_cmd_enable_event, "give a domain: -k, -u, -j, -l or -p");
	if (t.domains_given > 1)
		return cli_error(-EINVAL, "only one domain must be specified");
	agent = t.domain >= TRAWL_CTL_DOMAIN_JUL;
	if (agent && kind != TRAWL_CTL_EVENT_TRACEPOINT)
		return cli_error(-EOPNOTSUPP, "event type not supported for domain");
	if (level_name && agent && trawl_ctl_agent_loglevel_parse(t.domain, level_name, &level))
		return cli_error(-EINVAL, "unknown loglevel %s", level_name);
	if (level_name && !agent && (level = trawl_ctl_loglevel_parse(level_name)) < 0)
		return cli_error(-EINVAL, "unknown log level '%s' (TRACE_EMERG .. TRACE_DEBUG, or "
					  "0 .. 14)", level_name);
	if (all && argc > optind)
		return cli_usage(&cli_cmd_enable_event, "give event names or --all, not both");
	if (!all && argc - optind != 1)
		return cli_usage(&cli_cmd_enable_event, "expected event names (NAME[,NAME...]) or --all");
	if (target && all)
		return cli_usage(&cli_cmd_enable_event, "a probe needs a name, not --all");
	if (lt != TRAWL_CTL_LOGLEVEL_ALL && t.domain == TRAWL_CTL_DOMAIN_KERNEL)
		return cli_error(-EINVAL, "log levels apply to user-space events only");
	if (exclude && (t.domain == TRAWL_CTL_DOMAIN_KERNEL || agent))
		return cli_error(-EINVAL, "event name exclusions are not yet implemented for %s "
					  "events", agent ? cli_domain_word(t.domain) : "kernel");
	/* LTTng's check and words (its kernel tracer has no filters on probes) */
	if (filter && t.domain == TRAWL_CTL_DOMAIN_KERNEL && kind >= TRAWL_CTL_EVENT_PROBE)
		return cli_error(-EINVAL, "filter expressions are not supported for %s events",
				 kind == TRAWL_CTL_EVENT_PROBE	  ? "Probe"
				 : kind == TRAWL_CTL_EVENT_FUNCTION ? "Function"
								    : "Userspace Probe");
	ret = cli_target_connect(&cli_cmd_enable_event, &t, &ctl);
	if (ret)
		return ret;
	names = strdup(all ? "*" : argv[optind]);
	cli_mi_open("events");
	for (tok = strtok_r(names, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct trawl_ctl_event *ev = trawl_ctl_event_create(kind, tok);

		if (!ev) {
			cli_list_note(cli_error(-EINVAL, "bad event name '%s'", tok), &first);
			continue;
		}
		if ((target && trawl_ctl_event_set_target(ev, target)) ||
		    (filter && trawl_ctl_event_set_filter(ev, filter)) ||
		    (lt && trawl_ctl_event_set_loglevel(ev, lt, level))) {
			trawl_ctl_event_destroy(ev);
			cli_list_note(cli_error(-EINVAL, "probe location or filter too long"), &first);
			break;
		}
		excluding[0] = '\0';
		if (exclude) {
			/* As LTTng's: a list's bad exclusion ends it there. */
			ret = exclusions_set(ev, tok, exclude, excluding, sizeof(excluding));
			if (ret) {
				trawl_ctl_event_destroy(ev);
				cli_list_note(ret, &first);
				break;
			}
		}
		ret = trawl_ctl_event_enable(ctl, t.name, t.domain, t.channel, ev);
		trawl_ctl_event_destroy(ev);
		if (cli_mi) {
			/* As LTTng's: what was asked, without the filter. */
			struct cli_mi_event me = {
				.name = tok, .kind = kind, .enabled = !ret, .target = target,
				.loglevel = lt != TRAWL_CTL_LOGLEVEL_ALL ? level : -1,
				.loglevel_type = lt, .exclusions = exclude, .exclusions_apart = 1,
				.domain = t.domain,
			};

			if (agent && lt == TRAWL_CTL_LOGLEVEL_ALL) /* LTTng's: the domain's "all" */
				me.loglevel = t.domain == TRAWL_CTL_DOMAIN_PYTHON ? TRAWL_CTL_PYTHON_DEBUG
					: t.domain == TRAWL_CTL_DOMAIN_JUL ? TRAWL_CTL_JUL_ALL
					: TRAWL_CTL_LOG4J_ALL;

			cli_mi_event_open(&me);
			cli_mi_bool("success", !ret);
			cli_mi_close();
		}
		if (ret && cli_list_fail(ctl, ret, "enable-event", &first))
			break;
		if (!ret && !cli_quiet) {
			/* LTTng 2.13's lines: "All" for --all only (a name "*" is a
			 * name), and a filter's own line. */
			const char *chan = t.channel ? t.channel : "channel0";

			if (all && kind == TRAWL_CTL_EVENT_SYSCALL)
				printf("All %s system calls are enabled in channel %s\n",
				       cli_domain_word(t.domain), chan);
			else if (all && level_name) /* LTTng's: the level as given */
				printf("All %s events%s are enabled in channel %s for loglevel %s\n",
				       cli_domain_word(t.domain), excluding, chan, level_name);
			else if (all)
				printf("All %s events%s are enabled in channel %s\n",
				       cli_domain_word(t.domain), excluding, chan);
			else if (!filter && agent) /* LTTng's agent line: no channel */
				printf("%s event %s enabled\n", cli_domain_word(t.domain), tok);
			else if (!filter)
				printf("%s event %s%s created in channel %s\n",
				       cli_domain_word(t.domain), tok, excluding, chan);
			if (filter && all)
				printf("Filter '%s' successfully set\n", filter);
			else if (filter)
				printf("Event %s%s: Filter '%s' successfully set\n", tok, excluding,
				       filter);
		}
	}
	free(names);
	trawl_ctl_disconnect(ctl);
	return first;
}

const struct cli_cmd cli_cmd_enable_event = {
	.name = "enable-event",
	.summary = "Enable event rules",
	.synopsis = "(-k | -u | -j | -l | -p) [-s NAME] [-c CHANNEL] [--syscall | --probe LOC | --function SYM | "
		    "--userspace-probe LOC] [--loglevel L | --loglevel-only L] [--filter EXPR] "
		    "[--exclude NAME[,NAME...]] (NAME[,NAME...] | --all)",
	.description = "Records the named events (or, with --all, every event) in a channel of "
		       "the session. Names may hold '*' wildcards. Rules can be added while the "
		       "session traces.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
