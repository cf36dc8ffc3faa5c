/* SPDX-License-Identifier: MIT */
/*
 * save.c - a session as LTTng 2.13's session XML, from what the daemon
 * lists of it (trawl_ctl_list_session(), and the snapshot outputs), in
 * the elements and order LTTng's save.c writes, with LTTng's values for
 * what trawl has no choice of (the output type).
 * The file is written by this
 * process, as the user who asked (docs/SECURITY.md).
 */
#include "common/common.h"
#include "common/fs.h"
#include "common/xmlw.h"
#include "config/config.h"
#include "config/model.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* The list's records, each by kind, for the one session listed. */
struct sv {
	struct trawl_ctl *ctl;
	struct trawl_ctl_list *l;
	struct trawl_xmlw w;
	struct trawl_ctl_session_info s;
};

/* add-context's name ("pid", "perf:thread:page-fault", "$app.P:N") as LTTng's <context>. */
static void write_context(struct trawl_xmlw *w, const char *name)
{
	const char *word = cfg_context_lttng(name);
	const char *counter = NULL;
	uint32_t type;
	uint64_t config;

	if (!strncmp(name, "perf:thread:", 12))
		counter = name + 12;
	else if (!strncmp(name, "perf:cpu:", 9))
		counter = name + 9;
	trawl_xmlw_open(w, "context");
	if (!strncmp(name, "$app.", 5) && strchr(name + 5, ':')) {
		/* LTTng's <app><provider_name/><ctx_name/></app> */
		const char *colon = strchr(name + 5, ':');
		char provider[TRAWL_CTL_NAME_MAX];

		trawl_path_fmt(provider, sizeof(provider), "%.*s", (int)(colon - (name + 5)),
			       name + 5);
		trawl_xmlw_open(w, "app");
		trawl_xmlw_text(w, "provider_name", provider);
		trawl_xmlw_text(w, "ctx_name", colon + 1);
		trawl_xmlw_close(w);
	} else if (counter && !trawl_perf_counter_lookup(counter, &type, &config)) {
		/* LTTng names the field from the type with ':' and '-' made '_' */
		char field[TRAWL_CTL_NAME_MAX], *c;

		trawl_path_fmt(field, sizeof(field), "%s", name);
		for (c = field; *c; c++)
			if (*c == ':' || *c == '-')
				*c = '_';
		trawl_xmlw_open(w, "perf");
		trawl_xmlw_u64(w, "type", type);
		trawl_xmlw_u64(w, "config", config);
		trawl_xmlw_text(w, "name", field);
		trawl_xmlw_close(w);
	} else {
		/* A context this table lacks: its name upper-cased, as LTTng spells them. */
		char up[64];
		size_t i;

		if (!word) {
			for (i = 0; name[i] && i < sizeof(up) - 1; i++)
				up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32
										: name[i]);
			up[i] = '\0';
			word = up;
		}
		trawl_xmlw_text(w, "type", word);
	}
	trawl_xmlw_close(w);
}

/* A kernel probe's location (SYM, SYM+OFF, 0xADDR) as <probe_attributes>. */
static void write_probe(struct trawl_xmlw *w, const char *target)
{
	char sym[TRAWL_CTL_TARGET_MAX];
	const char *plus = strchr(target, '+');

	trawl_xmlw_open(w, "probe_attributes");
	if (!strncmp(target, "0x", 2)) {
		trawl_xmlw_u64(w, "address", strtoull(target, NULL, 16));
	} else {
		trawl_path_fmt(sym, sizeof(sym), "%.*s",
			       (int)(plus ? (size_t)(plus - target) : strlen(target)), target);
		trawl_xmlw_text(w, "symbol_name", sym);
		trawl_xmlw_u64(w, "offset", plus ? strtoull(plus + 1, NULL, 0) : 0);
	}
	trawl_xmlw_close(w);
}

