/* SPDX-License-Identifier: MIT */
/*
 * parse.c - a session file (LTTng 2.13's session XML) into the model of
 * model.h, checked whole before anything is applied.
 *
 * The file is a user's, maybe edited by hand or by a program: untrusted.
 * libxml2 parses it with no network access and no entity substitution,
 * and a file with a DOCTYPE is refused (its entities are the only way to
 * make a small file expand into a huge one). The tree is then walked with
 * the schema's rules written out (xmltree.h; channels, events and contexts
 * in parse-channel.c; sessions, outputs, domains and trackers here): each
 * element names the children it may have, at most once each where the
 * schema says xs:all; an unknown or repeated element, text where elements
 * go, or a value out of its type's range fails the whole file with its
 * line. What the schema allows but trawl cannot do (agent domains with
 * channels, shared-memory paths, app contexts) fails it too,
 * naming the element: a session applied in part would trace something
 * else than what the file says.
 */
#include "common/common.h"
#include "config/config.h"
#include "config/model.h"
#include "config/xmltree.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

/* ---- outputs ---- */

/*
 * One of LTTng's network URLs: tcp4://HOST:PORT/SUBDIR (what it saves),
 * tcp6://[HOST]:PORT/..., also net:// and tcp:// as typed. Returns the
 * host (bracketed for IPv6), port (0: none) and subdir in the caller's
 * buffers.
 */
static int net_uri(struct px *p, const node_t *n, const char *uri, char *host, size_t hlen,
		   unsigned *port, const char **subdir, int *v6)
{
	static const struct {
		const char *scheme;
		int v6;
	} schemes[] = {{"tcp4://", 0}, {"tcp://", 0},  {"net4://", 0},
		       {"net://", 0},  {"tcp6://", 1}, {"net6://", 1}};
	const char *s = NULL, *h, *e;
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(schemes); i++)
		if (!strncmp(uri, schemes[i].scheme, strlen(schemes[i].scheme))) {
			s = uri + strlen(schemes[i].scheme);
			*v6 = schemes[i].v6;
			break;
		}
	if (!s)
		return px_err(p, n, "<%s>: '%s' is not a tcp4://, tcp6:// or net:// URL",
			      px_name(n), uri);
	h = s;
	if (*s == '[') {
		e = strchr(s, ']');
		if (!e)
			return px_err(p, n, "<%s>: '%s': no ']' after the IPv6 address", px_name(n),
				      uri);
		e++;
	} else {
		e = s + strcspn(s, ":/");
	}
	if (e == h || (size_t)(e - h) >= hlen)
		return px_err(p, n, "<%s>: '%s': bad host", px_name(n), uri);
	memcpy(host, h, (size_t)(e - h));
	host[e - h] = '\0';
	*port = 0;
	if (*e == ':') {
		char *end;
		unsigned long x = strtoul(e + 1, &end, 10);

		if (end == e + 1 || x == 0 || x > 65535 || (*end && *end != '/'))
			return px_err(p, n, "<%s>: '%s': bad port", px_name(n), uri);
		*port = (unsigned)x;
		e = end;
	}
	if (*e && *e != '/')
		return px_err(p, n, "<%s>: '%s': bad URL", px_name(n), uri);
	*subdir = *e ? e + 1 : "";
	return 0;
}

