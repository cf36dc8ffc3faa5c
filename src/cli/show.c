/* SPDX-License-Identifier: MIT */
/* show.c - printing a session's details (shared by `trawl list SESSION` and `trawl status`). */
#include "cli/cli.h"
#include "common/common.h"
#include "cli/show.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * An event rule as LTTng 2.13's `list SESSION` prints it: the name, the log
 * level, the type, the state, the exclusions and the filter on one line; a
 * probe's location on the lines after it.
 */
static void show_event(const struct trawl_ctl_list *l, size_t i)
{
	struct trawl_ctl_event_info e = {.struct_size = sizeof(e)};
	const char *lvl, *state, *excl = "", *t, *colon;
	char filter[TRAWL_CTL_FILTER_MAX + 16] = "";

	if (trawl_ctl_list_event_at(l, i, &e))
		return;
	state = e.enabled ? " [enabled]" : " [disabled]";
	if (e.struct_size > offsetof(struct trawl_ctl_event_info, exclusions))
		excl = e.exclusions;
	if (e.filter[0])
		trawl_msg_fmt(filter, sizeof(filter), " [filter: '%s']", e.filter);
	lvl = trawl_ctl_loglevel_name(e.loglevel);
	switch (e.kind) {
	case TRAWL_CTL_EVENT_SYSCALL:
		printf("      %s (type:syscall)%s%s\n", e.name, state, filter);
		return;
	case TRAWL_CTL_EVENT_PROBE:
	case TRAWL_CTL_EVENT_FUNCTION:
		printf("      %s (type: %s)%s%s\n", e.name,
		       e.kind == TRAWL_CTL_EVENT_PROBE ? "probe" : "function", state, filter);
		t = e.target;
		if (!strncmp(t, "0x", 2)) {
			printf("        addr: %s\n", t);
		} else {
			const char *plus = strchr(t, '+');
			unsigned long long off = plus ? strtoull(plus + 1, NULL, 0) : 0;

			printf("        offset: 0x%llx\n        symbol: %.*s\n", off,
			       (int)(plus ? (size_t)(plus - t) : strlen(t)), t);
		}
		return;
	case TRAWL_CTL_EVENT_USERSPACE_PROBE:
		/* elf:PATH:SYMBOL or sdt:PATH:PROVIDER:NAME */
		printf("      %s (type: userspace-probe)%s\n", e.name, state);
		t = strchr(e.target, ':');
		colon = t ? strrchr(t + 1, ':') : NULL;
		if (!t || !colon)
			return;
		if (!strncmp(e.target, "sdt:", 4)) {
			const char *prov = t + 1, *p2;

			/* PATH may hold ':'; the provider and name are the last two. */
			for (p2 = colon - 1; p2 > prov && *p2 != ':'; p2--)
				;
			printf("        Type: Tracepoint\n        Binary path:   %.*s\n"
			       "        Tracepoint:    %.*s:%s\n        Lookup method: SDT\n",
			       (int)(p2 - prov), prov, (int)(colon - p2 - 1), p2 + 1, colon + 1);
		} else {
			printf("        Type: Function\n        Binary path:   %.*s\n"
			       "        Function:      %s()\n        Lookup method: ELF\n",
			       (int)(colon - t - 1), t + 1, colon + 1);
		}
		return;
	default:
		break;
	}
	printf("      %s", e.name);
	if (e.loglevel_type != TRAWL_CTL_LOGLEVEL_ALL && lvl)
		printf(" (loglevel %s %s (%d))",
		       e.loglevel_type == TRAWL_CTL_LOGLEVEL_RANGE ? "<=" : "==", lvl, e.loglevel);
	printf(" (type: tracepoint)%s", state);
	if (excl[0])
		printf(" [exclusions: %s]", excl);
	printf("%s\n", filter);
}