/* elf:PATH:FUNCTION or sdt:PATH:PROVIDER:NAME as LTTng's user-space probe attributes. */
static void write_uprobe(struct trawl_xmlw *w, const char *target)
{
	char buf[TRAWL_CTL_TARGET_MAX], *path, *a, *b;
	int sdt = !strncmp(target, "sdt:", 4);

	if (!sdt && strncmp(target, "elf:", 4))
		return; /* not a location the kernel part takes */
	trawl_path_fmt(buf, sizeof(buf), "%s", target + 4);
	path = buf;
	/* The path has no ':' (the kernel part checks it); the names come after it. */
	a = strchr(path, ':');
	if (!a)
		return;
	*a++ = '\0';
	b = sdt ? strchr(a, ':') : NULL;
	if (b)
		*b++ = '\0';
	trawl_xmlw_open(w, sdt ? "userspace_probe_tracepoint_attributes"
			       : "userspace_probe_function_attributes");
	trawl_xmlw_text(w, "lookup_method", sdt ? "SDT" : "ELF");
	trawl_xmlw_text(w, "binary_path", path);
	if (sdt) {
		trawl_xmlw_text(w, "provider_name", a);
		trawl_xmlw_text(w, "probe_name", b ? b : "");
	} else {
		trawl_xmlw_text(w, "function_name", a);
	}
	trawl_xmlw_close(w);
}

static void write_event(struct trawl_xmlw *w, const struct trawl_ctl_event_info *e)
{
	static const char *const kinds[] = {"TRACEPOINT", "SYSCALL", "PROBE", "FUNCTION",
					    "USERSPACE_PROBE"};
	static const char *const lt[] = {"ALL", "RANGE", "SINGLE"};

	trawl_xmlw_open(w, "event");
	trawl_xmlw_text(w, "name", e->name);
	trawl_xmlw_bool(w, "enabled", e->enabled);
	trawl_xmlw_text(w, "type", (unsigned)e->kind < 5 ? kinds[e->kind] : "TRACEPOINT");
	if (e->domain >= TRAWL_CTL_DOMAIN_JUL) {
		/* an agent domain's, as LTTng writes it: a level unless all */
		trawl_xmlw_text(w, "loglevel_type", (unsigned)e->loglevel_type > 2
							    ? "ALL" : lt[e->loglevel_type]);
		if (e->loglevel_type != TRAWL_CTL_LOGLEVEL_ALL)
			trawl_xmlw_s64(w, "loglevel", e->loglevel);
	} else if (e->domain == TRAWL_CTL_DOMAIN_UST) {
		int all = (unsigned)e->loglevel_type > 2 ||
			  e->loglevel_type == TRAWL_CTL_LOGLEVEL_ALL;

		trawl_xmlw_text(w, "loglevel_type", all ? "ALL" : lt[e->loglevel_type]);
		trawl_xmlw_s64(w, "loglevel", all ? -1 : e->loglevel);
	}
	if (e->filter[0])
		trawl_xmlw_text(w, "filter", e->filter);
	if (e->struct_size > offsetof(struct trawl_ctl_event_info, exclusions) && e->exclusions[0]) {
		const char *x = e->exclusions, *end;

		trawl_xmlw_open(w, "exclusions");
		for (; *x; x = *end ? end + 1 : end) {
			char one[TRAWL_CTL_NAME_MAX];
			size_t n;

			end = strchr(x, ',');
			if (!end)
				end = x + strlen(x);
			n = (size_t)(end - x);
			if (n >= sizeof(one)) /* the daemon takes none this long */
				continue;
			memcpy(one, x, n);
			one[n] = '\0';
			trawl_xmlw_text(w, "exclusion", one);
		}
		trawl_xmlw_close(w);
	}
	if (e->target[0] &&
	    (e->kind == TRAWL_CTL_EVENT_PROBE || e->kind == TRAWL_CTL_EVENT_FUNCTION ||
	     e->kind == TRAWL_CTL_EVENT_USERSPACE_PROBE)) {
		trawl_xmlw_open(w, "attributes");
		if (e->kind == TRAWL_CTL_EVENT_USERSPACE_PROBE)
			write_uprobe(w, e->target);
		else
			write_probe(w, e->target);
		trawl_xmlw_close(w);
	}
	trawl_xmlw_close(w);
}

