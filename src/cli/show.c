/* SPDX-License-Identifier: MIT */
/* show.c - printing a session's details (shared by `trawl list SESSION` and `trawl status`). */
#include "cli/cli.h"
#include "cli/show.h"

#include <stdio.h>

static const char *kind_name(enum trawl_ctl_event_kind k)
{
	switch (k) {
	case TRAWL_CTL_EVENT_SYSCALL:
		return "syscall";
	case TRAWL_CTL_EVENT_PROBE:
		return "probe";
	case TRAWL_CTL_EVENT_FUNCTION:
		return "function";
	case TRAWL_CTL_EVENT_USERSPACE_PROBE:
		return "userspace-probe";
	default:
		return "tracepoint";
	}
}

static void show_event(const struct trawl_ctl_list *l, size_t i)
{
	const char *lvl = trawl_ctl_loglevel_name(trawl_ctl_list_loglevel(l, i));
	uint64_t lt = trawl_ctl_list_value(l, i, 0);

	printf("      %s (type: %s)", trawl_ctl_list_name(l, i),
	       kind_name(trawl_ctl_list_event_kind(l, i)));
	if (trawl_ctl_list_text2(l, i)[0])
		printf(" (location: %s)", trawl_ctl_list_text2(l, i));
	if (lt && lvl)
		printf(" (loglevel %s %s)", lt == TRAWL_CTL_LOGLEVEL_RANGE ? "<=" : "==", lvl);
	if (trawl_ctl_list_text(l, i)[0])
		printf(" [filter: %s]", trawl_ctl_list_text(l, i));
	printf(" [%s]\n", trawl_ctl_list_enabled(l, i) ? "enabled" : "disabled");
}

static void show_channel(const struct trawl_ctl_list *l, size_t i)
{
	printf("- %s: [%s]\n\n    Attributes:\n", trawl_ctl_list_name(l, i),
	       trawl_ctl_list_enabled(l, i) ? "enabled" : "disabled");
	printf("      Event-loss mode:  %s\n",
	       trawl_ctl_list_value(l, i, 2) ? "overwrite" : "discard");
	printf("      Sub-buffer size:  %llu bytes\n",
	       (unsigned long long)trawl_ctl_list_value(l, i, 0));
	printf("      Sub-buffer count: %llu\n", (unsigned long long)trawl_ctl_list_value(l, i, 1));
	if (trawl_ctl_list_value(l, i, 3))
		printf("      Switch timer:     %llu µs\n",
		       (unsigned long long)trawl_ctl_list_value(l, i, 3));
	else
		printf("      Switch timer:     off\n");
	printf("      Read timer:       %llu µs\n", (unsigned long long)trawl_ctl_list_value(l, i, 4));
	if (trawl_ctl_list_domain(l, i) == TRAWL_CTL_DOMAIN_UST)
		printf("      Buffers:          %s\n",
		       trawl_ctl_list_value(l, i, 5) ? "per-process" : "per-user");
}

int cli_show_session(const struct trawl_ctl_list *l)
{
	size_t i, n = trawl_ctl_list_count(l);
	int in_events = 0, ctx_open = 0, consumer_dead = 0;

	for (i = 0; i < n; i++) {
		switch (trawl_ctl_list_kind(l, i)) {
		case TRAWL_CTL_ITEM_SESSION:
			printf("Tracing session %s: [%s]%s\n", trawl_ctl_list_name(l, i),
			       trawl_ctl_list_value(l, i, 0) ? "active" : "inactive",
			       trawl_ctl_list_value(l, i, 1) ? " (snapshot)" : "");
			printf("    Trace output: %s\n", trawl_ctl_list_text(l, i)[0]
							    ? trawl_ctl_list_text(l, i)
							    : "none");
			break;
		case TRAWL_CTL_ITEM_DOMAIN:
			if (ctx_open)
				printf("\n");
			ctx_open = 0;
			printf("\n=== Domain: %s ===\n\n",
			       trawl_ctl_list_domain(l, i) == TRAWL_CTL_DOMAIN_KERNEL ? "Linux kernel"
										  : "User space");
			if (!trawl_ctl_list_value(l, i, 0)) {
				consumer_dead = 1;
				printf("Consumer: DEAD%s%s (data written so far stays readable)\n",
				       trawl_ctl_list_text(l, i)[0] ? ": " : "",
				       trawl_ctl_list_text(l, i));
			} else if (trawl_ctl_list_text(l, i)[0]) {
				printf("Problem: %s\n", trawl_ctl_list_text(l, i));
			}
			printf("Events discarded: %llu\nBytes written: %llu\n\nChannels:\n"
			       "-------------\n",
			       (unsigned long long)trawl_ctl_list_value(l, i, 1),
			       (unsigned long long)trawl_ctl_list_value(l, i, 2));
			break;
		case TRAWL_CTL_ITEM_CHANNEL:
			if (ctx_open)
				printf("\n");
			ctx_open = 0;
			in_events = 0;
			show_channel(l, i);
			break;
		case TRAWL_CTL_ITEM_CONTEXT:
			printf("%s%s", ctx_open ? ", " : "\n    Context: ", trawl_ctl_list_name(l, i));
			ctx_open = 1;
			break;
		case TRAWL_CTL_ITEM_EVENT:
			if (ctx_open)
				printf("\n");
			ctx_open = 0;
			if (!in_events)
				printf("\n    Recording event rules:\n");
			in_events = 1;
			show_event(l, i);
			break;
		default:
			break;
		}
	}
	if (ctx_open)
		printf("\n");
	return consumer_dead;
}
