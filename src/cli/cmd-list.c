/* SPDX-License-Identifier: MIT */
/* cmd-list.c - `trawl list`: sessions, one session, or the events a domain offers. */
#include "cli/cli.h"
#include "common/common.h"
#include "cli/show.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct cli_option_doc opts_doc[] = {
	{"-k, --kernel", "List the kernel's tracepoints (with --syscall: its system calls)."},
	{"-u, --userspace", "List the tracepoints of the applications registered now."},
	{"-j, --jul", "List the java.util.logging loggers of the agents registered now."},
	{"-l, --log4j", "List the log4j loggers of the agents registered now."},
	{"-p, --python", "List the Python loggers of the agents registered now."},
	{"-f, --fields", "With -k or -u, list each event's fields too."},
	{"--syscall", "With -k, list system calls."},
	{"-c, --channel=NAME", "Accepted for LTTng compatibility."},
	{"-d, --domain", "With a SESSION: list its domains only."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int list_sessions(struct trawl_ctl *ctl)
{
	struct trawl_ctl_list *l;
	size_t i, n;
	int ret = trawl_ctl_list_sessions(ctl, &l);

	if (ret)
		return cli_fail(ctl, ret, "list");
	n = trawl_ctl_list_count(l);
	/* The daemon lists sessions oldest first; LTTng 2.13 newest first. */
	if (cli_mi) {
		cli_mi_open("sessions");
		for (i = 0; i < n; i++) {
			struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

			if (trawl_ctl_list_session_at(l, n - 1 - i, &s))
				continue;
			cli_mi_session_open(&s);
			cli_mi_close();
		}
		cli_mi_close();
	}
	if (!n) {
		printf("Currently no available recording session\n");
	} else {
		/* LTTng 2.13's words and layout, the current session not marked. */
		printf("Available recording sessions:\n");
		for (i = 0; i < n; i++) {
			struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

			if (trawl_ctl_list_session_at(l, n - 1 - i, &s))
				continue;
			printf("  %zu) %s [%s%s]\n", i + 1, s.name, s.active ? "active" : "inactive",
			       s.snapshot ? " snapshot" : "");
			if (s.output[0] && !s.snapshot)
				printf("    Trace output: %s\n", s.output);
			if (s.live_timer_us)
				printf("    Live timer interval: %u %s\n", s.live_timer_us,
				       cli_usec_unit());
			printf("\n");
		}
		printf("\nUse trawl list <session_name> for more details\n");
	}
	trawl_ctl_list_destroy(l);
	return 0;
}

/*
 * The program of process @pid as LTTng's `list -u` names it: the first word
 * of /proc/PID/cmdline (argv[0]), read here by the client as LTTng does;
 * "(unknown)" once the process is gone.
 */
static const char *proc_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, len - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return "(unknown)";
	buf[n] = '\0';
	/* argv[0] is its owner's to choose, escape sequences included. */
	return trawl_str_printable(buf);
}

/* LTTng's field types from trawl's words ("integer", "s32", "string"...). */
static const char *mi_field_type(const char *t)
{
	if (strstr(t, "int") || ((t[0] == 's' || t[0] == 'u') && t[1] >= '0' && t[1] <= '9'))
		return "INTEGER";
	if (strstr(t, "string"))
		return "STRING";
	if (strstr(t, "float") || strstr(t, "double"))
		return "FLOAT";
	if (strstr(t, "enum"))
		return "ENUM";
	return "OTHER";
}

/*
 * As LTTng's `--mi xml list -u` (and -k): <domains><domain> with, in user
 * space, a <pid> (its id and program) per process, holding its <events>;
 * with --fields each event holds its <event_fields>.
 */
static void mi_available(const struct trawl_ctl_list *l, enum trawl_ctl_domain d,
			 enum trawl_ctl_event_kind kind)
{
	size_t i, n = trawl_ctl_list_count(l);
	int base = cli_mi_depth(), events = -1, event = -1;
	long pid = -1;