/* The user-space channel of an agent domain's rules: saved with that domain. */
static int is_agent_channel(const char *name)
{
	return !strcmp(name, "lttng_jul_channel") || !strcmp(name, "lttng_log4j_channel") ||
	       !strcmp(name, "lttng_python_channel");
}

/* The index after channel record @i's CONTEXT and EVENT records. */
static size_t channel_end(struct sv *v, size_t i)
{
	size_t end;

	for (end = i + 1; end < trawl_ctl_list_count(v->l); end++) {
		enum trawl_ctl_item_kind k = trawl_ctl_list_kind(v->l, end);

		if (k != TRAWL_CTL_ITEM_CONTEXT && k != TRAWL_CTL_ITEM_EVENT)
			break;
	}
	return end;
}

/*
 * Channel record @i with the EVENT records from @from to @end (its own, or
 * an agent domain's rules) and the CONTEXT records from @ctx_from to
 * @ctx_end (its own: an agent domain's channel is the user-space one, whose
 * contexts LTTng writes there).
 */
static void write_channel_with(struct sv *v, size_t i, size_t from, size_t end, size_t ctx_from,
			       size_t ctx_end)
{
	struct trawl_ctl_channel_info ch = {.struct_size = sizeof(ch)};
	struct trawl_xmlw *w = &v->w;
	size_t j;

	trawl_ctl_list_channel_at(v->l, i, &ch);
	trawl_xmlw_open(w, "channel");
	trawl_xmlw_text(w, "name", ch.name);
	trawl_xmlw_bool(w, "enabled", ch.enabled);
	trawl_xmlw_text(w, "overwrite_mode", ch.overwrite ? "OVERWRITE" : "DISCARD");
	trawl_xmlw_u64(w, "subbuffer_size", ch.subbuf_size);
	trawl_xmlw_u64(w, "subbuffer_count", ch.num_subbuf);
	trawl_xmlw_u64(w, "switch_timer_interval", ch.switch_timer_us);
	trawl_xmlw_u64(w, "read_timer_interval", ch.read_timer_us);
	trawl_xmlw_text(w, "output_type", ch.output == TRAWL_CTL_OUTPUT_SPLICE ? "SPLICE" : "MMAP");
	trawl_xmlw_s64(w, "blocking_timeout", ch.blocking_timeout_us);
	trawl_xmlw_u64(w, "monitor_timer_interval", ch.monitor_timer_us);
	trawl_xmlw_u64(w, "tracefile_size", ch.tracefile_size);
	trawl_xmlw_u64(w, "tracefile_count", ch.tracefile_count);
	trawl_xmlw_u64(w, "live_timer_interval", v->s.live_timer_us);
	trawl_xmlw_open(w, "events");
	for (j = from; j < end; j++) {
		struct trawl_ctl_event_info e = {.struct_size = sizeof(e)};

		if (!trawl_ctl_list_event_at(v->l, j, &e))
			write_event(w, &e);
	}
	trawl_xmlw_close(w);
	trawl_xmlw_open(w, "contexts");
	for (j = ctx_from; j < ctx_end; j++) {
		struct trawl_ctl_context_info c = {.struct_size = sizeof(c)};

		if (!trawl_ctl_list_context_at(v->l, j, &c))
			write_context(w, c.name);
	}
	trawl_xmlw_close(w);
	trawl_xmlw_close(w);
}

/* Channel record @i and its CONTEXT and EVENT records; returns the index after them. */
static size_t write_channel(struct sv *v, size_t i)
{
	struct trawl_ctl_channel_info ch = {.struct_size = sizeof(ch)};
	size_t end = channel_end(v, i);

	if (!trawl_ctl_list_channel_at(v->l, i, &ch) && ch.domain == TRAWL_CTL_DOMAIN_UST &&
	    is_agent_channel(ch.name))
		return end;
	write_channel_with(v, i, i + 1, end, i + 1, end);
	return end;
}

