/* SPDX-License-Identifier: MIT */
/*
 * parse-channel.c - a <channel> of a session file: its attributes, event
 * rules (kinds, log levels, filters, probe locations in trawl's spelling)
 * and contexts (LTTng's words and perf counters as add-context names them).
 */
#include "common/common.h"
#include "config/xmltree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ---- events ---- */

/* LTTng's <type> of an event, in session.xsd's order. */
enum {
	ET_ALL,
	ET_TRACEPOINT,
	ET_PROBE,
	ET_USERSPACE_PROBE,
	ET_FUNCTION,
	ET_FUNCTION_ENTRY,
	ET_NOOP,
	ET_SYSCALL,
	ET_KPROBE,
	ET_KRETPROBE,
};
static const char *const event_types[] = {
	"ALL",	"TRACEPOINT", "PROBE",	"USERSPACE_PROBE", "FUNCTION", "FUNCTION_ENTRY",
	"NOOP", "SYSCALL",    "KPROBE", "KRETPROBE",	   NULL,
};

/* <probe_attributes> (kernel probes, LTTng's --probe and --function) as SYM+OFF or 0xADDR. */
static int probe_target(struct px *p, const node_t *n, char **target)
{
	static const char *const k[] = {"symbol_name", "address", "offset"};
	uint64_t addr = 0, off = 0;
	char *sym = NULL, buf[TRAWL_CTL_TARGET_MAX];
	node_t *c[3];
	int ret = px_children(p, n, k, c, 3);

	if (!ret && c[0])
		ret = px_text(p, c[0], &sym);
	if (!ret && c[1])
		ret = px_u64(p, c[1], UINT64_MAX, &addr);
	if (!ret && c[2])
		ret = px_u64(p, c[2], UINT64_MAX, &off);
	if (ret)
		goto out;
	if (sym && sym[0] && off)
		ret = trawl_path_fmt(buf, sizeof(buf), "%s+%" PRIu64, sym, off);
	else if (sym && sym[0])
		ret = trawl_path_fmt(buf, sizeof(buf), "%s", sym);
	else if (addr)
		ret = trawl_path_fmt(buf, sizeof(buf), "0x%" PRIx64, addr + off);
	else
		ret = px_err(p, n, "<probe_attributes> without a symbol or an address");
	if (ret == -ENAMETOOLONG)
		ret = px_err(p, n, "<probe_attributes>: location too long");
	if (!ret) {
		*target = strdup(buf);
		ret = *target ? 0 : -ENOMEM;
	}
out:
	free(sym);
	return ret;
}

/* <userspace_probe_*_attributes> as elf:PATH:FUNCTION or sdt:PATH:PROVIDER:NAME. */
static int uprobe_target(struct px *p, const node_t *n, int sdt, char **target)
{
	static const char *const fk[] = {"lookup_method", "binary_path", "function_name"};
	static const char *const tk[] = {"lookup_method", "binary_path", "provider_name",
					 "probe_name"};
	static const char *const methods[] = {"DEFAULT", "ELF", "SDT", NULL};
	char *v[3] = {NULL, NULL, NULL}, buf[TRAWL_CTL_TARGET_MAX];
	node_t *c[4];
	int ret = px_children(p, n, sdt ? tk : fk, c, sdt ? 4 : 3), method = 0, i;

	for (i = 1; !ret && i < (sdt ? 4 : 3); i++) {
		if (!c[i]) {
			ret = px_err(p, n, "<%s> without <%s>", px_name(n), (sdt ? tk : fk)[i]);
			break;
		}
		ret = px_text(p, c[i], &v[i - 1]);
	}
	if (!ret && c[0])
		ret = px_enum(p, c[0], methods, &method);
	if (!ret && sdt != (method == 2) && !(method == 0 && !sdt))
		ret = px_err(p, c[0], "<lookup_method>: %s does not go with <%s>", methods[method],
			     px_name(n));
	if (!ret) {
		if (sdt)
			ret = trawl_path_fmt(buf, sizeof(buf), "sdt:%s:%s:%s", v[0], v[1], v[2]);
		else
			ret = trawl_path_fmt(buf, sizeof(buf), "elf:%s:%s", v[0], v[1]);
		if (ret)
			ret = px_err(p, n, "<%s>: location too long", px_name(n));
	}
	if (!ret) {
		*target = strdup(buf);
		ret = *target ? 0 : -ENOMEM;
	}
	for (i = 0; i < 3; i++)
		free(v[i]);
	return ret;
}

