/* SPDX-License-Identifier: MIT */
/*
 * cmd-rotate.c - `trawl clear`, `trawl rotate`, `trawl enable-rotation` and
 * `trawl disable-rotation`, with LTTng 2.13's options and messages.
 */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- clear ------------------------------------------------------------------ */

static const struct cli_option_doc clear_doc[] = {
	{"-a, --all", "Clear every session of this user."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int clear_one(struct trawl_ctl *ctl, const char *name)
{
	int ret = trawl_ctl_session_clear(ctl, name);

	if (ret)
		return cli_fail(ctl, ret, "clear");
	if (cli_mi)
		cli_mi_session_named(ctl, name);
	if (!cli_quiet)
		printf("Session \"%s\" cleared\n", name);
	return 0;
}

static int run_clear(int argc, char **argv)
{
	char name[TRAWL_CTL_NAME_MAX];
	struct trawl_ctl *ctl;
	int ret, all;

	ret = cli_session_or_all(&cli_cmd_clear, argc, argv, name, sizeof(name), &all);
	if (ret)
		return ret < 0 ? 0 : ret;
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	cli_mi_open("sessions");
	if (all) {
		struct trawl_ctl_list *l = NULL;
		size_t i, n;

		ret = trawl_ctl_list_sessions(ctl, &l);
		if (ret) {
			ret = cli_fail(ctl, ret, "list");
		} else if (!(n = trawl_ctl_list_count(l))) {
			if (!cli_quiet)
				printf("No session found, nothing to do.\n");
		} else {
			for (i = 0; i < n && !ret; i++) {
				struct trawl_ctl_session_info si = {.struct_size = sizeof(si)};

				if (trawl_ctl_list_session_at(l, i, &si))
					continue;
				ret = clear_one(ctl, si.name);
			}
		}
		trawl_ctl_list_destroy(l);
	} else {
		ret = clear_one(ctl, name);
	}
	trawl_ctl_disconnect(ctl);
	return ret;
}

const struct cli_cmd cli_cmd_clear = {
	.name = "clear",
	.summary = "Clear a tracing session",
	.synopsis = "[NAME | --all]",
	.description = "As LTTng's clear: discards what session NAME (default: the current "
		       "session) recorded so far. Its buffers' content is thrown away and the "
		       "files of its current trace chunk are deleted (its output folder stays); a "
		       "started session goes on recording into new files, a stopped one writes "
		       "them again at its next start. A session never started, or cleared or "
		       "rotated since it stopped, is left as it is. Snapshot sessions lose their "
		       "buffers' content; their snapshots stay. Sessions streamed to "
		       "trawl-relayd cannot be cleared.",
	.options = clear_doc,
	.run = run_clear,
	.mi = CLI_MI_RESULT,
};

/* ---- rotate ----------------------------------------------------------------- */

static const struct cli_option_doc rotate_doc[] = {
	{"-n, --no-wait", "Do not print where the archive is (trawl's rotation is done when the "
			  "command returns, so there is nothing to wait for)."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/*
 * LTTng's <local> or <relay> location of an archive: the daemon says a
 * relayd's as "tcp://HOST/RELATIVE_PATH [control port C, data port D]".
 */
static void mi_location(const char *path)
{
	char host[256], rel[4096];
	unsigned ctrl, data;

	if (strncmp(path, "tcp://", 6) ||
	    sscanf(path, "tcp://%255[^/]/%4095s [control port %u, data port %u]", host, rel, &ctrl,
		   &data) != 4) {
		cli_mi_open("local");
		cli_mi_str("absolute_path", path);
		cli_mi_close();
		return;
	}
	cli_mi_open("relay");
	cli_mi_str("host", host);
	cli_mi_u64("control_port", ctrl);
	cli_mi_u64("data_port", data);
	cli_mi_str("protocol", "TCP");
	cli_mi_str("relative_path", rel);
	cli_mi_close();
}

static int run_rotate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"no-wait", no_argument, NULL, 'n'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	struct trawl_ctl_rotation_info ri = {.struct_size = sizeof(ri)};
	char name[TRAWL_CTL_NAME_MAX];
	struct trawl_ctl_list *l = NULL;
	struct trawl_ctl *ctl;
	int c, ret, no_wait = 0;

	while ((c = getopt_long(argc, argv, "hn", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_rotate);
			return 0;
		case 'n':
			no_wait = 1;
			break;
		default:
			return cli_usage(&cli_cmd_rotate, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cli_cmd_rotate, "too many arguments");
	ret = cli_session(argc > optind ? argv[optind] : NULL, name, sizeof(name));
	if (ret)
		return ret;
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	ret = trawl_ctl_session_rotate(ctl, name, &l);
	if (!ret && cli_mi) {
		/* LTTng's <rotation>: ONGOING with --no-wait, else where the archive is. */
		int done = !no_wait && !trawl_ctl_list_rotation_at(l, 0, &ri);

		cli_mi_open("rotation");
		cli_mi_str("session_name", name);
		cli_mi_str("state", done ? "COMPLETED" : "ONGOING");
		if (done) {
			cli_mi_open("location");
			mi_location(ri.path);
			cli_mi_close();
		}
		cli_mi_close();
	}
	if (ret) {
		ret = cli_fail(ctl, ret, "rotate");
	} else if (cli_quiet) {
	} else if (no_wait) {
		printf("Rotation ongoing for session %s\n", name);
	} else if (!trawl_ctl_list_rotation_at(l, 0, &ri)) {
		/* a streaming session's archive is on relayd: "tcp://HOST/PATH [ports]" */
		printf("Waiting for rotation to complete...\n"
		       "Trace chunk archive for session %s is now readable %s %s\n",
		       name, strncmp(ri.path, "tcp://", 6) ? "at" : "on relay", ri.path);
	}
	trawl_ctl_list_destroy(l);
	trawl_ctl_disconnect(ctl);
	return ret;
}

const struct cli_cmd cli_cmd_rotate = {
	.name = "rotate",
	.summary = "Archive the current trace chunk of a tracing session",
	.synopsis = "[--no-wait] [NAME]",
	.description = "As LTTng's rotate: every file of the current trace chunk of session NAME "
		       "(default: the current session) is completed and the chunk moved to "
		       "OUTPUT/archives/BEGIN-END-ID (BEGIN and END as YYYYmmddTHHMMSS+hhmm, ID "
		       "from 0), a trace babeltrace2 reads alone; the session records on in a new "
		       "chunk, OUTPUT/BEGIN-ID, archived by the next rotation or by destroy. No "
		       "event is in two chunks or in none. The session must have been started "
		       "once, write to a local folder, and be neither a snapshot nor a live "
		       "session; a stopped session rotates once.",
	.options = rotate_doc,
	.run = run_rotate,
	.mi = CLI_MI_RESULT,
};

/* ---- enable-rotation / disable-rotation ------------------------------------- */

static const struct cli_option_doc enable_doc[] = {
	{"-s, --session=NAME", "The session (default: the current session)."},
	{"--timer=PERIOD", "Rotate every PERIOD while the session traces: microseconds, or with "
			   "a suffix us, ms, s, m or h."},
	{"--size=SIZE", "Rotate each time the current chunk holds about SIZE bytes (suffix k, M "
			"or G); checked every 500 ms."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static const struct cli_option_doc disable_doc[] = {
	{"-s, --session=NAME", "The session (default: the current session)."},
	{"--timer", "Remove the periodic rotation schedule."},
	{"--size", "Remove the size-based rotation schedule."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/* The value of session @name's schedule of @kind (0 if it has none). */
static uint64_t schedule_value(struct trawl_ctl *ctl, const char *name,
			       enum trawl_ctl_rotation_schedule kind)
{
	struct trawl_ctl_list *l;
	uint64_t v = 0;
	size_t i;

	if (trawl_ctl_list_session(ctl, name, &l))
		return 0;
	for (i = 0; i < trawl_ctl_list_count(l); i++) {
		struct trawl_ctl_rotation_schedule_info r = {.struct_size = sizeof(r)};

		if (trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_ROTATION_SCHEDULE &&
		    !trawl_ctl_list_rotation_schedule_at(l, i, &r) && r.kind == kind)
			v = r.value;
	}
	trawl_ctl_list_destroy(l);
	return v;
}

/* LTTng's <rotation_schedule_result>: the schedule set or removed, and whether it was. */
static void mi_schedule(enum trawl_ctl_rotation_schedule kind, uint64_t value, int ok)
{
	int timer = kind == TRAWL_CTL_ROTATION_TIMER;

	cli_mi_open("rotation_schedule_result");
	cli_mi_open("rotation_schedule");
	cli_mi_open(timer ? "periodic" : "size_threshold");
	cli_mi_u64(timer ? "time_us" : "bytes", value);
	cli_mi_close();
	cli_mi_close();
	cli_mi_bool("success", ok);
	cli_mi_close();
}

/* LTTng's time values: digits then us, ms, s, m or h (none: µs). 0 or -EINVAL. */
static int parse_time_us(const char *s, uint64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {{"", 1}, {"us", 1}, {"ms", 1000}, {"s", 1000000}, {"m", 60000000},
		     {"h", 3600000000ull}};
	unsigned long long v;
	char *end;
	size_t i;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		if (v > UINT64_MAX / units[i].mult)
			return -EINVAL;
		*out = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

enum { OPT_TIMER = 1000, OPT_SIZE };

const char *cli_usec_unit(void)
{
	/* LTTng 2.13's test, exactly (common/time.c): its program's locale is
	 * "C" (it never calls setlocale()), so "µs" only where $LANG holds
	 * "utf8", spelt so: LANG=C.UTF-8 gets "us". */
	const char *lang = getenv("LANG");

	return lang && strstr(lang, "utf8") ? "µs" : "us";
}

static int run_rotation(const struct cli_cmd *cmd, int enable, int argc, char **argv)
{
	static const struct option opts_enable[] = {
		{"session", required_argument, NULL, 's'},
		{"timer", required_argument, NULL, OPT_TIMER},
		{"size", required_argument, NULL, OPT_SIZE},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	static const struct option opts_disable[] = {
		{"session", required_argument, NULL, 's'},
		{"timer", no_argument, NULL, OPT_TIMER},
		{"size", no_argument, NULL, OPT_SIZE},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	const char *session = NULL;
	char name[TRAWL_CTL_NAME_MAX];
	uint64_t timer = 0, size = 0;
	int c, ret, has_timer = 0, has_size = 0;
	struct trawl_ctl *ctl;

	while ((c = getopt_long(argc, argv, "hs:", enable ? opts_enable : opts_disable, NULL)) !=
	       -1) {
		switch (c) {
		case 'h':
			cli_help_print(cmd);
			return 0;
		case 's':
			session = optarg;
			break;
		case OPT_TIMER:
			if (has_timer)
				return cli_error(-EINVAL, "Only one periodic rotation schedule may be "
							  "set on a session.");
			if (enable && (parse_time_us(optarg, &timer) || !timer))
				return cli_error(-EINVAL, "Invalid value for --timer option: %s",
						 optarg);
			has_timer = 1;
			break;
		case OPT_SIZE:
			if (has_size)
				return cli_error(-EINVAL, "Only one size-based rotation schedule may "
							  "be set on a session.");
			if (enable && (cli_parse_size(optarg, &size) || !size))
				return cli_error(-EINVAL, "Invalid value for --size option: %s",
						 optarg);
			has_size = 1;
			break;
		default:
			return cli_usage(cmd, "bad option");
		}
	}
	if (argc > optind)
		return cli_usage(cmd, "too many arguments");
	if (!has_timer && !has_size)
		return cli_error(-EINVAL, enable ? "No session rotation schedule parameter provided."
						 : "No session rotation schedule type provided.");
	ret = cli_session(session, name, sizeof(name));
	if (ret)
		return ret;
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	cli_mi_open("rotation_schedule_results");
	cli_mi_str("session_name", name);
	if (cli_mi && !enable) {
		timer = schedule_value(ctl, name, TRAWL_CTL_ROTATION_TIMER);
		size = schedule_value(ctl, name, TRAWL_CTL_ROTATION_SIZE);
	}
	if (has_timer) {
		ret = enable ? trawl_ctl_rotation_schedule_add(ctl, name, TRAWL_CTL_ROTATION_TIMER,
							       timer)
			     : trawl_ctl_rotation_schedule_remove(ctl, name,
								  TRAWL_CTL_ROTATION_TIMER);
		if (cli_mi)
			mi_schedule(TRAWL_CTL_ROTATION_TIMER, timer, !ret);
		if (ret)
			ret = cli_fail(ctl, ret, cmd->name);
		else if (!cli_quiet && enable)
			printf("Enabled periodic rotations every %" PRIu64 " %s on session %s\n",
			       timer, cli_usec_unit(), name);
		else if (!cli_quiet)
			printf("Disabled periodic rotation on session %s\n", name);
	}
	if (!ret && has_size) {
		ret = enable ? trawl_ctl_rotation_schedule_add(ctl, name, TRAWL_CTL_ROTATION_SIZE,
							       size)
			     : trawl_ctl_rotation_schedule_remove(ctl, name,
								  TRAWL_CTL_ROTATION_SIZE);
		if (cli_mi)
			mi_schedule(TRAWL_CTL_ROTATION_SIZE, size, !ret);
		if (ret)
			ret = cli_fail(ctl, ret, cmd->name);
		else if (!cli_quiet && enable)
			printf("Enabled size-based rotations every %" PRIu64
			       " bytes written on session %s\n",
			       size, name);
		else if (!cli_quiet)
			printf("Disabled size-based rotation on session %s\n", name);
	}
	trawl_ctl_disconnect(ctl);
	return ret;
}

static int run_enable(int argc, char **argv)
{
	return run_rotation(&cli_cmd_enable_rotation, 1, argc, argv);
}

static int run_disable(int argc, char **argv)
{
	return run_rotation(&cli_cmd_disable_rotation, 0, argc, argv);
}

const struct cli_cmd cli_cmd_enable_rotation = {
	.name = "enable-rotation",
	.summary = "Set a tracing session's rotation schedule",
	.synopsis = "[-s NAME] (--timer=PERIOD | --size=SIZE | both)",
	.description = "As LTTng's enable-rotation: the session is rotated (see trawl rotate) "
		       "automatically, every PERIOD while it traces and/or each time its current "
		       "trace chunk holds about SIZE bytes. One schedule of each kind at most.",
	.options = enable_doc,
	.run = run_enable,
	.mi = CLI_MI_RESULT,
};

const struct cli_cmd cli_cmd_disable_rotation = {
	.name = "disable-rotation",
	.summary = "Unset a tracing session's rotation schedule",
	.synopsis = "[-s NAME] (--timer | --size | both)",
	.description = "As LTTng's disable-rotation: removes the session's periodic (--timer) "
		       "and/or size-based (--size) rotation schedule.",
	.options = disable_doc,
	.run = run_disable,
	.mi = CLI_MI_RESULT,
};
