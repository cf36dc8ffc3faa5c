/* SPDX-License-Identifier: MIT */
/* cmd-list.c - `trawl list`: sessions, one session, or the events a domain offers. */
#include "cli/cli.h"
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
	{"-f, --fields", "With -k or -u, list each event's fields too."},
	{"--syscall", "With -k, list system calls."},
	{"-c, --channel=NAME", "Accepted for LTTng compatibility."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int list_sessions(struct trawl_ctl *ctl)
{
	struct trawl_ctl_list *l;
	char cur[TRAWL_CTL_NAME_MAX] = "";
	size_t i, n;
	int ret = trawl_ctl_list_sessions(ctl, &l);

	if (ret)
		return cli_fail(ctl, ret, "list");
	trawl_ctl_current_session_get(cur, sizeof(cur));
	n = trawl_ctl_list_count(l);
	if (!n) {
		printf("Currently no available tracing session\n");
	} else {
		printf("Available tracing sessions:\n");
		for (i = 0; i < n; i++) {
			struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

			if (trawl_ctl_list_session_at(l, i, &s))
				continue;
			printf("  %zu) %s [%s]%s%s\n", i + 1, s.name, s.active ? "active" : "inactive",
			       s.snapshot ? " (snapshot)" : "", strcmp(cur, s.name) ? "" : " (current)");
			printf("     Trace output: %s\n", s.output[0] ? s.output : "none");
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
	return buf;
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

static int list_available(struct trawl_ctl *ctl, enum trawl_ctl_domain d,
			  enum trawl_ctl_event_kind kind, int fields)
{
	struct trawl_ctl_list *l;
	size_t i, n;
	long pid = -1;
	int ret = trawl_ctl_list_available(ctl, d, kind, fields, &l);

	if (ret)
		return cli_fail(ctl, ret, "list");
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
		{"fields", no_argument, NULL, 'f'},
		{"syscall", no_argument, NULL, 'Y'},
		{"channel", required_argument, NULL, 'c'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	enum trawl_ctl_domain domain = TRAWL_CTL_DOMAIN_NONE;
	enum trawl_ctl_event_kind kind = TRAWL_CTL_EVENT_TRACEPOINT;
	struct trawl_ctl_list *l;
	struct trawl_ctl *ctl;
	int c, ret, fields = 0;

	while ((c = getopt_long(argc, argv, "hkufc:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_list);
			return 0;
		case 'k':
			domain = TRAWL_CTL_DOMAIN_KERNEL;
			break;
		case 'u':
			domain = TRAWL_CTL_DOMAIN_UST;
			break;
		case 'f':
			fields = 1;
			break;
		case 'Y':
			kind = TRAWL_CTL_EVENT_SYSCALL;
			break;
		case 'c':
			break;
		default:
			return cli_usage(&cli_cmd_list, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cli_cmd_list, "too many arguments");
	if (kind == TRAWL_CTL_EVENT_SYSCALL && domain != TRAWL_CTL_DOMAIN_KERNEL)
		return cli_usage(&cli_cmd_list, "--syscall goes with --kernel");
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	if (argc > optind) {
		ret = trawl_ctl_list_session(ctl, argv[optind], &l);
		if (ret) {
			ret = cli_fail(ctl, ret, "list");
		} else {
			cli_show_session(l);
			trawl_ctl_list_destroy(l);
		}
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
	.synopsis = "[SESSION] [-k | -u] [--fields] [--syscall]",
	.description = "Without arguments, lists this user's sessions. With SESSION, shows its "
		       "domains, channels, contexts and event rules, and whether its consumer "
		       "is alive. With -k or -u, lists the events that can be enabled.",
	.options = opts_doc,
	.run = run,
};
