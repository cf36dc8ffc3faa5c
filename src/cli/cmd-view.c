/* SPDX-License-Identifier: MIT */
/*
 * cmd-view.c - `trawl view`: show a session's (or a folder's) trace with
 * trawl's viewer (src/view) when built in, babeltrace2 otherwise, or any
 * viewer given with -e. `trawl view --live` follows a session streamed to
 * trawl-relayd (or lttng-relayd) with babeltrace2's lttng-live source, until
 * trawl's own viewer can follow a live trace.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where relay daemons serve live viewers by default (LTTng's port). */
#define LIVE_DEFAULT_PORT "5344"

#ifdef TRAWL_HAVE_VIEW
#include "view/view.h"
#endif

static const struct cli_option_doc opts_doc[] = {
	{"-e, --viewer=CMD", "Run CMD (split at spaces) with the trace folder as last argument."},
	{"-t, --trace-path=DIR", "View DIR instead of a session's trace."},
	{"--live [URL]", "Follow a live session served by a relay daemon, with babeltrace2 "
			 "(default URL: net://127.0.0.1:" LIVE_DEFAULT_PORT "/host/HOSTNAME/SESSION, "
			 "this host and the current session; URL net://HOST[:PORT] lists the sessions)."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/* The trace folder of session @name, into @buf. */
static int session_path(const char *name, char *buf, size_t len)
{
	struct trawl_ctl_list *l;
	struct trawl_ctl *ctl;
	size_t i;
	int ret, found = 0;

	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	ret = trawl_ctl_list_sessions(ctl, &l);
	if (ret) {
		ret = cli_fail(ctl, ret, "view");
		trawl_ctl_disconnect(ctl);
		return ret;
	}
	for (i = 0; i < trawl_ctl_list_count(l) && !found; i++) {
		struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

		if (!trawl_ctl_list_session_at(l, i, &s) && !strcmp(s.name, name)) {
			snprintf(buf, len, "%s", s.output); /* len is TRAWL_CTL_PATH_MAX */
			found = 1;
		}
	}
	trawl_ctl_list_destroy(l);
	trawl_ctl_disconnect(ctl);
	if (!found)
		return cli_error(-ENOENT, "no session named '%s'", name);
	if (!buf[0])
		return cli_error(-ENOENT, "session '%s' has no trace on disk", name);
	return 0;
}

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

/* Is @prog an executable file in $PATH? */
static int in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		const char *end = strchr(path, ':');
		size_t n = end ? (size_t)(end - path) : strlen(path);

		if (n && n < sizeof(buf) - strlen(prog) - 2) {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
			if (access(buf, X_OK) == 0)
				return 1;
		}
		path = end ? end + 1 : NULL;
	}
	return 0;
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
	snprintf(port, plen, "%s", LIVE_DEFAULT_PORT);
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

/* 0 if something accepts TCP connections at @host:@port, else -errno. */
static int live_probe(const char *host, const char *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res, *ai;
	int ret = -ECONNREFUSED;

	if (getaddrinfo(host, port, &hints, &res))
		return -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);

		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			ret = 0;
		close(fd);
		if (!ret)
			break;
	}
	freeaddrinfo(res);
	return ret;
}

/*
 * `trawl view --live [URL | SESSION]`: babeltrace2 with the lttng-live
 * source, which ends when the session is destroyed (session-not-found-action
 * "end"). @arg is a URL (has "://"), a session name, or NULL (the current
 * session).
 */
