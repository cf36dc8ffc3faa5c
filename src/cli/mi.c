/* SPDX-License-Identifier: MIT */
/*
 * mi.c - `trawl --mi xml CMD`: LTTng 2.13's machine interface, the XML
 * document `lttng --mi xml CMD` prints, valid against LTTng's schema
 * mi-lttng-4.1 (https://lttng.org/xml/schemas/lttng-mi/4/lttng-mi-4.1.xsd).
 *
 *	<command xmlns=...><name>CMD</name><output>...</output><success>true</success></command>
 *
 * main() opens the document and its <output> (cli_mi_begin()), the command
 * writes inside it as it goes (with what it tried, so a failure still says
 * what was attempted, as LTTng's does), and main() closes whatever is still
 * open and adds <success> (cli_mi_end()). Meanwhile the human-readable text
 * the commands print goes to /dev/null: stdout is the document's alone.
 * Errors still print their one line on stderr.
 */
#include "cli/cli.h"
#include "common/common.h"
#include "common/strbuf.h"
#include "common/xmlw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_mi;
static struct trawl_xmlw cli_mi_xml;
static int mi_fd = -1; /* the real stdout while stdout is /dev/null */

int cli_mi_begin(const struct cli_cmd *cmd)
{
	int null_fd;

	fflush(stdout);
	mi_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3); /* not for a daemon started meanwhile */
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (mi_fd < 0 || null_fd < 0 || dup2(null_fd, STDOUT_FILENO) < 0)
		return cli_error(-EIO, "--mi: cannot set up the output: %s", strerror(errno));
	close(null_fd);
	cli_quiet = 1;
	trawl_xmlw_init(&cli_mi_xml); /* with LTTng's declaration */
	trawl_xmlw_set_compact(&cli_mi_xml);
	trawl_xmlw_open(&cli_mi_xml, "command");
	trawl_xmlw_attr(&cli_mi_xml, "xmlns", "https://lttng.org/xml/ns/lttng-mi");
	trawl_xmlw_attr(&cli_mi_xml, "xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance");
	trawl_xmlw_attr(&cli_mi_xml, "xsi:schemaLocation",
		       "https://lttng.org/xml/ns/lttng-mi "
		       "https://lttng.org/xml/schemas/lttng-mi/4/lttng-mi-4.1.xsd");
	trawl_xmlw_attr(&cli_mi_xml, "schemaVersion", "4.1");
	trawl_xmlw_text(&cli_mi_xml, "name", cmd->mi_name ? cmd->mi_name : cmd->name);
	trawl_xmlw_open(&cli_mi_xml, "output");
	return 0;
}

int cli_mi_end(const struct cli_cmd *cmd, int ret)
{
	char *doc;
	size_t len;

	fflush(stdout);
	/* A bad command line: like LTTng, no document, only the usage line. */
	if (ret != CLI_EXIT_USAGE) {
		cli_mi_close_to(1);
		if (cmd->mi == CLI_MI_RESULT)
			trawl_xmlw_bool(&cli_mi_xml, "success", ret == CLI_OK || ret == CLI_EXIT_LOST);
		trawl_xmlw_close(&cli_mi_xml); /* and the document's last newline */
		doc = trawl_xmlw_finish(&cli_mi_xml, &len);
		if (!doc)
			ret = cli_error(-errno, "--mi: cannot make the document: %s",
					strerror(errno));
		else if (trawl_write_all(mi_fd, doc, len))
			ret = cli_error(-EIO, "--mi: cannot write the output: %s", strerror(errno));
		free(doc);
	}
	trawl_xmlw_fini(&cli_mi_xml);
	close(mi_fd);
	mi_fd = -1;
	return ret;
}

void cli_mi_open(const char *name)
{
	trawl_xmlw_open(&cli_mi_xml, name);
}

void cli_mi_close(void)
{
	trawl_xmlw_close(&cli_mi_xml);
}

void cli_mi_str(const char *name, const char *text)
{
	trawl_xmlw_text(&cli_mi_xml, name, text);
}

void cli_mi_u64(const char *name, uint64_t v)
{
	trawl_xmlw_u64(&cli_mi_xml, name, v);
}

void cli_mi_i64(const char *name, int64_t v)
{
	trawl_xmlw_s64(&cli_mi_xml, name, v);
}

void cli_mi_bool(const char *name, int v)
{
	trawl_xmlw_bool(&cli_mi_xml, name, v);
}

int cli_mi_depth(void)
{
	return cli_mi_xml.depth;
}

void cli_mi_close_to(int depth)
{
	while (!cli_mi_xml.err && cli_mi_xml.depth > depth)
		trawl_xmlw_close(&cli_mi_xml);
}

/*
 * A session's trace output as LTTng's MI says it: "" for a snapshot
 * session (its outputs are listed by `snapshot list-output`), LTTng's
 * "tcp4://HOST:CTRL/ [data: DATA]" for trawl's net://HOST:CTRL:DATA.
 */
