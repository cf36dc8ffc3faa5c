/* SPDX-License-Identifier: MIT */
/*
 * trawl.c - the `trawl` command: global options, the subcommand table, and
 * the one place where errors become a line and an exit status.
 */
#include "cli/cli.h"
#include "common/common.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int cli_quiet;
int cli_as_lttng;

const struct cli_cmd *const cli_cmds[] = {
	&cli_cmd_create,
	&cli_cmd_destroy,
	&cli_cmd_enable_channel,
	&cli_cmd_disable_channel,
	&cli_cmd_enable_event,
	&cli_cmd_disable_event,
	&cli_cmd_add_context,
	&cli_cmd_start,
	&cli_cmd_stop,
	&cli_cmd_list,
	&cli_cmd_status,
	&cli_cmd_view,
#ifdef TRAWL_HAVE_EXPORT
	&cli_cmd_export,
	&cli_cmd_timeline,
#endif
	&cli_cmd_snapshot,
	&cli_cmd_clear,
	&cli_cmd_rotate,
	&cli_cmd_enable_rotation,
	&cli_cmd_disable_rotation,
	&cli_cmd_track,
	&cli_cmd_untrack,
	&cli_cmd_regenerate,
	&cli_cmd_save,
	&cli_cmd_load,
	&cli_cmd_metadata,
	&cli_cmd_add_trigger,
	&cli_cmd_list_triggers,
	&cli_cmd_remove_trigger,
	&cli_cmd_set_session,
	&cli_cmd_crash,
	&cli_cmd_version,
	&cli_cmd_help,
	NULL,
};

const struct cli_cmd *cli_cmd_find(const char *name)
{
	size_t i;

	for (i = 0; cli_cmds[i]; i++)
		if (!strcmp(cli_cmds[i]->name, name))
			return cli_cmds[i];
	return NULL;
}

int cli_exit_of(int err)
{
	switch (err) {
	case 0:
		return CLI_OK;
	case -ENOTCONN:
	case -ECONNREFUSED:
		return CLI_EXIT_NO_DAEMON;
	case -EACCES:
	case -EPERM:
		return CLI_EXIT_PERM;
	case -ENOENT:
		return CLI_EXIT_NOT_FOUND;
	case -EEXIST:
		return CLI_EXIT_EXISTS;
	case -EINVAL:
	case -ERANGE:
	case -ENAMETOOLONG:
		return CLI_EXIT_INVALID;
	case -EBUSY:
		return CLI_EXIT_STATE;
	case -EOPNOTSUPP:
	case -ENOSYS:
	case -ENODEV:
		return CLI_EXIT_UNSUPPORTED;
	case -EPROTO:
	case -EPROTONOSUPPORT:
		return CLI_EXIT_PROTOCOL;
	default:
		return CLI_EXIT_ERROR;
	}
}

int cli_error(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("trawl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return cli_exit_of(err) ? cli_exit_of(err) : CLI_EXIT_ERROR;
}

int cli_usage(const struct cli_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "trawl %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see trawl %s --help)\n", cmd->name);
	return CLI_EXIT_USAGE;
}

int cli_fail(struct trawl_ctl *ctl, int err, const char *what)
{
	const char *line = ctl ? trawl_ctl_last_error(ctl) : "";

	if (line[0])
		return cli_error(err, "%s", line);
	switch (err) {
	case -ENOTCONN:
		return cli_error(err, "%s: lost the connection to the session daemon", what);
	case -EPROTO:
		return cli_error(err, "%s: the session daemon sent a malformed reply", what);
	default:
		return cli_error(err, "%s: %s", what, strerror(-err));
	}
}

int cli_list_fail(struct trawl_ctl *ctl, int err, const char *what, int *first)
{
	cli_list_note(cli_fail(ctl, err, what), first);
	return err == -ENOTCONN || err == -EPROTO || err == -EPIPE || err == -ECONNRESET;
}

void cli_list_note(int status, int *first)
{
	if (!*first)
		*first = status;
}

int cli_connect(struct trawl_ctl **ctl)
{
	int ret = trawl_ctl_connect(ctl, 0);

	if (ret == -EACCES)
		return cli_error(ret, "permission denied by the root session daemon: kernel "
				      "tracing needs root or membership of group 'tracing'");
	if (ret == -EPROTONOSUPPORT)
		return cli_error(ret, "the running session daemon is from another version of trawl: "
				      "stop it (its pid is in sessiond.lock, in its runtime folder) "
				      "and the next command starts a matching one");
	if (ret)
		return cli_error(ret, "no session daemon: could not start trawl-sessiond (%s)",
				 strerror(-ret));
	return 0;
}