static int parse_event_attributes(struct px *p, const node_t *n, int type, struct cfg_event *ev)
{
	static const char *const k[] = {"probe_attributes", "function_attributes",
					"userspace_probe_function_attributes",
					"userspace_probe_tracepoint_attributes"};
	node_t *c[4];
	int ret = px_children(p, n, k, c, 4), i, nr = 0;

	if (ret)
		return ret;
	for (i = 0; i < 4; i++)
		nr += !!c[i];
	if (nr != 1)
		return px_err(p, n, "<attributes> holds one of <%s>, <%s>, <%s> and <%s>", k[0],
			      k[1], k[2], k[3]);
	if (c[1])
		return px_err(p, c[1],
			      "<function_attributes>: ftrace function events "
			      "(FUNCTION_ENTRY) are not supported by trawl");
	if ((c[0] && type != ET_PROBE && type != ET_KPROBE && type != ET_FUNCTION &&
	     type != ET_KRETPROBE) ||
	    ((c[2] || c[3]) && type != ET_USERSPACE_PROBE))
		return px_err(p, n, "<attributes> do not go with event type %s", event_types[type]);
	if (c[0])
		return probe_target(p, c[0], &ev->target);
	return uprobe_target(p, c[2] ? c[2] : c[3], !c[2], &ev->target);
}

/* <exclusions><exclusion>NAME</exclusion>...: the names joined by ',' in
 * *@out (NULL for none), as enable-event --exclude takes them. */
static int parse_exclusions(struct px *p, node_t *n, char **out)
{
	size_t nr, len = 0;
	node_t *c;
	int ret = px_list_of(p, n, "exclusion", &nr);

	if (ret || !nr)
		return ret;
	for (c = px_next_elem(n->children); c; c = px_next_elem(c->next)) {
		char *x = NULL, *all;
		size_t xl;

		ret = px_text(p, c, &x);
		if (ret)
			return ret;
		xl = strlen(x);
		if (!xl || strchr(x, ',') || len + xl + 2 > TRAWL_CTL_EXCLUSIONS_MAX) {
			free(x);
			return px_err(p, c, "<exclusion>: empty, holds ',', or the event's "
					    "exclusions are over %d bytes", TRAWL_CTL_EXCLUSIONS_MAX - 1);
		}
		all = realloc(*out, len + xl + 2);
		if (!all) {
			free(x);
			return -ENOMEM;
		}
		if (len)
			all[len++] = ',';
		memcpy(all + len, x, xl + 1);
		len += xl;
		*out = all;
		free(x);
	}
	return 0;
}

static int parse_event(struct px *p, const node_t *n, enum trawl_ctl_domain dom,
		       struct cfg_event *ev)
{
	static const char *const k[] = {"name",	    "enabled", "type",	     "loglevel_type",
					"loglevel", "filter",  "exclusions", "attributes"};
	static const char *const lt[] = {"ALL", "RANGE", "SINGLE", NULL};
	node_t *c[8];
	int ret = px_children(p, n, k, c, 8), type = ET_TRACEPOINT, ltype = 0;
	int64_t level = -1;

