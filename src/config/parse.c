/* SPDX-License-Identifier: MIT */
/*
 * parse.c - a session file (LTTng 2.13's session XML) into the model of
 * model.h, checked whole before anything is applied.
 *
 * The file is a user's, maybe edited by hand or by a program: untrusted.
 * libxml2 parses it with no network access and no entity substitution,
 * and a file with a DOCTYPE is refused (its entities are the only way to
 * make a small file expand into a huge one). The tree is then walked with
 * the schema's rules written out here: each element names the children it
 * may have, at most once each where the schema says xs:all; an unknown or
 * repeated element, text where elements go, or a value out of its type's
 * range fails the whole file with its line. What the schema allows but
 * trawl cannot do (agent domains with channels, exclusions, tracefile
 * rotation, blocking, shared-memory paths, app contexts) fails it too,
 * naming the element: a session applied in part would trace something
 * else than what the file says.
 */
#include "common/common.h"
#include "config/config.h"
#include "config/model.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

struct px {
	const char *file;
	char *err;
	size_t errlen;
};

typedef xmlNode node_t;

void cfg_one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

__attribute__((format(printf, 3, 4))) static int perr(struct px *p, const node_t *n,
						      const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n)
		trawl_msg_fmt(p->err, p->errlen, "%s:%ld: %s", p->file, (long)xmlGetLineNo(n), msg);
	else
		trawl_msg_fmt(p->err, p->errlen, "%s: %s", p->file, msg);
	return -EINVAL;
}

static const char *nm(const node_t *n)
{
	return (const char *)n->name;
}

static int is_blank(const xmlChar *s)
{
	for (; s && *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return 0;
	return 1;
}

/*
 * The element children of @n into @slot[i] by name @names[i] (each at most
 * once, as xs:all); anything else fails. Comments are skipped.
 */
static int children(struct px *p, const node_t *n, const char *const *names, node_t **slot,
		    size_t nr)
{
	const node_t *c;
	size_t i;

	memset(slot, 0, nr * sizeof(*slot));
	for (c = n->children; c; c = c->next) {
		if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE)
			continue;
		if (c->type == XML_TEXT_NODE && is_blank(c->content))
			continue;
		if (c->type != XML_ELEMENT_NODE)
			return perr(p, c, "unexpected text in <%s>", nm(n));
		for (i = 0; i < nr; i++)
			if (!strcmp(nm(c), names[i]))
				break;
		if (i == nr)
			return perr(p, c, "unknown element <%s> in <%s>", nm(c), nm(n));
		if (slot[i])
			return perr(p, c, "<%s> given twice in <%s>", nm(c), nm(n));
		slot[i] = (node_t *)c;
	}
	return 0;
}

/* Fails if @n holds text besides its elements (a choice of elements). */
static int no_text(struct px *p, const node_t *n)
{
	const node_t *c;

	for (c = n->children; c; c = c->next)
		if ((c->type == XML_TEXT_NODE && !is_blank(c->content)) ||
		    c->type == XML_CDATA_SECTION_NODE || c->type == XML_ENTITY_REF_NODE)
			return perr(p, c, "unexpected text in <%s>", nm(n));
	return 0;
}

/* The element children of @n, all named @name (a sequence): counted in *@nr. */
static int list_of(struct px *p, const node_t *n, const char *name, size_t *nr)
{
	const node_t *c;

	*nr = 0;
	for (c = n->children; c; c = c->next) {
		if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE)
			continue;
		if (c->type == XML_TEXT_NODE && is_blank(c->content))
			continue;
		if (c->type != XML_ELEMENT_NODE)
			return perr(p, c, "unexpected text in <%s>", nm(n));
		if (strcmp(nm(c), name))
			return perr(p, c, "unknown element <%s> in <%s>", nm(c), nm(n));
		(*nr)++;
	}
	return 0;
}

static node_t *next_elem(node_t *c)
{
	while (c && c->type != XML_ELEMENT_NODE)
		c = c->next;
	return c;
}

#define FOR_EACH_ELEM(c, n) for (c = next_elem((n)->children); c; c = next_elem(c->next))