/*
 * An agent domain (DOMAIN record @i, its rules up to @end) as LTTng writes
 * it: its one channel, the user-space one of the rules' channel name, with
 * the rules.
 */
static void write_agent_domain(struct sv *v, size_t i, size_t end,
			       const struct trawl_ctl_domain_info *d)
{
	static const char *const types[] = {"JUL", "LOG4J", "PYTHON"};
	struct trawl_ctl_event_info e = {.struct_size = sizeof(e)};
	struct trawl_xmlw *w = &v->w;
	size_t j, n = trawl_ctl_list_count(v->l);

	trawl_xmlw_open(w, "domain");
	trawl_xmlw_text(w, "type", types[d->domain - TRAWL_CTL_DOMAIN_JUL]);
	trawl_xmlw_text(w, "buffer_type", "PER_UID");
	trawl_xmlw_open(w, "channels");
	if (i + 1 < end && !trawl_ctl_list_event_at(v->l, i + 1, &e)) {
		for (j = 0; j < n; j++) {
			struct trawl_ctl_channel_info ch = {.struct_size = sizeof(ch)};

			if (!trawl_ctl_list_channel_at(v->l, j, &ch) &&
			    ch.domain == TRAWL_CTL_DOMAIN_UST && !strcmp(ch.name, e.channel)) {
				write_channel_with(v, j, i + 1, end, j + 1, channel_end(v, j));
				break;
			}
		}
	}
	trawl_xmlw_close(w);
	trawl_xmlw_close(w);
}

/* TRACKER record @i and its values; returns the index after them. */
static size_t write_tracker(struct sv *v, size_t i)
{
	struct trawl_ctl_tracker_info t = {.struct_size = sizeof(t)};
	struct trawl_xmlw *w = &v->w;
	size_t j;

	trawl_ctl_list_tracker_at(v->l, i, &t);
	if ((unsigned)t.process_attr >= TRAWL_CTL_PROCESS_ATTR_COUNT)
		return i + 1 + t.nr_values;
	/* A tracker that includes every process is LTTng's default: not written. */
	if (t.include_all)
		return i + 1 + t.nr_values;
	trawl_xmlw_open(w, cfg_tracker_elems[t.process_attr]);
	trawl_xmlw_open(w, "process_attr_values");
	for (j = i + 1; j < trawl_ctl_list_count(v->l) &&
			trawl_ctl_list_kind(v->l, j) == TRAWL_CTL_ITEM_TRACKER_VALUE;
	     j++) {
		struct trawl_ctl_tracker_value_info tv = {.struct_size = sizeof(tv)};

		trawl_ctl_list_tracker_value_at(v->l, j, &tv);
		trawl_xmlw_open(w, cfg_tracker_values[t.process_attr]);
		trawl_xmlw_u64(w, "id", tv.value);
		trawl_xmlw_close(w);
	}
	trawl_xmlw_close(w);
	trawl_xmlw_close(w);
	return j;
}