	ev->enabled = 1;
	if (!ret && c[0])
		ret = px_text(p, c[0], &ev->name);
	if (!ret && c[1])
		ret = px_bool(p, c[1], &ev->enabled);
	if (!ret && c[2])
		ret = px_enum(p, c[2], event_types, &type);
	if (!ret && c[3])
		ret = px_enum(p, c[3], lt, &ltype);
	if (!ret && c[4])
		ret = px_s64(p, c[4], INT32_MIN, INT32_MAX, &level);
	if (!ret && c[5])
		ret = px_text(p, c[5], &ev->filter);
	if (ret)
		return ret;
	if (c[6]) {
		ret = parse_exclusions(p, c[6], &ev->exclusions);
		if (ret)
			return ret;
	}
	if (!ev->name || !ev->name[0])
		return px_err(p, n, "<event> without a <name>");
	switch (type) {
	case ET_ALL:
		ev->kind = TRAWL_CTL_EVENT_TRACEPOINT;
		/* LTTng's enable-event -k -a: "*" of both kinds */
		ev->also_syscalls = dom == TRAWL_CTL_DOMAIN_KERNEL && !strcmp(ev->name, "*");
		break;
	case ET_TRACEPOINT:
		ev->kind = TRAWL_CTL_EVENT_TRACEPOINT;
		break;
	case ET_SYSCALL:
		ev->kind = TRAWL_CTL_EVENT_SYSCALL;
		break;
	case ET_PROBE:
	case ET_KPROBE:
		ev->kind = TRAWL_CTL_EVENT_PROBE;
		break;
	case ET_FUNCTION:
	case ET_KRETPROBE:
		ev->kind = TRAWL_CTL_EVENT_FUNCTION;
		break;
	case ET_USERSPACE_PROBE:
		ev->kind = TRAWL_CTL_EVENT_USERSPACE_PROBE;
		break;
	default:
		return px_err(p, c[2], "<type>: %s events are not supported by trawl",
			      event_types[type]);
	}
	if (dom != TRAWL_CTL_DOMAIN_KERNEL && ev->kind != TRAWL_CTL_EVENT_TRACEPOINT)
		return px_err(p, c[2], "<type>: %s events are kernel events", event_types[type]);
	if (c[7]) {
		ret = parse_event_attributes(p, c[7], type, ev);
		if (ret)
			return ret;
	} else if (ev->kind == TRAWL_CTL_EVENT_PROBE || ev->kind == TRAWL_CTL_EVENT_FUNCTION ||
		   ev->kind == TRAWL_CTL_EVENT_USERSPACE_PROBE) {
		return px_err(p, n, "<event> %s of type %s without <attributes>", ev->name,
			      event_types[type]);
	}
	/* LTTng writes level -1 with ALL, and with RANGE or SINGLE for a
	 * rule enabled with level -1 (which LTTng-UST takes as every level);
	 * another level out of 0..14 means none. */
	ev->loglevel_type = (enum trawl_ctl_loglevel_type)ltype;
	if (dom >= TRAWL_CTL_DOMAIN_JUL) { /* an agent domain: the framework's levels */
		ev->loglevel = ltype ? (int)level : 0;
		return 0;
	}
	if (ltype && (level < -1 || level > 14))
		return px_err(p, c[4] ? c[4] : n,
			      "<loglevel>: %" PRId64 " is not a level from 0 (TRACE_EMERG) to 14 "
			      "(TRACE_DEBUG)",
			      level);
	ev->loglevel = ltype ? (int)level : 0;
	return 0;
}

/* ---- contexts ---- */

/* LTTng's context <type> words and the names add-context takes. */
static const struct {
	const char *lttng, *trawl;
} context_names[] = {
	{"PID", "pid"},	  {"TID", "tid"},
	{"VPID", "vpid"}, {"VTID", "vtid"},
	{"PPID", "ppid"}, {"PROCNAME", "procname"},
	{"PRIO", "prio"}, {"NICE", "nice"},
	{"IP", "ip"},	  {"PTHREAD_ID", "pthread_id"},
	{"CGROUP_NS", "cgroup_ns"}, {"IPC_NS", "ipc_ns"},
	{"MNT_NS", "mnt_ns"},	    {"NET_NS", "net_ns"},
	{"PID_NS", "pid_ns"},	    {"TIME_NS", "time_ns"},
	{"USER_NS", "user_ns"},	    {"UTS_NS", "uts_ns"},
};

const char *cfg_context_lttng(const char *name)
{
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(context_names); i++)
		if (!strcmp(name, context_names[i].trawl))
			return context_names[i].lttng;
	return NULL;
}