/* <net_output>: trawl's net://HOST:CTRL:DATA[/SUBDIR] into @o->ctrl. */
static int parse_net_output(struct px *p, const node_t *n, struct cfg_output *o)
{
	static const char *const k[] = {"control_uri", "data_uri"};
	char *uri[2] = {NULL, NULL}, host[2][300];
	const char *sub[2] = {"", ""};
	unsigned port[2] = {0, 0};
	node_t *c[2];
	int v6[2] = {0, 0}, ret, i;
	char buf[TRAWL_CTL_OUTPUT_MAX];

	ret = px_children(p, n, k, c, 2);
	if (ret)
		return ret;
	if (!c[0] && !c[1])
		return px_err(p, n, "<net_output> without <control_uri> or <data_uri>");
	for (i = 0; i < 2 && !ret; i++) {
		if (!c[i])
			continue;
		ret = px_text(p, c[i], &uri[i]);
		if (!ret)
			ret = net_uri(p, c[i], uri[i], host[i], sizeof(host[i]), &port[i], &sub[i],
				      &v6[i]);
	}
	if (ret)
		goto out;
	/* One URL alone stands for both, as in LTTng. */
	i = c[0] ? 0 : 1;
	if (c[0] && c[1] && (strcmp(host[0], host[1]) || v6[0] != v6[1])) {
		ret = px_err(p, n,
			     "<net_output>: control and data URLs on different hosts (%s, %s): "
			     "trawl streams both to one relay daemon",
			     host[0], host[1]);
		goto out;
	}
	if (port[0] && port[1])
		ret = trawl_path_fmt(buf, sizeof(buf), "%s://%s:%u:%u%s%s", v6[i] ? "net6" : "net",
				     host[i], port[0], port[1], sub[i][0] ? "/" : "", sub[i]);
	else if (port[i])
		ret = trawl_path_fmt(buf, sizeof(buf), "%s://%s:%u%s%s", v6[i] ? "net6" : "net",
				     host[i], port[i], sub[i][0] ? "/" : "", sub[i]);
	else
		ret = trawl_path_fmt(buf, sizeof(buf), "%s://%s%s%s", v6[i] ? "net6" : "net",
				     host[i], sub[i][0] ? "/" : "", sub[i]);
	if (ret) {
		ret = px_err(p, n, "<net_output>: URL too long");
		goto out;
	}
	o->ctrl = strdup(buf);
	ret = o->ctrl ? 0 : -ENOMEM;
out:
	free(uri[0]);
	free(uri[1]);
	return ret;
}

static int parse_consumer_output(struct px *p, const node_t *n, struct cfg_output *o)
{
	static const char *const k[] = {"enabled", "destination"};
	static const char *const dk[] = {"path", "net_output"};
	node_t *c[2], *d[2];
	int ret = px_children(p, n, k, c, 2);

	o->given = 1;
	o->enabled = 1;
	if (!ret && c[0])
		ret = px_bool(p, c[0], &o->enabled);
	if (ret)
		return ret;
	if (!c[1])
		return px_err(p, n, "<consumer_output> without <destination>");
	ret = px_children(p, c[1], dk, d, 2);
	if (ret)
		return ret;
	if (!!d[0] == !!d[1])
		return px_err(p, c[1], "<destination> needs one of <path> and <net_output>");
	if (d[0])
		return px_text(p, d[0], &o->path);
	return parse_net_output(p, d[1], o);
}

static int parse_snapshot_outputs(struct px *p, const node_t *n, struct cfg_session *s)
{
	static const char *const k[] = {"name", "max_size", "consumer_output"};
	node_t *e, *c[3];
	size_t nr, i = 0;
	int ret = px_list_of(p, n, "output", &nr);

	if (ret)
		return ret;
	s->snapshot_outputs = calloc(nr ? nr : 1, sizeof(*s->snapshot_outputs));
	if (!s->snapshot_outputs)
		return -ENOMEM;
	FOR_EACH_ELEM(e, n)
	{
		struct cfg_snapshot_output *o = &s->snapshot_outputs[i++];

		s->nr_snapshot_outputs = i;
		ret = px_children(p, e, k, c, 3);
		if (!ret && c[0])
			ret = px_text(p, c[0], &o->name);
		if (!ret && c[1])
			ret = px_u64(p, c[1], UINT64_MAX, &o->max_size);
		if (!ret && c[2])
			ret = parse_consumer_output(p, c[2], &o->out);
		if (ret)
			return ret;
		/* LTTng saves "no limit" as -1ULL and as 0 */
		if (o->max_size == UINT64_MAX)
			o->max_size = 0;
	}
	return 0;
}

static int parse_session_output(struct px *p, const node_t *n, struct cfg_session *s)
{
	static const char *const k[] = {"snapshot_outputs", "consumer_output"};
	node_t *c[2];
	int ret = px_children(p, n, k, c, 2);

	if (ret)
		return ret;
	if (c[0] && c[1])
		return px_err(p, n,
			      "<output> holds <snapshot_outputs> or <consumer_output>, not both");
	if (c[0])
		return parse_snapshot_outputs(p, c[0], s);
	if (c[1])
		return parse_consumer_output(p, c[1], &s->output);
	return 0;
}