/* A timer of LTTng's "Attributes:", its value in µs (0: inactive). */
static void show_timer(const char *label, uint64_t us)
{
	if (us)
		printf("      %-18s%llu %s\n", label, (unsigned long long)us, cli_usec_unit());
	else
		printf("      %-18sinactive\n", label);
}

/* @bytes as LTTng 2.15 writes a memory size: "31.45 KiB", "32.00 MiB". */
static const char *mem_fmt(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024.0;
		u++;
	}
	trawl_msg_fmt(buf, len, "%.2f %s", v, units[u]);
	return buf;
}

/*
 * LTTng 2.13's "Statistics:" of a channel: a snapshot session's are "None"
 * (LTTng: what its consumer could not extract while recording a snapshot
 * would mislead); else the events discarded (discard mode) or the packets
 * lost (overwrite mode), over the channel's buffers.
 */
static void show_statistics(const struct trawl_ctl_channel_info *c, int snapshot)
{
	printf("\n    Statistics:\n");
	if (snapshot)
		printf("      None\n");
	else if (!c->overwrite)
		printf("      Discarded events: %llu\n", (unsigned long long)c->discarded_events);
	else
		printf("      Lost packets:     %llu\n", (unsigned long long)c->lost_packets);
	/*
	 * LTTng 2.15's "Memory usage" (its default, total mode): the pages the
	 * channel's buffers hold of their whole size, once an app was traced
	 * (LTTng 2.13, which `lttng` as argv[0] prints, has no such line).
	 */
	if (c->memory_size && !cli_as_lttng) {
		char used[32], size[32];

		printf("      Memory usage:     %s / %s\n", mem_fmt(used, sizeof(used), c->memory_resident),
		       mem_fmt(size, sizeof(size), c->memory_size));
	}
}

static void show_channel(const struct trawl_ctl_list *l, size_t i, int snapshot)
{
	struct trawl_ctl_channel_info c = {.struct_size = sizeof(c)};

	if (trawl_ctl_list_channel_at(l, i, &c))
		return;
	printf("- %s: [%s]\n\n    Attributes:\n", c.name, c.enabled ? "enabled" : "disabled");
	printf("      Event-loss mode:  %s\n", c.overwrite ? "overwrite" : "discard");
	printf("      Sub-buffer size:  %llu bytes\n", (unsigned long long)c.subbuf_size);
	printf("      Sub-buffer count: %u\n", c.num_subbuf);
	show_timer("Switch timer:", c.switch_timer_us);
	show_timer("Read timer:", c.read_timer_us);
	show_timer("Monitor timer:", c.monitor_timer_us);
	/* LTTng 2.13's line and words, for discard-mode channels. */
	if (!c.overwrite) {
		if (c.blocking_timeout_us == TRAWL_CTL_BLOCKING_INF)
			printf("      Blocking timeout: infinite\n");
		else
			printf("      Blocking timeout: %lld %s\n", (long long)c.blocking_timeout_us,
			       cli_usec_unit());
	}
	/* LTTng 2.13's lines, its "1 per stream" for no count included */
	printf("      Trace file count: %u per stream\n",
	       c.tracefile_count ? c.tracefile_count : 1);
	if (c.tracefile_size)
		printf("      Trace file size:  %llu bytes\n",
		       (unsigned long long)c.tracefile_size);
	else
		printf("      Trace file size:  unlimited\n");
	/* what the channel says (enable-channel --output): trawl's consumers write alike */
	printf("      Output mode:      %s\n", c.output == TRAWL_CTL_OUTPUT_SPLICE ? "splice" : "mmap");
	show_statistics(&c, snapshot);
}

/* Returns 1 for a snapshot session. */
static int show_session(const struct trawl_ctl_list *l, size_t i)
{
	struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

	if (trawl_ctl_list_session_at(l, i, &s))
		return 0;
	/* LTTng 2.13's lines: a snapshot session's output is its snapshot output's. */
	printf("Recording session %s: [%s%s]\n", s.name, s.active ? "active" : "inactive",
	       s.snapshot ? " snapshot" : "");
	if (s.output[0] && !s.snapshot)
		printf("    Trace output: %s\n\n", s.output);
	return s.snapshot;
}

