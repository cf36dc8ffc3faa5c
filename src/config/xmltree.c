/* SPDX-License-Identifier: MIT */
/* xmltree.c - the schema's rules over libxml2's tree (xmltree.h). */
#include "common/common.h"
#include "config/xmltree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cfg_one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

int px_err(struct px *p, const node_t *n, const char *fmt, ...)
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

const char *px_name(const node_t *n)
{
	return (const char *)n->name;
}

static int px_blank(const xmlChar *s)
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
int px_children(struct px *p, const node_t *n, const char *const *names, node_t **slot, size_t nr)
{
	const node_t *c;
	size_t i;

	memset(slot, 0, nr * sizeof(*slot));
	for (c = n->children; c; c = c->next) {
		if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE)
			continue;
		if (c->type == XML_TEXT_NODE && px_blank(c->content))
			continue;
		if (c->type != XML_ELEMENT_NODE)
			return px_err(p, c, "unexpected text in <%s>", px_name(n));
		for (i = 0; i < nr; i++)
			if (!strcmp(px_name(c), names[i]))
				break;
		if (i == nr)
			return px_err(p, c, "unknown element <%s> in <%s>", px_name(c), px_name(n));
		if (slot[i])
			return px_err(p, c, "<%s> given twice in <%s>", px_name(c), px_name(n));
		slot[i] = (node_t *)c;
	}
	return 0;
}

/* Fails if @n holds text besides its elements (a choice of elements). */
int px_no_text(struct px *p, const node_t *n)
{
	const node_t *c;

	for (c = n->children; c; c = c->next)
		if ((c->type == XML_TEXT_NODE && !px_blank(c->content)) ||
		    c->type == XML_CDATA_SECTION_NODE || c->type == XML_ENTITY_REF_NODE)
			return px_err(p, c, "unexpected text in <%s>", px_name(n));
	return 0;
}

/* The element children of @n, all named @name (a sequence): counted in *@nr. */
int px_list_of(struct px *p, const node_t *n, const char *name, size_t *nr)
{
	const node_t *c;

	*nr = 0;
	for (c = n->children; c; c = c->next) {
		if (c->type == XML_COMMENT_NODE || c->type == XML_PI_NODE)
			continue;
		if (c->type == XML_TEXT_NODE && px_blank(c->content))
			continue;
		if (c->type != XML_ELEMENT_NODE)
			return px_err(p, c, "unexpected text in <%s>", px_name(n));
		if (strcmp(px_name(c), name))
			return px_err(p, c, "unknown element <%s> in <%s>", px_name(c), px_name(n));
		(*nr)++;
	}
	return 0;
}

node_t *px_next_elem(node_t *c)
{
	while (c && c->type != XML_ELEMENT_NODE)
		c = c->next;
	return c;
}

/* The text of a leaf element, strdup'd into *@out. */
int px_text(struct px *p, const node_t *n, char **out)
{
	const node_t *c;
	xmlChar *s;

	for (c = n->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE)
			return px_err(p, c, "unknown element <%s> in <%s>", px_name(c), px_name(n));
	s = xmlNodeGetContent(n);
	if (!s)
		return -ENOMEM;
	*out = strdup((const char *)s);
	xmlFree(s);
	return *out ? 0 : -ENOMEM;
}

/* The text without surrounding white space (xs:integer and xs:boolean collapse it). */
int px_token(struct px *p, const node_t *n, char *buf, size_t len)
{
	char *s = NULL, *b, *e;
	int ret = px_text(p, n, &s);

	if (ret)
		return ret;
	for (b = s; *b == ' ' || *b == '\t' || *b == '\n' || *b == '\r'; b++)
		;
	for (e = b + strlen(b);
	     e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'); e--)
		;
	if ((size_t)(e - b) >= len) {
		free(s);
		return px_err(p, n, "<%s>: value too long", px_name(n));
	}
	memcpy(buf, b, (size_t)(e - b));
	buf[e - b] = '\0';
	free(s);
	return 0;
}

int px_s64(struct px *p, const node_t *n, int64_t min, int64_t max, int64_t *v)
{
	char buf[32], *end;
	long long x;
	int ret = px_token(p, n, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	x = strtoll(buf, &end, 10);
	if (!buf[0] || *end || errno || x < min || x > max)
		return px_err(p, n, "<%s>: '%s' is not an integer from %" PRId64 " to %" PRId64,
			      px_name(n), buf, min, max);
	*v = x;
	return 0;
}

int px_u64(struct px *p, const node_t *n, uint64_t max, uint64_t *v)
{
	char buf[32], *end;
	unsigned long long x;
	int ret = px_token(p, n, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	x = strtoull(buf, &end, 10);
	if (!buf[0] || buf[0] == '-' || *end || errno || x > max)
		return px_err(p, n, "<%s>: '%s' is not an integer from 0 to %" PRIu64, px_name(n),
			      buf, max);
	*v = x;
	return 0;
}

int px_u32(struct px *p, const node_t *n, uint32_t *v)
{
	uint64_t x = 0;
	int ret = px_u64(p, n, UINT32_MAX, &x);

	if (!ret)
		*v = (uint32_t)x;
	return ret;
}

int px_bool(struct px *p, const node_t *n, int *v)
{
	char buf[8];
	int ret = px_token(p, n, buf, sizeof(buf));

	if (ret)
		return ret == -EINVAL ? px_err(p, n, "<%s>: not a boolean", px_name(n)) : ret;
	if (!strcmp(buf, "true") || !strcmp(buf, "1"))
		*v = 1;
	else if (!strcmp(buf, "false") || !strcmp(buf, "0"))
		*v = 0;
	else
		return px_err(p, n, "<%s>: '%s' is not true, false, 1 or 0", px_name(n), buf);
	return 0;
}

/* The index of @n's text in @words (NULL-terminated). */
int px_enum(struct px *p, const node_t *n, const char *const *words, int *v)
{
	char buf[32];
	int ret = px_token(p, n, buf, sizeof(buf)), i;

	if (ret)
		return ret == -EINVAL ? px_err(p, n, "<%s>: unknown value", px_name(n)) : ret;
	for (i = 0; words[i]; i++)
		if (!strcmp(buf, words[i])) {
			*v = i;
			return 0;
		}
	return px_err(p, n, "<%s>: unknown value '%s'", px_name(n), buf);
}