static int parse_attributes(struct px *p, const node_t *n, struct cfg_session *s)
{
	static const char *const k[] = {"snapshot_mode", "live_timer_interval",
					"rotation_schedules"};
	node_t *c[3], *r;
	int ret = px_children(p, n, k, c, 3);

	if (!ret && c[0])
		ret = px_bool(p, c[0], &s->snapshot);
	if (!ret && c[1])
		ret = px_u32(p, c[1], &s->live_timer_us);
	if (ret || !c[2])
		return ret;
	FOR_EACH_ELEM(r, c[2])
	{
		int periodic = !strcmp(px_name(r), "periodic");
		static const char *const pk[] = {"time_us"}, *const sk[] = {"bytes"};
		node_t *v;

		if (!periodic && strcmp(px_name(r), "size_threshold"))
			return px_err(p, r, "unknown element <%s> in <rotation_schedules>",
				      px_name(r));
		ret = px_children(p, r, periodic ? pk : sk, &v, 1);
		if (ret)
			return ret;
		if (!v)
			continue;
		ret = px_u64(p, v, UINT64_MAX, periodic ? &s->rotate_timer_us : &s->rotate_size);
		if (ret)
			return ret;
	}
	return px_no_text(p, c[2]);
}

/* ---- trackers ---- */

/* Element names of each process attribute, by enum trawl_ctl_process_attr. */
const char *const cfg_tracker_elems[TRAWL_CTL_PROCESS_ATTR_COUNT] = {
	"pid_process_attr_tracker",  "vpid_process_attr_tracker", "uid_process_attr_tracker",
	"vuid_process_attr_tracker", "gid_process_attr_tracker",  "vgid_process_attr_tracker",
};
const char *const cfg_tracker_values[TRAWL_CTL_PROCESS_ATTR_COUNT] = {
	"pid", "vpid", "uid", "vuid", "gid", "vgid",
};

/* <id>N</id> or (users and groups) <name>NAME</name>. */
static int parse_id(struct px *p, const node_t *n, int named, struct cfg_id *id)
{
	static const char *const k[] = {"id", "name"};
	node_t *c[2] = {NULL, NULL};
	uint64_t v;
	int ret = px_children(p, n, k, c, named ? 2 : 1);

	if (ret)
		return ret;
	if (!!c[0] == !!c[1])
		return px_err(p, n, "<%s> holds %s", px_name(n), named ? "<id> or <name>" : "<id>");
	if (c[1])
		return px_text(p, c[1], &id->name);
	ret = px_u64(p, c[0], UINT32_MAX - 1, &v);
	id->id = (uint32_t)v;
	return ret;
}

static int parse_tracker(struct px *p, const node_t *n, int attr, struct cfg_tracker *t)
{
	static const char *const k[] = {"process_attr_values"};
	int named = attr >= TRAWL_CTL_PROCESS_ATTR_UID;
	node_t *v, *e;
	size_t nr;
	int ret = px_children(p, n, k, &v, 1);

	struct cfg_id *values;

	if (ret)
		return ret;
	if (!v)
		return px_err(p, n, "<%s> without <process_attr_values>", px_name(n));
	ret = px_list_of(p, v, cfg_tracker_values[attr], &nr);
	if (ret)
		return ret;
	/*
	 * The same tracker given again adds its values to the first's, as
	 * LTTng 2.13's loader does (it sets the tracker to its include set,
	 * then adds each value it reads); LTTng's own load-42-trackers.lttng
	 * declares the vpid tracker twice.
	 */
	if (t->nr_values + nr > TRAWL_CTL_TRACKER_MAX_VALUES)
		return px_err(p, v, "more than %d values", TRAWL_CTL_TRACKER_MAX_VALUES);
	values = realloc(t->values, (t->nr_values + nr + 1) * sizeof(*t->values));
	if (!values)
		return -ENOMEM;
	t->values = values;
	memset(values + t->nr_values, 0, (nr + 1) * sizeof(*values));
	t->present = 1;
	FOR_EACH_ELEM(e, v)
	{
		ret = parse_id(p, e, named, &t->values[t->nr_values++]);
		if (ret)
			return ret;
	}
	return 0;
}

