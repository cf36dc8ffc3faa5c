/* SPDX-License-Identifier: MIT */
/*
 * xmlw.h - a small XML writer into memory: elements, attributes and text,
 * escaped, indented with one tab per level as LTTng's own writer does
 * (or, compact, all on one line as LTTng's machine interface prints it).
 * Shared by what writes XML for other tools to read (the session files of
 * `trawl save`, machine interface output).
 *
 * Like strbuf.h, the first failure is remembered and every later call does
 * nothing, so a writer checks once, at trawl_xmlw_finish():
 *
 *	struct trawl_xmlw w;
 *	trawl_xmlw_init(&w);
 *	trawl_xmlw_open(&w, "sessions");
 *	trawl_xmlw_open(&w, "session");
 *	trawl_xmlw_text(&w, "name", name);
 *	trawl_xmlw_close(&w);
 *	trawl_xmlw_close(&w);
 *	doc = trawl_xmlw_finish(&w, &len);   // caller frees; NULL: errno
 *
 * Text that XML 1.0 cannot hold (control bytes other than tab, newline and
 * carriage return) fails the document with EILSEQ rather than being
 * dropped: a file that says something else than what was meant is worse
 * than no file.
 */
#ifndef TRAWL_COMMON_XMLW_H
#define TRAWL_COMMON_XMLW_H

#include <stddef.h>
#include <stdint.h>

#include "common/strbuf.h"

#define TRAWL_XMLW_DEPTH 32 /* the deepest nesting of elements */

struct trawl_xmlw {
	struct trawl_strbuf sb;
	const char *open[TRAWL_XMLW_DEPTH]; /* names of the open elements (the caller's
					       strings, which must live until closed) */
	int depth;			    /* elements open */
	int in_tag;    /* the last element's start tag is not closed yet ('>' pending) */
	int has_child; /* the innermost open element has a child element */
	int err;       /* errno of the first failure, else 0 */
	int compact;   /* 1: no line breaks or indentation inside the root element */
};

/* Starts a document with the XML declaration (UTF-8). */
void trawl_xmlw_init(struct trawl_xmlw *w);
/* From now on, elements follow each other on one line (`trawl --mi xml`). */
void trawl_xmlw_set_compact(struct trawl_xmlw *w);
/* Opens element @name (a literal or a string that outlives its close). */
void trawl_xmlw_open(struct trawl_xmlw *w, const char *name);
/* An attribute of the element just opened, before any child or text. */
void trawl_xmlw_attr(struct trawl_xmlw *w, const char *name, const char *value);
/* Closes the innermost open element. */
void trawl_xmlw_close(struct trawl_xmlw *w);
/* <@name>@text</@name>, @text escaped. */
void trawl_xmlw_text(struct trawl_xmlw *w, const char *name, const char *text);
void trawl_xmlw_u64(struct trawl_xmlw *w, const char *name, uint64_t v);
void trawl_xmlw_s64(struct trawl_xmlw *w, const char *name, int64_t v);
/* "true" or "false". */
void trawl_xmlw_bool(struct trawl_xmlw *w, const char *name, int v);
/*
 * Ends the document (every element must be closed): the text, the caller's
 * to free, with its length in *@len; or NULL with errno set (ENOMEM,
 * EILSEQ, EINVAL for unbalanced elements). @w is empty again either way.
 */
char *trawl_xmlw_finish(struct trawl_xmlw *w, size_t *len);
/* Frees what @w holds without a result (after an error of the caller's). */
void trawl_xmlw_fini(struct trawl_xmlw *w);

#endif /* TRAWL_COMMON_XMLW_H */