/* LTTng's "Automatic rotation schedules:" from record @i on; the index after them. */
static size_t show_schedules(const struct trawl_ctl_list *l, size_t i)
{
	size_t n = trawl_ctl_list_count(l);

	printf("Automatic rotation schedules:\n");
	for (; i < n && trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_ROTATION_SCHEDULE; i++) {
		struct trawl_ctl_rotation_schedule_info r = {.struct_size = sizeof(r)};

		if (trawl_ctl_list_rotation_schedule_at(l, i, &r))
			continue;
		if (r.kind == TRAWL_CTL_ROTATION_TIMER)
			printf("    timer period: %llu %s\n", (unsigned long long)r.value,
			       cli_usec_unit());
		else
			printf("    size threshold: %llu bytes\n", (unsigned long long)r.value);
	}
	printf("\n");
	return i;
}

/* The buffering scheme of the domain record @i: its first channel's. */
static enum trawl_ctl_buffers domain_buffers(const struct trawl_ctl_list *l, size_t i)
{
	size_t n = trawl_ctl_list_count(l);

	for (i++; i < n && trawl_ctl_list_kind(l, i) != TRAWL_CTL_ITEM_DOMAIN; i++) {
		struct trawl_ctl_channel_info c = {.struct_size = sizeof(c)};

		if (trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_CHANNEL &&
		    !trawl_ctl_list_channel_at(l, i, &c))
			return c.buffers;
	}
	return TRAWL_CTL_BUFFERS_DEFAULT;
}

/* LTTng 2.13's names of a domain: in `list SESSION` and in `list SESSION -d`. */
static const char *domain_title(enum trawl_ctl_domain d, int short_form)
{
	switch (d) {
	case TRAWL_CTL_DOMAIN_KERNEL:
		return short_form ? "Kernel" : "Linux kernel";
	case TRAWL_CTL_DOMAIN_JUL:
		return short_form ? "JUL (Java Util Logging)" : "java.util.logging (JUL)";
	case TRAWL_CTL_DOMAIN_LOG4J:
		return short_form ? "LOG4j (Logging for Java)" : "log4j";
	case TRAWL_CTL_DOMAIN_PYTHON:
		return short_form ? "Python (logging)" : "Python logging";
	default:
		return short_form ? "UST global" : "User space";
	}
}

/*
 * An agent domain's rule, as LTTng 2.13 lists it:
 *     - NAME [enabled] (loglevel <= JUL_INFO) [filter: '...']
 */
static void show_agent_event(const struct trawl_ctl_list *l, size_t i)
{
	struct trawl_ctl_event_info e = {.struct_size = sizeof(e)};
	const char *lvl;

	if (trawl_ctl_list_event_at(l, i, &e))
		return;
	printf("    - %s [%s]", e.name, e.enabled ? "enabled" : "disabled");
	lvl = trawl_ctl_agent_loglevel_name(e.domain, e.loglevel);
	if (e.loglevel_type != TRAWL_CTL_LOGLEVEL_ALL)
		printf(" (loglevel %s %s)", e.loglevel_type == TRAWL_CTL_LOGLEVEL_RANGE ? "<=" : "==",
		       lvl ? lvl : "<<UNKNOWN>>");
	if (e.filter[0])
		printf(" [filter: '%s']", e.filter);
	printf("\n");
}

/* 1 if the DOMAIN record @i is an agent domain's. */
static int domain_is_agent(const struct trawl_ctl_list *l, size_t i)
{
	struct trawl_ctl_domain_info d = {.struct_size = sizeof(d)};

	return !trawl_ctl_list_domain_at(l, i, &d) && d.domain >= TRAWL_CTL_DOMAIN_JUL;
}