/* LTTng 2.11's <trackers><pid_tracker><targets><pid_target><pid>N... (PID; VPID in user space). */
static int parse_legacy_trackers(struct px *p, const node_t *n, enum trawl_ctl_domain dom,
				 struct cfg_domain *d)
{
	int attr = dom == TRAWL_CTL_DOMAIN_KERNEL ? TRAWL_CTL_PROCESS_ATTR_PID
						  : TRAWL_CTL_PROCESS_ATTR_VPID;
	struct cfg_tracker *t = &d->trackers[attr];
	static const char *const tk[] = {"targets"}, *const pk[] = {"pid"};
	node_t *pt, *targets, *tg, *pid;
	size_t nr;
	int ret = px_list_of(p, n, "pid_tracker", &nr);

	FOR_EACH_ELEM(pt, n)
	{
		if (!ret)
			ret = px_children(p, pt, tk, &targets, 1);
		if (!ret && !targets)
			ret = px_err(p, pt, "<pid_tracker> without <targets>");
		if (!ret)
			ret = px_list_of(p, targets, "pid_target", &nr);
		if (ret)
			return ret;
		if (t->present)
			return px_err(p, pt, "a PID tracker given twice");
		t->present = 1;
		t->values = calloc(nr ? nr : 1, sizeof(*t->values));
		if (!t->values)
			return -ENOMEM;
		FOR_EACH_ELEM(tg, targets)
		{
			int64_t v;

			ret = px_children(p, tg, pk, &pid, 1);
			if (!ret && !pid)
				ret = px_err(p, tg, "<pid_target> without <pid>");
			if (!ret)
				ret = px_s64(p, pid, -1, INT32_MAX, &v);
			if (ret)
				return ret;
			if (v == -1) { /* LTTng 2.11's "every process" */
				t->present = 0;
				continue;
			}
			t->values[t->nr_values++].id = (uint32_t)v;
		}
	}
	return ret;
}

/* ---- domains and sessions ---- */

static int parse_domain(struct px *p, const node_t *n, struct cfg_session *s)
{
	static const char *const k[] = {"type", "buffer_type", "channels", "process_attr_trackers",
					"trackers"};
	static const char *const types[] = {"KERNEL", "UST", "JUL", "LOG4J", "PYTHON", NULL};
	static const char *const bufs[] = {"PER_PID", "PER_UID", "GLOBAL", NULL};
	static const enum trawl_ctl_buffers buf_of[] = {
		TRAWL_CTL_BUFFERS_PER_PID, TRAWL_CTL_BUFFERS_PER_UID, TRAWL_CTL_BUFFERS_GLOBAL};
	enum trawl_ctl_domain dom;
	struct cfg_domain *d;
	node_t *c[5], *e;
	size_t nr, i;
	int ret = px_children(p, n, k, c, 5), type, buf = 1;

	if (!ret && !c[0])
		ret = px_err(p, n, "<domain> without <type>");
	if (!ret)
		ret = px_enum(p, c[0], types, &type);
	if (!ret && c[1])
		ret = px_enum(p, c[1], bufs, &buf);
	if (!ret && c[2])
		ret = px_list_of(p, c[2], "channel", &nr);
	if (ret)
		return ret;
	/* the agents' domains: their channel (lttng_jul_channel, ...) holds
	 * their rules; LTTng also saves them empty with every UST session */
	if (type >= 2 && (c[3] || c[4]))
		return px_err(p, n, "the %s domain has no trackers", types[type]);
	if (type >= 2 && buf == 2)
		return px_err(p, c[1], "<buffer_type>: GLOBAL does not go with the %s domain",
			      types[type]);
	dom = type == 0 ? TRAWL_CTL_DOMAIN_KERNEL
	      : type == 1 ? TRAWL_CTL_DOMAIN_UST
			  : (enum trawl_ctl_domain)(TRAWL_CTL_DOMAIN_JUL + (type - 2));
	d = &s->domains[dom];
	if (d->present)
		return px_err(p, n, "the %s domain given twice", types[type]);
	d->present = 1;
	if ((dom == TRAWL_CTL_DOMAIN_KERNEL) != (buf == 2))
		return px_err(p, c[1], "<buffer_type>: %s does not go with the %s domain",
			      bufs[buf], types[type]);
	d->buffers = buf_of[buf];
	if (c[2]) {
		d->channels = calloc(nr ? nr : 1, sizeof(*d->channels));
		if (!d->channels)
			return -ENOMEM;
		FOR_EACH_ELEM(e, c[2])
		{
			ret = cfg_parse_channel(p, e, dom, &d->channels[d->nr_channels++]);
			if (ret)
				return ret;
		}
	}
	if (c[3]) {
		ret = px_no_text(p, c[3]);
		if (ret)
			return ret;
		FOR_EACH_ELEM(e, c[3])
		{
			for (i = 0; i < TRAWL_CTL_PROCESS_ATTR_COUNT; i++)
				if (!strcmp(px_name(e), cfg_tracker_elems[i]))
					break;
			if (i == TRAWL_CTL_PROCESS_ATTR_COUNT)
				return px_err(p, e, "unknown element <%s> in <%s>", px_name(e),
					      px_name(c[3]));
			if (dom == TRAWL_CTL_DOMAIN_UST && i != TRAWL_CTL_PROCESS_ATTR_VPID &&
			    i != TRAWL_CTL_PROCESS_ATTR_VUID && i != TRAWL_CTL_PROCESS_ATTR_VGID)
				return px_err(p, e,
					      "<%s>: user space tracks virtual IDs only (vpid, "
					      "vuid, vgid)",
					      px_name(e));
			ret = parse_tracker(p, e, (int)i, &d->trackers[i]);
			if (ret)
				return ret;
		}
	}
	if (c[4])
		return parse_legacy_trackers(p, c[4], dom, d);
	return 0;
}