	if (kind == TRAWL_CTL_EVENT_SYSCALL) {
		cli_mi_open("events");
		events = cli_mi_depth();
	} else {
		cli_mi_open("domains");
		cli_mi_open("domain");
		cli_mi_str("type", cli_mi_domain_name(d));
		cli_mi_str("buffer_type", d == TRAWL_CTL_DOMAIN_KERNEL ? "GLOBAL" : "PER_PID");
		if (d == TRAWL_CTL_DOMAIN_KERNEL) {
			cli_mi_open("events");
			events = cli_mi_depth();
		} else {
			cli_mi_open("pids");
		}
	}
	for (i = 0; i < n; i++) {
		struct trawl_ctl_available_info a = {.struct_size = sizeof(a)};
		struct trawl_ctl_field_info f = {.struct_size = sizeof(f)};
		struct cli_mi_event e = {0};
		char cmdline[256];

		if (trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_FIELD) {
			if (event < 0 || trawl_ctl_list_field_at(l, i, &f))
				continue;
			if (cli_mi_depth() == event)
				cli_mi_open("event_fields");
			cli_mi_open("event_field");
			cli_mi_str("name", f.name);
			cli_mi_str("type", mi_field_type(f.type));
			cli_mi_i64("nowrite", 0);
			cli_mi_close();
			continue;
		}
		if (trawl_ctl_list_available_at(l, i, &a))
			continue;
		if (d != TRAWL_CTL_DOMAIN_KERNEL && a.pid != pid) {
			pid = a.pid;
			cli_mi_close_to(base + 3); /* <domains><domain><pids> */
			cli_mi_open("pid");
			cli_mi_i64("id", pid);
			cli_mi_str("name", proc_cmdline(a.pid, cmdline, sizeof(cmdline)));
			cli_mi_open("events");
			events = cli_mi_depth();
		}
		if (events < 0)
			continue;
		cli_mi_close_to(events);
		e.name = a.name;
		e.kind = a.kind;
		e.enabled = 1;
		e.loglevel = a.loglevel;
		e.loglevel_type = TRAWL_CTL_LOGLEVEL_ALL;
		if (d >= TRAWL_CTL_DOMAIN_JUL) { /* LTTng's: an agent's logger at level 0 */
			e.domain = d;
			e.loglevel = 0;
		}
		cli_mi_event_open(&e);
		event = cli_mi_depth();
	}
	cli_mi_close_to(base);
}

/* One AVAILABLE record, after its process's "PID: N - Name: PROGRAM" line
 * when the process changes (LTTng's line: its nprocesses test waits for it). */
static void show_available(const struct trawl_ctl_list *l, size_t i, long *pid)
{
	struct trawl_ctl_available_info a = {.struct_size = sizeof(a)};
	const char *lvl;

	if (trawl_ctl_list_available_at(l, i, &a))
		return;
	if (a.domain == TRAWL_CTL_DOMAIN_UST && a.pid != *pid) {
		char cmdline[256];

		*pid = a.pid;
		printf("\nPID: %ld - Name: %s\n", *pid, proc_cmdline(a.pid, cmdline, sizeof(cmdline)));
	}
	lvl = a.loglevel >= 0 ? trawl_ctl_loglevel_name(a.loglevel) : NULL;
	if (lvl)
		printf("      %s (loglevel: %s) (type: tracepoint)\n", a.name, lvl);
	else
		printf("      %s (type: %s)\n", a.name,
		       a.kind == TRAWL_CTL_EVENT_SYSCALL ? "syscall" : "tracepoint");
}

/*
 * `list -j|-l|-p`: the loggers of the agents registered now, as LTTng 2.13
 * prints them: by process ("PID: N - Name: PROGRAM"), or its "None".
 */
static int list_agent(struct trawl_ctl *ctl, enum trawl_ctl_domain d)
{
	struct trawl_ctl_list *l;
	size_t i, n;
	long pid = -1;
	int ret = trawl_ctl_list_available(ctl, d, TRAWL_CTL_EVENT_TRACEPOINT, 0, &l);

	if (ret)
		return cli_fail(ctl, ret, "list");
	n = trawl_ctl_list_count(l);
	if (cli_mi)
		mi_available(l, d, TRAWL_CTL_EVENT_TRACEPOINT);
	printf("%s events (Logger name):\n-------------------------\n", cli_domain_word(d));
	for (i = 0; i < n; i++) {
		struct trawl_ctl_available_info a = {.struct_size = sizeof(a)};
		char cmdline[256];

		if (trawl_ctl_list_available_at(l, i, &a))
			continue;
		if (a.pid != pid) {
			pid = a.pid;
			printf("\nPID: %ld - Name: %s\n", pid,
			       proc_cmdline(a.pid, cmdline, sizeof(cmdline)));
		}
		printf("      - %s\n", a.name);
	}
	if (!n)
		printf("None\n");
	printf("\n");
	trawl_ctl_list_destroy(l);
	return 0;
}

static int list_available(struct trawl_ctl *ctl, enum trawl_ctl_domain d,
			  enum trawl_ctl_event_kind kind, int fields)
{
	struct trawl_ctl_list *l;
	size_t i, n;
	long pid = -1;
	int ret = trawl_ctl_list_available(ctl, d, kind, fields, &l);

