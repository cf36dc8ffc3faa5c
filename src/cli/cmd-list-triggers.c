/* SPDX-License-Identifier: MIT */
/*
 * cmd-list-triggers.c - `trawl list-triggers`: the triggers (root: every
 * user's), sorted by name, printed as LTTng 2.13's list-triggers does.
 */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *level_name(int level)
{
	const char *n = trawl_ctl_loglevel_name(level);

	return n && !strncmp(n, "TRACE_", 6) ? n + 6 : n ? n : "?";
}

/* An agent domain's level as LTTng's list-triggers names it (no prefix). */
static const char *agent_level_name(enum trawl_ctl_domain domain, int level)
{
	const char *n = trawl_ctl_agent_loglevel_name(domain, level), *u = n ? strchr(n, '_') : NULL;

	return u ? u + 1 : "?";
}

static void print_captures(const char *c)
{
	if (!c[0])
		return;
	printf("    captures:\n");
	while (*c) {
		size_t n = strcspn(c, ",");

		printf("      - %.*s\n", (int)n, c);
		c += n + !!c[n];
	}
}

/* A probe's rule, as LTTng 2.13 prints it. */
static void print_probe_rule(const struct trawl_ctl_trigger_info *g)
{
	int uprobe = g->event_kind == TRAWL_CTL_EVENT_USERSPACE_PROBE;
	struct cli_probe_loc *l = malloc(sizeof(*l));

	if (!l || cli_probe_loc_split(g->location, uprobe, l))
		printf("    rule: %s (type: kernel:%s, location: %s)\n", g->pattern,
		       uprobe ? "uprobe" : "kprobe", g->location);
	else if (!uprobe && !l->sym[0])
		printf("    rule: %s (type: kernel:kprobe, location: 0x%" PRIx64 ")\n", g->pattern,
		       l->value);
	else if (!uprobe && l->value)
		printf("    rule: %s (type: kernel:kprobe, location: %s+0x%" PRIx64 ")\n",
		       g->pattern, l->sym, l->value);
	else if (!uprobe)
		printf("    rule: %s (type: kernel:kprobe, location: %s)\n", g->pattern, l->sym);
	else if (l->sdt)
		printf("    rule: %s (type: kernel:uprobe, location type: SDT, location: %s:%s:%s)\n",
		       g->pattern, l->path, l->provider, l->sym);
	else
		printf("    rule: %s (type: kernel:uprobe, location type: ELF, location: %s:%s)\n",
		       g->pattern, l->path, l->sym);
	free(l);
}

static void print_rule(const struct trawl_ctl_trigger_info *g)
{
	if (g->event_kind == TRAWL_CTL_EVENT_PROBE ||
	    g->event_kind == TRAWL_CTL_EVENT_USERSPACE_PROBE) {
		print_probe_rule(g);
		print_captures(g->captures);
		return;
	}
	const char *type = g->domain == TRAWL_CTL_DOMAIN_UST		? "user tracepoint"
			   : g->domain == TRAWL_CTL_DOMAIN_JUL		? "jul:logging"
			   : g->domain == TRAWL_CTL_DOMAIN_LOG4J	? "log4j:logging"
			   : g->domain == TRAWL_CTL_DOMAIN_PYTHON	? "python:logging"
			   : g->event_kind == TRAWL_CTL_EVENT_SYSCALL ? "kernel:syscall:entry+exit"
								     : "kernel tracepoint";

	printf("    rule: %s (type: %s", g->pattern, type);
	if (g->filter[0])
		printf(", filter: %s", g->filter);
	if (g->loglevel_type != TRAWL_CTL_LOGLEVEL_ALL)
		printf(", log level %s %s",
		       g->loglevel_type == TRAWL_CTL_LOGLEVEL_SINGLE ? "is" : "at least",
		       g->domain >= TRAWL_CTL_DOMAIN_JUL ? agent_level_name(g->domain, g->loglevel)
							 : level_name(g->loglevel));
	if (g->exclusions[0])
		printf(", exclusions: %s", g->exclusions);
	printf(")\n");
	print_captures(g->captures);
}

static void print_condition(const struct trawl_ctl_trigger_info *g)
{
	static const char *const names[] = {
		[TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES] = "event rule matches",
		[TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE] = "session consumed size",
		[TRAWL_CTL_CONDITION_BUFFER_USAGE_HIGH] = "buffer usage high",
		[TRAWL_CTL_CONDITION_BUFFER_USAGE_LOW] = "buffer usage low",
	};

	printf("  condition: %s\n", names[g->condition]);
	switch (g->condition) {
	case TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES:
		print_rule(g);
		break;
	case TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE:
		printf("    session name: %s\n", g->session);
		printf("    threshold: %llu bytes\n", (unsigned long long)g->threshold);
		break;
	default:
		printf("    session name: %s\n", g->session);
		printf("    channel name: %s\n", g->channel);
		printf("    domain: %s\n", g->domain == TRAWL_CTL_DOMAIN_KERNEL ? "kernel" : "ust");
		if (g->ratio_ppm == UINT32_MAX)
			printf("    threshold (bytes): %llu\n", (unsigned long long)g->threshold);
		else
			printf("    threshold (ratio): %.2f\n", g->ratio_ppm / 1e6);
		break;
	}
	/* LTTng 2.13's error query: an event-rule-matches condition's one
	 * counter, shown when not 0 (the other conditions have none) */
	if (g->condition == TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES && g->discarded)
		printf("    errors:\n      discarded tracer messages: %llu\n",
		       (unsigned long long)g->discarded);
	else
		printf("    errors: none\n");
}