static int parse_perf_context(struct px *p, const node_t *n, enum trawl_ctl_domain dom, char **out)
{
	static const char *const k[] = {"type", "config", "name"};
	const char *prefix = dom == TRAWL_CTL_DOMAIN_KERNEL ? "perf:cpu:" : "perf:thread:";
	uint64_t type = 0, config = 0;
	char *name = NULL, buf[TRAWL_CTL_NAME_MAX], cand[64];
	node_t *c[3];
	size_t i;
	int ret = px_children(p, n, k, c, 3), sw;

	if (!ret && (!c[0] || !c[1] || !c[2]))
		ret = px_err(p, n, "<perf> needs <type>, <config> and <name>");
	if (!ret)
		ret = px_u64(p, c[0], UINT32_MAX, &type);
	if (!ret)
		ret = px_u64(p, c[1], UINT64_MAX, &config);
	if (!ret)
		ret = px_text(p, c[2], &name);
	if (ret)
		goto out;
	if (type == 4 /* PERF_TYPE_RAW: the name says which: perf_thread_raw_rHEX_LABEL */) {
		const char *r = strstr(name, "_raw_r"), *label;

		label = r ? strchr(r + 6, '_') : NULL;
		if (!label || trawl_path_fmt(buf, sizeof(buf), "%sraw:r%.*s:%s", prefix,
					     (int)(label - r - 6), r + 6, label + 1)) {
			ret = px_err(p, c[2], "<name>: '%s' is not a raw counter's name", name);
			goto out;
		}
		goto found;
	}
	for (i = 0; !trawl_perf_counter_name(i, cand, sizeof(cand), &sw); i++) {
		uint32_t t;
		uint64_t cfg;

		if (!trawl_perf_counter_lookup(cand, &t, &cfg) && t == type && cfg == config) {
			trawl_path_fmt(buf, sizeof(buf), "%s%s", prefix, cand);
			goto found;
		}
	}
	ret = px_err(p, n,
		     "<perf>: counter type %" PRIu64 " config %" PRIu64
		     " (%s) is not one trawl knows",
		     type, config, name);
	goto out;
found:
	*out = strdup(buf);
	ret = *out ? 0 : -ENOMEM;
out:
	free(name);
	return ret;
}

/* <app><provider_name>P</provider_name><ctx_name>N</ctx_name></app>: "$app.P:N"
 * (the daemon checks the names, as for add-context). */
static int parse_app_context(struct px *p, const node_t *n, char **out)
{
	static const char *const k[] = {"provider_name", "ctx_name"};
	char *provider = NULL, *name = NULL, buf[TRAWL_CTL_NAME_MAX];
	node_t *c[2];
	int ret = px_children(p, n, k, c, 2);

	if (!ret && (!c[0] || !c[1]))
		ret = px_err(p, n, "<app> needs <provider_name> and <ctx_name>");
	if (!ret)
		ret = px_text(p, c[0], &provider);
	if (!ret)
		ret = px_text(p, c[1], &name);
	if (!ret && trawl_path_fmt(buf, sizeof(buf), "$app.%s:%s", provider, name))
		ret = px_err(p, n, "<app>: application context name too long");
	if (!ret) {
		*out = strdup(buf);
		ret = *out ? 0 : -ENOMEM;
	}
	free(provider);
	free(name);
	return ret;
}

static int parse_context(struct px *p, const node_t *n, enum trawl_ctl_domain dom, char **out)
{
	static const char *const k[] = {"type", "perf", "app"};
	char word[32];
	node_t *c[3];
	size_t i;
	int ret = px_children(p, n, k, c, 3);

	if (ret)
		return ret;
	if (!!c[0] + !!c[1] + !!c[2] != 1)
		return px_err(p, n, "<context> holds one of <type>, <perf> and <app>");
	if (c[2])
		return parse_app_context(p, c[2], out);
	if (c[1])
		return parse_perf_context(p, c[1], dom, out);
	ret = px_token(p, c[0], word, sizeof(word));
	if (ret)
		return ret;
	for (i = 0; i < TRAWL_ARRAY_SIZE(context_names); i++)
		if (!strcmp(word, context_names[i].lttng)) {
			*out = strdup(context_names[i].trawl);
			return *out ? 0 : -ENOMEM;
		}
	return px_err(p, c[0], "<type>: context %s is not supported by trawl", word);
}

/* ---- channels ---- */

int cfg_parse_channel(struct px *p, const node_t *n, enum trawl_ctl_domain dom,
		      struct cfg_channel *ch)
{
	enum {
		C_NAME,
		C_ENABLED,
		C_OVERWRITE,
		C_SUBBUF_SIZE,
		C_SUBBUF_COUNT,
		C_SWITCH,
		C_READ,
		C_BLOCKING,
		C_OUTPUT,
		C_TF_SIZE,
		C_TF_COUNT,
		C_LIVE,
		C_EVENTS,
		C_CONTEXTS,
		C_MONITOR,
		C_NR
	};
	static const char *const k[C_NR] = {
		"name",
		"enabled",
		"overwrite_mode",
		"subbuffer_size",
		"subbuffer_count",
		"switch_timer_interval",
		"read_timer_interval",
		"blocking_timeout",
		"output_type",
		"tracefile_size",
		"tracefile_count",
		"live_timer_interval",
		"events",
		"contexts",
		"monitor_timer_interval",
	};
	static const char *const modes[] = {"DISCARD", "OVERWRITE", NULL};
	static const char *const outputs[] = {"SPLICE", "MMAP", NULL};
	node_t *c[C_NR], *e;
	uint64_t v;
	size_t nr;
	int ret = px_children(p, n, k, c, C_NR), x;