static void session_path(const struct trawl_ctl_session_info *s)
{
	const char *host, *c1, *c2;
	struct trawl_strbuf sb;
	char *text;

	if (s->snapshot) {
		cli_mi_str("path", "");
		return;
	}
	if (strncmp(s->output, "net://", 6)) {
		cli_mi_str("path", s->output);
		return;
	}
	host = s->output + 6;
	c2 = strrchr(host, ':');
	c1 = c2 ? memrchr(host, ':', (size_t)(c2 - host)) : NULL;
	if (!c1) {
		cli_mi_str("path", s->output);
		return;
	}
	if ((size_t)(c1 - host) == 9 && !strncmp(host, "localhost", 9))
		host = "127.0.0.1", c1 = host + 9;
	trawl_strbuf_init(&sb);
	trawl_strbuf_addf(&sb, "tcp4://%.*s:%.*s/ [data: %s]", (int)(c1 - host), host,
			  (int)(c2 - c1 - 1), c1 + 1, c2 + 1);
	text = trawl_strbuf_detach(&sb, NULL);
	cli_mi_str("path", text ? text : s->output);
	free(text);
}

void cli_mi_session_open(const struct trawl_ctl_session_info *s)
{
	cli_mi_open("session");
	cli_mi_str("name", s->name);
	session_path(s);
	cli_mi_bool("enabled", s->active);
	cli_mi_u64("snapshot_mode", s->snapshot ? 1 : 0);
	cli_mi_u64("live_timer_interval", s->live_timer_us);
}

void cli_mi_session_named(struct trawl_ctl *ctl, const char *name)
{
	struct trawl_ctl_list *l;
	size_t i;

	if (trawl_ctl_list_sessions(ctl, &l))
		return;
	for (i = 0; i < trawl_ctl_list_count(l); i++) {
		struct trawl_ctl_session_info s = {.struct_size = sizeof(s)};

		if (!trawl_ctl_list_session_at(l, i, &s) && !strcmp(s.name, name)) {
			cli_mi_session_open(&s);
			cli_mi_close();
			break;
		}
	}
	trawl_ctl_list_destroy(l);
}

const char *cli_mi_domain_name(enum trawl_ctl_domain d)
{
	switch (d) {
	case TRAWL_CTL_DOMAIN_KERNEL:
		return "KERNEL";
	case TRAWL_CTL_DOMAIN_JUL:
		return "JUL";
	case TRAWL_CTL_DOMAIN_LOG4J:
		return "LOG4J";
	case TRAWL_CTL_DOMAIN_PYTHON:
		return "PYTHON";
	default:
		return "UST";
	}
}

const char *cli_mi_buffers_name(enum trawl_ctl_domain d, enum trawl_ctl_buffers b)
{
	if (d == TRAWL_CTL_DOMAIN_KERNEL || b == TRAWL_CTL_BUFFERS_GLOBAL)
		return "GLOBAL";
	return b == TRAWL_CTL_BUFFERS_PER_PID ? "PER_PID" : "PER_UID";
}

/*
 * A channel's <name>, <enabled> and <attributes>, left open. The counters
 * are LTTng's "Statistics:"
 * (0 where the list has none: enable-channel's answer).
 */
void cli_mi_channel_open(const struct trawl_ctl_channel_info *c)
{
	cli_mi_open("channel");
	cli_mi_str("name", c->name);
	cli_mi_bool("enabled", c->enabled);
	cli_mi_open("attributes");
	cli_mi_str("overwrite_mode", c->overwrite ? "OVERWRITE" : "DISCARD");
	cli_mi_u64("subbuffer_size", c->subbuf_size);
	cli_mi_u64("subbuffer_count", c->num_subbuf);
	cli_mi_u64("switch_timer_interval", c->switch_timer_us);
	cli_mi_u64("read_timer_interval", c->read_timer_us);
	cli_mi_u64("monitor_timer_interval", c->monitor_timer_us);
	cli_mi_i64("blocking_timeout", c->blocking_timeout_us);
	/* as asked (0: the domain's default, as LTTng's client fills it in) */
	cli_mi_str("output_type", c->output == TRAWL_CTL_OUTPUT_SPLICE ||
					  (!c->output && c->domain == TRAWL_CTL_DOMAIN_KERNEL)
				  ? "SPLICE" : "MMAP");
	cli_mi_u64("tracefile_size", c->tracefile_size);
	cli_mi_u64("tracefile_count", c->tracefile_count);
	cli_mi_u64("live_timer_interval", 0);
	cli_mi_u64("discarded_events", c->discarded_events);
	cli_mi_u64("lost_packets", c->lost_packets);
	cli_mi_close();
}

static const char *event_type(enum trawl_ctl_event_kind k)
{
	switch (k) {
	case TRAWL_CTL_EVENT_SYSCALL:
		return "SYSCALL";
	case TRAWL_CTL_EVENT_PROBE:
		return "PROBE";
	case TRAWL_CTL_EVENT_FUNCTION:
		return "FUNCTION";
	case TRAWL_CTL_EVENT_USERSPACE_PROBE:
		return "USERSPACE_PROBE";
	default:
		return "TRACEPOINT";
	}
}