static int parse_session(struct px *p, const node_t *n, struct cfg_session *s)
{
	static const char *const k[] = {"name",	   "shared_memory_path", "domains",
					"started", "attributes",	 "output"};
	node_t *c[6], *e;
	size_t nr;
	int ret = px_children(p, n, k, c, 6);

	s->line = (int)xmlGetLineNo(n);
	if (!ret && !c[0])
		ret = px_err(p, n, "<session> without a <name>");
	if (!ret)
		ret = px_text(p, c[0], &s->name);
	if (!ret && (!s->name[0] || strlen(s->name) >= TRAWL_CTL_NAME_MAX))
		ret = px_err(p, c[0], "<name>: a session name has 1 to %d bytes",
			     TRAWL_CTL_NAME_MAX - 1);
	if (!ret && c[1])
		ret = px_text(p, c[1], &s->shm_path);
	if (!ret && s->shm_path && s->shm_path[0] && s->shm_path[0] != '/')
		ret = px_err(p, c[1], "<shared_memory_path>: not an absolute folder");
	if (!ret && c[3])
		ret = px_bool(p, c[3], &s->started);
	if (!ret && c[4])
		ret = parse_attributes(p, c[4], s);
	if (!ret && c[5])
		ret = parse_session_output(p, c[5], s);
	if (!ret && c[2])
		ret = px_list_of(p, c[2], "domain", &nr);
	if (ret)
		return ret;
	if (s->snapshot && s->output.given)
		return px_err(p, c[5], "a snapshot session's <output> holds <snapshot_outputs>");
	if (!s->snapshot && s->nr_snapshot_outputs)
		return px_err(p, c[5],
			      "<snapshot_outputs> in a session that is not a snapshot session");
	if (s->live_timer_us && s->output.given && s->output.path)
		return px_err(p, c[5],
			      "a live session streams to a relay daemon: its output is a "
			      "<net_output>");
	if (c[2])
		FOR_EACH_ELEM(e, c[2])
		{
			ret = parse_domain(p, e, s);
			if (ret)
				return ret;
		}
	return 0;
}

static void free_channel(struct cfg_channel *ch)
{
	size_t i;

	for (i = 0; i < ch->nr_events; i++) {
		free(ch->events[i].name);
		free(ch->events[i].filter);
		free(ch->events[i].target);
		free(ch->events[i].exclusions);
	}
	free(ch->events);
	for (i = 0; i < ch->nr_contexts; i++)
		free(ch->contexts[i]);
	free(ch->contexts);
	free(ch->name);
}

static void free_session(struct cfg_session *s)
{
	size_t i, j, d;

	for (d = 0; d < TRAWL_ARRAY_SIZE(s->domains); d++) {
		for (i = 0; i < s->domains[d].nr_channels; i++)
			free_channel(&s->domains[d].channels[i]);
		free(s->domains[d].channels);
		for (i = 0; i < TRAWL_CTL_PROCESS_ATTR_COUNT; i++) {
			for (j = 0; j < s->domains[d].trackers[i].nr_values; j++)
				free(s->domains[d].trackers[i].values[j].name);
			free(s->domains[d].trackers[i].values);
		}
	}
	for (i = 0; i < s->nr_snapshot_outputs; i++) {
		free(s->snapshot_outputs[i].name);
		free(s->snapshot_outputs[i].out.path);
		free(s->snapshot_outputs[i].out.ctrl);
	}
	free(s->snapshot_outputs);
	free(s->output.path);
	free(s->output.ctrl);
	free(s->shm_path);
	free(s->name);
}