	ch->enabled = 1;
	ch->overwrite = -1;
	if (!ret && c[C_NAME])
		ret = px_text(p, c[C_NAME], &ch->name);
	if (!ret && !c[C_NAME])
		ret = px_err(p, n, "<channel> without a <name>");
	if (!ret && c[C_ENABLED])
		ret = px_bool(p, c[C_ENABLED], &ch->enabled);
	if (!ret && c[C_OVERWRITE] && !(ret = px_enum(p, c[C_OVERWRITE], modes, &x)))
		ch->overwrite = x;
	if (!ret && c[C_SUBBUF_SIZE])
		ret = px_u64(p, c[C_SUBBUF_SIZE], UINT64_MAX, &ch->subbuf_size);
	if (!ret && c[C_SUBBUF_COUNT])
		ret = px_u64(p, c[C_SUBBUF_COUNT], UINT32_MAX, &ch->num_subbuf);
	if (!ret && c[C_SWITCH] && !(ret = px_u32(p, c[C_SWITCH], &ch->switch_timer_us)))
		ch->has_switch_timer = 1;
	if (!ret && c[C_READ] && !(ret = px_u32(p, c[C_READ], &ch->read_timer_us)))
		ch->has_read_timer = 1;
	/* µs, -1: infinite; LTTng's bound (ms in a 32-bit int). */
	if (!ret && c[C_BLOCKING] &&
	    !(ret = px_s64(p, c[C_BLOCKING], -1, TRAWL_CTL_BLOCKING_MAX_US, &ch->blocking_timeout_us)))
		ch->has_blocking_timeout = 1;
	/* what the channel says (trawl's consumers write either alike) */
	if (!ret && c[C_OUTPUT] && !(ret = px_enum(p, c[C_OUTPUT], outputs, &x)))
		ch->output = x == 0 ? TRAWL_CTL_OUTPUT_SPLICE : TRAWL_CTL_OUTPUT_MMAP;
	/* trace file limits (enable-channel --tracefile-size/--tracefile-count) */
	if (!ret && c[C_TF_SIZE])
		ret = px_u64(p, c[C_TF_SIZE], UINT64_MAX, &ch->tracefile_size);
	if (!ret && c[C_TF_COUNT] && !(ret = px_u64(p, c[C_TF_COUNT], UINT32_MAX, &v)))
		ch->tracefile_count = (uint32_t)v;
	/* The session's live timer decides; LTTng writes it in each channel too. */
	if (!ret && c[C_LIVE])
		ret = px_u64(p, c[C_LIVE], UINT32_MAX, &v);
	if (!ret && c[C_MONITOR] &&
	    !(ret = px_u64(p, c[C_MONITOR], TRAWL_CTL_MONITOR_MAX_US, &ch->monitor_timer_us)))
		ch->has_monitor_timer = 1;
	if (ret)
		return ret;
	if (c[C_EVENTS]) {
		ret = px_list_of(p, c[C_EVENTS], "event", &nr);
		if (ret)
			return ret;
		ch->events = calloc(nr ? nr : 1, sizeof(*ch->events));
		if (!ch->events)
			return -ENOMEM;
		FOR_EACH_ELEM(e, c[C_EVENTS])
		{
			ret = parse_event(p, e, dom, &ch->events[ch->nr_events++]);
			if (ret)
				return ret;
		}
	}
	if (c[C_CONTEXTS]) {
		ret = px_list_of(p, c[C_CONTEXTS], "context", &nr);
		if (ret)
			return ret;
		ch->contexts = calloc(nr ? nr : 1, sizeof(*ch->contexts));
		if (!ch->contexts)
			return -ENOMEM;
		FOR_EACH_ELEM(e, c[C_CONTEXTS])
		{
			ret = parse_context(p, e, dom, &ch->contexts[ch->nr_contexts++]);
			if (ret)
				return ret;
		}
	}
	return 0;
}