/* DOMAIN record @i and what follows it up to the next; returns the index after. */
static size_t write_domain(struct sv *v, size_t i)
{
	struct trawl_ctl_domain_info d = {.struct_size = sizeof(d)};
	struct trawl_xmlw *w = &v->w;
	size_t n = trawl_ctl_list_count(v->l), end, j;
	const char *buffers = "PER_UID";

	trawl_ctl_list_domain_at(v->l, i, &d);
	for (end = i + 1; end < n && trawl_ctl_list_kind(v->l, end) != TRAWL_CTL_ITEM_DOMAIN; end++)
		;
	/* LTTng's scheme is the domain's; trawl's channels of a domain share it too. */
	for (j = i + 1; j < end; j++) {
		struct trawl_ctl_channel_info ch = {.struct_size = sizeof(ch)};

		if (!trawl_ctl_list_channel_at(v->l, j, &ch)) {
			if (ch.buffers == TRAWL_CTL_BUFFERS_PER_PID)
				buffers = "PER_PID";
			break;
		}
	}
	if (d.domain >= TRAWL_CTL_DOMAIN_JUL) {
		write_agent_domain(v, i, end, &d);
		return end;
	}
	if (d.domain == TRAWL_CTL_DOMAIN_KERNEL)
		buffers = "GLOBAL";
	else if (d.domain != TRAWL_CTL_DOMAIN_UST)
		return end;
	trawl_xmlw_open(w, "domain");
	trawl_xmlw_text(w, "type", d.domain == TRAWL_CTL_DOMAIN_KERNEL ? "KERNEL" : "UST");
	trawl_xmlw_text(w, "buffer_type", buffers);
	trawl_xmlw_open(w, "channels");
	for (j = i + 1; j < end;)
		j = trawl_ctl_list_kind(v->l, j) == TRAWL_CTL_ITEM_CHANNEL ? write_channel(v, j)
									   : j + 1;
	trawl_xmlw_close(w);
	trawl_xmlw_open(w, "process_attr_trackers");
	for (j = i + 1; j < end;)
		j = trawl_ctl_list_kind(v->l, j) == TRAWL_CTL_ITEM_TRACKER ? write_tracker(v, j)
									   : j + 1;
	trawl_xmlw_close(w);
	trawl_xmlw_close(w);
	return end;
}

/*
 * trawl's output (a folder, net://HOST:CTRL:DATA[/SUB], net6://...) as
 * LTTng's <consumer_output>: tcp4://HOST:PORT/SUB for each of the two.
 */
static void write_consumer_output(struct trawl_xmlw *w, const char *output)
{
	int net = !strncmp(output, "net://", 6), net6 = !strncmp(output, "net6://", 7);

	trawl_xmlw_open(w, "consumer_output");
	trawl_xmlw_bool(w, "enabled", output[0] != '\0');
	trawl_xmlw_open(w, "destination");
	if (net || net6) {
		const char *h = output + (net ? 6 : 7), *e, *sub;
		unsigned cp = 5342, dp = 5343; /* LTTng's and trawl-relayd's defaults */
		char host[300], url[TRAWL_CTL_PATH_MAX];

		e = *h == '[' ? strchr(h, ']') : NULL;
		e = e ? e + 1 : h + strcspn(h, ":/");
		trawl_path_fmt(host, sizeof(host), "%.*s", (int)(e - h), h);
		if (*e == ':') {
			cp = (unsigned)strtoul(e + 1, (char **)&e, 10);
			if (*e == ':')
				dp = (unsigned)strtoul(e + 1, (char **)&e, 10);
		}
		sub = *e == '/' ? e + 1 : "";
		trawl_xmlw_open(w, "net_output");
		trawl_path_fmt(url, sizeof(url), "tcp%c://%s:%u/%s", net ? '4' : '6', host, cp,
			       sub);
		trawl_xmlw_text(w, "control_uri", url);
		trawl_path_fmt(url, sizeof(url), "tcp%c://%s:%u/%s", net ? '4' : '6', host, dp,
			       sub);
		trawl_xmlw_text(w, "data_uri", url);
		trawl_xmlw_close(w);
	} else {
		trawl_xmlw_text(w, "path", output);
	}
	trawl_xmlw_close(w);
	trawl_xmlw_close(w);
}

static int write_snapshot_outputs(struct sv *v)
{
	struct trawl_ctl_list *outs;
	struct trawl_xmlw *w = &v->w;
	size_t i;
	int ret = trawl_ctl_snapshot_list_outputs(v->ctl, v->s.name, &outs);

	if (ret)
		return ret;
	trawl_xmlw_open(w, "snapshot_outputs");
	for (i = 0; i < trawl_ctl_list_count(outs); i++) {
		struct trawl_ctl_snapshot_output_info o = {.struct_size = sizeof(o)};

		if (trawl_ctl_list_snapshot_output_at(outs, i, &o))
			continue;
		trawl_xmlw_open(w, "output");
		trawl_xmlw_text(w, "name", o.name);
		trawl_xmlw_u64(w, "max_size", o.max_size);
		write_consumer_output(w, o.ctrl_url);
		trawl_xmlw_close(w);
	}
	trawl_xmlw_close(w);
	trawl_ctl_list_destroy(outs);
	return 0;
}