void trawl_config_doc_destroy(struct trawl_config_doc *doc)
{
	size_t i;

	if (!doc)
		return;
	for (i = 0; i < doc->nr_sessions; i++)
		free_session(&doc->sessions[i]);
	free(doc->sessions);
	free(doc->file);
	free(doc);
}

size_t trawl_config_doc_count(const struct trawl_config_doc *doc)
{
	return doc->nr_sessions;
}

const char *trawl_config_doc_name(const struct trawl_config_doc *doc, size_t i)
{
	return i < doc->nr_sessions ? doc->sessions[i].name : NULL;
}

static int parse_doc(struct px *p, xmlDoc *x, struct trawl_config_doc *doc)
{
	node_t *root = xmlDocGetRootElement(x), *e;
	size_t nr, i, j;
	int ret;

	if (x->intSubset || x->extSubset)
		return px_err(p, NULL, "a DOCTYPE is not allowed in a session file");
	if (!root || strcmp(px_name(root), "sessions"))
		return px_err(p, root, "the root element is <%s>, not <sessions>",
			      root ? px_name(root) : "");
	if (root->ns)
		return px_err(p, root, "<sessions> has a namespace: session files have none");
	ret = px_list_of(p, root, "session", &nr);
	if (ret)
		return ret;
	if (!nr)
		return px_err(p, root, "<sessions> holds no <session>");
	doc->sessions = calloc(nr, sizeof(*doc->sessions));
	if (!doc->sessions)
		return -ENOMEM;
	FOR_EACH_ELEM(e, root)
	{
		ret = parse_session(p, e, &doc->sessions[doc->nr_sessions++]);
		if (ret)
			return ret;
	}
	for (i = 0; i < nr; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(doc->sessions[i].name, doc->sessions[j].name))
				return px_err(p, NULL, "session %s given twice (lines %d and %d)",
					      doc->sessions[i].name, doc->sessions[j].line,
					      doc->sessions[i].line);
	return 0;
}

int trawl_config_doc_parse(const char *buf, size_t len, const char *file,
			   struct trawl_config_doc **out, char *err, size_t errlen)
{
	struct px p = {.file = file, .err = err, .errlen = errlen};
	struct trawl_config_doc *doc;
	xmlParserCtxt *ctxt;
	xmlDoc *x;
	int ret;

	*out = NULL;
	if (len > TRAWL_CONFIG_MAX_BYTES)
		return px_err(&p, NULL, "larger than %u MiB", TRAWL_CONFIG_MAX_BYTES >> 20);
	doc = calloc(1, sizeof(*doc));
	if (!doc || !(doc->file = strdup(file))) {
		free(doc);
		return -ENOMEM;
	}
	ctxt = xmlNewParserCtxt();
	if (!ctxt) {
		trawl_config_doc_destroy(doc);
		return -ENOMEM;
	}
	/* No network, no entity substitution, no DTD loaded, errors kept here. */
	x = xmlCtxtReadMemory(ctxt, buf, (int)len, file, NULL,
			      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
				      XML_PARSE_NOCDATA);
	if (!x) {
		const xmlError *e = xmlCtxtGetLastError(ctxt);
		char msg[300];
		size_t n;

		trawl_msg_fmt(msg, sizeof(msg), "%s", e && e->message ? e->message : "not XML");
		n = strlen(msg);
		while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
			msg[--n] = '\0';
		ret = -EINVAL;
		trawl_msg_fmt(err, errlen, "%s:%d: malformed XML: %s", file, e ? e->line : 0, msg);
	} else {
		ret = parse_doc(&p, x, doc);
		xmlFreeDoc(x);
	}
	xmlFreeParserCtxt(ctxt);
	if (ret) {
		cfg_one_line(err);
		trawl_config_doc_destroy(doc);
		return ret;
	}
	*out = doc;
	return 0;
}