static int view_live(const char *arg, const char *viewer)
{
	char url[1024], host[256], port[16], name[TRAWL_CTL_NAME_MAX], hostname[256];
	int ret;

	if (arg && strstr(arg, "://")) {
		snprintf(url, sizeof(url), "%s", arg);
	} else {
		ret = cli_session(arg, name, sizeof(name));
		if (ret)
			return ret;
		if (gethostname(hostname, sizeof(hostname)))
			return cli_error(-errno, "cannot get this host's name: %s", strerror(errno));
		hostname[sizeof(hostname) - 1] = '\0';
		snprintf(url, sizeof(url), "net://127.0.0.1:%s/host/%s/%s", LIVE_DEFAULT_PORT, hostname,
			 name);
	}
	if (live_url_split(url, host, sizeof(host), port, sizeof(port)))
		return cli_error(-EINVAL, "bad live URL '%s' (wanted net://HOST[:PORT][/host/HOSTNAME/SESSION])",
				 url);
	if (viewer)
		return run_viewer(viewer, url);
	if (!in_path("babeltrace2"))
		return cli_error(-ENOENT, "babeltrace2 is needed to follow a live session and is not "
					  "installed (apt-get install babeltrace2)");
	ret = live_probe(host, port);
	if (ret)
		return cli_error(ret, "nothing listens for live viewers at %s:%s (is trawl-relayd running?)",
				 host, port);
	fflush(stdout);
	if (strstr(url, "/host/")) {
		char *args[] = {(char *)"babeltrace2", (char *)"--input-format=lttng-live", url,
				(char *)"--params=session-not-found-action=\"end\"", NULL};

		execvp(args[0], args);
	} else {
		char *args[] = {(char *)"babeltrace2", (char *)"--input-format=lttng-live", url, NULL};

		execvp(args[0], args);
	}
	return cli_error(-errno, "cannot run babeltrace2: %s", strerror(errno));
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{"viewer", required_argument, NULL, 'e'},
		{"trace-path", required_argument, NULL, 't'},
		{"live", no_argument, NULL, 'L'},
		CLI_HELP_OPTION,
		{NULL, 0, NULL, 0},
	};
	const char *viewer = NULL, *dir = NULL;
	char name[TRAWL_CTL_NAME_MAX], path[TRAWL_CTL_PATH_MAX];
	struct stat st;
	int c, ret, live = 0;

	while ((c = getopt_long(argc, argv, "he:t:", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			cli_help_print(&cli_cmd_view);
			return 0;
		case 'e':
			viewer = optarg;
			break;
		case 't':
			dir = optarg;
			break;
		case 'L':
			live = 1;
			break;
		default:
			return cli_usage(&cli_cmd_view, "bad option");
		}
	}
	if (argc - optind > 1)
		return cli_usage(&cli_cmd_view, "too many arguments");
	if (live && dir)
		return cli_usage(&cli_cmd_view, "--live follows a relay daemon's session, not a folder");
	if (live)
		return view_live(argc > optind ? argv[optind] : NULL, viewer);
	if (!dir && argc > optind && (strchr(argv[optind], '/') ||
				      (stat(argv[optind], &st) == 0 && S_ISDIR(st.st_mode))))
		dir = argv[optind];
	if (dir) {
		snprintf(path, sizeof(path), "%s", dir);
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			return cli_error(-ENOENT, "no trace folder %s", path);
	} else {
		ret = cli_session(argc > optind ? argv[optind] : NULL, name, sizeof(name));
		if (ret)
			return ret;
		ret = session_path(name, path, sizeof(path));
		if (ret)
			return ret;
		if (!strncmp(path, "net://", 6) || !strncmp(path, "net6://", 7))
			return cli_error(-EOPNOTSUPP, "session '%s' streams to trawl-relayd at %s: "
						      "view the trace where relayd writes it "
						      "(trawl view DIR)", name, path);
	}
	if (viewer)
		return run_viewer(viewer, path);
#ifdef TRAWL_HAVE_VIEW
	{
		char *vargv[] = {(char *)"view", path, NULL};

		optind = 1;
		return trawl_view_main(2, vargv);
	}
#else
	return run_viewer("babeltrace2", path);
#endif
}

const struct cli_cmd cli_cmd_view = {
	.name = "view",
	.summary = "Show a trace",
	.synopsis = "[SESSION | DIR] [-e VIEWER] [-t DIR] | --live [URL | SESSION]",
	.description = "Prints the trace of SESSION (default: the current session), or of the "
		       "trace folder DIR, as text in babeltrace2's format.",
	.options = opts_doc,
	.run = run,
};
