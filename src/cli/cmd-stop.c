/* SPDX-License-Identifier: MIT */
/* cmd-stop.c - `trawl stop`. */
#include "cli/cli.h"

#include <stdio.h>

static const struct cli_option_doc opts_doc[] = {
	{"--no-wait", "Accepted for LTTng compatibility; trawl always returns promptly."},
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

/*
 * Once stopped, every domain's count of discarded events is final: say it,
 * as LTTng's stop does, so that a loss is never silent (the trace's packets
 * carry the same counts, which babeltrace2 reports).
 */
static void warn_discarded(struct trawl_ctl *ctl, const char *name)
{
	struct trawl_ctl_list *l;
	size_t i, n;

	if (trawl_ctl_list_session(ctl, name, &l))
		return;
	n = trawl_ctl_list_count(l);
	for (i = 0; i < n; i++) {
		struct trawl_ctl_domain_info d = {.struct_size = sizeof(d)};

		if (trawl_ctl_list_kind(l, i) != TRAWL_CTL_ITEM_DOMAIN ||
		    trawl_ctl_list_domain_at(l, i, &d) || !d.events_discarded)
			continue;
		fprintf(stderr, "Warning: %llu events were discarded in the %s domain of session %s "
				"(buffers too small or the consumer too slow: see enable-channel "
				"--subbuf-size/--num-subbuf).\n",
			(unsigned long long)d.events_discarded,
			d.domain == TRAWL_CTL_DOMAIN_KERNEL ? "kernel" : "user-space", name);
	}
	trawl_ctl_list_destroy(l);
}

static int stop_and_warn(struct trawl_ctl *ctl, const char *name)
{
	int ret = trawl_ctl_session_stop(ctl, name);

	if (!ret)
		warn_discarded(ctl, name);
	return ret;
}

static int run(int argc, char **argv)
{
	return cli_session_op(&cli_cmd_stop, argc, argv, stop_and_warn,
			      "Tracing stopped for session");
}

const struct cli_cmd cli_cmd_stop = {
	.name = "stop",
	.summary = "Stop tracing",
	.synopsis = "[NAME]",
	.description = "Stops recording in session NAME (default: the current session) and returns once every event recorded so far is on disk, metadata and index included: the trace is then complete and readable. Events discarded (buffers full, or lost on the way to the trace) are counted in the trace and said on standard error.",
	.options = opts_doc,
	.run = run,
};