/* Options -h and --no-wait, an optional NAME, connected: 0, or the exit status (-1: --help). */
static int session_cmd_open(const struct cli_cmd *cmd, int argc, char **argv, char *name,
			    size_t len, struct trawl_ctl **ctl)
{
	static const struct option opts[] = {
		{"no-wait", no_argument, NULL, 'n'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	int c, ret;

	while ((c = getopt_long(argc, argv, "hn", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(cmd);
			return -1;
		case 'n':
			break;
		default:
			return cli_usage(cmd, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(cmd, "too many arguments");
	ret = cli_session(argc > optind ? argv[optind] : NULL, name, len);
	return ret ? ret : cli_connect(ctl);
}

int cli_session_or_all(const struct cli_cmd *cmd, int argc, char **argv, char *name, size_t len,
		       int *all)
{
	static const struct option opts[] = {
		{"all", no_argument, NULL, 'a'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	int c;

	*all = 0;
	while ((c = getopt_long(argc, argv, "ha", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(cmd);
			return -1;
		case 'a':
			*all = 1;
			break;
		default:
			return cli_usage(cmd, "bad option");
		}
	}
	if (argc - optind > 1 || (*all && argc > optind))
		return cli_usage(cmd, "too many arguments");
	return *all ? 0 : cli_session(argc > optind ? argv[optind] : NULL, name, len);
}

int cli_session_run(const struct cli_cmd *cmd, int argc, char **argv,
		    int (*run)(struct trawl_ctl *ctl, const char *name))
{
	char name[TRAWL_CTL_NAME_MAX];
	struct trawl_ctl *ctl;
	int ret = session_cmd_open(cmd, argc, argv, name, sizeof(name), &ctl);

	if (ret)
		return ret < 0 ? 0 : ret;
	ret = run(ctl, name);
	trawl_ctl_disconnect(ctl);
	return ret;
}

int cli_session(const char *given, char *buf, size_t len)
{
	if (given) {
		if (trawl_path_fmt(buf, len, "%s", given))
			return cli_error(-ENAMETOOLONG,
					 "session name too long (at most %zu bytes): %s", len - 1,
					 given);
		return 0;
	}
	if (trawl_ctl_current_session_get(buf, len))
		return cli_error(-ENOENT, "no session given and no current session "
					  "(trawl create NAME, or trawl set-session NAME)");
	return 0;
}

int cli_target_opt(struct cli_target *t, int c, const char *arg)
{
	switch (c) {
	case 'k':
		t->domain = TRAWL_CTL_DOMAIN_KERNEL;
		t->domains_given++;
		return 1;
	case 'u':
		t->domain = TRAWL_CTL_DOMAIN_UST;
		t->domains_given++;
		return 1;
	case 's':
		t->session = arg;
		return 1;
	case 'c':
		t->channel = arg;
		return 1;
	default:
		return 0;
	}
}

int cli_agent_opt(struct cli_target *t, int c)
{
	switch (c) {
	case 'j':
		t->domain = TRAWL_CTL_DOMAIN_JUL;
		break;
	case 'l':
		t->domain = TRAWL_CTL_DOMAIN_LOG4J;
		break;
	case 'p':
		t->domain = TRAWL_CTL_DOMAIN_PYTHON;
		break;
	default:
		return 0;
	}
	t->domains_given++;
	return 1;
}

int cli_target_connect(const struct cli_cmd *cmd, struct cli_target *t, struct trawl_ctl **ctl)
{
	int ret;

	if (t->domain == TRAWL_CTL_DOMAIN_NONE)
		return cli_usage(cmd, "give a domain: -k or -u");
	ret = cli_session(t->session, t->name, sizeof(t->name));
	return ret ? ret : cli_connect(ctl);
}

const char *cli_domain_word(enum trawl_ctl_domain domain)
{
	/* LTTng 2.13's words (lttng_domain_type_str()): "ust event X created ..." */
	switch (domain) {
	case TRAWL_CTL_DOMAIN_KERNEL:
		return "kernel";
	case TRAWL_CTL_DOMAIN_JUL:
		return "jul";
	case TRAWL_CTL_DOMAIN_LOG4J:
		return "log4j";
	case TRAWL_CTL_DOMAIN_PYTHON:
		return "python";
	default:
		return "ust";
	}
}

int cli_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
		return -EINVAL;
	if (shift && v > (~0ull >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

int cli_parse_u32(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: trawl [--help] [--version] [-q|--quiet] [--mi xml] COMMAND [OPTIONS] [ARGS]\n\n"
		   "Linux tracing: the kernel and user-space programs, into CTF traces.\n\n"
		   "Commands:\n");
	for (i = 0; cli_cmds[i]; i++)
		fprintf(f, "  %-16s %s\n", cli_cmds[i]->name, cli_cmds[i]->summary);
	fprintf(f, "\nSee `trawl COMMAND --help` or man trawl-COMMAND.\n");
}

/*
 * LTTng's --list-options: each option of @cmd's documentation, one word a
 * line ("-s, --session=NAME" gives "-s" and "--session"), for the shell's
 * completion (src/cli/trawl.bash-completion).
 */
static void list_options(const struct cli_cmd *cmd)
{
	const struct cli_option_doc *o;

	for (o = cmd->options; o && o->spelling; o++) {
		const char *p = o->spelling;

		while (*p == '-') {
			size_t n = strcspn(p, ",[= ");

			printf("%.*s\n", (int)n, p);
			p += n;
			p += strcspn(p, "-");
			if (p[0] == '-' && p[-1] != ' ')
				break; /* a '-' inside a value, not another option */
		}
	}
}

/* `trawl --mi xml CMD ARGS`: CMD's result as LTTng's MI document (mi.c). */
static int run_mi(const struct cli_cmd *cmd, int argc, char **argv)
{
	int i, ret;

	if (cmd->mi == CLI_MI_REFUSED) {
		fprintf(stderr, "trawl: --mi does not apply to the %s command\n", cmd->name);
		return CLI_EXIT_USAGE;
	}
	/* Help is text, as LTTng's (its manual page) is. */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return cmd->run(argc, argv);
	if (cmd->mi == CLI_MI_PLAIN)
		return cmd->run(argc, argv);
	ret = cli_mi_begin(cmd);
	if (ret)
		return ret;
	return cli_mi_end(cmd, cmd->run(argc, argv));
}

int main(int argc, char **argv)
{
	const struct cli_cmd *cmd;
	const char *self = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;
	int i = 1;

	self = self ? self + 1 : argc > 0 && argv[0] ? argv[0] : "";
	cli_as_lttng = !strcmp(self, "lttng");
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--list-commands")) {
			for (i = 0; cli_cmds[i]; i++)
				printf("%s\n", cli_cmds[i]->name);
			return 0;
		} else if (!strcmp(argv[i], "--list-options")) {
			printf("-h\n--help\n-V\n--version\n-q\n--quiet\n-m\n--mi\n"
			       "--list-commands\n--list-options\n");
			return 0;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			return cli_cmd_version.run(1, argv);
		} else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			cli_quiet = 1;
		} else if (!strncmp(argv[i], "--mi=", 5) || !strcmp(argv[i], "--mi") ||
			   !strcmp(argv[i], "-m")) {
			const char *fmt = strncmp(argv[i], "--mi=", 5) ? argv[++i] : argv[i] + 5;

			if (!fmt) {
				fprintf(stderr, "trawl: --mi needs a format: xml\n");
				return CLI_EXIT_USAGE;
			}
			/* LTTng's test: the format starts with "xml", in any case. */
			if (strncasecmp(fmt, "xml", 3)) {
				fprintf(stderr, "trawl: MI output format not supported: %s (only xml)\n",
					fmt);
				return CLI_EXIT_USAGE;
			}
			cli_mi = 1;
		} else {
			fprintf(stderr, "trawl: unknown option %s (see trawl --help)\n", argv[i]);
			return CLI_EXIT_USAGE;
		}
	}
	if (i == argc) {
		usage(stderr);
		return CLI_EXIT_USAGE;
	}
	cmd = cli_cmd_find(argv[i]);
	if (!cmd) {
		fprintf(stderr, "trawl: unknown command '%s' (see trawl --help)\n", argv[i]);
		return CLI_EXIT_USAGE;
	}
	if (i + 1 < argc && !strcmp(argv[i + 1], "--list-options")) {
		list_options(cmd);
		return 0;
	}
	if (cli_mi)
		return run_mi(cmd, argc - i, argv + i);
	/* getopt_long in the subcommand starts again from its argv[1]. */
	return cmd->run(argc - i, argv + i);
}