/* Returns 1 if the domain's consumer died. */
static int show_domain(const struct trawl_ctl_list *l, size_t i)
{
	struct trawl_ctl_domain_info d = {.struct_size = sizeof(d)};

	if (trawl_ctl_list_domain_at(l, i, &d))
		return 0;
	printf("=== Domain: %s ===\n\n", domain_title(d.domain, 0));
	if (d.domain >= TRAWL_CTL_DOMAIN_JUL) {
		/* an agent domain: its rules follow (LTTng's lines) */
		printf("Events (Logger name):\n---------------------\n");
		return 0;
	}
	if (d.domain == TRAWL_CTL_DOMAIN_UST)
		printf("Buffering scheme: %s\n\n",
		       domain_buffers(l, i) == TRAWL_CTL_BUFFERS_PER_PID ? "per-process" : "per-user");
	/* trawl's own lines (LTTng has none): the domain's losses so far. */
	if (!d.consumer_alive)
		printf("Consumer: DEAD%s%s (data written so far stays readable)\n",
		       d.problem[0] ? ": " : "", d.problem);
	else if (d.problem[0])
		printf("Problem: %s\n", d.problem);
	printf("Events discarded: %llu\nBytes written: %llu\n\n",
	       (unsigned long long)d.events_discarded, (unsigned long long)d.bytes_written);
	return !d.consumer_alive;
}

/*
 * The TRACKER records from @i on (each followed by its values), as LTTng
 * prints them: "  Virtual process IDs:  all | none | 1, 2". Returns the
 * index of the first record after them.
 */
static size_t show_trackers(const struct trawl_ctl_list *l, size_t i)
{
	size_t n = trawl_ctl_list_count(l);
	int any = 0;

	while (i < n && trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_TRACKER) {
		struct trawl_ctl_tracker_info t = {.struct_size = sizeof(t)};
		char label[64];
		uint32_t k;

		if (trawl_ctl_list_tracker_at(l, i++, &t))
			break;
		if (!any)
			printf("Tracked process attributes\n");
		any = 1;
		trawl_msg_fmt(label, sizeof(label),
			      "%ss:", trawl_ctl_process_attr_name(t.process_attr));
		label[0] = (char)(label[0] >= 'a' && label[0] <= 'z' ? label[0] - 'a' + 'A' : label[0]);
		printf("  %-22s", label);
		if (t.include_all || !t.nr_values)
			printf("%s", t.include_all ? "all" : "none");
		for (k = 0; k < t.nr_values && i < n; k++, i++) {
			struct trawl_ctl_tracker_value_info v = {.struct_size = sizeof(v)};

			if (trawl_ctl_list_tracker_value_at(l, i, &v))
				break;
			printf("%s%u", k ? ", " : "", v.value);
		}
		printf("\n");
	}
	if (any)
		printf("\n");
	return i;
}

/*
 * The TRACKER records from @i on as LTTng's MI lists them: only the
 * trackers that do not include every process. Returns the index after them.
 */
static size_t mi_trackers(const struct trawl_ctl_list *l, size_t i)
{
	size_t n = trawl_ctl_list_count(l);

	cli_mi_open("process_attr_trackers");
	while (i < n && trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_TRACKER) {
		struct trawl_ctl_tracker_info t = {.struct_size = sizeof(t)};
		uint32_t k;

		if (trawl_ctl_list_tracker_at(l, i++, &t))
			break;
		if (!t.include_all)
			cli_mi_tracker_open(t.process_attr);
		for (k = 0; k < t.nr_values && i < n; k++, i++) {
			struct trawl_ctl_tracker_value_info v = {.struct_size = sizeof(v)};

			if (trawl_ctl_list_tracker_value_at(l, i, &v) || t.include_all)
				continue;
			cli_mi_tracker_value_open(t.process_attr, 0, v.value);
			cli_mi_close();
		}
		if (!t.include_all) {
			cli_mi_close();
			cli_mi_close();
		}
	}
	cli_mi_close();
	return i;
}

