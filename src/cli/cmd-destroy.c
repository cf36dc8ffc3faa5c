/* SPDX-License-Identifier: MIT */
/* cmd-destroy.c - `trawl destroy`: stop (data flushed) and forget a session. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const struct cli_option_doc opts_doc[] = {
	{"-a, --all", "Destroy every session of this user."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/*
 * LTTng 2.13's line before "Session S destroyed" when S was rotated: where
 * its last trace chunk, archived by the destroy, is (from @l, the
 * destroy's ROTATION records).
 */
static void print_archive(const struct trawl_ctl_list *l, const char *session)
{
	size_t i, n = l ? trawl_ctl_list_count(l) : 0;

	for (i = 0; i < n; i++) {
		struct trawl_ctl_rotation_info r = {.struct_size = sizeof(r)};

		if (!trawl_ctl_list_rotation_at(l, i, &r) && !strcmp(r.session, session))
			/* on relayd: "tcp://HOST/PATH [ports]", as LTTng says it */
			printf("Trace chunk archive for session %s is now readable %s %s\n",
			       r.session, strncmp(r.path, "tcp://", 6) ? "at" : "on relay",
			       r.path);
	}
}

static int run(int argc, char **argv)
{
	char name[TRAWL_CTL_NAME_MAX];
	struct trawl_ctl_list *before = NULL, *archived = NULL;
	struct trawl_ctl *ctl;
	size_t i;
	int ret, all, lost = 0;

	ret = cli_session_or_all(&cli_cmd_destroy, argc, argv, name, sizeof(name), &all);
	if (ret)
		return ret < 0 ? 0 : ret;
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	cli_mi_open("sessions");
	/* LTTng names each session destroyed (MI: as it was just before). */
	if (trawl_ctl_list_sessions(ctl, &before))
		before = NULL;
	/* Stopped here first, as stop does, so that a loss is said and in the exit status. */
	ret = all ? cli_loss_stop_all(ctl, &lost) : cli_loss_stop_active(ctl, name, &lost);
	if (!ret) {
		ret = trawl_ctl_session_destroy_archived(ctl, all ? NULL : name, &archived);
		if (ret)
			ret = cli_fail(ctl, ret, "destroy");
	}
	trawl_ctl_disconnect(ctl);
	if (ret) {
		trawl_ctl_list_destroy(before);
		return ret;
	}

	/* Newest first, as LTTng 2.13 lists and destroys them. */
	for (i = before ? trawl_ctl_list_count(before) : 0; i-- > 0;) {
		struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

		if (trawl_ctl_list_session_at(before, i, &s) || (!all && strcmp(s.name, name)))
			continue;
		cli_mi_session_open(&s);
		cli_mi_close();
		if (!cli_quiet) {
			print_archive(archived, s.name);
			printf("Session %s destroyed\n", s.name);
		}
	}
	if (!cli_quiet && all && before && !trawl_ctl_list_count(before))
		printf("No session found, nothing to do.\n");
	else if (!cli_quiet && !before)
		printf(all ? "All sessions destroyed\n" : "Session %s destroyed\n", name);
	trawl_ctl_list_destroy(archived);
	trawl_ctl_list_destroy(before);
	trawl_ctl_current_session_clear(all ? NULL : name);
	return lost ? CLI_EXIT_LOST : 0;
}

const struct cli_cmd cli_cmd_destroy = {
	.name = "destroy",
	.summary = "Destroy a tracing session",
	.synopsis = "[NAME | --all]",
	.description = "Stops the session NAME (default: the current session) if it is "
		       "tracing, waits until its data is on disk, and removes it from the session "
		       "daemon. The trace stays on disk. If stopping it lost data, the one line "
		       "and exit status 11 are stop's. A session that was rotated has its last trace "
		       "chunk archived, in OUTPUT/archives/BEGIN-END-ID, and that folder named: "
		       "\"Trace chunk archive for session NAME is now readable at FOLDER\".",
	.options = opts_doc,
	.run = run,
	.mi = CLI_MI_RESULT,
};
