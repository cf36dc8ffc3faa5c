/* SPDX-License-Identifier: MIT */
/*
 * help.c - `trawl help`, `--help` and the man pages, all printed from the
 * documentation in each subcommand's struct cli_cmd (the one source).
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* Wraps @text at 76 columns, each line indented by @indent spaces. */
static void wrap(FILE *f, const char *text, int indent)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t para = nl ? (size_t)(nl - p) : strlen(p);
		size_t col = 0;
		const char *q = p, *end = p + para;

		if (para == 0)
			fputc('\n', f);
		while (q < end) {
			const char *sp = q;
			size_t w;

			while (sp < end && *sp != ' ')
				sp++;
			w = (size_t)(sp - q);
			if (col && col + 1 + w > (size_t)(76 - indent)) {
				fputc('\n', f);
				col = 0;
			}
			if (col == 0)
				fprintf(f, "%*s", indent, "");
			else
				fputc(' ', f), col++;
			fwrite(q, 1, w, f);
			col += w;
			q = sp < end ? sp + 1 : sp;
		}
		if (para)
			fputc('\n', f);
		p += para + (nl ? 1 : 0);
	}
}

void cli_help_print(const struct cli_cmd *cmd)
{
	const struct cli_option_doc *o;

	printf("usage: trawl %s %s\n\n", cmd->name, cmd->synopsis);
	wrap(stdout, cmd->description, 0);
	if (cmd->options && cmd->options[0].spelling) {
		printf("\nOptions:\n");
		for (o = cmd->options; o->spelling; o++) {
			printf("  %s\n", o->spelling);
			wrap(stdout, o->text, 8);
		}
	}
}

/* Escapes troff's special characters: backslash, and a leading '.' or '\''. */
static void troff(FILE *f, const char *s)
{
	int bol = 1;

	for (; *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
		bol = *s == '\n';
	}
}

void cli_man_print(const struct cli_cmd *cmd)
{
	const struct cli_option_doc *o;

	printf(".TH TRAWL-%s 1 \"\" \"trawl %s\" \"trawl manual\"\n", cmd->name,
	       trawl_ctl_version());
	printf(".SH NAME\ntrawl-%s \\- ", cmd->name);
	troff(stdout, cmd->summary);
	printf("\n.SH SYNOPSIS\n.B trawl %s\n", cmd->name);
	troff(stdout, cmd->synopsis);
	printf("\n.SH DESCRIPTION\n");
	troff(stdout, cmd->description);
	printf("\n");
	if (cmd->options && cmd->options[0].spelling) {
		printf(".SH OPTIONS\n");
		for (o = cmd->options; o->spelling; o++) {
			printf(".TP\n.B ");
			troff(stdout, o->spelling);
			printf("\n");
			troff(stdout, o->text);
			printf("\n");
		}
	}
	printf(".SH EXIT STATUS\n0 success; 1 other error; 2 bad command line; 3 no session daemon; "
	       "4 permission denied; 5 not found; 6 already exists; 7 bad value; 8 wrong state; "
	       "9 not supported here; 10 daemon protocol error; 11 done, but data was lost "
	       "(stop, destroy, status: events discarded or not written, one line says how many "
	       "and where).\n");
	printf(".SH SEE ALSO\ntrawl(1)\n");
}

