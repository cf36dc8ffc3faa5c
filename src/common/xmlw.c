/* SPDX-License-Identifier: MIT */
/* xmlw.c - the XML writer of xmlw.h. */
#include "common/xmlw.h"
#include "common/common.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void trawl_xmlw_init(struct trawl_xmlw *w)
{
	memset(w, 0, sizeof(*w));
	trawl_strbuf_init(&w->sb);
	trawl_strbuf_add(&w->sb, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
}

void trawl_xmlw_set_compact(struct trawl_xmlw *w)
{
	w->compact = 1;
}

/* Starts a line at the current depth, unless compact. */
static void new_line(struct trawl_xmlw *w, int depth)
{
	if (w->compact)
		return;
	trawl_strbuf_add(&w->sb, "\n");
	trawl_strbuf_indent(&w->sb, depth);
}

static void fail(struct trawl_xmlw *w, int err)
{
	if (!w->err)
		w->err = err;
}

/* @s escaped for text (@attr 0) or a double-quoted attribute value. */
static void add_escaped(struct trawl_xmlw *w, const char *s, int attr)
{
	const char *run = s;

	for (; *s; s++) {
		const char *rep = NULL;
		unsigned char c = (unsigned char)*s;

		if (c == '&')
			rep = "&amp;";
		else if (c == '<')
			rep = "&lt;";
		else if (c == '>')
			rep = "&gt;";
		else if (c == '"' && attr)
			rep = "&quot;";
		else if (c == '\r')
			rep = "&#13;"; /* a parser turns a bare CR into LF */
		else if ((c == '\n' || c == '\t') && attr)
			rep = c == '\n' ? "&#10;" : "&#9;";
		else if (c < 0x20 && c != '\n' && c != '\t') {
			fail(w, EILSEQ);
			return;
		}
		if (!rep)
			continue;
		trawl_strbuf_addf(&w->sb, "%.*s%s", (int)(s - run), run, rep);
		run = s + 1;
	}
	trawl_strbuf_add(&w->sb, run);
}

/* Ends a pending start tag: its children start on the next line. */
static void end_start_tag(struct trawl_xmlw *w)
{
	if (w->in_tag) {
		trawl_strbuf_add(&w->sb, ">");
		w->in_tag = 0;
	}
}

void trawl_xmlw_open(struct trawl_xmlw *w, const char *name)
{
	if (w->err)
		return;
	if (w->depth == TRAWL_XMLW_DEPTH) {
		fail(w, EINVAL);
		return;
	}
	end_start_tag(w);
	if (w->depth)
		new_line(w, w->depth);
	trawl_strbuf_addf(&w->sb, "<%s", name);
	w->open[w->depth++] = name;
	w->in_tag = 1;
	w->has_child = 0;
}

void trawl_xmlw_attr(struct trawl_xmlw *w, const char *name, const char *value)
{
	if (w->err)
		return;
	if (!w->in_tag) {
		fail(w, EINVAL);
		return;
	}
	trawl_strbuf_addf(&w->sb, " %s=\"", name);
	add_escaped(w, value, 1);
	trawl_strbuf_add(&w->sb, "\"");
}

void trawl_xmlw_close(struct trawl_xmlw *w)
{
	if (w->err)
		return;
	if (!w->depth) {
		fail(w, EINVAL);
		return;
	}
	w->depth--;
	if (w->in_tag) {
		trawl_strbuf_add(&w->sb, "/>");
		w->in_tag = 0;
	} else {
		new_line(w, w->depth);
		trawl_strbuf_addf(&w->sb, "</%s>", w->open[w->depth]);
	}
	w->has_child = 1; /* the parent's */
	if (!w->depth)
		trawl_strbuf_add(&w->sb, "\n");
}

void trawl_xmlw_text(struct trawl_xmlw *w, const char *name, const char *text)
{
	if (w->err)
		return;
	if (!w->depth) {
		fail(w, EINVAL);
		return;
	}
	end_start_tag(w);
	new_line(w, w->depth);
	trawl_strbuf_addf(&w->sb, "<%s>", name);
	add_escaped(w, text, 0);
	trawl_strbuf_addf(&w->sb, "</%s>", name);
	w->has_child = 1;
}

void trawl_xmlw_u64(struct trawl_xmlw *w, const char *name, uint64_t v)
{
	char buf[24];

	trawl_path_fmt(buf, sizeof(buf), "%" PRIu64, v); /* 20 digits fit */
	trawl_xmlw_text(w, name, buf);
}

void trawl_xmlw_s64(struct trawl_xmlw *w, const char *name, int64_t v)
{
	char buf[24];

	trawl_path_fmt(buf, sizeof(buf), "%" PRId64, v); /* 20 bytes fit */
	trawl_xmlw_text(w, name, buf);
}

void trawl_xmlw_bool(struct trawl_xmlw *w, const char *name, int v)
{
	trawl_xmlw_text(w, name, v ? "true" : "false");
}

char *trawl_xmlw_finish(struct trawl_xmlw *w, size_t *len)
{
	int err = w->err ? w->err : w->depth ? EINVAL : 0;
	char *doc;

	if (err) {
		trawl_xmlw_fini(w);
		errno = err;
		return NULL;
	}
	doc = trawl_strbuf_detach(&w->sb, len);
	memset(w, 0, sizeof(*w));
	return doc;
}

void trawl_xmlw_fini(struct trawl_xmlw *w)
{
	trawl_strbuf_fini(&w->sb);
	memset(w, 0, sizeof(*w));
}