static int write_session(struct sv *v)
{
	struct trawl_xmlw *w = &v->w;
	size_t i, n = trawl_ctl_list_count(v->l);
	int has_rot = 0, ret = 0;

	trawl_xmlw_open(w, "sessions");
	trawl_xmlw_open(w, "session");
	trawl_xmlw_text(w, "name", v->s.name);
	if (v->s.shm_path && v->s.shm_path[0])
		trawl_xmlw_text(w, "shared_memory_path", v->s.shm_path);
	trawl_xmlw_open(w, "domains");
	for (i = 0; i < n;)
		i = trawl_ctl_list_kind(v->l, i) == TRAWL_CTL_ITEM_DOMAIN ? write_domain(v, i)
									  : i + 1;
	trawl_xmlw_close(w);
	trawl_xmlw_bool(w, "started", v->s.active);
	for (i = 0; i < n; i++)
		has_rot |= trawl_ctl_list_kind(v->l, i) == TRAWL_CTL_ITEM_ROTATION_SCHEDULE;
	if (v->s.snapshot || v->s.live_timer_us || has_rot) {
		trawl_xmlw_open(w, "attributes");
		if (v->s.snapshot)
			trawl_xmlw_bool(w, "snapshot_mode", 1);
		if (v->s.live_timer_us)
			trawl_xmlw_u64(w, "live_timer_interval", v->s.live_timer_us);
		if (has_rot) {
			trawl_xmlw_open(w, "rotation_schedules");
			for (i = 0; i < n; i++) {
				struct trawl_ctl_rotation_schedule_info r = {.struct_size =
										     sizeof(r)};
				int timer;

				if (trawl_ctl_list_rotation_schedule_at(v->l, i, &r))
					continue;
				timer = r.kind == TRAWL_CTL_ROTATION_TIMER;
				trawl_xmlw_open(w, timer ? "periodic" : "size_threshold");
				trawl_xmlw_u64(w, timer ? "time_us" : "bytes", r.value);
				trawl_xmlw_close(w);
			}
			trawl_xmlw_close(w);
		}
		trawl_xmlw_close(w);
	}
	trawl_xmlw_open(w, "output");
	if (v->s.snapshot)
		ret = write_snapshot_outputs(v);
	else
		write_consumer_output(w, v->s.output);
	trawl_xmlw_close(w);
	trawl_xmlw_close(w);
	trawl_xmlw_close(w);
	return ret;
}

int trawl_config_session_xml(struct trawl_ctl *ctl, const char *name, char **xml, size_t *len,
			     char *err, size_t errlen)
{
	struct sv v = {.ctl = ctl, .s = {.struct_size = sizeof(v.s)}};
	int ret = trawl_ctl_list_session(ctl, name, &v.l);

	if (ret) {
		const char *line = trawl_ctl_last_error(ctl);

		trawl_msg_fmt(err, errlen, "cannot save session %s: %s", name,
			      line[0]	       ? line
			      : ret == -ENOENT ? "no such session"
					       : strerror(-ret));
		return ret;
	}
	ret = trawl_ctl_list_session_at(v.l, 0, &v.s);
	if (ret) {
		trawl_ctl_list_destroy(v.l);
		trawl_msg_fmt(err, errlen,
			      "cannot save session %s: the daemon's list has no session", name);
		return -EPROTO;
	}
	trawl_xmlw_init(&v.w);
	ret = write_session(&v);
	if (ret) {
		trawl_xmlw_fini(&v.w);
		trawl_msg_fmt(err, errlen, "cannot save session %s: its snapshot outputs: %s", name,
			      strerror(-ret));
	} else if (!(*xml = trawl_xmlw_finish(&v.w, len))) {
		ret = -errno;
		trawl_msg_fmt(err, errlen, "cannot save session %s: %s", name,
			      ret == -EILSEQ ? "a filter or name holds a control character, "
					       "which XML cannot hold"
					     : strerror(-ret));
	}
	trawl_ctl_list_destroy(v.l);
	return ret;
}

