/* SPDX-License-Identifier: MIT */
/*
 * mi-trigger.c - a trigger in LTTng 2.13's machine interface (the <trigger>
 * of `list-triggers` and `remove-trigger` with --mi xml), element for
 * element as liblttng-ctl's lttng_trigger_mi_serialize() writes it: the
 * condition (its event rule and capture descriptors, or its session,
 * channel and threshold), then an <action_list> of the actions with their
 * rate policies and, where LTTng adds them, the error counters.
 */
#include "cli/cli.h"
#include "common/common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One <error_query_result> counter, as LTTng names it. */
static void error_counter(const char *name, const char *desc, uint64_t value)
{
	cli_mi_open("error_query_results");
	cli_mi_open("error_query_result");
	cli_mi_str("name", name);
	cli_mi_str("description", desc);
	cli_mi_open("error_query_result_counter");
	cli_mi_u64("value", value);
	cli_mi_close();
	cli_mi_close();
	cli_mi_close();
}

/* @n bytes at @s as a string in @buf (cut to @len - 1: the names come
 * from the daemon's records, each shorter than the buffers given here). */
static const char *part(char *buf, size_t len, const char *s, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

static void no_errors(void)
{
	cli_mi_open("error_query_results");
	cli_mi_close();
}

/*
 * A capture descriptor (FIELD, $ctx.NAME, $app.PROVIDER:TYPE, then an
 * optional [INDEX]) as an <event_expr>, of @n bytes at @s.
 */
static void event_expr(const char *s, size_t n)
{
	char buf[TRAWL_CTL_NAME_MAX * 2];
	const char *index = memchr(s, '[', n);
	size_t base = index ? (size_t)(index - s) : n;

	cli_mi_open("event_expr");
	if (index) {
		cli_mi_open("event_expr_array_field_element");
		cli_mi_u64("index", strtoull(index + 1, NULL, 10));
		cli_mi_open("event_expr");
	}
	if (base >= 5 && !strncmp(s, "$app.", 5)) {
		const char *colon = memchr(s + 5, ':', base - 5);
		size_t pn = colon ? (size_t)(colon - s - 5) : base - 5;

		cli_mi_open("event_expr_app_specific_context_field");
		cli_mi_str("provider_name", part(buf, sizeof(buf), s + 5, pn));
		cli_mi_str("type_name", part(buf, sizeof(buf), colon ? colon + 1 : "",
					     colon ? base - 5 - pn - 1 : 0));
	} else if (base >= 5 && !strncmp(s, "$ctx.", 5)) {
		cli_mi_open("event_expr_channel_context_field");
		cli_mi_str("name", part(buf, sizeof(buf), s + 5, base - 5));
	} else {
		cli_mi_open("event_expr_payload_field");
		cli_mi_str("name", part(buf, sizeof(buf), s, base));
	}
	cli_mi_close();
	if (index) {
		cli_mi_close();
		cli_mi_close();
	}
	cli_mi_close();
}

int cli_probe_loc_split(const char *loc, int uprobe, struct cli_probe_loc *out)
{
	const char *body = loc, *c1, *c2;
	char *end;

	memset(out, 0, sizeof(*out));
	if (!uprobe) {
		const char *plus = strchr(loc, '+');

		errno = 0;
		if (!strncmp(loc, "0x", 2) || !strncmp(loc, "0X", 2)) {
			out->value = strtoull(loc, &end, 16);
			return errno || *end ? -1 : 0;
		}
		if (part(out->sym, sizeof(out->sym), loc, plus ? (size_t)(plus - loc) : strlen(loc)),
		    !out->sym[0])
			return -1;
		if (plus) {
			out->value = strtoull(plus + 1, &end, 0);
			return errno || *end || !plus[1] ? -1 : 0;
		}
		return 0;
	}
	if (!strncmp(loc, "elf:", 4)) {
		body += 4;
	} else if (!strncmp(loc, "sdt:", 4)) {
		body += 4;
		out->sdt = 1;
	}
	c1 = strrchr(body, ':');
	if (!c1)
		return -1;
	part(out->sym, sizeof(out->sym), c1 + 1, strlen(c1 + 1));
	c2 = c1;
	if (out->sdt) {
		for (c2 = c1 - 1; c2 >= body && *c2 != ':'; c2--)
			;
		if (c2 < body)
			return -1;
		part(out->provider, sizeof(out->provider), c2 + 1, (size_t)(c1 - c2 - 1));
	}
	part(out->path, sizeof(out->path), body, (size_t)(c2 - body));
	return 0;
}

/* A kprobe's or uprobe's rule: LTTng's <event_rule_kernel_kprobe|uprobe>. */
static void probe_rule(const struct trawl_ctl_trigger_info *g)
{
	int uprobe = g->event_kind == TRAWL_CTL_EVENT_USERSPACE_PROBE;
	struct cli_probe_loc *l = malloc(sizeof(*l));

	if (!l || cli_probe_loc_split(g->location, uprobe, l)) {
		free(l);
		return; /* (the daemon took it: never) */
	}
	cli_mi_open(uprobe ? "event_rule_kernel_uprobe" : "event_rule_kernel_kprobe");
	cli_mi_str("event_name", g->pattern);
	if (!uprobe) {
		cli_mi_open("kernel_probe_location");
		if (l->sym[0]) {
			cli_mi_open("kernel_probe_location_symbol_offset");
			cli_mi_str("name", l->sym);
			cli_mi_u64("offset", l->value);
		} else {
			cli_mi_open("kernel_probe_location_address");
			cli_mi_u64("address", l->value);
		}
	} else {
		cli_mi_open("userspace_probe_location");
		if (l->sdt) {
			cli_mi_open("userspace_probe_location_tracepoint");
			cli_mi_str("probe_name", l->sym);
			cli_mi_str("provider_name", l->provider);
			cli_mi_str("binary_path", l->path);
			cli_mi_open("userspace_probe_location_lookup_method");
			cli_mi_open("userspace_probe_location_lookup_method_tracepoint_sdt");
		} else {
			cli_mi_open("userspace_probe_location_function");
			cli_mi_str("name", l->sym);
			cli_mi_str("binary_path", l->path);
			cli_mi_str("instrumentation_type", "ENTRY");
			cli_mi_open("userspace_probe_location_lookup_method");
			cli_mi_open("userspace_probe_location_lookup_method_function_elf");
		}
		cli_mi_close();
		cli_mi_close();
	}
	cli_mi_close();
	cli_mi_close();
	cli_mi_close();
	free(l);
}

static void event_rule(const struct trawl_ctl_trigger_info *g)
{
	const char *p;

	cli_mi_open("event_rule");
	if (g->event_kind == TRAWL_CTL_EVENT_PROBE ||
	    g->event_kind == TRAWL_CTL_EVENT_USERSPACE_PROBE) {
		probe_rule(g);
		cli_mi_close();
		return;
	}
	if (g->domain == TRAWL_CTL_DOMAIN_UST) {
		cli_mi_open("event_rule_user_tracepoint");
	} else if (g->domain == TRAWL_CTL_DOMAIN_JUL) {
		cli_mi_open("event_rule_jul_logging");
	} else if (g->domain == TRAWL_CTL_DOMAIN_LOG4J) {
		cli_mi_open("event_rule_log4j_logging");
	} else if (g->domain == TRAWL_CTL_DOMAIN_PYTHON) {
		cli_mi_open("event_rule_python_logging");
	} else if (g->event_kind == TRAWL_CTL_EVENT_SYSCALL) {
		cli_mi_open("event_rule_kernel_syscall");
		cli_mi_str("emission_site", "entry+exit");
	} else {
		cli_mi_open("event_rule_kernel_tracepoint");
	}
	cli_mi_str("name_pattern", g->pattern);
	if (g->filter[0])
		cli_mi_str("filter_expression", g->filter);
	if (g->domain != TRAWL_CTL_DOMAIN_KERNEL && g->loglevel_type != TRAWL_CTL_LOGLEVEL_ALL) {
		cli_mi_open("log_level_rule");
		cli_mi_open(g->loglevel_type == TRAWL_CTL_LOGLEVEL_SINGLE
				    ? "log_level_rule_exactly"
				    : "log_level_rule_at_least_as_severe_as");
		cli_mi_i64("level", g->loglevel);
		cli_mi_close();
		cli_mi_close();
	}
	if (g->exclusions[0]) {
		char buf[TRAWL_CTL_NAME_MAX];

		cli_mi_open("name_pattern_exclusions");
		for (p = g->exclusions; *p;) {
			size_t n = strcspn(p, ",");

			cli_mi_str("name_pattern_exclusion", part(buf, sizeof(buf), p, n));
			p += n + !!p[n];
		}
		cli_mi_close();
	}
	cli_mi_close();
	cli_mi_close();
}

static void condition(const struct trawl_ctl_trigger_info *g, int errors)
{
	const char *p;

	cli_mi_open("condition");
	switch (g->condition) {
	case TRAWL_CTL_CONDITION_EVENT_RULE_MATCHES:
		cli_mi_open("condition_event_rule_matches");
		event_rule(g);
		cli_mi_open("capture_descriptors");
		for (p = g->captures; *p;) {
			size_t n = strcspn(p, ",");

			event_expr(p, n);
			p += n + !!p[n];
		}
		cli_mi_close();
		cli_mi_close();
		if (errors)
			error_counter("discarded tracer messages",
				      "Count of messages discarded by the tracer due to a "
				      "communication error with the session daemon",
				      g->discarded);
		break;
	case TRAWL_CTL_CONDITION_SESSION_CONSUMED_SIZE:
		cli_mi_open("condition_session_consumed_size");
		cli_mi_str("session_name", g->session);
		cli_mi_u64("threshold_bytes", g->threshold);
		cli_mi_close();
		if (errors)
			no_errors();
		break;
	default:
		cli_mi_open(g->condition == TRAWL_CTL_CONDITION_BUFFER_USAGE_HIGH
				    ? "condition_buffer_usage_high"
				    : "condition_buffer_usage_low");
		cli_mi_str("session_name", g->session);
		cli_mi_str("channel_name", g->channel);
		cli_mi_str("domain", cli_mi_domain_name(g->domain));
		if (g->ratio_ppm == UINT32_MAX) {
			cli_mi_u64("threshold_bytes", g->threshold);
		} else {
			char buf[32];

			/* LTTng's "%f" of a ratio in 0..1: always fits */
			if (!trawl_path_fmt(buf, sizeof(buf), "%f", g->ratio_ppm / 1e6))
				cli_mi_str("threshold_ratio", buf);
		}
		cli_mi_close();
		if (errors)
			no_errors();
		break;
	}
	cli_mi_close();
}

static void action(const struct trawl_ctl_trigger_action_info *a, int errors)
{
	static const char *const names[] = {
		[TRAWL_CTL_ACTION_NOTIFY] = "action_notify",
		/* LTTng 2.13's names, though its mi-lttng-4.1 says
		 * action_start and action_stop: as mi.c, trawl's document is
		 * LTTng's where LTTng's breaks the schema. */
		[TRAWL_CTL_ACTION_START_SESSION] = "action_start_session",
		[TRAWL_CTL_ACTION_STOP_SESSION] = "action_stop_session",
		[TRAWL_CTL_ACTION_ROTATE_SESSION] = "action_rotate_session",
		[TRAWL_CTL_ACTION_SNAPSHOT_SESSION] = "action_snapshot_session",
	};

	cli_mi_open("action");
	cli_mi_open(names[a->kind]);
	if (a->kind != TRAWL_CTL_ACTION_NOTIFY)
		cli_mi_str("session_name", a->session);
	if (a->kind == TRAWL_CTL_ACTION_SNAPSHOT_SESSION && a->output[0]) {
		cli_mi_open("output");
		if (a->output_name[0])
			cli_mi_str("name", a->output_name);
		/* LTTng's: the URLs as given (-C/-D), else the one URL */
		if (a->ctrl_url && a->ctrl_url[0]) {
			cli_mi_str("ctrl_url", a->ctrl_url);
			cli_mi_str("data_url", a->data_url);
		} else {
			cli_mi_str("ctrl_url", a->output);
		}
		if (a->max_size && a->max_size != UINT64_MAX)
			cli_mi_u64("max_size", a->max_size);
		cli_mi_close();
	}
	cli_mi_open("rate_policy");
	if (a->rate_policy == TRAWL_CTL_RATE_ONCE_AFTER_N) {
		cli_mi_open("rate_policy_once_after_n");
		cli_mi_u64("threshold", a->rate_value);
	} else {
		cli_mi_open("rate_policy_every_n");
		cli_mi_u64("interval", a->rate_value ? a->rate_value : 1);
	}
	cli_mi_close();
	cli_mi_close();
	cli_mi_close();
	if (errors)
		error_counter("total execution failures",
			      "Aggregated count of errors encountered when executing the action",
			      a->failures);
	cli_mi_close();
}

void cli_mi_trigger(const struct trawl_ctl_list *list, size_t at, int errors)
{
	struct trawl_ctl_trigger_info g = {.struct_size = sizeof(g)};
	size_t i;

	if (trawl_ctl_list_trigger_at(list, at, &g))
		return;
	cli_mi_open("trigger");
	cli_mi_str("name", g.name);
	cli_mi_u64("owner_uid", g.owner_uid);
	condition(&g, errors);
	cli_mi_open("action");
	cli_mi_open("action_list");
	for (i = at + 1; i <= at + g.nr_actions; i++) {
		struct trawl_ctl_trigger_action_info a = {.struct_size = sizeof(a)};

		if (!trawl_ctl_list_trigger_action_at(list, i, &a))
			action(&a, errors);
	}
	cli_mi_close();
	cli_mi_close();
	if (errors)
		no_errors();
	cli_mi_close();
}
