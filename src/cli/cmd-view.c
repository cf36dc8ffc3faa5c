/* SPDX-License-Identifier: MIT */
/*
 * cmd-view.c - `trawl view`: show a session's (or a folder's) trace with
 * trawl's viewer (src/view) when built in, babeltrace2 otherwise, or any
 * viewer given with -e. `trawl view --live` follows a session streamed to
 * trawl-relayd (or lttng-relayd) with trawl's viewer, whose reader speaks
 * the live protocol itself (babeltrace2's lttng-live source when trawl's
 * viewer is not built in).
 */
#include "cli/cli.h"
#include "common/common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where relay daemons serve live viewers by default (LTTng's port). */
#define LIVE_DEFAULT_PORT "5344"

#ifdef TRAWL_HAVE_VIEW
#include "view/view.h"
#else
/* Without trawl's viewer, babeltrace2 runs with no option of the view. */
static int trawl_view_option_arg(const char *arg)
{
	(void)arg;
	return -1;
}
#endif

static const struct cli_option_doc opts_doc[] = {
	{"-e, --viewer=CMD", "Run CMD (split at spaces) with the trace folder as last argument."},
	{"-t, --trace-path=DIR", "View DIR instead of a session's trace."},
	{"--live [URL]", "Follow a live session served by a relay daemon (trawl-relayd or lttng-relayd) "
			 "(default URL: net://127.0.0.1:" LIVE_DEFAULT_PORT "/host/HOSTNAME/SESSION, "
			 "this host and the current session; URL net://HOST[:PORT] lists the sessions)."},
	{"-n, --names=LIST", "Print field names: payload, context, scope, header, all, none "
			     "(default: payload,context), as babeltrace2."},
	{"-f, --fields=LIST", "Also print: trace, trace:hostname, trace:domain, trace:procname, "
			      "trace:vpid, loglevel, emf, callsite, all."},
	{"--no-delta", "Do not print the time since the previous event."},
	{"--clock-seconds, --clock-date, --clock-gmt, --clock-cycles",
	 "Times as seconds since the Epoch, with the date, in UTC, or in clock cycles."},
	{"--clock-offset=SEC, --clock-offset-ns=NS", "Add to every clock's offset."},
	{"--begin=TIME, --end=TIME, --timerange=[B,E]",
	 "Only the events from TIME ([YYYY-MM-DD ]HH:MM:SS[.NS] or SEC[.NS]) to TIME."},
	{"--stream-intersection", "Only the time every stream of a trace covers."},
	{"--count", "A table of events per name, the discarded records and the time span."},
	{"--format=text|json", "babeltrace2's text lines (default), or one JSON object per event "
			       "with every field typed."},
	{"-o, --output-format=FMT", "text, json, dummy (decode only) or ctf-metadata."},
	{"-w, --output=FILE", "Write to FILE instead of standard output."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run_viewer(const char *viewer, const char *path)
{
	char *copy = strdup(viewer), *tok, *save, *args[64];
	int n = 0;

	for (tok = strtok_r(copy, " \t", &save); tok && n < 62; tok = strtok_r(NULL, " \t", &save))
		args[n++] = tok;
	if (!n)
		return cli_error(-EINVAL, "empty viewer command");
	args[n++] = (char *)path;
	args[n] = NULL;
	fflush(stdout);
	execvp(args[0], args);
	return cli_error(-errno, "cannot run viewer '%s': %s", args[0], strerror(errno));
}

/*
 * Splits a live URL, net://HOST[:PORT][/host/HOSTNAME/SESSION] (net6:// and
 * [v6 address] too), into @host and @port. Returns 0, or -EINVAL.
 */
static int live_url_split(const char *url, char *host, size_t hlen, char *port, size_t plen)
{
	const char *p, *end;
	size_t n;

	if (!strncmp(url, "net://", 6))
		p = url + 6;
	else if (!strncmp(url, "net6://", 7))
		p = url + 7;
	else
		return -EINVAL;
	if (*p == '[') {
		end = strchr(++p, ']');
		if (!end)
			return -EINVAL;
		n = (size_t)(end - p);
		end++;
	} else {
		end = p + strcspn(p, ":/");
		n = (size_t)(end - p);
	}
	if (!n || n >= hlen)
		return -EINVAL;
	memcpy(host, p, n);
	host[n] = '\0';
	if (trawl_path_fmt(port, plen, "%s", LIVE_DEFAULT_PORT))
		return -EINVAL;
	if (*end == ':') {
		n = strspn(end + 1, "0123456789");
		if (!n || n >= plen || (end[1 + n] && end[1 + n] != '/'))
			return -EINVAL;
		memcpy(port, end + 1, n);
		port[n] = '\0';
	} else if (*end && *end != '/') {
		return -EINVAL;
	}
	return 0;
}

/*
 * `trawl view --live [URL | SESSION]`: trawl's viewer follows the session
 * with libtrawl-reader's lttng-live client (`-i lttng-live URL`, as
 * babeltrace2 takes it), with the view's options @pass (@npass of them; the
 * array has room for four more). @arg is a URL (has "://"), a session name,
 * or NULL (the current session).
 */
static int view_live(const char *arg, const char *viewer, char **pass, int npass)
{
	char url[1024], host[256], port[16], name[TRAWL_CTL_NAME_MAX], hostname[256];
	int ret;

	if (arg && strstr(arg, "://")) {
		if (trawl_path_fmt(url, sizeof(url), "%s", arg))
			return cli_error(-ENAMETOOLONG, "URL too long (at most %zu bytes): %s",
					 sizeof(url) - 1, arg);
	} else {
		ret = cli_session(arg, name, sizeof(name));
		if (ret)
			return ret;
		if (gethostname(hostname, sizeof(hostname)))
			return cli_error(-errno, "cannot get this host's name: %s", strerror(errno));
		hostname[sizeof(hostname) - 1] = '\0';
		/* A host name (255 bytes at most) and a session name (255) fit in 1024. */
		if (trawl_path_fmt(url, sizeof(url), "net://127.0.0.1:%s/host/%s/%s",
				   LIVE_DEFAULT_PORT, hostname, name))
			return cli_error(-ENAMETOOLONG, "live URL too long");
	}
	if (live_url_split(url, host, sizeof(host), port, sizeof(port)))
		return cli_error(-EINVAL, "bad live URL '%s' (wanted net://HOST[:PORT][/host/HOSTNAME/SESSION])",
				 url);
	if (viewer)
		return run_viewer(viewer, url);
#ifdef TRAWL_HAVE_VIEW
	/* "view", the view's options as given, -i lttng-live, the URL */
	memmove(pass + 1, pass, (size_t)npass * sizeof(*pass));
	pass[0] = (char *)"view";
	pass[npass + 1] = (char *)"--input-format=lttng-live";
	pass[npass + 2] = url;
	return trawl_view_main(npass + 3, pass);
#else
	(void)pass;
	(void)npass;
	fflush(stdout);
	{
		char *args[] = {(char *)"babeltrace2", (char *)"--input-format=lttng-live", url, NULL};

		execvp(args[0], args);
	}
	return cli_error(-errno, "cannot run babeltrace2: %s", strerror(errno));
#endif
}

/* The command line of `trawl view`, split into its own options and the view's. */
struct view_args {
	const char *viewer, *dir, *target;
	int live, help;
	char **pass;	/* the view's options, in order (argv's strings) */
	int npass;
};

/*
 * Whether argv[*@i] is option -@s / --@l ("-e X", "-eX", "--viewer X",
 * "--viewer=X"): 1 with its value in *@val (*@i moved past a separate
 * value), 0 when it is another word, -1 when its value is missing.
 */
static int take_value(char **argv, int argc, int *i, char s, const char *l, const char **val)
{
	const char *a = argv[*i];
	size_t n = strlen(l);

	if (a[1] == s) {
		*val = a[2] ? a + 2 : (*i + 1 < argc ? argv[++*i] : NULL);
		return *val ? 1 : -1;
	}
	if (a[1] == '-' && !strncmp(a + 2, l, n) && (a[2 + n] == '=' || !a[2 + n])) {
		*val = a[2 + n] ? a + 3 + n : (*i + 1 < argc ? argv[++*i] : NULL);
		return *val ? 1 : -1;
	}
	return 0;
}

/*
 * Splits argv: -e/-t/--live/-h are the command's, any option trawl-view
 * knows (babeltrace2's: --names, --fields, --clock-*, --begin...) goes to
 * the view as given, one word is the session or folder. Returns 0 or the
 * usage error's exit status.
 */
static int view_args_parse(int argc, char **argv, struct view_args *va)
{
	int i, ret, only_args = 0;

	va->pass = calloc((size_t)argc + 3, sizeof(*va->pass));
	if (!va->pass)
		return cli_error(-ENOMEM, "out of memory");
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (only_args || a[0] != '-' || !a[1]) {
			if (va->target)
				return cli_usage(&cli_cmd_view, "too many arguments");
			va->target = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			only_args = 1;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			va->help = 1;
			continue;
		}
		if (!strcmp(a, "--live")) {
			va->live = 1;
			continue;
		}
		if ((ret = take_value(argv, argc, &i, 'e', "viewer", &va->viewer)) ||
		    (ret = take_value(argv, argc, &i, 't', "trace-path", &va->dir))) {
			if (ret < 0)
				return cli_usage(&cli_cmd_view, "option %s needs a value", a);
			continue;
		}
		ret = trawl_view_option_arg(a);
		if (ret < 0)
			return cli_usage(&cli_cmd_view, "unknown option %s", a);
		va->pass[va->npass++] = argv[i];
		if (ret == 1) {
			if (i + 1 >= argc)
				return cli_usage(&cli_cmd_view, "option %s needs a value", a);
			va->pass[va->npass++] = argv[++i];
		}
	}
	return 0;
}

static int run(int argc, char **argv)
{
	struct view_args va = {0};
	char path[TRAWL_CTL_PATH_MAX];
	int ret;

	ret = view_args_parse(argc, argv, &va);
	if (ret)
		goto out;
	if (va.help) {
		cli_help_print(&cli_cmd_view);
		goto out;
	}
	if (va.live && va.dir) {
		ret = cli_usage(&cli_cmd_view, "--live follows a relay daemon's session, not a folder");
		goto out;
	}
	if (va.live) {
		ret = view_live(va.target, va.viewer, va.pass, va.npass);
		goto out;
	}
	ret = cli_trace_path(&cli_cmd_view, va.target, va.dir, path, sizeof(path));
	if (ret)
		goto out;
	if (va.viewer) {
		ret = run_viewer(va.viewer, path);
		goto out;
	}
#ifdef TRAWL_HAVE_VIEW
	/* "view", the view's options as given, the folder */
	memmove(va.pass + 1, va.pass, (size_t)va.npass * sizeof(*va.pass));
	va.pass[0] = (char *)"view";
	va.pass[va.npass + 1] = path;
	ret = trawl_view_main(va.npass + 2, va.pass);
#else
	if (va.npass) {
		ret = cli_usage(&cli_cmd_view, "option %s needs trawl's viewer, which is not built in",
				va.pass[0]);
		goto out;
	}
	ret = run_viewer("babeltrace2", path);
#endif
out:
	free(va.pass);
	return ret;
}

const struct cli_cmd cli_cmd_view = {
	.name = "view",
	.summary = "Show a trace",
	.synopsis = "[OPTIONS] [SESSION | DIR] [-e VIEWER] [-t DIR] | --live [URL | SESSION]",
	.description = "Prints the trace of SESSION (default: the current session), or of the "
		       "trace folder DIR, as text in babeltrace2's format; babeltrace2's options "
		       "change it as they change babeltrace2's output.",
	.options = opts_doc,
	.run = run,
};