static void man_index(void)
{
	size_t i;

	printf(".TH TRAWL 1 \"\" \"trawl %s\" \"trawl manual\"\n", trawl_ctl_version());
	printf(".SH NAME\ntrawl \\- trace the Linux kernel and user-space programs into CTF "
	       "traces\n.SH SYNOPSIS\n.B trawl\n[\\-\\-help] [\\-\\-version] [\\-q] "
	       "[\\-\\-mi xml] COMMAND [OPTIONS]\n");
	printf(".SH OPTIONS\n.TP\n.B \\-q, \\-\\-quiet\nPrint nothing but errors.\n"
	       ".TP\n.B \\-m xml, \\-\\-mi=xml\nPrint the command's result as LTTng 2.13's "
	       "machine interface does (lttng \\-\\-mi xml): one XML document on standard "
	       "output, valid against LTTng's schema mi\\-lttng\\-4.1 where LTTng's own output is "
	       "(its add\\-context and snapshot record documents are not), with the same "
	       "elements, order and values, and <success>false</success> after a failure, whose "
	       "line goes to standard error. The exit status is trawl's. A bad command line "
	       "prints no document; help stays text; view, export and timeline refuse it. Values "
	       "LTTng has and trawl has not are "
	       "0, the version is trawl's.\n");
	printf(".SH COMMANDS\n");
	for (i = 0; cli_cmds[i]; i++)
		printf(".TP\n.B %s\n%s (trawl-%s(1))\n", cli_cmds[i]->name, cli_cmds[i]->summary,
		       cli_cmds[i]->name);
	printf(".SH EXIT STATUS\n0 success; 1 other error; 2 bad command line; 3 no session "
	       "daemon; 4 permission denied; 5 not found; 6 already exists; 7 bad value; 8 wrong "
	       "state; 9 not supported here; 10 daemon protocol error; 11 done, but data was "
	       "lost (stop, destroy, status: events discarded or not written, one line says how "
	       "many and where).\n");
	printf(".SH ENVIRONMENT\nTRAWL_RUNTIME_DIR, TRAWL_ROOT_RUNTIME_DIR: the daemons' state "
	       "folders (for tests and private daemons).\n");
	printf(".SH FILES\n$HOME/.trawlrc (the current session), $XDG_RUNTIME_DIR/trawl or "
	       "$HOME/.trawl (the user's daemon), /run/trawl (root's daemon).\n");
}

static const struct cli_option_doc help_opts[] = {
	{"--man", "Print the command's manual page (troff) instead."},
	{NULL, NULL},
};

static int help_run(int argc, char **argv)
{
	static const struct option opts[] = {CLI_HELP_OPTION, {"man", no_argument, NULL, 'm'}, {0}};
	const struct cli_cmd *cmd;
	int c, man = 0;
	size_t i;

	while ((c = getopt_long(argc, argv, "hm", opts, NULL)) != -1) {
		if (c == 'h') {
			cli_help_print(&cli_cmd_help);
			return 0;
		}
		if (c != 'm')
			return cli_usage(&cli_cmd_help, "bad option");
		man = 1;
	}
	if (optind == argc) {
		if (man) {
			man_index();
			return 0;
		}
		printf("usage: trawl COMMAND [OPTIONS]\n\nCommands:\n");
		for (i = 0; cli_cmds[i]; i++)
			printf("  %-16s %s\n", cli_cmds[i]->name, cli_cmds[i]->summary);
		return 0;
	}
	cmd = cli_cmd_find(argv[optind]);
	if (!cmd)
		return cli_usage(&cli_cmd_help, "unknown command '%s'", argv[optind]);
	if (man)
		cli_man_print(cmd);
	else
		cli_help_print(cmd);
	return 0;
}

const struct cli_cmd cli_cmd_help = {
	.name = "help",
	.summary = "Show help for trawl or one of its commands",
	.synopsis = "[--man] [COMMAND]",
	.description = "Lists the commands, or shows COMMAND's help (the same as "
		       "`trawl COMMAND --help`).",
	.options = help_opts,
	.run = help_run,
	.mi = CLI_MI_PLAIN,
};

static int version_run(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		cli_help_print(&cli_cmd_version);
		return 0;
	}
	if (argc > 1)
		return cli_usage(&cli_cmd_version, "unexpected argument '%s'", argv[1]);
	if (cli_mi) {
		/* LTTng's <version>, with trawl's numbers and words. */
		const char *v = trawl_ctl_version();
		unsigned major = 0, minor = 0, patch = 0;

		sscanf(v, "%u.%u.%u", &major, &minor, &patch);
		cli_mi_open("version");
		cli_mi_str("string", v);
		cli_mi_u64("major", major);
		cli_mi_u64("minor", minor);
		cli_mi_str("commit", "");
		cli_mi_u64("patchLevel", patch);
		cli_mi_str("name", "trawl");
		cli_mi_str("description", "Linux tracing: the kernel and user-space programs, "
					  "into CTF traces.");
		cli_mi_str("url", "");
		cli_mi_str("license", "trawl is free software under the MIT license");
		cli_mi_close();
	}
	printf("trawl %s\n", trawl_ctl_version());
	return 0;
}

const struct cli_cmd cli_cmd_version = {
	.name = "version",
	.summary = "Show trawl's version",
	.synopsis = "",
	.description = "Prints the version of trawl.",
	.options = NULL,
	.run = version_run,
	.mi = CLI_MI_LISTING,
};