/* The text of a leaf element, strdup'd into *@out. */
static int text_of(struct px *p, const node_t *n, char **out)
{
	const node_t *c;
	xmlChar *s;

	for (c = n->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE)
			return perr(p, c, "unknown element <%s> in <%s>", nm(c), nm(n));
	s = xmlNodeGetContent(n);
	if (!s)
		return -ENOMEM;
	*out = strdup((const char *)s);
	xmlFree(s);
	return *out ? 0 : -ENOMEM;
}

/* The text without surrounding white space (xs:integer and xs:boolean collapse it). */
static int token_of(struct px *p, const node_t *n, char *buf, size_t len)
{
	char *s, *b, *e;
	int ret = text_of(p, n, &s);

	if (ret)
		return ret;
	for (b = s; *b == ' ' || *b == '\t' || *b == '\n' || *b == '\r'; b++)
		;
	for (e = b + strlen(b); e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
					  e[-1] == '\r');
	     e--)
		;
	if ((size_t)(e - b) >= len) {
		free(s);
		return perr(p, n, "<%s>: value too long", nm(n));
	}
	memcpy(buf, b, (size_t)(e - b));
	buf[e - b] = '\0';
	free(s);
	return 0;
}

static int s64_of(struct px *p, const node_t *n, int64_t min, int64_t max, int64_t *v)
{
	char buf[32], *end;
	long long x;
	int ret = token_of(p, n, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	x = strtoll(buf, &end, 10);
	if (!buf[0] || *end || errno || x < min || x > max)
		return perr(p, n, "<%s>: '%s' is not an integer from %" PRId64 " to %" PRId64,
			    nm(n), buf, min, max);
	*v = x;
	return 0;
}

static int u64_of(struct px *p, const node_t *n, uint64_t max, uint64_t *v)
{
	char buf[32], *end;
	unsigned long long x;
	int ret = token_of(p, n, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	x = strtoull(buf, &end, 10);
	if (!buf[0] || buf[0] == '-' || *end || errno || x > max)
		return perr(p, n, "<%s>: '%s' is not an integer from 0 to %" PRIu64, nm(n), buf,
			    max);
	*v = x;
	return 0;
}

static int u32_of(struct px *p, const node_t *n, uint32_t *v)
{
	uint64_t x;
	int ret = u64_of(p, n, UINT32_MAX, &x);

	if (!ret)
		*v = (uint32_t)x;
	return ret;
}

static int bool_of(struct px *p, const node_t *n, int *v)
{
	char buf[8];
	int ret = token_of(p, n, buf, sizeof(buf));

	if (ret)
		return ret == -EINVAL ? perr(p, n, "<%s>: not a boolean", nm(n)) : ret;
	if (!strcmp(buf, "true") || !strcmp(buf, "1"))
		*v = 1;
	else if (!strcmp(buf, "false") || !strcmp(buf, "0"))
		*v = 0;
	else
		return perr(p, n, "<%s>: '%s' is not true, false, 1 or 0", nm(n), buf);
	return 0;
}

/* The index of @n's text in @words (NULL-terminated). */
static int enum_of(struct px *p, const node_t *n, const char *const *words, int *v)
{
	char buf[32];
	int ret = token_of(p, n, buf, sizeof(buf)), i;

	if (ret)
		return ret == -EINVAL ? perr(p, n, "<%s>: unknown value", nm(n)) : ret;
	for (i = 0; words[i]; i++)
		if (!strcmp(buf, words[i])) {
			*v = i;
			return 0;
		}
	return perr(p, n, "<%s>: unknown value '%s'", nm(n), buf);
}

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
	} schemes[] = {{"tcp4://", 0}, {"tcp://", 0}, {"net4://", 0}, {"net://", 0},
		       {"tcp6://", 1}, {"net6://", 1}};
	const char *s = NULL, *h, *e;
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(schemes); i++)
		if (!strncmp(uri, schemes[i].scheme, strlen(schemes[i].scheme))) {
			s = uri + strlen(schemes[i].scheme);
			*v6 = schemes[i].v6;
			break;
		}
	if (!s)
		return perr(p, n, "<%s>: '%s' is not a tcp4://, tcp6:// or net:// URL", nm(n), uri);
	h = s;
	if (*s == '[') {
		e = strchr(s, ']');
		if (!e)
			return perr(p, n, "<%s>: '%s': no ']' after the IPv6 address", nm(n), uri);
		e++;
	} else {
		e = s + strcspn(s, ":/");
	}
	if (e == h || (size_t)(e - h) >= hlen)
		return perr(p, n, "<%s>: '%s': bad host", nm(n), uri);
	memcpy(host, h, (size_t)(e - h));
	host[e - h] = '\0';
	*port = 0;
	if (*e == ':') {
		char *end;
		unsigned long x = strtoul(e + 1, &end, 10);

		if (end == e + 1 || x == 0 || x > 65535 || (*end && *end != '/'))
			return perr(p, n, "<%s>: '%s': bad port", nm(n), uri);
		*port = (unsigned)x;
		e = end;
	}
	if (*e && *e != '/')
		return perr(p, n, "<%s>: '%s': bad URL", nm(n), uri);
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

	ret = children(p, n, k, c, 2);
	if (ret)
		return ret;
	if (!c[0] && !c[1])
		return perr(p, n, "<net_output> without <control_uri> or <data_uri>");
	for (i = 0; i < 2 && !ret; i++) {
		if (!c[i])
			continue;
		ret = text_of(p, c[i], &uri[i]);
		if (!ret)
			ret = net_uri(p, c[i], uri[i], host[i], sizeof(host[i]), &port[i], &sub[i],
				      &v6[i]);
	}
	if (ret)
		goto out;
	/* One URL alone stands for both, as in LTTng. */
	i = c[0] ? 0 : 1;
	if (c[0] && c[1] && (strcmp(host[0], host[1]) || v6[0] != v6[1])) {
		ret = perr(p, n, "<net_output>: control and data URLs on different hosts (%s, %s): "
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
		ret = perr(p, n, "<net_output>: URL too long");
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
	int ret = children(p, n, k, c, 2);

	o->given = 1;
	o->enabled = 1;
	if (!ret && c[0])
		ret = bool_of(p, c[0], &o->enabled);
	if (ret)
		return ret;
	if (!c[1])
		return perr(p, n, "<consumer_output> without <destination>");
	ret = children(p, c[1], dk, d, 2);
	if (ret)
		return ret;
	if (!!d[0] == !!d[1])
		return perr(p, c[1], "<destination> needs one of <path> and <net_output>");
	if (d[0])
		return text_of(p, d[0], &o->path);
	return parse_net_output(p, d[1], o);
}

static int parse_snapshot_outputs(struct px *p, const node_t *n, struct cfg_session *s)
{
	static const char *const k[] = {"name", "max_size", "consumer_output"};
	node_t *e, *c[3];
	size_t nr, i = 0;
	int ret = list_of(p, n, "output", &nr);

	if (ret)
		return ret;
	s->snapshot_outputs = calloc(nr ? nr : 1, sizeof(*s->snapshot_outputs));
	if (!s->snapshot_outputs)
		return -ENOMEM;
	FOR_EACH_ELEM(e, n)
	{
		struct cfg_snapshot_output *o = &s->snapshot_outputs[i++];

		s->nr_snapshot_outputs = i;
		ret = children(p, e, k, c, 3);
		if (!ret && c[0])
			ret = text_of(p, c[0], &o->name);
		if (!ret && c[1])
			ret = u64_of(p, c[1], UINT64_MAX, &o->max_size);
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
	int ret = children(p, n, k, c, 2);

	if (ret)
		return ret;
	if (c[0] && c[1])
		return perr(p, n, "<output> holds <snapshot_outputs> or <consumer_output>, not both");
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
	int ret = children(p, n, k, c, 3);

	if (!ret && c[0])
		ret = bool_of(p, c[0], &s->snapshot);
	if (!ret && c[1])
		ret = u32_of(p, c[1], &s->live_timer_us);
	if (ret || !c[2])
		return ret;
	FOR_EACH_ELEM(r, c[2])
	{
		int periodic = !strcmp(nm(r), "periodic");
		static const char *const pk[] = {"time_us"}, *const sk[] = {"bytes"};
		node_t *v;

		if (!periodic && strcmp(nm(r), "size_threshold"))
			return perr(p, r, "unknown element <%s> in <rotation_schedules>", nm(r));
		ret = children(p, r, periodic ? pk : sk, &v, 1);
		if (ret)
			return ret;
		if (!v)
			continue;
		ret = u64_of(p, v, UINT64_MAX, periodic ? &s->rotate_timer_us : &s->rotate_size);
		if (ret)
			return ret;
	}
	return no_text(p, c[2]);
}

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
	"ALL",		  "TRACEPOINT", "PROBE",   "USERSPACE_PROBE", "FUNCTION",
	"FUNCTION_ENTRY", "NOOP",	"SYSCALL", "KPROBE",	      "KRETPROBE",
	NULL,
};

/* <probe_attributes> (kernel probes, LTTng's --probe and --function) as SYM+OFF or 0xADDR. */
static int probe_target(struct px *p, const node_t *n, char **target)
{
	static const char *const k[] = {"symbol_name", "address", "offset"};
	uint64_t addr = 0, off = 0;
	char *sym = NULL, buf[TRAWL_CTL_TARGET_MAX];
	node_t *c[3];
	int ret = children(p, n, k, c, 3);

	if (!ret && c[0])
		ret = text_of(p, c[0], &sym);
	if (!ret && c[1])
		ret = u64_of(p, c[1], UINT64_MAX, &addr);
	if (!ret && c[2])
		ret = u64_of(p, c[2], UINT64_MAX, &off);
	if (ret)
		goto out;
	if (sym && sym[0] && off)
		ret = trawl_path_fmt(buf, sizeof(buf), "%s+%" PRIu64, sym, off);
	else if (sym && sym[0])
		ret = trawl_path_fmt(buf, sizeof(buf), "%s", sym);
	else if (addr)
		ret = trawl_path_fmt(buf, sizeof(buf), "0x%" PRIx64, addr + off);
	else
		ret = perr(p, n, "<probe_attributes> without a symbol or an address");
	if (ret == -ENAMETOOLONG)
		ret = perr(p, n, "<probe_attributes>: location too long");
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
	int ret = children(p, n, sdt ? tk : fk, c, sdt ? 4 : 3), method = 0, i;

	for (i = 1; !ret && i < (sdt ? 4 : 3); i++) {
		if (!c[i]) {
			ret = perr(p, n, "<%s> without <%s>", nm(n), (sdt ? tk : fk)[i]);
			break;
		}
		ret = text_of(p, c[i], &v[i - 1]);
	}
	if (!ret && c[0])
		ret = enum_of(p, c[0], methods, &method);
	if (!ret && sdt != (method == 2) && !(method == 0 && !sdt))
		ret = perr(p, c[0], "<lookup_method>: %s does not go with <%s>", methods[method],
			   nm(n));
	if (!ret) {
		if (sdt)
			ret = trawl_path_fmt(buf, sizeof(buf), "sdt:%s:%s:%s", v[0], v[1], v[2]);
		else
			ret = trawl_path_fmt(buf, sizeof(buf), "elf:%s:%s", v[0], v[1]);
		if (ret)
			ret = perr(p, n, "<%s>: location too long", nm(n));
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
	int ret = children(p, n, k, c, 4), i, nr = 0;

	if (ret)
		return ret;
	for (i = 0; i < 4; i++)
		nr += !!c[i];
	if (nr != 1)
		return perr(p, n, "<attributes> holds one of <%s>, <%s>, <%s> and <%s>", k[0], k[1],
			    k[2], k[3]);
	if (c[1])
		return perr(p, c[1], "<function_attributes>: ftrace function events "
				     "(FUNCTION_ENTRY) are not supported by trawl");
	if ((c[0] && type != ET_PROBE && type != ET_KPROBE && type != ET_FUNCTION &&
	     type != ET_KRETPROBE) ||
	    ((c[2] || c[3]) && type != ET_USERSPACE_PROBE))
		return perr(p, n, "<attributes> do not go with event type %s", event_types[type]);
	if (c[0])
		return probe_target(p, c[0], &ev->target);
	return uprobe_target(p, c[2] ? c[2] : c[3], !c[2], &ev->target);
}

static int parse_event(struct px *p, const node_t *n, enum trawl_ctl_domain dom,
		       struct cfg_event *ev)
{
	static const char *const k[] = {"name",	    "enabled", "type",	     "loglevel_type",
					"loglevel", "filter",  "exclusions", "attributes"};
	static const char *const lt[] = {"ALL", "RANGE", "SINGLE", NULL};
	node_t *c[8];
	int ret = children(p, n, k, c, 8), type = ET_TRACEPOINT, ltype = 0;
	int64_t level = -1;

	ev->enabled = 1;
	if (!ret && c[0])
		ret = text_of(p, c[0], &ev->name);
	if (!ret && c[1])
		ret = bool_of(p, c[1], &ev->enabled);
	if (!ret && c[2])
		ret = enum_of(p, c[2], event_types, &type);
	if (!ret && c[3])
		ret = enum_of(p, c[3], lt, &ltype);
	if (!ret && c[4])
		ret = s64_of(p, c[4], INT32_MIN, INT32_MAX, &level);
	if (!ret && c[5])
		ret = text_of(p, c[5], &ev->filter);
	if (ret)
		return ret;
	if (c[6]) {
		size_t nr;

		ret = list_of(p, c[6], "exclusion", &nr);
		if (ret)
			return ret;
		if (nr)
			return perr(p, c[6], "<exclusions>: event name exclusions are not "
					     "supported by trawl");
	}
	if (!ev->name || !ev->name[0])
		return perr(p, n, "<event> without a <name>");
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
		return perr(p, c[2], "<type>: %s events are not supported by trawl",
			    event_types[type]);
	}
	if (dom != TRAWL_CTL_DOMAIN_KERNEL && ev->kind != TRAWL_CTL_EVENT_TRACEPOINT)
		return perr(p, c[2], "<type>: %s events are kernel events", event_types[type]);
	if (c[7]) {
		ret = parse_event_attributes(p, c[7], type, ev);
		if (ret)
			return ret;
	} else if (ev->kind == TRAWL_CTL_EVENT_PROBE || ev->kind == TRAWL_CTL_EVENT_FUNCTION ||
		   ev->kind == TRAWL_CTL_EVENT_USERSPACE_PROBE) {
		return perr(p, n, "<event> %s of type %s without <attributes>", ev->name,
			    event_types[type]);
	}
	/* LTTng writes level -1 with ALL; a level out of 0..14 means none. */
	ev->loglevel_type = (enum trawl_ctl_loglevel_type)ltype;
	if (ltype && (level < 0 || level > 14))
		return perr(p, c[4] ? c[4] : n, "<loglevel>: %" PRId64
						" is not a level from 0 (TRACE_EMERG) to 14 "
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
	{"PID", "pid"},		{"TID", "tid"},		  {"VPID", "vpid"},   {"VTID", "vtid"},
	{"PPID", "ppid"},	{"PROCNAME", "procname"}, {"PRIO", "prio"},   {"NICE", "nice"},
	{"IP", "ip"},		{"PTHREAD_ID", "pthread_id"},
};

const char *cfg_context_lttng(const char *name)
{
	size_t i;

	for (i = 0; i < TRAWL_ARRAY_SIZE(context_names); i++)
		if (!strcmp(name, context_names[i].trawl))
			return context_names[i].lttng;
	return NULL;
}

static int parse_perf_context(struct px *p, const node_t *n, enum trawl_ctl_domain dom,
			      char **out)
{
	static const char *const k[] = {"type", "config", "name"};
	const char *prefix = dom == TRAWL_CTL_DOMAIN_KERNEL ? "perf:cpu:" : "perf:thread:";
	uint64_t type = 0, config = 0;
	char *name = NULL, buf[TRAWL_CTL_NAME_MAX], cand[64];
	node_t *c[3];
	size_t i;
	int ret = children(p, n, k, c, 3), sw;

	if (!ret && (!c[0] || !c[1] || !c[2]))
		ret = perr(p, n, "<perf> needs <type>, <config> and <name>");
	if (!ret)
		ret = u64_of(p, c[0], UINT32_MAX, &type);
	if (!ret)
		ret = u64_of(p, c[1], UINT64_MAX, &config);
	if (!ret)
		ret = text_of(p, c[2], &name);
	if (ret)
		goto out;
	if (type == 4 /* PERF_TYPE_RAW: the name says which: perf_thread_raw_rHEX_LABEL */) {
		const char *r = strstr(name, "_raw_r"), *label;

		label = r ? strchr(r + 6, '_') : NULL;
		if (!label || trawl_path_fmt(buf, sizeof(buf), "%sraw:r%.*s:%s", prefix,
					     (int)(label - r - 6), r + 6, label + 1)) {
			ret = perr(p, c[2], "<name>: '%s' is not a raw counter's name", name);
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
	ret = perr(p, n, "<perf>: counter type %" PRIu64 " config %" PRIu64
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

static int parse_context(struct px *p, const node_t *n, enum trawl_ctl_domain dom, char **out)
{
	static const char *const k[] = {"type", "perf", "app"};
	char word[32];
	node_t *c[3];
	size_t i;
	int ret = children(p, n, k, c, 3);

	if (ret)
		return ret;
	if (!!c[0] + !!c[1] + !!c[2] != 1)
		return perr(p, n, "<context> holds one of <type>, <perf> and <app>");
	if (c[2])
		return perr(p, c[2], "<app>: application contexts are not supported by trawl");
	if (c[1])
		return parse_perf_context(p, c[1], dom, out);
	ret = token_of(p, c[0], word, sizeof(word));
	if (ret)
		return ret;
	for (i = 0; i < TRAWL_ARRAY_SIZE(context_names); i++)
		if (!strcmp(word, context_names[i].lttng)) {
			*out = strdup(context_names[i].trawl);
			return *out ? 0 : -ENOMEM;
		}
	return perr(p, c[0], "<type>: context %s is not supported by trawl", word);
}

/* ---- channels ---- */

static int parse_channel(struct px *p, const node_t *n, enum trawl_ctl_domain dom,
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
		"name",		   "enabled",	      "overwrite_mode",	       "subbuffer_size",
		"subbuffer_count", "switch_timer_interval", "read_timer_interval", "blocking_timeout",
		"output_type",	   "tracefile_size",	    "tracefile_count",	   "live_timer_interval",
		"events",	   "contexts",		    "monitor_timer_interval",
	};
	static const char *const modes[] = {"DISCARD", "OVERWRITE", NULL};
	static const char *const outputs[] = {"SPLICE", "MMAP", NULL};
	node_t *c[C_NR], *e;
	uint64_t v;
	int64_t blocking = 0;
	size_t nr, i;
	int ret = children(p, n, k, c, C_NR), x;

	ch->enabled = 1;
	ch->overwrite = -1;
	if (!ret && c[C_NAME])
		ret = text_of(p, c[C_NAME], &ch->name);
	if (!ret && !c[C_NAME])
		ret = perr(p, n, "<channel> without a <name>");
	if (!ret && c[C_ENABLED])
		ret = bool_of(p, c[C_ENABLED], &ch->enabled);
	if (!ret && c[C_OVERWRITE] && !(ret = enum_of(p, c[C_OVERWRITE], modes, &x)))
		ch->overwrite = x;
	if (!ret && c[C_SUBBUF_SIZE])
		ret = u64_of(p, c[C_SUBBUF_SIZE], UINT64_MAX, &ch->subbuf_size);
	if (!ret && c[C_SUBBUF_COUNT])
		ret = u64_of(p, c[C_SUBBUF_COUNT], UINT32_MAX, &ch->num_subbuf);
	if (!ret && c[C_SWITCH] && !(ret = u32_of(p, c[C_SWITCH], &ch->switch_timer_us)))
		ch->has_switch_timer = 1;
	if (!ret && c[C_READ] && !(ret = u32_of(p, c[C_READ], &ch->read_timer_us)))
		ch->has_read_timer = 1;
	if (!ret && c[C_BLOCKING])
		ret = s64_of(p, c[C_BLOCKING], -1, 2147483648000LL, &blocking);
	if (!ret && blocking)
		ret = perr(p, c[C_BLOCKING], "<blocking_timeout>: blocking channels are not "
					     "supported by trawl");
	/* trawl picks how packets reach the disk itself: either word is fine. */
	if (!ret && c[C_OUTPUT])
		ret = enum_of(p, c[C_OUTPUT], outputs, &x);
	for (i = C_TF_SIZE; !ret && i <= C_TF_COUNT; i++)
		if (c[i] && !(ret = u64_of(p, c[i], UINT64_MAX, &v)) && v)
			ret = perr(p, c[i], "<%s>: trace file rotation is not supported by trawl",
				   k[i]);
	/* The session's live timer decides; LTTng writes it in each channel too. */
	if (!ret && c[C_LIVE])
		ret = u64_of(p, c[C_LIVE], UINT32_MAX, &v);
	if (!ret && c[C_MONITOR])
		ret = u64_of(p, c[C_MONITOR], UINT64_MAX, &v);
	if (ret)
		return ret;
	if (c[C_EVENTS]) {
		ret = list_of(p, c[C_EVENTS], "event", &nr);
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
		ret = list_of(p, c[C_CONTEXTS], "context", &nr);
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

/* ---- trackers ---- */

/* Element names of each process attribute, by enum trawl_ctl_process_attr. */
const char *const cfg_tracker_elems[TRAWL_CTL_PROCESS_ATTR_COUNT] = {
	"pid_process_attr_tracker", "vpid_process_attr_tracker", "uid_process_attr_tracker",
	"vuid_process_attr_tracker", "gid_process_attr_tracker", "vgid_process_attr_tracker",
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
	int ret = children(p, n, k, c, named ? 2 : 1);

	if (ret)
		return ret;
	if (!!c[0] == !!c[1])
		return perr(p, n, "<%s> holds %s", nm(n), named ? "<id> or <name>" : "<id>");
	if (c[1])
		return text_of(p, c[1], &id->name);
	ret = u64_of(p, c[0], UINT32_MAX - 1, &v);
	id->id = (uint32_t)v;
	return ret;
}

static int parse_tracker(struct px *p, const node_t *n, int attr, struct cfg_tracker *t)
{
	static const char *const k[] = {"process_attr_values"};
	int named = attr >= TRAWL_CTL_PROCESS_ATTR_UID;
	node_t *v, *e;
	size_t nr;
	int ret = children(p, n, k, &v, 1);

	if (ret)
		return ret;
	if (t->present)
		return perr(p, n, "<%s> given twice", nm(n));
	t->present = 1;
	if (!v)
		return perr(p, n, "<%s> without <process_attr_values>", nm(n));
	ret = list_of(p, v, cfg_tracker_values[attr], &nr);
	if (ret)
		return ret;
	if (nr > TRAWL_CTL_TRACKER_MAX_VALUES)
		return perr(p, v, "more than %d values", TRAWL_CTL_TRACKER_MAX_VALUES);
	t->values = calloc(nr ? nr : 1, sizeof(*t->values));
	if (!t->values)
		return -ENOMEM;
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
	int ret = list_of(p, n, "pid_tracker", &nr);

	FOR_EACH_ELEM(pt, n)
	{
		if (!ret)
			ret = children(p, pt, tk, &targets, 1);
		if (!ret && !targets)
			ret = perr(p, pt, "<pid_tracker> without <targets>");
		if (!ret)
			ret = list_of(p, targets, "pid_target", &nr);
		if (ret)
			return ret;
		if (t->present)
			return perr(p, pt, "a PID tracker given twice");
		t->present = 1;
		t->values = calloc(nr ? nr : 1, sizeof(*t->values));
		if (!t->values)
			return -ENOMEM;
		FOR_EACH_ELEM(tg, targets)
		{
			int64_t v;

			ret = children(p, tg, pk, &pid, 1);
			if (!ret && !pid)
				ret = perr(p, tg, "<pid_target> without <pid>");
			if (!ret)
				ret = s64_of(p, pid, -1, INT32_MAX, &v);
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
	static const char *const k[] = {"type", "buffer_type", "channels",
					"process_attr_trackers", "trackers"};
	static const char *const types[] = {"KERNEL", "UST", "JUL", "LOG4J", "PYTHON", NULL};
	static const char *const bufs[] = {"PER_PID", "PER_UID", "GLOBAL", NULL};
	static const enum trawl_ctl_buffers buf_of[] = {TRAWL_CTL_BUFFERS_PER_PID,
							TRAWL_CTL_BUFFERS_PER_UID,
							TRAWL_CTL_BUFFERS_GLOBAL};
	enum trawl_ctl_domain dom;
	struct cfg_domain *d;
	node_t *c[5], *e;
	size_t nr, i;
	int ret = children(p, n, k, c, 5), type, buf = 1;

	if (!ret && !c[0])
		ret = perr(p, n, "<domain> without <type>");
	if (!ret)
		ret = enum_of(p, c[0], types, &type);
	if (!ret && c[1])
		ret = enum_of(p, c[1], bufs, &buf);
	if (!ret && c[2])
		ret = list_of(p, c[2], "channel", &nr);
	if (ret)
		return ret;
	if (type >= 2) { /* the agents' domains: LTTng saves them empty with every UST session */
		if ((c[2] && nr) || c[3] || c[4])
			return perr(p, n, "the %s domain is not supported by trawl", types[type]);
		return 0;
	}
	dom = type == 0 ? TRAWL_CTL_DOMAIN_KERNEL : TRAWL_CTL_DOMAIN_UST;
	d = &s->domains[dom];
	if (d->present)
		return perr(p, n, "the %s domain given twice", types[type]);
	d->present = 1;
	if ((dom == TRAWL_CTL_DOMAIN_KERNEL) != (buf == 2))
		return perr(p, c[1], "<buffer_type>: %s does not go with the %s domain", bufs[buf],
			    types[type]);
	d->buffers = buf_of[buf];
	if (c[2]) {
		d->channels = calloc(nr ? nr : 1, sizeof(*d->channels));
		if (!d->channels)
			return -ENOMEM;
		FOR_EACH_ELEM(e, c[2])
		{
			ret = parse_channel(p, e, dom, &d->channels[d->nr_channels++]);
			if (ret)
				return ret;
		}
	}
	if (c[3]) {
		ret = no_text(p, c[3]);
		if (ret)
			return ret;
		FOR_EACH_ELEM(e, c[3])
		{
			for (i = 0; i < TRAWL_CTL_PROCESS_ATTR_COUNT; i++)
				if (!strcmp(nm(e), cfg_tracker_elems[i]))
					break;
			if (i == TRAWL_CTL_PROCESS_ATTR_COUNT)
				return perr(p, e, "unknown element <%s> in <%s>", nm(e), nm(c[3]));
			if (dom == TRAWL_CTL_DOMAIN_UST && i != TRAWL_CTL_PROCESS_ATTR_VPID &&
			    i != TRAWL_CTL_PROCESS_ATTR_VUID && i != TRAWL_CTL_PROCESS_ATTR_VGID)
				return perr(p, e, "<%s>: user space tracks virtual IDs only (vpid, "
						  "vuid, vgid)",
					    nm(e));
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
	int ret = children(p, n, k, c, 6);

	s->line = (int)xmlGetLineNo(n);
	if (!ret && !c[0])
		ret = perr(p, n, "<session> without a <name>");
	if (!ret)
		ret = text_of(p, c[0], &s->name);
	if (!ret && (!s->name[0] || strlen(s->name) >= TRAWL_CTL_NAME_MAX))
		ret = perr(p, c[0], "<name>: a session name has 1 to %d bytes",
			   TRAWL_CTL_NAME_MAX - 1);
	if (!ret && c[1])
		ret = text_of(p, c[1], &s->shm_path);
	if (!ret && s->shm_path && s->shm_path[0])
		ret = perr(p, c[1], "<shared_memory_path>: a session's shared-memory path is not "
				    "supported by trawl");
	if (!ret && c[3])
		ret = bool_of(p, c[3], &s->started);
	if (!ret && c[4])
		ret = parse_attributes(p, c[4], s);
	if (!ret && c[5])
		ret = parse_session_output(p, c[5], s);
	if (!ret && c[2])
		ret = list_of(p, c[2], "domain", &nr);
	if (ret)
		return ret;
	if (s->snapshot && s->output.given)
		return perr(p, c[5], "a snapshot session's <output> holds <snapshot_outputs>");
	if (!s->snapshot && s->nr_snapshot_outputs)
		return perr(p, c[5], "<snapshot_outputs> in a session that is not a snapshot session");
	if (s->live_timer_us && s->output.given && s->output.path)
		return perr(p, c[5], "a live session streams to a relay daemon: its output is a "
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
		return perr(p, NULL, "a DOCTYPE is not allowed in a session file");
	if (!root || strcmp(nm(root), "sessions"))
		return perr(p, root, "the root element is <%s>, not <sessions>",
			    root ? nm(root) : "");
	if (root->ns)
		return perr(p, root, "<sessions> has a namespace: session files have none");
	ret = list_of(p, root, "session", &nr);
	if (ret)
		return ret;
	if (!nr)
		return perr(p, root, "<sessions> holds no <session>");
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
				return perr(p, NULL, "session %s given twice (lines %d and %d)",
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
		return perr(&p, NULL, "larger than %u MiB", TRAWL_CONFIG_MAX_BYTES >> 20);
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