	if (ret)
		return cli_fail(ctl, ret, "list");
	if (cli_mi)
		mi_available(l, d, kind);
	n = trawl_ctl_list_count(l);
	printf("%s %s:\n-------------\n", d == TRAWL_CTL_DOMAIN_KERNEL ? "Kernel" : "UST",
	       kind == TRAWL_CTL_EVENT_SYSCALL ? "system calls" : "events");
	for (i = 0; i < n; i++) {
		struct trawl_ctl_field_info f = {.struct_size = sizeof(f)};

		if (trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_FIELD) {
			if (!trawl_ctl_list_field_at(l, i, &f))
				printf("        field: %s (%s)\n", f.name, f.type);
			continue;
		}
		show_available(l, i, &pid);
	}
	trawl_ctl_list_destroy(l);
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"kernel", no_argument, NULL, 'k'},
		{"userspace", no_argument, NULL, 'u'},
		{"jul", no_argument, NULL, 'j'},
		{"log4j", no_argument, NULL, 'l'},
		{"python", no_argument, NULL, 'p'},
		{"fields", no_argument, NULL, 'f'},
		{"syscall", no_argument, NULL, 'Y'},
		{"channel", required_argument, NULL, 'c'},
		{"domain", no_argument, NULL, 'd'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	enum trawl_ctl_domain domain = TRAWL_CTL_DOMAIN_NONE;
	enum trawl_ctl_event_kind kind = TRAWL_CTL_EVENT_TRACEPOINT;
	struct trawl_ctl_list *l;
	struct trawl_ctl *ctl;
	int c, ret, fields = 0, domains = 0, nr_domains = 0;

	while ((c = getopt_long(argc, argv, "hkujlpfc:d", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_list);
			return 0;
		case 'k':
			domain = TRAWL_CTL_DOMAIN_KERNEL;
			nr_domains++;
			break;
		case 'u':
			domain = TRAWL_CTL_DOMAIN_UST;
			nr_domains++;
			break;
		case 'j':
			domain = TRAWL_CTL_DOMAIN_JUL;
			nr_domains++;
			break;
		case 'l':
			domain = TRAWL_CTL_DOMAIN_LOG4J;
			nr_domains++;
			break;
		case 'p':
			domain = TRAWL_CTL_DOMAIN_PYTHON;
			nr_domains++;
			break;
		case 'f':
			fields = 1;
			break;
		case 'Y':
			kind = TRAWL_CTL_EVENT_SYSCALL;
			break;
		case 'c':
			break;
		case 'd':
			domains = 1;
			break;
		default:
			return cli_usage(&cli_cmd_list, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cli_cmd_list, "too many arguments");
	if (nr_domains > 1)
		return cli_error(-EINVAL, "only one domain must be specified");
	if (kind == TRAWL_CTL_EVENT_SYSCALL && domain != TRAWL_CTL_DOMAIN_KERNEL)
		return cli_usage(&cli_cmd_list, "--syscall goes with --kernel");
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	if (argc > optind) {
		cli_mi_open("sessions");
		ret = trawl_ctl_list_session(ctl, argv[optind], &l);
		if (ret) {
			int none = ret == -ENOENT && !cli_mi;

			ret = cli_fail(ctl, ret, "list");
			/* As LTTng 2.13: with no session at all, it says so too. */
			if (none && !trawl_ctl_list_sessions(ctl, &l)) {
				if (!trawl_ctl_list_count(l))
					printf("Currently no available recording session\n");
				trawl_ctl_list_destroy(l);
			}
		} else {
			if (domains)
				cli_show_domains(l);
			else
				cli_show_session(l);
			trawl_ctl_list_destroy(l);
		}
	} else if (domain >= TRAWL_CTL_DOMAIN_JUL) {
		ret = list_agent(ctl, domain);
	} else if (domain != TRAWL_CTL_DOMAIN_NONE) {
		ret = list_available(ctl, domain, kind, fields);
	} else {
		ret = list_sessions(ctl);
	}
	trawl_ctl_disconnect(ctl);
	return ret;
}

const struct cli_cmd cli_cmd_list = {
	.name = "list",
	.summary = "List sessions, a session's channels and events, or available events",
	.synopsis = "[SESSION] [-k | -u | -j | -l | -p] [--fields] [--syscall]",
	.description = "Without arguments, lists this user's sessions. With SESSION, shows its "
		       "domains, channels, contexts and event rules, and whether its consumer "
		       "is alive; a user-space channel's statistics say what its buffers hold "
		       "once an app was traced (\"Memory usage: USED / SIZE\": pages written of "
		       "the buffer files' size). With -k or -u, lists the events that can be enabled.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_LISTING,
};