static void print_action(const struct trawl_ctl_trigger_action_info *a)
{
	static const char *const verbs[] = {
		[TRAWL_CTL_ACTION_START_SESSION] = "start",
		[TRAWL_CTL_ACTION_STOP_SESSION] = "stop",
		[TRAWL_CTL_ACTION_ROTATE_SESSION] = "rotate",
		[TRAWL_CTL_ACTION_SNAPSHOT_SESSION] = "snapshot",
	};

	if (a->kind == TRAWL_CTL_ACTION_NOTIFY)
		printf("    notify");
	else
		printf("    %s session `%s`", verbs[a->kind], a->session);
	if (a->ctrl_url && a->ctrl_url[0])
		printf(", control url: %s, data url: %s", a->ctrl_url, a->data_url);
	else if (a->output[0])
		printf(a->output[0] == '/' ? ", path: %s" : ", url: %s", a->output);
	if (a->output[0]) {
		if (a->output_name[0])
			printf(", name: %s", a->output_name);
		if (a->max_size != UINT64_MAX)
			printf(", max size: %llu", (unsigned long long)a->max_size);
	}
	if (a->rate_policy == TRAWL_CTL_RATE_ONCE_AFTER_N)
		printf(", rate policy: once after %llu occurrences",
		       (unsigned long long)a->rate_value);
	else if (a->rate_value > 1)
		printf(", rate policy: every %llu occurrences", (unsigned long long)a->rate_value);
	printf("\n");
	if (a->failures)
		printf("      errors:\n        total execution failures: %llu\n",
		       (unsigned long long)a->failures);
	else
		printf("      errors: none\n");
}

struct listed {
	const char *name;
	size_t at; /* its TRIGGER record */
};

static int by_name(const void *x, const void *y)
{
	return strcmp(((const struct listed *)x)->name, ((const struct listed *)y)->name);
}

static void print_triggers(const struct trawl_ctl_list *list)
{
	size_t n = trawl_ctl_list_count(list), nr = 0, i, k;
	struct listed *v = calloc(n ? n : 1, sizeof(*v));

	if (!v) {
		cli_error(-ENOMEM, "out of memory");
		return;
	}
	for (i = 0; i < n; i++) {
		struct trawl_ctl_trigger_info g = {.struct_size = sizeof(g)};

		if (!trawl_ctl_list_trigger_at(list, i, &g))
			v[nr++] = (struct listed){g.name, i};
	}
	qsort(v, nr, sizeof(*v), by_name);
	if (cli_mi) {
		cli_mi_open("triggers");
		for (k = 0; k < nr; k++)
			cli_mi_trigger(list, v[k].at, 1);
		cli_mi_close();
		nr = 0;
	}
	for (k = 0; k < nr; k++) {
		struct trawl_ctl_trigger_info g = {.struct_size = sizeof(g)};

		trawl_ctl_list_trigger_at(list, v[k].at, &g);
		printf("- name: %s\n", g.name);
		printf("  owner uid: %u\n", (unsigned)g.owner_uid);
		print_condition(&g);
		printf("  actions:\n");
		for (i = v[k].at + 1; i <= v[k].at + g.nr_actions; i++) {
			struct trawl_ctl_trigger_action_info a = {.struct_size = sizeof(a)};

			if (!trawl_ctl_list_trigger_action_at(list, i, &a))
				print_action(&a);
		}
		printf("  errors: none\n");
	}
	free(v);
}

static const struct cli_option_doc help_only_doc[] = {
	{"-h, --help", "Show this help."},
	{NULL, NULL},
};

static int run_list(int argc, char **argv)
{
	struct trawl_ctl_list *list;
	struct trawl_ctl *ctl;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cli_help_print(&cli_cmd_list_triggers);
			return 0;
		}
		return cli_error(-EINVAL, "unexpected argument: %s", argv[i]);
	}
	ret = cli_connect(&ctl);
	if (ret)
		return ret;
	ret = trawl_ctl_list_triggers(ctl, &list);
	if (ret) {
		ret = cli_fail(ctl, ret, "error listing triggers");
		trawl_ctl_disconnect(ctl);
		return ret;
	}
	print_triggers(list);
	trawl_ctl_list_destroy(list);
	trawl_ctl_disconnect(ctl);
	return 0;
}

const struct cli_cmd cli_cmd_list_triggers = {
	.name = "list-triggers",
	.summary = "List the triggers",
	.synopsis = "",
	.description = "Lists your triggers (root: every user's), sorted by name, with their "
		       "condition, actions and rate policies, as LTTng 2.13 prints them.",
	.options = help_only_doc,
	.run = run_list,
	.mi = CLI_MI_LISTING,
	.mi_name = "list-trigger", /* LTTng's word */
};