static const char *loglevel_type(enum trawl_ctl_loglevel_type t)
{
	return t == TRAWL_CTL_LOGLEVEL_RANGE	? "RANGE"
	       : t == TRAWL_CTL_LOGLEVEL_SINGLE ? "SINGLE"
						: "ALL";
}

/* A probe's <attributes>: SYM[+OFF] or 0xADDR, as LTTng's function_probe. */
static void probe_attributes(const char *target)
{
	const char *plus = strchr(target, '+');
	char sym[256];

	cli_mi_open("attributes");
	cli_mi_open("probe_attributes");
	if (!strncmp(target, "0x", 2)) {
		cli_mi_u64("address", strtoull(target, NULL, 16));
	} else {
		cli_mi_u64("offset", plus ? strtoull(plus + 1, NULL, 0) : 0);
		trawl_msg_fmt(sym, sizeof(sym), "%.*s",
			      (int)(plus ? (size_t)(plus - target) : strlen(target)), target);
		cli_mi_str("symbol_name", sym);
	}
	cli_mi_close();
	cli_mi_close();
}

void cli_mi_event_open(const struct cli_mi_event *e)
{
	int agent = e->domain >= TRAWL_CTL_DOMAIN_JUL;
	const char *lvl = agent ? trawl_ctl_agent_loglevel_name(e->domain, e->loglevel)
		: e->loglevel >= 0 ? trawl_ctl_loglevel_name(e->loglevel) : NULL;
	struct trawl_strbuf sb;
	const char *x;
	char *name;
	size_t n;

	cli_mi_open("event");
	cli_mi_str("name", e->name);
	cli_mi_str("type", event_type(e->kind));
	cli_mi_bool("enabled", e->enabled);
	if (e->filter && e->filter[0])
		cli_mi_str("filter_expression", e->filter);
	switch (e->kind) {
	case TRAWL_CTL_EVENT_TRACEPOINT:
		if (lvl) {
			cli_mi_str("loglevel", lvl);
			cli_mi_str("loglevel_type", loglevel_type(e->loglevel_type));
		}
		/* LTTng 2.13's enable-event writes an empty <exclusions/> then the names in a
		 * second one; its list writes them in one. */
		cli_mi_open("exclusions");
		if (e->exclusions_apart && e->exclusions && e->exclusions[0]) {
			cli_mi_close();
			cli_mi_open("exclusions");
		}
		for (x = e->exclusions; x && *x; x += n + (x[n] == ',')) {
			n = strcspn(x, ",");
			trawl_strbuf_init(&sb);
			trawl_strbuf_addf(&sb, "%.*s", (int)n, x);
			name = trawl_strbuf_detach(&sb, NULL);
			cli_mi_str("exclusion", name ? name : "");
			free(name);
		}
		cli_mi_close();
		break;
	case TRAWL_CTL_EVENT_PROBE:
	case TRAWL_CTL_EVENT_FUNCTION:
		if (e->target && e->target[0])
			probe_attributes(e->target);
		break;
	default:
		break;
	}
}

void cli_mi_event_of(struct cli_mi_event *m, const struct trawl_ctl_event_info *e)
{
	memset(m, 0, sizeof(*m));
	m->name = e->name;
	m->kind = e->kind;
	m->enabled = e->enabled;
	m->filter = e->filter;
	m->target = e->target;
	m->domain = e->domain;
	/* an agent domain's rule has a level even for all (JUL_ALL, ...) */
	m->loglevel = e->loglevel_type == TRAWL_CTL_LOGLEVEL_ALL && e->domain < TRAWL_CTL_DOMAIN_JUL
			      ? -1 : e->loglevel;
	m->loglevel_type = e->loglevel_type;
	m->exclusions = e->exclusions;
}

const char *cli_mi_process_attr_name(enum trawl_ctl_process_attr a)
{
	static const char *const names[] = {"pid", "vpid", "uid", "vuid", "gid", "vgid"};

	return (unsigned)a < TRAWL_ARRAY_SIZE(names) ? names[a] : "pid";
}

void cli_mi_tracker_open(enum trawl_ctl_process_attr a)
{
	static const char *const trackers[] = {
		"pid_process_attr_tracker", "vpid_process_attr_tracker",
		"uid_process_attr_tracker", "vuid_process_attr_tracker",
		"gid_process_attr_tracker", "vgid_process_attr_tracker",
	};

	cli_mi_open((unsigned)a < TRAWL_ARRAY_SIZE(trackers) ? trackers[a] : trackers[0]);
	cli_mi_open("process_attr_values");
}

void cli_mi_tracker_value_open(enum trawl_ctl_process_attr a, int all, uint32_t id)
{
	cli_mi_open(cli_mi_process_attr_name(a));
	cli_mi_open("type");
	if (all)
		cli_mi_bool("all", 1);
	else
		cli_mi_u64("id", id);
	cli_mi_close();
}