/*
 * As LTTng's `--mi xml list SESSION`, inside the <sessions> the caller
 * opened: the <session> with its
 * rotation schedules and <domains>, each with its trackers and <channels>,
 * each channel with its <events> (contexts are not part of LTTng's MI).
 */
static int mi_show_session(const struct trawl_ctl_list *l, int domains_only)
{
	size_t i, n = trawl_ctl_list_count(l);
	int base = cli_mi_depth(), session = -1, domains = -1, channels = -1, events = -1;
	int schedules = -1, consumer_dead = 0;

	for (i = 0; i < n; i++) {
		struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};
		struct trawl_ctl_domain_info d = {.struct_size = sizeof(d)};
		struct trawl_ctl_channel_info c = {.struct_size = sizeof(c)};
		struct trawl_ctl_event_info e = {.struct_size = sizeof(e)};
		struct trawl_ctl_rotation_schedule_info r = {.struct_size = sizeof(r)};
		struct cli_mi_event me;

		switch (trawl_ctl_list_kind(l, i)) {
		case TRAWL_CTL_ITEM_SESSION:
			if (trawl_ctl_list_session_at(l, i, &s))
				break;
			cli_mi_close_to(base);
			cli_mi_session_open(&s);
			session = cli_mi_depth();
			domains = schedules = -1;
			break;
		case TRAWL_CTL_ITEM_ROTATION_SCHEDULE:
			if (session < 0 || trawl_ctl_list_rotation_schedule_at(l, i, &r))
				break;
			if (schedules < 0) {
				cli_mi_close_to(session);
				cli_mi_open("rotation_schedules");
				schedules = cli_mi_depth();
			}
			cli_mi_open(r.kind == TRAWL_CTL_ROTATION_TIMER ? "periodic" : "size_threshold");
			cli_mi_u64(r.kind == TRAWL_CTL_ROTATION_TIMER ? "time_us" : "bytes", r.value);
			cli_mi_close();
			break;
		case TRAWL_CTL_ITEM_DOMAIN:
			if (session < 0 || trawl_ctl_list_domain_at(l, i, &d))
				break;
			consumer_dead |= !d.consumer_alive;
			if (domains < 0) {
				cli_mi_close_to(session);
				cli_mi_open("domains");
				domains = cli_mi_depth();
			}
			cli_mi_close_to(domains);
			cli_mi_open("domain");
			cli_mi_str("type", cli_mi_domain_name(d.domain));
			cli_mi_str("buffer_type",
				   cli_mi_buffers_name(d.domain, domain_buffers(l, i)));
			if (domains_only) /* list -d: the domain alone */
				break;
			if (d.domain >= TRAWL_CTL_DOMAIN_JUL) {
				/* an agent domain: its <events> only, as LTTng's */
				cli_mi_open("events");
				events = channels = cli_mi_depth();
				break;
			}
			i = mi_trackers(l, i + 1) - 1;
			cli_mi_open("channels");
			channels = cli_mi_depth();
			break;
		case TRAWL_CTL_ITEM_CHANNEL:
			if (domains < 0 || domains_only || trawl_ctl_list_channel_at(l, i, &c))
				break;
			cli_mi_close_to(channels);
			cli_mi_channel_open(&c);
			cli_mi_open("events");
			events = cli_mi_depth();
			break;
		case TRAWL_CTL_ITEM_EVENT:
			if (events < 0 || domains_only || trawl_ctl_list_event_at(l, i, &e))
				break;
			cli_mi_close_to(events);
			cli_mi_event_of(&me, &e);
			cli_mi_event_open(&me);
			cli_mi_close();
			break;
		default:
			break;
		}
	}
	/* list -d: LTTng's <domains/> even when there is none */
	if (domains_only && session >= 0 && domains < 0) {
		cli_mi_close_to(session);
		cli_mi_open("domains");
	}
	cli_mi_close_to(base);
	return consumer_dead;
}