/*
 * DIR/NAME.lttng with LTTng's modes (folder 0770, file 0660, less the
 * umask). The folder is walked as fs.h does (no other user's link is
 * followed: root saving into /tmp/x cannot be made to write elsewhere) and
 * the file is written aside then renamed over, so whatever had its name (a
 * link, a FIFO) is replaced, never written through.
 */
static int write_file(const char *dir, const char *name, const char *xml, size_t len, int force,
		      char *err, size_t errlen)
{
	char file[TRAWL_CTL_NAME_MAX + sizeof(TRAWL_CONFIG_EXT)], where[TRAWL_CTL_PATH_MAX];
	int dfd, fd, ret;

	if (trawl_path_fmt(file, sizeof(file), "%s" TRAWL_CONFIG_EXT, name)) {
		trawl_msg_fmt(err, errlen, "cannot save session %s: name too long", name);
		return -ENAMETOOLONG;
	}
	where[0] = '\0';
	dfd = trawl_fs_dir_open(AT_FDCWD, dir, TRAWL_FS_CREATE, 0770, where, sizeof(where));
	if (dfd < 0) {
		trawl_msg_fmt(err, errlen, "cannot save into %s: %s%s%s", dir,
			      where[0] ? where : "", where[0] ? ": " : "", trawl_fs_strerror(dfd));
		return dfd;
	}
	if (!force && !faccessat(dfd, file, F_OK, AT_SYMLINK_NOFOLLOW)) {
		close(dfd);
		trawl_msg_fmt(err, errlen,
			      "session configuration file %s/%s already exists "
			      "(use -f to replace it)",
			      dir, file);
		return -EEXIST;
	}
	fd = trawl_fs_replace(dfd, file, xml, len, 0660);
	close(dfd);
	if (fd < 0) {
		trawl_msg_fmt(err, errlen, "cannot write %s/%s: %s", dir, file,
			      trawl_fs_strerror(fd));
		return fd;
	}
	ret = close(fd) ? -errno : 0;
	if (ret)
		trawl_msg_fmt(err, errlen, "cannot write %s/%s: %s", dir, file, strerror(-ret));
	return ret;
}

static int save_one(struct trawl_ctl *ctl, const char *name, const char *dir, int force, char *err,
		    size_t errlen)
{
	size_t len;
	char *xml;
	int ret = trawl_config_session_xml(ctl, name, &xml, &len, err, errlen);

	if (ret)
		return ret;
	ret = write_file(dir, name, xml, len, force, err, errlen);
	free(xml);
	return ret;
}

int trawl_config_save(struct trawl_ctl *ctl, const char *name, const char *dir, int force,
		      char *err, size_t errlen)
{
	struct trawl_ctl_list *l;
	char home[4096];
	size_t i;
	int ret;

	err[0] = '\0';
	if (!dir) {
		ret = trawl_config_home_dir(home, sizeof(home));
		if (ret) {
			trawl_msg_fmt(err, errlen, "no home folder to save into: give one with -o");
			return ret;
		}
		dir = home;
	}
	if (name) {
		ret = save_one(ctl, name, dir, force, err, errlen);
		cfg_one_line(err);
		return ret;
	}
	ret = trawl_ctl_list_sessions(ctl, &l);
	if (ret) {
		trawl_msg_fmt(err, errlen, "cannot list the sessions: %s", strerror(-ret));
		return ret;
	}
	for (i = 0; i < trawl_ctl_list_count(l) && !ret; i++) {
		struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

		if (!trawl_ctl_list_session_at(l, i, &s))
			ret = save_one(ctl, s.name, dir, force, err, errlen);
	}
	trawl_ctl_list_destroy(l);
	cfg_one_line(err);
	return ret;
}
