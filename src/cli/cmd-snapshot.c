/* SPDX-License-Identifier: MIT */
/*
 * cmd-snapshot.c - `trawl snapshot add-output|del-output|list-output|record`:
 * a flight-recorder session's snapshot output, and its snapshots, with
 * LTTng 2.13's options and messages.
 */
#include "cli/cli.h"
#include "common/common.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cli_option_doc opts_doc[] = {
	{"-s, --session=NAME", "The session (default: the current session)."},
	{"-n, --name=NAME", "add-output: the output's name (default: snapshot-ID); record: the "
			    "name of this snapshot's folder, NAME-YYYYMMDD-HHMMSS-N."},
	{"-m, --max-size=SIZE", "At most SIZE bytes (k, M, G suffixes) per snapshot: of each "
				"stream, its newest packets, as many as fit counting each as a "
				"whole sub-buffer. A size that cannot hold one packet of each "
				"stream fails the record."},
	{"-C, --ctrl-url=URL", "With -D: the output as a control and a data URL (LTTng's form)."},
	{"-D, --data-url=URL", "See -C."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static struct {
	const char *session, *name, *ctrl, *data;
	uint64_t max_size;
	int has_max;
	char sname[TRAWL_CTL_NAME_MAX];
} o;

static int is_network(const char *url)
{
	return url && strstr(url, "://") && strncmp(url, "file://", 7);
}

/* The output object the options and @url describe; NULL with *@ret the exit status. */
static struct trawl_ctl_snapshot_output *output_of(const char *url, int *ret)
{
	struct trawl_ctl_snapshot_output *out = trawl_ctl_snapshot_output_create();
	const char *ctrl = url ? url : o.ctrl, *data = url ? NULL : o.data;
	static char joined[1400];
	int err = 0;

	if (!out) {
		*ret = cli_error(-ENOMEM, "snapshot: %s", strerror(ENOMEM));
		return NULL;
	}
	if (is_network(o.data) && !url) {
		/* -C/-D: one trawl-relayd URL, net://HOST:CTRL:DATA[/PATH] */
		*ret = cli_relay_urls_join(o.ctrl, o.data, joined, sizeof(joined));
		if (*ret)
			goto fail;
		ctrl = joined;
		data = NULL;
	}
	if (ctrl && (err = trawl_ctl_snapshot_output_set_url(out, ctrl, data))) {
		if (err == -ENAMETOOLONG)
			*ret = cli_error(err, "snapshot output path too long: %s", ctrl);
		else if (data)
			*ret = cli_error(err, "cannot have a data URL when the destination is a "
					      "folder (file://)");
		else
			*ret = cli_error(err, "bad snapshot output '%s': give a folder or file://"
					      "FOLDER", ctrl);
		goto fail;
	}
	if (o.name && (err = trawl_ctl_snapshot_output_set_name(out, o.name))) {
		*ret = cli_error(err, "bad snapshot output name '%s': use letters, digits, '_', "
				      "'-', '.', ':' (at most 255)", o.name);
		goto fail;
	}
	if (o.has_max)
		trawl_ctl_snapshot_output_set_max_size(out, o.max_size);
	return out;
fail:
	trawl_ctl_snapshot_output_destroy(out);
	return NULL;
}

/*
 * An output's URLs as LTTng's MI says them: trawl's net[6]://HOST:CTRL:DATA[/PATH]
 * is LTTng's tcp4://HOST:CTRL/[PATH] and tcp4://HOST:DATA/[PATH] (tcp6 for
 * net6; localhost as 127.0.0.1, as LTTng resolves it); anything else as it is.
 */
static void mi_output_urls(const char *ctrl, const char *data)
{
	int v6 = !strncmp(ctrl, "net6://", 7);
	const char *host = ctrl + (v6 ? 7 : 6), *slash, *c1, *c2, *path;
	char c[600], d[600];
	int hl;

	if ((strncmp(ctrl, "net://", 6) && !v6) || data[0]) {
		cli_mi_str("ctrl_url", ctrl);
		cli_mi_str("data_url", data);
		return;
	}
	slash = strchr(host, '/');
	path = slash ? slash + 1 : "";
	c2 = slash ? memrchr(host, ':', (size_t)(slash - host)) : strrchr(host, ':');
	c1 = c2 ? memrchr(host, ':', (size_t)(c2 - host)) : NULL;
	if (!c1) {
		cli_mi_str("ctrl_url", ctrl);
		cli_mi_str("data_url", data);
		return;
	}
	hl = (int)(c1 - host);
	if (hl == 9 && !strncmp(host, "localhost", 9))
		host = "127.0.0.1", hl = 9;
	if (trawl_msg_fmt(c, sizeof(c), "tcp%c://%.*s:%.*s/%s", v6 ? '6' : '4', hl, host,
			  (int)(c2 - c1 - 1), c1 + 1, path) ||
	    trawl_msg_fmt(d, sizeof(d), "tcp%c://%.*s:%.*s/%s", v6 ? '6' : '4', hl, host,
			  slash ? (int)(slash - c2 - 1) : (int)strlen(c2 + 1), c2 + 1, path)) {
		cli_mi_str("ctrl_url", ctrl);
		cli_mi_str("data_url", data);
		return;
	}
	cli_mi_str("ctrl_url", c);
	cli_mi_str("data_url", d);
}

static void print_output(const char *indent, uint32_t id, const char *name, const char *url,
			 uint64_t max_size)
{
	if (max_size)
		printf("%s[%" PRIu32 "] %s: %s (max size: %" PRIu64 " bytes)\n", indent, id, name,
		       url, max_size);
	else
		printf("%s[%" PRIu32 "] %s: %s\n", indent, id, name, url);
}

static int add_output(struct trawl_ctl *ctl, int argc, char **argv)
{
	struct trawl_ctl_snapshot_output_info info = {.struct_size = sizeof(info)};
	const char *url = argc > 1 ? argv[1] : NULL;
	struct trawl_ctl_snapshot_output *out;
	struct trawl_ctl_list *l;
	int ret;

	if (!url && !o.ctrl)
		return cli_usage(&cli_cmd_snapshot, "an output destination must be specified to "
						    "add a snapshot output");
	out = output_of(url, &ret);
	if (!out)
		return ret;
	ret = trawl_ctl_snapshot_add_output(ctl, o.sname, out, &l);
	trawl_ctl_snapshot_output_destroy(out);
	if (ret)
		return cli_fail(ctl, ret, "snapshot add-output");
	if (cli_mi && !trawl_ctl_list_snapshot_output_at(l, 0, &info)) {
		cli_mi_open("snapshot");
		cli_mi_u64("id", info.id);
		cli_mi_str("name", info.name);
		cli_mi_str("ctrl_url", info.ctrl_url);
		cli_mi_str("session_name", o.sname);
		/* LTTng's "no limit" here is -1 */
		cli_mi_u64("max_size", o.has_max ? info.max_size : UINT64_MAX);
		cli_mi_close();
	}
	if (!trawl_ctl_list_snapshot_output_at(l, 0, &info) && !cli_quiet) {
		printf("Snapshot output successfully added for session %s\n", o.sname);
		/* as LTTng: the URL as given, the size only when given */
		print_output("  ", info.id, info.name, url ? url : o.ctrl,
			     o.has_max ? info.max_size : 0);
	}
	trawl_ctl_list_destroy(l);
	return 0;
}

static int del_output(struct trawl_ctl *ctl, int argc, char **argv)
{
	const char *arg = argc > 1 ? argv[1] : NULL;
	unsigned long id;
	char *end;
	int ret;

	if (!arg)
		return cli_usage(&cli_cmd_snapshot, "a snapshot output name or id must be provided "
						    "to delete a snapshot output");
	/* as LTTng: a number is an id, a word not starting with a digit a name */
	errno = 0;
	id = strtoul(arg, &end, 10);
	if (end == arg) {
		ret = trawl_ctl_snapshot_del_output(ctl, o.sname, 0, arg);
	} else if (!errno && !*end && id && id <= UINT32_MAX && arg[0] != '-') {
		ret = trawl_ctl_snapshot_del_output(ctl, o.sname, (uint32_t)id, NULL);
	} else {
		return cli_error(-EINVAL, "argument %s not recognized: give an output's id or name",
				 arg);
	}
	if (ret == -EINVAL && end == arg && !trawl_ctl_last_error(ctl)[0])
		return cli_error(ret, "bad snapshot output name '%s'", arg);
	if (ret)
		return cli_fail(ctl, ret, "snapshot del-output");
	cli_mi_open("snapshot");
	if (end == arg)
		cli_mi_str("name", arg);
	else
		cli_mi_u64("id", id);
	cli_mi_str("session_name", o.sname);
	cli_mi_close();
	if (cli_quiet)
		return 0;
	if (end == arg)
		printf("Snapshot output %s successfully deleted for session %s\n", arg, o.sname);
	else
		printf("Snapshot output id %lu successfully deleted for session %s\n", id, o.sname);
	return 0;
}

static int list_output(struct trawl_ctl *ctl)
{
	struct trawl_ctl_list *l;
	size_t i, n;
	int ret = trawl_ctl_snapshot_list_outputs(ctl, o.sname, &l);

	if (ret)
		return cli_fail(ctl, ret, "snapshot list-output");
	n = trawl_ctl_list_count(l);
	cli_mi_open("session");
	cli_mi_str("name", o.sname);
	cli_mi_open("snapshots");
	for (i = 0; cli_mi && i < n; i++) {
		struct trawl_ctl_snapshot_output_info info = {.struct_size = sizeof(info)};

		if (trawl_ctl_list_snapshot_output_at(l, i, &info))
			continue;
		cli_mi_open("snapshot");
		cli_mi_u64("id", info.id);
		cli_mi_str("name", info.name);
		mi_output_urls(info.ctrl_url, info.data_url);
		cli_mi_u64("max_size", info.max_size);
		cli_mi_close();
	}
	cli_mi_close();
	cli_mi_close();
	printf("Snapshot output list for session %s\n", o.sname);
	for (i = 0; i < n; i++) {
		struct trawl_ctl_snapshot_output_info info = {.struct_size = sizeof(info)};

		if (!trawl_ctl_list_snapshot_output_at(l, i, &info))
			print_output("    ", info.id, info.name, info.ctrl_url, info.max_size);
	}
	if (!n)
		printf("    None\n");
	trawl_ctl_list_destroy(l);
	return 0;
}

static int record(struct trawl_ctl *ctl, int argc, char **argv)
{
	/* an empty URL is none, as LTTng's: the session's output (its scripts pass "") */
	const char *url = argc == 2 && argv[1][0] ? argv[1] : NULL;
	struct trawl_ctl_snapshot_output *out;
	struct trawl_ctl_list *l;
	int ret;

	if (argc > 2)
		return cli_usage(&cli_cmd_snapshot, "record takes one URL at most");
	out = output_of(url, &ret);
	if (!out)
		return ret;
	ret = trawl_ctl_snapshot_record_output(ctl, o.sname, out, &l);
	trawl_ctl_snapshot_output_destroy(out);
	if (ret)
		return cli_fail(ctl, ret, "snapshot record");
	trawl_ctl_list_destroy(l);
	cli_mi_open("snapshot");
	if (url) {
		cli_mi_str("ctrl_url", url);
	} else if (o.ctrl) {
		cli_mi_str("ctrl_url", o.ctrl);
		cli_mi_str("data_url", o.data);
	}
	cli_mi_close();
	if (cli_quiet)
		return 0;
	printf("Snapshot recorded successfully for session %s\n", o.sname);
	if (url)
		printf("Snapshot written at: %s\n", url);
	else if (o.ctrl)
		printf("Snapshot written to ctrl: %s, data: %s\n", o.ctrl, o.data);
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"session", required_argument, NULL, 's'},
		{"name", required_argument, NULL, 'n'},
		{"max-size", required_argument, NULL, 'm'},
		{"ctrl-url", required_argument, NULL, 'C'},
		{"data-url", required_argument, NULL, 'D'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	const char *action;
	struct trawl_ctl *ctl;
	int c, ret;

	memset(&o, 0, sizeof(o));
	/* options before or after the action and its URL, as with LTTng's popt */
	while ((c = getopt_long(argc, argv, "hs:n:m:C:D:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_snapshot);
			return 0;
		case 's':
			o.session = optarg;
			break;
		case 'n':
			o.name = optarg;
			break;
		case 'm':
			if (cli_parse_size(optarg, &o.max_size))
				return cli_usage(&cli_cmd_snapshot, "unable to handle max-size value %s",
						 optarg);
			o.has_max = o.max_size != 0; /* as LTTng: -m 0 is no -m */
			break;
		case 'C':
			o.ctrl = optarg;
			break;
		case 'D':
			o.data = optarg;
			break;
		default:
			return cli_usage(&cli_cmd_snapshot, "bad option");
		}
	}
	if (optind >= argc)
		return cli_usage(&cli_cmd_snapshot, "no action specified: add-output, del-output, "
						    "list-output or record");
	argc -= optind;
	argv += optind;
	action = argv[0];
	if (strcmp(action, "add-output") && strcmp(action, "del-output") &&
	    strcmp(action, "list-output") && strcmp(action, "record"))
		return cli_usage(&cli_cmd_snapshot, "unknown action '%s': expected add-output, "
						    "del-output, list-output or record", action);
	if (!o.ctrl != !o.data)
		return cli_usage(&cli_cmd_snapshot, "URLs must be specified for both data and "
						    "control (-C and -D)");
	ret = cli_session(o.session, o.sname, sizeof(o.sname));
	if (ret)
		return ret;
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	cli_mi_open("snapshot_action");
	cli_mi_str("name", action);
	cli_mi_open("output");
	if (!strcmp(action, "add-output"))
		ret = add_output(ctl, argc, argv);
	else if (!strcmp(action, "del-output"))
		ret = del_output(ctl, argc, argv);
	else if (!strcmp(action, "list-output"))
		ret = list_output(ctl);
	else
		ret = record(ctl, argc, argv);
	trawl_ctl_disconnect(ctl);
	return ret;
}

const struct cli_cmd cli_cmd_snapshot = {
	.name = "snapshot",
	.summary = "Manage a flight-recorder session's snapshot output and record snapshots",
	.synopsis = "[-s NAME] add-output [-n NAME] [-m SIZE] (FOLDER | -C URL -D URL)\n"
		    "       [-s NAME] del-output (ID | NAME)\n"
		    "       [-s NAME] list-output\n"
		    "       [-s NAME] record [-n NAME] [-m SIZE] [FOLDER | -C URL -D URL]",
	.description = "A snapshot session (create --snapshot) records into overwrite-mode "
		       "buffers; `snapshot record` writes what they hold now as a complete "
		       "trace in a new folder NAME-YYYYMMDD-HHMMSS-N of the session's snapshot "
		       "output, N counting the session's snapshots from 0, as LTTng 2.13. "
		       "A session created with an output has the output snapshot-1 (its "
		       "folder); --no-output sessions have none until add-output. A session "
		       "has one output at most: del-output it (by ID or NAME) to add another. "
		       "record FOLDER writes this one snapshot to FOLDER instead (named "
		       "snapshot-0 unless -n). The session must have been started once. "
		       "Outputs are local folders (file://FOLDER) or trawl-relayd "
		       "(net://HOST[:CTRLPORT[:DATAPORT]]): a snapshot sent there lands in "
		       "HOSTNAME/SESSION-DATE/NAME-YYYYMMDD-HHMMSS-N of relayd's output, as "
		       "LTTng's relayd lays it out.",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