/* Ends the channel being printed, if any: its rules, or LTTng's "None". */
static void end_channel(int *chan, int *rules)
{
	if (*chan && !*rules)
		printf("\n    Recording event rules:\n      None\n\n");
	else if (*chan)
		printf("\n");
	*chan = *rules = 0;
}

/*
 * `list SESSION -d`, as LTTng 2.13's list_domains(): the session's lines
 * and rotation schedules, then its domains alone.
 */
int cli_show_domains(const struct trawl_ctl_list *l)
{
	size_t i, n = trawl_ctl_list_count(l);
	int nr = 0;

	if (cli_mi)
		return mi_show_session(l, 1);
	for (i = 0; i < n; i++) {
		struct trawl_ctl_domain_info d = {.struct_size = sizeof(d)};

		switch (trawl_ctl_list_kind(l, i)) {
		case TRAWL_CTL_ITEM_SESSION:
			show_session(l, i);
			break;
		case TRAWL_CTL_ITEM_ROTATION_SCHEDULE:
			i = show_schedules(l, i) - 1;
			break;
		case TRAWL_CTL_ITEM_DOMAIN:
			if (trawl_ctl_list_domain_at(l, i, &d))
				break;
			if (!nr++)
				printf("Domains:\n-------------\n");
			printf("  - %s\n", domain_title(d.domain, 1));
			break;
		default:
			break;
		}
	}
	if (!nr)
		printf("Domains:\n-------------\n  None\n");
	return 0;
}

int cli_show_session(const struct trawl_ctl_list *l)
{
	size_t i, n = trawl_ctl_list_count(l);
	int chan = 0, rules = 0, chans = 0, ctx_open = 0, consumer_dead = 0, snapshot = 0;
	int agent = 0, agent_rules = 0;

	if (cli_mi)
		return mi_show_session(l, 0);

	for (i = 0; i < n; i++) {
		struct trawl_ctl_context_info x = {.struct_size = sizeof(x)};
		enum trawl_ctl_item_kind kind = trawl_ctl_list_kind(l, i);

		/* A context list runs on one line, ended by whatever comes next. */
		if (ctx_open && kind != TRAWL_CTL_ITEM_CONTEXT) {
			printf("\n");
			ctx_open = 0;
		}
		switch (kind) {
		case TRAWL_CTL_ITEM_SESSION:
			snapshot = show_session(l, i);
			break;
		case TRAWL_CTL_ITEM_ROTATION_SCHEDULE:
			i = show_schedules(l, i) - 1;
			break;
		case TRAWL_CTL_ITEM_DOMAIN:
			end_channel(&chan, &rules);
			if (agent)
				printf("%s\n", agent_rules ? "" : "    None\n");
			consumer_dead |= show_domain(l, i);
			agent = trawl_ctl_list_kind(l, i) == TRAWL_CTL_ITEM_DOMAIN &&
				domain_is_agent(l, i);
			agent_rules = 0;
			if (!agent)
				i = show_trackers(l, i + 1) - 1;
			chans = 0;
			break;
		case TRAWL_CTL_ITEM_CHANNEL:
			end_channel(&chan, &rules);
			if (!chans++)
				printf("Channels:\n-------------\n");
			show_channel(l, i, snapshot);
			chan = 1;
			break;
		case TRAWL_CTL_ITEM_CONTEXT:
			/* trawl's own line (LTTng's text has none): the channel's contexts. */
			if (trawl_ctl_list_context_at(l, i, &x))
				break;
			printf("%s%s", ctx_open ? ", " : "\n    Context: ", x.name);
			ctx_open = 1;
			break;
		case TRAWL_CTL_ITEM_EVENT:
			if (agent) {
				agent_rules++;
				show_agent_event(l, i);
				break;
			}
			if (!rules++)
				printf("\n    Recording event rules:\n");
			show_event(l, i);
			break;
		default:
			break;
		}
	}
	if (ctx_open)
		printf("\n");
	end_channel(&chan, &rules);
	if (agent)
		printf("%s\n", agent_rules ? "" : "    None\n");
	return consumer_dead;
}
