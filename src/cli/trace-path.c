/* SPDX-License-Identifier: MIT */
/*
 * trace-path.c - which trace folder a reading command (view, export,
 * timeline) reads: a folder given, or the one a session writes.
 */
#include "cli/cli.h"
#include "common/common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
		ret = cli_fail(ctl, ret, "list sessions");
		trawl_ctl_disconnect(ctl);
		return ret;
	}
	for (i = 0; i < trawl_ctl_list_count(l) && !found; i++) {
		struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

		if (!trawl_ctl_list_session_at(l, i, &s) && !strcmp(s.name, name))
			found = trawl_path_fmt(buf, len, "%s", s.output) ? -1 : 1;
	}
	trawl_ctl_list_destroy(l);
	trawl_ctl_disconnect(ctl);
	if (!found)
		return cli_error(-ENOENT, "no session named '%s'", name);
	if (found < 0)
		return cli_error(-ENAMETOOLONG, "session '%s': trace folder too long", name);
	if (!buf[0])
		return cli_error(-ENOENT, "session '%s' has no trace on disk", name);
	return 0;
}

int cli_trace_path(const struct cli_cmd *cmd, const char *target, const char *dir_opt,
		   char *path, size_t len)
{
	char name[TRAWL_CTL_NAME_MAX];
	const char *dir = dir_opt;
	struct stat st;
	int ret;

	if (!dir && target && (strchr(target, '/') ||
				   (stat(target, &st) == 0 && S_ISDIR(st.st_mode))))
		dir = target;
	if (dir) {
		if (dir_opt && target)
			return cli_usage(cmd, "too many arguments");
		if (trawl_path_fmt(path, len, "%s", dir))
			return cli_error(-ENAMETOOLONG, "trace folder name too long: %s", dir);
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			return cli_error(-ENOENT, "no trace folder %s", path);
		return 0;
	}
	ret = cli_session(target, name, sizeof(name));
	if (ret)
		return ret;
	ret = session_path(name, path, len);
	if (ret)
		return ret;
	if (!strncmp(path, "net://", 6) || !strncmp(path, "net6://", 7))
		return cli_error(-EOPNOTSUPP, "session '%s' streams to trawl-relayd at %s: "
					      "read the trace where relayd writes it "
					      "(trawl %s DIR)", name, path, cmd->name);
	return 0;
}

