/* SPDX-License-Identifier: MIT */
/*
 * cmd-track.c - `trawl track` and `trawl untrack`: the process-attribute
 * trackers of a session's domain, with LTTng 2.13's options and messages.
 *
 * Each attribute option takes a comma-separated list of values, as
 * `--vpid=1,2` or `--vpid 1,2`, or none with --all. User-space trackers are
 * the virtual ones: --pid means --vpid there (as LTTng's), --uid and --gid
 * are refused by the daemon. User and group IDs may be given by name,
 * resolved here (in this process's view of the users).
 */
#include "cli/cli.h"
#include "common/common.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_option_doc opts_doc[] = {
	{"-k, --kernel", "Kernel domain trackers."},
	{"-u, --userspace", "User-space domain trackers (--vpid, --vuid, --vgid; --pid means --vpid)."},
	{"-s, --session=NAME", "The session (default: the current session)."},
	{"-p, --pid[=PID[,PID]...]", "Process IDs."},
	{"--vpid[=VPID[,VPID]...]", "Process IDs in the process's own PID namespace."},
	{"--uid[=USER|UID[,...]]", "User IDs (or names)."},
	{"--vuid[=USER|VUID[,...]]", "User IDs in the process's own user namespace."},
	{"--gid[=GROUP|GID[,...]]", "Group IDs (or names)."},
	{"--vgid[=GROUP|VGID[,...]]", "Group IDs in the process's own user namespace."},
	{"-a, --all", "With attribute options given without values: track all (include every "
		      "process), or untrack all (include none)."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/* The options' values: argv strings (or NULL with the option given bare). */
struct track_args {
	int given[TRAWL_CTL_PROCESS_ATTR_COUNT];
	const char *values[TRAWL_CTL_PROCESS_ATTR_COUNT];
	int all, nr_domains;
	struct cli_target t;
};

static int attr_is_id_of_user(enum trawl_ctl_process_attr a)
{
	return a == TRAWL_CTL_PROCESS_ATTR_UID || a == TRAWL_CTL_PROCESS_ATTR_VUID;
}

static int attr_is_id_of_group(enum trawl_ctl_process_attr a)
{
	return a == TRAWL_CTL_PROCESS_ATTR_GID || a == TRAWL_CTL_PROCESS_ATTR_VGID;
}

/* "virtual process ID" -> "Virtual process ID" into @buf. */
static const char *capitalized(enum trawl_ctl_process_attr a, char *buf, size_t len)
{
	trawl_msg_fmt(buf, len, "%s", trawl_ctl_process_attr_name(a));
	if (buf[0] >= 'a' && buf[0] <= 'z')
		buf[0] = (char)(buf[0] - 'a' + 'A');
	return buf;
}

/* One value as typed: a decimal ID, or (user and group IDs) a name. */
static int value_parse(enum trawl_ctl_process_attr a, const char *s, uint32_t *out)
{
	const char *what = trawl_ctl_process_attr_name(a);
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (s[0] >= '0' && s[0] <= '9' && !*end && !errno && v < UINT32_MAX) {
		*out = (uint32_t)v;
		return 0;
	}
	if (attr_is_id_of_user(a) && s[0] != '-') {
		struct passwd *pw = getpwnam(s);

		if (pw) {
			*out = (uint32_t)pw->pw_uid;
			return 0;
		}
		return cli_error(-ENOENT, "no user named '%s' (for the %s tracker)", s, what);
	}
	if (attr_is_id_of_group(a) && s[0] != '-') {
		struct group *gr = getgrnam(s);

		if (gr) {
			*out = (uint32_t)gr->gr_gid;
			return 0;
		}
		return cli_error(-ENOENT, "no group named '%s' (for the %s tracker)", s, what);
	}
	return cli_error(-EINVAL, "%s is not a valid %s value; expected an integer", s, what);
}

/* LTTng's <vpid><type><id>N</id></type><success/></vpid> (<name> for a user or group name). */
static void mi_value(enum trawl_ctl_process_attr a, const char *typed, uint32_t id, int ok)
{
	if (!cli_mi)
		return;
	cli_mi_open(cli_mi_process_attr_name(a));
	cli_mi_open("type");
	if (typed[0] >= '0' && typed[0] <= '9')
		cli_mi_u64("id", id);
	else
		cli_mi_str("name", typed);
	cli_mi_close();
	cli_mi_bool("success", ok);
	cli_mi_close();
}

/* Adds or removes each value of the comma-separated @list, in order. */
static int apply_values(struct trawl_ctl *ctl, const struct track_args *ta, int track,
			enum trawl_ctl_process_attr a, const char *list)
{
	const char *what = trawl_ctl_process_attr_name(a);
	char *copy = strdup(list), *save = NULL, *v;
	int ret = 0;

	if (!copy)
		return cli_error(-ENOMEM, "out of memory");
	for (v = strtok_r(copy, ",", &save); v && !ret; v = strtok_r(NULL, ",", &save)) {
		uint32_t id = 0;

		ret = value_parse(a, v, &id);
		if (ret)
			break;
		ret = (track ? trawl_ctl_track : trawl_ctl_untrack)(ctl, ta->t.name, ta->t.domain,
								     a, id);
		mi_value(a, v, id, !ret || ret == -EEXIST || ret == -ENXIO);
		if (!ret) {
			printf(track ? "Added %s to the %s tracker inclusion set\n"
				     : "Removed %s from the %s tracker inclusion set\n", v, what);
		} else if (ret == -EEXIST || ret == -ENXIO) {
			/* LTTng's warnings: the set is as asked, the command succeeds. */
			fprintf(stderr, "Warning: %s is %s the %s inclusion set\n", v,
				ret == -EEXIST ? "already in" : "not in", what);
			ret = 0;
		} else {
			ret = cli_fail(ctl, ret, track ? "track" : "untrack");
		}
	}
	free(copy);
	return ret;
}

static int apply(struct trawl_ctl *ctl, const struct track_args *ta, int track)
{
	char cap[64];
	int a, ret = 0;

	for (a = 0; a < TRAWL_CTL_PROCESS_ATTR_COUNT && !ret; a++) {
		enum trawl_ctl_process_attr pa = (enum trawl_ctl_process_attr)a;

		if (!ta->given[a])
			continue;
		cli_mi_tracker_open(pa);
		if (ta->values[a]) {
			ret = apply_values(ctl, ta, track, pa, ta->values[a]);
			cli_mi_close();
			cli_mi_close();
			continue;
		}
		ret = (track ? trawl_ctl_track_all : trawl_ctl_untrack_all)(ctl, ta->t.name,
									  ta->t.domain, pa);
		cli_mi_tracker_value_open(pa, 1, 0);
		cli_mi_bool("success", !ret);
		cli_mi_close();
		cli_mi_close();
		cli_mi_close();
		if (ret)
			ret = cli_fail(ctl, ret, track ? "track" : "untrack");
		else
			printf("%s tracking policy set to `%s all`\n", capitalized(pa, cap, sizeof(cap)),
			       track ? "include" : "exclude");
	}
	return ret;
}

/* An attribute option's values: its =ARG, or the next word if not an option. */
static void take_values(struct track_args *ta, int attr, int argc, char **argv)
{
	ta->given[attr] = 1;
	if (optarg)
		ta->values[attr] = optarg;
	else if (optind < argc && argv[optind][0] != '-')
		ta->values[attr] = argv[optind++];
}

static int parse(const struct cli_cmd *cmd, int argc, char **argv, struct track_args *ta)
{
	static const struct option opts[] = {
		CLI_TARGET_OPTIONS,
		{"pid", optional_argument, NULL, 'p'},
		{"vpid", optional_argument, NULL, 'P'},
		{"uid", optional_argument, NULL, 'U'},
		{"vuid", optional_argument, NULL, 'V'},
		{"gid", optional_argument, NULL, 'G'},
		{"vgid", optional_argument, NULL, 'W'},
		{"all", no_argument, NULL, 'a'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	static const char attr_of[] = {['p'] = 1 + TRAWL_CTL_PROCESS_ATTR_PID,
				       ['P'] = 1 + TRAWL_CTL_PROCESS_ATTR_VPID,
				       ['U'] = 1 + TRAWL_CTL_PROCESS_ATTR_UID,
				       ['V'] = 1 + TRAWL_CTL_PROCESS_ATTR_VUID,
				       ['G'] = 1 + TRAWL_CTL_PROCESS_ATTR_GID,
				       ['W'] = 1 + TRAWL_CTL_PROCESS_ATTR_VGID};
	int c;

	while ((c = getopt_long(argc, argv, "+hkus:p::a", opts, NULL)) != -1) {
		if (c == 'h') {
			cli_help_print(cmd);
			return -1;
		}
		if (c == 'k' || c == 'u')
			ta->nr_domains++;
		if (cli_target_opt(&ta->t, c, optarg))
			continue;
		if (c == 'a') {
			ta->all = 1;
		} else if (c > 0 && (size_t)c < sizeof(attr_of) && attr_of[c]) {
			take_values(ta, attr_of[c] - 1, argc, argv);
		} else {
			return cli_usage(cmd, "bad option");
		}
	}
	if (optind < argc)
		return cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
	return 0;
}

/* LTTng's rules on the options, once they are read. */
static int check(const struct cli_cmd *cmd, struct track_args *ta)
{
	int a, any = 0;

	if (ta->nr_domains > 1)
		return cli_usage(cmd, "give only one domain: -k or -u");
	if (ta->t.domain == TRAWL_CTL_DOMAIN_UST && ta->given[TRAWL_CTL_PROCESS_ATTR_PID]) {
		/* LTTng's user-space --pid is the virtual one */
		ta->given[TRAWL_CTL_PROCESS_ATTR_VPID] = 1;
		if (!ta->values[TRAWL_CTL_PROCESS_ATTR_VPID])
			ta->values[TRAWL_CTL_PROCESS_ATTR_VPID] =
				ta->values[TRAWL_CTL_PROCESS_ATTR_PID];
		ta->given[TRAWL_CTL_PROCESS_ATTR_PID] = 0;
	}
	for (a = 0; a < TRAWL_CTL_PROCESS_ATTR_COUNT; a++) {
		if (!ta->given[a])
			continue;
		any = 1;
		if (ta->values[a] && ta->all)
			return cli_usage(cmd, "--all cannot be used with a list of process attribute "
					      "values");
		if (!ta->values[a] && !ta->all)
			return cli_usage(cmd, "--%s needs values, or --all",
					 trawl_ctl_process_attr_name((enum trawl_ctl_process_attr)a));
	}
	if (!any)
		return cli_usage(cmd, "give at least one process attribute (--pid, --vpid, --uid, "
				      "--vuid, --gid or --vgid)");
	return 0;
}

static int run_tracker(const struct cli_cmd *cmd, int argc, char **argv, int track)
{
	struct track_args ta = {0};
	struct trawl_ctl *ctl;
	int ret = parse(cmd, argc, argv, &ta);

	if (ret)
		return ret < 0 ? 0 : ret;
	ret = check(cmd, &ta);
	if (ret)
		return ret;
	ret = cli_target_connect(cmd, &ta.t, &ctl);
	if (ret)
		return ret;
	cli_mi_open("process_attr_trackers");
	ret = apply(ctl, &ta, track);
	trawl_ctl_disconnect(ctl);
	return ret;
}

static int run_track(int argc, char **argv)
{
	return run_tracker(&cli_cmd_track, argc, argv, 1);
}

static int run_untrack(int argc, char **argv)
{
	return run_tracker(&cli_cmd_untrack, argc, argv, 0);
}

const struct cli_cmd cli_cmd_track = {
	.name = "track",
	.summary = "Add values to the process-attribute trackers of a session",
	.synopsis = "(-k | -u) [-s NAME] (--pid | --vpid | --uid | --vuid | --gid | --vgid)"
		    "[=VALUE[,VALUE]...]... [--all]",
	.description = "A domain of a session records only the processes whose every tracked "
		       "attribute is in its tracker's inclusion set. Every tracker includes all "
		       "processes at first; tracking a value makes the set that value, to which "
		       "later values are added; --all includes every process again. User space "
		       "tracks the IDs a process sees in its own namespaces (--vpid, --vuid, "
		       "--vgid). Running applications follow the change before the command "
		       "returns. `trawl list SESSION` shows the trackers.",
	.options = opts_doc,
	.run = run_track,
	.mi = CLI_MI_RESULT,
};

const struct cli_cmd cli_cmd_untrack = {
	.name = "untrack",
	.summary = "Remove values from the process-attribute trackers of a session",
	.synopsis = "(-k | -u) [-s NAME] (--pid | --vpid | --uid | --vuid | --gid | --vgid)"
		    "[=VALUE[,VALUE]...]... [--all]",
	.description = "Removes values from the trackers' inclusion sets (see trawl track). "
		       "With --all, a tracker includes no process at all: nothing is recorded "
		       "until values are tracked again. Removing a value that is not in the set "
		       "is a warning, not an error, as in LTTng.",
	.options = opts_doc,
	.run = run_untrack,
	.mi = CLI_MI_RESULT,
};
